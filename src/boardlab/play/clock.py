"""Game clocks: a time control (seconds for the game, plus an increment per move).

A side on a clock starts the game with ``base`` seconds; each of its moves takes the time it
thought and then adds ``increment`` (Fischer's clock, cutechess's ``tc=60+0.5``). A side whose
thinking runs past what is left loses on time. The agents see what is left and decide how long
to think (:meth:`boardlab.agents.decision.Limit.for_position`).
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass

from boardlab.core.spec import shorten

MAX_CLOCK_SECONDS = 7 * 24 * 3600.0
"""The longest clock accepted (a week): a bigger one is refused as a typo."""


class TimeControlError(ValueError):
    """A time control that is not ``BASE`` or ``BASE+INCREMENT`` seconds within bounds."""


@dataclass(frozen=True)
class TimeControl:
    """``base`` seconds on each side's clock at the start, ``increment`` seconds added after
    each of its moves. TimeControlError for a base that is not positive or an increment that
    is negative (or either beyond :data:`MAX_CLOCK_SECONDS`)."""

    base: float
    increment: float = 0.0

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

    @classmethod
    def parse(cls, text: str) -> TimeControl:
        """``"60"`` (a minute a side) or ``"60+0.5"`` (and half a second a move)."""
        base, plus, increment = str(text).strip().partition("+")
        try:
            return cls(float(base), float(increment) if plus else 0.0)
        except (TimeControlError, ValueError):
            raise TimeControlError(
                "a time control is BASE or BASE+INCREMENT in seconds (60, 60+0.5), a positive base "
                f"and an increment of 0 or more up to {MAX_CLOCK_SECONDS:g}, got {shorten(repr(str(text)))}"
            ) from None

    def __str__(self) -> str:
        base = _seconds_text(self.base)
        return f"{base}+{_seconds_text(self.increment)}" if self.increment else base


def _seconds_text(seconds: float) -> str:
    short = f"{seconds:g}"
    return short if float(short) == seconds else repr(seconds)
