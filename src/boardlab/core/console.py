"""Output that any terminal can print: the one console factory of boardlab's commands.

Boards, tables and progress bars use characters beyond ASCII (box lines, ``·``, ``è`` of
"misère", ``λ``). Where the output's encoding cannot hold one (``PYTHONIOENCODING=ascii``, a
Latin-1 terminal, a pipe read by an old tool), writing it would end the command in a
UnicodeEncodeError. :func:`fit_streams` makes standard output and standard error write an
ASCII look-alike instead (``è`` as ``e``, box lines as ``-``, ``|`` and ``+``, anything else as
``?``): every writer inherits it, rich consoles and plain ``print`` / ``typer.echo`` alike.
Rich itself already draws ASCII boxes and bars when the encoding is not UTF-8.
:func:`make_console` is the console every command builds, with the streams fitted first.
"""

from __future__ import annotations

import codecs
import sys
import unicodedata
from typing import Any

from rich.console import Console
from rich.table import Table

ASCII_FALLBACK = "boardlab-ascii"
"""The name of the codec error handler that writes ASCII look-alikes."""

_LOOK_ALIKES = {
    "…": "...",
    "·": ".",
    "•": "*",
    "●": "o",
    "○": "o",
    "×": "x",
    "÷": "/",
    "±": "+/-",
    "≈": "~",
    "≤": "<=",
    "≥": ">=",
    "≠": "!=",
    "→": "->",
    "←": "<-",
    "—": "-",
    "–": "-",
    "‘": "'",
    "’": "'",
    "“": '"',
    "”": '"',
    "½": "1/2",
    "✓": "v",
    "✗": "x",
}


def ascii_look_alike(char: str) -> str:
    """An ASCII text that reads like ``char`` (one character): itself if ASCII, its letters
    without accents, a Greek letter's name, a line for a box-drawing or block character, else ``?``."""
    if char.isascii():
        return char
    if char in _LOOK_ALIKES:
        return _LOOK_ALIKES[char]
    name = unicodedata.name(char, "")
    if name.startswith("BOX DRAWINGS"):
        across = any(w in name for w in ("HORIZONTAL", "LEFT", "RIGHT"))
        along = any(w in name for w in ("VERTICAL", "UP", "DOWN"))
        return "-" if across and not along else "|" if along and not across else "+"
    if "BLOCK" in name or name.endswith(" SHADE"):
        return "#"
    if name.startswith("BRAILLE"):  # the frames of a spinner
        return "*"
    if name.startswith("GREEK SMALL LETTER "):
        return name.removeprefix("GREEK SMALL LETTER ").split()[0].lower()
    if name.startswith("GREEK CAPITAL LETTER "):
        return name.removeprefix("GREEK CAPITAL LETTER ").split()[0].capitalize()
    plain = unicodedata.normalize("NFKD", char).encode("ascii", "ignore").decode("ascii")
    return plain or "?"


def _fall_back(error: UnicodeError) -> tuple[str, int]:
    if not isinstance(error, UnicodeEncodeError):
        raise error
    text = error.object[error.start : error.end]
    return "".join(ascii_look_alike(c) for c in text), error.end


codecs.register_error(ASCII_FALLBACK, _fall_back)


def _is_utf(encoding: str | None) -> bool:
    return (encoding or "").lower().replace("-", "").replace("_", "").startswith("utf")


def fit_streams() -> None:
    """Make ``sys.stdout`` and ``sys.stderr`` write ASCII look-alikes for what their encoding
    cannot hold, where that encoding is not UTF-8 (a UTF-8 stream holds every character)."""
    for stream in (sys.stdout, sys.stderr):
        if stream is None or _is_utf(getattr(stream, "encoding", None)):
            continue
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is None or getattr(stream, "errors", None) == ASCII_FALLBACK:
            continue
        try:
            reconfigure(errors=ASCII_FALLBACK)
        except (AttributeError, OSError, ValueError):  # a stream that cannot change: left as it is
            continue


def make_console(*, stderr: bool = False, **options: Any) -> Console:
    """A rich console on standard output (or error), its stream fitted by :func:`fit_streams`."""
    fit_streams()
    return Console(stderr=stderr, **options)


def counted(n: int, one: str, many: str = "") -> str:
    """``1 game``, ``2 games``, ``1,600 games``; ``many`` for plurals not made with an s (``plies``)."""
    return f"{n:,} {one if n == 1 else many or one + 's'}"


def ply_count(n: int) -> str:
    """``1 ply``, ``2 plies``."""
    return counted(n, "ply", "plies")


def print_whole(console: Console, table: Table) -> None:
    """Print ``table`` whole: on a terminal too narrow for its figures it runs wider (the
    terminal wraps it) rather than lose its last columns off the edge."""
    console.print(table, crop=False)


__all__ = [
    "ASCII_FALLBACK",
    "ascii_look_alike",
    "counted",
    "fit_streams",
    "make_console",
    "ply_count",
    "print_whole",
]
