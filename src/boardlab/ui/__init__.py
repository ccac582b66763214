"""Doors for people: play against boardlab's agents in the terminal."""
