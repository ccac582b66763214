"""The compiled 64-bit hash of a position's state words (:func:`position_hash`), shared by every
kernel's searches and tables; kept out of :mod:`boardlab.games.base` so that the rules' Python
face loads without numba."""

from __future__ import annotations

import numpy as np

from boardlab.games.jit import cached_njit


@cached_njit(inline="always")
def _mix64(x):  # type: ignore[no-untyped-def]
    # the splitmix64 finaliser, in wrapping int64 arithmetic
    x = (x ^ ((x >> 30) & 0x3FFFFFFFF)) * np.int64(-4658895280553007687)
    x = (x ^ ((x >> 27) & 0x1FFFFFFFFF)) * np.int64(-7723592293110705685)
    return x ^ ((x >> 31) & 0x1FFFFFFFF)


@cached_njit
def position_hash(a, b):  # type: ignore[no-untyped-def]
    """A 64-bit hash of a position's state words (equal words, equal hash)."""
    return _mix64(_mix64(np.int64(a)) ^ np.int64(b))
