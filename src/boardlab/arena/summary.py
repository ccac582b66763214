"""What a set of games says: scores, the score matrix, results by colour and Elo ratings."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from boardlab.arena.play import GameRecord
from boardlab.arena.ratings import DEFAULT_PRIOR_DRAWS, EloFit, fit_elo_matrices
from boardlab.arena.schedule import player_name as player_name  # where it was first, kept importable
from boardlab.arena.store import stored_config
from boardlab.core.console import counted, notebook_html
from boardlab.games import GameError, Reason, parse_game

if TYPE_CHECKING:
    from boardlab.arena.store import Store

PLOT_NAMES: tuple[str, ...] = ("score_matrix.png", "outcomes_by_side.png", "game_lengths.png", "ratings.png")
"""The plots a summary is drawn as (:func:`boardlab.arena.plots.write_plots`), in order."""
OUTPUT_NAMES: tuple[str, ...] = (*PLOT_NAMES, "summary.json")
"""Every file ``match``, ``tournament`` and ``ratings --out`` write into their folder."""


@dataclass(frozen=True)
class Outcomes:
    """Wins, draws and losses from one player's point of view."""

    wins: int = 0
    draws: int = 0
    losses: int = 0

    @property
    def games(self) -> int:
        """Number of games."""
        return self.wins + self.draws + self.losses

    @property
    def points(self) -> float:
        """Wins plus half the draws."""
        return self.wins + self.draws / 2

    @property
    def score(self) -> float:
        """Points per game (NaN without games)."""
        return self.points / self.games if self.games else float("nan")

    def __add__(self, other: Outcomes) -> Outcomes:
        return Outcomes(self.wins + other.wins, self.draws + other.draws, self.losses + other.losses)

    def text(self) -> str:
        """``W-D-L``."""
        return f"{self.wins}-{self.draws}-{self.losses}"


@dataclass(frozen=True)
class Summary:
    """The tables of a tournament: per player, per pair and per colour, with Elo ratings."""

    names: tuple[str, ...]
    specs: tuple[str, ...]
    as_first: tuple[Outcomes, ...]
    as_second: tuple[Outcomes, ...]
    points: np.ndarray
    games: np.ndarray
    elo: EloFit | None
    plies: tuple[int, ...]
    first_player: Outcomes = field(default_factory=Outcomes)
    move_seconds: tuple[float, ...] = ()
    max_move_seconds: tuple[float, ...] = ()
    endings: tuple[tuple[str, int, int], ...] = ()
    """How games ended: ``(reason, wins, draws)`` per Outcome reason, most frequent first."""
    forfeits: tuple[int, ...] = ()
    """Games each player lost by forfeit (it failed, overran its time or answered an illegal move)."""

    def __repr__(self) -> str:
        players = ", ".join(self.specs[:4]) + (", ..." if len(self.specs) > 4 else "")
        return f"<Summary of {counted(self.n_games, 'game')} between {players}>"

    def _repr_html_(self) -> str:
        """The ratings table, as the command prints it, for notebooks."""
        from boardlab.arena.report import ratings_table

        return notebook_html(ratings_table(self))

    @property
    def n_games(self) -> int:
        """Number of games summarised."""
        return len(self.plies)

    def overall(self, player: int) -> Outcomes:
        """A player's results with both colours."""
        return self.as_first[player] + self.as_second[player]

    def ranking(self) -> list[int]:
        """Player indices from best to worst (by Elo, else by score)."""
        if (elo := self.elo) is not None:
            return sorted(range(len(self.names)), key=lambda i: -float(elo.ratings[i]))
        return sorted(range(len(self.names)), key=lambda i: -np.nan_to_num(self.overall(i).score))

    def score_matrix(self) -> np.ndarray:
        """``score[i, j]``: the fraction of points ``i`` took from ``j`` (NaN where they never met)."""
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(self.games > 0, self.points / np.maximum(self.games, 1), np.nan)

    def to_dict(self) -> dict[str, Any]:
        """The summary as plain JSON-ready values."""
        players = []
        for i, name in enumerate(self.names):
            item: dict[str, Any] = {
                "name": name,
                "spec": self.specs[i],
                "as_first": self.as_first[i].__dict__,
                "as_second": self.as_second[i].__dict__,
                "score": _finite_or_none(self.overall(i).score),
                "seconds_per_move": _finite_or_none(self.move_seconds[i]) if self.move_seconds else None,
                "forfeits": self.forfeits[i] if self.forfeits else 0,
                "max_seconds_per_move": (
                    _finite_or_none(self.max_move_seconds[i]) if self.max_move_seconds else None
                ),
            }
            if self.elo is not None:
                low, high = self.elo.interval(i)
                item["elo"] = {"rating": float(self.elo.ratings[i]), "low": low, "high": high}
            players.append(item)
        return {
            "games": self.n_games,
            "first_player": self.first_player.__dict__,
            "endings": {reason: {"wins": wins, "draws": draws} for reason, wins, draws in self.endings},
            "prior_draws": self.elo.prior_draws if self.elo is not None else None,
            "players": players,
            "points": self.points.tolist(),
            "games_matrix": self.games.tolist(),
        }


def player_names(specs: Sequence[str]) -> tuple[str, ...]:
    """Display names: the specs, with ``#2``, ``#3``... added to repeated ones."""
    seen: Counter[str] = Counter()
    names = []
    for spec in specs:
        seen[spec] += 1
        names.append(spec if seen[spec] == 1 else f"{spec}#{seen[spec]}")
    return tuple(names)


