"""Evolved Nim players: a genetic algorithm over move-scoring genomes, judged exhaustively.

A genome scores every legal move of a Nim position; its player plays a best-scoring move,
ties split at random. Two genomes:

- ``target`` (the earlier work's genome, two genes in [0, 1]): ``target_preference`` is the
  nim-sum the player wants to leave behind, as a share of the game's largest nim-sum ``M``
  (``2**bits - 1`` for piles of ``bits`` bits), and ``target_range`` how far from it is
  acceptable, also as a share of ``M``. A move leaving a (plain) nim-sum within the range
  scores 1, any other 0: the player picks at random among the acceptable moves, or among
  all of them when none is. It can express normal-play Nim (preference 0, range below
  ``1/M``) but neither the misère endgame nor a move limit.
- ``rules`` (20 genes in [-1, 1]): one weight per move feature (:data:`FEATURES`) and play
  convention. A move scores the weighted sum of the features of the position it leaves,
  with the weights of the game's convention. Under a move limit ``k`` the features read each
  pile modulo ``k + 1``, except the ``raw_`` ones, which read the plain piles (decoys that
  agree with the right features when there is no limit). Optimal play is representable:
  normal play is ``zero_sum`` alone; misère is ``zero_sum + 3 small_and_odd - 2 all_small``
  (a position whose piles are all 0 or 1 is lost for the mover when the 1-piles are odd,
  any other when its nim-sum is 0), scaled into [-1, 1]; both with or without a limit,
  as long as the decoys weigh less than the margin.

**Fitness** is the number of games won. Every epoch, every genome plays the same games
(common random numbers: the same start positions and the same random draws) against a fixed
pool of opponents (``pool``: ``random``, the ``optimal`` player of
:mod:`boardlab.games.nim.theory`, or ``both``): ``games`` games per opponent and training game,
alternating seats, from the game's starting piles or from random positions within them
(``starts``). A fixed pool rather than a round robin inside the population, so that the
wins of different epochs measure the same thing. Against ``optimal`` a game is won only by
playing every move of a won position right: wins, not moves, are what the GA sees. The
default pool is ``optimal`` alone: no genome wins more games against it than an optimal one,
so once found an optimal elite is never displaced, whereas wins against ``random`` from lost
positions add noise that has nothing to do with optimal play.

**The GA** is generational with elitism: parents by roulette-wheel or tournament selection,
uniform crossover, Gaussian mutation clipped to the genes' range (the operators of
:mod:`boardlab.labs.evolve`). The whole population, elites included, is re-evaluated on
fresh games each epoch. Its hyper-parameters are one frozen dataclass, :class:`GAParams`.

**Judging**: :func:`accuracy` walks every position within a game's starting piles; a won
position is played optimally when every best-scoring move leaves a lost position (the
closed-form rule of :mod:`boardlab.games.nim.theory`, which the tests check against the
exhaustive solver :mod:`boardlab.games.small_solver`). Games are played and judged by numba
code over the Nim kernel (:mod:`boardlab.games.nim.kernel`), the agent scores moves with
the same compiled function.

**Files**: the model is one JSON file (``model.json``): format, version, the game family and
the training games, the genome kind and gene names, hyper-parameters, seed, the best genome
of the last epoch (``player``), the per-epoch history (every genome's wins, the wins of the
hand-written optimal genome on the same games, diversity, gene statistics, the best genome's
exhaustive accuracy: what the plots read), the learning curve and the whole training state
(population, fitness and the random generator's state). It is written atomically after
every epoch; :meth:`Evolution.resume` continues it and gives the same result as an
uninterrupted run. :func:`save_player` writes the small file shipped in
the package (no history, no training state).

    boardlab train ga --game "nim:piles=7-7-7-7;nim:piles=7-7-7-7,misere=false" --out runs/nim-ga
"""

from __future__ import annotations

import itertools
import json
import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike

