"""Spec strings: ``name:key=value,...`` read into frozen dataclasses of typed options.

Games (``connect4:width=8,height=7``) and agents (``alphabeta:depth=5,eval=lines3``) declare
their options once, as the fields of a frozen dataclass made with :func:`option`; reading,
checking, printing and the help tables all derive from those fields. Values are checked
strictly: ASCII digits only, finite numbers inside the declared range, one of the declared
choices, and a clear :class:`SpecError` naming the option and what is accepted otherwise.

A value may hold another spec in parentheses, commas and all:
``hybrid:search=(alphabeta:eval=lines3,contempt=10),time=1``. Parentheses must balance; one
pair around a whole value is taken off when it is read and put back when a value holding a
comma or a parenthesis is written, so that :func:`spec_text` round-trips.
"""

from __future__ import annotations

import dataclasses
import math
import numbers
import re
import typing
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

T = TypeVar("T")

MAX_VALUE_SHOWN = 40
_INT = re.compile(r"[+-]?[0-9]+")
_FLOAT = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?")
_TRUE = ("1", "true", "yes", "on")
_FALSE = ("0", "false", "no", "off")


_LINE_BREAK = re.compile(r"[ \t]*[\r\n]+\s*")


class SpecError(ValueError):
    """A spec string or option value that cannot be accepted."""


