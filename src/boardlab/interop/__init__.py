"""Adapters between boardlab and other game interfaces (the course's Quixo template first)."""