from boardlab.core.files import atomic_write_text
from boardlab.games import parse_game
from boardlab.games.base import ONGOING, WIN
from boardlab.games.jit import cached_njit
from boardlab.games.nim import kernel as nk
from boardlab.games.nim.layout import layout, pack, unpack
from boardlab.labs.evolve import (
    CROSSOVERS,
    SELECTIONS,
    best_indices,
    gaussian_mutation,
    recombine,
)
from boardlab.models.nim_genome import (
    FORMAT,
    GENOMES,
    VERSION,
    GenomePolicy,
    gene_bounds,
    gene_names,
    load_model,
    optimal_genome,
    scored_moves,
)
from boardlab.models.table import ModelFileError, ModelMismatchError, short_error
from boardlab.train.plots import wins_share, write_ga_plots
from boardlab.train.run import (
    SAVED_RUN_FIELDS,
    SAVED_RUN_OPTIONAL,
    GameResult,
    Method,
    RunDefaults,
    TrainingError,
    check_history,
    check_state,
    checked_settings,
    curve_point,
    final_results,
    plain_number,
    restored_rng,
    rng_state,
)
from boardlab.train.run import parse_hyper as hyper_settings
from boardlab.train.settings import POOLS, GAParams

MODEL_FILE = "model.json"
MAX_JUDGED = 1_000_000
"""Positions :func:`accuracy` walks at most (the product of ``pile + 1`` over the piles)."""
RANDOM, OPTIMAL = 0, 1
OPPONENTS = {"random": RANDOM, "optimal": OPTIMAL}


class GATrainingError(TrainingError):
    """Bad training input: a hyper-parameter out of range, a game that is not Nim."""


# --- hyper-parameters --------------------------------------------------------------------------


def params_for(values: Mapping[str, Any] | None = None) -> GAParams:
    """:class:`GAParams` with ``values`` (others default), checked; GATrainingError otherwise."""
    return checked_settings(GAParams, "ga", values, GATrainingError)


def parse_hyper(text: str) -> GAParams:
    """:class:`GAParams` from ``key=value,...`` (e.g. ``genome=target,selection=roulette``)."""
    return hyper_settings(GAParams, "ga", text, GATrainingError)


@cached_njit
def _pick_best(scores, count, u):  # type: ignore[no-untyped-def]
    """The index of a best score, the ``u``-th share of the ties (``u`` uniform in [0, 1))."""
    best = scores[0]
    for j in range(1, count):
        if scores[j] > best:
            best = scores[j]
    ties = 0
    for j in range(count):
        if scores[j] == best:
            ties += 1
    pick = min(int(u * ties), ties - 1)
    for j in range(count):
        if scores[j] == best:
            if pick == 0:
                return j
            pick -= 1
    return 0


@cached_njit
def _optimal_pick(ctx, a, b, actions, count, u):  # type: ignore[no-untyped-def]
    """A winning move drawn by ``u`` when there is one, else any legal move (the optimal agent's rule)."""
    winners = 0
    for j in range(count):
        x, y = nk.play(ctx, a, b, actions[j])
        if not nk.mover_wins(ctx, x, y):
            winners += 1
    if winners == 0:
        return min(int(u * count), count - 1)
    pick = min(int(u * winners), winners - 1)
    for j in range(count):
        x, y = nk.play(ctx, a, b, actions[j])
        if not nk.mover_wins(ctx, x, y):
            if pick == 0:
                return j
            pick -= 1
    return 0


