"""Fit the weights of Quixo's ``tuned`` and ``patterns`` evaluations to the outcomes of games.

The evaluation is linear in a few counts of a position, seen by the side to move: for every
pair ``a > b``, the lines (rows, columns, diagonals) holding ``a`` own and ``b`` opponent
cubes minus those holding ``b`` own and ``a`` opponent cubes, then own minus opponent cubes
off the border, in the corners and in all (:data:`boardlab.games.quixo.kernel.TUNED_SCALARS`).

``patterns`` has instead a weight for every arrangement of cubes along a line, shared by the
lines that the board's symmetries map onto each other and by a pattern's mirror image, and
negated for the colour-swapped pattern (:func:`boardlab.games.quixo.kernel.pattern_key`).

The weights are those of a logistic regression of the game's result for the side to move
(1 won, 0.5 drawn, 0 lost) on these counts, over every position of self-play games between
alpha-beta players of several depths and evaluations from random openings; the model's
intercept is the value of having the move, which the evaluation adds so that its values
compare rightly with a draw (0) and across leaves of either side to move. The fit minimises
the log-loss with a small L2 penalty (scipy's L-BFGS-B); :func:`fit` holds out a fifth of the
games and returns the held-out log-loss of the fitted weights and of the best logistic
rescaling of ``lines2`` and ``lines3``, so that the features are judged against the
hand-picked evaluations on the same positions.
"""

from __future__ import annotations

import io
import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sparse
from scipy.optimize import minimize

from boardlab.agents.base import make_agent
from boardlab.core.files import atomic_write_bytes
from boardlab.core.inputs import InputFileError, check_array, load_npz, npz_headers
from boardlab.games.quixo import Quixo
from boardlab.games.quixo.kernel import (
    CORNERS_IDX,
    EDGES_IDX,
    TUNED_SCALARS,
    build_tables,
    line_cells,
    line_masks,
    line_patterns,
    tuned_weights,
)
from boardlab.train.run import random_open_position

DEFAULT_PLAYERS = (
    "alphabeta:depth=3,eval=lines2,probe=false",
    "alphabeta:depth=3,eval=lines3,probe=false",
    "alphabeta:depth=4,eval=lines2,probe=false",
    "alphabeta:depth=2,eval=density,probe=false",
)
OPENING_PLIES = (2, 14)  # random plies before the players take over (range, end excluded)
GAME_PLIES = 200  # games still running are drawn
HELD_OUT = 0.2
FEWEST_GAMES = math.ceil(1 / HELD_OUT)
"""The fewest games a fit takes: one of them is held out to judge it."""
MAX_POSITIONS_BYTES = 1 << 32
"""Largest positions file read (millions of positions take tens of MB)."""
L2 = 1e-4
MODELS = ("tuned", "patterns")
POSITION_ARRAYS = ("me", "opp", "result", "game")


