"""Replays of the games in an arena store (:mod:`boardlab.arena.store`), for the page.

The store is opened for each request and closed after it, so a tournament still running
beside the server shows its new games at the next look.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path
from typing import Any

from boardlab.arena.ratings import RatingError
from boardlab.arena.report import tournament_label
from boardlab.arena.store import Store, StoreError
from boardlab.arena.summary import Summary, pooled_games, summarize
from boardlab.core.spec import shorten
from boardlab.games import GameError, parse_game
from boardlab.ui.web.boards import view as board_view
from boardlab.ui.web.hall import WebInputError


class Replays:
    """The tournaments and games of the store at ``path`` (None: no store)."""

    def __init__(self, path: str | Path | None) -> None:
        self.path = None if path is None else Path(path)
        self._unreadable: set[str] = set()

    def _left_out(self, problem: str) -> None:
        """A stored game that cannot be read is left out of the page, and said once on the
        server's standard error (the page shows the other games)."""
        if problem not in self._unreadable:
            self._unreadable.add(problem)
            print(f"warning: {problem}; left out", file=sys.stderr, flush=True)

    def _store(self) -> Store:
        if self.path is None:
            raise WebInputError("no arena store: start serve with --db FILE", 404)
        if not self.path.is_file():
            raise WebInputError(f"the arena store {self.path} is gone", 404)
        try:
            return Store(self.path, read_only=True)
        except StoreError as err:
            raise WebInputError(str(err), 422) from None

    def tournaments(self) -> list[dict[str, Any]]:
        """Every tournament of the store, oldest first, with its number of games and a
        ``label`` telling it from the others (:func:`~boardlab.arena.report.tournament_label`:
        name, game, openings, clock, games and id, as ``boardlab tournaments`` lists them); a
        suite of openings is given by its length (``openings``), not its moves (a suite may be
        long)."""
        with self._store() as store:
            stored = _listed(store)
        return [_public(item) for item in stored]

    def tournament(self, tournament: str) -> dict[str, Any]:
        """The tournament of id or name ``tournament``, as :meth:`tournaments` lists it (a 404
        when the store has none, a 409 listing the ids when several share the name)."""
        with self._store() as store:
            return _public(_known(store, tournament))

    def standings(self, tournament: str) -> list[dict[str, Any]]:
        """A tournament's table (``tournament``: its id or name), best first (by Elo, as
        ``boardlab ratings`` ranks): each player's games, wins, draws, losses and score, and
        its Elo with a 95 % interval (None where a bound is infinite: a player that won or lost
        every game). Games of a player against itself say nothing of its rating and are left
        out, as in ``ratings``."""
        with self._store() as store:
            item = _known(store, tournament)
            try:
                specs, records = pooled_games(store, item["game"], item["id"], self._left_out)
            except StoreError as err:
                raise WebInputError(str(err), 422) from None
        try:
            summary = summarize(specs, records)
        except RatingError as err:
            where = shorten(tournament, 40)
            raise WebInputError(f"the ratings of tournament {where!r}: {err}", 422) from None
        return [_standing(summary, rank, player) for rank, player in enumerate(summary.ranking(), start=1)]

    def _games(self, tournament: str) -> tuple[str, list[Any]]:
        """The id of the tournament of id or name ``tournament``, and its stored games."""
        with self._store() as store:
            key = _known(store, tournament)["id"]
            try:
                return key, store.games(key, on_unreadable=self._left_out)
            except StoreError as err:
                raise WebInputError(str(err), 422) from None

    def games(self, tournament: str) -> list[dict[str, Any]]:
        """The games of a tournament (its id or name): players, result and length."""
        symbols_of: dict[str, tuple[str, str]] = {}
        out = []
        for record in self._games(tournament)[1]:
            if record.game not in symbols_of:
                symbols_of[record.game] = _symbols(record.game)
            out.append(
                {
                    "index": record.index,
                    "game": record.game,
                    "first": record.first_spec,
                    "second": record.second_spec,
                    "plies": record.plies,
                    "result": record.outcome.text(symbols_of[record.game]),
                }
            )
        return out

    def game(self, tournament: str, index: int) -> dict[str, Any]:
        """One game of a tournament (its id or name; ``tournament`` in the answer is its id),
        every position from the start with the move that led to it and its thinking time
        (None for the opening's moves)."""
        key, records = self._games(tournament)
        found = [r for r in records if r.index == index]
        if not found:
            raise WebInputError(f"tournament {shorten(tournament, 40)!r} has no game {index}", 404)
        record = found[0]
        try:
            state = parse_game(record.game).initial()
            positions = [board_view(state)]
            opening = len(record.opening)
            times: list[float | None] = [None] * opening + list(record.move_times)
            for move in record.moves:
                played, before = state.parse_move(move), state
                state = state.play(played)
                positions.append(board_view(state, played, before))
        except GameError as err:
            raise WebInputError(f"game {index} cannot be replayed: {err}", 422) from None
        return {
            "tournament": key,
            "index": record.index,
            "game": record.game,
            "players": [record.first_spec, record.second_spec],
            "moves": list(record.moves),
            "seconds": times[: len(record.moves)] + [None] * max(0, len(record.moves) - len(times)),
            "opening": opening,
            "result": record.outcome.text(state.game.symbols),
            "positions": positions,
        }


def _symbols(game: str) -> tuple[str, str]:
    try:
        return parse_game(game).symbols
    except GameError:
        return ("X", "O")


MAX_LISTED_IDS = 8
"""The most ids a refusal of a name several tournaments share lists."""


def _listed(store: Store) -> list[dict[str, Any]]:
    try:
        return store.tournaments()
    except StoreError as err:
        raise WebInputError(str(err), 422) from None


def _known(store: Store, tournament: str) -> dict[str, Any]:
    """The stored tournament of id ``tournament``, else the one of that name (what ``boardlab
    ratings --tournament`` takes); a 404 when the store has none, a 409 naming their ids when
    several share the name (the id tells them apart)."""
    stored = _listed(store)
    for item in stored:
        if item["id"] == tournament:
            return item
    named = [item for item in stored if item["name"] == tournament]
    if len(named) == 1:
        return named[0]
    where = shorten(tournament, 40)
    if named:
        ids = [item["id"] for item in named]
        more = f" and {len(ids) - MAX_LISTED_IDS} more" if len(ids) > MAX_LISTED_IDS else ""
        raise WebInputError(
            f"{len(ids)} tournaments are named {where!r}; give one of their ids: "
            f"{', '.join(ids[:MAX_LISTED_IDS])}{more}",
            409,
        )
    raise WebInputError(f"no tournament {where!r} in the store (give its id or its name)", 404)


def _public(item: dict[str, Any]) -> dict[str, Any]:
    """A stored tournament as the page gets it: its label added, its suite of openings given by
    its length."""
    return {**item, "label": tournament_label(item), "openings": len(item["openings"])}


def _standing(summary: Summary, rank: int, player: int) -> dict[str, Any]:
    # one row of the standings: the player's results and its Elo (None where not finite)
    results = summary.overall(player)
    elo = summary.elo
    low, high = elo.interval(player) if elo is not None else (math.nan, math.nan)
    return {
        "rank": rank,
        "player": summary.names[player],
        "games": results.games,
        "wins": results.wins,
        "draws": results.draws,
        "losses": results.losses,
        "score": _finite(results.score),
        "elo": _finite(float(elo.ratings[player]) if elo is not None else math.nan),
        "elo_low": _finite(low),
        "elo_high": _finite(high),
    }


def _finite(value: float) -> float | None:
    return round(value, 4) if math.isfinite(value) else None


__all__ = ["Replays"]
