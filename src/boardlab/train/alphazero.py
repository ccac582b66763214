"""AlphaZero training, generic over games: Gumbel self-play on every core, a replay window on
disk, training in the main process, evaluation by fixed opponents and by the game's solver.

One *iteration* (the run protocol's epoch) is:

1. **self-play**: the current network (``model.safetensors`` in the run's folder) plays
   ``games`` games against itself, shared out in chunks of ``parallel`` games among the worker
   processes (:class:`~boardlab.play.pool.Workers`, one per core). Within a chunk every move of
   every game is a Gumbel search (:mod:`boardlab.search.gumbel`), and the leaves of all of them
   go to the network in one call. *Playout-cap randomisation* (KataGo): a share ``full_share``
   of the moves get ``sims`` simulations and train the policy; the others get ``fast_sims``
   and train only the value. The policy target is Gumbel's completed-Q policy, the value
   target the game's result for the side to move. Each chunk writes one npz shard
   (state words, legal masks, policy and value targets; never pickle) into ``replay/``; once
   they are written, the shards older than the window are deleted.
2. **training**: minibatches drawn from the shards of the last ``window`` iterations, each
   position seen through a random symmetry of the game (the observation planes through
   ``kernel.cell_maps``, the policy through ``kernel.action_maps``); loss = cross-entropy of
   the policy + squared error of the value; AdamW. ``reuse`` sets how many times, on average,
   each new position is trained on.
3. **evaluation**: the share of moves keeping the perfect-play value, by the raw policy (most
   likely legal move) and with ``eval_sims`` PUCT simulations, on positions the game's exact
   play judges (Tic-Tac-Toe: every reachable position; Connect Four 7x6: the Begin-Easy,
   Middle-Easy and Middle-Medium benchmark sets in ``shared/data/connect4``; otherwise
   positions of random games); and, every ``elo_every`` iterations (and at the last one),
   ``versus_games`` games with search against each fixed opponent, kept as arena games in
   ``arena.sqlite`` (one tournament per evaluation, the learner being the snapshot
   ``snapshots/itNNNNNN.safetensors`` of the iteration's network), and the Elo of the
   iteration's learner fitted over every game of that store, the first fixed opponent at 0
   (:mod:`boardlab.train.arena_games`). Recorded in the learning curve with the losses and the
   hours trained.

The run saves after every iteration, atomically, one ``checkpoint.safetensors`` (weights,
optimiser moments and the JSON state) and the plain ``model.safetensors`` the ``alphazero``
agent plays. Every random choice derives from the seed and the iteration, so a run stopped and
resumed (``--resume``) computes exactly what an uninterrupted run computes, whatever the number
of workers, unless it is given a lower learning rate (``--lr``, the schedule's drop).
``hours`` bounds the wall time of the iterations (self-play, training, evaluation) summed over
every session of the run.
"""

from __future__ import annotations

import dataclasses
import io
import itertools
import math
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from boardlab.agents.perfect import PerfectAgent
from boardlab.arena.schedule import build_schedule, derive_seed
from boardlab.core.files import agg_figure, atomic_savefig, atomic_write_bytes, fit_titles
from boardlab.games import parse_game
from boardlab.games.base import (
    ONGOING,
    Game,
    Kernel,
    observe_batch,
    transform_actions,
    transform_observations,
)
from boardlab.games.connect4.solver import benchmark_sets_folder
from boardlab.models.network import (
    Network,
    NetworkFileError,
    TorchMissingError,
    masked_softmax,
    read_header,
    read_network,
    require_torch,
    save_network,
)
from boardlab.models.table import ModelFileError
from boardlab.play.backend import Backend, WorkMap, open_backend
from boardlab.play.pool import BackendError
from boardlab.search.gumbel import GumbelSearch, GumbelSettings, run_gumbel_together
from boardlab.search.mcts import PUCT, Search, evaluate_together
from boardlab.train.arena_games import (
    ARENA_FILE,
    EvaluationGame,
    elo_ratings,
    elo_record,
    evaluation_config,
    game_result,
    learner_tallies,
    model_spec,
    play_evaluation_game,
    play_games_of,
    play_into_store,
    run_store,
)
from boardlab.train.run import (
    GameResult,
    Method,
    RunDefaults,
    TrainingError,
    check_history,
    check_same_board,
    check_state,
    checked_settings,
)
from boardlab.train.settings import AlphaZeroParams

CHECKPOINT_FILE = "checkpoint.safetensors"
MODEL_FILE = "model.safetensors"
REPLAY_FOLDER = "replay"
SNAPSHOT_FOLDER = "snapshots"
"""The networks of the iterations whose games are in the arena store (what their spec plays)."""
DEFAULT_MAX_PLIES = 1000
CONNECT4_SETS = ("Test_L1_R1", "Test_L2_R1", "Test_L2_R2")
"""Begin-Easy, Middle-Easy and Middle-Medium: the sets the Connect Four target names."""


# --- hyper-parameters ---------------------------------------------------------------------------


FREE = ("hours", "workers", "backend", "address", "elo_every", "also", "lr")
"""Settings a resumed run may change. All but ``lr`` leave the network an iteration computes as
it was (``elo_every`` only says which iterations play evaluation games, ``also`` only what the
saved network declares it fits); ``lr`` is the learning-rate drop of AlphaZero's schedule, given
by hand when the curve flattens (each iteration records the rate it trained with)."""
FOLLOWS = (("address", "backend"),)
"""A cluster's address belongs to the backend it was given with: a resumed run given
``--backend`` but no ``--address`` drops the saved address (``--backend local`` plays on this
machine, ``--backend ray`` on a local Ray instance), as a fresh run would."""


def gumbel_settings(p: AlphaZeroParams) -> GumbelSettings:
    return GumbelSettings(considered=p.considered, c_visit=p.c_visit, c_scale=p.c_scale)


# --- self-play (in the worker processes) --------------------------------------------------------


@dataclass(frozen=True)
class SelfPlayTask:
    """One chunk of self-play games, played in a worker: the network file to play with, the
    shard to write, the settings (as a dict), the seed and how many games."""

    game: str
    model: str
    shard: str
    params: dict[str, Any]
    seed: int
    games: int


_WORKER_NETWORKS: dict[tuple[str, int, int], Network] = {}


def _worker_network(path: str, game: Game) -> Network:
    """The network of ``path`` in this process, read once per file version."""
    stat = os.stat(path)
    key = (path, stat.st_mtime_ns, stat.st_size)
    if key not in _WORKER_NETWORKS:
        _WORKER_NETWORKS.clear()
        _WORKER_NETWORKS[key] = read_network(path, game).network
    return _WORKER_NETWORKS[key]


