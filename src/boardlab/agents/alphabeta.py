"""The alpha-beta agent: the compiled negamax of :mod:`boardlab.search.alphabeta` within a budget.

:class:`AlphaBetaAgent` answers :meth:`~AlphaBetaAgent.act` with a
:class:`~boardlab.agents.decision.Decision`: the move, its search info (depth reached, nodes,
seconds, score, the principal variation read from the transposition table) and a value only
where the search proved a win or a loss. It searches to a fixed depth, or deepens within a
time or node budget. Its leaves are valued by one of the game's evaluations (``eval=``), by a
value network (``eval=net``; ``eval=best`` takes it where one is shipped for the game), or by a
compiled function given in Python: a subclass's ``leaf_evaluation`` (its spec then has no
``eval=`` or ``weights=``), or ``AlphaBetaAgent(evaluation=fn)`` (which refuses them).
"""

from __future__ import annotations

import functools
import inspect
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from boardlab.agents.base import Agent, AgentSpecError
from boardlab.agents.decision import Decision, Limit, SearchInfo, call_limit
from boardlab.core.inputs import InputFileError, read_json
from boardlab.core.spec import option
from boardlab.games.base import Kernel
from boardlab.search.settings import (
    DEFAULT_DEEPEN,
    DEFAULT_DEPTH,
    DEFAULT_WIN_PROBE,
    MAX_CONTEMPT,
    MAX_DEPTH,
    MAX_THREADS,
    NO_LIMIT,
)

if TYPE_CHECKING:
    from boardlab.models.evalnet import EvalNet
    from boardlab.search.alphabeta import Evaluation, SearchResult, SearchRunner

# The search and the value networks are compiled (numba): they are imported where a search
# is built or run, so that naming and listing the agents loads no compiler.

__all__ = [
    "BEST",
    "MAX_DEPTH",
    "AlphaBetaAgent",
    "AlphaBetaSettings",
    "OwnEvaluationSettings",
    "check_evaluation",
    "check_search_evaluation",
    "chosen_evaluation",
    "evaluation_id",
    "evaluation_net",
    "evaluation_weights",
    "is_net",
]


def evaluation_id(kernel: Kernel, name: str) -> int:
    """The id of a game's evaluation by name ("" for its first); AgentSpecError if it has none."""
    from boardlab.search import alphabeta as search

    try:
        return search.evaluation_id(kernel, name)
    except search.EvaluationError as error:
        raise AgentSpecError(str(error)) from None


NET = "net"
"""The evaluation name of a value network: ``eval=net`` (the one shipped for the game) or
``eval=net:PATH`` (a network file of one's own, see :mod:`boardlab.models.evalnet`)."""


BEST = "best"
"""``eval=best``: the strongest evaluation measured for the game, its shipped value network where
one is shipped (5×5 Quixo, both rulebooks), else the game's first evaluation. The hybrid's default."""


def chosen_evaluation(name: str, kernel: Kernel, *, weights: str = "", custom: bool = False) -> str:
    """The evaluation that ``eval=name`` stands for on ``kernel``: ``best`` is ``net`` where a
    network is shipped for it and neither fitted ``weights`` nor a Python evaluation (``custom``)
    are given, else the game's first (""); any other name is itself."""
    if name != BEST:
        return name
    from boardlab.models.evalnet import ships_for

    return NET if ships_for(kernel) and not weights and not custom else ""


def is_net(name: str) -> bool:
    """True for ``net`` and ``net:PATH``."""
    return name == NET or name.startswith(NET + ":")


def evaluation_net(agent: str, name: str, kernel: Kernel, game: Any = None) -> EvalNet | None:
    """The network that ``eval=name`` names for ``kernel`` (None for the game's own evaluations);
    AgentSpecError when it cannot be read or does not fit the game (``game``, the kernel's, where
    known: the error then says how to train one when none is shipped)."""
    if not is_net(name):
        return None
    from boardlab.models.evalnet import EvalNetError, NoShippedNetwork, net_for

    path = name[len(NET) + 1 :]
    if name != NET and not path.strip():  # not the shipped network: that is eval=net
        raise AgentSpecError(
            f"{agent}: eval={name}: no network file after 'net:' (eval=net takes the shipped network)"
        )
    try:
        return net_for(kernel, path)
    except NoShippedNetwork as error:
        raise AgentSpecError(f"{agent}: eval={name}: {error}; {_how_to_train(game)}") from None
    except EvalNetError as error:
        raise AgentSpecError(f"{agent}: eval={name}: {error}") from None


