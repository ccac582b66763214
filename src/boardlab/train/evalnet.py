"""``boardlab train evalnet``: a value network for alpha-beta's leaves, learned from games.

The run has two phases, both resumable:

1. **Data.** Games between the current best agents at short time controls (``players``, a
   ``;``-separated list of specs; each game a random pair of them, after a random opening of
   2 to ``opening`` plies) are played on every core by the worker pool, ``shard_games`` games
   to a shard; each shard is an ``.npz`` file written atomically into the data folder (``data``,
   by default ``data/`` beside the checkpoint), so that a stopped run plays only the shards it
   lacks. A shard's seed derives from the run's and the shard's index: it fixes the pairs,
   the openings and the players' random choices, so players limited by depth play the same
   shard anywhere, while players limited by time (the default ones) search as deep as the
   machine's speed allows. A shard names its game (:data:`GAME_ARRAY`): shards of another game
   are refused before any work (:func:`check_data`). Every position keeps its game's result for the side
   to move (1 won, 0.5 drawn, 0 lost) and the score the mover's search gave it (its
   alpha-beta root score, a deeper look than a leaf's; NaN where a table or MCTS chose the
   move).
2. **Training.** A tenth of the games are held out. The others' positions are seen under the
   board's 8 symmetries; the network (:mod:`boardlab.models.evalnet`) is trained in PyTorch
   with Adam on the log-loss against ``(1 - distill) * result + distill * sigmoid(score /
   scale)`` (distillation of the search's score; a proven win or loss counts as 1 or 0; with
   ``labels=tables`` the score is the position's perfect-play value from the solved tables,
   the deepest search there is, where they reach). Each
   epoch reports the held-out log-loss against the games' results beside that of the game's
   default evaluation (Quixo's ``tuned``, whose values are logits times the same scale).

The checkpoint (``checkpoint.npz``: settings, curve, weights and Adam's moments) is written
after every epoch and the network (``evalnet.safetensors``) with it, both atomically;
``alphabeta:eval=net:OUT/evalnet.safetensors`` plays it. PyTorch is imported only here, when
a run starts.
"""

from __future__ import annotations

import importlib.util
import io
import json
import math
import random
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from boardlab.agents.base import AgentSpecError, check_whole_game, make_agent
from boardlab.core.files import atomic_write_bytes, output_problem, path_problem
from boardlab.core.inputs import InputFileError, load_npz, npz_headers, short_reason
from boardlab.games import exact_play, parse_game
from boardlab.games.base import DRAW, LOSS, WIN
from boardlab.games.exact import ExactPlay, ExactPlayError
from boardlab.models.evalnet import (
    EvalNet,
    EvalNetError,
    base_logits,
    check_words_are_planes,
    kernel_cells,
    word_features,
)
from boardlab.models.table import ModelFileError
from boardlab.play.pool import Workers
from boardlab.play.session import Session
from boardlab.search.alphabeta import MATE_ZONE
from boardlab.train.run import (
    GameResult,
    Method,
    RunDefaults,
    TrainingError,
    check_same_board,
    check_state,
    checked_settings,
    random_open_position,
)
from boardlab.train.settings import EvalNetSettings

CHECKPOINT_FILE = "checkpoint.npz"
MODEL_FILE = "evalnet.safetensors"
CHECKPOINT_FORMAT = "boardlab-evalnet-run"
LOSS_PLOT = "evalnet_losses.png"
DEFAULT_AGAINST = ("alphabeta:depth=2,eval=tuned",)
ANNEAL_FLOOR = 100.0  # the annealed learning rate ends at lr / ANNEAL_FLOOR
HELD_OUT_EVERY = 10  # one game in ten is held out
POSITION_ARRAYS = ("me", "opp", "result", "score", "game")
GAME_ARRAY = "game_spec"
"""The array of a shard that names the game its positions are of (shards written before it
existed are checked by their positions' cells instead)."""
FINAL_DEPTH = 2  # the network's alpha-beta depth in the final games
MAX_SHARD_BYTES = 1 << 30
MAX_CHECKPOINT_BYTES = 1 << 30
EXACT_SCORE = {WIN: float(MATE_ZONE), DRAW: 0.0, LOSS: -float(MATE_ZONE)}
"""A perfect-play value as a search score (see :func:`targets`: a proven win or loss counts 1 or 0)."""


class EvalNetTrainingError(TrainingError):
    """Bad input for ``boardlab train evalnet``."""


# --- data ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ShardTask:
    """One data shard to play in a worker: its game, players and seed."""

    game: str
    players: tuple[str, ...]
    first_game: int
    games: int
    opening: int
    ply_cap: int
    seed: int


