"""A monotonic clock readable from numba-compiled code, in the units of ``time.perf_counter``.

On POSIX systems compiled code calls ``clock_gettime(CLOCK_MONOTONIC)`` directly, the clock
behind ``time.perf_counter``, linked by name so that the searches reading it can be cached on
disk; elsewhere it falls back to a (slower) switch to object mode.
"""

from __future__ import annotations

import ctypes
import time
from typing import Any

import numpy as np
from llvmlite import ir
from numba import njit, objmode, types
from numba.core import cgutils
from numba.extending import intrinsic

from boardlab.games.jit import cached_njit


def _posix_monotonic() -> int | None:
    """The id of ``CLOCK_MONOTONIC`` where libc's ``clock_gettime`` reads the clock behind
    ``time.perf_counter``, else None."""
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
    return clock_id


@intrinsic
def _clock_gettime(typingctx: Any, clock_id: Any, address: Any) -> Any:
    """``clock_gettime(clock_id, (struct timespec *) address)``, linked by name rather than
    called through a pointer, so that code reading the clock can be cached on disk."""
    signature = types.int32(types.int64, types.intp)

    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        function_type = ir.FunctionType(ir.IntType(32), [ir.IntType(32), ir.IntType(8).as_pointer()])
        function = cgutils.get_or_insert_function(builder.module, function_type, "clock_gettime")
        clock = builder.trunc(args[0], ir.IntType(32))
        return builder.call(function, [clock, builder.inttoptr(args[1], ir.IntType(8).as_pointer())])

    return signature, codegen


_CLOCK_ID = _posix_monotonic()

if _CLOCK_ID is not None:

    @cached_njit
    def now() -> float:
        """Seconds on the ``time.perf_counter`` clock."""
        buffer = np.empty(2, dtype=np.int64)
        _clock_gettime(_CLOCK_ID, buffer.ctypes.data)  # type: ignore[call-arg]  # numba gives the typing context
        return buffer[0] + buffer[1] * 1e-9

else:

    @njit
    def now() -> float:
        """Seconds on the ``time.perf_counter`` clock."""
        with objmode(seconds="float64"):
            seconds = time.perf_counter()
        return seconds
