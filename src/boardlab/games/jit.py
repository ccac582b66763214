"""boardlab's compiled code, kept in numba's disk cache under a key that follows its sources.

boardlab's compiled functions are made with :func:`cached_njit`. numba's own cache has two
faults here. The generic searches are built per game by functions that close over its kernel
(:func:`~boardlab.games.base.compiled_for`), and numba keys the cache of such a closure on the
pickled values it holds; a compiled function pickles with an identity drawn afresh in each
process, so the key never matched and every process compiled its searches again (seconds to a
minute). And numba checks only the file of the function it loads: a cached function whose
callee in another file had changed was loaded as it was compiled, from code that was gone.
:func:`cached_njit` keys the cache on a description that is the same in every process (each
compiled function by its module, name and code, and what it closes over; arrays by their bytes;
plain values by their text; the compiled functions it calls by name, likewise) and on the digest
of all of boardlab's sources (for a function from outside boardlab, of its own source file): a
change anywhere compiles afresh.
"""

from __future__ import annotations

import contextlib
import hashlib
import inspect
import warnings
from functools import cache
from pathlib import Path
from types import CodeType, FunctionType
from typing import Any

import numpy as np
from numba import njit
from numba.core.caching import FunctionCache, IndexDataCacheFile
from numba.core.dispatcher import Dispatcher
from numba.core.errors import NumbaWarning

from boardlab.core.spec import with_article

_PACKAGE = Path(__file__).resolve().parents[1]


class UnstableClosureError(TypeError):
    """A closure holds a value with no description that is the same in every process."""


@cache
def package_digest() -> str:
    """The digest of every boardlab source file: the generation of the compiled code cached."""
    return _digest(sorted(_PACKAGE.rglob("*.py")))


@cache
def _source_digest(path: Path) -> str:
    """The digest of one source file, or of every boardlab source file for boardlab's own."""
    return package_digest() if path.is_relative_to(_PACKAGE) else _digest([path])


def _digest(files: list[Path]) -> str:
    digest = hashlib.sha256()
    for file in files:
        digest.update(str(file).encode())
        digest.update(file.read_bytes())
    return digest.hexdigest()


def _constant(value: Any) -> Any:
    if isinstance(value, CodeType):
        return _code(value)
    if isinstance(value, frozenset):  # its order follows the string hashes of the process
        return sorted(repr(item) for item in value)
    return repr(value)


def _code(code: CodeType) -> list[Any]:
    return [code.co_code, [_constant(c) for c in code.co_consts], code.co_names]


def _function(function: FunctionType, seen: set[int]) -> list[Any]:
    source = inspect.getsourcefile(function)
    if source is None or not Path(source).is_file():
        raise UnstableClosureError(f"{function.__qualname__} has no source file")
    described = [
        function.__module__,
        function.__qualname__,
        _code(function.__code__),
        _source_digest(Path(source).resolve()),
    ]
    if id(function) not in seen:
        seen.add(id(function))
        cells = function.__closure__ or ()
        described.append([_describe(cell.cell_contents, seen) for cell in cells])
        named = [function.__globals__.get(name) for name in function.__code__.co_names]
        described.append([_describe(value, seen) for value in named if isinstance(value, Dispatcher)])
    return described


def _describe(value: Any, seen: set[int]) -> Any:
    """A description of a value a compiled closure holds, the same in every process."""
    if isinstance(value, Dispatcher):
        return _function(value.py_func, seen)
    if isinstance(value, np.ndarray):
        return [str(value.dtype), value.shape, hashlib.sha256(value.tobytes()).hexdigest()]
    if isinstance(value, tuple | list):
        return [_describe(item, seen) for item in value]
    if value is None or isinstance(value, bool | int | float | str | np.generic):
        return [type(value).__name__, repr(value)]
    raise UnstableClosureError(f"a closure holds {with_article(type(value).__name__)}")


def closure_key(function: FunctionType) -> str:
    """The digest of ``function``'s code, what it closes over and the sources behind them."""
    return hashlib.sha256(repr(_function(function, set())).encode()).hexdigest()


class CurrentIndex(IndexDataCacheFile):
    """The index of one closure's cache entries, showing only those of boardlab's present
    sources: the entries of earlier sources are dropped when the next entry is saved, and their
    data files are written over, so that a checkout whose sources change often does not fill
    its ``__pycache__`` folders with searches compiled from code that is gone."""

    def _load_index(self) -> dict[Any, str]:
        overloads: dict[Any, str] = super()._load_index()
        return {key: name for key, name in overloads.items() if key[-1] == package_digest()}


class _ClosureCache(FunctionCache):
    """numba's cache of one function, under :func:`closure_key` rather than numba's own key."""

    def __init__(self, py_func: FunctionType) -> None:
        super().__init__(py_func)
        self._closure_key = closure_key(py_func)
        self._cache_file = CurrentIndex(
            cache_path=self._cache_path,
            filename_base=self._impl.filename_base,
            source_stamp=self._impl.locator.get_source_stamp(),
        )

    def _index_key(self, sig: Any, codegen: Any) -> Any:
        return (sig, codegen.magic_tuple(), self._closure_key, package_digest())

    def save_overload(self, sig: Any, data: Any) -> None:
        # code numba cannot cache (e.g. one that switches to object mode) stays uncached quietly
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", NumbaWarning)
            super().save_overload(sig, data)


def cached_njit(*args: Any, **options: Any) -> Any:
    """``numba.njit`` with the disk cache keyed as this module says, for module-level functions
    and for those a builder defines alike.

    Used bare (``@cached_njit``) or with njit's options (``@cached_njit(nogil=True)``). A
    closure that holds something without a stable description, or a cache that has nowhere to
    go, leaves the function compiled in each process as plain ``njit`` does. Not for recursive
    functions: numba 0.68 crashed loading one from its cache.
    """

    def decorate(function: FunctionType) -> Any:
        dispatcher = njit(**options)(function)
        with contextlib.suppress(UnstableClosureError, RuntimeError, OSError):
            dispatcher._cache = _ClosureCache(function)  # what Dispatcher.enable_caching sets
        return dispatcher

    if args and callable(args[0]):
        return decorate(args[0])
    return decorate


__all__ = ["CurrentIndex", "UnstableClosureError", "cached_njit", "closure_key", "package_digest"]