def play_shard(task: ShardTask) -> dict[str, np.ndarray]:
    """The positions of a shard's games (arrays of :data:`POSITION_ARRAYS`)."""
    game = parse_game(task.game)
    rng = random.Random(task.seed)
    agents = [make_agent(spec, seed=task.seed * 31 + i, game=game) for i, spec in enumerate(task.players)]
    for agent in agents:
        agent.prepare(game)
    rows: list[tuple[int, int, float, float, int]] = []
    for number in range(task.first_game, task.first_game + task.games):
        pair = [rng.choice(agents), rng.choice(agents)]
        rows.extend((*row, number) for row in _one_game(game, pair, rng, task.opening, task.ply_cap))
    columns: list[tuple[Any, ...]] = list(zip(*rows, strict=True)) if rows else [()] * 5
    return {
        "me": np.array(columns[0], dtype=np.int64),
        "opp": np.array(columns[1], dtype=np.int64),
        "result": np.array(columns[2], dtype=np.float32),
        "score": np.array(columns[3], dtype=np.float32),
        "game": np.array(columns[4], dtype=np.int64),
    }


def _one_game(
    game: Any, pair: list[Any], rng: random.Random, opening: int, ply_cap: int
) -> list[tuple[int, int, float, float]]:
    state = random_open_position(game.initial(), rng.randrange(2, opening + 1), rng)
    for agent in pair:
        agent.new_game()
    seen: list[tuple[int, int, int, float]] = []
    while not state.is_over and len(seen) < ply_cap:
        me, opp = state.words
        decision = pair[len(seen) % 2].act(state)
        info = decision.info
        score = (
            float(info.score)
            if info is not None and info.engine == "alphabeta" and info.score is not None
            else math.nan
        )
        seen.append((int(me), int(opp), state.ply % 2, score))
        state = state.play(decision.move)
    winner = state.winner if state.is_over else None
    return [
        (me, opp, 0.5 if winner is None else float(winner == colour), score)
        for me, opp, colour, score in seen
    ]


def shard_path(folder: Path, index: int) -> Path:
    """Where shard ``index`` is stored."""
    return folder / f"shard-{index:05d}.npz"


def write_shard(path: Path, arrays: dict[str, np.ndarray], game: str) -> None:
    """Write a shard of the game ``game`` (a spec) atomically (numpy npz, no pickle)."""
    buffer = io.BytesIO()
    named: dict[str, Any] = {
        **arrays,
        GAME_ARRAY: np.array(game),
    }  # Any: for mypy, ndarray values might fill savez's allow_pickle
    np.savez_compressed(buffer, **named)
    atomic_write_bytes(path, buffer.getvalue())


def foreign_shard(path: Path, arrays: dict[str, np.ndarray], game: Any) -> str | None:
    """Why the shard at ``path`` (its ``arrays``: :data:`GAME_ARRAY`, or ``me`` and ``opp`` for
    a shard that does not name its game) is not data of ``game``, or None."""
    again = "name another --data folder, or delete it to play it again"
    if GAME_ARRAY in arrays:
        spec = arrays[GAME_ARRAY]
        named = str(spec)[:60] if spec.dtype.kind == "U" and spec.shape == () else "an unreadable game"
        if named == game.spec:
            return None
        return f"data shard {path} holds games of {named}, not {game.spec}; {again}"
    cells = kernel_cells(game.kernel)
    me, opp = arrays["me"], arrays["opp"]
    if me.dtype.kind != "i" or opp.dtype.kind != "i" or me.ndim != 1 or opp.ndim != 1:
        return f"data shard {path}: its positions are not arrays of board words; {again}"
    if np.any(me < 0) or np.any(opp < 0) or np.any((me | opp) >> cells) or np.any(me & opp):
        return f"data shard {path} holds positions that are not on the board of {game.spec}; {again}"
    return None


def data_problem(folder: Path, count: int, game: Any) -> str | None:
    """Why the shards 0..count-1 already in ``folder`` cannot be data of ``game`` (damaged, or
    of another game), or None: checked before any work, reading only the game each names."""
    for index in range(count):
        path = shard_path(folder, index)
        if not path.exists():
            continue
        try:
            names = npz_headers(path, "data shard", MAX_SHARD_BYTES)
            wanted = (GAME_ARRAY,) if GAME_ARRAY in names else ("me", "opp")
            problem = foreign_shard(path, load_npz(path, "data shard", MAX_SHARD_BYTES, wanted), game)
        except InputFileError as error:
            return f"{error}; delete it to play it again"
        if problem is not None:
            return problem
    return None


def read_shards(folder: Path, count: int, game: Any) -> dict[str, np.ndarray]:
    """The positions of shards 0..count-1, joined; ModelFileError naming a damaged shard or one
    of another game than ``game``."""
    parts: dict[str, list[np.ndarray]] = {name: [] for name in POSITION_ARRAYS}
    for index in range(count):
        path = shard_path(folder, index)
        try:
            arrays = load_npz(path, "data shard", MAX_SHARD_BYTES)
            missing = [name for name in POSITION_ARRAYS if name not in arrays]
            if missing:
                raise InputFileError(f"data shard {path} has no array {missing[0]!r}")
        except InputFileError as error:
            raise ModelFileError(f"{error}; delete it to play it again") from None
        if len({len(arrays[name]) for name in POSITION_ARRAYS}) != 1:
            raise ModelFileError(f"{path}: its arrays differ in length; delete it to play it again")
        problem = foreign_shard(path, arrays, game)
        if problem is not None:
            raise ModelFileError(problem)
        for name in POSITION_ARRAYS:
            parts[name].append(arrays[name])
    return {name: np.concatenate(parts[name]) for name in POSITION_ARRAYS}


