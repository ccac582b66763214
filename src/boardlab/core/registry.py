"""Registries of named things (games, agents): one style for all of them.

A :class:`Registry` finds its entries through a Python entry-point group (``name =
"module:attr"`` in a package's metadata, so any installed package can add a game or an agent)
and takes more at run time with :meth:`Registry.register`. Entries are imported when first
asked for, so listing names costs no import.

An entry point that cannot be loaded (its module missing or failing to import, its attribute
absent, or not a class of the registry's kind) concerns its own name only: asking for that
name raises the registry's error on one line naming the entry point, its package and what
failed, and :meth:`Registry.available` leaves it out with one warning line on standard error.
An entry point whose class calls itself by another name (``misnamed = "pkg:Cls"`` where
``Cls.name`` is ``othername``) is such an entry point: no command could name what it makes.

Names are the registry's own business: where a package's entry point takes the name of one of
boardlab's own entries, boardlab's is kept and the package's is ignored, with one warning line
naming the package; where two other packages register one name, neither is kept (a stored name
must not come to mean another package's entry depending on the path's order): asking for that
name raises the registry's error naming both packages, and the listings leave it out with one
warning line.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from importlib.metadata import EntryPoint, entry_points
from typing import Generic, TypeVar, overload

from boardlab.core.spec import one_line, shorten

T = TypeVar("T")

HOME_PACKAGE = "boardlab"
"""The package whose entry points are the registries' own: they win a name over any other's."""


@dataclass
class _Names:
    """The entry points of a group, by name, once clashes are settled."""

    chosen: dict[str, EntryPoint] = field(default_factory=dict)
    """The entry point that stands for each name."""
    refused: dict[str, str] = field(default_factory=dict)
    """Names that two other packages register, and the message saying so."""
    shadowed: dict[str, str] = field(default_factory=dict)
    """Names of boardlab's own taken by another package too, and the warning saying so."""


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
        return self._names().chosen

    def _names(self) -> _Names:
        """The group's entry points by name, clashes settled: boardlab's own entry keeps its name
        over another package's; a name that two other packages register is refused."""
        grouped: dict[str, list[EntryPoint]] = {}
        for entry_point in entry_points(group=self.group):
            grouped.setdefault(entry_point.name.strip().lower(), []).append(entry_point)
        names = _Names()
        for name, found in grouped.items():
            own = [ep for ep in found if package_of(ep) == HOME_PACKAGE]
            others = sorted((ep for ep in found if package_of(ep) != HOME_PACKAGE), key=_described)
            if own:
                names.chosen[name] = own[0]
                if others:
                    names.shadowed[name] = (
                        f"{self.kind} {shorten(name)!r} of {_listed(others)} is ignored: "
                        f"{HOME_PACKAGE}'s own {self.kind} has that name; rename the entry point"
                    )
            elif len(others) == 1:
                names.chosen[name] = others[0]
            else:
                names.refused[name] = (
                    f"{self.kind} {shorten(name)!r} is registered by {_listed(others)}; neither is "
                    f"used, so that the name means one {self.kind}: uninstall one or rename its entry point"
                )
        return names

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
        names = self._names()
        return sorted(set(self._loaded) | set(names.chosen) | set(names.refused))

    def available(self) -> list[str]:
        """The names whose entries load, sorted. Each entry point that does not load is left
        out, with one warning line on standard error (once per process) saying why."""
        names = []
        for name in self.names():
            try:
                self.get(name)
            except self.error as err:
                self._warn(name, f"{err}; left out")
                continue
            names.append(name)
        return names

    def get(self, name: str) -> T:
        """The entry registered under ``name`` (case and surrounding blanks ignored); the
        registry's error for an unknown name or an entry point that does not load."""
        key = name.strip().lower()
        if key not in self._loaded:
            names = self._names()
            if key in names.refused:
                raise self.error(names.refused[key])
            if key in names.shadowed:
                self._warn(f"shadowed {key}", names.shadowed[key])
            found = names.chosen.get(key)
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
                why = self._wrong_kind(entry_point, entry) or self._misnamed(name, entry_point, entry)
                if why is None:
                    return entry  # type: ignore[no-any-return]
            self._broken[target] = why
        package = package_of(entry_point)
        raise self.error(
            f"{self.kind} {shorten(name)!r} from package {package} (entry point {entry_point.value}) "
            f"could not be loaded: {why}"
        )

    def _wrong_kind(self, entry_point: EntryPoint, entry: object) -> str | None:
        """Why ``entry`` is not an entry of this registry (not a subclass of ``base``), or None."""
        if self.base is None or (isinstance(entry, type) and issubclass(entry, self.base)):
            return None
        return f"{entry_point.value} is {shorten(repr(entry), 60)}, not a subclass of {self.base.__name__}"

    def _misnamed(self, name: str, entry_point: EntryPoint, entry: object) -> str | None:
        """Why ``entry`` cannot stand under ``name``: its own ``name`` (by which specs, listings
        and stored results call it) is another; None where it agrees or declares none."""
        own = getattr(entry, "name", None)
        if not isinstance(own, str) or own.strip().lower() == name:
            return None
        return (
            f"{entry_point.value} calls itself {shorten(own)!r}, not {shorten(name)!r}; an entry "
            f"point's name must be its {self.kind}'s name"
        )

    def _warn(self, key: str, message: str) -> None:
        """``message`` on one line of standard error, the first time for ``key`` only."""
        if key in self._warned:
            return
        self._warned.add(key)
        print(f"warning: {one_line(message)}", file=sys.stderr)

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name.strip().lower() in self.names()


def package_of(entry_point: EntryPoint) -> str:
    """The name of the distribution that declares ``entry_point`` ("unknown" where none does)."""
    return entry_point.dist.name if entry_point.dist is not None else "unknown"


def _described(entry_point: EntryPoint) -> str:
    return f"package {package_of(entry_point)} (entry point {entry_point.value})"


def _listed(found: list[EntryPoint]) -> str:
    """``package a (entry point ...) and package b (...)``: where each of ``found`` comes from."""
    described = [_described(ep) for ep in found]
    return described[0] if len(described) == 1 else ", ".join(described[:-1]) + " and " + described[-1]


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


__all__ = ["HOME_PACKAGE", "Registry", "failure_text", "package_of"]
