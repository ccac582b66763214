"""Stored games for tests: a GameRecord with every field filled in, between greedy (first) and
random (second), changed where a test says."""

from __future__ import annotations

import dataclasses
from typing import Any

from boardlab.arena.play import GameRecord
from boardlab.games import Outcome


def game_record(game: str, moves: tuple[str, ...], outcome: Outcome, **changes: Any) -> GameRecord:
    """Game 0 of tournament ``t``: ``moves`` played in ``game`` and ending in ``outcome``, its
    length the moves' number, no opening and no thinking times, unless ``changes`` say else."""
    record = GameRecord(
        tournament_id="t",
        index=0,
        game=game,
        first_player=0,
        second_player=1,
        first_spec="greedy",
        second_spec="random",
        first_seed=0,
        second_seed=1,
        opening_index=0,
        opening=(),
        moves=moves,
        outcome=outcome,
        plies=len(moves),
        move_times=(),
        started="2026-11-28T00:00:00.000+00:00",
        finished="2026-11-28T00:00:01.000+00:00",
    )
    return dataclasses.replace(record, **changes)