def max_plies(game: Game) -> int:
    """Plies after which a self-play game is a draw."""
    return game.ply_cap if game.ply_cap is not None else DEFAULT_MAX_PLIES


def play_selfplay(task: SelfPlayTask) -> dict[str, Any]:
    """Play a chunk of self-play games and write their positions as an npz shard; returns its
    counts (positions, games, evaluations, seconds). Runs in a worker, on one thread."""
    torch = require_torch()
    torch.set_num_threads(1)
    start = time.perf_counter()
    game = parse_game(task.game)
    p = AlphaZeroParams(**task.params)
    network = _worker_network(task.model, game)
    evaluator = network.evaluator(game.kernel)
    data = selfplay_games(game, evaluator, p, task.seed, task.games)
    write_shard(Path(task.shard), data)
    return {
        "positions": len(data["value"]),
        "games": task.games,
        "evaluations": evaluator.positions,
        "calls": evaluator.calls,
        "seconds": time.perf_counter() - start,
    }


def selfplay_games(
    game: Game, evaluator: Any, p: AlphaZeroParams, seed: int, games: int
) -> dict[str, np.ndarray]:
    """``games`` self-play games played side by side (each move a Gumbel search, the leaves of
    all games evaluated together): the positions with their targets."""
    kernel = game.kernel
    rng = np.random.default_rng(seed)
    settings = gumbel_settings(p)
    cap = max_plies(game)
    a0, b0 = game.initial_words()
    boards = [(int(a0), int(b0)) for _ in range(games)]
    plies = [0] * games
    records: list[list[tuple[int, int, np.ndarray, np.ndarray, bool]]] = [[] for _ in range(games)]
    results: list[float | None] = [None] * games
    active = list(range(games))
    while active:
        searches, fulls = [], []
        for g in active:
            full = bool(rng.random() < p.full_share)
            sims = p.sims if full else p.fast_sims
            me, opp = boards[g]
            searches.append(GumbelSearch(kernel, me, opp, sims, settings, rng, noise=True))
            fulls.append(full)
        run_gumbel_together(searches, evaluator)
        still = []
        for g, search, full in zip(active, searches, fulls, strict=True):
            me, opp = boards[g]
            records[g].append((me, opp, search.legal, search.improved_policy(), full))
            a, b = kernel.play(kernel.ctx, np.int64(me), np.int64(opp), search.best())
            boards[g] = (int(a), int(b))
            plies[g] += 1
            status = int(kernel.status(kernel.ctx, a, b))
            if status != ONGOING:
                # the result for the side to move after the last move
                results[g] = float(status)
            elif plies[g] >= cap:
                results[g] = 0.0
            else:
                still.append(g)
        active = still
    return _targets(records, results, plies, kernel)


def _targets(
    records: Sequence[Any], results: Sequence[float | None], plies: Sequence[int], kernel: Kernel
) -> dict[str, np.ndarray]:
    words, legal, policy, value, full = [], [], [], [], []
    for game_records, result, end in zip(records, results, plies, strict=True):
        assert result is not None
        for ply, (me, opp, mask, target, is_full) in enumerate(game_records):
            # the final result is for the side to move at ply `end`: flip it for the other side
            z = result if (end - ply) % 2 == 0 else -result
            words.append((me, opp))
            legal.append(mask)
            policy.append(target)
            value.append(z)
            full.append(is_full)
    n = len(value)
    return {
        "words": np.array(words, np.int64).reshape(n, 2),
        "legal": np.array(legal, np.bool_).reshape(n, kernel.num_actions),
        "policy": np.array(policy, np.float32).reshape(n, kernel.num_actions),
        "value": np.array(value, np.float32),
        "full": np.array(full, np.bool_),
    }


SHARD_KEYS = ("words", "legal", "policy", "value", "full")


def write_shard(path: Path, data: dict[str, np.ndarray]) -> Path:
    """Write a replay shard atomically (npz, no pickled objects)."""
    buffer = io.BytesIO()
    columns: dict[str, Any] = {
        k: data[k] for k in SHARD_KEYS
    }  # Any: for mypy, ndarray values might fill savez's allow_pickle
    np.savez_compressed(buffer, **columns)
    return atomic_write_bytes(path, buffer.getvalue())


def read_shard(path: Path, num_actions: int) -> dict[str, np.ndarray]:
    """A replay shard, checked; ModelFileError when it is damaged."""
    try:
        with np.load(path, allow_pickle=False) as f:
            data = {k: np.asarray(f[k]) for k in SHARD_KEYS}
    except (OSError, ValueError, KeyError, EOFError) as error:
        raise ModelFileError(f"replay shard {path} cannot be read ({error})") from None
    n = len(data["value"])
    shapes = {"words": (n, 2), "legal": (n, num_actions), "policy": (n, num_actions), "full": (n,)}
    for key, shape in shapes.items():
        if data[key].shape != shape:
            raise ModelFileError(f"replay shard {path}: {key} has shape {data[key].shape}, not {shape}")
    return data


def augment(
    kernel: Kernel, obs: np.ndarray, vectors: Sequence[np.ndarray], syms: np.ndarray
) -> tuple[np.ndarray, list[np.ndarray]]:
    """Each row's observation and per-action vectors (policy, legal mask) seen through its
    symmetry ``syms[i]``: the planes through ``cell_maps``, the actions through ``action_maps``."""
    obs = obs.copy()
    out = [v.copy() for v in vectors]
    for s in range(1, kernel.num_symmetries):
        rows = np.flatnonzero(syms == s)
        if len(rows) == 0:
            continue
        obs[rows] = transform_observations(kernel, obs[rows], s)
        for v, o in zip(vectors, out, strict=True):
            o[rows] = transform_actions(kernel, v[rows], s)
    return obs, out


# --- evaluation --------------------------------------------------------------------------------


CONNECT4_NODE_LIMIT = 300_000
"""Nodes the solver may spend on one move of a benchmark position (more: the move is not judged)."""