@cached_njit
def play_batch(kind, genomes, scalars, variants, starts_a, starts_b, seats, opponents, draws):  # type: ignore[no-untyped-def]
    """Every genome plays every game; ``wins[i, g]`` is 1 when genome ``i`` won game ``g``.

    Game ``g`` is played on the kernel context ``(scalars[variants[g]],)`` from the words
    ``(starts_a[g], starts_b[g])``, the genome moving when the ply's parity is ``seats[g]``,
    the opponent (RANDOM or OPTIMAL) otherwise; the move of ply ``t`` draws ``draws[g, t]``.
    """
    n_genomes = genomes.shape[0]
    n_games = variants.shape[0]
    width = 1
    for v in range(scalars.shape[0]):
        width = max(width, scalars[v, nk.N_PILES] * scalars[v, nk.MAX_TAKE])
    actions = np.empty(width, np.int64)
    scores = np.empty(width, np.float64)
    wins = np.zeros((n_genomes, n_games), np.int8)
    for i in range(n_genomes):
        genome = genomes[i]
        for g in range(n_games):
            ctx = (scalars[variants[g]],)
            a = starts_a[g]
            b = starts_b[g]
            mover = 0
            ply = 0
            status = nk.status(ctx, a, b)
            while status == ONGOING:
                u = draws[g, ply]
                if mover == seats[g]:
                    count = scored_moves(kind, genome, ctx, a, b, actions, scores)
                    j = _pick_best(scores, count, u)
                else:
                    count = nk.gen_moves(ctx, a, b, actions)
                    if opponents[g] == OPTIMAL:
                        j = _optimal_pick(ctx, a, b, actions, count, u)
                    else:
                        j = min(int(u * count), count - 1)
                a, b = nk.play(ctx, a, b, actions[j])
                mover ^= 1
                ply += 1
                status = nk.status(ctx, a, b)
            if (mover == seats[g]) == (status == WIN):
                wins[i, g] = 1
    return wins


@cached_njit
def judge_positions(kind, genome, ctx, words_a, words_b, verdicts):  # type: ignore[no-untyped-def]
    """For each position: 2 nothing to judge (over, or lost for the mover), 1 every best-scoring
    move wins, 0 a best-scoring move gives the win away."""
    width = ctx[0][nk.N_PILES] * ctx[0][nk.MAX_TAKE]
    actions = np.empty(max(width, 1), np.int64)
    scores = np.empty(max(width, 1), np.float64)
    for n in range(words_a.shape[0]):
        a = words_a[n]
        b = words_b[n]
        if nk.status(ctx, a, b) != ONGOING or not nk.mover_wins(ctx, a, b):
            verdicts[n] = 2
            continue
        count = scored_moves(kind, genome, ctx, a, b, actions, scores)
        best = scores[0]
        for j in range(1, count):
            if scores[j] > best:
                best = scores[j]
        verdicts[n] = 1
        for j in range(count):
            if scores[j] == best:
                x, y = nk.play(ctx, a, b, actions[j])
                if nk.mover_wins(ctx, x, y):
                    verdicts[n] = 0
                    break


# --- games of an epoch -------------------------------------------------------------------------


def check_games(games: Sequence[Any]) -> tuple[Any, ...]:
    """The training games, checked: at least one, all Nim, no repeats."""
    games = tuple(games)
    if not games:
        raise GATrainingError("ga needs at least one Nim game to train on")
    for game in games:
        if getattr(game, "name", None) != "nim":
            raise GATrainingError(
                f"ga evolves Nim players; {getattr(game, 'spec', game)!r} is not a Nim game "
                "(e.g. nim:piles=3-4-5)"
            )
    specs = [g.spec for g in games]
    if len(set(specs)) != len(specs):
        raise GATrainingError(f"a training game is given twice: {', '.join(specs)}")
    return games


@dataclass(frozen=True)
class GameBatch:
    """The games every genome plays in one epoch (see :func:`play_batch` for the arrays)."""

    scalars: np.ndarray
    variants: np.ndarray
    starts_a: np.ndarray
    starts_b: np.ndarray
    seats: np.ndarray
    opponents: np.ndarray
    draws: np.ndarray

    def __len__(self) -> int:
        return len(self.variants)


def epoch_batch(games: Sequence[Any], params: GAParams, seed: int, epoch: int) -> GameBatch:
    """The fitness games of ``epoch``, drawn from ``(seed, epoch)`` alone (a resumed run draws
    the same ones): for each game and pool opponent, ``params.games`` games with seats alternating."""
    rng = np.random.default_rng([seed, epoch, 0x6E696D])
    scalars = np.stack([g.kernel.ctx[0] for g in games])
    rows = []
    for v, game in enumerate(games):
        bounds = np.array(game.piles)
        for opponent in POOLS[params.pool]:
            for index in range(params.games):
                piles = bounds.copy()
                if params.starts == "random":
                    piles = rng.integers(0, bounds + 1)
                    while not piles.any():
                        piles = rng.integers(0, bounds + 1)
                a, b = pack(tuple(int(p) for p in piles), game.max_pile)
                rows.append((v, a, b, index % 2, OPPONENTS[opponent]))
    longest = max(sum(g.piles) for g in games) + 1
    columns = list(zip(*rows, strict=True))
    return GameBatch(
        scalars=scalars,
        variants=np.array(columns[0], dtype=np.int64),
        starts_a=np.array(columns[1], dtype=np.int64),
        starts_b=np.array(columns[2], dtype=np.int64),
        seats=np.array(columns[3], dtype=np.int64),
        opponents=np.array(columns[4], dtype=np.int64),
        draws=rng.random((len(rows), longest)),
    )


