"""The hybrid agent: alpha-beta by default, Monte Carlo tree search where alpha-beta gives up,
solved tables where they exist.

Alpha-beta with the game's evaluation plays most moves. When it proves every move lost, the
move goes to MCTS: a minimax loss assumes a perfect opponent, and random rollouts look for
the lines where an imperfect one may still go wrong. Where solved endgame tables cover the
position (:func:`boardlab.games.endgame_for`: Quixo's 3x3 and 4x4 tables, and the 5x5 tables of
full boards and boards with one blank once built), the move comes from them: the fastest
win, the slowest loss, or a draw, chosen at random among equals from the agent's seed.

Its alpha-beta is a spec of its own, ``search=(alphabeta:...)``, read over the hybrid's
defaults for it (contempt 20, the leaf probe on, ``eval=best``: the shipped value network where
one is shipped for the game, else the game's first evaluation); its time is the hybrid's
``time`` times ``share``. The sub-spec is kept in canonical form (:func:`canonical_search`), so
that every spelling of one hybrid is one spec, and one player in the arena.
"""

from __future__ import annotations

import functools
import sys
import time
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from boardlab.agents.alphabeta import (
    BEST,
    AlphaBetaAgent,
    AlphaBetaSettings,
    check_search_evaluation,
)
from boardlab.agents.base import Agent, AgentSpecError
from boardlab.agents.decision import Decision, Limit, SearchInfo, call_limit
from boardlab.core.inputs import InputFileError
from boardlab.core.spec import (
    SpecError,
    build_options,
    format_value,
    one_line,
    option,
    options_of,
    split_spec,
)
from boardlab.games import ExactPlay, endgame_for
from boardlab.games.exact import distance_under_cap, value_under_cap

if TYPE_CHECKING:
    from boardlab.search.alphabeta import Evaluation

# The searches are compiled (numba): they are imported where they run, so that naming and
# listing the agents loads no compiler.

ALPHABETA_SHARE = 0.75  # of the time per move
MIN_MCTS_SHARE = 0.05  # MCTS is not started with less time than this share
SAFETY_MARGIN = 0.03  # kept back for the work around the searches
ROLLOUT_CAP = 200
DEFAULT_CONTEMPT = 20.0
"""A fifth of a logit of Quixo's `tuned`: enough to walk out of a repetition of a position a
little below level, too little to give up a better position for it (see BENCHMARKS.md)."""
SEARCH_DEFAULTS = AlphaBetaSettings(contempt=DEFAULT_CONTEMPT, eval=BEST)
"""The hybrid's alpha-beta where its ``search=`` spec says nothing else."""
SEARCH_EXAMPLE = "search=(alphabeta:eval=lines3,contempt=10)"


@functools.cache
def search_settings(search: str) -> AlphaBetaSettings:
    """The settings of the hybrid's alpha-beta from its ``search=`` spec, over
    :data:`SEARCH_DEFAULTS`; AgentSpecError naming the problem and the form expected."""
    try:
        name, texts = split_spec(search)
        if name != "alphabeta":
            raise SpecError(f"search= takes an alphabeta spec, like {SEARCH_EXAMPLE}, not {name!r}")
        if "time" in texts:
            raise SpecError(
                "its alpha-beta's time is hybrid's time times share: set those, not search's time"
            )
        return build_options(AlphaBetaSettings, "search=(alphabeta)", texts, base=SEARCH_DEFAULTS)
    except SpecError as error:
        raise AgentSpecError(f"hybrid: {error}") from None


@functools.cache
def canonical_search(search: str) -> str:
    """The one text of the hybrid's ``search=`` spec however it was written (``AlphaBeta:
    Eval=lines3`` and ``alphabeta:eval=lines3``, options in any order, the hybrid's defaults for
    its alpha-beta written out or not): ``alphabeta`` and the options, in their declared order,
    whose values differ from :data:`SEARCH_DEFAULTS`. AgentSpecError as :func:`search_settings`."""
    settings = search_settings(search)
    changed = ",".join(
        f"{o.name}={format_value(getattr(settings, o.name))}"
        for o in options_of(AlphaBetaSettings)
        if getattr(settings, o.name) != getattr(SEARCH_DEFAULTS, o.name)
    )
    return f"alphabeta:{changed}" if changed else "alphabeta"


@dataclass(frozen=True)
class HybridSettings:
    """Options of the hybrid agent."""

    time: float = option(
        1.0,
        "seconds per move (alpha-beta gets its share, MCTS what alpha-beta leaves)",
        minimum=0.001,
        maximum=3600,
    )
    share: float = option(
        ALPHABETA_SHARE, "alpha-beta's share of the time per move", minimum=0.05, maximum=1 - SAFETY_MARGIN
    )
    search: str = option(
        "alphabeta",
        f"its alpha-beta, over contempt {DEFAULT_CONTEMPT:g}, eval=best and alphabeta's defaults: "
        + SEARCH_EXAMPLE,
    )
    c: float = option(1.4, "MCTS exploration constant", minimum=0, maximum=100)
    tables: bool = option(True, "play perfectly where solved endgame tables cover the position")

    def __post_init__(self) -> None:
        # refused here, when the spec is read; kept canonical, so that the hybrid's spec is too
        object.__setattr__(self, "search", canonical_search(self.search))

    @classmethod
    def moved_option(cls, key: str, text: str) -> str | None:
        """Where an option of the hybrid's alpha-beta is written now (None: not one of them)."""
        if key == "time" or key not in {o.name for o in options_of(AlphaBetaSettings)}:
            return None
        return f"{key}= belongs to its alpha-beta now: write hybrid:search=(alphabeta:{key}={text.strip()})"