@dataclass
class JudgedPositions:
    """Positions and a judge of their moves: ``keeps`` (bool (n, num_actions): the actions
    that keep the perfect-play value) when every move was judged at once, else ``signs`` (the
    sign of each position's exact value) and a solver that judges the moves asked about, each
    once, within a node budget (a move it cannot solve in time is left unjudged)."""

    words: np.ndarray
    legal: np.ndarray
    source: str
    keeps: np.ndarray | None = None
    signs: np.ndarray | None = None
    solver: Any = None
    game: Any = None
    sample: np.ndarray | None = None
    """The rows searched for the accuracy with search (None: every row)."""
    cache: dict[tuple[int, int], int | None] = dataclasses.field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.words)

    def judge(self, index: int, action: int) -> bool | None:
        """True when ``action`` keeps the value of position ``index``; None if unjudged."""
        if self.keeps is not None:
            return bool(self.keeps[index, action])
        assert self.signs is not None and self.solver is not None
        key = (index, int(action))
        if key not in self.cache:
            a, b = self.words[index]
            state = self.game.state(int(a), int(b), 0, 0)
            after = state.play_index(int(action))
            value = self.solver.solve(after, weak=True, node_limit=CONNECT4_NODE_LIMIT)
            self.cache[key] = None if value is None else -int(np.sign(value))
        value = self.cache[key]
        return None if value is None else value == int(self.signs[index])

    @property
    def searched(self) -> np.ndarray:
        """The rows whose moves are judged with search."""
        return self.sample if self.sample is not None else np.arange(len(self.words))

    def accuracy(self, actions: np.ndarray, rows: np.ndarray | None = None) -> tuple[float | None, int]:
        """The share of the judged moves that keep the value (None: none judged), and how many
        were judged; ``actions[k]`` is played in position ``rows[k]`` (default: row k)."""
        rows = np.arange(len(actions)) if rows is None else rows
        verdicts = [self.judge(int(i), int(a)) for i, a in zip(rows, actions, strict=True)]
        judged = [v for v in verdicts if v is not None]
        return (sum(judged) / len(judged) if judged else None), len(judged)


def reachable_positions(game: Game, limit: int = 200_000) -> list[Any]:
    """Every ongoing position reachable from the start (a small game), in a fixed order."""
    start = game.initial()
    seen = {start.words}
    order, stack = [], [start]
    while stack and len(seen) <= limit:
        state = stack.pop()
        if state.is_over:
            continue
        order.append(state)
        for action in state.legal_indices():
            child = state.play_index(action)
            if child.words not in seen:
                seen.add(child.words)
                stack.append(child)
    return order


def connect4_positions(game: Game, per_set: int) -> list[tuple[Any, int]]:
    """The first ``per_set`` positions of each benchmark set named by the Connect Four target,
    with their exact scores (side to move)."""
    out = []
    for name in CONNECT4_SETS:
        path = benchmark_sets_folder() / name
        if not path.is_file():
            return []
        lines = path.read_text().split("\n")
        for line in [x for x in lines if x.strip()][:per_set]:
            moves, score = line.split()[:2]
            out.append((game.parse_position(moves), int(score)))
    return out


def connect4_judged(game: Game, count: int, rng: np.random.Generator) -> JudgedPositions | None:
    """Benchmark-set positions judged lazily by the solver (weak solves of the moves asked);
    positions of random games that the solver settles within its node budget where the sets
    are not at hand."""
    from boardlab.games.connect4.solver import Solver

    solver = Solver(7, 6)
    pairs = connect4_positions(game, math.ceil(count / len(CONNECT4_SETS)))
    source = "benchmark sets Begin-Easy, Middle-Easy, Middle-Medium"
    if not pairs:
        states = _random_game_positions(game, 2 * count, rng)
        solved = [(state, solver.solve(state, weak=True, node_limit=CONNECT4_NODE_LIMIT)) for state in states]
        pairs = [(state, value) for state, value in solved if value is not None][:count]
        source = (
            f"random games (the benchmark sets are not in {benchmark_sets_folder()}; "
            "BOARDLAB_CONNECT4_DATA names their folder)"
        )
    pairs = [(state, score) for state, score in pairs if not state.is_over]
    if not pairs:
        return None
    words = np.array([state.words for state, _ in pairs], np.int64)
    legal = np.array([state.legal_mask() for state, _ in pairs])
    signs = np.sign(np.array([score for _, score in pairs]))
    return JudgedPositions(words, legal, source, signs=signs, solver=solver, game=game)


def judged_positions(game: Game, count: int, seed: int) -> JudgedPositions | None:
    """Up to ``count`` positions the game's exact play judges, or None when it has none."""
    from boardlab.arena.oracle import OracleError, judge_for

    if count <= 0:
        return None
    try:
        judge = judge_for(game)
    except (OracleError, ValueError):
        return None
    rng = np.random.default_rng(seed)
    if game.spec == "connect4":
        return connect4_judged(game, count, rng)
    small = reachable_positions(game, 20_000) if game.spec == "tictactoe" else []
    if small:
        # every reachable position for the raw policy (cheap), a sample of them for the search
        states, source = small, "every reachable position (search: a sample)"
    else:
        states, source = _random_game_positions(game, count, rng), "random games"
    keep = []
    chosen = []
    for state in states:
        if state.is_over or not judge.covers(state):
            continue
        values = judge.move_values(state)
        best = max(v.value for v in values)
        row = np.zeros(game.kernel.num_actions, np.bool_)
        row[[v.action for v in values if v.value == best]] = True
        keep.append(row)
        chosen.append(state)
    if not chosen:
        return None
    words = np.array([s.words for s in chosen], np.int64)
    legal = np.array([s.legal_mask() for s in chosen])
    sample = np.sort(rng.choice(len(chosen), count, replace=False)) if len(chosen) > count else None
    return JudgedPositions(words, legal, source, keeps=np.array(keep), sample=sample)


def _random_game_positions(game: Game, count: int, rng: np.random.Generator) -> list[Any]:
    out: list[Any] = []
    while len(out) < count:
        state = game.initial()
        while not state.is_over and state.ply < max_plies(game):
            out.append(state)
            legal = state.legal_indices()
            state = state.play_index(legal[int(rng.integers(len(legal)))])
    idx = rng.choice(len(out), min(count, len(out)), replace=False)
    return [out[i] for i in sorted(idx)]


def search_policies(
    kernel: Kernel, words: np.ndarray, evaluator: Any, sims: int, seed: int, c: float = 1.5, fpu: float = -0.2
) -> np.ndarray:
    """The most visited action of a PUCT search of ``sims`` simulations from each position,
    the leaves of all the searches evaluated together (batches of 8 per search)."""
    rng = np.random.default_rng(seed)
    capacity = sims * kernel.num_actions + 1
    searches = [Search(kernel, int(a), int(b), evaluator, PUCT, c, fpu, rng, capacity) for a, b in words]
    while True:
        pending = [s for s in searches if s.simulations < sims]
        if not pending:
            break
        evaluate_together(pending, evaluator, min(8, sims))
    return np.array([s.best()[0] for s in searches])


