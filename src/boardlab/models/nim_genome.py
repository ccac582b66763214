"""Nim genomes, the model behind the ``nimga`` agent: what a genome's genes mean, how it scores
the moves of a Nim position (compiled over the Nim kernel), the player of one genome, and the
model file that holds one (``boardlab train ga`` writes it; :mod:`boardlab.train.nim_ga` evolves
the genomes).

A genome scores every legal move of a Nim position; its player plays a best-scoring move,
ties split at random. ``target`` genomes hold two genes in [0, 1] (the nim-sum to leave
behind and the range around it, as shares of the game's largest nim-sum); ``rules`` genomes
hold one weight in [-1, 1] per move feature (:data:`FEATURES`) and play convention.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from boardlab.core.spec import with_article
from boardlab.games import Game, GameOptionError, parse_game
from boardlab.games.jit import cached_njit
from boardlab.games.nim import Nim
from boardlab.games.nim import kernel as nk
from boardlab.models.errors import check_model_format
from boardlab.models.table import ModelFileError, ModelMismatchError, read_json_model

FORMAT = "boardlab-nim-ga"
VERSION = 1
MODEL_FILE = "model.json"
SUMMARY_FILE = "summary.json"
MAX_MODEL_BYTES = 64 * 1024 * 1024
MAX_JUDGED = 1_000_000
"""Positions :func:`accuracy` walks at most (the product of ``pile + 1`` over the piles)."""

TARGET, RULES = 0, 1
GENOMES = {"target": TARGET, "rules": RULES}
TARGET_GENES = ("target_preference", "target_range")
CONVENTIONS = ("normal", "misere")
FEATURES = (
    "zero_sum",
    "all_small",
    "odd_ones",
    "small_and_odd",
    "raw_zero_sum",
    "raw_small_and_odd",
    "big_piles",
    "empties_pile",
    "take_share",
    "nim_sum",
)
FEATURE_HELP = {
    "zero_sum": "the nim-sum after the move is 0",
    "all_small": "every pile is 0 or 1 after the move",
    "odd_ones": "an odd number of piles hold exactly 1",
    "small_and_odd": "both: every pile 0 or 1, and an odd number of 1-piles",
    "raw_zero_sum": "zero_sum of the plain piles (ignores the move limit)",
    "raw_small_and_odd": "small_and_odd of the plain piles (ignores the move limit)",
    "big_piles": "share of the piles holding more than 1 (plain piles)",
    "empties_pile": "the move empties its pile",
    "take_share": "share of its pile the move takes",
    "nim_sum": "the nim-sum after the move, as a share of the largest",
}
"""What each feature of the ``rules`` genome reads on the position a move leaves (piles taken
modulo ``k + 1`` under a move limit, unless said otherwise)."""

RANDOM, OPTIMAL = 0, 1


# --- genomes -----------------------------------------------------------------------------------


def gene_names(kind: str) -> tuple[str, ...]:
    """The names of a genome's genes, in order (``convention.feature`` for ``rules``)."""
    if kind == "target":
        return TARGET_GENES
    return tuple(f"{convention}.{feature}" for convention in CONVENTIONS for feature in FEATURES)


def gene_bounds(kind: str) -> tuple[float, float]:
    """The range every gene of a genome lies in."""
    return (0.0, 1.0) if kind == "target" else (-1.0, 1.0)


def optimal_genome(kind: str = "rules") -> np.ndarray:
    """A hand-written genome that plays optimally (``rules``: every Nim; ``target``: normal
    play without a move limit). The tests use it to check that the features can express it."""
    if kind == "target":
        return np.array([0.0, 0.05])
    genome = np.zeros(len(gene_names("rules")))
    normal = {"zero_sum": 1.0}
    misere = {"zero_sum": 1 / 3, "all_small": -2 / 3, "small_and_odd": 1.0}
    for offset, weights in ((0, normal), (len(FEATURES), misere)):
        for name, weight in weights.items():
            genome[offset + FEATURES.index(name)] = weight
    return genome