def play_fitness_games(kind: str, genomes: np.ndarray, batch: GameBatch) -> np.ndarray:
    """``wins[i, g]``: 1 when genome ``i`` won game ``g`` of the batch."""
    return play_batch(
        GENOMES[kind],
        np.ascontiguousarray(genomes, dtype=np.float64),
        batch.scalars,
        batch.variants,
        batch.starts_a,
        batch.starts_b,
        batch.seats,
        batch.opponents,
        batch.draws,
    )


# --- judging -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Accuracy:
    """How a genome plays the won positions of one game: ``optimal`` of the ``won`` positions
    (among ``positions`` in all) get only winning best-scoring moves."""

    game: str
    positions: int
    won: int
    optimal: int

    @property
    def share(self) -> float:
        """Share of the won positions played optimally (1.0 when none is won)."""
        return self.optimal / self.won if self.won else 1.0

    def to_json(self) -> dict[str, Any]:
        return {"game": self.game, "positions": self.positions, "won": self.won, "optimal": self.optimal}


def judgeable(game: Any) -> bool:
    """True when :func:`accuracy` walks the positions of ``game`` (at most MAX_JUDGED)."""
    return math.prod(p + 1 for p in game.piles) <= MAX_JUDGED


def all_positions(game: Any) -> tuple[np.ndarray, np.ndarray]:
    """The state words of every position within the game's starting piles (each pile 0..its start)."""
    if not judgeable(game):
        raise GATrainingError(f"{game.spec} has more than {MAX_JUDGED:,} positions to judge")
    piles = np.array(list(itertools.product(*(range(p + 1) for p in game.piles))), dtype=np.int64)
    bits, per_word = layout(game.max_pile)
    shifts = (np.arange(len(game.piles)) % per_word) * bits
    in_a = np.arange(len(game.piles)) < per_word
    words_a = (piles[:, in_a] << shifts[in_a]).sum(axis=1) if in_a.any() else np.zeros(len(piles), np.int64)
    words_b = (
        (piles[:, ~in_a] << shifts[~in_a]).sum(axis=1) if (~in_a).any() else np.zeros(len(piles), np.int64)
    )
    return np.ascontiguousarray(words_a, np.int64), np.ascontiguousarray(words_b, np.int64)


def verdicts(kind: str, genome: ArrayLike, game: Any) -> np.ndarray:
    """:func:`judge_positions` over :func:`all_positions` of ``game``."""
    words_a, words_b = all_positions(game)
    out = np.empty(len(words_a), dtype=np.int8)
    judge_positions(
        GENOMES[kind], np.ascontiguousarray(genome, np.float64), game.kernel.ctx, words_a, words_b, out
    )
    return out


def accuracy(kind: str, genome: ArrayLike, game: Any) -> Accuracy:
    """How often the genome's best moves win the won positions of ``game`` (every position
    within its starting piles)."""
    out = verdicts(kind, genome, game)
    return Accuracy(game.spec, len(out), int(np.sum(out != 2)), int(np.sum(out == 1)))


def mistakes(kind: str, genome: ArrayLike, game: Any, limit: int = 10) -> list[str]:
    """Up to ``limit`` won positions (as piles text) where a best-scoring move gives the win away."""
    out = verdicts(kind, genome, game)
    words_a, words_b = all_positions(game)
    found = np.flatnonzero(out == 0)[:limit]
    return ["-".join(map(str, unpack(words_a[n], words_b[n], len(game.piles), game.max_pile))) for n in found]


# --- the evolution -----------------------------------------------------------------------------