@dataclass(frozen=True)
class Positions:
    """Positions seen by the side to move, with the result of their game for that side."""

    me: np.ndarray  # int64 masks of the side to move
    opp: np.ndarray
    result: np.ndarray  # 1 won, 0.5 drawn, 0 lost
    game: np.ndarray  # the number of the position's game
    players: tuple[str, ...] = ()  # the agent specs that played the games

    def __len__(self) -> int:
        return len(self.result)

    def save(self, path: str | Path) -> None:
        """Write the positions to a numpy ``.npz`` file, atomically."""
        buffer = io.BytesIO()
        arrays = {name: getattr(self, name) for name in POSITION_ARRAYS}
        np.savez_compressed(buffer, players=np.array(self.players, dtype=str), **arrays)
        atomic_write_bytes(Path(path), buffer.getvalue())

    @classmethod
    def load(cls, *paths: str | Path) -> Positions:
        """Read positions written by :meth:`save`; several files are joined, their games
        numbered apart."""
        return cls.join([cls._load_one(path) for path in paths])

    @classmethod
    def _load_one(cls, path: str | Path) -> Positions:
        """One positions file, checked before use (InputFileError naming the file and the problem)."""
        headers = npz_headers(path, "positions file", MAX_POSITIONS_BYTES)
        names = [*POSITION_ARRAYS, *({"players"} & set(headers))]
        data = load_npz(path, "positions file", MAX_POSITIONS_BYTES, names)
        me = check_array(data["me"], f"{path}: me", dtype=np.int64, ndim=1)
        n = (len(me),)
        opp = check_array(data["opp"], f"{path}: opp", dtype=np.int64, shape=n)
        result = check_array(data["result"], f"{path}: result", shape=n, finite=True, low=0.0, high=1.0)
        game = check_array(data["game"], f"{path}: game", shape=n, low=0)
        if result.dtype.kind != "f" or game.dtype.kind not in "iu" or np.any(me & opp):
            raise InputFileError(
                f"{path}: not a positions file (results must be floats, games whole numbers, masks disjoint)"
            )
        players = data.get("players", np.array([], dtype=str))
        if players.dtype.kind != "U" or players.ndim != 1:
            raise InputFileError(f"{path}: players must be a list of agent specs")
        return cls(me, opp, result.astype(np.float64), game.astype(np.int64), tuple(str(p) for p in players))

    @classmethod
    def join(cls, parts: Sequence[Positions]) -> Positions:
        """The positions of ``parts`` one after the other, their games numbered apart."""
        offsets = np.cumsum([0, *(int(p.game.max(initial=-1)) + 1 for p in parts[:-1])])
        return cls(
            me=np.concatenate([p.me for p in parts]),
            opp=np.concatenate([p.opp for p in parts]),
            result=np.concatenate([p.result for p in parts]),
            game=np.concatenate([p.game + offset for p, offset in zip(parts, offsets, strict=True)]),
            players=tuple(dict.fromkeys(spec for p in parts for spec in p.players)),
        )


@dataclass(frozen=True)
class Fit:
    """Fitted weights (logits per feature), the intercept and held-out log-losses."""

    size: int
    model: str  # one of MODELS
    weights: dict[str, float]
    intercept: float
    positions: int
    log_loss: float
    baselines: dict[str, float]  # held-out log-loss of each rescaled hand-picked evaluation

    def to_json(self) -> dict[str, Any]:
        """The weights as :func:`boardlab.games.quixo.kernel.tuned_weights` (or
        :func:`~boardlab.games.quixo.kernel.pattern_weights`) reads them."""
        if self.model == "patterns":
            classes: dict[str, dict[str, float]] = {}
            for name, value in self.weights.items():
                kind, key = name.rsplit(" ", 1)
                classes.setdefault(kind, {})[key] = value
            return {"classes": classes, "fit": self.summary()}
        lines = {
            key[len("lines ") :]: value for key, value in self.weights.items() if key.startswith("lines ")
        }
        scalars = {name: self.weights[name] for name in TUNED_SCALARS}
        return {"lines": lines, **scalars, "fit": self.summary()}

    def summary(self) -> dict[str, Any]:
        """How the weights were fitted: positions, intercept, log-losses."""
        return {
            "positions": self.positions,
            "intercept": round(self.intercept, 4),
            "held_out_log_loss": round(self.log_loss, 5),
            "baseline_log_loss": {name: round(value, 5) for name, value in self.baselines.items()},
        }


def line_pairs(size: int) -> list[tuple[int, int]]:
    """The ``(own, opp)`` cube counts of a line that get a weight: ``own > opp``, not full."""
    return [(a, b) for a in range(size) for b in range(size) if a > b and a + b <= size]


def feature_names(size: int) -> list[str]:
    """Names of the features, in the order of :func:`features`' columns."""
    return [f"lines {a},{b}" for a, b in line_pairs(size)] + list(TUNED_SCALARS)


def pattern_names(size: int) -> list[str]:
    """Names (``"<line class> <pattern key>"``) of the ``patterns`` features, in the order
    of :func:`pattern_features`' columns."""
    names = {f"{kind} {key}" for line in line_patterns(size) for kind, key, sign in line if sign}
    return sorted(names)