@cached_njit
def _reduced(p, limit):  # type: ignore[no-untyped-def]
    return p % (limit + 1) if limit > 0 else p


@cached_njit
def move_scores(kind, genome, ctx, a, b, actions, count, out):  # type: ignore[no-untyped-def]
    """Score the ``count`` legal ``actions`` of position ``(a, b)`` into ``out`` (see the
    module docstring for what each genome reads)."""
    s = ctx[0]
    n_piles = s[nk.N_PILES]
    max_take = s[nk.MAX_TAKE]
    limit = s[nk.LIMIT]
    top = (np.int64(1) << s[nk.BITS]) - 1
    raw_xor = 0
    red_xor = 0
    red_ones = 0
    red_big = 0
    raw_ones = 0
    raw_big = 0
    for i in range(n_piles):
        p = nk.pile(ctx, a, b, i)
        r = _reduced(p, limit)
        raw_xor ^= p
        red_xor ^= r
        red_ones += r == 1
        red_big += r > 1
        raw_ones += p == 1
        raw_big += p > 1
    offset = len(genome) // 2 if s[nk.MISERE] else 0
    for j in range(count):
        action = actions[j]
        i = action // max_take
        taken = action % max_take + 1
        p = nk.pile(ctx, a, b, i)
        q = p - taken
        raw_sum = raw_xor ^ p ^ q
        if kind == TARGET:
            out[j] = 1.0 if abs(raw_sum - genome[0] * top) <= genome[1] * top + 1e-9 else 0.0
            continue
        rp = _reduced(p, limit)
        rq = _reduced(q, limit)
        red_sum = red_xor ^ rp ^ rq
        ones = red_ones - (rp == 1) + (rq == 1)
        small = red_big - (rp > 1) + (rq > 1) == 0
        plain_ones = raw_ones - (p == 1) + (q == 1)
        plain_big = raw_big - (p > 1) + (q > 1)
        w = genome[offset:]
        score = 0.0
        if red_sum == 0:
            score += w[0]
        if small:
            score += w[1]
        if ones % 2 == 1:
            score += w[2]
            if small:
                score += w[3]
        if raw_sum == 0:
            score += w[4]
        if plain_big == 0 and plain_ones % 2 == 1:
            score += w[5]
        score += w[6] * plain_big / n_piles
        if q == 0:
            score += w[7]
        score += w[8] * taken / p
        score += w[9] * red_sum / top
        out[j] = score


@cached_njit
def scored_moves(kind, genome, ctx, a, b, actions, out):  # type: ignore[no-untyped-def]
    """The legal actions of ``(a, b)`` into ``actions`` and their scores into ``out``; the count."""
    count = nk.gen_moves(ctx, a, b, actions)
    move_scores(kind, genome, ctx, a, b, actions, count, out)
    return count


class GenomePolicy:
    """The player of one genome on one Nim game: scores, best actions, a choice among them.

    It has the ``game`` and ``choose_action(a, b, rng)`` of a learned policy, so
    :func:`boardlab.train.run.play_games` plays it against any agent.
    """

    def __init__(self, kind: str, genome: ArrayLike, game: Any) -> None:
        if kind not in GENOMES:
            raise ValueError(f"unknown genome {kind!r}; accepted: {', '.join(GENOMES)}")
        if game.name != "nim":
            raise ValueError(f"a Nim genome plays nim, not {game.name}")
        self.kind = kind
        self.genome = np.ascontiguousarray(genome, dtype=np.float64)
        if self.genome.shape != (len(gene_names(kind)),):
            raise ValueError(f"a {kind} genome has {len(gene_names(kind))} genes, got {self.genome.shape}")
        self.game = game
        self.kernel = game.kernel
        self._actions = np.empty(max(self.kernel.num_actions, 1), dtype=np.int64)
        self._scores = np.empty(max(self.kernel.num_actions, 1), dtype=np.float64)

    def scores(self, a: int, b: int) -> tuple[np.ndarray, np.ndarray]:
        """The legal actions of a position and their scores."""
        count = scored_moves(
            GENOMES[self.kind],
            self.genome,
            self.kernel.ctx,
            np.int64(a),
            np.int64(b),
            self._actions,
            self._scores,
        )
        return self._actions[:count].copy(), self._scores[:count].copy()

    def best_actions(self, a: int, b: int) -> list[int]:
        """Every best-scoring legal action (empty when the game is over)."""
        actions, scores = self.scores(a, b)
        return actions[scores == scores.max()].tolist() if len(actions) else []

    def choose_action(self, a: int, b: int, rng: Any) -> int:
        """A best-scoring action, chosen at random among the ties."""
        return rng.choice(self.best_actions(a, b))


