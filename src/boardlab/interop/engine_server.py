"""boardlab's agents as engines: the engine protocol spoken from the other side.

``boardlab engine alphabeta:depth=6`` reads the protocol's commands on its standard input and
answers on its standard output (docs/interop.md, "Engines in any language"), so that any program
speaking the protocol, another boardlab's ``engine:cmd=...`` among them, plays boardlab's agents.
:func:`serve_engine` is the loop; :func:`read_go` and :func:`info_line` are the inverses of
:func:`~boardlab.interop.engine.go_line` and :func:`~boardlab.interop.engine.read_info`.

A command this side cannot follow (an unknown word, a position that does not read, ``go``
before any position) ends the program with one line on its standard error and exit status 2:
the protocol has no error answer, and the peer reports an engine that exited with its last
line. A game it cannot play, or an agent that does not play that game, is answered ``refuse``.

The agent's answer is held to the referee's contract (:func:`~boardlab.play.referee.answer_fault`:
a Decision of a legal move object, a policy of one number per action): an agent that answers
otherwise, or fails while deciding, never puts a move on the protocol; :func:`serve_engine`
raises :class:`~boardlab.play.referee.AgentForfeit` saying why, which the command reports in one
line with exit status 1 (the protocol has no answer for an engine that cannot move).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, TextIO

from boardlab.agents.base import Agent, make_agent
from boardlab.agents.decision import Decision, Limit, LimitError
from boardlab.core.spec import SpecError, one_line, shorten
from boardlab.games import parse_game
from boardlab.games.base import GameError
from boardlab.interop.engine import MAX_PV, PROTOCOL_VERSION, ProtocolError
from boardlab.play.referee import AgentForfeit, answer_fault, describe_failure

__all__ = ["EngineServerError", "info_line", "read_go", "serve_engine"]

SECONDS_WORDS = ("time", "clock", "increment")
"""The ``go`` words followed by seconds..."""
COUNT_WORDS = {"movestogo": "moves_to_go", "depth": "depth", "nodes": "nodes", "iterations": "iterations"}
"""...and those followed by a count, with the :class:`Limit` field each sets."""


class EngineServerError(ValueError):
    """A command from the peer that this side cannot follow (exit status 2)."""


def read_go(words: list[str]) -> Limit:
    """The :class:`Limit` of a ``go`` line's words after ``go`` (``time 1.5 depth 6``); an
    empty list is an open limit. ProtocolError for an unknown or repeated word, a missing value,
    or a value that is no budget of its kind."""
    fields: dict[str, Any] = {}
    rest = iter(words)
    for word in rest:
        field = word if word in SECONDS_WORDS else COUNT_WORDS.get(word)
        if field is None:
            accepted = ", ".join((*SECONDS_WORDS, *COUNT_WORDS))
            raise ProtocolError(f"unknown go word {shorten(word, 20)!r} (accepted: {accepted})")
        if field in fields:
            raise ProtocolError(f"go word {word!r} given twice")
        text = next(rest, None)
        if text is None:
            raise ProtocolError(f"go word {word!r} has no value")
        fields[field] = _number(word, text, whole=word in COUNT_WORDS)
    try:
        return Limit(**fields)
    except LimitError as err:
        raise ProtocolError(f"go: {err}") from None


def _number(word: str, text: str, *, whole: bool) -> float | int:
    kind = "a whole number" if whole else "a number of seconds"
    try:
        if not text.isascii() or len(text) > 30:
            raise ValueError(text)
        value: float | int = int(text) if whole else float(text)
    except ValueError:
        raise ProtocolError(f"go {word} must be {kind}, got {shorten(text, 20)!r}") from None
    if not whole and not math.isfinite(value):
        raise ProtocolError(f"go {word} must be {kind}, got {shorten(text, 20)!r}")
    return value


def info_line(decision: Decision) -> str | None:
    """The ``info`` line of a decision (its value for the side to move, and its search's depth,
    nodes and principal variation), or None where it says none of these."""
    words = []
    if decision.value is not None:
        words += ["value", f"{decision.value:.4f}".rstrip("0").rstrip(".")]
    info = decision.info
    if info is not None:
        words += [
            part for name in ("depth", "nodes") if (n := getattr(info, name)) for part in (name, str(n))
        ]
        if info.pv:
            words += ["pv", *info.pv[:MAX_PV]]
    return " ".join(["info", *words]) if words else None


@dataclass
class _Seat:
    """The game being played, its agent and the position to move from."""

    game: Any = None
    agent: Agent | None = None
    line: str = ""
    state: Any = None


def serve_engine(spec: str, commands: Iterable[str], out: TextIO, seed: int | None = None) -> None:
    """Answer the protocol's ``commands`` (lines, as read from standard input) on ``out`` with
    the agent of ``spec``, until ``quit`` or the end of the commands; each answer is flushed at
    once. The agent is built for each game named (``refuse`` where it cannot be) and keeps its
    memory until ``newgame``. EngineServerError for a command that cannot be followed;
    AgentForfeit, in one line, for an agent that fails while deciding or answers what the
    referee would forfeit (an illegal move, a move that is no move object, a policy of the wrong
    length): nothing is sent for that ``go``."""
    seat = _Seat()

    def say(line: str) -> None:
        out.write(line + "\n")
        out.flush()

    for raw in commands:
        words = raw.split()
        if not words or words[0].startswith("#"):
            continue
        command, rest = words[0], raw.strip()[len(words[0]) :].strip()
        if command == "quit":
            return
        if command == "boardlab":
            _handshake(rest)
            say(f"name boardlab {spec}")
            say("ready")
        elif command == "game":
            refusal = _take_game(seat, spec, rest, seed)
            say(f"refuse {refusal}" if refusal else "ready")
        elif command == "newgame":
            _seated(seat, command).new_game()
        elif command == "position":
            seat.state = _position(seat, rest)
        elif command == "go":
            decision = _decide(seat, words[1:])
            if (line := info_line(decision)) is not None:
                say(line)
            say(f"move {decision.move}")
        else:
            raise EngineServerError(f"unknown command {shorten(one_line(raw), 40)!r}")


def _handshake(version: str) -> None:
    if version != str(PROTOCOL_VERSION):
        raise EngineServerError(
            f"protocol version {shorten(version, 20)!r} is not spoken here (version {PROTOCOL_VERSION} is)"
        )


def _take_game(seat: _Seat, spec: str, line: str, seed: int | None) -> str:
    """Seat the agent of ``spec`` for the game ``line`` (kept when the game is the same); the
    reason for refusing it, or an empty string."""
    if seat.agent is not None and line == seat.line:
        return ""
    seat.game = seat.agent = seat.state = None
    try:
        game = parse_game(line)
        agent = make_agent(spec, seed, game)
        agent.prepare(game)
    except (SpecError, GameError, AgentForfeit) as err:
        return shorten(one_line(str(err)), 200)
    seat.game, seat.agent, seat.line = game, agent, line
    return ""


def _seated(seat: _Seat, command: str) -> Agent:
    if seat.agent is None:
        raise EngineServerError(f"{command} before a game was accepted (game SPEC first)")
    return seat.agent


def _position(seat: _Seat, text: str) -> Any:
    _seated(seat, "position")
    try:
        return seat.game.parse_position(text)
    except GameError as err:
        said = one_line(str(err))
        if not said.startswith("cannot read position"):
            said = f"cannot read position {shorten(text, 40)!r}: {said}"
        raise EngineServerError(shorten(said, 200)) from None


def _decide(seat: _Seat, words: list[str]) -> Decision:
    agent = _seated(seat, "go")
    if seat.state is None:
        raise EngineServerError("go before a position (position TEXT first)")
    if seat.state.is_over:
        raise EngineServerError(f"go on a finished game ({seat.state.to_text()})")
    try:
        limit = read_go(words)
    except ProtocolError as err:
        raise EngineServerError(str(err)) from None
    try:
        answer = agent.act(seat.state, limit)
    except (Exception, SystemExit) as err:  # the agent's failure, not the protocol's: status 1
        raise AgentForfeit(describe_failure(err)) from None
    if (fault := answer_fault(seat.state, answer)) is not None:
        raise AgentForfeit(fault)  # sent, its move would be illegal or garbage for the peer
    return answer