def diversity(population: np.ndarray, kind: str) -> float:
    """Mean pairwise Euclidean distance between genomes, over the largest possible (the genes'
    range times the square root of their number): 0 when every genome is the same."""
    n, length = population.shape
    if n < 2:
        return 0.0
    low, high = gene_bounds(kind)
    gaps = population[:, None, :] - population[None, :, :]
    distances = np.sqrt((gaps**2).sum(axis=2))
    return float(distances.sum() / (n * (n - 1)) / ((high - low) * math.sqrt(length)))


@dataclass
class Evolution(RunDefaults):
    """A GA run in progress: the evaluated population of the last epoch and its records.

    Build one with :meth:`start` or continue a saved run with :meth:`resume`; :meth:`step`
    makes one more epoch. ``epoch`` counts the epochs after the initial population (epoch 0).
    """

    games: tuple[Any, ...]
    params: GAParams
    seed: int
    epoch: int
    population: np.ndarray
    fitness: np.ndarray
    rng: np.random.Generator
    history: list[dict[str, Any]] = field(default_factory=list)
    curve: list[dict[str, Any]] = field(default_factory=list)
    train_seconds: float = 0.0
    training_games: int = 0

    curve_key: ClassVar[str] = "epoch"
    curve_unit: ClassVar[str] = "training games"
    checkpoint_seconds: ClassVar[float] = 0.0

    @classmethod
    def start(cls, games: Sequence[Any], params: GAParams | None = None, seed: int = 0) -> Evolution:
        """A fresh run: a random population (uniform in the genes' range), evaluated."""
        games = check_games(games)
        params = params or GAParams()
        started = time.perf_counter()
        rng = np.random.default_rng(seed)
        low, high = gene_bounds(params.genome)
        population = rng.uniform(low, high, size=(params.population, len(gene_names(params.genome))))
        run = cls(games, params, int(seed), 0, population, np.zeros(params.population, np.int64), rng)
        run._evaluate()
        run.train_seconds += time.perf_counter() - started
        return run

    @property
    def kind(self) -> str:
        """The genome kind, ``target`` or ``rules``."""
        return self.params.genome

    @property
    def games_per_genome(self) -> int:
        """Fitness games each genome plays per epoch."""
        return len(self.games) * len(POOLS[self.params.pool]) * self.params.games

    @property
    def best_index(self) -> int:
        """The fittest genome of the last epoch (the first of equals: elites come first)."""
        return int(best_indices(self.fitness, 1)[0])

    @property
    def best(self) -> np.ndarray:
        """The genome the player uses: the fittest of the last epoch."""
        return self.population[self.best_index].copy()

    def policy(self, game: Any = None) -> GenomePolicy:
        """The best genome's player on ``game`` (default: the first training game)."""
        return GenomePolicy(self.kind, self.best, game or self.games[0])

    def step(self, limit: int = 1) -> None:
        """One epoch (whatever ``limit``): elites kept, the rest bred by selection, crossover
        and mutation; then the whole new population plays the epoch's games."""
        started = time.perf_counter()
        p = self.params
        low, high = gene_bounds(p.genome)
        count = p.population - p.elitism
        elites = self.population[best_indices(self.fitness, p.elitism)]
        mothers = self.population[self._select(count)]
        fathers = self.population[self._select(count)]
        children = recombine(mothers, fathers, self.rng, CROSSOVERS["uniform"], p.crossover_rate)
        children = gaussian_mutation(
            children, p.sigma * (high - low), self.rng, rate=p.mutation_rate, low=low, high=high
        )
        self.population = np.concatenate([elites, children])
        self.epoch += 1
        self._evaluate()
        self.train_seconds += time.perf_counter() - started

    # the run protocol (boardlab.train.run) ---------------------------------------------------

    @property
    def progress(self) -> int:
        """Epochs after the first population."""
        return self.epoch

    @property
    def title(self) -> str:
        """The genome, the selection and the games."""
        specs = "; ".join(g.spec for g in self.games)
        return f"Nim GA ({self.kind} genome, {self.params.selection} selection) on {specs}"

    @property
    def curve_player(self) -> str:
        """The curve's player: the epoch's best genome."""
        return "the best genome"

    @property
    def played_on(self) -> str:
        """The first training game, where the curve's and the final games are played, when the
        run trains on several (the exhaustive accuracy judges every one)."""
        return self.games[0].spec if len(self.games) > 1 else ""

    def evaluate(self, opponents: Sequence[str], games: int) -> list[dict[str, Any]]:
        """Curve records at the current epoch: the best genome's games against each opponent on
        the first training game from its starting piles, and its mistakes over every won
        position of every training game (those small enough to judge)."""
        at = {"episode": self.training_games, "epoch": self.epoch}
        seed = self.seed * 1_000_003 + self.epoch
        records = curve_point(self.policy(), opponents, games, seed, at) if games > 0 else []
        if "mistakes" in self.history[-1]:
            records.append({**at, "opponent": "solver", "mistakes": self.history[-1]["mistakes"]})
        return records

    def final_games(self, opponents: Sequence[str], games: int) -> list[GameResult]:
        """``games`` games of the best genome against each opponent, on the first training game."""
        return final_results(self.policy(), opponents, games, self.seed)

    def summary(self) -> dict[str, Any]:
        """The run in ``summary.json``: the best genome, its wins and its exhaustive accuracy."""
        return {
            "method": "ga",
            "games": [g.spec for g in self.games],
            "hyper": asdict(self.params),
            "seed": self.seed,
            "epochs": self.epoch,
            "training_games": self.training_games,
            "train_seconds": round(self.train_seconds, 4),
            "player": _player(self.kind, self.best, self.epoch, int(self.fitness[self.best_index])),
            "played_on": self.games[0].spec,
            "final_wins": {
                "population": wins_share(self.history[-1]),
                "best": int(self.fitness[self.best_index]) / self.games_per_genome,
            },
            "diversity": self.history[-1]["diversity"],
            "accuracy": [a.to_json() for a in self._judged()],
        }

    def _judged(self) -> list[Accuracy]:
        return [accuracy(self.kind, self.best, g) for g in self.games if judgeable(g)]

    def report_lines(self) -> list[str]:
        """The exhaustive accuracy on each judged game and the best genome."""
        lines = [
            f"{a.game}: optimal moves in {a.optimal:,} of {a.won:,} won positions ({100 * a.share:.2f}%), "
            f"{a.positions:,} positions in all"
            for a in self._judged()
        ]
        genes = ", ".join(f"{k}={v:+.3f}" for k, v in zip(gene_names(self.kind), self.best, strict=True))
        return [*lines, f"Best genome: {genes}"]

    def plots(self, out: Path) -> list[Path]:
        """Wins, genomes, and wins against diversity over the epochs."""
        label = f"{self.params.selection} selection"
        return write_ga_plots(out, {label: self.history}, self.kind, f"Nim GA ({self.kind} genome)")

    def status(self) -> str:
        """The best genome's and the population's wins, the diversity and the accuracy."""
        record = self.history[-1]
        text = (
            f"best {max(record['fitness'])}/{record['games']} population {100 * wins_share(record):.0f}% "
            f"diversity {record['diversity']:.3f}"
        )
        if "accuracy" in record:
            text += f" optimal {100 * float(np.mean(list(record['accuracy'].values()))):.1f}%"
        return text

    def _select(self, count: int) -> np.ndarray:
        scores = self.fitness.astype(np.float64)
        if self.params.selection == "tournament":
            return SELECTIONS["tournament"](scores, count, self.rng, size=self.params.tournament_size)
        return SELECTIONS["roulette"](scores, count, self.rng)

    def _evaluate(self) -> None:
        batch = epoch_batch(self.games, self.params, self.seed, self.epoch)
        wins = play_fitness_games(self.kind, self.population, batch)
        self.fitness = wins.sum(axis=1).astype(np.int64)
        self.training_games += wins.size
        self.history.append(self._record(wins, batch))

    def _record(self, wins: np.ndarray, batch: GameBatch) -> dict[str, Any]:
        """The history entry of the epoch just evaluated (what the plots read); ``reference`` is
        what the hand-written optimal genome wins on the same games."""
        by_opponent = {
            name: int(wins[:, batch.opponents == code].sum())
            for name, code in OPPONENTS.items()
            if name in POOLS[self.params.pool]
        }
        record: dict[str, Any] = {
            "epoch": self.epoch,
            "games": self.games_per_genome,
            "fitness": self.fitness.tolist(),
            "by_opponent": by_opponent,
            "reference": int(play_fitness_games("rules", optimal_genome("rules")[None, :], batch).sum()),
            "diversity": round(diversity(self.population, self.kind), 6),
            "training_games": self.training_games,
            "genes": {
                "mean": np.round(self.population.mean(axis=0), 4).tolist(),
                "min": np.round(self.population.min(axis=0), 4).tolist(),
                "max": np.round(self.population.max(axis=0), 4).tolist(),
            },
        }
        if self.population.shape[1] <= 4:
            record["population"] = np.round(self.population, 4).tolist()
        judged = [accuracy(self.kind, self.best, g) for g in self.games if judgeable(g)]
        if judged:
            record["accuracy"] = {a.game: round(a.share, 6) for a in judged}
            record["mistakes"] = sum(a.won - a.optimal for a in judged)
        return record

    # files -----------------------------------------------------------------------------------

    def header(self) -> dict[str, Any]:
        """The model file's content (see the module docstring)."""
        return {
            **_player_header(self.kind, self.games, self.params, self.seed),
            "epoch": self.epoch,
            "training_games": self.training_games,
            "train_seconds": round(self.train_seconds, 6),
            "player": _player(self.kind, self.best, self.epoch, int(self.fitness[self.best_index])),
            "history": self.history,
            "curve": self.curve,
            "state": {
                "population": self.population.tolist(),
                "fitness": self.fitness.tolist(),
                "rng": rng_state(self.rng),
            },
        }

    def save(self, path: Path | str) -> Path:
        """Write the run (model and training state) to ``path`` atomically."""
        return atomic_write_text(path, json.dumps(self.header()))

    @classmethod
    def resume(cls, path: Path | str, games: Sequence[Any] | None = None) -> Evolution:
        """Continue the run saved in ``path``; ModelMismatchError when ``games`` (if given)
        are not the games it trains on, ModelFileError when the file cannot be resumed."""

        model = load_model(path)
        header, path = model.header, Path(path)
        if games is not None:
            asked = [g.spec for g in games]
            if asked != list(model.games):
                raise ModelMismatchError(f"{path} trains on {'; '.join(model.games)}, not {'; '.join(asked)}")
        check_state(header, path, SAVED_RUN_FIELDS, SAVED_RUN_OPTIONAL)
        try:
            params = params_for(header["hyper"])
            state = header["state"]
            population = np.array(state["population"], dtype=np.float64)
            fitness = np.array(state["fitness"], dtype=np.int64)
            rng = restored_rng(state["rng"])
            epoch, seed = header["epoch"], header["seed"]
            history, curve = header["history"], header["curve"]
            run = cls(
                tuple(parse_game(spec) for spec in model.games),
                params,
                int(seed),
                int(epoch),
                population,
                fitness,
                rng,
                list(history),
                list(curve),
                float(header.get("train_seconds", 0.0)),
                int(header.get("training_games", 0)),
            )
        except (GATrainingError, KeyError, TypeError, ValueError, OverflowError) as error:
            reason = short_error(error)
            raise ModelFileError(f"{path}: the training state cannot be resumed ({reason})") from None
        low, high = gene_bounds(params.genome)
        if params.genome != model.kind:
            raise ModelFileError(
                f"{path}: the hyper-parameters name genome {params.genome}, the file {model.kind}"
            )
        if population.shape != (params.population, len(gene_names(model.kind))) or fitness.shape != (
            params.population,
        ):
            raise ModelFileError(
                f"{path}: the saved population does not have the shape its hyper-parameters say"
            )
        if not np.all(np.isfinite(population)) or population.min() < low or population.max() > high:
            raise ModelFileError(f"{path}: the saved population holds genes outside [{low}, {high}]")
        if (
            not isinstance(epoch, int)
            or epoch < 0
            or len(history) != epoch + 1
            or not isinstance(curve, list)
        ):
            raise ModelFileError(f"{path}: the saved history does not match its epoch count")
        _check_history(history, path, params, len(gene_names(model.kind)))
        return run