# --- targets, symmetries, losses ---------------------------------------------------------------------


def targets(result: np.ndarray, score: np.ndarray, distill: float, scale: float) -> np.ndarray:
    """Training targets: the result, mixed with the search score's win probability where known."""
    probability = 1.0 / (1.0 + np.exp(-np.clip(np.nan_to_num(score) / scale, -60, 60)))
    probability = np.where(score >= MATE_ZONE, 1.0, np.where(score <= -MATE_ZONE, 0.0, probability))
    mixed = (1.0 - distill) * result + distill * probability
    return np.where(np.isnan(score), result, mixed).astype(np.float32)


def exact_scores(game: Any, me: np.ndarray, opp: np.ndarray) -> np.ndarray:
    """Each position's perfect-play value for the mover as a search score (a proven win or
    loss, or 0 for a draw), read from the game's solved tables; NaN where they do not reach.
    EvalNetTrainingError when the game has no tables here."""
    tables = solved_tables(game)
    known: dict[tuple[int, int], float] = {}
    out = np.empty(len(me), dtype=np.float32)
    for index, key in enumerate(zip(me.tolist(), opp.tolist(), strict=True)):
        if key not in known:
            state = game.state(key[0], key[1], 0, 0)
            known[key] = EXACT_SCORE[tables.position_value(state).value] if tables.covers(state) else math.nan
        out[index] = known[key]
    return out


def solved_tables(game: Any) -> ExactPlay:
    """The tables solved ahead for ``game`` on this machine; EvalNetTrainingError if none."""
    try:
        return exact_play(game, accept=lambda provider: provider.lookup)
    except ExactPlayError as error:
        raise EvalNetTrainingError(f"labels=tables needs solved tables of {game.spec}: {error}") from None


def symmetric_words(kernel: Any, words: np.ndarray, sym: int) -> np.ndarray:
    """The words' image under symmetry ``sym`` (cell ``d`` of the image is cell
    ``kernel.cell_maps[sym, d]`` of the word), for words that are cell masks."""
    source = np.asarray(kernel.cell_maps)[sym]
    out = np.zeros_like(words)
    for cell, origin in enumerate(source):
        out |= ((words >> int(origin)) & 1) << cell
    return out


def augmented(kernel: Any, me: np.ndarray, opp: np.ndarray, *rest: np.ndarray) -> tuple[np.ndarray, ...]:
    """The positions under each of the kernel's symmetries (the other arrays repeated)."""
    syms = range(np.asarray(kernel.cell_maps).shape[0])
    out_me = np.concatenate([symmetric_words(kernel, me, s) for s in syms])
    out_opp = np.concatenate([symmetric_words(kernel, opp, s) for s in syms])
    return (out_me, out_opp, *(np.tile(a, len(syms)) for a in rest))


def annealed_lr(params: EvalNetSettings, epochs_done: float) -> float:
    """The learning rate after ``epochs_done`` epochs (fractional): ``lr`` falling on a half
    cosine to ``lr / 100`` over ``anneal`` epochs, then constant; ``lr`` when ``anneal`` is 0."""
    if params.anneal == 0:
        return params.lr
    floor = params.lr / ANNEAL_FLOOR
    done = min(epochs_done / params.anneal, 1.0)
    return floor + (params.lr - floor) * 0.5 * (1.0 + math.cos(math.pi * done))


def log_loss(logits: np.ndarray, target: np.ndarray) -> float:
    """Mean log-loss of logits against targets in [0, 1]."""
    z = np.asarray(logits, dtype=np.float64)
    return float(np.mean(np.logaddexp(0.0, z) - target * z))


def evaluation_logits(kernel: Any, me: np.ndarray, opp: np.ndarray, scale: float) -> np.ndarray:
    """The game's default evaluation of each position, over ``scale`` (Quixo's ``tuned``: its logit)."""
    return base_logits(kernel, 0, me, opp, scale)


# --- PyTorch --------------------------------------------------------------------------------------------


TORCH_MISSING = "train evalnet needs PyTorch: pip install 'boardlab[torch]'"


def check_torch() -> None:
    """EvalNetTrainingError naming the torch extra when PyTorch is not installed (found, not imported)."""
    if importlib.util.find_spec("torch") is None:
        raise EvalNetTrainingError(TORCH_MISSING)


def _torch() -> Any:
    try:
        import torch
    except ImportError:
        raise EvalNetTrainingError(TORCH_MISSING) from None
    return torch