def raw_policy_actions(network: Network, kernel: Kernel, words: np.ndarray, legal: np.ndarray) -> np.ndarray:
    """The most likely legal action of the network's policy at each position."""
    actions = []
    for start in range(0, len(words), 512):
        logits, _ = network.infer(observe_batch(kernel, words[start : start + 512]))
        actions.append(np.argmax(masked_softmax(logits, legal[start : start + 512]), axis=1))
    return np.concatenate(actions) if actions else np.zeros(0, np.int64)


class SearchPolicy:
    """A network with PUCT search as a :class:`~boardlab.train.run.Policy` (the exhaustive check);
    the same search as the ``alphazero`` agent with ``sims`` simulations."""

    def __init__(self, game: Game, network: Network, sims: int) -> None:
        self.game = game
        self.kernel = game.kernel
        self.evaluator = network.evaluator(game.kernel)
        self.sims = sims

    def choose_action(self, a: int, b: int, rng: Any) -> int:
        np_rng = np.random.default_rng(rng.getrandbits(63))
        capacity = self.sims * self.kernel.num_actions + 1
        search = Search(self.kernel, a, b, self.evaluator, PUCT, 1.5, -0.2, np_rng, capacity)
        search.run(self.sims, batch=8)
        return search.best()[0]


def play_alphazero_game(job: EvaluationGame) -> str:
    """An evaluation game in a worker (:func:`~boardlab.train.arena_games.play_evaluation_game`),
    the network on one thread like self-play."""
    require_torch().set_num_threads(1)
    return play_evaluation_game(job)


class _SearchChoices:
    """A searching network seen as a greedy policy (its one chosen move per position), for
    :func:`boardlab.train.tabular.perfect_play_report`; each search seeded by the position."""

    def __init__(self, game: Game, network: Network, sims: int) -> None:
        self.game, self.kernel = game, game.kernel
        self.player = SearchPolicy(game, network, sims)

    def best_actions(self, a: int, b: int) -> list[int]:
        import random

        return [self.player.choose_action(a, b, random.Random(a * 1_000_003 + b))]


def exhaustive_check(game: Game, network: Network, sims: int) -> Any:
    """Every position reachable when the network (with ``sims`` PUCT simulations) plays either
    side and the opponent plays anything, checked against the solved game: the report of
    :func:`boardlab.train.tabular.perfect_play_report` (perfect: never a move that gives away
    value, hence never a loss to ``perfect`` nor a won position thrown away)."""
    from boardlab.train.tabular import perfect_play_report

    return perfect_play_report(_SearchChoices(game, network, sims))  # type: ignore[arg-type]


def final_game_count(asked: int, versus_games: int) -> int:
    """The final games against each opponent: the command's ``--final-games`` (``asked``), at
    most ``versus_games`` since searching games are slow, but never fewer than 2 for that cap
    (one game with each colour, colours alternating), so ``versus_games`` 0 or 1 still plays 2."""
    return min(asked, max(versus_games, 2))


def default_opponents(game: Game) -> list[str]:
    """The fixed opponents: random, and perfect where the game is small enough to be solved at
    once (Tic-Tac-Toe), else MCTS with 400 rollouts per move."""
    small = PerfectAgent.supports(game) and game.spec == "tictactoe"
    return ["random", "perfect" if small else "mcts:iters=400"]


# --- the run ------------------------------------------------------------------------------------


