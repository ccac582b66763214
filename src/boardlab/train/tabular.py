"""Tabular reinforcement learning, generic over games: Monte Carlo value learning and Q-learning.

Both learners fill one shared, side-relative :class:`~boardlab.models.table.ValueTable` keyed
by the canonical (symmetry-reduced) position: boardlab positions are already seen by the side
to move, so one table serves both colours. Rewards are +1 for a win, 0 for a draw and -1 for
a loss, from the view of the side that receives them.

- **Monte Carlo value learning** (``mcrl``) keeps ``V[s]``, the return expected by the side
  to move in ``s``. After each episode every visited position gets, every visit counted,
  ``V[s] += alpha * (G - V[s])`` where ``G = gamma**k * z``, ``z`` the final result for the
  side to move in ``s`` and ``k`` the plies from ``s`` to the last move. Its greedy move
  maximises ``-gamma * V[after]`` (a finished position scores its result).
- **Q-learning** (``qlearning``) keeps ``Q[s, a]`` with ``a`` in the canonical frame
  (``kernel.action_maps[sym, a]``). The opponent's reply is part of the environment: the
  update of ``(s, a)`` waits until the same side is to move again in ``s'`` (or the game is
  over), ``Q[s, a] += alpha * (r + gamma * max Q[s', .] - Q[s, a])``. Its greedy move
  maximises ``Q[s, .]`` over the legal actions.

**Reward shaping** (``shaping=NAME``, off by default) is potential-based (Ng, Harada and
Russell 1999), the form that cannot change which policy is optimal: the potential ``Phi(s)`` is
``shaping_weight`` times the game's evaluation ``NAME`` (any of ``game.evaluations``; for Quixo
``fullest``, the lead in cubes of the fullest own line over the fullest opponent line) seen by
the side to move, and 0 once the game is over. Q-learning adds ``F = gamma * Phi(s') - Phi(s)``
to the reward of each own-move transition (``s'`` is again seen by the same side), so its table
learns ``Q - Phi(s)`` and the greedy move is unchanged in the limit. For Monte Carlo the shaped
rewards of an episode telescope (between plies the side to move alternates, so the potential
of the next position enters with a minus sign): the shaped return from ``s`` is ``G - Phi(s)``,
the table learns ``V - Phi``, and the greedy score of a move adds the potential back,
``-gamma * (V[after] + Phi(after))``. Either way an unseen position starts from the potential
instead of 0: that, not a bonus for particular moves, is what shaping brings. The shaping is
stored with the model and the agents apply it.

Each method's hyper-parameters are one frozen dataclass (:class:`QLearningParams`,
:class:`MonteCarloParams`) whose fields are boardlab options. Moves are epsilon-greedy with
epsilon falling linearly from ``epsilon`` to ``epsilon_end`` over ``epsilon_decay``
episodes; ties between equal values are broken at random. The opponent is the learner
itself (``self``: both sides learn) or a uniformly random player (``random``; the learner
takes each colour in turn).

Two choices make Tic-Tac-Toe come out perfect in a few thousand episodes rather than
"usually good": *exploring starts* (``opening``: each episode begins with 0..N uniformly
random plies that are not learned from, so that positions only a blundering opponent
reaches get visited too), and for Q-learning *optimistic* initial values (``q_init=1``: an
action not tried yet looks best, so every action of a visited position gets tried; with
``q_init=0`` an untried winning move ties with a known draw). Without them greedy play is
perfect on the lines self-play visits but wrong after some rare opponent mistakes, which
the exhaustive check (:func:`perfect_play_report`) finds.

The episode loops are compiled with numba from a factory closing over a game's kernel
(:func:`build_trainer`), one loop for every game. They draw random numbers from a splitmix64
state held in an array, which the model file stores: training in several calls, or
interrupted, saved and resumed, gives the same table as one uninterrupted run.

:class:`Trainer` trains in chunks and answers the run protocol of :mod:`boardlab.train.run`,
whose driver adds the learning curve (greedy play against fixed opponents, and when the game
is small enough for the exact solver the count of positions where the greedy move gives away
value), checkpoints and stopping. :func:`perfect_play_report` checks a policy against the
solved game exhaustively.
"""

