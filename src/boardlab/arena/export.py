"""Stored games as text for other tools: JSON Lines (each game's whole record) or CSV (one row
a game, for spreadsheets and data frames).

A CSV row holds :data:`CSV_COLUMNS`: the tournament's id and name, the game's index and spec,
both players' specs, the first player's points (``first_score``: 1, 0.5 or 0; the first player
moved first), how the game ended (``reason``, ``detail``), its plies, its opening and all its
moves (each space-separated, the opening included, in the game's notation) and when it started
and finished (ISO 8601, UTC).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Mapping

from boardlab.arena.play import GameRecord

FORMATS: tuple[str, ...] = ("jsonl", "csv")
"""The formats of ``boardlab export``, its default first."""
CSV_COLUMNS: tuple[str, ...] = (
    "tournament_id",
    "tournament",
    "index",
    "game",
    "first_spec",
    "second_spec",
    "first_score",
    "reason",
    "detail",
    "plies",
    "opening",
    "moves",
    "started",
    "finished",
)
"""The columns of a CSV export, in order (named as the JSON fields they come from)."""


def csv_row(record: GameRecord, tournament: str) -> dict[str, str | int]:
    """The CSV row of ``record``, a game of the tournament named ``tournament``."""
    return {
        "tournament_id": record.tournament_id,
        "tournament": tournament,
        "index": record.index,
        "game": record.game,
        "first_spec": record.first_spec,
        "second_spec": record.second_spec,
        "first_score": f"{record.outcome.score_for(0):g}",  # 1, 0.5 or 0
        "reason": record.outcome.reason.value,
        "detail": record.outcome.detail,
        "plies": record.plies,
        "opening": " ".join(record.opening),
        "moves": " ".join(record.moves),
        "started": record.started,
        "finished": record.finished,
    }


def games_csv(records: Iterable[GameRecord], names: Mapping[str, str]) -> str:
    """``records`` as CSV text with a header row (:data:`CSV_COLUMNS`), each game's tournament
    named as ``names`` (tournament id to name) says, "" where it says nothing."""
    text = io.StringIO()
    writer = csv.DictWriter(text, fieldnames=CSV_COLUMNS)
    writer.writeheader()
    for record in records:
        writer.writerow(csv_row(record, names.get(record.tournament_id, "")))
    return text.getvalue()


def games_jsonl(records: Iterable[GameRecord]) -> str:
    """``records`` as JSON Lines, one :meth:`GameRecord.to_json` a line."""
    return "".join(record.to_json() + "\n" for record in records)


__all__ = ["CSV_COLUMNS", "FORMATS", "csv_row", "games_csv", "games_jsonl"]
