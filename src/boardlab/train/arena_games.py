"""Evaluation games kept as arena games, and the Elo curve fitted from them.

A training run that evaluates its learner against fixed opponents keeps those games in an
arena store (:class:`~boardlab.arena.store.Store`, ``arena.sqlite`` in the run's folder) as
:class:`~boardlab.arena.play.GameRecord` s (every move, the outcome and its reason, the
thinking times), one tournament per evaluation. The learner is a real agent spec whose model
file lies in the run's folder and is written relative to it
(``alphazero:model=snapshots/it000012.safetensors,sims=32``): the store travels with the
folder, and from inside the folder its games can be rated (``boardlab ratings arena.sqlite``),
replayed (``boardlab serve --db arena.sqlite``) or the tournament continued (``boardlab
tournament ... --db arena.sqlite``).

An evaluation is the part of a round robin (:mod:`boardlab.arena.schedule`) that the learner
plays: player 0 is the learner, each pair learner-opponent plays ``games`` games with the
colours alternating, and the opponents never meet (``boardlab tournament`` with the same
players, seed and openings would add those games to the same tournament). The games are
played by the arena's own :func:`~boardlab.arena.play.play_game`, in the run's worker
processes; only the calling process writes the store, and a game already stored is not
played again.

The Elo curve fits every game of the store at once (:func:`~boardlab.arena.ratings.fit_elo`,
its prior draws included), each spec a player of its own (so each evaluated iteration's
learner is one), and reads each rating against an anchor (the first fixed opponent) with the
interval of that difference.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from boardlab.arena.play import GameRecord, play_game
from boardlab.arena.ratings import DEFAULT_PRIOR_DRAWS, fit_elo
from boardlab.arena.schedule import GAUNTLET, GameTask, TournamentConfig, iter_schedule
from boardlab.arena.store import Store, StoreError, StoreFullError
from boardlab.arena.summary import player_name, pooled_games
from boardlab.core.inputs import InputFileError
from boardlab.play.backend import WorkMap
from boardlab.train.run import GameResult

ARENA_FILE = "arena.sqlite"
"""The run's arena store, in its folder."""
LEARNER = 0
"""The learner's player index in an evaluation's tournament."""


@contextmanager
def run_store(path: Path) -> Iterator[Store]:
    """The run's arena store at ``path`` (created when missing), open for the ``with`` body. A
    store that cannot be used (damaged, not an arena store) is an InputFileError naming it, and
    a write the system refused (a full disk) an OSError: the command says either on one line."""
    try:
        with Store(path) as store:
            yield store
    except StoreFullError as error:
        raise OSError(str(error)) from None
    except StoreError as error:
        raise InputFileError(f"{error}; move it away and the run starts a new store") from None


def model_spec(agent: str, model: str, sims: int) -> str:
    """``agent:model=PATH,sims=N``; a path with a comma goes in parentheses."""
    path = f"({model})" if "," in model else model
    return f"{agent}:model={path},sims={sims}"


def evaluation_config(
    game: str, learner: str, opponents: Sequence[str], games: int, seed: int, name: str
) -> TournamentConfig:
    """The tournament of one evaluation: a gauntlet of the learner (player 0) against each
    opponent, ``games`` games per opponent, colours alternating, no random opening (the games
    start from the initial position)."""
    return TournamentConfig(
        (learner, *opponents), games, game, seed, opening_plies=0, name=name, pairing=GAUNTLET
    )


@dataclass(frozen=True)
class EvaluationGame:
    """One scheduled game for a worker: the task (JSON) and, for the specs the store writes
    relative to the run's folder, the spec the worker plays them by (the model's full path)."""

    task: str
    playable: dict[str, str]


def play_evaluation_game(job: EvaluationGame) -> str:
    """Play ``job``'s game with :func:`~boardlab.arena.play.play_game` (no time limit per
    move: a loaded machine must not forfeit a training run's games); its record as JSON, with
    the specs as the store writes them."""
    task = GameTask.from_json(job.task)
    played = dataclasses.replace(
        task,
        first_spec=job.playable.get(task.first_spec, task.first_spec),
        second_spec=job.playable.get(task.second_spec, task.second_spec),
    )
    record = play_game(played, limits=(None, None))
    return dataclasses.replace(record, first_spec=task.first_spec, second_spec=task.second_spec).to_json()