def pattern_features(size: int, me: np.ndarray, opp: np.ndarray) -> sparse.csr_matrix:
    """The sparse feature matrix (positions x :func:`pattern_names`) of positions given as
    masks: per feature, the lines showing its pattern minus those showing its colour swap."""
    column = {name: i for i, name in enumerate(pattern_names(size))}
    rows, cols, signs = [], [], []
    for patterns, cells in zip(line_patterns(size), line_cells(size), strict=True):
        lookup = np.array([(column.get(f"{kind} {key}", 0), sign) for kind, key, sign in patterns])
        index = np.zeros(len(me), dtype=np.int64)
        for j, cell in enumerate(cells):
            index += (((me >> cell) & 1) + 2 * ((opp >> cell) & 1)) * 3**j
        hit = lookup[index]
        shown = np.nonzero(hit[:, 1])[0]
        rows.append(shown)
        cols.append(hit[shown, 0])
        signs.append(hit[shown, 1])
    data = np.concatenate(signs).astype(np.float64)
    shape = (len(me), len(column))
    return sparse.csr_matrix((data, (np.concatenate(rows), np.concatenate(cols))), shape=shape)


def _line_masks(size: int) -> np.ndarray:
    return np.array(line_masks(size), dtype=np.int64)


def features(size: int, me: np.ndarray, opp: np.ndarray) -> np.ndarray:
    """The feature matrix (positions x :func:`feature_names`) of positions given as masks."""
    lines = _line_masks(size)
    own = np.bitwise_count(me[:, None] & lines[None, :]).astype(np.int64)
    theirs = np.bitwise_count(opp[:, None] & lines[None, :]).astype(np.int64)
    columns = [
        ((own == a) & (theirs == b)).sum(1) - ((own == b) & (theirs == a)).sum(1) for a, b in line_pairs(size)
    ]
    scalars = build_tables(size)[1]  # the kernel's own corner and edge masks
    corners = int(scalars[CORNERS_IDX])
    border = corners | int(scalars[EDGES_IDX])
    for mask in (~border, corners, -1):
        columns.append(np.bitwise_count(me & mask).astype(np.int64) - np.bitwise_count(opp & mask))
    return np.stack(columns, axis=1).astype(np.float64)


def self_play(
    size: int,
    games: int,
    seed: int,
    players: Sequence[str] = DEFAULT_PLAYERS,
    rules: str = "official",
    advance: Callable[[int], None] | None = None,
) -> Positions:
    """Every position of ``games`` games between random pairs of ``players``, after a random
    opening, with each game's result for the side to move."""
    game = Quixo(size=size, ply_cap=GAME_PLIES, rules=rules)
    rng = random.Random(seed)
    agents = [make_agent(spec, seed=seed + i) for i, spec in enumerate(players)]
    for agent in agents:
        agent.prepare(game)
    rows: list[tuple[int, int, float]] = []
    numbers: list[int] = []
    for number in range(games):
        played = _one_game(game, rng.sample(agents, 2), rng)
        rows.extend(played)
        numbers.extend([number] * len(played))
        if advance is not None:
            advance(1)
    return Positions(
        me=np.array([r[0] for r in rows], dtype=np.int64),
        opp=np.array([r[1] for r in rows], dtype=np.int64),
        result=np.array([r[2] for r in rows], dtype=np.float64),
        game=np.array(numbers, dtype=np.int64),
        players=tuple(players),
    )


def _one_game(game: Quixo, pair: list[Any], rng: random.Random) -> list[tuple[int, int, float]]:
    state = random_open_position(game.initial(), rng.randrange(*OPENING_PLIES), rng)
    for agent in pair:
        agent.new_game()
    seen: list[tuple[int, int, int]] = []
    while not state.is_over:
        me, opp = state.words
        seen.append((int(me), int(opp), state.ply % 2))
        state = state.play(pair[len(seen) % 2].choose(state))
    winner = state.winner
    return [(me, opp, 0.5 if winner is None else float(winner == colour)) for me, opp, colour in seen]


