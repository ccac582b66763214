"""``analyze`` by a search: what an agent decides in a position, with what its search saw.

Where no exact play covers a position (5x5 Quixo before its endgame tables, a game without a
solver), or when ``--agent`` names one, ``boardlab analyze`` asks an agent instead, as the
browser's analysis panel does: its move, its value or evaluation (a proven win or loss with its
distance), its depth, nodes and principal variation, and its policy over the moves where it has
one. The agent thinks in its own process (:class:`~boardlab.play.referee.AgentProcess`), so a
search that does not stop in time, or Ctrl-C, ends it.
"""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table

from boardlab.agents.base import make_agent
from boardlab.agents.decision import Decision, Limit
from boardlab.core.console import ply_count
from boardlab.core.spec import shorten
from boardlab.games.base import DRAW, LOSS, WIN
from boardlab.play.referee import MIN_MOVE_TIMEOUT, MOVE_TIMEOUT_FACTOR, AgentForfeit, AgentProcess
from boardlab.ui.errors import fail

SEARCH_AGENT = "alphabeta"
"""The agent ``analyze`` asks where no exact play covers a position (the browser's default too)."""
SEARCH_SECONDS = 2.0
"""Its default seconds of thought."""
POLICY_ROWS = 10
"""Most moves of a policy shown, largest share first."""
EXACT_ENGINES = ("exact", "tables")
"""The ``SearchInfo.engine`` of a decision whose value is exact (a solver's, endgame tables'):
its draw is a proven draw, said as one."""


def search_decision(state: Any, spec: str, seconds: float) -> Decision:
    """``spec``'s decision on ``state`` within ``seconds``, from a child process; exits with
    code 2 and one line for a spec that cannot play the game, 1 when the agent fails."""
    try:
        make_agent(spec, 0, game=state.game)  # refusals of the spec itself, in one line, at once
    except ValueError as err:
        fail(str(err))
    except Exception as err:  # an agent's constructor may fail in its own way
        fail(f"cannot build the agent: {type(err).__name__}: {err}")
    timeout = max(MIN_MOVE_TIMEOUT, MOVE_TIMEOUT_FACTOR * seconds)
    try:
        with AgentProcess(state.game.spec, spec, 0, timeout) as agent:
            return agent.act(state, Limit(time=seconds))
    except AgentForfeit as err:
        fail(f"the agent {shorten(spec)} failed: {err.detail}", code=1)


def show_decision(console: Console, state: Any, spec: str, seconds: float, decision: Decision) -> None:
    """Print ``decision`` for the side to move of ``state``: move, value, search, policy."""
    side = state.game.symbols[state.to_move]
    console.print(f"{shorten(spec)}, up to {seconds:g} s of search:")
    console.print(f"  best move   {decision.move}")
    if decision.value is not None:
        console.print(f"  value       {decision.value:+.3f} for {side} (1 a win, 0 a draw, -1 a loss)")
    info = decision.info
    if info is not None:
        evaluation = evaluation_text(
            state, decision.value, info.score, plies=info.plies_to_end, engine=info.engine
        )
        if evaluation is not None:
            console.print(f"  evaluation  {evaluation}")
        engine = f", {info.engine}" if info.engine else ""
        searched = "" if info.nodes is None else f"{info.nodes:,} nodes in "  # None: not said
        label, depth = ("depth", f"{info.depth} ") if info.depth else ("time", "")  # 0: not said
        console.print(f"  {label:<11} {depth}({searched}{info.seconds:.2f} s{engine})")
        if info.pv:
            console.print(f"  line        {' '.join(info.pv)}")
    if decision.policy is not None:
        _show_policy(console, state, decision.policy)


def value_words(value: int, depth: int | None, side: str | None = None) -> str:
    """A perfect-play value in words, as ``analyze`` says it: ``win in 21 plies``, ``loss in
    2 plies``, ``won already``, ``draw`` (``depth`` None: not known); with ``side``, whose value
    it is: ``a win for X in 21 plies``, ``X lost already``, ``a draw``."""
    if side is None:
        if depth is None:
            return {WIN: "win", LOSS: "loss"}.get(value, "draw")
        if value == WIN:
            return "won already" if depth == 0 else f"win in {ply_count(depth)}"
        if value == LOSS:
            return "lost already" if depth == 0 else f"loss in {ply_count(depth)}"
        return "draw"
    if value == DRAW:
        return "a draw"
    if depth == 0:
        return f"{side} {'won' if value == WIN else 'lost'} already"
    words = f"{'a win' if value == WIN else 'a loss'} for {side}"
    return words if depth is None else f"{words} in {ply_count(depth)}"


