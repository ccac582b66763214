"""A monotonic clock readable from numba-compiled code, in the units of ``time.perf_counter``.

On POSIX systems compiled code calls ``clock_gettime(CLOCK_MONOTONIC)`` directly, the clock
behind ``time.perf_counter``; elsewhere it falls back to a (slower) switch to object mode.
"""

from __future__ import annotations

import ctypes
import time
from collections.abc import Callable

import numpy as np
from numba import njit, objmode


def _clock_gettime() -> tuple[Callable[[int, int], int], int] | None:
    try:
        function = ctypes.CDLL(None).clock_gettime
        clock_id = time.CLOCK_MONOTONIC
    except (AttributeError, OSError, TypeError):
        return None
    function.argtypes = [ctypes.c_int, ctypes.c_void_p]
    function.restype = ctypes.c_int
    probe = (ctypes.c_int64 * 2)()
    if function(clock_id, ctypes.addressof(probe)) != 0:
        return None
    if abs(probe[0] + probe[1] * 1e-9 - time.perf_counter()) > 1.0:
        return None  # not the clock behind perf_counter
    return function, clock_id


_NATIVE = _clock_gettime()

if _NATIVE is not None:
    _gettime, _CLOCK_ID = _NATIVE

    @njit
    def now() -> float:
        """Seconds on the ``time.perf_counter`` clock."""
        buffer = np.empty(2, dtype=np.int64)
        _gettime(_CLOCK_ID, buffer.ctypes.data)
        return buffer[0] + buffer[1] * 1e-9

else:

    @njit
    def now() -> float:
        """Seconds on the ``time.perf_counter`` clock."""
        with objmode(seconds="float64"):
            seconds = time.perf_counter()
        return seconds
