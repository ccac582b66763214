"""The analysis panel's answers: exact values where a solver covers the position, else a search.

For a position, :class:`Analyst` first asks the game's exact play (:mod:`boardlab.games.exact`,
opened in a worker) for the value of every legal move, within the request's budget: Connect
Four from its solver (a position the solver does not finish in time has its worker stopped),
Quixo from its tables where built (3x3 at once, 4x4 and the 5x5 endgames once solved),
Tic-Tac-Toe and Nim from a full solve. Where there is no exact answer, or when an agent is
named, an agent from the registry (alpha-beta by default) decides within the budget and its
:class:`~boardlab.agents.decision.Decision` is shown as it is: its value, its policy over the
moves where it has one (an AlphaZero agent's network), and its search's score, depth, nodes
and principal variation. Answers are kept in a small cache, so hints that stay on during play
cost one analysis per position.

:meth:`Analyst.review` judges one move of a game the way ``boardlab review`` does
(:func:`boardlab.arena.review.review_move`, run in an exact-play worker), within the same budget,
workers, overrun handling and cache: the page's review asks it once per move.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from boardlab.arena.review import ARENA_OPENING, unjudged_move
from boardlab.play.agent_pool import AgentPool, Busy, Overrun, ThinkError
from boardlab.ui.search_analysis import SEARCH_AGENT
from boardlab.ui.web.hall import WebInputError, blamed, check_agent, check_in_worker, move_limit, said

CACHE_SIZE = 512
EXACT_SETUP_SECONDS = 30.0
"""Most seconds a worker may take to open a game's exact play (tables, a full solve of a small
game, compiling a solver) before the analysis goes on without it."""
QUEUE_SECONDS = 20.0
"""How long an analysis waits for a free worker before the server answers 429."""


class Analyst:
    """Analyses positions: exact play in ``exact_pool`` (whose workers are stopped when a solve
    overruns its budget), searches in ``search_pool`` (see the module notes)."""

    def __init__(
        self,
        exact_pool: AgentPool,
        search_pool: AgentPool,
        seconds: float = 2.0,
        max_seconds: float = 30.0,
        allow_paths: bool = False,
        agent: str = SEARCH_AGENT,
    ) -> None:
        self.exact_pool = exact_pool
        self.agent = agent
        self.search_pool = search_pool
        self.seconds = seconds
        self.max_seconds = max_seconds
        self.allow_paths = allow_paths
        self._cache: OrderedDict[tuple[str, str, str, float], dict[str, Any]] = OrderedDict()
        self._too_slow: dict[tuple[str, float], int] = {}
        """(game spec, budget) -> the largest ply at which an exact solve overran that budget:
        earlier positions, as hard or harder, are not tried again (each overrun stops a worker)."""
        self._built: set[tuple[str, str]] = set()
        """(game spec, agent spec) pairs a worker has built: checked once."""
        self._lock = threading.Lock()

    def analyze(self, state: Any, seconds: float | None = None, agent: str | None = None) -> dict[str, Any]:
        """The analysis of ``state`` (see the module notes); WebInputError for a bad budget or
        agent, and with status 429 when every worker stays busy."""
        budget = self._budget(seconds)
        with blamed("agent"):
            spec = (
                None
                if agent is None or not agent.strip()
                else check_agent(agent, state.game, self.allow_paths)
            )
            if spec is not None and (state.game.spec, spec) not in self._built:
                check_in_worker(self.search_pool, state.game, spec)  # the agent's own refusal: a 400
                self._built.add((state.game.spec, spec))
        key = (state.game.spec, state.to_text(), spec or "", budget)
        return self._cached(key, lambda: self._analyze(state, budget, spec))

    def review(
        self, state: Any, move: str, seconds: float | None = None, opening: bool = False
    ) -> dict[str, Any]:
        """``move`` (legal in ``state``) judged by the game's exact play within the budget:
        :meth:`~boardlab.arena.review.ReviewedMove.to_json`, with ``tally`` (the move's
        :class:`~boardlab.arena.oracle.Tally` as JSON, None where not judged) and ``cached``.
        Not judged, with the reason: a move of an arena game's ``opening``, a position the
        judge does not cover, one whose solve overran the budget (or comes before one that
        did). WebInputError for a bad budget, and with status 429 when every worker stays busy."""
        budget = self._budget(seconds)
        if opening:
            return {**unjudged_move(state, move, ARENA_OPENING).to_json(), "tally": None, "cached": False}
        key = (state.game.spec, state.to_text(), f"review {move}", budget)
        return self._cached(key, lambda: self._review(state, move, budget))

    def _budget(self, seconds: float | None) -> float:
        budget = self.seconds if seconds is None else seconds
        if not 0 < budget <= self.max_seconds:
            raise WebInputError(
                f"analysis time must be in (0, {self.max_seconds:g}] seconds, got {budget:g}", field="seconds"
            )
        return budget

    def _cached(
        self, key: tuple[str, str, str, float], answer_of: Callable[[], dict[str, Any]]
    ) -> dict[str, Any]:
        """The answer kept under ``key``, else ``answer_of()`` kept (least recently used out)."""
        with self._lock:
            if key in self._cache:
                self._cache.move_to_end(key)
                return {**self._cache[key], "cached": True}
        answer = answer_of()
        with self._lock:
            self._cache[key] = answer
            while len(self._cache) > CACHE_SIZE:
                self._cache.popitem(last=False)
        return {**answer, "cached": False}

    def _review(self, state: Any, move: str, budget: float) -> dict[str, Any]:
        slow = self._too_slow.get((state.game.spec, budget), -1)
        if state.ply <= slow:
            why = f"a position at ply {slow} already took longer than {budget:g} s"
        else:
            request = {"kind": "review", "game": state.game.spec, "position": state.to_text(), "move": move}
            try:
                reply = self.exact_pool.ask(request, budget, QUEUE_SECONDS, setup_seconds=EXACT_SETUP_SECONDS)
                return {**reply["review"], "tally": reply["tally"]}
            except Busy as err:
                raise WebInputError(str(err), 429) from None
            except Overrun:
                self._overran(state, budget, slow)
                why = f"the judge took longer than {budget:g} s"
            except ThinkError as err:
                why = str(err)
        return {**unjudged_move(state, move, why).to_json(), "tally": None}

    def _overran(self, state: Any, budget: float, slow: int) -> None:
        with self._lock:
            self._too_slow[(state.game.spec, budget)] = max(slow, int(state.ply))

    def _analyze(self, state: Any, budget: float, spec: str | None) -> dict[str, Any]:
        tic = time.perf_counter()
        answer: dict[str, Any] = {
            "position": state.to_text(),
            "game": state.game.spec,
            "exact": None,
            "search": None,
        }
        if state.is_over:
            answer["why"] = "the game is over"
            return answer
        request = {"game": state.game.spec, "position": state.to_text()}
        slow = self._too_slow.get((state.game.spec, budget), -1)
        if state.ply <= slow:
            answer["why"] = f"no exact value: a position at ply {slow} already took longer than {budget:g} s"
        else:
            try:
                reply = self.exact_pool.ask(
                    {"kind": "exact", **request}, budget, QUEUE_SECONDS, setup_seconds=EXACT_SETUP_SECONDS
                )
                answer["exact"] = reply["exact"]
                answer["why"] = reply.get("why")
            except Busy as err:
                raise WebInputError(str(err), 429) from None
            except Overrun as err:
                self._overran(state, budget, slow)
                answer["why"] = f"no exact value: {err}"
            except ThinkError as err:
                answer["why"] = f"no exact value: {err}"
        if answer["exact"] is None or spec is not None:
            spec = spec or self.agent
            act = {
                "kind": "act",
                "key": f"analysis/{spec}",
                "agent": spec,
                "seed": 0,
                "limit": {"time": budget},
            }
            try:
                reply = self.search_pool.ask({**act, **request}, move_limit(budget), QUEUE_SECONDS)
                decision = reply["decision"]
                shown = {"agent": spec, "move": decision["move"], "seconds": round(reply["seconds"], 3)}
                answer["search"] = {**shown, **said(decision, state)}
            except Busy as err:
                raise WebInputError(str(err), 429) from None
            except ThinkError as err:
                answer["search_error"] = f"{spec}: {err}"
        answer["seconds"] = round(time.perf_counter() - tic, 3)
        return answer


__all__ = ["Analyst"]