def summarize(
    specs: Sequence[str], records: Sequence[GameRecord], prior_draws: float = DEFAULT_PRIOR_DRAWS
) -> Summary:
    """The summary of ``records`` played between players ``specs`` (indexed as in the records)."""
    n = len(specs)
    first = [[0, 0, 0] for _ in range(n)]
    second = [[0, 0, 0] for _ in range(n)]
    points = np.zeros((n, n))
    games = np.zeros((n, n))
    overall_first = [0, 0, 0]
    endings: Counter[tuple[str, bool]] = Counter()
    forfeits = [0] * n
    for record in records:
        endings[record.outcome.reason.value, record.winner is None] += 1
        if record.outcome.reason is Reason.FORFEIT and record.winner is not None:
            forfeits[record.second_player if record.winner == 0 else record.first_player] += 1
        a, b = record.first_player, record.second_player
        column = {0: 0, None: 1, 1: 2}[record.winner]  # first player's win / draw / loss
        first[a][column] += 1
        second[b][2 - column] += 1
        overall_first[column] += 1
        points[a, b] += record.score_of(a)
        points[b, a] += record.score_of(b)
        games[a, b] += 1
        games[b, a] += 1
    elo = fit_elo_matrices(points, games, prior_draws) if records else None
    seconds, moves, longest = np.zeros(n), np.zeros(n), np.full(n, np.nan)
    for record in records:
        players = (record.first_player, record.second_player)
        for ply, spent in enumerate(record.move_times, start=len(record.opening)):
            player = players[ply % 2]
            seconds[player] += spent
            moves[player] += 1
            longest[player] = np.fmax(longest[player], spent)
    return Summary(
        names=player_names(specs),
        specs=tuple(specs),
        as_first=tuple(Outcomes(*row) for row in first),
        as_second=tuple(Outcomes(*row) for row in second),
        points=points,
        games=games,
        elo=elo,
        plies=tuple(r.plies for r in records),
        first_player=Outcomes(*overall_first),
        move_seconds=tuple(float(s / m) if m else float("nan") for s, m in zip(seconds, moves, strict=True)),
        max_move_seconds=tuple(float(s) for s in longest),
        endings=_endings(endings),
        forfeits=tuple(forfeits),
    )


def canonical_game(spec: Any) -> Any:
    """The canonical spec of a stored game (``quixo:size=5`` is ``quixo``), or what is stored
    as it is when it names no game."""
    try:
        return parse_game(spec).spec
    except (GameError, TypeError, AttributeError):
        return spec


def pooled_games(
    store: Store,
    game: str,
    tournament: str | None = None,
    on_unreadable: Callable[[str], None] | None = None,
) -> tuple[list[str], list[GameRecord]]:
    """Every stored game of ``game`` (only those of ``tournament``, an id or a name, if given),
    each player being its spec across tournaments however it was written
    (:func:`player_name`): the players in order of first appearance, and the games with their
    player indices into that list. A player's games against itself are left out (they say
    nothing about its rating), and so is a game that a tournament stored again under another
    spelling of its players (an older version's ``mcts:c=1.4,iters=50`` beside
    ``mcts:iters=50``, one tournament): each of its games counts once, as first stored.
    ``on_unreadable`` is as in :func:`stored_games`."""
    seen: set[tuple[str, int]] = set()
    named = []
    for item in _selected(store, game, tournament):
        stored = stored_config(item)
        key = item["id"] if stored is None else stored.tournament_id  # one key for its spellings
        for record in store.games(item["id"], on_unreadable=on_unreadable):
            if (key, record.index) not in seen:
                seen.add((key, record.index))
                first, second = player_name(record.first_spec), player_name(record.second_spec)
                if first != second:
                    named.append(replace(record, first_spec=first, second_spec=second))
    return reindexed(named)


def stored_games(
    store: Store,
    game: str | None = None,
    tournament: str | None = None,
    on_unreadable: Callable[[str], None] | None = None,
) -> Iterator[GameRecord]:
    """The stored games as stored, tournaments oldest first and each in game order: only those
    of ``game`` and of ``tournament`` (an id or a name) where given. A tournament stored with the
    game written another way (``quixo:size=5`` for ``quixo``, by an older version) is the same
    game. A game that cannot be read is a StoreError, or with ``on_unreadable`` left out and
    named to it (see :meth:`~boardlab.arena.store.Store.games`)."""
    for item in _selected(store, game, tournament):
        yield from store.games(item["id"], on_unreadable=on_unreadable)


def _selected(store: Store, game: str | None, tournament: str | None) -> Iterator[dict[str, Any]]:
    """The stored tournaments of ``game`` and ``tournament`` (an id or a name) where given,
    oldest first."""
    wanted = None if game is None else canonical_game(game)
    for item in store.tournaments():
        if wanted is not None and canonical_game(item["game"]) != wanted:
            continue
        if tournament is not None and tournament not in (item["id"], item["name"]):
            continue
        yield item


def reindexed(records: Sequence[GameRecord]) -> tuple[list[str], list[GameRecord]]:
    """The specs of ``records`` in order of first appearance, and the records with their
    player indices into that list."""
    players: dict[str, int] = {}
    for record in records:
        players.setdefault(record.first_spec, len(players))
        players.setdefault(record.second_spec, len(players))
    games = [
        replace(r, first_player=players[r.first_spec], second_player=players[r.second_spec]) for r in records
    ]
    return list(players), games


def _endings(counts: Counter[tuple[str, bool]]) -> tuple[tuple[str, int, int], ...]:
    reasons = {reason for reason, _ in counts}
    rows = [(reason, counts[reason, False], counts[reason, True]) for reason in reasons]
    return tuple(sorted(rows, key=lambda row: (-row[1] - row[2], row[0])))


def _finite_or_none(value: float) -> float | None:
    return None if np.isnan(value) else value