EVALNET_DATA_EVALUATIONS = frozenset({"tuned", "patterns"})
"""The evaluations of the data players and opponent ``boardlab train evalnet`` has by default."""
PLAIN_TRAINING = ' --players "alphabeta:time=0.03;alphabeta:depth=3" --against alphabeta:depth=2'
"""Data players and an opponent of a game's own first evaluation, for a game without those."""


def _how_to_train(game: Any) -> str:
    """How to get a network for ``game`` (None: a game not known here): the ``boardlab train
    evalnet`` command that trains one, runnable as written, or why none can be trained."""
    if game is None:
        return "train one with boardlab train evalnet (see boardlab train evalnet --help)"
    from boardlab.models.evalnet import EvalNetError, check_words_are_planes

    try:
        check_words_are_planes(game.kernel)
    except EvalNetError as error:
        return f"evalnet cannot train on {game.spec}: {error}"
    command = f"boardlab train evalnet --game {game.spec} --out DIR"
    if not set(game.evaluations) >= EVALNET_DATA_EVALUATIONS:
        command += PLAIN_TRAINING
    return f"train one with `{command}` and give eval=net:DIR/evalnet.safetensors"


def check_evaluation(agent: str, name: str, game: Any) -> None:
    """AgentSpecError if ``game`` has no evaluation called ``name`` (or no network for ``net``)."""
    if is_net(name):
        evaluation_net(agent, name, game.kernel, game)
        return
    if name and name not in game.evaluations:
        raise AgentSpecError(
            f"{agent}: eval={name!r} is not an evaluation of {game.name}; choose one of "
            f"{', '.join(game.evaluations)}, or net (a value network), net:PATH"
        )


def check_search_evaluation(agent: str, settings: Any, game: Any) -> None:
    """AgentSpecError if the leaf evaluation of alpha-beta ``settings`` (``eval=``, ``weights=``)
    cannot be used on ``game``."""
    name = chosen_evaluation(settings.eval, game.kernel, weights=settings.weights)
    check_evaluation(agent, name, game)
    evaluation_weights(agent, settings.weights, name, game.kernel)


@dataclass(frozen=True)
class AlphaBetaSettings:
    """Options of the alpha-beta agent."""

    depth: int = option(0, "search depth in plies (0: as deep as time allows)", minimum=0, maximum=MAX_DEPTH)
    time: float = option(
        0.0, "seconds per move (0: no limit; depth 4 if both are 0)", minimum=0, maximum=3600
    )
    eval: str = option(
        "",
        "position evaluation (default: the game's first; see the game's list), or net: the shipped "
        "value network, net:PATH: a network file, best: the shipped network where there is one, "
        "else the game's first",
    )
    tt: int = option(20, "log2 of the transposition table size", minimum=10, maximum=30)
    sym: bool = option(True, "share table entries between symmetric positions")
    contempt: float = option(
        0.0,
        "how much worse than even a repeated (drawn) position looks",
        minimum=-MAX_CONTEMPT,
        maximum=MAX_CONTEMPT,
    )
    probe: bool = option(
        DEFAULT_WIN_PROBE, "at the leaves, look for a move that wins at once before evaluating (Quixo)"
    )
    deepen: float = option(
        DEFAULT_DEEPEN,
        "with a time limit, start a new depth only while less than this share of the time is spent",
        minimum=0,
        maximum=1,
    )
    weights: str = option(
        "", "a JSON file of fitted evaluation weights to use instead of the shipped ones (Quixo's tuned)"
    )
    threads: int = option(
        1,
        "search threads sharing the transposition table (lazy SMP; 1: one thread)",
        minimum=1,
        maximum=MAX_THREADS,
    )


@dataclass(frozen=True)
class OwnEvaluationSettings(AlphaBetaSettings):
    """Options of an alpha-beta whose leaves a Python evaluation values: alpha-beta's, but for
    ``eval=`` and ``weights=``, which choose among the game's own evaluations and so would name
    a player this is not (kept as fields at their defaults, no longer options)."""

    eval: str = ""
    weights: str = ""


MAX_WEIGHTS_BYTES = 16 << 20
"""The largest evaluation-weights file read (fitted weights take a few kilobytes)."""