def _check_history(history: list[Any], path: Path, params: GAParams, genes: int) -> None:
    """ModelFileError unless every epoch's record holds what the plots and the summary read."""
    check_history(
        history,
        path,
        {
            "epoch": "int",
            "games": "int",
            "fitness": "numbers",
            "reference": "int",
            "genes": "dict",
            "diversity": "number",
        },
        {
            "mistakes": "int",
            "training_games": "int",
            "population": "list",
            "accuracy": "dict",
        },
        {"fitness": params.population},
    )
    spread = ("mean", "min", "max")
    check_history(
        [r["genes"] for r in history],
        path,
        dict.fromkeys(spread, "numbers"),
        None,
        dict.fromkeys(spread, genes),
        "the genes of history record",
    )
    for record in history:
        if not all(plain_number(v) for v in record.get("accuracy", {}).values()):
            raise ModelFileError(
                f"checkpoint {path}: a history record's 'accuracy' is not an object of numbers"
            )
        rows = record.get("population", [])
        if not all(isinstance(g, list) and len(g) == genes and all(map(plain_number, g)) for g in rows):
            raise ModelFileError(f"checkpoint {path}: a history record's 'population' is not genomes")


def _player(kind: str, genome: np.ndarray, epoch: int, fitness: int) -> dict[str, Any]:
    return {
        "genes": dict(zip(gene_names(kind), (float(v) for v in genome), strict=True)),
        "epoch": epoch,
        "fitness": fitness,
    }