class AlphaZeroRun(RunDefaults):
    """An AlphaZero training run (see the module docstring); the run protocol of
    :mod:`boardlab.train.run`, an epoch being one iteration."""

    curve_key: ClassVar[str] = "epoch"
    curve_unit: ClassVar[str] = "iterations"
    checkpoint_seconds: ClassVar[float] = 0.0

    def __init__(
        self, game: Game, params: AlphaZeroParams, network: Network, optimizer: Any, state: dict[str, Any]
    ) -> None:
        self.game = game
        self.params = params
        self.network = network
        self.optimizer = optimizer
        self.state = state
        self.folder: Path | None = None
        self.judged: JudgedPositions | None = None
        self.prepared = False
        self.opponents: list[str] = list(state.get("opponents") or default_opponents(game))
        self._backend: Backend | None = None
        self._workers: WorkMap | None = None

    # --- start and resume ---------------------------------------------------------------------

    @classmethod
    def start(cls, game: Game, params: AlphaZeroParams, seed: int) -> AlphaZeroRun:
        torch = require_torch()
        network = Network.for_game(game, params.blocks, params.channels, seed)
        state = {
            "game": game.spec,
            "seed": int(seed),
            "iteration": 0,
            "train_seconds": 0.0,
            "positions": 0,
            "games": 0,
            "hyper": dataclasses.asdict(params),
            "curve": [],
            "history": [],
        }
        optimizer = torch.optim.AdamW(
            network.module.parameters(), lr=params.lr, weight_decay=params.weight_decay
        )
        return cls(game, params, network, optimizer, state)

    @classmethod
    def resume(cls, path: Path | str, game: Game) -> AlphaZeroRun:
        """The run saved in ``path``; ModelFileError when it cannot be continued."""
        path = Path(path)
        torch = require_torch()
        saved = read_network(path, game)
        state = saved.state
        if not isinstance(state, dict) or "iteration" not in state:
            raise NetworkFileError(f"{path} is a model file, not a training checkpoint")
        check_saved_state(state, path)
        try:
            hyper = {k: v for k, v in state["hyper"].items()}
            params = checked_settings(AlphaZeroParams, "alphazero", hyper)
        except (TrainingError, KeyError, TypeError, AttributeError) as error:
            raise ModelFileError(f"{path}: the training settings cannot be read ({error})") from None
        if (params.blocks, params.channels) != (saved.network.shape.blocks, saved.network.shape.channels):
            raise ModelFileError(f"{path}: the network's size differs from its settings")
        network = saved.network
        optimizer = torch.optim.AdamW(
            network.module.parameters(), lr=params.lr, weight_decay=params.weight_decay
        )
        load_optimizer(optimizer, saved.optimizer, path)
        state["hyper"] = dataclasses.asdict(params)  # a setting added since the run began: its default
        run = cls(game, params, network, optimizer, state)
        run.folder = path.parent
        return run

    # --- the protocol ---------------------------------------------------------------------------

    @property
    def seed(self) -> int:
        return int(self.state["seed"])

    @property
    def progress(self) -> int:
        return int(self.state["iteration"])

    @property
    def curve(self) -> list[dict[str, Any]]:
        curve: list[dict[str, Any]] = self.state["curve"]
        return curve

    @property
    def finished(self) -> bool:
        return float(self.state["train_seconds"]) >= self.params.hours * 3600

    @property
    def finished_reason(self) -> str:
        """That the run has used its hours, and that a larger ``--hours`` trains on."""
        if not self.finished:
            return ""
        used = float(self.state["train_seconds"]) / 3600
        return (
            f"has used its --hours {self.params.hours:g} ({used:.3g} h trained): nothing more to "
            "train; pass a larger --hours to train on"
        )

    @property
    def title(self) -> str:
        return f"AlphaZero on {self.game.spec}"

    @property
    def curve_player(self) -> str:
        """The evaluation games' learner: the network's PUCT search of ``eval_sims`` simulations."""
        return f"search with {self.params.eval_sims} simulations"

    def attach(self, folder: Path | str) -> None:
        """Use ``folder`` for the replay shards and the model the workers read."""
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)

    def prepare(self) -> None:
        """Check the run's arena store, if it has one (a damaged one is found before any work),
        and find and judge the accuracy positions (Connect Four: solve their moves)."""
        if not self.prepared:
            if self.folder is not None and (self.folder / ARENA_FILE).exists():
                with run_store(self.folder / ARENA_FILE):
                    pass
            self.judged = judged_positions(self.game, self.params.eval_positions, self.seed)
            self.prepared = True

    def open_backend(self) -> None:
        """Connect the backend self-play runs on (a Ray cluster is asked at once, so that one that
        does not answer is a TrainingError before any work)."""
        if self._backend is None:
            try:
                self._backend = open_backend(self.params.backend, self.params.address or None)
            except BackendError as error:
                raise TrainingError(str(error)) from None

    def workers(self) -> WorkMap:
        if self._workers is None:
            self.open_backend()
            assert self._backend is not None
            self._workers = self._backend.workers(self.params.workers or self._backend.default_size())
        return self._workers

    def close(self) -> None:
        if self._workers is not None:
            self._workers.close()
            self._workers = None
        if self._backend is not None:
            self._backend.close()
            self._backend = None

    def step(self, limit: int) -> None:
        """One iteration: self-play, training, evaluation."""
        if self.folder is None:
            raise TrainingError("the run needs a folder: save it (or attach one) before a step")
        # one thread: measured several times faster than two on this 2-core machine under load
        require_torch().set_num_threads(1)
        start = time.perf_counter()
        iteration = self.progress
        save_network(self.folder / MODEL_FILE, self.network)
        played = self.self_play(iteration)
        self.prune_replay(iteration)  # after this iteration's shards are written
        t_play = time.perf_counter()
        losses = self.train_iteration(iteration, played["positions"])
        t_train = time.perf_counter()
        self.state["iteration"] = iteration + 1
        self.state["positions"] += played["positions"]
        self.state["games"] += played["games"]
        seconds = time.perf_counter() - start
        self.state["train_seconds"] += seconds
        record = {
            "epoch": iteration + 1,
            "hours": self.state["train_seconds"] / 3600,
            **losses,
            "selfplay_seconds": t_play - start,
            "train_step_seconds": t_train - t_play,
            "positions": played["positions"],
            "evaluations_per_second": played["evaluations"] / max(played["worker_seconds"], 1e-9),
        }
        self.state["history"].append(record)
        hours, due = self.state["train_seconds"] / 3600, self.games_due(iteration + 1)
        self.curve.extend(self.evaluation(iteration + 1))
        self.state["train_seconds"] += time.perf_counter() - start - seconds
        if not due and self.finished and self.plays_games:
            # the evaluation spent the last of the hours: this is the run's last iteration, which plays
            started = time.perf_counter()
            self.curve.extend(self.evaluation_games(iteration + 1, hours))
            self.state["train_seconds"] += time.perf_counter() - started

    def self_play(self, iteration: int) -> dict[str, Any]:
        """The self-play games of one iteration, chunked among the workers; their counts."""
        assert self.folder is not None
        p = self.params
        replay = self.folder / REPLAY_FOLDER
        replay.mkdir(parents=True, exist_ok=True)
        chunks = math.ceil(p.games / p.parallel)
        tasks = []
        for c in range(chunks):
            games = min(p.parallel, p.games - c * p.parallel)
            shard = replay / f"it{iteration:06d}-{c:04d}.npz"
            seed = (self.seed * 1_000_003 + iteration) * 65_537 + c
            tasks.append(
                SelfPlayTask(
                    self.game.spec,
                    str(self.folder / MODEL_FILE),
                    str(shard),
                    dataclasses.asdict(p),
                    seed,
                    games,
                )
            )
        results = self.workers().map(play_selfplay, tasks)
        return {
            "positions": sum(r["positions"] for r in results),
            "games": sum(r["games"] for r in results),
            "evaluations": sum(r["evaluations"] for r in results),
            "worker_seconds": sum(r["seconds"] for r in results),
        }

    def prune_replay(self, iteration: int) -> None:
        """Delete the shards that no window reads again: those of the iterations before
        ``iteration``'s window (``window`` cannot change on resume, and a run resumed at
        ``iteration`` or later reads none of them), so ``replay/`` holds at most ``window``
        iterations of shards."""
        assert self.folder is not None
        first_read = iteration - self.params.window + 1
        for path in (self.folder / REPLAY_FOLDER).glob("it*-*.npz"):
            number = path.name[2:].partition("-")[0]
            if number.isdigit() and int(number) < first_read:
                path.unlink(missing_ok=True)

    def window(self, iteration: int) -> dict[str, np.ndarray]:
        """The replay positions of iterations ``iteration - window + 1 .. iteration``."""
        assert self.folder is not None
        replay = self.folder / REPLAY_FOLDER
        parts = []
        first = max(0, iteration - self.params.window + 1)
        for it in range(first, iteration + 1):
            for path in sorted(replay.glob(f"it{it:06d}-*.npz")):
                parts.append(read_shard(path, self.game.kernel.num_actions))
        if not parts:
            raise TrainingError(f"no replay shards in {replay} for iteration {iteration}")
        return {k: np.concatenate([p[k] for p in parts]) for k in SHARD_KEYS}

    def train_iteration(self, iteration: int, new_positions: int) -> dict[str, float]:
        """Train on the replay window; the mean losses."""
        torch = require_torch()
        p, kernel = self.params, self.game.kernel
        data = self.window(iteration)
        obs_all = observe_batch(kernel, data["words"])
        n = len(data["value"])
        rng = np.random.default_rng([self.seed, iteration, 7])
        steps = max(1, math.ceil(p.reuse * new_positions / p.batch))
        module = self.network.module
        module.train()
        for group in self.optimizer.param_groups:  # a resumed run may have lowered it
            group["lr"] = p.lr
        totals = np.zeros(2)
        for _ in range(steps):
            rows = rng.integers(n, size=min(p.batch, n))
            syms = rng.integers(kernel.num_symmetries, size=len(rows))
            obs, (policy, legal) = augment(
                kernel, obs_all[rows], [data["policy"][rows], data["legal"][rows]], syms
            )
            x = torch.from_numpy(obs)
            target = torch.from_numpy(policy)
            mask = torch.from_numpy(legal)
            z = torch.from_numpy(data["value"][rows])
            weight = torch.from_numpy(data["full"][rows].astype(np.float32))
            logits, v = module(x)
            logp = torch.log_softmax(logits.masked_fill(~mask, -1e9), dim=1)
            per_row = -(target * logp.masked_fill(~mask, 0.0)).sum(dim=1)
            policy_loss = (per_row * weight).sum() / weight.sum().clamp(min=1.0)
            value_loss = ((v - z) ** 2).mean()
            loss = policy_loss + value_loss
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            totals += (policy_loss.item(), value_loss.item())
        module.eval()
        self.network.forget_compiled()
        return {
            "policy_loss": float(totals[0] / steps),
            "value_loss": float(totals[1] / steps),
            "steps": steps,
            "lr": p.lr,
        }

    def evaluation(self, at: int) -> list[dict[str, Any]]:
        """Curve records at iteration ``at``: solver accuracy (raw and with search) and, when
        :meth:`games_due`, the games against the fixed opponents and the learner's Elo."""
        p, kernel = self.params, self.game.kernel
        self.prepare()
        hours = self.state["train_seconds"] / 3600
        records: list[dict[str, Any]] = []
        if self.judged is not None:
            j = self.judged
            raw = raw_policy_actions(self.network, kernel, j.words, j.legal)
            rows = j.searched
            searched = search_policies(
                kernel, j.words[rows], self.network.evaluator(kernel), p.eval_sims, self.seed + at
            )
            raw_accuracy, raw_judged = j.accuracy(raw)
            search_accuracy, search_judged = j.accuracy(searched, rows)
            records.append(
                {
                    "epoch": at,
                    "episode": at,
                    "opponent": "solver",
                    "hours": hours,
                    "positions": len(j),
                    "raw_accuracy": raw_accuracy,
                    "raw_judged": raw_judged,
                    "search_accuracy": search_accuracy,
                    "search_judged": search_judged,
                }
            )
        if self.plays_games and self.games_due(at):
            records.extend(self.evaluation_games(at, hours))
        return records

    @property
    def plays_games(self) -> bool:
        """Whether evaluations play games: games per opponent, opponents and a folder for the store."""
        return self.params.versus_games > 0 and bool(self.opponents) and self.folder is not None

    def games_due(self, at: int) -> bool:
        """Whether the evaluation of iteration ``at`` plays games: every ``elo_every``
        iterations, and at the last one of a run whose hours are spent (the last one of a run
        that reaches its ``--epochs`` plays them at the end: :meth:`end_records`)."""
        return at % self.params.elo_every == 0 or self.finished

    def end_records(self) -> list[dict[str, Any]]:
        """The evaluation games of the last iteration, when its own evaluation did not play them
        (the run reached the command's ``--epochs`` between two ``elo_every``): so that the run's
        last Elo, snapshot and final lines are those of the model it saves. Nothing when the
        curve holds them (a resumed run at its end plays no iteration twice)."""
        at = self.progress
        if not self.plays_games or any(r["epoch"] == at and "score" in r for r in self.curve):
            return []
        require_torch().set_num_threads(1)
        started = time.perf_counter()
        records = self.evaluation_games(at, self.iteration_hours(at))
        self.state["train_seconds"] += time.perf_counter() - started  # as the iteration's own evaluation
        return records

    def iteration_hours(self, at: int) -> float:
        """The hours trained when iteration ``at`` ended (its evaluation records say them)."""
        ends = [h["hours"] for h in self.state["history"] if h["epoch"] == at]
        return float(ends[-1]) if ends else self.state["train_seconds"] / 3600

    def learner_specs(self, model: str) -> tuple[str, str]:
        """The learner's spec for the model ``model`` (relative to the run's folder), as the
        store writes it and as a worker plays it (the model's full path)."""
        assert self.folder is not None
        sims = self.params.eval_sims
        full = str((self.folder / model).resolve())
        # the network and its search alone: no alpha-beta proofs (see the agent's ``proof``)
        return (
            model_spec("alphazero", model, sims) + ",proof=0",
            model_spec("alphazero", full, sims) + ",proof=0",
        )

    def evaluation_games(self, at: int, hours: float) -> list[dict[str, Any]]:
        """The games of iteration ``at`` against the fixed opponents, stored in the run's arena
        store (the network kept as the snapshot the learner's spec names); their tallies and the
        learner's Elo over every stored game, as curve records."""
        assert self.folder is not None
        snapshot = f"{SNAPSHOT_FOLDER}/it{at:06d}.safetensors"
        save_network(self.folder / snapshot, self.network)
        stored, played = self.learner_specs(snapshot)
        config = evaluation_config(
            self.game.spec,
            stored,
            self.opponents,
            self.params.versus_games,
            derive_seed(self.seed, "alphazero evaluation", at),
            f"alphazero iteration {at}",
        )
        with run_store(self.folder / ARENA_FILE) as store:
            games = play_into_store(self.workers(), store, config, {stored: played}, play_alphazero_game)
            ratings = elo_ratings(store, self.game.spec, self.opponents[0], [stored, *self.opponents])
        at_fields = {"epoch": at, "episode": at, "hours": hours}
        records: list[dict[str, Any]] = []
        for opponent, counts in learner_tallies(games, self.opponents).items():
            score = (counts["wins"] + 0.5 * counts["draws"]) / max(counts["games"], 1)
            records.append({**at_fields, "opponent": opponent, **counts, "score": score})
        elo = elo_record(ratings, stored, self.opponents, at_fields)
        return records + ([elo] if elo is not None else [])

    def evaluate(self, opponents: Sequence[str], games: int) -> list[dict[str, Any]]:
        """The curve point of the current iteration (every iteration evaluates itself; this
        gives the starting point of a fresh run). ``opponents`` become the fixed opponents;
        the games per opponent are the run's ``versus_games``."""
        require_torch().set_num_threads(1)
        if opponents:
            self.opponents = list(opponents)
            self.state["opponents"] = self.opponents
        if any(r["epoch"] == self.progress for r in self.curve):
            return []
        return self.evaluation(self.progress)

    def save(self, path: Path) -> Path:
        """The checkpoint (weights, optimiser, state) and the plain model beside it, atomically."""
        path = Path(path)
        if self.folder is None:
            self.attach(path.parent)
        self.network.shape = dataclasses.replace(self.network.shape, also=self.params.also_specs)
        self.state["hyper"] = dataclasses.asdict(self.params)  # free settings a resume changed
        save_network(path, self.network, optimizer_tensors(self.optimizer), self.state)
        save_network(path.parent / MODEL_FILE, self.network)
        return path

    def final_games(self, opponents: Sequence[str], games: int) -> list[GameResult]:
        """:func:`final_game_count` games with search against each opponent, played by the
        ``alphazero`` agent on the saved model like the evaluation games, but not stored."""
        count = final_game_count(games, self.params.versus_games)
        if self.folder is None or not opponents or count <= 0:
            return []
        stored, played = self.learner_specs(MODEL_FILE)
        seed = derive_seed(self.seed, "alphazero final games")
        config = evaluation_config(self.game.spec, stored, opponents, count, seed, "alphazero final games")
        tasks = build_schedule(config)
        records = play_games_of(self.workers(), tasks, {stored: played}, play_alphazero_game)
        return [game_result(r) for r in records]

    def summary(self) -> dict[str, Any]:
        last = {r["opponent"]: r for r in self.curve if r["epoch"] == self.progress}
        return {
            "method": "alphazero",
            "game": self.game.spec,
            "hyper": self.state["hyper"],
            "seed": self.seed,
            "iterations": self.progress,
            "train_seconds": round(float(self.state["train_seconds"]), 2),
            "positions": self.state["positions"],
            "games": self.state["games"],
            "network": self.network.shape.to_json(),
            "last_evaluation": last,
            "history": self.state["history"][-1:] if self.state["history"] else [],
        }

    def report_lines(self) -> list[str]:
        lines = []
        solver = [r for r in self.curve if r["opponent"] == "solver" and r["search_accuracy"] is not None]
        if solver and solver[-1]["raw_accuracy"] is not None:
            r = solver[-1]
            source = self.judged.source if self.judged else "judged positions"
            sims = self.params.eval_sims
            lines.append(
                f"Moves keeping the perfect-play value: raw policy {r['raw_accuracy']:.1%}, with {sims} "
                f"simulations {r['search_accuracy']:.1%}; judged on {r['positions']:,} positions: {source}."
            )
        elo = [r for r in self.curve if r["opponent"] == "elo"]
        if elo:
            r = elo[-1]
            others = ", ".join(f"{o} {v[0]:+.0f}" for o, v in r["opponents_elo"].items() if o != r["anchor"])
            where = f" in {self.folder / ARENA_FILE}" if self.folder is not None else ""
            lines.append(
                f"Elo of iteration {r['epoch']}: {r['elo']:+.0f} [{r['elo_low']:+.0f}, {r['elo_high']:+.0f}] "
                f"({r['anchor']} 0{', ' + others if others else ''}), over the evaluation games{where}."
            )
        return lines

    def clock_share(self) -> float:
        return min(1.0, float(self.state["train_seconds"]) / max(self.params.hours * 3600, 1e-9))

    def status(self) -> str:
        parts = [f"{self.state['train_seconds'] / 3600:.2f}/{self.params.hours:g} h"]
        if self.state["history"]:
            h = self.state["history"][-1]
            parts.append(f"loss p={h['policy_loss']:.3f} v={h['value_loss']:.3f}")
        last = [r for r in self.curve if r["epoch"] == self.progress]
        for r in last:
            if r.get("raw_accuracy") is not None and r.get("search_accuracy") is not None:
                parts.append(f"acc {r['raw_accuracy']:.0%}/{r['search_accuracy']:.0%}")
            elif "score" in r:
                parts.append(f"{r['opponent']} {r['score']:.2f}")
            elif r["opponent"] == "elo":
                parts.append(f"Elo {r['elo']:+.0f}")
        return "  ".join(parts)

    def plots(self, out: Path) -> list[Path]:
        return plot_training(self.state, out, self.title)