class HybridAgent(Agent):
    """Alpha-beta that hands the move to MCTS when it only finds losses.

    ``evaluation`` (Python only) is passed to its alpha-beta: see :class:`AlphaBetaAgent`.
    """

    name = "hybrid"
    summary = "alpha-beta, handing over to MCTS when every move is proven lost"
    Settings: ClassVar[type] = HybridSettings
    settings: HybridSettings

    def __init__(
        self,
        seed: int | None = None,
        settings: Any = None,
        *,
        evaluation: Evaluation | None = None,
        **options: Any,
    ) -> None:
        super().__init__(seed, settings, **options)
        s = self.settings
        self.np_rng = np.random.default_rng(seed)
        searcher_settings = replace(search_settings(s.search), time=s.share * s.time)
        self.searcher = AlphaBetaAgent(seed=seed, settings=searcher_settings, evaluation=evaluation)
        self.last_engine = ""
        self._endgames: dict[Any, ExactPlay | None] = {}

    @classmethod
    def check_game(cls, settings: Any, game: Any) -> None:
        super().check_game(settings, game)
        check_search_evaluation(cls.name, search_settings(settings.search), game)

    @classmethod
    def default_limit(cls, settings: Any) -> Limit:
        return Limit.from_options(time=settings.time, depth=search_settings(settings.search).depth)

    @classmethod
    def memory_bytes(cls, settings: Any, game: Any) -> int:
        return AlphaBetaAgent.memory_bytes(search_settings(settings.search), game)

    def new_game(self) -> None:
        self.searcher.new_game()

    def prepare(self, game: Any) -> None:
        from boardlab.search.mcts import compiled_mcts

        self.searcher.prepare(game)
        compiled_mcts(game.kernel)  # the first hand-over must not pay for a compile
        self._endgame(game)

    def _endgame(self, game: Any) -> ExactPlay | None:
        """The game's endgame tables, looked for once per game variant."""
        if not self.settings.tables:
            return None
        if game not in self._endgames:
            self._endgames[game] = endgame_for(game)
        return self._endgames[game]

    def _from_tables(self, state: Any) -> Decision | None:
        """The tables' move, with the position's value for the mover (as the perfect agent
        gives it), where they cover ``state``, else None. A table that fails its
        checks (a flipped byte, a truncated file) is reported once, on stderr, and the agent
        then searches without the tables of that game rather than losing the game."""
        endgame = self._endgame(state.game)
        try:
            if endgame is None or not endgame.covers(state):
                return None
            best = endgame.best_actions(state)
            exact_value = endgame.position_value(state)
        except InputFileError as error:
            self._endgames[state.game] = None
            print(f"{self.name}: {one_line(str(error))}; searching without the tables", file=sys.stderr)
            return None
        self.last_engine = "tables"
        move = state.move_from_index(best[int(self.np_rng.integers(len(best)))])
        value, plies = value_under_cap(state, exact_value), distance_under_cap(state, exact_value)
        info = SearchInfo(pv=(str(move),), engine="tables", plies_to_end=plies)
        return Decision(move, value=float(value), info=info)

    def act(self, state: Any, limit: Limit | None = None) -> Decision:
        """The move within ``limit`` over the agent's default (time, and depth and nodes for
        its alpha-beta); ``info.engine`` says which part decided: "tables", "alphabeta" or
        "mcts"."""
        from boardlab.search.alphabeta import MATE_ZONE
        from boardlab.search.mcts import mcts_search

        budget = call_limit(limit, self.limit, state)
        decided = self._from_tables(state)
        if decided is not None:
            return decided
        seconds = budget.time or self.settings.time
        start = time.perf_counter()
        deadline = start + (1.0 - SAFETY_MARGIN) * seconds
        searched = self.searcher.act(
            state, Limit(time=self.settings.share * seconds, depth=budget.depth, nodes=budget.nodes)
        )
        self.last_engine = "alphabeta"
        if searched.info is None or searched.info.score is None or searched.info.score > -MATE_ZONE:
            return searched
        remaining = deadline - time.perf_counter()
        if remaining < MIN_MCTS_SHARE * seconds:
            return searched  # no time left to look for swindles
        self.last_engine = "mcts"
        me, opp = state.words
        outcome, _ = mcts_search(
            state.kernel, me, opp, 0, max(remaining, 1e-3), self.settings.c, ROLLOUT_CAP, self.np_rng
        )
        move = state.move_from_index(outcome.move)
        info = SearchInfo(
            depth=searched.info.depth,
            nodes=outcome.iterations,
            seconds=time.perf_counter() - start,
            score=outcome.value,
            pv=(str(move),),
            engine="mcts",
        )
        return Decision(move, value=searched.value, info=info)