def torch_model(inputs: int, hidden1: int, hidden2: int, seed: int) -> Any:
    """The network as a PyTorch module (linear, clamp(0, 1), linear, clamp, linear)."""
    torch = _torch()

    class Net(torch.nn.Module):  # type: ignore[misc,name-defined]
        def __init__(self) -> None:
            super().__init__()
            self.l1 = torch.nn.Linear(inputs, hidden1)
            self.l2 = torch.nn.Linear(hidden1, hidden2)
            self.l3 = torch.nn.Linear(hidden2, 1)

        def forward(self, x: Any) -> Any:
            h1 = torch.clamp(self.l1(x), 0.0, 1.0)
            h2 = torch.clamp(self.l2(h1), 0.0, 1.0)
            return self.l3(h2).squeeze(-1)

    torch.manual_seed(seed)
    return Net()


def model_tensors(model: Any) -> dict[str, np.ndarray]:
    """The module's weights in the file's layout (inputs x outputs)."""
    get = {name: p.detach().cpu().numpy().astype(np.float32) for name, p in model.named_parameters()}
    return {
        "w1": get["l1.weight"].T.copy(),
        "b1": get["l1.bias"],
        "w2": get["l2.weight"].T.copy(),
        "b2": get["l2.bias"],
        "w3": get["l3.weight"][0].copy(),
        "b3": get["l3.bias"],
    }


def load_model_tensors(model: Any, tensors: dict[str, np.ndarray]) -> None:
    """Set the module's weights from the file's layout."""
    torch = _torch()
    values = {
        "l1.weight": tensors["w1"].T,
        "l1.bias": tensors["b1"],
        "l2.weight": tensors["w2"].T,
        "l2.bias": tensors["b2"],
        "l3.weight": tensors["w3"][None, :],
        "l3.bias": tensors["b3"],
    }
    with torch.no_grad():
        for name, p in model.named_parameters():
            p.copy_(torch.from_numpy(np.ascontiguousarray(values[name], dtype=np.float32)))


# --- the run --------------------------------------------------------------------------------------------


def check_game(game: Any) -> Any:
    """``game`` if its state words are cell planes (Quixo, Tic-Tac-Toe); EvalNetTrainingError otherwise."""
    try:
        check_words_are_planes(game.kernel)
    except EvalNetError as error:
        raise EvalNetTrainingError(f"evalnet cannot train on {game.spec}: {error}") from None
    return game


def check_settings(game: Any, params: EvalNetSettings) -> None:
    """TrainingError unless every player of the data games plays ``game`` and the ``also``
    games are of its board, and PyTorch is installed (the command's check, before any work)."""
    check_torch()
    check_same_board(game, params.also_specs)
    if params.data:
        problem = path_problem(Path(params.data), folder=True)
        if problem is not None:
            raise EvalNetTrainingError(f"--data {params.data[:80]}: {problem}")
    source = (
        "players" if params.players else f"the default players (name others with --players) on {game.spec}"
    )
    for spec in params.player_specs:
        try:
            make_agent(spec, seed=0, game=game)
            check_whole_game(spec, game)  # each plays whole data games
        except AgentSpecError as error:
            raise EvalNetTrainingError(f"{source}: {error}") from None


def check_data(run: EvalNetRun, out: Path) -> None:
    """EvalNetTrainingError unless the data folder of ``run`` (fresh or resumed) in ``out`` is a
    folder it can write and the shards already there are of its game: before any work."""
    folder = Path(run.params.data) if run.params.data else out / "data"
    where = f"--data {str(folder)[:80]}" if run.params.data else f"the data folder {folder}"
    problem = path_problem(folder, folder=True)
    if problem is None and folder.is_dir():
        problem = data_problem(folder, run.params.shards, run.game)
        if problem is not None:
            raise EvalNetTrainingError(problem)
    problem = problem or output_problem(folder, folder=True)
    if problem is not None:
        raise EvalNetTrainingError(f"{where}: {problem}")