# --- optimiser state as tensors -----------------------------------------------------------------


def optimizer_tensors(optimizer: Any) -> dict[str, Any]:
    """AdamW's per-parameter moments and step counts as named tensors (for safetensors)."""
    tensors = {}
    for index, entry in optimizer.state_dict()["state"].items():
        for name, value in entry.items():
            tensors[f"{index}.{name}"] = value.detach().clone().reshape(value.shape)
    return tensors


def load_optimizer(optimizer: Any, tensors: dict[str, Any], where: Path) -> None:
    """Restore what :func:`optimizer_tensors` wrote; ModelFileError when it does not fit."""
    fresh = optimizer.state_dict()
    state: dict[int, dict[str, Any]] = {}
    for key, value in tensors.items():
        number, _, name = key.partition(".")
        if not number.isdigit() or name not in ("step", "exp_avg", "exp_avg_sq"):
            raise ModelFileError(f"{where}: unknown optimiser tensor {key!r}")
        state.setdefault(int(number), {})[name] = value
    params = fresh["param_groups"][0]["params"]
    for index, entry in state.items():
        if index not in params or set(entry) != {"step", "exp_avg", "exp_avg_sq"}:
            raise ModelFileError(f"{where}: the optimiser state does not fit the network")
    try:
        optimizer.load_state_dict({"state": state, "param_groups": fresh["param_groups"]})
    except (ValueError, RuntimeError, KeyError) as error:
        raise ModelFileError(f"{where}: the optimiser state does not fit the network ({error})") from None


