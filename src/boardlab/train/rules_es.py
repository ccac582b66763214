"""Evolving the ``rules`` Quixo player's weights with a (1+λ) evolution strategy.

The genome is the rule player's weight vector (:data:`boardlab.agents.rules.RULES`, one
weight in [0, 1] per rule-action pair). Each epoch:

1. σ is the epoch's step: it decays geometrically from ``sigma`` to ``sigma_final`` over
   ``decay`` epochs, then stays there;
2. λ (``offspring``) children are the parent plus Gaussian noise of step σ
   (:func:`boardlab.labs.evolve.gaussian_mutation`), by default on the weights' log10
   (``scale=log``, clipped to [-4, 0]): the roulette reads ratios of weights, and a "nearly
   always" against a "nearly never" spans decades that equal additive steps cannot tune
   (``scale=linear`` mutates the weights themselves, clipped to [0, 1]);
3. the parent and every child play the same ``games`` games (common random numbers: the same
   seeds, seats alternating) against the training opponent; fitness is the share won;
4. the best child replaces the parent when it won more of those games than the parent did
   and, with ``confirm`` (default), also more of a second, independent set of ``games`` games:
   the best of λ noisy scores is biased upwards, a second measurement is not.

The parent is re-evaluated every epoch on fresh games, so a lucky draw never sticks. The run
stops after ``patience`` epochs in a row without a replacement, or at ``--epochs``.

**Games** against ``random`` and ``greedy`` (the rule of :mod:`boardlab.agents.greedy`: win at
once if possible, else a move that hands over no immediate win) are played by numba code over
the Quixo kernel, a few microseconds a move; any other opponent (``alphabeta`` at a fixed
depth) is played through its own agent API, a fresh agent seeded from each game's seed. Every
game draws its random numbers from its own seed, so its result does not depend on which process
plays it; the games of an epoch are shared out among ``workers`` processes (the pool of
:class:`boardlab.play.pool.Workers`; they die with the main process).

**Files**: ``model.json`` is a ``rules`` model (:func:`boardlab.agents.rules.save_model`) that
also holds the hyper-parameters, seed, per-epoch history, learning curve and the whole training
state (parent, its fitness, stale epochs and the random generator's state); it is written
atomically after every epoch, and :meth:`ESRun.resume` continues it exactly where it stopped:
an interrupted run resumed gives the same result as an uninterrupted one.

    boardlab train es --game quixo --epochs 200 --hyper opponent=random,games=3000 --out runs/rules-es
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from boardlab.agents import rules as rl
from boardlab.agents import rules_kernel
from boardlab.agents.base import AgentSpecError, make_agent
from boardlab.agents.decision import Decision, Limit
from boardlab.core.console import counted
from boardlab.core.files import atomic_write_text
from boardlab.games import GameOptionError, parse_game
from boardlab.games.base import LOSS, ONGOING, WIN
from boardlab.games.jit import cached_njit
from boardlab.games.quixo import Quixo
from boardlab.games.quixo import kernel as qk
from boardlab.labs.evolve import gaussian_mutation
from boardlab.models.table import ModelFileError, ModelMismatchError, short_error
from boardlab.play.pool import Workers
from boardlab.play.session import Session
from boardlab.train.plots import write_es_plots
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
    restored_rng,
    rng_state,
)
from boardlab.train.run import parse_hyper as hyper_settings
from boardlab.train.settings import ESParams

MODEL_FILE = "model.json"
RANDOM, GREEDY, AGENT = 0, 1, 2
OPPONENT_KINDS = {"random": RANDOM, "greedy": GREEDY, "alphabeta": AGENT}
DEFAULT_AGAINST = ("random", "greedy", "alphabeta:depth=1", "alphabeta:depth=2")
SEARCH_TABLE_LOG2 = 14
"""Transposition-table size (log2) of the alpha-beta opponent in fitness games (a fresh one
every game; at depths 1..4 a larger table changes nothing)."""


LOG_FLOOR = -4.0
"""Smallest log10 weight on the log scale: 10**-4 is "never, unless nothing else applies"."""


class ESTrainingError(TrainingError):
    """Bad training input: a hyper-parameter out of range, a game that is not Quixo, an
    opponent the fitness games cannot play."""


# --- hyper-parameters --------------------------------------------------------------------------


REPLAYABLE = ("workers",)
"""Hyper-parameters a resumed run may change: they do not change the result."""


def params_for(values: Mapping[str, Any] | None = None) -> ESParams:
    """:class:`ESParams` with ``values`` (others default), checked; ESTrainingError otherwise."""
    return checked_settings(ESParams, "es", values, ESTrainingError)


def parse_hyper(text: str) -> ESParams:
    """:class:`ESParams` from ``key=value,...`` (e.g. ``opponent=greedy,games=400``)."""
    return hyper_settings(ESParams, "es", text, ESTrainingError)


def sigma_at(params: ESParams, epoch: int) -> float:
    """The mutation step of ``epoch`` (1 is the first epoch with children)."""
    share = min(max(epoch - 1, 0), params.decay) / params.decay
    if params.sigma <= 0 or params.sigma_final <= 0:
        return params.sigma + (params.sigma_final - params.sigma) * share
    return float(params.sigma * (params.sigma_final / params.sigma) ** share)


def mutate(parent: np.ndarray, params: ESParams, sigma: float, rng: np.random.Generator) -> np.ndarray:
    """λ children of ``parent`` by Gaussian steps of ``sigma``: on the weights' log10 (``log``
    scale: a step changes a weight by the same factor whatever its size, so that the ratios the
    roulette reads can span decades) or on the weights (``linear``); weights stay in [0, 1]."""
    parents = np.repeat(parent[None, :], params.offspring, axis=0)
    if params.scale == "linear":
        return gaussian_mutation(parents, sigma, rng, low=0.0, high=1.0)
    logs = np.log10(np.maximum(parents, 10.0**LOG_FLOOR))
    return 10.0 ** gaussian_mutation(logs, sigma, rng, low=LOG_FLOOR, high=0.0)


# --- opponents ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Opponent:
    """An opponent of the games: its agent spec, how it is played (RANDOM, GREEDY: compiled;
    AGENT: through the agent API) and its search depth (0: none)."""

    spec: str
    kind: int
    depth: int = 0


def training_opponent(params: ESParams) -> Opponent:
    """The fitness opponent named by the hyper-parameters."""
    if params.opponent == "alphabeta":
        return Opponent(f"alphabeta:depth={params.depth}", AGENT, params.depth)
    return Opponent(params.opponent, OPPONENT_KINDS[params.opponent])


def parse_opponent(spec: str, game: Any) -> Opponent:
    """The opponent of an agent spec: ``random`` and ``greedy`` play in compiled games, any
    other agent through its own API (slower: use fixed depths, not time budgets);
    ESTrainingError for a spec that does not make an agent for ``game``."""
    try:
        agent = make_agent(spec, seed=0, game=game)
    except AgentSpecError as error:
        raise ESTrainingError(str(error)) from None
    if agent.spec in ("random", "greedy"):
        return Opponent(agent.spec, OPPONENT_KINDS[agent.spec])
    return Opponent(agent.spec, AGENT, int(getattr(agent.settings, "depth", 0) or 0))


# --- compiled games ----------------------------------------------------------------------------


@cached_njit
def _rules_move(ctx, me, opp, weights, moves, masks):  # type: ignore[no-untyped-def]
    u_rule = np.random.random()
    u_move = np.random.random()
    return rules_kernel.choose_move(ctx, me, opp, weights, u_rule, u_move, moves, masks)


@cached_njit
def _opponent_wins_next(ctx, me, opp, buffer):  # type: ignore[no-untyped-def]
    for j in range(qk.gen_moves(ctx, me, opp, buffer)):
        a, b = qk.play(ctx, me, opp, buffer[j])
        if qk.status(ctx, a, b) == LOSS:
            return True
    return False


@cached_njit
def _greedy_move(ctx, me, opp, moves, kinds, buffer):  # type: ignore[no-untyped-def]
    """A winning move if any, else a safe one, else any (uniformly within the class)."""
    count = qk.gen_moves(ctx, me, opp, moves)
    counts = np.zeros(3, np.int64)
    for j in range(count):
        a, b = qk.play(ctx, me, opp, moves[j])
        result = qk.status(ctx, a, b)
        if result == LOSS:
            kinds[j] = 0
        elif result == WIN or (result == ONGOING and _opponent_wins_next(ctx, a, b, buffer)):
            kinds[j] = 2
        else:
            kinds[j] = 1
        counts[kinds[j]] += 1
    wanted = 0 if counts[0] > 0 else (1 if counts[1] > 0 else 2)
    pick = np.random.randint(counts[wanted])
    for j in range(count):
        if kinds[j] == wanted:
            if pick == 0:
                return moves[j]
            pick -= 1
    return moves[0]


@cached_njit
def _result(ctx, me, opp, mover, seat, ply, ply_cap):  # type: ignore[no-untyped-def]
    """(+1 / -1 for the rule player's win / loss, 0 for a draw) once the game is over, else 2."""
    status = qk.status(ctx, me, opp)
    if status == WIN:
        return 1 if mover == seat else -1
    if status == LOSS:
        return -1 if mover == seat else 1
    if ply >= ply_cap:
        return 0
    return 2


@cached_njit
def play_simple_games(ctx, weights, seeds, seats, opponent, ply_cap, outcomes, plies):  # type: ignore[no-untyped-def]
    """Every genome (row of ``weights``) plays every game against ``random`` or ``greedy``:
    game ``k`` is seeded with ``seeds[k]``, the rule player moving first when ``seats[k]`` is 0.
    Writes the rule player's result (+1, 0, -1) and the plies into ``outcomes`` / ``plies``."""
    size = ctx[0].shape[0]
    moves = np.empty(size, np.int64)
    masks = np.empty(size, np.int64)
    buffer = np.empty(size, np.int64)
    for i in range(weights.shape[0]):
        genome = weights[i]
        for k in range(seeds.shape[0]):
            np.random.seed(seeds[k])
            me = np.int64(0)
            opp = np.int64(0)
            mover = 0
            ply = 0
            result = 2
            while result == 2:
                if mover == seats[k]:
                    move = _rules_move(ctx, me, opp, genome, moves, masks)
                elif opponent == GREEDY:
                    move = _greedy_move(ctx, me, opp, moves, masks, buffer)
                else:
                    move = moves[np.random.randint(qk.gen_moves(ctx, me, opp, moves))]
                me, opp = qk.play(ctx, me, opp, move)
                mover ^= 1
                ply += 1
                result = _result(ctx, me, opp, mover, seats[k], ply, ply_cap)
            outcomes[i, k] = result
            plies[i, k] = ply


class RulePlayer:
    """A rule player seated in a :class:`~boardlab.play.session.Session`: each move draws its
    two uniform numbers (rule, then move) from ``rng``."""

    spec = "rules"

    def __init__(self, genome: np.ndarray, rng: np.random.Generator, kernel: Any) -> None:
        self.genome = genome
        self.rng = rng
        self.ctx = kernel.ctx
        self.moves = np.empty(kernel.num_actions, dtype=np.int64)
        self.masks = np.empty(kernel.num_actions, dtype=np.int64)

    def act(self, state: Any, limit: Limit | None = None) -> Decision:
        u_rule, u_move = self.rng.random(2)
        action = rules_kernel.choose_move(
            self.ctx,
            np.int64(state.a),
            np.int64(state.b),
            self.genome,
            u_rule,
            u_move,
            self.moves,
            self.masks,
        )
        return Decision(state.move_from_index(int(action)))

    def prepare(self, game: Any) -> None:
        """Nothing to prepare: the rules are compiled with the kernel."""

    def new_game(self) -> None:
        """Nothing to forget: a rule player keeps no memory of a game."""


def play_agent_games(
    game: Any, weights: np.ndarray, seeds: np.ndarray, seats: np.ndarray, opponent: Opponent
) -> tuple[np.ndarray, np.ndarray]:
    """Like :func:`play_simple_games`, against a boardlab agent (a fresh agent seeded from each
    game's seed), each game played by a :class:`~boardlab.play.session.Session`; the rule
    player's draws come from the same seed."""
    outcomes = np.zeros((weights.shape[0], len(seeds)), dtype=np.int8)
    plies = np.zeros((weights.shape[0], len(seeds)), dtype=np.int32)
    spec = opponent.spec
    if spec.startswith("alphabeta") and "tt=" not in spec:
        spec += ("," if ":" in spec else ":") + f"tt={SEARCH_TABLE_LOG2}"
    for i, genome in enumerate(weights):
        for k, (seed, seat) in enumerate(zip(seeds.tolist(), seats.tolist(), strict=True)):
            rule_player = RulePlayer(genome, np.random.default_rng(seed), game.kernel)
            agent = make_agent(spec, seed=seed, game=game)
            session = Session(game.initial(), (rule_player, agent) if seat == 0 else (agent, rule_player))
            winner = session.run().winner
            outcomes[i, k] = 0 if winner is None else (1 if winner == seat else -1)
            plies[i, k] = session.state.ply
    return outcomes, plies


def play_rule_games(
    game: Any,
    weights: np.ndarray,
    seeds: np.ndarray,
    seats: np.ndarray,
    opponent: Opponent,
    workers: Workers | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """``(outcomes, plies)``, each of shape (genomes, games), of the rule players ``weights``
    against ``opponent`` (see :func:`play_simple_games`): in this process, or cut into chunks of
    games shared out among ``workers`` (every game's result depends on its seed alone)."""
    weights = np.ascontiguousarray(np.atleast_2d(weights), dtype=np.float64)
    seeds = np.ascontiguousarray(seeds, dtype=np.int64)
    seats = np.ascontiguousarray(seats, dtype=np.int64)
    if workers is None or workers.count <= 1 or len(seeds) < 2 * workers.count:
        return _play_here(game, weights, seeds, seats, opponent)
    chunks = np.array_split(np.arange(len(seeds)), 4 * workers.count)
    tasks = [(game.spec, weights, seeds[c], seats[c], opponent) for c in chunks if len(c)]
    parts = workers.map(_play_chunk, tasks)
    return np.concatenate([p[0] for p in parts], axis=1), np.concatenate([p[1] for p in parts], axis=1)


def _play_here(
    game: Any, weights: np.ndarray, seeds: np.ndarray, seats: np.ndarray, opponent: Opponent
) -> tuple[np.ndarray, np.ndarray]:
    if opponent.kind == AGENT:
        return play_agent_games(game, weights, seeds, seats, opponent)
    outcomes = np.zeros((weights.shape[0], len(seeds)), dtype=np.int8)
    plies = np.zeros((weights.shape[0], len(seeds)), dtype=np.int32)
    cap = game.ply_cap or 10**9
    play_simple_games(game.kernel.ctx, weights, seeds, seats, opponent.kind, cap, outcomes, plies)
    return outcomes, plies


def _play_chunk(
    task: tuple[str, np.ndarray, np.ndarray, np.ndarray, Opponent],
) -> tuple[np.ndarray, np.ndarray]:
    spec, weights, seeds, seats, opponent = task
    return _play_here(parse_game(spec), weights, seeds, seats, opponent)


GAMES_SALT, CONFIRM_SALT, CURVE_SALT, FINAL_SALT = 0x7275, 0x636F6E, 0x6576, 0x66696E
"""Separate streams of game seeds: fitness, confirmation, learning curve, final games."""


def game_seeds(seed: int, epoch: int, count: int, salt: int = GAMES_SALT) -> tuple[np.ndarray, np.ndarray]:
    """The seeds and seats of ``count`` games, drawn from ``(seed, epoch, salt)`` alone (a
    resumed run draws the same games); the rule player moves first in the even games."""
    rng = np.random.default_rng([int(seed), int(epoch), salt])
    return rng.integers(0, 2**31 - 1, size=count, dtype=np.int64), np.arange(count, dtype=np.int64) % 2


# --- the run -----------------------------------------------------------------------------------


def check_game(game: Any) -> Quixo:
    """The training game, checked: Quixo."""
    if not isinstance(game, Quixo):
        raise ESTrainingError(
            f"es evolves Quixo rule players; {getattr(game, 'spec', game)!r} is not Quixo (e.g. --game quixo)"
        )
    return game


@dataclass
class ESRun(RunDefaults):
    """A (1+λ) ES run in progress. Build one with :meth:`start` or :meth:`resume`; :meth:`step`
    makes one more epoch (epoch 0 is the first parent's evaluation)."""

    game: Any
    params: ESParams
    seed: int
    epoch: int
    parent: np.ndarray
    parent_fitness: float
    stale: int
    rng: np.random.Generator
    history: list[dict[str, Any]] = field(default_factory=list)
    curve: list[dict[str, Any]] = field(default_factory=list)
    train_seconds: float = 0.0
    training_games: int = 0
    _workers: Workers | None = field(default=None, repr=False, compare=False)

    curve_key: ClassVar[str] = "epoch"
    curve_unit: ClassVar[str] = "training games"
    checkpoint_seconds: ClassVar[float] = 0.0

    @classmethod
    def start(cls, game: Any, params: ESParams | None = None, seed: int = 0) -> ESRun:
        """A fresh run: the first parent (every weight ``init``) evaluated."""
        game = check_game(game)
        params = params or ESParams()
        run = cls(
            game,
            params,
            int(seed),
            0,
            np.full(rl.NUM_RULES, params.init),
            0.0,
            0,
            np.random.default_rng(seed),
        )
        started = time.perf_counter()
        fitness, plies = run._fitness(run.parent[None, :])
        run.parent_fitness = float(fitness[0])
        run.train_seconds += time.perf_counter() - started
        run.history.append(run._record(fitness, plies, 0.0, accepted=False))
        return run

    @property
    def opponent(self) -> Opponent:
        """The fitness opponent."""
        return training_opponent(self.params)

    @property
    def done(self) -> bool:
        """True once ``patience`` epochs in a row brought no improvement."""
        return self.stale >= self.params.patience

    @property
    def workers(self) -> Workers:
        """The processes playing the games (``params.workers``), started when first needed."""
        if self._workers is None or self._workers.count != self.params.workers:
            self.close()
            self._workers = Workers(self.params.workers)
        return self._workers

    def _fitness(self, genomes: np.ndarray, salt: int = GAMES_SALT) -> tuple[np.ndarray, np.ndarray]:
        seeds, seats = game_seeds(self.seed, self.epoch, self.params.games, salt)
        outcomes, plies = play_rule_games(self.game, genomes, seeds, seats, self.opponent, self.workers)
        self.training_games += outcomes.size
        return (outcomes == 1).mean(axis=1), plies

    def step(self, limit: int = 1) -> None:
        """One epoch (whatever ``limit``): λ mutated children and the parent play the epoch's
        games; the best child replaces the parent if it won more of them (and, with ``confirm``,
        also more of a second, independent set of games: the best of λ noisy scores is biased
        upwards, a second measurement is not)."""
        started = time.perf_counter()
        p = self.params
        sigma = sigma_at(p, self.epoch + 1)
        children = mutate(self.parent, p, sigma, self.rng)
        self.epoch += 1
        fitness, plies = self._fitness(np.vstack([self.parent[None, :], children]))
        best = int(np.argmax(fitness[1:]))
        accepted = bool(fitness[1 + best] > fitness[0])
        new_fitness = float(fitness[1 + best])
        confirmation = None
        if accepted and p.confirm:
            again, _ = self._fitness(np.vstack([self.parent, children[best]]), CONFIRM_SALT)
            confirmation = [float(again[0]), float(again[1])]
            accepted = bool(again[1] > again[0])
            new_fitness = float(again[1])
        if accepted:
            self.parent = children[best].copy()
            self.parent_fitness = new_fitness
            self.stale = 0
        else:
            self.parent_fitness = float(fitness[0])
            self.stale += 1
        self.train_seconds += time.perf_counter() - started
        self.history.append(self._record(fitness, plies, sigma, accepted))
        self.history[-1]["confirmation"] = confirmation

    # the run protocol (boardlab.train.run) ---------------------------------------------------

    @property
    def progress(self) -> int:
        """Epochs after the first parent's evaluation."""
        return self.epoch

    @property
    def finished(self) -> bool:
        """True once ``patience`` epochs in a row brought no improvement."""
        return self.done

    @property
    def finished_reason(self) -> str:
        """That the patience ran out (a resumed run keeps its patience: nothing trains on)."""
        if not self.done:
            return ""
        stale = counted(self.params.patience, "epoch")
        return (
            f"stopped by itself after {stale} in a row without improvement (patience): nothing more to train"
        )

    @property
    def title(self) -> str:
        """The ES, its fitness opponent and the game."""
        return f"Quixo rules, (1+{self.params.offspring}) ES against {self.opponent.spec} on {self.game.spec}"

    @property
    def curve_player(self) -> str:
        """The curve's player: the parent's weights, each move drawn by roulette."""
        return "the parent (roulette)"

    def _games_of_parent(
        self, opponent: Opponent, count: int, epoch: int, salt: int
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        seeds, seats = game_seeds(self.seed, epoch, count, salt=salt)
        outcomes, plies = play_rule_games(self.game, self.parent, seeds, seats, opponent, self.workers)
        return seats, outcomes[0], plies[0]

    def evaluate(self, opponents: Sequence[str], games: int) -> list[dict[str, Any]]:
        """Curve records at the epoch: the parent's wins, draws and losses in ``games`` games
        against each opponent (seeded by the run's seed and epoch)."""
        if games <= 0:
            return []
        records = []
        for index, spec in enumerate(opponents):
            _, outcomes, _ = self._games_of_parent(
                parse_opponent(spec, self.game), games, self.epoch, CURVE_SALT + index
            )
            records.append(
                {
                    "episode": self.training_games,
                    "epoch": self.epoch,
                    "opponent": spec,
                    "wins": int((outcomes == 1).sum()),
                    "draws": int((outcomes == 0).sum()),
                    "losses": int((outcomes == -1).sum()),
                    "games": int(outcomes.size),
                }
            )
        return records

    def final_games(self, opponents: Sequence[str], games: int) -> list[GameResult]:
        """The final games of the parent against each opponent."""
        results = []
        for index, spec in enumerate(opponents):
            seats, outcomes, plies = self._games_of_parent(
                parse_opponent(spec, self.game), games, 10**9 + index, FINAL_SALT
            )
            for seat, outcome, ply in zip(seats.tolist(), outcomes.tolist(), plies.tolist(), strict=True):
                winner = None if outcome == 0 else (seat if outcome == 1 else 1 - seat)
                results.append(GameResult(spec, int(seat), winner, int(ply)))
        return results

    def summary(self) -> dict[str, Any]:
        """The run in ``summary.json``: why it stopped, the parent's fitness and weights."""
        return {
            "method": "es",
            "game": self.game.spec,
            "hyper": asdict(self.params),
            "seed": self.seed,
            "epochs": self.epoch,
            "stopped_by": "patience" if self.done else "epochs",
            "training_games": self.training_games,
            "train_seconds": round(self.train_seconds, 4),
            "fitness": self.parent_fitness,
            "weights": dict(zip(rl.RULES, (round(float(w), 6) for w in self.parent), strict=True)),
        }

    def report_lines(self) -> list[str]:
        """The parent's weights, to three significant digits (on the log scale a weight falls to
        ``10**LOG_FLOOR``, which three decimals would print as 0)."""
        return [
            "Weights: " + ", ".join(f"{k}={float(v):.3g}" for k, v in zip(rl.RULES, self.parent, strict=True))
        ]

    def plots(self, out: Path) -> list[Path]:
        """Fitness and weights over the epochs."""
        return write_es_plots(out, self.history, self.title, LOG_FLOOR)

    def status(self) -> str:
        """Fitness, step, stale epochs and the bad rule's weight."""
        record = self.history[-1]
        bad = self.parent[rl.RULES.index(rl.BAD_RULE)]
        return (
            f"fitness {100 * self.parent_fitness:.1f}% σ {record['sigma']:.3f} "
            f"stale {self.stale}/{self.params.patience} {rl.BAD_RULE} {bad:.3f}"
        )

    def close(self) -> None:
        """Stop the worker processes."""
        if self._workers is not None:
            self._workers.close()

    def _record(self, fitness: np.ndarray, plies: np.ndarray, sigma: float, accepted: bool) -> dict[str, Any]:
        children = fitness[1:]
        return {
            "epoch": self.epoch,
            "sigma": round(sigma, 6),
            "games": self.params.games,
            "parent_fitness": float(fitness[0]),
            "best_child": float(children.max()) if len(children) else None,
            "mean_child": float(children.mean()) if len(children) else None,
            "accepted": accepted,
            "fitness": round(self.parent_fitness, 6),
            "weights": [round(float(w), 6) for w in self.parent],
            "confirmation": None,
            "mean_plies": round(float(plies.mean()), 3),
            "training_games": self.training_games,
        }

    # files -----------------------------------------------------------------------------------

    def header(self) -> dict[str, Any]:
        """The model file's content (see the module docstring)."""
        return self._header(
            6,
            history=self.history,
            curve=self.curve,
            state={
                "parent": [float(w) for w in self.parent],
                "parent_fitness": self.parent_fitness,
                "stale": self.stale,
                "rng": rng_state(self.rng),
            },
        )

    def _header(self, second_digits: int, **fields: Any) -> dict[str, Any]:
        return rl.model_header(
            self.game.size,
            self.parent,
            method="es",
            game_spec=self.game.spec,
            hyper=asdict(self.params),
            seed=self.seed,
            epoch=self.epoch,
            fitness=self.parent_fitness,
            training_games=self.training_games,
            train_seconds=round(self.train_seconds, second_digits),
            **fields,
        )

    def save(self, path: Path | str) -> Path:
        """Write the run (model and training state) to ``path`` atomically."""
        return atomic_write_text(path, json.dumps(self.header()))

    def save_player(self, path: Path | str, **claims: Any) -> Path:
        """Write the small file the agent needs (no history, no training state), with ``claims``
        (e.g. measured win rates) recorded beside the weights."""
        return atomic_write_text(path, json.dumps(self._header(3, **claims), indent=1))

    @classmethod
    def resume(cls, path: Path | str, game: Any = None) -> ESRun:
        """Continue the run saved in ``path``; ModelMismatchError when ``game`` (if given) is not
        the game it trains on, ModelFileError when the file cannot be resumed."""
        model = rl.load_model(path)
        header = model.header
        check_state(header, path, {**SAVED_RUN_FIELDS, "game_spec": "str"}, SAVED_RUN_OPTIONAL)
        try:
            trained = check_game(parse_game(str(header["game_spec"])))
            params = params_for(header["hyper"])
            state = header["state"]
            parent = np.array(state["parent"], dtype=np.float64)
            rng = restored_rng(state["rng"])
            run = cls(
                trained,
                params,
                int(header["seed"]),
                int(header["epoch"]),
                parent,
                float(state["parent_fitness"]),
                int(state["stale"]),
                rng,
                list(header["history"]),
                list(header["curve"]),
                float(header.get("train_seconds", 0.0)),
                int(header.get("training_games", 0)),
            )
        except (ESTrainingError, GameOptionError, KeyError, TypeError, ValueError, OverflowError) as error:
            reason = short_error(error)
            raise ModelFileError(f"{path}: the training state cannot be resumed ({reason})") from None
        if game is not None and game.spec != trained.spec:
            raise ModelMismatchError(f"{path} trains on {trained.spec}, not {game.spec}")
        if (
            parent.shape != (rl.NUM_RULES,)
            or not np.all(np.isfinite(parent))
            or parent.min() < 0
            or parent.max() > 1
        ):
            raise ModelFileError(f"{path}: the saved parent is not {rl.NUM_RULES} weights in [0, 1]")
        if trained.size != model.size:
            raise ModelFileError(
                f"{path}: it trains on {trained.spec}, a {trained.size}x{trained.size} board, "
                f"but its weights are for a {model.size}x{model.size} board"
            )
        if run.epoch < 0 or len(run.history) != run.epoch + 1:
            raise ModelFileError(f"{path}: the saved history does not match its epoch count")
        check_history(run.history, path, HISTORY_FIELDS, {"games": "int", "mean_plies": "number"}, WEIGHTS)
        return run


HISTORY_FIELDS = {
    "epoch": "int",
    "sigma": "number",
    "parent_fitness": "number",
    "best_child": "number?",
    "mean_child": "number?",
    "accepted": "bool",
    "fitness": "number",
    "weights": "numbers",
}
"""What the plots, the summary and the progress bar read in each epoch's record."""
WEIGHTS = {"weights": rl.NUM_RULES}


# --- the method ------------------------------------------------------------------------------


def saved_game(path: Path) -> str:
    """The game of the run saved in ``path``."""
    return str(rl.load_model(path).header["game_spec"])


KINDS = {
    "es": Method(
        "es",
        ESParams,
        start=ESRun.start,
        resume=ESRun.resume,
        unit="epochs",
        default_total=100,
        default_game="quixo",
        checkpoint_file=MODEL_FILE,
        model_file=MODEL_FILE,
        games=lambda text: check_game(parse_game(text)),
        default_against=lambda game: DEFAULT_AGAINST,
        free=REPLAYABLE,
        error=ESTrainingError,
        saved_game=saved_game,
    )
}
"""``boardlab train es``."""


__all__ = [
    "DEFAULT_AGAINST",
    "KINDS",
    "MODEL_FILE",
    "ESParams",
    "ESRun",
    "ESTrainingError",
    "Opponent",
    "game_seeds",
    "params_for",
    "parse_hyper",
    "parse_opponent",
    "play_rule_games",
    "sigma_at",
    "training_opponent",
]
