"""The format names boardlab's network files declare in their metadata, in one place, so that
each reader can name a file of the other kind for what it is."""

ALPHAZERO_FORMAT = "boardlab-alphazero"
"""An AlphaZero policy-value network (:mod:`boardlab.models.network`)."""
EVALNET_FORMAT = "boardlab-evalnet"
"""A value network for alpha-beta's leaves (:mod:`boardlab.models.evalnet`)."""