# --- plots --------------------------------------------------------------------------------------


def _axes() -> tuple[Any, Any]:
    """A figure on the Agg canvas (no pyplot: the caller's matplotlib backend is left alone)
    and its axes."""
    figure = agg_figure(7, 4)
    return figure, figure.subplots()


def plot_training(state: dict[str, Any], out: Path, title: str) -> list[Path]:
    """Losses, solver accuracy, Elo and scores against the hours trained, as PNG files."""
    out = Path(out)
    history, curve = state["history"], state["curve"]
    paths = []
    fig, ax = _axes()
    hours = [h["hours"] for h in history]
    ax.plot(hours, [h["policy_loss"] for h in history], label="policy (cross-entropy)")
    ax.plot(hours, [h["value_loss"] for h in history], label="value (squared error)")
    ax.set(xlabel="hours of training", ylabel="loss", title=f"{title}: losses")
    ax.legend()
    ax.grid(alpha=0.3)
    paths.append(atomic_savefig(fit_titles(fig), out / "alphazero_losses.png", dpi=110))
    solver = [
        r
        for r in curve
        if r["opponent"] == "solver" and None not in (r["raw_accuracy"], r["search_accuracy"])
    ]
    if solver:
        fig, ax = _axes()
        hs = [r["hours"] for r in solver]
        ax.plot(hs, [r["raw_accuracy"] for r in solver], marker=".", label="raw policy")
        ax.plot(hs, [r["search_accuracy"] for r in solver], marker=".", label="with search")
        ax.set(
            xlabel="hours of training",
            ylabel="moves keeping the value",
            ylim=(0, 1.02),
            title=f"{title}: solver accuracy",
        )
        ax.legend()
        ax.grid(alpha=0.3)
        paths.append(atomic_savefig(fit_titles(fig), out / "alphazero_accuracy.png", dpi=110))
    elo = [r for r in curve if r["opponent"] == "elo"]
    if elo:
        paths.append(plot_elo(elo, out / "alphazero_elo.png", title))
    games = [r for r in curve if "score" in r]
    if games:
        fig, ax = _axes()
        for opponent in dict.fromkeys(r["opponent"] for r in games):
            rs = [r for r in games if r["opponent"] == opponent]
            ax.plot([r["hours"] for r in rs], [r["score"] for r in rs], marker=".", label=f"vs {opponent}")
        ax.set(
            xlabel="hours of training",
            ylabel="score (win 1, draw 1/2)",
            ylim=(-0.02, 1.02),
            title=f"{title}: score",
        )
        ax.legend()
        ax.grid(alpha=0.3)
        paths.append(atomic_savefig(fit_titles(fig), out / "alphazero_score.png", dpi=110))
    return paths