def shorten(text: str, limit: int = MAX_VALUE_SHOWN) -> str:
    """``text`` on one line (each line break and the blanks around it made one space), cut to
    ``limit`` characters, for an error message."""
    text = _LINE_BREAK.sub(" ", text)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def shortened_in_the_middle(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters by an ellipsis in its middle, where two specs that
    differ only at their ends (two versions of one program) stay apart."""
    if len(text) <= limit:
        return text
    keep = (limit - 1) // 2
    return f"{text[:keep]}…{text[-keep:]}"


def shown_value(value: Any, limit: int = 40) -> str:
    """A value and its type for an error message, its repr cut to ``limit`` characters."""
    return f"{shorten(repr(value), limit)} ({type(value).__name__})"


_AN_BEFORE_U = ("un", "um", "up")
"""How words said with a vowel u start (``an unknown``, ``an update``), as against those said
"you" (``a unit``, ``a user``, ``a uniform``: ``uni`` is left out below)."""


def with_article(word: str) -> str:
    """``word`` after ``a`` or ``an`` as it is said: ``an alphazero``, ``a greedy``, ``an 8x8``,
    ``an 'iterations'``, ``a unit`` (quotes and brackets in front are skipped)."""
    said = word.lstrip("'\"([{`").lower()
    return f"{'an' if _said_with_a_vowel(said) else 'a'} {word}"


def _said_with_a_vowel(said: str) -> bool:
    if not said:
        return False
    if said[0].isdigit():
        digits = said[: len(said) - len(said.lstrip("0123456789"))]
        # eight..., eighty..., eleven, eighteen (and their thousands, millions)
        return digits[0] == "8" or (len(digits) % 3 == 2 and digits[:2] in ("11", "18"))
    if said[0] in "aeio":
        return True
    if said[0] == "u":
        return said.startswith(_AN_BEFORE_U) and not said.startswith("uni")
    return False


MAX_WORD_SHOWN = 200
_UNPRINTABLE = re.compile(r"[\x00-\x1f\x7f\ud800-\udfff]")


def one_line(message: str) -> str:
    """An error message fit for one terminal line: whitespace collapsed, control characters and
    undecodable bytes shown as ``?``, and every word longer than 200 characters (a pasted value)
    shortened."""
    words = _UNPRINTABLE.sub("?", " ".join(str(message).split())).split(" ")
    limit = MAX_WORD_SHOWN
    return " ".join(w if len(w) <= limit else f"{w[: limit - 3]}...({len(w)} chars)" for w in words)


@dataclass(frozen=True)
class OptionInfo:
    """What an option accepts, kept in its dataclass field's metadata."""

    help: str
    minimum: float | None = None
    maximum: float | None = None
    choices: tuple[Any, ...] = ()


def option(
    default: Any,
    help: str,
    *,
    minimum: float | None = None,
    maximum: float | None = None,
    choices: tuple[Any, ...] = (),
) -> Any:
    """A dataclass field declaring one spec option with its default, help and accepted values."""
    info = OptionInfo(help, minimum, maximum, tuple(choices))
    return dataclasses.field(default=default, metadata={"spec": info})


@dataclass(frozen=True)
class OptionSpec:
    """One option of a dataclass, as the parser and the help tables see it."""

    name: str
    kind: type
    default: Any
    info: OptionInfo

    @property
    def type_name(self) -> str:
        """``int``, ``float``, ``bool``, ``str`` or ``ints`` (a list like ``1-3-5``)."""
        return "ints" if self.kind is tuple else self.kind.__name__

    def explained(self) -> str:
        """``help [choices]`` or ``help (low..high)``: what the option sets and what it accepts."""
        info = self.info
        text = info.help
        if info.choices:
            text += f" [{'|'.join(format_value(c) for c in info.choices)}]"
        if info.minimum is not None or info.maximum is not None:
            low = "" if info.minimum is None else format_value(info.minimum)
            high = "" if info.maximum is None else format_value(info.maximum)
            text += f" ({low}..{high})"
        return text

    def parse(self, owner: str, text: str) -> Any:
        """The option's value from its text, checked; SpecError naming what is accepted."""
        value = _convert(self, owner, text.strip())
        self.check(owner, value)
        return value

    def check(self, owner: str, value: Any) -> None:
        """SpecError unless ``value`` is of the option's type and within the declared choices and
        range (values read from a file, e.g. a checkpoint's settings, come here unparsed)."""
        if not _of_type(self.type_name, value):
            raise SpecError(
                f"{owner}: {self.name} must be {_TYPE_WORDS.get(self.type_name, self.type_name)}, "
                f"got {shorten(repr(value))}"
            )
        info = self.info
        if info.choices and value not in info.choices:
            accepted = ", ".join(format_value(c) for c in info.choices)
            raise SpecError(
                f"{owner}: {self.name}={format_value(value)} is not accepted; choose one of {accepted}"
            )
        numbers = value if isinstance(value, tuple) else (value,)
        for number in numbers:
            if isinstance(number, bool) or not isinstance(number, int | float):
                continue
            if isinstance(number, float) and not math.isfinite(number):
                raise SpecError(f"{owner}: {self.name} must be a finite number, got {number}")
            if info.minimum is not None and number < info.minimum:
                raise SpecError(f"{owner}: {self.name} must be at least {_num(info.minimum)}, got {number}")
            if info.maximum is not None and number > info.maximum:
                raise SpecError(f"{owner}: {self.name} must be at most {_num(info.maximum)}, got {number}")


_TYPE_WORDS = {"int": "a whole number", "float": "a number", "bool": "true or false", "str": "a text"}


def _of_type(type_name: str, value: Any) -> bool:
    """True if ``value`` has the type an option of ``type_name`` holds (an int may stand for a float)."""
    if type_name == "bool":
        return isinstance(value, bool)
    if isinstance(value, bool):
        return False
    if type_name == "int":
        return isinstance(value, numbers.Integral)
    if type_name == "float":
        return isinstance(value, numbers.Real)
    if type_name == "str":
        return isinstance(value, str)
    if type_name == "ints":
        return isinstance(value, tuple | list) and all(
            isinstance(v, numbers.Integral) and not isinstance(v, bool) for v in value
        )
    return True


def _num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else str(x)


def format_value(value: Any) -> str:
    """An option value as it is written in a spec (lists of ints joined by ``-``, text holding
    a comma or a parenthesis in parentheses)."""
    if isinstance(value, tuple):
        return "-".join(str(v) for v in value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str) and any(c in value for c in ",()"):
        return f"({value})"
    return str(value)


def _convert(spec: OptionSpec, owner: str, text: str) -> Any:
    def bad(expected: str) -> SpecError:
        return SpecError(f"{owner}: {spec.name} must be {expected}, got {shorten(text)!r}")

    if spec.kind is bool:
        lowered = text.lower()
        if lowered in _TRUE or lowered in _FALSE:
            return lowered in _TRUE
        raise bad("true or false")
    if spec.kind is int:
        if not _INT.fullmatch(text) or len(text) > 20 or not -(2**63) <= int(text) < 2**63:
            raise bad("a whole number (ASCII digits, at most 2**63-1)")
        return int(text)
    if spec.kind is float:
        if not _FLOAT.fullmatch(text) or len(text) > 40:
            raise bad("a finite number (ASCII digits)")
        number = float(text)
        if number == 0 and any(c in "123456789" for c in re.split("[eE]", text)[0]):
            raise bad("a number a float can hold (this one is too small and would read as 0)")
        return number
    if spec.kind is tuple:
        parts = text.split("-")
        if not text or any(not p.isascii() or not p.isdigit() or len(p) > 18 for p in parts):
            raise bad("whole numbers joined by '-', like 1-3-5-7")
        return tuple(int(p) for p in parts)
    if not text.isprintable():
        raise bad("printable text")
    return _choice_named(spec, text)


def _choice_named(spec: OptionSpec, text: str) -> str:
    """The declared choice ``text`` names, whatever its letters' case (``Course`` is
    ``course``), as game and agent names are read; ``text`` itself where no single choice
    matches (the check then lists the choices), or where choices differ only by case."""
    choices = [c for c in spec.info.choices if isinstance(c, str)]
    if text in choices:
        return text
    folded = [c for c in choices if c.casefold() == text.casefold()]
    return folded[0] if len(folded) == 1 else text


def options_of(cls: type) -> tuple[OptionSpec, ...]:
    """The spec options declared by a dataclass, in field order."""
    hints = typing.get_type_hints(cls)
    out = []
    for f in dataclasses.fields(cls):
        info = f.metadata.get("spec")
        if info is None:
            continue
        kind = typing.get_origin(hints[f.name]) or hints[f.name]
        out.append(OptionSpec(f.name, kind, f.default, info))
    return tuple(out)


def split_spec(spec: str) -> tuple[str, dict[str, str]]:
    """``name`` and the raw ``key -> value`` texts of ``name:key=value,...``; a value in
    parentheses comes without them. Names and keys are read whatever their letters' case and
    come lowercase (``Mine:Depth=2`` is ``mine`` with ``depth``), as specs are written back."""
    if not isinstance(spec, str):
        raise SpecError(f"a spec is a string, NAME or NAME:key=value,..., got {type(spec).__name__}")
    if not spec.strip():
        raise SpecError("empty spec; write NAME or NAME:key=value,...")
    name, _, rest = spec.strip().partition(":")
    name = name.strip().lower()
    values: dict[str, str] = {}
    items = top_level_items(name, rest) if rest.strip() else []
    for i, item in enumerate(items):
        key, eq, text = item.partition("=")
        key = key.strip().lower()
        if not eq or not key:
            message = f"{name}: option {shorten(item.strip())!r} must be written key=value"
            raise SpecError(message + _comma_in_value(items, i))
        if key in values:
            raise SpecError(f"{name}: option {key!r} is given twice")
        values[key] = _unwrapped(text)
    return name, values


def _comma_in_value(items: list[str], bare: int) -> str:
    """How to write the value the comma before ``items[bare]`` (a word with no ``=``) cut short,
    when an option comes before it: numbers joined by ``-``, anything else in parentheses."""
    if bare == 0 or not items[bare].strip() or "=" not in items[bare - 1]:
        return ""
    key, _, first = items[bare - 1].partition("=")
    run = [first.strip()]
    for item in items[bare:]:
        if "=" in item or not item.strip():
            break
        run.append(item.strip())
    key = key.strip()
    if all(part.isascii() and part.isdigit() for part in run):
        how = f"a list of numbers is written {key}={'-'.join(run)}"
    else:
        how = f"write {key}=({','.join(run)}): a value holding a comma goes in parentheses"
    return (
        f"; if it belongs to the value of {shorten(key)} (a comma starts a new option), {shorten(how, 160)}"
    )


def top_level_items(owner: str, text: str) -> list[str]:
    """``text`` split at the commas outside parentheses; SpecError if they do not balance."""
    items, depth, start = [], 0, 0
    for i, char in enumerate(text):
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth < 0:
                raise SpecError(f"{owner}: unbalanced parentheses: a ')' closes nothing in {shorten(text)!r}")
        elif char == "," and depth == 0:
            items.append(text[start:i])
            start = i + 1
    if depth > 0:
        raise SpecError(f"{owner}: unbalanced parentheses: a '(' is not closed in {shorten(text)!r}")
    items.append(text[start:])
    return items


def _unwrapped(text: str) -> str:
    """The inside of one pair of parentheses around the whole of ``text``, else ``text``."""
    inner = text.strip()
    if not (inner.startswith("(") and inner.endswith(")")):
        return text
    depth = 0
    for char in inner[:-1]:
        depth += (char == "(") - (char == ")")
        if depth == 0:
            return text  # the first '(' closes before the end: "(a)(b)" is not one pair
    return inner[1:-1]


def unknown_option(cls: type, owner: str, key: str, text: str = "") -> SpecError:
    """The error for an option that ``cls`` does not declare.

    A class whose options moved elsewhere says where with a ``moved_option(key, text)``
    classmethod returning a hint (or None); otherwise the message lists the options accepted.
    """
    moved = getattr(cls, "moved_option", None)
    hint = moved(key, text) if moved is not None else None
    if hint:
        return SpecError(f"{owner}: {hint}")
    accepted = ", ".join(o.name for o in options_of(cls)) or "no options"
    return SpecError(f"{owner}: unknown option {shorten(key)!r}; accepted: {accepted}")


def build_options(cls: type[T], owner: str, texts: Mapping[str, str], base: T | None = None) -> T:
    """An instance of the options dataclass ``cls`` from option texts; the options not given
    keep their values in ``base``, or their defaults without one."""
    known = {o.name: o for o in options_of(cls)}
    values: dict[str, Any] = {}
    for key, text in texts.items():
        found = _option_named(known, key)
        if found is None:
            raise unknown_option(cls, owner, key, text)
        if found.name in values:
            raise SpecError(f"{owner}: option {found.name!r} is given twice")
        values[found.name] = found.parse(owner, text)
    if base is not None:
        return dataclasses.replace(base, **values)  # type: ignore[type-var]
    return cls(**values)


def _option_named(known: Mapping[str, OptionSpec], key: str) -> OptionSpec | None:
    """The option ``key`` names, whatever its letters' case (an option declared ``maxDepth``
    is ``maxdepth`` too); None for none, or where two options differ only by case and the key
    is neither's exact spelling."""
    if key in known:
        return known[key]
    folded = [spec for name, spec in known.items() if name.casefold() == key.casefold()]
    return folded[0] if len(folded) == 1 else None


def check_options(instance: Any, owner: str) -> None:
    """SpecError if any option of a dataclass instance is outside its declared range."""
    for spec in options_of(type(instance)):
        spec.check(owner, getattr(instance, spec.name))


def changed_options(instance: Any) -> str:
    """``key=value,...`` of the options that differ from their defaults."""
    return ",".join(
        f"{o.name}={format_value(getattr(instance, o.name))}"
        for o in options_of(type(instance))
        if getattr(instance, o.name) != o.default
    )


def spec_text(name: str, instance: Any) -> str:
    """The spec that rebuilds ``instance``: ``name`` plus its non-default options."""
    changed = changed_options(instance)
    return f"{name}:{changed}" if changed else name


def number_problem(
    name: str, value: float | None, low: float | None = None, high: float | None = None
) -> str | None:
    """Why a command-line number is refused (not finite, below ``low``, above ``high``), or None.

    For the options that command-line parsers read as plain ``int`` or ``float``: ``name`` is
    the flag as the user typed it, the value is shortened in the message.
    """
    if value is None:
        return None
    if isinstance(value, float) and not math.isfinite(value):
        return f"{name} must be a finite number, got {value}"
    shown = shorten(str(value), 24)
    if low is not None and value < low:
        return f"{name} must be >= {_num(low)}, got {shown}"
    if high is not None and value > high:
        return f"{name} must be <= {_num(high)}, got {shown}"
    return None
