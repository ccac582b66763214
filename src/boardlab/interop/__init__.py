"""Adapters between boardlab and other game interfaces: the course's Quixo template, the engine
protocol (programs in any language), Gymnasium, PettingZoo and OpenSpiel."""