from __future__ import annotations

import dataclasses
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from boardlab.agents.perfect import PerfectAgent
from boardlab.games.base import LOSS, ONGOING, WIN, Game, Kernel, build_canonical, compiled_for
from boardlab.games.jit import cached_njit
from boardlab.games.small_solver import Solution, SolverError
from boardlab.models.table import (
    MAX_LOAD,
    ModelMismatchError,
    TableModel,
    ValueTable,
    insert,
    load_model,
    read_header,
    save_model,
)
from boardlab.models.tabular import TabularPolicy, build_after_value, build_potential, shaping_index
from boardlab.train.run import (
    GameResult,
    Method,
    RunDefaults,
    TrainingError,
    checked_settings,
    curve_point,
    final_results,
)
from boardlab.train.settings import MonteCarloParams, QLearningParams

DEFAULT_MAX_PLIES = 1000
"""Plies after which an episode ends as a draw, for games without a ply cap of their own."""

CHUNK = 4096
"""Episodes per compiled call: between two calls the driver can stop, save or grow the table."""

# --- hyper-parameters --------------------------------------------------------------------------


SETTINGS: dict[str, type[QLearningParams] | type[MonteCarloParams]] = {
    "qlearning": QLearningParams,
    "mcrl": MonteCarloParams,
}
"""Method name -> its hyper-parameter dataclass."""

METHOD_TITLES = {"qlearning": "Q-learning", "mcrl": "Monte Carlo value learning"}

MODEL_FILE = "model.npz"
"""The model with its training state, in the run's folder (the agents play ``model=DIR/model.npz``)."""


def params_for(method: str, values: dict[str, Any] | None = None) -> Any:
    """The hyper-parameter dataclass of ``method`` with ``values`` (others default), checked."""
    if method not in SETTINGS:
        raise TrainingError(f"unknown method {method!r}; accepted: {', '.join(SETTINGS)}")
    return checked_settings(SETTINGS[method], method, values)


def width_of(method: str, kernel: Kernel) -> int:
    """Values per table entry: one per position (mcrl), one per action (qlearning)."""
    return 1 if method == "mcrl" else kernel.num_actions


def shaping_id(params: Any, kernel: Kernel) -> int:
    """The evaluation id used as shaping potential, or -1 for no shaping (``none`` or a zero
    weight); TrainingError for a name the game does not evaluate."""
    try:
        return shaping_index(str(getattr(params, "shaping", "none")), float(params.shaping_weight), kernel)
    except ValueError as error:
        raise TrainingError(str(error)) from None


def max_plies_of(params: Any, game: Game) -> int:
    """The episode length cap of ``params`` for ``game``."""
    if params.max_plies > 0:
        return int(params.max_plies)
    return int(game.ply_cap or DEFAULT_MAX_PLIES)


# --- random numbers inside numba (a splitmix64 state kept in an array) -------------------------

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)


@cached_njit(inline="always")
def _next_u64(rng):  # type: ignore[no-untyped-def]
    rng[0] += _GOLDEN
    z = rng[0]
    z = (z ^ (z >> np.uint64(30))) * _MIX1
    z = (z ^ (z >> np.uint64(27))) * _MIX2
    return z ^ (z >> np.uint64(31))


