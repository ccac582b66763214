"""A forfeit's detail as the referee gives it for an agent's own code: the exception, then where
that code raised it, ``raised RuntimeError: no move today (at test_x.py:56, in choose)``."""

from __future__ import annotations

import re


class Raised(str):
    """``detail`` followed by `` (at FILE:LINE, in FUNCTION)``, any line: equal to every such text
    (as an expected value in ``==``, an Outcome's detail included), so that a test does not
    change with the line numbers of its file."""

    pattern: re.Pattern[str]

    def __new__(cls, detail: str, file: str, function: str) -> Raised:
        made = super().__new__(cls, detail)
        made.pattern = re.compile(
            re.escape(detail) + rf" \(at {re.escape(file)}:\d+, in {re.escape(function)}\)"
        )
        return made

    def __eq__(self, other: object) -> bool:
        return isinstance(other, str) and self.pattern.fullmatch(other) is not None

    def __ne__(self, other: object) -> bool:
        return not self == other

    __hash__ = str.__hash__

    def __repr__(self) -> str:
        return f"Raised({self.pattern.pattern!r})"
