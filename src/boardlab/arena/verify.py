"""Stored games held against the rules: each game's moves replayed from the start of its game,
and its stored result compared with where the moves lead.

A store is written by boardlab's own workers, but it may come from another version, another
machine of a cluster, or a hand that edited it; ``boardlab ratings --verify`` leaves out of
the ratings every game the rules contradict, and names it.
"""

from __future__ import annotations

from collections.abc import Iterable

from boardlab.arena.play import GameRecord
from boardlab.games import GameError, Reason, parse_game

RULE_ENDINGS = (Reason.RULE, Reason.DRAW, Reason.PLY_CAP)
"""Results the rules reach by themselves: the moves must lead to exactly that one. The others
(resignation, forfeit, a draw by repetition) end a game its rules have not ended."""


def replay_problem(record: GameRecord) -> str | None:
    """Why the rules contradict a stored game (an illegal or unreadable move, a length or a
    result its moves do not give), or None when they agree with it."""
    try:
        state = parse_game(record.game).initial()
    except GameError as err:
        return f"its game {record.game!r}: {err}"
    symbols = state.game.symbols
    for ply, move in enumerate(record.moves, start=1):
        if state.is_over:
            return f"ply {ply} ({move}) comes after the end of the game"
        try:
            state = state.play(state.parse_move(move))
        except GameError as err:
            return f"ply {ply} ({move}): {err}"
    if record.plies != len(record.moves):
        return f"{record.plies} plies stored for {len(record.moves)} moves"
    stored, reached = record.outcome, state.outcome
    if stored.reason in RULE_ENDINGS:
        if reached is None or (reached.winner, reached.reason) != (stored.winner, stored.reason):
            where = "an unfinished game" if reached is None else reached.text(symbols)
            return f"stored: {stored.text(symbols)}; the moves lead to {where}"
    elif reached is not None:
        return f"stored: {stored.text(symbols)}; the moves had ended the game before: {reached.text(symbols)}"
    return None


def contradicted(records: Iterable[GameRecord]) -> list[tuple[GameRecord, str]]:
    """The games of ``records`` the rules contradict, each with why (see :func:`replay_problem`)."""
    found = []
    for record in records:
        problem = replay_problem(record)
        if problem is not None:
            found.append((record, problem))
    return found


__all__ = ["RULE_ENDINGS", "contradicted", "replay_problem"]
