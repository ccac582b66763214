"""Thinking away from the server: the web's agent pools, with exact analysis as one more request.

The server never runs an agent or a solver in its own process: its agents' moves and its
analyses are requests to a :class:`~boardlab.play.agent_pool.AgentPool` (see there for the
workers, their time limits and what a failure means). :func:`think_pool` makes one whose
workers answer, besides an agent's ``"act"`` and ``"check"``, the analysis panel's ``"exact"``:
the exact value of a position and of each of its moves from the game's exact play, which a
worker opens once per game variant (compiled on a warm-up position) and keeps; and the review's
``"review"``: one move judged by that exact play (:func:`boardlab.arena.review.review_move`); and
``"prepare"``: a game's agent built and prepared ahead of its first move.
"""

from __future__ import annotations

import random
from typing import Any

from boardlab.arena.review import review_move, unjudged_move
from boardlab.games import ExactPlayError, exact_play, parse_game
from boardlab.games.exact import value_of_moves
from boardlab.play.agent_pool import AGENT_REQUESTS, AgentPool, AgentWorker, Handler
from boardlab.play.referee import SETUP_TIMEOUT, Send

EXACT_LIMIT = 2_000_000
"""Most positions an exhaustive solve on demand may hold in a worker (small games only)."""


def _exact_play(worker: AgentWorker, game: Any) -> Any:
    """The game's exact play, opened once per worker (or why there is none, as text)."""
    key = "exact:" + game.spec
    if key not in worker.kept:
        try:
            exact = exact_play(game, limit=EXACT_LIMIT)
            _warm(exact, game)
            worker.kept[key] = exact
        except ExactPlayError as err:
            worker.kept[key] = str(err)
    return worker.kept[key]


def _warm(exact: Any, game: Any) -> None:
    """Compile what an exact play runs, on the last position of a random game before its end,
    so that no analysis's budget pays for a compile."""
    rng = random.Random(0)
    state, before = game.initial(), None
    while not state.is_over:
        before, state = state, state.play(rng.choice(state.legal_moves()))
    if before is not None and exact.covers(before):
        exact.move_values(before)


def exact(worker: AgentWorker, request: dict[str, Any], send: Send) -> dict[str, Any]:
    """``{"kind": "exact", "game", "position"}``: the exact values of the position and its moves
    (``{"exact": None, "why": ...}`` where the game's exact play does not cover it)."""
    game = parse_game(request["game"])
    state = game.parse_position(request["position"])
    solver = _exact_play(worker, game)
    send({"started": True})
    if isinstance(solver, str):
        return {"exact": None, "why": solver}
    reason = solver.uncovered(state)
    if reason is not None:
        return {"exact": None, "why": reason}
    values = solver.move_values(state)
    moves = [
        {
            "move": str(state.move_from_index(v.action)),
            "value": v.name,
            "depth": v.depth,
            "score": v.score,
        }
        for v in values
    ]
    position = solver.position_value(state) if state.is_over or not values else value_of_moves(values)
    best = {str(state.move_from_index(a)) for a in (solver.best_actions(state) if values else [])}
    for item in moves:
        item["best"] = item["move"] in best
    return {
        "exact": {
            "title": solver.title,
            "value": position.name,
            "depth": position.depth,
            "score": position.score,
            "moves": moves,
        }
    }


def review(worker: AgentWorker, request: dict[str, Any], send: Send) -> dict[str, Any]:
    """``{"kind": "review", "game", "position", "move"}``: the move (legal in the position)
    judged by the game's exact play, as ``boardlab review`` judges it: ``{"review":
    ReviewedMove.to_json(), "tally": Tally.to_json() or None where not judged}``."""
    game = parse_game(request["game"])
    state = game.parse_position(request["position"])
    solver = _exact_play(worker, game)
    send({"started": True})
    if isinstance(solver, str):
        reviewed, tally = unjudged_move(state, request["move"], solver), None
    else:
        reviewed, tally = review_move(state, request["move"], solver)
    return {"review": reviewed.to_json(), "tally": None if tally is None else tally.to_json()}


def prepare(worker: AgentWorker, request: dict[str, Any], send: Send) -> dict[str, Any]:
    """``{"kind": "prepare", "key", "game", "agent", "seed"?}``: build and prepare the agent that
    an ``"act"`` request will ask for under ``key`` (compiling included) and keep it, so that a
    game's first move does not wait for its start-up."""
    worker.agent(request["key"], parse_game(request["game"]), request["agent"], request.get("seed"))
    send({"started": True})
    return {"ok": True}


WEB_REQUESTS: dict[str, Handler] = {**AGENT_REQUESTS, "exact": exact, "review": review, "prepare": prepare}
"""What the server's workers answer: an agent's requests (and its preparation ahead of its first
move), exact analysis and review."""


def think_pool(size: int, *, setup_timeout: float = SETUP_TIMEOUT) -> AgentPool:
    """``size`` worker processes answering the server's requests (:data:`WEB_REQUESTS`)."""
    return AgentPool(
        size, setup_timeout=setup_timeout, requests=f"{__name__}:WEB_REQUESTS", name="boardlab-web-worker"
    )


__all__ = ["EXACT_LIMIT", "WEB_REQUESTS", "exact", "prepare", "review", "think_pool"]