def _player_header(kind: str, games: Sequence[Any], params: GAParams, seed: int) -> dict[str, Any]:
    return {
        "format": FORMAT,
        "version": VERSION,
        "method": "ga",
        "game": "nim",
        "games": [g.spec for g in games],
        "genome": kind,
        "genes": list(gene_names(kind)),
        "hyper": asdict(params),
        "seed": int(seed),
    }


def save_player(path: Path | str, run: Evolution, verify: Sequence[Any] = ()) -> Path:
    """Write the small file an agent needs (no history, no training state) atomically, with
    the exhaustive accuracy on each game of ``verify`` recorded under ``verified``."""
    header = {
        **_player_header(run.kind, run.games, run.params, run.seed),
        "epoch": run.epoch,
        "training_games": run.training_games,
        "train_seconds": round(run.train_seconds, 3),
        "player": _player(run.kind, run.best, run.epoch, int(run.fitness[run.best_index])),
        "verified": [accuracy(run.kind, run.best, g).to_json() for g in verify],
    }
    return atomic_write_text(path, json.dumps(header, indent=1))


# --- the method ------------------------------------------------------------------------------


def parse_games(text: str) -> tuple[Any, ...]:
    """The training games of ``--game``: one or several ';'-separated Nim games."""
    return check_games([parse_game(spec.strip()) for spec in text.split(";") if spec.strip()])


def saved_game(path: Path) -> str:
    """The games of the run saved in ``path``, as ``--game`` names them (``;``-separated)."""
    return ";".join(load_model(path).games)


KINDS = {
    "ga": Method(
        "ga",
        GAParams,
        start=Evolution.start,
        resume=Evolution.resume,
        unit="epochs",
        default_total=50,
        default_game="nim",
        checkpoint_file=MODEL_FILE,
        model_file=MODEL_FILE,
        games=parse_games,
        default_against=lambda games: ("random", "optimal"),
        error=GATrainingError,
        saved_game=saved_game,
    )
}
"""``boardlab train ga``."""


__all__ = [
    "KINDS",
    "MODEL_FILE",
    "Accuracy",
    "Evolution",
    "GAParams",
    "GATrainingError",
    "GameBatch",
    "accuracy",
    "all_positions",
    "diversity",
    "epoch_batch",
    "judgeable",
    "mistakes",
    "params_for",
    "parse_games",
    "parse_hyper",
    "play_fitness_games",
    "save_player",
]