@dataclass
class EvalNetRun(RunDefaults):
    """A run of ``boardlab train evalnet`` (see the module docstring)."""

    game: Any
    params: EvalNetSettings
    seed: int
    curve: list[dict[str, Any]] = field(default_factory=list)
    epoch: int = 0
    train_seconds: float = 0.0
    folder: Path | None = None
    weights: dict[str, np.ndarray] | None = None
    moments: dict[str, np.ndarray] | None = None
    adam_steps: int = 0
    _data: dict[str, np.ndarray] | None = field(default=None, repr=False)
    _workers: Workers | None = field(default=None, repr=False)
    _status: str = ""
    _last_train_loss: float | None = None

    curve_key: ClassVar[str] = "epoch"
    curve_unit: ClassVar[str] = "epochs"
    checkpoint_seconds: ClassVar[float] = 0.0

    @classmethod
    def start(cls, game: Any, params: EvalNetSettings, seed: int) -> EvalNetRun:
        """A fresh run; EvalNetTrainingError if the game has no evaluation ``base``."""
        check_game(game)
        if params.base and params.base not in game.kernel.evaluations:
            raise EvalNetTrainingError(
                f"base={params.base!r} is not an evaluation of {game.spec}; choose one of "
                f"{', '.join(game.kernel.evaluations)}"
            )
        if params.labels == "tables":
            solved_tables(game)
        return cls(game, params, seed)

    # progress ---------------------------------------------------------------------------------------

    @property
    def progress(self) -> int:
        return self.epoch

    @property
    def title(self) -> str:
        p = self.params
        correcting = f" + {p.base}" if p.base else ""
        layers = f"{2 * kernel_cells(self.game.kernel)}-{p.hidden1}-{p.hidden2}-1"
        return f"evalnet {layers}{correcting} on {self.game.spec}"

    def status(self) -> str:
        return self._status

    @property
    def data_folder(self) -> Path:
        """Where the shards are stored."""
        if self.params.data:
            return Path(self.params.data)
        if self.folder is None:
            raise EvalNetTrainingError("the run has no folder yet: save it once first")
        return self.folder / "data"

    def shards_done(self) -> int:
        """Shards already stored (counted from the first missing one)."""
        done = 0
        while done < self.params.shards and shard_path(self.data_folder, done).exists():
            done += 1
        return done

    # the data phase -------------------------------------------------------------------------------

    def play_data(self, max_shards: int | None = None) -> None:
        """Play the shards not yet stored, ``workers`` at a time (at most ``max_shards``)."""
        p = self.params
        folder = self.data_folder
        folder.mkdir(parents=True, exist_ok=True)
        workers = self.workers
        played = 0
        while (done := self.shards_done()) < p.shards and (max_shards is None or played < max_shards):
            batch = range(done, min(p.shards, done + workers.count))
            tasks = [self._shard_task(index) for index in batch]
            for index, arrays in zip(batch, workers.map(play_shard, tasks), strict=True):
                write_shard(shard_path(folder, index), arrays, self.game.spec)
            played += len(batch)
            self._status = f"data: {min(p.shards, done + len(batch)) * p.shard_games:,}/{p.games:,} games"

    def _shard_task(self, index: int) -> ShardTask:
        p = self.params
        first = index * p.shard_games
        count = min(p.shard_games, p.games - first)
        seed = (self.seed * 1_000_003 + index * 7919 + 17) % 2**62
        return ShardTask(self.game.spec, tuple(p.player_specs), first, count, p.opening, p.ply_cap, seed)

    @property
    def workers(self) -> Workers:
        """The processes playing the data games."""
        if self._workers is None:
            self._workers = Workers(self.params.workers)
        return self._workers

    def close(self) -> None:
        if self._workers is not None:
            self._workers.close()
            self._workers = None

    # the training phase -----------------------------------------------------------------------------

    def dataset(self) -> dict[str, np.ndarray]:
        """The positions split into training (augmented by symmetry) and held-out arrays."""
        if self._data is None:
            raw = read_shards(self.data_folder, self.params.shards, self.game)
            held = raw["game"] % HELD_OUT_EVERY == 0
            score = raw["score"]
            if self.params.labels == "tables":
                score = exact_scores(self.game, raw["me"], raw["opp"])
            target = targets(raw["result"], score, self.params.distill, self.params.scale)
            kernel = self.game.kernel
            offset = np.zeros(len(target), dtype=np.float32)
            if self.params.base:
                base_id = kernel.evaluations.index(self.params.base)
                offset = base_logits(kernel, base_id, raw["me"], raw["opp"], self.params.scale).astype(
                    np.float32
                )
            # the base evaluations are blind to the board's symmetries: an image keeps its offset
            me, opp, y, train_offset = augmented(
                kernel, raw["me"][~held], raw["opp"][~held], target[~held], offset[~held]
            )
            self._data = {
                "x": word_features(me, opp, kernel_cells(kernel)),
                "y": y,
                "offset": train_offset,
                "held_offset": offset[held],
                "held_x": word_features(raw["me"][held], raw["opp"][held], kernel_cells(kernel)),
                "held_result": raw["result"][held],
                "held_target": target[held],
                "held_baseline": evaluation_logits(
                    kernel, raw["me"][held], raw["opp"][held], self.params.scale
                ),
            }
        return self._data

    def step(self, limit: int = 1) -> None:
        """Play the missing data shards (a batch of them per call), else train one epoch."""
        if self.shards_done() < self.params.shards:
            self.play_data(max_shards=self.workers.count)
            return
        started = time.perf_counter()
        torch = _torch()
        torch.set_num_threads(self.params.threads)
        data = self.dataset()
        model, optimiser = self._model_and_optimiser()
        order = np.random.default_rng((self.seed, self.epoch)).permutation(len(data["y"]))
        x = torch.from_numpy(data["x"])
        y = torch.from_numpy(data["y"])
        offset = torch.from_numpy(data["offset"])
        total, batches = 0.0, 0
        per_epoch = math.ceil(len(order) / self.params.batch)
        for start in range(0, len(order), self.params.batch):
            for group in optimiser.param_groups:
                group["lr"] = annealed_lr(self.params, self.epoch + batches / per_epoch)
            index = torch.from_numpy(order[start : start + self.params.batch])
            logits = model(x[index]) + offset[index]
            loss = torch.nn.functional.binary_cross_entropy_with_logits(logits, y[index])
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            total += loss.item()
            batches += 1
        self._keep(model, optimiser)
        self.epoch += 1
        self.train_seconds += time.perf_counter() - started
        self._last_train_loss = total / max(batches, 1)
        self._status = f"epoch {self.epoch}: training loss {self._last_train_loss:.4f}"

    def _model_and_optimiser(self) -> tuple[Any, Any]:
        torch = _torch()
        p = self.params
        model = torch_model(2 * kernel_cells(self.game.kernel), p.hidden1, p.hidden2, self.seed)
        if self.weights is not None:
            load_model_tensors(model, self.weights)
        optimiser = torch.optim.Adam(model.parameters(), lr=p.lr)
        if self.moments is not None:
            state = optimiser.state_dict()
            for i, _ in enumerate(model.parameters()):
                state["state"][i] = {
                    "step": torch.tensor(float(self.adam_steps)),
                    "exp_avg": torch.from_numpy(self.moments[f"m{i}"].copy()),
                    "exp_avg_sq": torch.from_numpy(self.moments[f"v{i}"].copy()),
                }
            optimiser.load_state_dict(state)
        return model, optimiser

    def _keep(self, model: Any, optimiser: Any) -> None:
        self.weights = model_tensors(model)
        moments = {}
        state = optimiser.state_dict()["state"]
        for i in range(len(list(model.parameters()))):
            moments[f"m{i}"] = state[i]["exp_avg"].numpy().copy()
            moments[f"v{i}"] = state[i]["exp_avg_sq"].numpy().copy()
            self.adam_steps = int(state[i]["step"])
        self.moments = moments

    def net(self) -> EvalNet:
        """The network as trained so far."""
        if self.weights is None:
            raise EvalNetTrainingError("no epoch trained yet")
        kernel = self.game.kernel
        games = [self.game, *(parse_game(spec) for spec in self.params.also_specs)]
        rules = [str(getattr(game, "rules", "")) for game in games]
        return EvalNet(
            game=self.game.name,
            size=int(getattr(self.game, "size", 0)),
            rules=tuple(dict.fromkeys(r for r in rules if r)),
            kernels=tuple(dict.fromkeys(game.kernel.name for game in games)),
            cells=kernel_cells(kernel),
            scale=self.params.scale,
            base=self.params.base,
            trained=self.summary_fit(),
            **self.weights,
        )

    def held_out(self) -> dict[str, float]:
        """Held-out log-losses against the games' results (the network's, the default
        evaluation's) and against the training targets (the network's)."""
        data = self.dataset()
        logits = self.net_logits(data["held_x"]) + data["held_offset"]
        return {
            "held_out_log_loss": log_loss(logits, data["held_result"]),
            "baseline_log_loss": log_loss(data["held_baseline"], data["held_result"]),
            "held_out_target_loss": log_loss(logits, data["held_target"]),
        }

    def net_logits(self, x: np.ndarray) -> np.ndarray:
        """The network's logits of feature rows (numpy)."""
        w = self.weights
        assert w is not None
        h1 = np.clip(x @ w["w1"] + w["b1"], 0.0, 1.0)
        h2 = np.clip(h1 @ w["w2"] + w["b2"], 0.0, 1.0)
        return np.asarray(h2 @ w["w3"] + w["b3"][0])

    def summary_fit(self) -> dict[str, Any]:
        """How the network was trained, for its file and summary."""
        last = self.curve[-1] if self.curve else {}
        return {
            "epochs": self.epoch,
            "games": self.params.games,
            "players": self.params.player_specs,
            "distill": self.params.distill,
            "seed": self.seed,
            "baseline": self.game.kernel.evaluations[0] if self.game.kernel.evaluations else "",
            **{k: v for k, v in last.items() if k.endswith("loss")},
        }

    def evaluate(self, opponents: Sequence[str], games: int) -> list[dict[str, Any]]:
        """A curve point: the held-out log-losses (none before the first epoch)."""
        if self.weights is None:
            return []
        record: dict[str, Any] = {"epoch": self.epoch, **{k: round(v, 5) for k, v in self.held_out().items()}}
        if self._last_train_loss is not None:
            record["train_loss"] = round(self._last_train_loss, 5)
        return [record]

    # checkpoint ---------------------------------------------------------------------------------------

    def save(self, path: Path) -> Path:
        """The checkpoint (npz: a JSON header, the weights and Adam's moments) and, once an
        epoch is trained, the network file beside it; both atomic."""
        path = Path(path)
        self.folder = path.parent
        header = {
            "format": CHECKPOINT_FORMAT,
            "game": self.game.spec,
            "hyper": asdict(self.params),
            "seed": self.seed,
            "epoch": self.epoch,
            "adam_steps": self.adam_steps,
            "train_seconds": self.train_seconds,
            "curve": self.curve,
        }
        arrays: dict[str, Any] = {
            f"w_{k}": v for k, v in (self.weights or {}).items()
        }  # Any: for mypy, ndarray values might fill savez's allow_pickle
        arrays |= {f"a_{k}": v for k, v in (self.moments or {}).items()}
        buffer = io.BytesIO()
        np.savez(buffer, header=np.array(json.dumps(header)), **arrays)
        atomic_write_bytes(path, buffer.getvalue())
        if self.weights is not None:
            self.net().save(path.parent / MODEL_FILE)
        return path

    @classmethod
    def resume(cls, path: Path | str, game: Any = None) -> EvalNetRun:
        """The run saved at ``path``; ModelFileError when it cannot be read or is of another game."""
        path = Path(path)
        try:
            arrays = load_npz(path, "checkpoint", MAX_CHECKPOINT_BYTES)
            header = json.loads(str(arrays.pop("header")))
        except InputFileError as error:
            raise ModelFileError(str(error)) from None
        except (KeyError, ValueError) as error:
            raise ModelFileError(f"checkpoint {path} is damaged ({short_reason(error)})") from None
        if not isinstance(header, dict) or header.get("format") != CHECKPOINT_FORMAT:
            raise ModelFileError(f"{path} is not an evalnet checkpoint")
        check_state(header, path, STATE_FIELDS, {"train_seconds": "number"})
        for name in ("epoch", "adam_steps"):
            if header[name] < 0:
                raise ModelFileError(f"checkpoint {path}: {name!r} must be at least 0")
        trained = check_game(parse_game(header["game"]))
        if game is not None and game.spec != trained.spec:
            raise ModelFileError(f"{path} trains on {trained.spec}, not {game.spec}")
        params = checked_settings(EvalNetSettings, "evalnet", header["hyper"], EvalNetTrainingError)
        check_settings(trained, params)
        weights = {k[2:]: v for k, v in arrays.items() if k.startswith("w_")} or None
        moments = {k[2:]: v for k, v in arrays.items() if k.startswith("a_")} or None
        _check_tensors(path, weights, moments, _shapes(2 * kernel_cells(trained.kernel), params))
        return cls(
            trained,
            params,
            int(header["seed"]),
            list(header["curve"]),
            int(header["epoch"]),
            float(header["train_seconds"]),
            path.parent,
            weights,
            moments,
            int(header["adam_steps"]),
        )

    # the end of the run ---------------------------------------------------------------------------

    def final_games(self, opponents: Sequence[str], games: int) -> list[GameResult]:
        """``games`` games of depth-2 alpha-beta with the network against each opponent, both colours."""
        if self.weights is None or self.folder is None or games <= 0:
            return []
        spec = f"alphabeta:depth={FINAL_DEPTH},eval=net:{self.folder / MODEL_FILE}"
        rng = random.Random(self.seed * 7919 + 1)
        results = []
        learner_agent = make_agent(spec, seed=self.seed, game=self.game)
        for opponent in opponents:
            other = make_agent(opponent, seed=self.seed + 1, game=self.game)
            for index in range(games):
                learner = index % 2
                state = self.game.initial()
                for _ in range(4):
                    state = state.play_index(rng.choice(state.legal_indices()))
                seats = (learner_agent, other) if learner == 0 else (other, learner_agent)
                for agent in seats:
                    agent.new_game()
                session = Session(state, seats)
                outcome = session.run()
                results.append(GameResult(opponent, learner, outcome.winner, session.state.ply))
        return results

    def summary(self) -> dict[str, Any]:
        return {
            "method": "evalnet",
            "game": self.game.spec,
            "hyper": asdict(self.params),
            "seed": self.seed,
            "epochs": self.epoch,
            "train_seconds": round(self.train_seconds, 2),
            "fit": self.summary_fit(),
        }

    def report_lines(self) -> list[str]:
        if not self.curve:
            return []
        last = self.curve[-1]
        base = self.summary_fit()["baseline"]
        return [
            f"held-out log-loss against the games' results: network {last['held_out_log_loss']:.4f}, "
            f"{base} {last['baseline_log_loss']:.4f}",
            f"held-out log-loss against the training targets ({self.params.labels} labels, distill "
            f"{self.params.distill:g}): network {last['held_out_target_loss']:.4f}",
        ]

    def plots(self, out: Path) -> list[Path]:
        return [plot_losses(self.curve, out / LOSS_PLOT, self.title, self.summary_fit()["baseline"])]