def logistic_fit(x: np.ndarray | sparse.csr_matrix, y: np.ndarray, l2: float = L2) -> np.ndarray:
    """Weights (last: intercept, not penalised) minimising the mean log-loss plus L2; ``x``
    dense or sparse."""
    ones = np.ones((x.shape[0], 1))
    if sparse.issparse(x):
        design = sparse.hstack([x, ones]).tocsr()
    else:
        design = np.concatenate([x, ones], axis=1)

    def objective(w: np.ndarray) -> tuple[float, np.ndarray]:
        z = design @ w
        loss = np.mean(np.logaddexp(0.0, z) - y * z)
        grad = design.T @ (_sigmoid(z) - y) / len(y)
        penalty = np.r_[w[:-1], 0.0]
        return float(loss + l2 * penalty @ penalty), grad + 2 * l2 * penalty

    result = minimize(
        objective, np.zeros(design.shape[1]), jac=True, method="L-BFGS-B", options={"maxiter": 2000}
    )
    return np.asarray(result.x)


def log_loss(x: np.ndarray | sparse.csr_matrix, y: np.ndarray, w: np.ndarray) -> float:
    """Mean log-loss of weights ``w`` (intercept last) on ``x``."""
    z = x @ w[:-1] + w[-1]
    return float(np.mean(np.logaddexp(0.0, z) - y * z))


def _sigmoid(z: np.ndarray) -> np.ndarray:
    return np.asarray(0.5 * (1.0 + np.tanh(0.5 * z)))


def _hand_picked(size: int, me: np.ndarray, opp: np.ndarray, base: float) -> np.ndarray:
    lines = _line_masks(size)
    weight = np.array([n * base**n for n in range(size + 1)])
    own = weight[np.bitwise_count(me[:, None] & lines)].sum(1)
    theirs = weight[np.bitwise_count(opp[:, None] & lines)].sum(1)
    return np.asarray((own - theirs)[:, None])


def shipped_tuned(size: int) -> np.ndarray:
    """The shipped ``tuned`` weights of ``size`` in the order of :func:`feature_names`, the
    intercept last."""
    weights = tuned_weights(size)
    lines = [float(weights["lines"][f"{a},{b}"]) for a, b in line_pairs(size)]
    scalars = [float(weights[name]) for name in TUNED_SCALARS]
    return np.array([*lines, *scalars, float(weights["fit"]["intercept"])])


def fit(size: int, positions: Positions, seed: int = 0, model: str = "tuned") -> Fit:
    """Fit the weights of ``model`` (one of :data:`MODELS`) on the positions of a random 80% of
    the games; judge them on the rest, next to the best logistic rescaling of ``lines2`` and
    ``lines3``, the shipped ``tuned`` weights as they stand (``shipped``) and, for
    ``patterns``, a fit of ``tuned``'s features, on the same positions.

    Raises:
        ValueError: an unknown model, or too few games to hold one out (the log-losses would
            be NaN, which no weights file may hold).
    """
    if model not in MODELS:
        raise ValueError(f"unknown evaluation model {model!r}; expected one of {', '.join(MODELS)}")
    games = np.unique(positions.game)
    held_out = int(HELD_OUT * len(games))
    if held_out < 1:
        raise ValueError(
            f"fitting needs at least {FEWEST_GAMES} games, so that one is held out to judge the fit; "
            f"got {len(games)}"
        )
    held = np.random.default_rng(seed).choice(games, held_out, replace=False)
    test = np.isin(positions.game, held)
    train = ~test
    y = positions.result
    baselines = {}
    for name, base in (("lines2", 2.0), ("lines3", 3.0)):
        single = _hand_picked(size, positions.me, positions.opp, base)
        baselines[name] = log_loss(single[test], y[test], logistic_fit(single[train], y[train], 0.0))
    x: np.ndarray | sparse.csr_matrix = features(size, positions.me, positions.opp)
    names = feature_names(size)
    baselines["shipped"] = log_loss(x[test], y[test], shipped_tuned(size))
    if model == "patterns":
        baselines["tuned"] = log_loss(x[test], y[test], logistic_fit(x[train], y[train]))
        x = pattern_features(size, positions.me, positions.opp)
        names = pattern_names(size)
    w = logistic_fit(x[train], y[train])
    return Fit(
        size=size,
        model=model,
        weights={name: round(float(v), 4) for name, v in zip(names, w[:-1], strict=True)},
        intercept=float(w[-1]),
        positions=len(positions),
        log_loss=log_loss(x[test], y[test], w),
        baselines=baselines,
    )