@cached_njit(inline="always")
def _uniform(rng):  # type: ignore[no-untyped-def]
    return np.float64(_next_u64(rng) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@cached_njit(inline="always")
def _below(rng, n):  # type: ignore[no-untyped-def]
    return np.int64(_uniform(rng) * n)


@cached_njit(inline="always")
def _epsilon(episode, start, end, decay):  # type: ignore[no-untyped-def]
    if decay <= 0 or episode >= decay:
        return end
    return end + (start - end) * (1.0 - episode / decay)


def seed_state(seed: int) -> np.ndarray:
    """The random state a training run with ``seed`` starts from."""
    mixed = random.Random(seed).getrandbits(64)
    return np.array([mixed], dtype=np.uint64)


# parameter vectors passed to the compiled loops
F_ALPHA, F_GAMMA, F_EPS, F_EPS_END, F_DECAY, F_FILL, F_SHAPE_WEIGHT = range(7)
I_VS_RANDOM, I_MAX_PLIES, I_LIMIT, I_OPENING, I_SHAPING = range(5)
STATS = 6
"""Training counters: first player wins, draws, second player wins; learner wins, draws, losses."""


def build_trainer(kernel: Kernel, method: str) -> Any:
    """The compiled episode loop of ``method`` for ``kernel``.

    ``train(ctx, a0, b0, keys, values, meta, rng, episode, count, fparams, iparams, stats)``
    plays up to ``count`` episodes from ``(a0, b0)``, numbered from ``episode`` (the epsilon
    schedule and the learner's colour against a random opponent follow the number), and
    returns how many it played: it stops early when the table might pass its load limit.
    """
    canonical = build_canonical(kernel)
    gen_moves, play, status = kernel.gen_moves, kernel.play, kernel.status
    action_maps = np.ascontiguousarray(kernel.action_maps, dtype=np.int64)
    num_actions = kernel.num_actions
    potential = build_potential(kernel)
    after_value = build_after_value(kernel)

    @cached_njit
    def record(stats, winner, learner, vs_random):  # type: ignore[no-untyped-def]
        if winner < 0:
            stats[1] += 1
            stats[4] += 1
        else:
            stats[0 if winner == 0 else 2] += 1
            if not vs_random:
                stats[3] += 1  # self-play: one side always wins
            elif winner == learner:
                stats[3] += 1
            else:
                stats[5] += 1

    @cached_njit
    def train_q(ctx, a0, b0, keys, values, meta, rng, episode, count, fparams, iparams, stats):  # type: ignore[no-untyped-def]
        alpha, gamma, fill = fparams[F_ALPHA], fparams[F_GAMMA], np.float32(fparams[F_FILL])
        vs_random = iparams[I_VS_RANDOM] != 0
        max_plies, limit, opening_max = iparams[I_MAX_PLIES], iparams[I_LIMIT], iparams[I_OPENING]
        shaping, weight = iparams[I_SHAPING], fparams[F_SHAPE_WEIGHT]
        moves = np.empty(num_actions, dtype=np.int64)
        pending_slot = np.empty(2, dtype=np.int64)
        pending_action = np.empty(2, dtype=np.int64)
        pending_phi = np.zeros(2, dtype=np.float64)
        done = 0
        while done < count:
            if meta[0] + max_plies > limit:
                break
            number = episode + done
            eps = _epsilon(number, fparams[F_EPS], fparams[F_EPS_END], fparams[F_DECAY])
            learner = number & 1
            opening = _below(rng, opening_max + 1) if opening_max > 0 else 0
            pending_slot[:] = -1
            a, b = a0, b0
            winner = -1
            finished = False
            for ply in range(max_plies):
                side = ply & 1
                n = gen_moves(ctx, a, b, moves)
                if ply < opening or (vs_random and side != learner):
                    action = moves[_below(rng, n)]
                else:
                    key, sym = canonical(ctx, a, b)
                    slot = insert(keys, values, meta, key, fill)
                    best = -np.inf
                    action = moves[0]
                    ties = 0
                    for i in range(n):
                        q = values[slot, action_maps[sym, moves[i]]]
                        if q > best:
                            best, action, ties = q, moves[i], 1
                        elif q == best:
                            ties += 1
                            if _below(rng, ties) == 0:
                                action = moves[i]
                    # the opponent has answered: the last move of this side can be judged
                    p = pending_slot[side]
                    phi = potential(ctx, a, b, shaping, weight)
                    if p >= 0:
                        old = values[p, pending_action[side]]
                        if shaping < 0:
                            values[p, pending_action[side]] = old + alpha * (gamma * best - old)
                        else:
                            shaped = gamma * best + gamma * phi - pending_phi[side]
                            values[p, pending_action[side]] = old + alpha * (shaped - old)
                    pending_phi[side] = phi
                    if _uniform(rng) < eps:
                        action = moves[_below(rng, n)]
                    pending_slot[side] = slot
                    pending_action[side] = action_maps[sym, action]
                a, b = play(ctx, a, b, action)
                st = status(ctx, a, b)
                if st != ONGOING:
                    # st is the result for the side to move next; the mover gets its opposite
                    for who in range(2):
                        p = pending_slot[who]
                        if p >= 0:
                            reward = -st if who == side else st
                            if shaping >= 0:  # the potential of a finished game is 0
                                reward -= pending_phi[who]
                            old = values[p, pending_action[who]]
                            values[p, pending_action[who]] = old + alpha * (reward - old)
                    if st == LOSS:
                        winner = side
                    elif st == WIN:
                        winner = 1 - side
                    finished = True
                    break
            if not finished:  # the ply cap: a draw
                for who in range(2):
                    p = pending_slot[who]
                    if p >= 0:
                        end = -pending_phi[who] if shaping >= 0 else 0.0
                        old = values[p, pending_action[who]]
                        values[p, pending_action[who]] = old + alpha * (end - old)
            record(stats, winner, learner, vs_random)
            done += 1
        return done

    @cached_njit
    def train_mc(ctx, a0, b0, keys, values, meta, rng, episode, count, fparams, iparams, stats):  # type: ignore[no-untyped-def]
        alpha, gamma, fill = fparams[F_ALPHA], fparams[F_GAMMA], np.float32(fparams[F_FILL])
        vs_random = iparams[I_VS_RANDOM] != 0
        max_plies, limit, opening_max = iparams[I_MAX_PLIES], iparams[I_LIMIT], iparams[I_OPENING]
        shaping, weight = iparams[I_SHAPING], fparams[F_SHAPE_WEIGHT]
        moves = np.empty(num_actions, dtype=np.int64)
        visited = np.empty(max_plies, dtype=np.int64)
        phis = np.zeros(max_plies, dtype=np.float64)
        done = 0
        while done < count:
            if meta[0] + max_plies > limit:
                break
            number = episode + done
            eps = _epsilon(number, fparams[F_EPS], fparams[F_EPS_END], fparams[F_DECAY])
            learner = number & 1
            opening = _below(rng, opening_max + 1) if opening_max > 0 else 0
            a, b = a0, b0
            winner = -1
            last = max_plies - 1
            reward = 0.0  # for the side that made the last move
            for ply in range(max_plies):
                side = ply & 1
                n = gen_moves(ctx, a, b, moves)
                if ply < opening:
                    a, b = play(ctx, a, b, moves[_below(rng, n)])
                    st = status(ctx, a, b)
                    if st != ONGOING:
                        last = -1  # over before anything was learned
                        if st == LOSS:
                            winner = side
                        elif st == WIN:
                            winner = 1 - side
                        break
                    continue
                key, _ = canonical(ctx, a, b)
                visited[ply] = insert(keys, values, meta, key, fill)
                if shaping >= 0:
                    phis[ply] = potential(ctx, a, b, shaping, weight)
                if (vs_random and side != learner) or _uniform(rng) < eps:
                    action = moves[_below(rng, n)]
                else:
                    best = -np.inf
                    action = moves[0]
                    ties = 0
                    for i in range(n):
                        v = after_value(ctx, keys, values, fill, gamma, a, b, moves[i], shaping, weight)
                        if v > best:
                            best, action, ties = v, moves[i], 1
                        elif v == best:
                            ties += 1
                            if _below(rng, ties) == 0:
                                action = moves[i]
                a, b = play(ctx, a, b, action)
                st = status(ctx, a, b)
                if st != ONGOING:
                    reward = -np.float64(st)
                    if st == LOSS:
                        winner = side
                    elif st == WIN:
                        winner = 1 - side
                    last = ply
                    break
            # every visit, back to front: the return is the final result, discounted per ply
            g = reward
            for t in range(last, min(opening, last + 1) - 1, -1):
                target = g if (last - t) % 2 == 0 else -g
                if shaping >= 0:  # the shaped rewards telescope to -Phi(s_t)
                    target -= phis[t]
                s = visited[t]
                values[s, 0] += alpha * (target - values[s, 0])
                g *= gamma
            record(stats, winner, learner, vs_random)
            done += 1
        return done

    return train_mc if method == "mcrl" else train_q


def _build_q(kernel: Kernel) -> Any:
    return build_trainer(kernel, "qlearning")


def _build_mc(kernel: Kernel) -> Any:
    return build_trainer(kernel, "mcrl")


_BUILDERS: dict[str, Callable[[Kernel], Any]] = {"qlearning": _build_q, "mcrl": _build_mc}


def compiled_trainer(kernel: Kernel, method: str) -> Any:
    """The episode loop of ``method`` for ``kernel``, compiled once per process."""
    return compiled_for(kernel, _BUILDERS[method])


# --- training ----------------------------------------------------------------------------------


@dataclass
class Trainer(RunDefaults):
    """Trains a model in chunks of compiled episodes; every call continues where the last stopped.

    Build a fresh one with :meth:`start` or continue a saved model with :meth:`resume`.
    ``stats`` counts the outcomes of the training episodes (see :data:`STATS`).
    """

    curve_key: ClassVar[str] = "episode"
    curve_unit: ClassVar[str] = "training episodes"
    checkpoint_seconds: ClassVar[float] = 30.0

    game: Game
    method: str
    params: Any
    model: TableModel
    rng: np.ndarray
    stats: np.ndarray = field(default_factory=lambda: np.zeros(STATS, dtype=np.int64))
    solution: Any = None
    """The exact solution of the game when it is small enough: each curve point then counts the
    positions where a greedy move gives away value (see :meth:`prepare`)."""

    @classmethod
    def start(cls, game: Game, method: str, params: Any = None, seed: int = 0) -> Trainer:
        """A fresh run of ``method`` on ``game``."""
        if params is None:
            params = params_for(method)
        if method not in SETTINGS:
            raise TrainingError(f"unknown method {method!r}; accepted: {', '.join(SETTINGS)}")
        if not isinstance(params, SETTINGS[method]):
            raise TrainingError(f"{method} takes {SETTINGS[method].__name__}, not {type(params).__name__}")
        kernel = game.kernel
        shaping_id(params, kernel)  # a shaping the game cannot evaluate is refused here
        fill = float(getattr(params, "q_init", 0.0))
        table = ValueTable(width_of(method, kernel), fill=fill)
        header = {
            "game": game.spec,
            "kernel": kernel.name,
            "num_actions": kernel.num_actions,
            "method": method,
            "hyper": dataclasses.asdict(params),
            "seed": int(seed),
            "episodes": 0,
            "train_seconds": 0.0,
            "curve": [],
        }
        rng = seed_state(seed)
        header["rng"] = str(int(rng[0]))
        return cls(game, method, params, TableModel(table, header), rng)

    @classmethod
    def resume(cls, path: Path | str, game: Game, method: str) -> Trainer:
        """Continue the run saved in ``path`` (ModelMismatchError for another game or method)."""
        kernel = game.kernel
        model = load_model(
            path, game=game.spec, kernel=kernel.name, method=method, num_actions=kernel.num_actions
        )
        try:
            params = params_for(method, model.header["hyper"])
            shaping_id(params, kernel)
            rng = np.array([int(model.header["rng"])], dtype=np.uint64)
            stats = np.array(model.header.get("stats", [0] * STATS), dtype=np.int64)
        except (TrainingError, KeyError, TypeError, ValueError, OverflowError) as error:
            raise ModelMismatchError(f"{path}: the training state cannot be resumed ({error})") from None
        if stats.shape != (STATS,):
            raise ModelMismatchError(f"{path}: the training counters have the wrong shape")
        return cls(game, method, params, model, rng, stats)

    @property
    def episodes(self) -> int:
        """Episodes trained so far."""
        return self.model.episodes

    @property
    def seed(self) -> int:
        """The seed the run started from."""
        return int(self.model.header["seed"])

    def epsilon(self, episode: int | None = None) -> float:
        """The exploration rate at ``episode`` (default: the next one)."""
        p = self.params
        e = self.episodes if episode is None else episode
        if p.epsilon_decay <= 0 or e >= p.epsilon_decay:
            return float(p.epsilon_end)
        return float(p.epsilon_end + (p.epsilon - p.epsilon_end) * (1 - e / p.epsilon_decay))

    def train(self, episodes: int) -> float:
        """Play ``episodes`` more episodes; return the seconds spent, the first compile of the
        process excluded (the episode loop and the table's growth compile on scratch copies
        before the clock starts)."""
        p, kernel = self.params, self.game.kernel
        train = compiled_trainer(kernel, self.method)
        table = self.model.table
        max_plies = max_plies_of(p, self.game)
        fparams = np.array(
            [p.alpha, p.gamma, p.epsilon, p.epsilon_end, p.epsilon_decay, table.fill, p.shaping_weight]
        )
        shaping = shaping_id(p, kernel)
        a0, b0 = self.game.initial_words()
        remaining = int(episodes)
        if not train.signatures:  # compile on scratch copies, so that the timing is the training's
            table_copy = ValueTable(table.width, fill=table.fill)
            table_copy.grow(table_copy.room + 1)  # the table's growth (its rehash) compiles too
            scratch = (table_copy.keys, table_copy.values, table_copy.meta, self.rng.copy())
            iparams = np.array(
                [0, max_plies, int(table_copy.capacity * MAX_LOAD), 0, shaping], dtype=np.int64
            )
            train(
                kernel.ctx,
                np.int64(a0),
                np.int64(b0),
                *scratch,
                np.int64(0),
                np.int64(1),
                fparams,
                iparams,
                self.stats.copy(),
            )
        start = time.perf_counter()
        while remaining > 0:
            if table.room < max_plies + 1:
                table.grow(max(max_plies + 1, len(table)))
            limit = int(table.capacity * MAX_LOAD)
            iparams = np.array([p.opponent == "random", max_plies, limit, p.opening, shaping], dtype=np.int64)
            done = train(
                kernel.ctx,
                np.int64(a0),
                np.int64(b0),
                table.keys,
                table.values,
                table.meta,
                self.rng,
                np.int64(self.episodes),
                np.int64(remaining),
                fparams,
                iparams,
                self.stats,
            )
            remaining -= int(done)
            self._advance(int(done))
        seconds = time.perf_counter() - start
        self.model.header["train_seconds"] = float(self.model.header.get("train_seconds", 0.0)) + seconds
        return seconds

    def _advance(self, done: int) -> None:
        header = self.model.header
        header["episodes"] = self.episodes + done
        header["rng"] = str(int(self.rng[0]))
        header["stats"] = self.stats.tolist()

    def policy(self) -> TabularPolicy:
        """Greedy play from the current table (it follows further training)."""
        return TabularPolicy(self.model, self.game)

    def save(self, path: Path | str) -> Path:
        """Write the model with its training state atomically."""
        return save_model(path, self.model)

    # the run protocol (boardlab.train.run) ---------------------------------------------------

    @property
    def progress(self) -> int:
        """Episodes trained so far."""
        return self.episodes

    @property
    def curve(self) -> list[dict[str, Any]]:
        """The learning curve, kept in the model file."""
        curve: list[dict[str, Any]] = self.model.header.setdefault("curve", [])
        return curve

    @property
    def title(self) -> str:
        """``Q-learning on tictactoe``."""
        return f"{METHOD_TITLES[self.method]} on {self.game.spec}"

    def prepare(self) -> None:
        """Solve the game for the mistake count of the curve, when it is small enough."""
        if self.solution is None:
            self.solution = small_solution(self.game)

    def step(self, limit: int) -> None:
        """One compiled chunk of at most ``limit`` episodes."""
        self.train(min(CHUNK, limit))

    def evaluate(self, opponents: Sequence[str], games: int) -> list[dict[str, Any]]:
        """Curve records at the current episode: greedy play against each opponent (seeded by the
        run's seed and the episode, so that a resumed run draws the same games) and the count of
        positions where a greedy move gives away value when the game is solved."""
        if games <= 0:
            return []
        policy, at = self.policy(), {"episode": self.episodes}
        records = curve_point(policy, opponents, games, self.seed * 1_000_003 + self.episodes, at)
        if self.solution is not None:
            report = perfect_play_report(policy, self.solution)
            records.append({**at, "opponent": "solver", "mistakes": len(report.mistakes)})
        return records

    def final_games(self, opponents: Sequence[str], games: int) -> list[GameResult]:
        """``games`` greedy games against each opponent."""
        return final_results(self.policy(), opponents, games, self.seed)

    def summary(self) -> dict[str, Any]:
        """The run in ``summary.json`` (with the exhaustive check when the game is solved)."""
        header = self.model.header
        summary: dict[str, Any] = {
            "method": self.method,
            "game": self.game.spec,
            "hyper": dataclasses.asdict(self.params),  # declared order (the file's JSON is sorted)
            "seed": self.seed,
            "episodes": self.episodes,
            "train_seconds": round(float(header.get("train_seconds", 0.0)), 4),
            "table_entries": len(self.model.table),
        }
        if self.solution is not None:
            report = perfect_play_report(self.policy(), self.solution)
            summary["perfect_play"] = {
                "perfect": report.perfect,
                "positions": report.positions,
                "mistakes": len(report.mistakes),
                "wrong_positions": report.wrong_positions,
            }
        return summary

    def report_lines(self) -> list[str]:
        """The verdict of the exhaustive check, when the game is solved."""
        if self.solution is None:
            return []
        report = perfect_play_report(self.policy(), self.solution)
        verdict = (
            "perfect play"
            if report.perfect
            else f"{len(report.mistakes):,} greedy moves give away value, in"
            f" {report.wrong_positions:,} of the {report.positions:,} positions where it chooses"
        )
        return [f"Checked against the solved game: {verdict}."]

    def status(self) -> str:
        """Exploration rate and the last curve point."""
        last = [r for r in self.curve if r["episode"] == max((r["episode"] for r in self.curve), default=-1)]
        parts = [f"{r['opponent']} {r['wins']}/{r['draws']}/{r['losses']}" for r in last if "wins" in r]
        parts += [f"bad moves {r['mistakes']}" for r in last if "mistakes" in r]
        text = f"eps={self.epsilon():.3f}"
        return f"{text} W/D/L vs {', '.join(parts)}" if parts else text


# --- judging the learned play ------------------------------------------------------------------


@dataclass(frozen=True)
class Mistake:
    """A position where a greedy move gives away game-theoretic value."""

    position: str
    move: str
    value: int
    after: int


@dataclass(frozen=True)
class PerfectPlayReport:
    """What :func:`perfect_play_report` found: positions where the learner chose, and mistakes
    (each a position and a greedy move there that gives away value)."""

    positions: int
    mistakes: tuple[Mistake, ...]

    @property
    def perfect(self) -> bool:
        """True when no greedy move anywhere gives away value."""
        return not self.mistakes

    @property
    def wrong_positions(self) -> int:
        """Positions with a greedy move that gives away value (several may tie in one)."""
        return len({mistake.position for mistake in self.mistakes})


def perfect_play_report(policy: TabularPolicy, solution: Any = None, limit: int = 0) -> PerfectPlayReport:
    """Walk every position reachable when the learner plays its greedy moves (all of them, when
    several tie) and the opponent plays anything, with the learner on either side; list the
    positions where a greedy move does not keep the game-theoretic value of the exact
    ``solution`` (:class:`boardlab.games.small_solver.Solution`; solved here when None). Stop after
    ``limit`` mistakes (0: find them all)."""

    game, kernel = policy.game, policy.kernel
    if solution is None:
        solution = Solution(kernel)
    a0, b0 = game.initial_words()
    buf = np.empty(kernel.num_actions, dtype=np.int64)
    mistakes: list[Mistake] = []
    chosen = 0
    for learner in (0, 1):
        seen: set[tuple[int, int]] = set()
        stack = [(int(a0), int(b0), 0)]
        while stack:
            a, b, ply = stack.pop()
            if (a, b) in seen:
                continue
            seen.add((a, b))
            if kernel.status(kernel.ctx, np.int64(a), np.int64(b)) != ONGOING:
                continue
            cap = game.ply_cap
            if cap is not None and ply >= cap:
                continue
            if ply % 2 == learner:
                chosen += 1
                value = solution.value((a, b))
                actions = policy.best_actions(a, b)
                for action in actions:
                    x, y = kernel.play(kernel.ctx, np.int64(a), np.int64(b), action)
                    after = -solution.value((int(x), int(y)))
                    if after != value:
                        state = game.state(a, b, ply % 2, ply)
                        mistakes.append(Mistake(state.to_text(), str(game.move_of(action)), value, after))
                        if limit and len(mistakes) >= limit:
                            return PerfectPlayReport(chosen, tuple(mistakes))
                    stack.append((int(x), int(y), ply + 1))
            else:
                n = kernel.gen_moves(kernel.ctx, np.int64(a), np.int64(b), buf)
                for action in buf[:n].tolist():
                    x, y = kernel.play(kernel.ctx, np.int64(a), np.int64(b), action)
                    stack.append((int(x), int(y), ply + 1))
    return PerfectPlayReport(chosen, tuple(mistakes))


def small_solution(game: Game, limit: int = 200_000) -> Any:
    """The exact solution of ``game`` when the small solver handles it (acyclic, at most
    ``limit`` positions), else None."""

    solution = Solution(game.kernel, limit)
    try:
        solution.result(game.initial_words())
    except SolverError:
        return None
    return solution


# --- the method ----------------------------------------------------------------------------------


def default_opponents(game: Game) -> list[str]:
    """The fixed opponents of the learning curve: random, and perfect where it plays the game
    (else greedy)."""

    return ["random", "perfect" if PerfectAgent.supports(game) else "greedy"]


def saved_game(path: Path) -> str:
    """The game of the run saved in the model file ``path`` (its header alone is read)."""
    return str(read_header(path)["game"])


def _method(name: str) -> Method:
    return Method(
        name,
        SETTINGS[name],
        start=lambda game, settings, seed: Trainer.start(game, name, settings, seed),
        resume=lambda path, game: Trainer.resume(path, game, name),
        checkpoint_file=MODEL_FILE,
        model_file=MODEL_FILE,
        default_against=default_opponents,
        error=TrainingError,
        saved_game=saved_game,
    )


KINDS = {name: _method(name) for name in SETTINGS}
"""``boardlab train qlearning`` and ``boardlab train mcrl``."""


__all__ = [
    "KINDS",
    "MODEL_FILE",
    "SETTINGS",
    "Mistake",
    "MonteCarloParams",
    "PerfectPlayReport",
    "QLearningParams",
    "Trainer",
    "TrainingError",
    "build_trainer",
    "compiled_trainer",
    "default_opponents",
    "params_for",
    "perfect_play_report",
    "shaping_id",
    "small_solution",
]