def plot_losses(curve: Sequence[dict[str, Any]], path: Path, title: str, baseline: str) -> Path:
    """The training and held-out losses by epoch, with the default evaluation's held-out loss."""
    from boardlab.core.files import agg_figure
    from boardlab.train.plots import _save

    rows = [r for r in curve if "held_out_log_loss" in r]
    figure = agg_figure(7.5, 4.2)
    ax = figure.subplots()
    epochs = [r["epoch"] for r in rows]
    ax.plot(
        epochs,
        [r["held_out_log_loss"] for r in rows],
        marker="o",
        markersize=3,
        label="network, held out (results)",
    )
    ax.plot(
        epochs,
        [r["held_out_target_loss"] for r in rows],
        marker="o",
        markersize=3,
        label="network, held out (targets)",
    )
    trained = [(r["epoch"], r["train_loss"]) for r in rows if "train_loss" in r]
    ax.plot(
        [e for e, _ in trained],
        [v for _, v in trained],
        marker="o",
        markersize=3,
        label="network, training (targets)",
    )
    if rows:
        ax.axhline(
            rows[-1]["baseline_log_loss"],
            color="black",
            linestyle="--",
            label=f"{baseline}, held out (results)",
        )
    ax.set_xlabel("epochs")
    ax.set_ylabel("log-loss")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    figure.suptitle(f"{title}: losses")
    return _save(figure, path)


