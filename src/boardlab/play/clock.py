"""Game clocks: a time control (seconds for the game or for each period of moves, plus an
increment per move).

A side on a clock starts the game with ``base`` seconds; each of its moves takes the time it
thought and then adds ``increment`` (Fischer's clock, cutechess's ``tc=60+0.5``). With
``moves`` set, ``base`` is added again after every ``moves`` moves of that side (a classical
control, cutechess's ``tc=40/60``: 60 s for every 40 moves, and what is not spent carries
over). A side whose thinking runs past what is left loses on time. The agents see what is left
and how many moves it has to last (:meth:`boardlab.agents.decision.Limit.for_position`).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from dataclasses import dataclass

from boardlab.agents.decision import MOVE_OVERHEAD
from boardlab.core.spec import shorten

MAX_CLOCK_SECONDS = 7 * 24 * 3600.0
"""The longest clock accepted (a week): a bigger one is refused as a typo."""
MAX_PERIOD_MOVES = 10_000
"""The most moves a period of a time control may have."""
MOVE_RESERVE = MOVE_OVERHEAD
"""Seconds of a clock kept back from every move for what is not thinking (the call itself,
passing the move on): an agent shares out only what is left above it
(:func:`boardlab.agents.decision.clock_share`). It is the least base a time control takes: on
less, no move has any time to think in."""
SHORT_READING = 0.1
"""Below this many seconds a clock reading is told in milliseconds (:func:`reading_text`)."""
FORMS = "BASE, BASE+INCREMENT or MOVES/BASE[+INCREMENT] in seconds (60, 60+0.5, 40/60)"


class TimeControlError(ValueError):
    """A time control that is not ``[MOVES/]BASE[+INCREMENT]`` within bounds."""


class ClockTooShortError(TimeControlError):
    """A time control whose base is below :data:`MOVE_RESERVE`: no move can be played on it."""


@dataclass(frozen=True)
class TimeControl:
    """``base`` seconds on each side's clock at the start, ``increment`` seconds added after
    each of its moves, and with ``moves`` (0: the whole game) ``base`` seconds more after
    every ``moves`` moves of that side. TimeControlError for a base that is not positive, an
    increment that is negative (or either beyond :data:`MAX_CLOCK_SECONDS`), or ``moves``
    that is no whole number from 0 to :data:`MAX_PERIOD_MOVES`; ClockTooShortError for a base
    below :data:`MOVE_RESERVE`, which no move can be played within (the first move has the base
    alone), as a week or more is refused as a typo."""

    base: float
    increment: float = 0.0
    moves: int = 0

    def __post_init__(self) -> None:
        for name in ("base", "increment"):
            value = getattr(self, name)
            number = isinstance(value, numbers.Real) and not isinstance(value, bool)
            if not number or not math.isfinite(value) or not 0 <= value <= MAX_CLOCK_SECONDS:
                shown = shorten(repr(value))
                raise TimeControlError(f"a time control's {name} is 0 to {MAX_CLOCK_SECONDS:g} s: {shown}")
            object.__setattr__(self, name, float(value))
        if self.base == 0:
            raise TimeControlError("a time control's base is a positive number of seconds, got 0")
        moves = self.moves
        whole = isinstance(moves, numbers.Integral) and not isinstance(moves, bool)
        if not whole or not 0 <= moves <= MAX_PERIOD_MOVES:
            shown = shorten(repr(moves))
            raise TimeControlError(f"a time control's moves per period are 0 to {MAX_PERIOD_MOVES}: {shown}")
        object.__setattr__(self, "moves", int(moves))
        if self.base < MOVE_RESERVE:
            least = TimeControl(MOVE_RESERVE, self.increment, self.moves)
            raise ClockTooShortError(
                f"a time control's base of {_seconds_text(self.base)} s is less than the "
                f"{MOVE_RESERVE:g} s every move keeps back for passing it on, which leaves no time to "
                f"think; the least that works is {least}"
            )

    @classmethod
    def parse(cls, text: str) -> TimeControl:
        """``"60"`` (a minute a side), ``"60+0.5"`` (and half a second a move) or ``"40/60"``
        (a minute for every 40 moves)."""
        moves, slash, rest = str(text).strip().rpartition("/")
        base, plus, increment = rest.partition("+")
        try:
            if slash and not (moves.strip().isdigit() and int(moves) > 0):
                raise ValueError(moves)
            return cls(float(base), float(increment) if plus else 0.0, int(moves) if slash else 0)
        except ClockTooShortError:
            raise  # well formed, but too short: its own reason
        except (TimeControlError, ValueError):
            raise TimeControlError(
                f"a time control is {FORMS}, a positive base, an increment of 0 or more up to "
                f"{MAX_CLOCK_SECONDS:g} and 1 to {MAX_PERIOD_MOVES} moves a period, "
                f"got {shorten(repr(str(text)))}"
            ) from None

    def left(self, spent: Sequence[float]) -> float:
        """The seconds left on a clock whose side's moves took ``spent`` seconds each: the base
        (once more for each period completed), plus the increment after each move, less what
        was spent."""
        periods = 1 + (len(spent) // self.moves if self.moves else 0)
        return periods * self.base + len(spent) * self.increment - sum(spent)

    def moves_to_go(self, made: int) -> int | None:
        """The moves the clock must last until ``base`` is added again, once its side has made
        ``made`` moves (None when the base is for the whole game)."""
        return self.moves - made % self.moves if self.moves else None

    def __str__(self) -> str:
        text = _seconds_text(self.base)
        if self.moves:
            text = f"{self.moves}/{text}"
        return f"{text}+{_seconds_text(self.increment)}" if self.increment else text


def _seconds_text(seconds: float) -> str:
    short = f"{seconds:g}"
    return short if float(short) == seconds else repr(seconds)


def reading_text(seconds: float, decimals: int = 2) -> str:
    """A clock reading or a time spent on it, for a loss on time: seconds with ``decimals``
    decimals, or milliseconds with one below :data:`SHORT_READING` (so that a very short clock
    reads ``took 1.3 ms with 0.9 ms left``, not ``took 0.00 s with 0.00 s left``)."""
    if abs(seconds) < SHORT_READING:
        return f"{seconds * 1000:.1f} ms"
    return f"{seconds:.{decimals}f} s"
