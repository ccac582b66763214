"""Negamax alpha-beta, generic over games, compiled with numba.

One search serves every game: :func:`build_search` closes over a game's :class:`Kernel`
(and, if given, a compiled leaf evaluation of the caller's) and returns a compiled,
iterative (explicit-stack) negamax with

- a transposition table keyed on the canonical (symmetry-reduced) position, whose stored
  best move is mapped back through the symmetry;
- move ordering: table move, two killer moves per ply, history heuristic, and a seeded
  random jitter at the root so that equal moves are chosen at random from the seed;
- exact win/loss scores ``WIN - ply`` that outrank any heuristic value: a win is taken as
  soon as possible and a loss put off as long as possible;
- a deadline on the clock (read every 1,024 nodes) and a node limit: a search stopped by
  either still reports the best of the root moves it finished;
- positions repeating one of the game or of the line searched scored as draws, worth
  ``-contempt`` to the side that searches;
- a leaf evaluation: one of the game's, chosen by id (``Kernel.evaluations``), or a compiled
  function with the same signature supplied by the caller (a learned value, say);
- a quiescence-like look at forcing moves, the leaf probe (``probe``, on by default): before
  evaluating a leaf, the side to move looks for a move that wins at once, and the leaf then
  scores that win exactly; only positions the kernel's ``may_win`` test lets through are
  scanned (Quixo: a line one cube short), and games without that test are not probed;
- helper threads (``threads``, lazy SMP): the compiled search releases the GIL, so helpers
  can deepen the same position beside the main search and share its transposition table.

:class:`SearchRunner` holds one player's tables and drives it: one fixed-depth search, or
iterative deepening within seconds or nodes. The alpha-beta agent wraps it.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, wait
from dataclasses import dataclass
from typing import Any

import numpy as np

from boardlab.games.base import (
    DRAW,
    LOSS,
    ONGOING,
    Kernel,
    build_canonical,
    compiled_canonical,
    compiled_for,
    legal_mask,
)
from boardlab.games.hashing import position_hash
from boardlab.games.jit import cached_njit
from boardlab.search.clock import now
from boardlab.search.settings import DEFAULT_DEEPEN, MAX_DEPTH, NO_LIMIT

WIN = 1_000_000.0
MATE_ZONE = WIN - 10_000.0
INF = 1e18
EXACT, LOWER, UPPER = 0, 1, 2
HASH_MULT = np.int64(-7046029254386353131)  # 0x9E3779B97F4A7C15 as a signed 64-bit integer
SEEN_SIZE = 1024  # slots of the set of game positions (at most half are used)
CLOCK_EVERY = 1024  # nodes between two looks at the clock


@cached_njit
def _never(ctx, a, b):  # type: ignore[no-untyped-def]
    return False  # a game without a cheap test of wins at once is not probed


def is_mate_score(score: float) -> bool:
    """True for a proven win or loss score."""
    return abs(score) >= MATE_ZONE


def proven_value(score: float) -> float | None:
    """1.0 for a proven win, -1.0 for a proven loss, None for a heuristic score."""
    if not is_mate_score(score):
        return None
    return 1.0 if score > 0 else -1.0


class EvaluationError(ValueError):
    """A leaf evaluation the game does not have."""


# A transposition-table entry is one row of four 64-bit words, read as int64 or float64:
# the position's 64-bit hash (int64), its value (float64), the depth and flag + 4 * (move + 1)
# (int64). One row is one cache line fetch; a row whose depth word is 0 is empty (entries
# are stored only at depth >= 2).
TT_KEY, TT_VALUE, TT_DEPTH, TT_INFO = 0, 1, 2, 3


def new_table(log2_size: int) -> np.ndarray:
    """An empty transposition table with 2**log2_size entries (int64 rows; see TT_*)."""
    return np.zeros((1 << log2_size, 4), dtype=np.int64)


Evaluation = Callable[..., float]
"""A compiled leaf evaluation ``evaluate(ctx, a, b, eval_id) -> float``: the value of a position
for its side to move, in the units of the contempt (a numba ``njit`` function, like a kernel's)."""


def build_search(kernel: Kernel, evaluate: Evaluation | None = None) -> Any:
    """A compiled ``search(...)`` for ``kernel``; see :func:`SearchRunner.search`.

    The leaves are valued by ``evaluate`` (a compiled function with the signature of
    ``kernel.evaluate``), or by the kernel's own evaluations when it is None.
    """
    gen_moves = kernel.gen_moves
    play = kernel.play
    status = kernel.status
    evaluate = kernel.evaluate if evaluate is None else evaluate
    may_win = kernel.may_win if kernel.may_win is not None else _never
    canonical = build_canonical(kernel)
    action_maps = kernel.action_maps
    sym_inverse = kernel.sym_inverse
    max_moves = kernel.num_actions

    @cached_njit
    def _wins_now(ctx, me, opp, buffer):  # type: ignore[no-untyped-def]
        # a move after which the opponent, to move, has lost
        for i in range(gen_moves(ctx, me, opp, buffer)):
            a, b = play(ctx, me, opp, buffer[i])
            if status(ctx, a, b) == LOSS:
                return True
        return False

    @cached_njit(nogil=True)
    def search(  # type: ignore[no-untyped-def]
        ctx,
        me0,
        opp0,
        depth,
        eval_id,
        use_sym,
        table_words,
        history,
        killers,
        root_jitter,
        node_limit,
        deadline,
        seen,
        contempt,
        win_probe,
        stop,
    ):
        size = depth + 2
        moves = np.empty((size, max_moves), dtype=np.int64)
        order = np.empty((size, max_moves), dtype=np.float64)
        count = np.zeros(size, dtype=np.int64)
        cursor = np.zeros(size, dtype=np.int64)
        mes = np.empty(size, dtype=np.int64)
        opps = np.empty(size, dtype=np.int64)
        alpha = np.empty(size, dtype=np.float64)
        beta = np.empty(size, dtype=np.float64)
        alpha_orig = np.empty(size, dtype=np.float64)
        best = np.empty(size, dtype=np.float64)
        best_move = np.empty(size, dtype=np.int64)
        keys = np.empty(size, dtype=np.int64)
        has_key = np.zeros(size, dtype=np.bool_)
        syms = np.empty(size, dtype=np.int64)
        rem = np.empty(size, dtype=np.int64)  # remaining depth of the node at each ply
        table = table_words.view(np.float64)
        mask = table.shape[0] - 1
        shift = 64 - _log2(table.shape[0])

        mes[0] = me0
        opps[0] = opp0
        best[0] = -INF
        best_move[0] = -1
        alpha[0] = -INF
        beta[0] = INF
        rem[0] = depth
        ply = 0
        phase = 0  # 0 enter node, 1 next child, 2 return value to parent
        ret = 0.0
        nodes = 0
        aborted = False
        while True:
            if phase == 0:
                nodes += 1
                if nodes > node_limit:
                    aborted = True
                    break
                if nodes & (CLOCK_EVERY - 1) == 0 and (stop[0] != 0 or now() > deadline):
                    aborted = True
                    break
                me = mes[ply]
                opp = opps[ply]
                remaining = rem[ply]
                if ply > 0:
                    st = status(ctx, me, opp)
                    if st != ONGOING:
                        ret = 0.0 if st == DRAW else st * (WIN - ply)
                        phase = 2
                        continue
                    if _repeated(seen, mes, opps, ply):
                        ret = -contempt if ply % 2 == 0 else contempt  # a draw, valued by the root side
                        phase = 2
                        continue
                if remaining == 0:
                    if win_probe and may_win(ctx, me, opp) and _wins_now(ctx, me, opp, moves[ply]):
                        ret = WIN - (ply + 1)
                    else:
                        ret = evaluate(ctx, me, opp, eval_id)
                    phase = 2
                    continue
                alpha_orig[ply] = alpha[ply]
                tt_move = -1
                has_key[ply] = False
                if remaining >= 2:
                    has_key[ply] = True
                    if use_sym:
                        key, sym = canonical(ctx, me, opp)
                    else:
                        key, sym = position_hash(me, opp), 0
                    keys[ply] = key
                    syms[ply] = sym
                    slot = ((key * HASH_MULT) >> shift) & mask
                    if table_words[slot, TT_DEPTH] > 0 and table_words[slot, TT_KEY] == key:
                        info = table_words[slot, TT_INFO]
                        stored = info // 4 - 1
                        flag = info % 4
                        if stored >= 0:
                            tt_move = action_maps[sym_inverse[sym], stored]
                        if ply > 0 and table_words[slot, TT_DEPTH] >= remaining:
                            value = _from_tt(table[slot, TT_VALUE], ply)
                            if flag == EXACT:
                                ret = value
                                phase = 2
                                continue
                            if flag == LOWER and value > alpha[ply]:
                                alpha[ply] = value
                            elif flag == UPPER and value < beta[ply]:
                                beta[ply] = value
                            if alpha[ply] >= beta[ply]:
                                ret = value
                                phase = 2
                                continue
                n = gen_moves(ctx, me, opp, moves[ply])
                count[ply] = n
                if n == 0:  # cannot happen for a game keeping the protocol; a draw if it does
                    ret = 0.0
                    phase = 2
                    continue
                for i in range(n):
                    m = moves[ply, i]
                    score = history[m]
                    if m == tt_move:
                        score += 4e18
                    elif m == killers[ply, 0]:
                        score += 2e18
                    elif m == killers[ply, 1]:
                        score += 1e18
                    if ply == 0:
                        score += root_jitter[m]
                    order[ply, i] = score
                cursor[ply] = 0
                best[ply] = -INF
                best_move[ply] = -1
                phase = 1
            elif phase == 1:
                c = cursor[ply]
                if c < count[ply]:
                    pick = c
                    for i in range(c + 1, count[ply]):
                        if order[ply, i] > order[ply, pick]:
                            pick = i
                    if pick != c:
                        moves[ply, c], moves[ply, pick] = moves[ply, pick], moves[ply, c]
                        order[ply, c], order[ply, pick] = order[ply, pick], order[ply, c]
                    cursor[ply] = c + 1
                    a, b = play(ctx, mes[ply], opps[ply], moves[ply, c])
                    mes[ply + 1] = a
                    opps[ply + 1] = b
                    alpha[ply + 1] = -beta[ply]
                    beta[ply + 1] = -max(alpha[ply], best[ply])
                    rem[ply + 1] = rem[ply] - 1
                    ply += 1
                    phase = 0
                else:
                    flag = EXACT
                    if best[ply] <= alpha_orig[ply]:
                        flag = UPPER
                    elif best[ply] >= beta[ply]:
                        flag = LOWER
                    if has_key[ply]:
                        _store(
                            table_words,
                            table,
                            keys[ply],
                            shift,
                            mask,
                            _to_tt(best[ply], ply),
                            rem[ply],
                            flag,
                            action_maps[syms[ply], best_move[ply]] if best_move[ply] >= 0 else -1,
                        )
                    ret = best[ply]
                    phase = 2
            else:
                if ply == 0:
                    break
                ply -= 1
                value = -ret
                m = moves[ply, cursor[ply] - 1]
                if value > best[ply]:
                    best[ply] = value
                    best_move[ply] = m
                    if value > alpha[ply]:
                        alpha[ply] = value
                if best[ply] >= beta[ply]:
                    if killers[ply, 0] != m:
                        killers[ply, 1] = killers[ply, 0]
                        killers[ply, 0] = m
                    history[m] += rem[ply] * rem[ply]
                    if has_key[ply]:
                        _store(
                            table_words,
                            table,
                            keys[ply],
                            shift,
                            mask,
                            _to_tt(best[ply], ply),
                            rem[ply],
                            LOWER,
                            action_maps[syms[ply], m],
                        )
                    ret = best[ply]
                    phase = 2
                else:
                    phase = 1
        return best_move[0], best[0], nodes, aborted

    return search


@cached_njit
def _repeated(seen, mes, opps, ply):  # type: ignore[no-untyped-def]
    """True if the node at ``ply`` repeats a game position or an earlier one on the path.

    A repeated position scores as a draw: whoever is ahead then looks for progress
    instead of cycling until the ply cap.
    """
    me = mes[ply]
    opp = opps[ply]
    for j in range(ply - 2, -1, -2):
        if mes[j] == me and opps[j] == opp:
            return True
    return seen_contains(seen, me, opp)


@cached_njit(inline="always")
def _seen_slot(seen, me, opp):  # type: ignore[no-untyped-def]
    return (((me * HASH_MULT) ^ opp) * HASH_MULT >> 40) & (seen.shape[0] - 1)


@cached_njit
def seen_contains(seen, me, opp):  # type: ignore[no-untyped-def]
    """Membership in an open-addressing set of positions: rows (used, a, b) of state words."""
    mask = seen.shape[0] - 1
    slot = _seen_slot(seen, me, opp)
    while seen[slot, 0] != 0:
        if seen[slot, 1] == me and seen[slot, 2] == opp:
            return True
        slot = (slot + 1) & mask
    return False


@cached_njit
def seen_add(seen, me, opp):  # type: ignore[no-untyped-def]
    """Add a position to the set (which must keep empty slots)."""
    mask = seen.shape[0] - 1
    slot = _seen_slot(seen, me, opp)
    while seen[slot, 0] != 0:
        if seen[slot, 1] == me and seen[slot, 2] == opp:
            return
        slot = (slot + 1) & mask
    seen[slot, 0] = 1
    seen[slot, 1] = me
    seen[slot, 2] = opp


def new_seen() -> np.ndarray:
    """An empty set of game positions for :func:`seen_add` / :func:`seen_contains`."""
    return np.zeros((SEEN_SIZE, 3), dtype=np.int64)


@cached_njit
def _log2(size):  # type: ignore[no-untyped-def]
    bits = 0
    while (1 << bits) < size:
        bits += 1
    return bits


@cached_njit
def _to_tt(value, ply):  # type: ignore[no-untyped-def]
    # mate scores are stored as distance from this node, not from the root
    if value >= MATE_ZONE:
        return value + ply
    if value <= -MATE_ZONE:
        return value - ply
    return value


@cached_njit
def _from_tt(value, ply):  # type: ignore[no-untyped-def]
    if value >= MATE_ZONE:
        return value - ply
    if value <= -MATE_ZONE:
        return value + ply
    return value


@cached_njit
def _stored_move(words, key):  # type: ignore[no-untyped-def]
    """The move stored with ``key``'s entry (in the canonical frame), or -1."""
    slot = ((key * HASH_MULT) >> (64 - _log2(words.shape[0]))) & (words.shape[0] - 1)
    if words[slot, TT_DEPTH] > 0 and words[slot, TT_KEY] == key:
        return words[slot, TT_INFO] // 4 - 1
    return -1


@cached_njit
def _store(words, values, key, shift, mask, value, depth, flag, move):  # type: ignore[no-untyped-def]
    slot = ((key * HASH_MULT) >> shift) & mask
    if words[slot, TT_KEY] == key and words[slot, TT_DEPTH] > depth:
        return
    words[slot, TT_KEY] = key
    values[slot, TT_VALUE] = value
    words[slot, TT_DEPTH] = depth
    words[slot, TT_INFO] = flag + 4 * (move + 1)


def _build_and_warm(kernel: Kernel, evaluate: Evaluation | None = None) -> Any:
    search = build_search(kernel, evaluate)
    _warm(search, kernel, kernel.ctx)
    return search


def _warm(search: Any, kernel: Kernel, ctx: tuple[Any, ...]) -> None:
    """Compile ``search`` for ``ctx`` now (a depth-1 search), so that the first timed search is
    not charged for it; after the first call this costs microseconds."""
    search(
        ctx,
        np.int64(0),
        np.int64(0),
        1,
        0,
        True,
        new_table(4),
        np.zeros(kernel.num_actions),
        np.full((3, 2), -1, dtype=np.int64),
        np.zeros(kernel.num_actions),
        NO_LIMIT,
        np.inf,
        new_seen(),
        0.0,
        True,
        np.zeros(1, dtype=np.int64),
    )


@functools.cache
def _builder_with(evaluate: Evaluation) -> Callable[[Kernel], Any]:
    """One builder per supplied evaluation, so that the compile cache keys on the function."""
    return functools.partial(build_search, evaluate=evaluate)


def compiled_search(
    kernel: Kernel, evaluate: Evaluation | None = None, ctx: tuple[Any, ...] | None = None
) -> Any:
    """The compiled search for a kernel (and a supplied leaf evaluation), built once per process
    and compiled for ``ctx`` (default the kernel's; a supplied evaluation may read more of it,
    e.g. a network's weights after the kernel's tables)."""
    if evaluate is None:
        return compiled_for(kernel, _build_and_warm)
    search = compiled_for(kernel, _builder_with(evaluate))
    _warm(search, kernel, kernel.ctx if ctx is None else ctx)
    return search


@dataclass
class SearchResult:
    """What one search reported: the move index, its score, depth reached and effort."""

    move: int
    score: float
    depth: int
    nodes: int
    seconds: float


class SearchRunner:
    """Holds the tables of one player (transposition table, history, killers) across moves.

    The leaf probe is off unless asked for (the agent turns it on). ``eval_name`` names one of
    the game's evaluations ("" for its first); ``evaluate``, a compiled function with the
    signature of ``kernel.evaluate``, replaces them at the leaves (it is passed the id of
    ``eval_name`` all the same).

    With ``threads`` > 1, :meth:`iterate` runs helper threads beside the main search (lazy
    SMP): each deepens on its own, odd helpers a ply ahead, with its own history, killers and
    root order, and all share the transposition table, so that the main search finds more of
    its tree already searched. Only the main search's result is played; the helpers stop when
    it ends. Two searches of the same position can then differ, as their threads race.
    """

    def __init__(
        self,
        kernel: Kernel,
        eval_name: str,
        tt_log2: int = 20,
        symmetric: bool = True,
        contempt: float = 0.0,
        *,
        win_probe: bool = False,
        deepen: float = DEFAULT_DEEPEN,
        threads: int = 1,
        ctx: tuple[Any, ...] | None = None,
        evaluate: Evaluation | None = None,
        thread_ctx: Callable[[], tuple[Any, ...]] | None = None,
    ) -> None:
        self.kernel = kernel
        self.ctx = kernel.ctx if ctx is None else ctx  # another ctx: other evaluation weights
        # an evaluation keeping scratch memory in ctx needs a ctx of its own in each helper thread
        self.helper_ctx = [self.ctx if thread_ctx is None else thread_ctx() for _ in range(threads - 1)]
        self.deepen = deepen
        self.win_probe = win_probe
        self.eval_id = evaluation_id(kernel, eval_name)
        self.symmetric = symmetric
        self.contempt = contempt
        self.table = new_table(tt_log2)
        self.history, self.killers = _ordering_tables(kernel)
        self.helpers = [_ordering_tables(kernel) for _ in range(threads - 1)]
        self.stop = np.zeros(1, dtype=np.int64)  # set to 1 to end the helpers' searches
        self.search_fn = compiled_search(kernel, evaluate, self.ctx)
        self.seen = new_seen()
        self.seen_count = 0
        self._warm_lookups()

    def _warm_lookups(self) -> None:
        """Compile what a move calls besides the search now, so that the first timed move is not
        charged for it: the positions of the game, and the table and a line on the empty board
        (in Nim a finished game: there the table alone)."""
        self.remember(0, 0)
        self.forget_positions()
        self.table_move(0, 0)
        legal = legal_mask(self.kernel, 0, 0)
        if legal.any():
            self.principal_variation(0, 0, int(np.argmax(legal)), 2)

    def reset(self) -> None:
        """Forget everything learned in earlier searches and the positions of the game."""
        self.table[:] = 0
        for history, killers in [(self.history, self.killers), *self.helpers]:
            history[:] = 0
            killers[:] = -1
        self.forget_positions()

    def forget_positions(self) -> None:
        """Forget the positions seen in the game (repetitions are scored against them)."""
        self.seen[:] = 0
        self.seen_count = 0

    def remember(self, me: int, opp: int) -> None:
        """Record a position of the game, seen by the side to move there."""
        if self.seen_count >= SEEN_SIZE // 2:
            self.forget_positions()
        if not seen_contains(self.seen, np.int64(me), np.int64(opp)):
            seen_add(self.seen, np.int64(me), np.int64(opp))
            self.seen_count += 1

    def table_move(self, me: int, opp: int) -> int:
        """The best move the transposition table holds for a position, or -1 (none, or one
        that is not legal there: another position's entry under the same slot)."""
        a, b = np.int64(me), np.int64(opp)
        if self.symmetric:
            key, sym = compiled_canonical(self.kernel)(self.ctx, a, b)
        else:
            key, sym = position_hash(a, b), 0
        stored = _stored_move(self.table, key)
        if stored < 0:
            return -1
        move = int(self.kernel.action_maps[self.kernel.sym_inverse[sym], stored])
        return move if legal_mask(self.kernel, me, opp)[move] else -1

    def principal_variation(self, me: int, opp: int, first: int, length: int) -> list[int]:
        """The line the search expects: ``first`` (its best root move), then the moves the
        table holds for the positions after it, at most ``length`` moves. The line ends early
        at a finished position, a position met before on it, or one the table does not hold
        (entries are stored only with two plies or more left, so the last ply is not there)."""
        kernel, ctx = self.kernel, self.ctx
        line: list[int] = []
        met = {(me, opp)}
        move = first
        while move >= 0 and len(line) < length:
            line.append(move)
            a, b = kernel.play(ctx, np.int64(me), np.int64(opp), np.int64(move))
            me, opp = int(a), int(b)
            if (me, opp) in met or kernel.status(ctx, a, b) != ONGOING:
                break
            met.add((me, opp))
            move = self.table_move(me, opp)
        return line

    def search(
        self,
        me: int,
        opp: int,
        depth: int,
        jitter: np.ndarray,
        node_limit: int = NO_LIMIT,
        deadline: float = np.inf,
    ) -> tuple[int, float, int, bool]:
        """One fixed-depth search: (move index, score, nodes, aborted).

        ``deadline`` is a ``time.perf_counter()`` value. An aborted search returns the best
        root move among those it finished with that move's score (a lower bound of the
        position's value at ``depth``), or move -1 when it finished none.
        """
        return self._search(
            (self.history, self.killers), self.ctx, me, opp, depth, jitter, node_limit, deadline
        )

    def _search(
        self,
        ordering: tuple[np.ndarray, np.ndarray],
        ctx: tuple[Any, ...],
        me: int,
        opp: int,
        depth: int,
        jitter: np.ndarray,
        node_limit: int,
        deadline: float,
    ) -> tuple[int, float, int, bool]:
        """:meth:`search` with the history and killer tables and the ctx of one thread."""
        history, killers = ordering
        history *= 0.5  # keep recent cut-offs more telling than old ones
        killers[:] = -1
        move, score, nodes, aborted = self.search_fn(
            ctx,
            np.int64(me),
            np.int64(opp),
            depth,
            self.eval_id,
            self.symmetric,
            self.table,
            history,
            killers,
            jitter,
            node_limit,
            deadline,
            self.seen,
            self.contempt,
            self.win_probe,
            self.stop,
        )
        return int(move), float(score), int(nodes), bool(aborted)

    def iterate(
        self,
        me: int,
        opp: int,
        max_depth: int,
        seconds: float,
        rng: np.random.Generator,
        node_limit: int = NO_LIMIT,
    ) -> SearchResult:
        """Iterative deepening to ``max_depth``, until ``seconds`` are spent (0: no time limit)
        or until the main search has visited ``node_limit`` positions.

        The node count is checked at every node: an iteration stops one node past what the
        limit leaves it, and no new one starts once the limit is spent. Depth 1 always
        finishes, whatever the limits, so that there is a move to play; helper threads search
        without a node limit and stop with the main search (their nodes are reported too).

        A new depth is started only while less than the share ``deepen`` of the time is spent
        (the next iteration costs several times the previous ones); an iteration cut off by the
        deadline still counts with the best root move it finished, which is searched first
        and so is at least as deep as the previous iteration's choice.
        """
        jitter = rng.random(self.kernel.num_actions)
        start = time.perf_counter()
        deadline = start + seconds if seconds > 0 else np.inf
        with ThreadPoolExecutor(max_workers=max(len(self.helpers), 1)) as pool:
            helpers = [
                pool.submit(
                    self._help,
                    tables,
                    self.helper_ctx[i],
                    i % 2,
                    me,
                    opp,
                    max_depth,
                    deadline,
                    rng.random(len(jitter)),
                )
                for i, tables in enumerate(self.helpers)
            ]
            try:
                result = self._deepen(me, opp, max_depth, (seconds, start, deadline, node_limit), jitter)
            finally:
                self.stop[0] = 1
                wait(helpers)
                self.stop[0] = 0
        result.nodes += sum(helper.result() for helper in helpers)  # a helper's error is raised here
        result.seconds = time.perf_counter() - start
        return result

    def _help(
        self,
        ordering: tuple[np.ndarray, np.ndarray],
        ctx: tuple[Any, ...],
        offset: int,
        me: int,
        opp: int,
        max_depth: int,
        deadline: float,
        jitter: np.ndarray,
    ) -> int:
        """A lazy-SMP helper of :meth:`iterate`: deepens the same position with its own
        ordering tables, ``offset`` plies ahead of the main search, until the stop flag or the
        deadline; returns the nodes it searched."""
        nodes = 0
        for depth in range(1 + offset, min(max_depth + offset, MAX_DEPTH) + 1):
            _, score, searched, aborted = self._search(
                ordering, ctx, me, opp, depth, jitter, NO_LIMIT, deadline
            )
            nodes += searched
            if aborted or is_mate_score(score) or self.stop[0]:
                break
        return nodes

    def _deepen(
        self,
        me: int,
        opp: int,
        max_depth: int,
        budget: tuple[float, float, float, int],
        jitter: np.ndarray,
    ) -> SearchResult:
        """The main search of :meth:`iterate`; ``budget`` is (seconds, start, deadline, node limit)."""
        seconds, start, deadline, node_limit = budget
        result = SearchResult(-1, 0.0, 0, 0, 0.0)
        total_nodes = 0
        for depth in range(1, max_depth + 1):
            elapsed = time.perf_counter() - start
            if depth > 1 and (total_nodes >= node_limit or (seconds > 0 and elapsed > seconds * self.deepen)):
                break
            # depth 1 always finishes, so that there is a move to play
            time_limit = deadline if depth > 1 else np.inf
            nodes_left = node_limit - total_nodes if depth > 1 else NO_LIMIT
            move, score, nodes, aborted = self.search(
                me, opp, depth, jitter, node_limit=nodes_left, deadline=time_limit
            )
            total_nodes += nodes
            if not aborted:
                result = SearchResult(move, score, depth, total_nodes, 0.0)
            elif move >= 0 and score > -MATE_ZONE:
                # a cut-off iteration: its best finished root move, unless every finished one loses
                result = SearchResult(move, score, depth - 1, total_nodes, 0.0)
            if aborted or is_mate_score(score):
                break
        result.nodes = total_nodes
        return result


def _ordering_tables(kernel: Kernel) -> tuple[np.ndarray, np.ndarray]:
    """Empty history and killer tables of one search thread."""
    return np.zeros(kernel.num_actions, dtype=np.float64), np.full((MAX_DEPTH + 2, 2), -1, dtype=np.int64)


def evaluation_id(kernel: Kernel, name: str) -> int:
    """The id of a game's evaluation by name ("" for the game's default, its first)."""
    if not name:
        return 0
    if name not in kernel.evaluations:
        raise EvaluationError(f"unknown evaluation {name!r}; this game has: {', '.join(kernel.evaluations)}")
    return kernel.evaluations.index(name)