def plot_elo(elo: Sequence[dict[str, Any]], path: Path, title: str) -> Path:
    """Each evaluated iteration's Elo (as rated when it was played) with its interval against
    the hours trained; the opponents as horizontal lines (their last rating, with its band)."""
    fig, ax = _axes()
    hours = np.array([r["hours"] for r in elo])
    ratings = np.array([r["elo"] for r in elo])
    errors = np.array([ratings - [r["elo_low"] for r in elo], [r["elo_high"] for r in elo] - ratings])
    ax.errorbar(hours, ratings, yerr=errors, fmt=".-", capsize=2, lw=1, label="learner (95 % interval)")
    last = elo[-1]
    lines = last["opponents_elo"].items()
    colours = itertools.cycle(["#7f7f7f", "#d62728", "#2ca02c", "#9467bd", "#8c564b"])
    for colour, (opponent, (value, low, high)) in zip(colours, lines, strict=False):
        anchor = " (anchor)" if opponent == last["anchor"] else f" {value:+.0f}"
        ax.axhline(value, color=colour, ls="--", lw=1, label=f"{opponent}{anchor}")
        if high > low:
            ax.axhspan(low, high, color=colour, alpha=0.1, lw=0)
    ax.set(
        xlabel="hours of training",
        ylabel=f"Elo ({last['anchor']} = 0)",
        title=f"{title}: Elo ({len(elo)} evaluations)",
    )
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    saved = atomic_savefig(fit_titles(fig), path, dpi=110)
    return saved


# --- the method ---------------------------------------------------------------------------------


def _start(game: Game, params: Any, seed: int) -> AlphaZeroRun:
    try:
        return AlphaZeroRun.start(game, params, seed)
    except TorchMissingError as error:
        raise TrainingError(str(error)) from None


STATE_FIELDS = {
    "seed": "int",
    "iteration": "int",
    "train_seconds": "number",
    "positions": "int",
    "games": "int",
    "history": "list",
    "curve": "list",
}
"""The fields of a checkpoint's state a resumed run reads, and their kinds."""
HISTORY_FIELDS = {"epoch": "int", "hours": "number", "policy_loss": "number", "value_loss": "number"}
CURVE_FIELDS: dict[str, dict[str, str]] = {
    "": {"opponent": "str", "hours": "number"},  # every record
    "solver": {"raw_accuracy": "number?", "search_accuracy": "number?"},
    "elo": {
        "elo": "number",
        "elo_low": "number",
        "elo_high": "number",
        "opponents_elo": "dict",
        "anchor": "str",
    },
    "score": {"score": "number"},  # a record of games
}
"""What the plots and the progress bar read in the learning curve's records, by kind."""


def check_saved_state(state: dict[str, Any], path: Path) -> None:
    """ModelFileError unless a checkpoint's state holds its counters, history and curve records
    with the fields the run, its plots and its summary read (checked before any work)."""
    check_state(state, path, STATE_FIELDS, {"opponents": "list"})
    for name in ("iteration", "positions", "games"):
        if state[name] < 0:
            raise ModelFileError(f"checkpoint {path}: {name!r} must be at least 0")
    check_history(state["history"], path, HISTORY_FIELDS)
    curve = state["curve"]
    check_history(curve, path, CURVE_FIELDS[""], what="learning-curve record")
    for kind in ("solver", "elo"):
        check_history(
            [r for r in curve if r["opponent"] == kind], path, CURVE_FIELDS[kind], what=f"{kind} record"
        )
    check_history([r for r in curve if "score" in r], path, CURVE_FIELDS["score"], what="games record")


def _resume(path: Path, game: Game) -> AlphaZeroRun:
    try:
        return AlphaZeroRun.resume(path, game)
    except TorchMissingError as error:
        raise ModelFileError(str(error)) from None


def saved_game(path: Path) -> str:
    """The game of the run saved in the checkpoint ``path`` (its metadata alone is read)."""
    return str(read_header(path)[1]["game"])


KINDS = {
    "alphazero": Method(
        "alphazero",
        AlphaZeroParams,
        start=_start,
        resume=_resume,
        unit="epochs",
        default_total=1_000_000,
        default_game="tictactoe",
        checkpoint_file=CHECKPOINT_FILE,
        model_file=MODEL_FILE,
        default_against=default_opponents,
        free=FREE,
        follows=FOLLOWS,
        error=TrainingError,
        check=lambda game, params: check_same_board(game, params.also_specs),
        not_applied=(
            ("eval_every", "each iteration evaluates itself; its games come every --elo-every iterations"),
            ("eval_games", "its evaluation games are --versus-games against each opponent"),
        ),
        saved_game=saved_game,
    )
}
"""``boardlab train alphazero``."""


__all__ = [
    "CHECKPOINT_FILE",
    "KINDS",
    "MODEL_FILE",
    "AlphaZeroParams",
    "AlphaZeroRun",
    "JudgedPositions",
    "SelfPlayTask",
    "augment",
    "default_opponents",
    "exhaustive_check",
    "final_game_count",
    "judged_positions",
    "play_alphazero_game",
    "play_selfplay",
    "plot_elo",
    "raw_policy_actions",
    "read_shard",
    "search_policies",
    "selfplay_games",
    "write_shard",
]