def play_games_of(
    workers: WorkMap,
    tasks: Sequence[GameTask],
    playable: dict[str, str],
    player: Callable[[EvaluationGame], str] = play_evaluation_game,
) -> list[GameRecord]:
    """The records of ``tasks``, played among ``workers`` by ``player`` (a module-level
    function wrapping :func:`play_evaluation_game`, e.g. to set a worker's threads)."""
    playable = {player_name(spec): spec_played for spec, spec_played in playable.items()}  # as tasks write it
    jobs = [EvaluationGame(task.to_json(), playable) for task in tasks]
    return [GameRecord.from_json(text) for text in workers.map(player, jobs)] if jobs else []


def play_into_store(
    workers: WorkMap,
    store: Store,
    config: TournamentConfig,
    playable: dict[str, str],
    player: Callable[[EvaluationGame], str] = play_evaluation_game,
) -> list[GameRecord]:
    """Register ``config``, play the games the store lacks and store them; every game of the
    tournament as stored, in schedule order."""
    config = store.register(config)  # as stored: an older version's key kept
    tournament = config.tournament_id
    stored = store.stored_indices(tournament)
    missing = [task for task in iter_schedule(config) if task.index not in stored]
    for record in play_games_of(workers, missing, playable, player):
        store.add_game(record)
    return store.games(tournament, below=config.total_games)


def learner_tallies(records: Iterable[GameRecord], opponents: Sequence[str]) -> dict[str, dict[str, int]]:
    """Wins, draws, losses and games of the learner (player 0) against each opponent."""
    counts = {o: {"wins": 0, "draws": 0, "losses": 0, "games": 0} for o in opponents}
    given = {player_name(o): o for o in opponents}  # the records write each spec in its one text
    for record in records:
        other = record.second_spec if record.first_player == LEARNER else record.first_spec
        other = given.get(player_name(other), other)
        score = record.score_of(LEARNER)
        tally = counts.setdefault(other, {"wins": 0, "draws": 0, "losses": 0, "games": 0})
        tally["wins" if score == 1 else "draws" if score == 0.5 else "losses"] += 1
        tally["games"] += 1
    return counts


def game_result(record: GameRecord) -> GameResult:
    """A learner's game (player 0) as the :class:`~boardlab.train.run.GameResult` the training
    command tables."""
    learner = 0 if record.first_player == LEARNER else 1
    opponent = record.second_spec if learner == 0 else record.first_spec
    return GameResult(opponent, learner, record.winner, record.plies)


# --- the Elo curve ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Rating:
    """A rating against the anchor, with its interval (95 %)."""

    elo: float
    low: float
    high: float

    def to_json(self) -> list[float]:
        return [self.elo, self.low, self.high]


def elo_ratings(
    store: Store, game: str, anchor: str, players: Sequence[str], prior_draws: float = DEFAULT_PRIOR_DRAWS
) -> dict[str, Rating]:
    """The Elo of each of ``players`` minus the anchor's, fitted over every game of ``game``
    in the store; empty when the anchor has not played (the anchor itself: 0, interval 0)."""
    stored, records = pooled_games(store, game)
    # players in sorted order: the fit, to the last bit, does not depend on the store's order
    names = sorted(stored)
    rank = {name: k for k, name in enumerate(names)}
    index = [rank[name] for name in stored]
    results = [(index[r.first_player], index[r.second_player], r.outcome.score_for(0)) for r in records]
    if player_name(anchor) not in rank or len(names) < 2:
        return {}
    fit = fit_elo(len(names), results, prior_draws)
    base = rank[player_name(anchor)]
    return {
        player: Rating(*fit.difference(rank[player_name(player)], base))
        for player in players
        if player_name(player) in rank
    }


def elo_record(
    ratings: dict[str, Rating], learner: str, opponents: Sequence[str], at: dict[str, Any]
) -> dict[str, Any] | None:
    """The curve record of an evaluation's Elo (``opponent`` ``elo``): the learner's rating and
    interval against the anchor (the first opponent), and every opponent's."""
    if learner not in ratings or not opponents:
        return None
    mine = ratings[learner]
    return {
        **at,
        "opponent": "elo",
        "elo": mine.elo,
        "elo_low": mine.low,
        "elo_high": mine.high,
        "anchor": opponents[0],
        "learner": learner,
        "opponents_elo": {o: ratings[o].to_json() for o in opponents if o in ratings},
    }


__all__ = [
    "ARENA_FILE",
    "LEARNER",
    "EvaluationGame",
    "Rating",
    "elo_ratings",
    "elo_record",
    "evaluation_config",
    "game_result",
    "learner_tallies",
    "model_spec",
    "play_evaluation_game",
    "play_games_of",
    "play_into_store",
    "run_store",
]