STATE_FIELDS = {
    "seed": "int",
    "epoch": "int",
    "adam_steps": "int",
    "curve": "list",
    "hyper": "dict",
    "game": "str",
}
"""The checkpoint header's fields a resumed run reads, and their kinds."""

Shapes = dict[str, tuple[int, ...]]


def _shapes(inputs: int, params: EvalNetSettings) -> tuple[Shapes, Shapes]:
    """The shapes of the weights (the file's layout) and of Adam's moments (PyTorch's, one pair
    per parameter in the module's order) of a network of ``inputs`` inputs and these settings."""
    h1, h2 = params.hidden1, params.hidden2
    weights = {"w1": (inputs, h1), "b1": (h1,), "w2": (h1, h2), "b2": (h2,), "w3": (h2,), "b3": (1,)}
    torch_shapes = [(h1, inputs), (h1,), (h2, h1), (h2,), (1, h2), (1,)]
    moments = {f"{kind}{i}": shape for i, shape in enumerate(torch_shapes) for kind in "mv"}
    return weights, moments


def _check_tensors(
    path: Path,
    weights: dict[str, np.ndarray] | None,
    moments: dict[str, np.ndarray] | None,
    shapes: tuple[Shapes, Shapes],
) -> None:
    """ModelFileError unless the checkpoint's weights and moments are those of the network its
    settings describe (every array, of its shape, finite floats; the second moments at least 0)."""
    if moments is not None and weights is None:
        raise ModelFileError(f"checkpoint {path} holds Adam's moments without the weights")
    for what, arrays, expected in (("weights", weights, shapes[0]), ("moments", moments, shapes[1])):
        if arrays is None:
            continue
        if sorted(arrays) != sorted(expected):
            raise ModelFileError(
                f"checkpoint {path}: the {what} are not those of the network its settings say"
            )
        for name, array in arrays.items():
            if array.dtype.kind != "f" or array.shape != expected[name] or not np.all(np.isfinite(array)):
                raise ModelFileError(
                    f"checkpoint {path}: {what} {name!r} is not finite floats of shape {expected[name]}"
                )
            if name.startswith("v") and np.any(array < 0):
                raise ModelFileError(f"checkpoint {path}: moments {name!r} holds a negative value")