# --- model files -------------------------------------------------------------------------------


@dataclass(frozen=True)
class GenomeModel:
    """What a model file holds for playing: the genome kind and genes, the training games."""

    kind: str
    genome: np.ndarray
    games: tuple[str, ...]
    header: dict[str, Any]

    @property
    def conventions(self) -> set[str]:
        """The play conventions of the training games (``normal``, ``misere``)."""

        return {"misere" if _is_misere(parse_game(spec)) else "normal" for spec in self.games}


def _is_misere(game: Game) -> bool:
    # the training games are checked to be Nim games when the model is read
    return isinstance(game, Nim) and game.misere


def load_model(path: Path | str) -> GenomeModel:
    """Read and check a model file; ModelFileError when it is not a sound Nim GA model,
    ModelMismatchError when it is one made for something else (version, game, genes)."""
    path = Path(path)
    header = read_json_model(path, "a Nim GA model", MAX_MODEL_BYTES)
    return _model_of(path, header)


def _model_of(path: Path, header: Any) -> GenomeModel:

    check_model_format(header, str(path), "Nim GA model", FORMAT, VERSION)
    if header.get("method") != "ga":
        raise ModelMismatchError(f"{path} holds {with_article(repr(header.get('method')))} model, not ga")
    if header.get("game") != "nim":
        raise ModelMismatchError(f"{path} was trained on {header.get('game')!r}, not nim")
    kind = header.get("genome")
    if not isinstance(kind, str) or kind not in GENOMES:
        raise ModelFileError(f"{path}: unknown genome {str(kind)[:20]!r}; accepted: {', '.join(GENOMES)}")
    names = gene_names(kind)
    if header.get("genes") != list(names):
        raise ModelMismatchError(f"{path}: its {kind} genome has other genes than this boardlab's")
    games = header.get("games")
    if not isinstance(games, list) or not games or not all(isinstance(g, str) for g in games):
        raise ModelFileError(f"{path}: the header has no valid list of training games")
    for spec in games:
        try:
            if parse_game(spec).name != "nim":
                raise ModelMismatchError(f"{path} was trained on {spec}, not a Nim game")
        except GameOptionError as error:
            raise ModelFileError(f"{path}: training game {spec[:40]!r} cannot be read ({error})") from None
    player = header.get("player")
    if not isinstance(player, dict):
        missing = "has no" if player is None else "has a damaged"
        raise ModelFileError(f"{path} {missing} 'player' (the genome it plays: an object with its genes)")
    genes = player.get("genes")
    if not isinstance(genes, dict):
        raise ModelFileError(f"{path}: the 'player' has no 'genes' (an object: gene name to value)")
    if list(genes) != list(names):
        raise ModelFileError(f"{path}: the player's genes must be {', '.join(names)}")
    low, high = gene_bounds(kind)
    values = list(genes.values())
    if not all(isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v) for v in values):
        raise ModelFileError(f"{path}: the player's genes must be finite numbers")
    if min(values) < low or max(values) > high:
        raise ModelFileError(f"{path}: the player's genes must lie in [{low:g}, {high:g}]")
    return GenomeModel(kind, np.array(values, dtype=np.float64), tuple(games), header)