def decision_summary(state: Any, decision: Decision, line_moves: int = 6) -> str:
    """One line of what a decision saw, for the side to move of ``state``: its value or
    evaluation (an exact win or loss in words, with its distance where known), depth and the
    start of its line ("" for an agent that shows nothing); an exact draw (a solver's or tables')
    reads ``a draw``."""
    side = state.game.symbols[state.to_move]
    parts = []
    info = decision.info
    plies = None if info is None else info.plies_to_end
    engine = "" if info is None else info.engine
    if decision.value is not None and _exact_words(decision.value, plies, side, engine) is None:
        parts.append(f"value {decision.value:+.2f} for {side}")
    score = None if info is None else info.score
    evaluation = evaluation_text(state, decision.value, score, units=False, plies=plies, engine=engine)
    if evaluation is not None:
        parts.append(evaluation)
    if info is not None and info.depth:
        parts.append(f"depth {info.depth}")
    if info is not None and info.pv:
        more = " ..." if len(info.pv) > line_moves else ""
        parts.append("line " + " ".join(info.pv[:line_moves]) + more)
    return ", ".join(parts)


def evaluation_text(
    state: Any,
    value: float | None,
    score: float | None,
    units: bool = True,
    plies: int | None = None,
    engine: str = "",
) -> str | None:
    """A search's ``score`` for the side to move of ``state``, where it says more than the
    decision's ``value``: always without a value, else only a proven result with its distance
    (MCTS's score is its value again); None where it says nothing more. ``units``: a heuristic
    score says whose units it is in. ``plies``: the distance of an exact win or loss
    (``SearchInfo.plies_to_end``, from a solver or tables), said in ``analyze``'s words.
    ``engine``: the search that decided (``SearchInfo.engine``); one of :data:`EXACT_ENGINES`
    makes a value of 0 a proven draw, said ``a draw``."""
    side = state.game.symbols[state.to_move]
    if value is not None and (exact := _exact_words(value, plies, side, engine)) is not None:
        return exact
    if score is None or (value is not None and not _is_proven(score)):
        return None
    return _score_text(score, side, units)


def _exact_words(value: float, plies: int | None, side: str, engine: str = "") -> str | None:
    """An exact win or loss with its known distance in words (``a win for X in 21 plies``), an
    exact engine's draw (``a draw``, as ``analyze`` says it); None for anything else."""
    if value == 0.0 and engine in EXACT_ENGINES:
        return value_words(DRAW, None, side)
    if plies is None or abs(value) != 1.0:
        return None
    return value_words(WIN if value > 0 else LOSS, plies, side)


def _is_proven(score: float) -> bool:
    from boardlab.search.alphabeta import is_mate_score  # numba: only once a search has answered

    return is_mate_score(score)


def _score_text(score: float, side: str, units: bool = True) -> str:
    """A search's score for ``side``: a proven result with its distance, else the number
    (``units``: saying whose units it is in)."""
    from boardlab.search.alphabeta import WIN

    if _is_proven(score):
        plies = round(WIN - abs(score))
        result = "win" if score > 0 else "loss"
        return f"a proven {result} for {side} in {plies} {'ply' if plies == 1 else 'plies'}"
    shown = round(score, 2) + 0.0  # a draw's -0.0 (a negamax) shown as +0.00
    if units:
        return f"{shown:+.2f} for {side} (in the search's own units)"
    return f"evaluation {shown:+.2f} for {side}"


def _show_policy(console: Console, state: Any, policy: Any) -> None:
    """The policy over the legal moves, largest share first (at most :data:`POLICY_ROWS`)."""
    shares = sorted(
        ((float(policy[a]), str(state.move_from_index(a))) for a in state.legal_indices()),
        key=lambda item: -item[0],
    )
    shown = shares[:POLICY_ROWS]
    console.print(f"  policy      {len(shown)} of {len(shares)} moves, largest share first:")
    table = Table(show_header=False, box=None, padding=(0, 2))
    table.add_column("move")
    table.add_column("share", justify="right")
    for share, move in shown:
        table.add_row("   " + move, f"{100 * share:.1f} %")
    console.print(table)


__all__ = [
    "EXACT_ENGINES",
    "POLICY_ROWS",
    "SEARCH_AGENT",
    "SEARCH_SECONDS",
    "decision_summary",
    "evaluation_text",
    "search_decision",
    "show_decision",
    "value_words",
]