def saved_game(path: Path) -> str:
    """The game of the run saved in the checkpoint ``path`` (its header alone is read)."""
    header = load_npz(path, "checkpoint", MAX_CHECKPOINT_BYTES, ["header"])["header"]
    return str(json.loads(str(header))["game"])


KINDS = {
    "evalnet": Method(
        "evalnet",
        EvalNetSettings,
        start=EvalNetRun.start,
        resume=EvalNetRun.resume,
        unit="epochs",
        default_total=30,
        default_game="quixo",
        checkpoint_file=CHECKPOINT_FILE,
        model_file=MODEL_FILE,
        games=lambda text: check_game(parse_game(text)),
        default_against=lambda game: DEFAULT_AGAINST,
        free=("workers", "threads"),
        error=EvalNetTrainingError,
        check=check_settings,
        check_run=check_data,
        not_applied=(("eval_games", "its curve is the held-out losses, not games"),),
        saved_game=saved_game,
    )
}

__all__ = [
    "CHECKPOINT_FILE",
    "KINDS",
    "MODEL_FILE",
    "EvalNetRun",
    "EvalNetSettings",
    "EvalNetTrainingError",
    "ShardTask",
    "augmented",
    "check_data",
    "check_torch",
    "data_problem",
    "log_loss",
    "play_shard",
    "read_shards",
    "symmetric_words",
    "targets",
    "torch_model",
]
