"""The search and evolution labs: set cover with A*, black-box evolutionary algorithms and the
operators the evolution trainers reuse."""
