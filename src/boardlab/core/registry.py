"""Registries of named things (games, agents): one style for all of them.

A :class:`Registry` finds its entries through a Python entry-point group (``name =
"module:attr"`` in a package's metadata, so any installed package can add a game or an agent)
and takes more at run time with :meth:`Registry.register`. Entries are imported when first
asked for, so listing names costs no import.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from importlib.metadata import EntryPoint, entry_points
from typing import Generic, TypeVar, overload

from boardlab.core.spec import shorten

T = TypeVar("T")


class Registry(Generic[T]):
    """Named entries of one kind, from the entry-point group ``group`` and run-time registration.

    ``error`` is the exception raised for an unknown name (its message lists the known ones);
    ``kind`` names the entries in that message ("game", "agent").
    """

    def __init__(self, kind: str, group: str, error: type[Exception]) -> None:
        self.kind = kind
        self.group = group
        self.error = error
        self._loaded: dict[str, T] = {}

    def _entry_points(self) -> dict[str, EntryPoint]:
        return {ep.name: ep for ep in entry_points(group=self.group)}

    @overload
    def register(self, name: str, entry: T) -> T: ...

    @overload
    def register(self, name: str) -> Callable[[T], T]: ...

    def register(self, name: str, entry: T | None = None) -> T | Callable[[T], T]:
        """Add ``entry`` under ``name`` (replacing one of the same name); without ``entry``, a
        decorator that adds what it decorates."""
        if entry is None:
            return lambda decorated: self.register(name, decorated)
        self._loaded[name.strip().lower()] = entry
        return entry

    def unregister(self, name: str) -> None:
        """Forget an entry added at run time (entry points stay known)."""
        self._loaded.pop(name.strip().lower(), None)

    def names(self) -> list[str]:
        """Every known name, sorted."""
        return sorted(set(self._loaded) | set(self._entry_points()))

    def get(self, name: str) -> T:
        """The entry registered under ``name`` (case and surrounding blanks ignored)."""
        key = name.strip().lower()
        if key not in self._loaded:
            found = self._entry_points().get(key)
            if found is None:
                known = ", ".join(self.names())
                raise self.error(f"unknown {self.kind} {shorten(key)!r}; known {self.kind}s: {known}")
            self._loaded[key] = found.load()
        return self._loaded[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name.strip().lower() in self.names()
