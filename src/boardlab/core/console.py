"""Output that any terminal can print: the one console factory of boardlab's commands.

Boards, tables and progress bars use characters beyond ASCII (box lines, ``·``, ``è`` of
"misère", ``λ``). Where the output's encoding cannot hold one (``PYTHONIOENCODING=ascii``, a
Latin-1 terminal, a pipe read by an old tool), writing it would end the command in a
UnicodeEncodeError. :func:`fit_streams` makes standard output and standard error write an
ASCII look-alike instead (``è`` as ``e``, box lines as ``-``, ``|`` and ``+``, anything else as
``?``): every writer inherits it, rich consoles and plain ``print`` / ``typer.echo`` alike.
Rich itself already draws ASCII boxes and bars when the encoding is not UTF-8.
:func:`make_console` is the console every command builds, with the streams fitted first, and
:class:`LoggedProgress` the progress display of its long work, which a log file can follow too.
"""

from __future__ import annotations

import codecs
import sys
import threading
import unicodedata
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, Progress, ProgressColumn, Task
from rich.table import Table
from rich.text import Text

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


LOG_EVERY = 30.0
"""Seconds between the progress lines written where the output is not a terminal."""


class LoggedProgress(Progress):
    """A rich progress display that a log file can follow.

    On a terminal (or in Jupyter) it is rich's :class:`~rich.progress.Progress`, redrawn in
    place. Where the console writes to a file or a pipe (``boardlab train ... > run.log``, a
    job under ``nohup``), rich draws the bars only once, when the work ends; this display also
    writes one plain line for each running task every ``log_every`` seconds, its columns as
    text and its bar as a percentage (``log_every`` defaults to :data:`LOG_EVERY`):
    ``epochs  43%  50  0:12:41  loss p=0.586 v=0.054``.
    """

    def __init__(
        self, *columns: str | ProgressColumn, log_every: float | None = None, **options: Any
    ) -> None:
        super().__init__(*columns, **options)
        self.log_every = LOG_EVERY if log_every is None else log_every
        self._stop_logging = threading.Event()
        self._logger: threading.Thread | None = None

    @property
    def logs_lines(self) -> bool:
        """Whether this display writes progress lines: enabled, on a console that cannot redraw."""
        return not self.disable and not self.console.is_interactive and not self.console.is_jupyter

    def start(self) -> None:
        """Start the display, and on a console that cannot redraw the thread writing its lines."""
        super().start()
        if self.logs_lines and self._logger is None:
            self._stop_logging.clear()
            self._logger = threading.Thread(target=self._log_until_stopped, name="progress-log", daemon=True)
            self._logger.start()

    def stop(self) -> None:
        """Stop the line writer, then the display (which draws its bars once more)."""
        if self._logger is not None:
            self._stop_logging.set()
            self._logger.join()
            self._logger = None
        super().stop()

    def _log_until_stopped(self) -> None:
        while not self._stop_logging.wait(self.log_every):
            self.log_lines()

    def log_lines(self) -> None:
        """Write one line for each visible task that has not finished."""
        with self._lock:
            lines = [self.line_of(task) for task in self.tasks if task.visible and not task.finished]
        for line in lines:
            self.console.print(line, markup=False, highlight=False, soft_wrap=True)

    def line_of(self, task: Task) -> str:
        """The task's columns as plain text, its bar as the share done (left out while the
        total is unknown), two spaces between them."""
        parts: list[str] = []
        for column in self.columns:
            if isinstance(column, BarColumn):
                part = f"{task.percentage:.0f}%" if task.total else ""
            elif isinstance(column, str):
                part = Text.from_markup(column.format(task=task)).plain
            else:
                rendered = column(task)
                part = rendered.plain if isinstance(rendered, Text) else ""  # a spinner, a custom renderable
            if part.strip():
                parts.append(" ".join(part.split()))
        return "  ".join(parts)


NOTEBOOK_HTML = '<pre style="font-family: monospace; line-height: 1.25">{code}</pre>'
"""How a notebook shows what a terminal would (``{code}``: its HTML)."""


def notebook_html(*renderables: Any, width: int = 120) -> str:
    """What ``renderables`` (rich Text, tables...) print on a terminal, as HTML with its colours
    inline: a ``_repr_html_`` for notebooks (Jupyter, VS Code)."""
    import io

    console = Console(record=True, file=io.StringIO(), width=width, color_system="truecolor")
    for renderable in renderables:
        console.print(renderable)
    return console.export_html(inline_styles=True, code_format=NOTEBOOK_HTML)


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
    "LOG_EVERY",
    "LoggedProgress",
    "ascii_look_alike",
    "counted",
    "fit_streams",
    "make_console",
    "ply_count",
    "print_whole",
]
