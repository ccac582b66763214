"""Suites of openings: the positions a tournament's games start from, instead of random plies.

A suite is text, one opening a line: moves in the game's notation from its start, separated by
blanks or commas; ``#`` begins a comment, and blank lines are skipped (and a byte order mark
before the first line, as some editors write one). Each opening is played by
the rules when read (a move that cannot be played, or an opening that ends the game, is refused
with its line) and kept in the game's own notation, so two spellings of a move are one opening::

    # Connect Four: the centre, then each reply
    4 1
    4 2
    4, 4
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from boardlab.arena.schedule import MAX_OPENING_PLIES, MAX_OPENINGS, ArenaError
from boardlab.core.console import counted
from boardlab.core.inputs import InputFileError, read_bytes
from boardlab.core.spec import shorten
from boardlab.games import GameError, parse_game

Opening = tuple[str, ...]
MAX_SUITE_BYTES = 64 * 2**20
"""Largest file of openings read."""


def read_openings(
    path: str | Path, game: str, on_warning: Callable[[str], None] | None = None
) -> tuple[Opening, ...]:
    """The suite of openings in the file at ``path`` (see :func:`parse_openings`; a byte order
    mark that an editor wrote before the first line is not part of it); InputFileError when the
    file cannot be read or is not UTF-8 text."""
    data = read_bytes(path, "openings file", MAX_SUITE_BYTES)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise InputFileError(f"openings file {path} is not UTF-8 text (byte {err.start})") from None
    return parse_openings(text, game, str(path), on_warning)


def parse_openings(
    text: str, game: str, source: str = "openings", on_warning: Callable[[str], None] | None = None
) -> tuple[Opening, ...]:
    """The suite of openings in ``text`` for ``game`` (see the module notes); ArenaError naming
    ``source`` and the line for one that cannot be played, and for a text with none. An opening
    written again (the same moves, however spelt) is kept, and played again in its turn; with
    ``on_warning``, one line naming ``source`` and the lines that repeat one is given to it."""
    start = _start(game)
    suite: list[Opening] = []
    first_line: dict[Opening, int] = {}
    repeats: list[str] = []
    for number, line in enumerate(text.splitlines(), 1):
        moves = [move for move in re.split(r"[\s,]+", line.split("#", 1)[0]) if move]
        if not moves:
            continue
        if len(suite) == MAX_OPENINGS:
            raise ArenaError(f"{source}: more than {MAX_OPENINGS:,} openings")
        try:
            opening = _played(start, moves, f"{source} line {number}")
        except ArenaError as err:
            raise ArenaError(f"{err}{_other_game_note(text, start.game.spec)}") from None
        if opening in first_line:
            repeats.append(f"line {number} repeats line {first_line[opening]}")
        first_line.setdefault(opening, number)
        suite.append(opening)
    if not suite:
        raise ArenaError(f"{source}: no opening (one a line: moves in the game's notation)")
    if repeats and on_warning is not None:
        listed = shorten(", ".join(repeats), 200)
        on_warning(f"{source}: {listed}; a repeated opening is played again in its turn")
    return tuple(suite)


def check_openings(game: str, suite: Sequence[Sequence[str]]) -> None:
    """ArenaError naming the first opening of ``suite`` that ``game``'s rules do not play, or
    that is not written in the game's notation (:func:`parse_openings` writes it so)."""
    start = _start(game)
    for number, moves in enumerate(suite, 1):
        where = f"opening {number}"
        if _played(start, list(moves), where) != tuple(moves):
            raise ArenaError(f"{where}: {shorten(' '.join(moves))} is not in the game's notation")


def distinct_openings(game: str, plies: int) -> tuple[Opening, ...]:
    """One opening of ``plies`` moves for each distinct position they reach with the game still
    open: positions reached by several move orders, or that are images of each other under the
    board's symmetries (those that keep results), give one opening, the first in the order of
    the legal moves. ArenaError when there are more than :data:`MAX_OPENINGS` or none."""
    if not 1 <= plies <= MAX_OPENING_PLIES:
        raise ArenaError(f"opening plies must be in 1..{MAX_OPENING_PLIES}, got {plies}")
    frontier: list[tuple[Opening, Any]] = [((), _start(game))]
    for ply in range(plies):
        reached: dict[int, tuple[Opening, Any]] = {}
        for moves, state in frontier:
            for move in state.legal_moves():
                after = state.play(move)
                if not after.is_over:
                    reached.setdefault(after.canonical_key(), ((*moves, str(move)), after))
            if len(reached) > MAX_OPENINGS:
                many = f"more than {MAX_OPENINGS:,} distinct openings of {ply + 1} plies"
                raise ArenaError(f"{game} has {many}; use fewer plies")
        frontier = list(reached.values())
    if not frontier:
        raise ArenaError(f"no opening of {counted(plies, 'ply', 'plies')} leaves a game of {game} open")
    return tuple(moves for moves, _ in frontier)


def _other_game_note(text: str, game: str) -> str:
    """ "; the file says it holds connect4 openings" where the first line of ``text`` is the
    header ``boardlab openings`` writes (``# SPEC: N distinct openings ...``) for a game other
    than ``game``; else nothing."""
    first = text.lstrip().split("\n", 1)[0]
    header = re.match(r"#\s*(\S+):\s*[\d,]+ distinct opening", first)
    if header is None:
        return ""
    try:
        named = parse_game(header.group(1)).spec
    except GameError:
        return ""
    return "" if named == game else f"; the file says it holds {named} openings, not {game}"


def _start(game: str) -> Any:
    try:
        return parse_game(game).initial()
    except GameError as err:
        raise ArenaError(str(err)) from None


def _played(state: Any, moves: list[str], where: str) -> Opening:
    """``moves`` in the game's notation, played from ``state``; ArenaError naming ``where``."""
    if len(moves) > MAX_OPENING_PLIES:
        raise ArenaError(f"{where}: {len(moves)} moves; an opening takes at most {MAX_OPENING_PLIES}")
    written = []
    for number, text in enumerate(moves, 1):
        if not isinstance(text, str):
            raise ArenaError(f"{where}: move {number} is {type(text).__name__}, not a move's notation")
        try:
            move = state.parse_move(text)
            state = state.play(move)
        except (GameError, ValueError) as err:
            raise ArenaError(f"{where}: move {number} ({shorten(text, 24)}): {err}") from None
        written.append(str(move))
        if state.is_over:
            raise ArenaError(f"{where}: the game is over after move {number}; an opening must leave it open")
    return tuple(written)


__all__ = ["Opening", "check_openings", "distinct_openings", "parse_openings", "read_openings"]
