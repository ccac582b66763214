"""Registries of named things (games, agents): one style for all of them.

A :class:`Registry` finds its entries through a Python entry-point group (``name =
"module:attr"`` in a package's metadata, so any installed package can add a game or an agent)
and takes more at run time with :meth:`Registry.register`. Entries are imported when first
asked for, so listing names costs no import.

An entry point that cannot be loaded (its module missing or failing to import, its attribute
absent, or not a class of the registry's kind) concerns its own name only: asking for that
name raises the registry's error on one line naming the entry point, its package and what
failed, and :meth:`Registry.available` leaves it out with one warning line on standard error.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from importlib.metadata import EntryPoint, entry_points
from typing import Generic, TypeVar, overload

from boardlab.core.spec import one_line, shorten

T = TypeVar("T")


class Registry(Generic[T]):
    """Named entries of one kind, from the entry-point group ``group`` and run-time registration.

    ``error`` is the exception raised for an unknown name (its message lists the known ones) or
    an entry point that cannot be loaded; ``kind`` names the entries in those messages ("game",
    "agent"). ``base``, where given, is the class every entry point must name a subclass of;
    ``hint`` ends the message for an unknown name (how an entry of another package is found).
    """

    def __init__(
        self, kind: str, group: str, error: type[Exception], *, base: type | None = None, hint: str = ""
    ) -> None:
        self.kind = kind
        self.group = group
        self.error = error
        self.base = base
        self.hint = hint
        self._loaded: dict[str, T] = {}
        self._broken: dict[tuple[str, str], str] = {}  # (name, target) -> why it does not load
        self._warned: set[str] = set()

    def _entry_points(self) -> dict[str, EntryPoint]:
        return {ep.name.strip().lower(): ep for ep in entry_points(group=self.group)}

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
        """Every known name, sorted (those of entry points that fail to load included)."""
        return sorted(set(self._loaded) | set(self._entry_points()))

    def available(self) -> list[str]:
        """The names whose entries load, sorted. Each entry point that does not load is left
        out, with one warning line on standard error (once per process) saying why."""
        names = []
        for name in self.names():
            try:
                self.get(name)
            except self.error as err:
                self._warn(name, str(err))
                continue
            names.append(name)
        return names

    def get(self, name: str) -> T:
        """The entry registered under ``name`` (case and surrounding blanks ignored); the
        registry's error for an unknown name or an entry point that does not load."""
        key = name.strip().lower()
        if key not in self._loaded:
            found = self._entry_points().get(key)
            if found is None:
                known = ", ".join(self.names())
                raise self.error(
                    f"unknown {self.kind} {shorten(key)!r}; known {self.kind}s: {known}{self.hint}"
                )
            self._loaded[key] = self._load(key, found)
        return self._loaded[key]

    def check_not_a_path(self, spec: str) -> None:
        """The registry's error when ``spec`` is a Python ``module:Class`` path (``mygame:MyGame``)
        rather than a registered name with its options: entries are named by their names."""
        if not isinstance(spec, str):
            return
        name, colon, rest = spec.strip().partition(":")
        parts = [part.strip() for part in rest.split(".")]
        path = all(part.isidentifier() for part in parts) and parts[-1][:1].isupper()  # a class
        if not colon or not path or name.strip().lower() in self:
            return
        raise self.error(
            f"{shorten(spec.strip())!r} reads as a module:Class path, but {_a(self.kind)} is named "
            f"by its registered name ({', '.join(self.names())}); another package registers its "
            f"{self.kind}s by entry points in the {self.group} group of its pyproject.toml "
            f'(NAME = "module:Class"){self.hint}'
        )

    def _load(self, name: str, entry_point: EntryPoint) -> T:
        """The object ``entry_point`` names; the registry's error saying why it does not load."""
        target = (entry_point.name, entry_point.value)
        why = self._broken.get(target)
        if why is None:
            try:
                entry = entry_point.load()
            except Exception as err:  # a plugin's import may fail in any way: it concerns that plugin
                why = failure_text(err)
            else:
                why = self._wrong_kind(entry_point, entry)
                if why is None:
                    return entry  # type: ignore[no-any-return]
            self._broken[target] = why
        package = entry_point.dist.name if entry_point.dist is not None else "unknown"
        raise self.error(
            f"{self.kind} {shorten(name)!r} from package {package} (entry point {entry_point.value}) "
            f"could not be loaded: {why}"
        )

    def _wrong_kind(self, entry_point: EntryPoint, entry: object) -> str | None:
        """Why ``entry`` is not an entry of this registry (not a subclass of ``base``), or None."""
        if self.base is None or (isinstance(entry, type) and issubclass(entry, self.base)):
            return None
        return f"{entry_point.value} is {shorten(repr(entry), 60)}, not a subclass of {self.base.__name__}"

    def _warn(self, name: str, message: str) -> None:
        """``message`` on one line of standard error, the first time only."""
        if name in self._warned:
            return
        self._warned.add(name)
        print(f"warning: {one_line(message)}; left out", file=sys.stderr)

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name.strip().lower() in self.names()


def _a(noun: str) -> str:
    """``noun`` with its indefinite article."""
    return f"{'an' if noun[:1] in 'aeiou' else 'a'} {noun}"


def failure_text(err: Exception) -> str:
    """What went wrong in loading an entry point, in a few words: the message of a missing
    module or attribute, the kind of error and its message otherwise."""
    text = one_line(str(err))
    if isinstance(err, ImportError | AttributeError) and text:
        return text
    return f"{type(err).__name__}: {text}" if text else type(err).__name__


__all__ = ["Registry", "failure_text"]