def evaluation_weights(agent: str, path: str, eval_name: str, kernel: Kernel) -> tuple[Any, ...] | None:
    """The ``ctx`` of ``kernel`` with the evaluation weights of the file at ``path`` (None for
    no file); AgentSpecError when the file cannot be read or does not fit."""
    if not path:
        return None
    if is_net(eval_name):
        raise AgentSpecError(f"{agent}: weights= sets fitted linear weights; a network (eval=net) takes none")
    name = eval_name or kernel.evaluations[0]
    if kernel.reweigh is None:
        raise AgentSpecError(f"{agent}: weights= needs fitted evaluation weights; {kernel.name} has none")
    try:
        document = read_json(path, "weights file", MAX_WEIGHTS_BYTES)
    except InputFileError as error:
        raise AgentSpecError(f"{agent}: weights={path!r} cannot be used: {error}") from None
    try:
        return kernel.reweigh(name, document)
    except (OSError, UnicodeDecodeError, ValueError, TypeError, KeyError, AttributeError) as error:
        reason = error.strerror if isinstance(error, OSError) and error.strerror else error
        raise AgentSpecError(f"{agent}: weights={path!r} cannot be used: {reason}") from None


class AlphaBetaAgent(Agent):
    """Negamax alpha-beta with a transposition table and iterative deepening.

    A compiled leaf evaluation with the signature of ``kernel.evaluate`` (see
    :data:`boardlab.search.alphabeta.Evaluation`) replaces the game's evaluations: set as a
    subclass's ``leaf_evaluation`` (its options are then :class:`OwnEvaluationSettings`, without
    ``eval=`` and ``weights=``), or given as ``evaluation=`` (which refuses ``eval=`` and
    ``weights=`` other than their defaults, as they would not be used). It is given in Python
    only, so the agent's spec names it by the agent's name alone: register a changed evaluation
    under another name.
    """

    name = "alphabeta"
    summary = "negamax alpha-beta, transposition table, iterative deepening"
    Settings: ClassVar[type] = AlphaBetaSettings
    settings: AlphaBetaSettings
    leaf_evaluation: ClassVar[Evaluation | None] = None
    """A subclass's own compiled leaf evaluation (None: the game's, chosen by ``eval=``)."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if own_evaluation(cls) is not None and cls.Settings is AlphaBetaSettings:
            cls.Settings = OwnEvaluationSettings  # eval= and weights= would name another player

    def __init__(
        self,
        seed: int | None = None,
        settings: Any = None,
        *,
        evaluation: Evaluation | None = None,
        **options: Any,
    ) -> None:
        super().__init__(seed, settings, **options)
        self.evaluation = evaluation if evaluation is not None else own_evaluation(type(self))
        if self.evaluation is not None:
            refuse_game_evaluations(self.name, self.settings)
        self.np_rng = np.random.default_rng(seed)
        self._runners: dict[str, SearchRunner] = {}
        self.last: SearchResult | None = None
        self._seen: dict[str, list[tuple[int, int, int]]] = {}  # by kernel: (ply, me, opp) of the game

    @classmethod
    def check_game(cls, settings: Any, game: Any) -> None:
        super().check_game(settings, game)
        check_search_evaluation(cls.name, settings, game)

    @classmethod
    def default_limit(cls, settings: Any) -> Limit:
        return Limit.from_options(time=settings.time, depth=settings.depth)

    @classmethod
    def memory_bytes(cls, settings: Any, game: Any) -> int:
        from boardlab.search.alphabeta import new_table

        return new_table(0).nbytes << settings.tt  # the transposition table

    def runner(self, kernel: Kernel) -> SearchRunner:
        """The search tables for a game (one set per kernel)."""
        if kernel.name not in self._runners:
            from boardlab.models.evalnet import net_evaluation
            from boardlab.search.alphabeta import SearchRunner

            s = self.settings
            name = chosen_evaluation(s.eval, kernel, weights=s.weights, custom=self.evaluation is not None)
            net = evaluation_net(self.name, name, kernel)
            ctx, evaluate = evaluation_weights(self.name, s.weights, name, kernel), self.evaluation
            thread_ctx = None
            if net is not None:
                ctx, evaluate = net.search_ctx(kernel), net_evaluation(kernel, net)
                thread_ctx = functools.partial(net.search_ctx, kernel)  # its scratch, per thread
            else:
                evaluation_id(kernel, name)  # AgentSpecError for an evaluation the game lacks
            self._runners[kernel.name] = SearchRunner(
                kernel,
                (net.base if net is not None else name),
                s.tt,
                s.sym,
                s.contempt,
                win_probe=s.probe,
                deepen=s.deepen,
                threads=s.threads,
                ctx=ctx,
                evaluate=evaluate,
                thread_ctx=thread_ctx,
            )
        return self._runners[kernel.name]

    def new_game(self) -> None:
        self._seen = {}
        for runner in self._runners.values():
            runner.reset()

    def prepare(self, game: Any) -> None:
        self.runner(game.kernel)  # allocates the tables and compiles the search

    def analyse(self, state: Any, limit: Limit | None = None) -> SearchResult:
        """Search ``state`` within ``limit`` (default: the agent's) and report the best move
        index, its score, the depth reached and the effort.

        Without a depth limit the search deepens while time or nodes are left (to depth 4 when
        neither is limited either). Positions of earlier plies met in earlier calls count as
        repetitions (draws): those of the game so far. A call at the ply of an earlier call or
        before it (the same position asked again, a move taken back, another game) forgets
        those of that ply and after, so that asking again gives the same answer.
        """
        budget = self.limit if limit is None else limit
        if budget.depth is not None:
            max_depth = min(budget.depth, MAX_DEPTH)
        else:
            max_depth = MAX_DEPTH if budget.time or budget.nodes else DEFAULT_DEPTH
        runner = self.runner(state.kernel)
        me, opp = state.words
        self._remember(state.kernel, state.ply, me, opp)
        result = runner.iterate(me, opp, max_depth, budget.time or 0.0, self.np_rng, budget.nodes or NO_LIMIT)
        after = state.kernel.play(state.kernel.ctx, np.int64(me), np.int64(opp), result.move)
        self._remember(state.kernel, state.ply + 1, int(after[0]), int(after[1]))
        self.last = result
        return result

    def _remember(self, kernel: Kernel, ply: int, me: int, opp: int) -> None:
        """Record the position at ``ply`` as one of the game's, forgetting first those of that
        ply and later ones (from a call that went further, or the same position asked before)."""
        runner, seen = self.runner(kernel), self._seen.setdefault(kernel.name, [])
        if seen and seen[-1][0] >= ply:
            seen[:] = [position for position in seen if position[0] < ply]
            runner.forget_positions()
            for _, kept_me, kept_opp in seen:
                runner.remember(kept_me, kept_opp)
        seen.append((ply, me, opp))
        runner.remember(me, opp)

    def act(self, state: Any, limit: Limit | None = None) -> Decision:
        """The best move within ``limit`` over the agent's default limit (time, depth, nodes).

        A node limit bounds the main search's count, checked at every node (an iteration ends
        one node past it; depth 1 always finishes). ``value`` is 1 or -1 where the search
        proved a win or a loss, else None; ``info.pv`` is the expected line in notation.
        """
        from boardlab.search.alphabeta import proven_value

        result = self.analyse(state, call_limit(limit, self.limit, state))
        me, opp = state.words
        line = self.runner(state.kernel).principal_variation(me, opp, result.move, max(result.depth, 1))
        info = SearchInfo(
            depth=result.depth,
            nodes=result.nodes,
            seconds=result.seconds,
            score=result.score,
            pv=state.line_notation(line),
            engine=self.name,
        )
        return Decision(state.move_from_index(result.move), value=proven_value(result.score), info=info)


def own_evaluation(cls: type) -> Evaluation | None:
    """The ``leaf_evaluation`` an alpha-beta class sets, as it was set (a compiled function is
    a descriptor: read through the class, it would not be itself)."""
    found = inspect.getattr_static(cls, "leaf_evaluation", None)
    return found.__func__ if isinstance(found, staticmethod) else found  # type: ignore[no-any-return]


def refuse_game_evaluations(agent: str, settings: AlphaBetaSettings) -> None:
    """AgentSpecError where an alpha-beta valued by a Python evaluation is given ``eval=`` or
    ``weights=``: they choose among the game's evaluations, and a spec saying one would name a
    player the agent is not (``eval=best``, the game's first here, is the default's meaning)."""
    given = [f"eval={settings.eval}"] if settings.eval not in ("", BEST) else []
    given += [f"weights={settings.weights}"] if settings.weights else []
    if given:
        raise AgentSpecError(
            f"{agent}: {' and '.join(given)} cannot be used: its leaves are valued by its own "
            "Python evaluation (eval= and weights= choose among the game's evaluations)"
        )
