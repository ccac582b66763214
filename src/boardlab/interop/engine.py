"""Engines in any language: a program speaking boardlab's text protocol as an agent.

``engine:cmd=./my_engine`` (or ``engine:cmd=(python3 my_engine.py --fast)``) plays a program
written in C, C++, Rust, Java... wherever an agent spec goes: ``match``, ``tournament``, ``play``,
``serve`` and the oracle, as cutechess-cli plays chess engines that speak UCI. The program reads
commands on its standard input and answers on its standard output, one line each, in UTF-8:

==============================  =========================================================
boardlab sends                  the engine answers
==============================  =========================================================
``boardlab 1``                  ``name <text>`` (optional), then ``ready``
``game <game spec>``            ``ready``, or ``refuse <reason>``
``newgame``                     nothing
``position <text>``             nothing
``go [time S] [clock S] ...``   ``info ...`` lines (optional), then ``move <notation>``
``quit``                        nothing: it exits (and so at the end of its input)
==============================  =========================================================

Empty lines and lines starting with ``#`` are ignored; any other line out of place is a
protocol error. docs/interop.md ("Engines in any language") is the reference.

The program is started by :meth:`EngineAgent.prepare` (before the first move's clock runs) and
kept for the games that follow; it is stopped when the agent is dropped or the interpreter exits,
and it must exit by itself when its input ends, since the process that holds the agent may be
killed outright. It stays in that process's group, so that a worker's group, ended by the
arena, takes it along. Whatever goes wrong (a program that cannot start, exits, hangs, answers
garbage or an illegal move, refuses the game) is an
:class:`~boardlab.play.referee.AgentForfeit` saying so in one line. The commands that play whole
games check first that the program starts and accepts the game (:func:`check_start`, through
:meth:`EngineAgent.check_whole_game`), so that an engine failing there is refused before play
instead of forfeiting every game.
"""

from __future__ import annotations

import contextlib
import os
import queue
import shlex
import shutil
import subprocess
import threading
import time
import weakref
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from stat import S_ISREG
from typing import IO, Any, ClassVar, NoReturn

from boardlab.agents.base import Agent, AgentSpecError
from boardlab.agents.decision import Decision, Limit, SearchInfo, call_limit, check_limit
from boardlab.core.processes import describe_exit
from boardlab.core.spec import format_value, one_line, option, options_of, shorten
from boardlab.play.clock import reading_text
from boardlab.play.referee import AgentForfeit

__all__ = [
    "PROTOCOL_VERSION",
    "EngineAgent",
    "EngineProcess",
    "EngineSettings",
    "check_start",
    "engine_command",
    "game_line",
    "go_line",
]

PROTOCOL_VERSION = 1
"""The protocol's version, sent in the first line (``boardlab 1``)."""
START_SECONDS = 10.0
"""Seconds an engine may take, by default, to answer the handshake and to accept a game."""
MIN_GRACE = 1.0
"""Seconds an engine may answer late, at least (or a tenth of its time, where that is more),
before it is stopped: its own clock, the pipes and a busy machine are not exact."""
QUIT_SECONDS = 1.0
"""How long a stopping engine is given to exit after ``quit`` before it is killed."""
MAX_LINE = 64 * 1024
"""Bytes of one line read from an engine; a longer line is a protocol error."""
STDERR_LINES = 20
"""Lines of an engine's stderr kept, the last of them shown when it exits."""
MAX_PV = 64
"""Moves of a principal variation kept from an ``info`` line."""
SHOWN = 60
"""Characters of an engine's line shown in a forfeit's detail."""
SHOWN_COMMAND = 160
"""Characters of an engine's command shown when it is refused before play."""
UNFLUSHED_HINT = "nothing read from it: does it flush its output after each line?"
"""Said of an engine silent from its start: most often its output waits in its buffer."""
DEBUG_HINT = "write debug output to stderr or start the line with #"
"""Said of a line out of place: most often a debug print."""


@dataclass(frozen=True)
class EngineSettings:
    """Options of the engine agent."""

    cmd: str = option(
        "",
        "the program and its arguments, e.g. ./my_engine or (python3 my_engine.py --fast); "
        "a relative path is taken from the current directory",
    )
    start: float = option(
        START_SECONDS,
        "seconds the program may take to say ready, at its start and for each game",
        minimum=0.1,
        maximum=3600,
    )
    time: float = option(
        0.0,
        "seconds per move, sent as go time (0: none; a call's limit overrides it)",
        minimum=0,
        maximum=3600,
    )
    depth: int = option(0, "plies per move, sent as go depth (0: none)", minimum=0, maximum=10**4)
    nodes: int = option(0, "positions per move, sent as go nodes (0: none)", minimum=0, maximum=10**15)
    iters: int = option(0, "iterations per move, sent as go iterations (0: none)", minimum=0, maximum=10**15)


# --- the protocol's lines -------------------------------------------------------------------


def _is_here(name: str) -> bool:
    """True if the current directory holds a file ``name`` (False for a name no file can have)."""
    try:
        return Path(name).exists()
    except (OSError, ValueError):  # too long, a NUL in it
        return False


def engine_command(cmd: str) -> list[str]:
    """The words of ``cmd`` (split as a shell would, without running one), its program checked:
    a path (relative to the current directory) must be an executable file, a bare name must be
    on the PATH. AgentSpecError, in one line, otherwise."""
    if not cmd.strip():
        raise AgentSpecError(
            "engine: cmd is required: the program to run, e.g. engine:cmd=./my_engine "
            "or engine:cmd=(python3 my_engine.py)"
        )
    try:
        words = shlex.split(cmd)
    except ValueError as err:
        raise AgentSpecError(f"engine: cmd {shorten(cmd)!r} cannot be split into words: {err}") from None
    if not words[0]:  # cmd="" or cmd=('' --fast): quotes around nothing
        raise AgentSpecError(f"engine: cmd {shorten(cmd)!r}: its program's name is empty")
    program, shown = words[0], shown_program(words[0])
    if os.sep not in program and not (os.altsep and os.altsep in program):
        if shutil.which(program) is None:
            # the hint only where it helps: a file of that name here, not a mistyped name
            here = f" (one in the current directory is written ./{shown})" if _is_here(program) else ""
            raise AgentSpecError(f"engine: cmd: no program {shown!r} on the PATH{here}")
        return words
    path = Path(program)
    if not path.exists():
        raise AgentSpecError(
            f"engine: cmd: no such program {shown!r} (from {shown_program(str(Path.cwd()))})"
        )
    if not path.is_file() or not os.access(path, os.X_OK):
        raise AgentSpecError(
            f"engine: cmd: {shown!r} is not an executable file (chmod +x it, or name "
            f"its interpreter: cmd=(python3 {shown}))"
        )
    return words


def shown_program(program: str) -> str:
    """A program's path for a message, its end kept (the file's name) where it is long."""
    program = one_line(program)
    return program if len(program) <= SHOWN else "..." + program[3 - SHOWN :]


def game_line(game: Any) -> str:
    """``game`` written out for the ``game`` command: its name and every option, defaults
    included (``nim:piles=1-3-5-7,k=0,misere=true``), so that an engine needs to know none of
    boardlab's defaults."""
    options = ",".join(f"{o.name}={format_value(getattr(game, o.name))}" for o in options_of(type(game)))
    return f"{game.name}:{options}" if options else str(game.name)


def seconds_text(seconds: float) -> str:
    """Seconds as the ``go`` line writes them: to the millisecond, without trailing zeros."""
    return f"{seconds:.3f}".rstrip("0").rstrip(".")


def go_line(limit: Limit) -> str:
    """The ``go`` command for ``limit``: each dimension it sets, in a fixed order (``go time 1.5
    depth 6``, ``go clock 12.3 increment 0.1 movestogo 5``); a bare ``go`` leaves the budget to
    the engine."""
    words = ["go"]
    for word, seconds in (("time", limit.time), ("clock", limit.clock), ("increment", limit.increment)):
        if seconds is not None:
            words += [word, seconds_text(seconds)]
    for word, count in (
        ("movestogo", limit.moves_to_go),
        ("depth", limit.depth),
        ("nodes", limit.nodes),
        ("iterations", limit.iterations),
    ):
        if count is not None:
            words += [word, str(count)]
    return " ".join(words)


class ProtocolError(ValueError):
    """A line from an engine that the protocol does not allow where it came."""


@dataclass(frozen=True)
class Info:
    """What one ``info`` line says: any of the value for the side to move, the depth, the
    positions searched and the principal variation."""

    value: float | None = None
    depth: int | None = None
    nodes: int | None = None
    pv: tuple[str, ...] = ()


def read_info(words: list[str]) -> Info:
    """The :class:`Info` of an ``info`` line's words after ``info``; ProtocolError for a field
    that is unknown, repeated or not a number of its kind (``pv`` takes the rest of the line)."""
    fields: dict[str, Any] = {}
    rest = iter(words)
    for key in rest:
        if key in fields:
            raise ProtocolError(f"info field {key!r} given twice")
        if key == "pv":
            fields["pv"] = tuple(rest)[:MAX_PV]
            break
        text = next(rest, None)
        if text is None:
            raise ProtocolError(f"info field {key!r} has no value")
        if key == "value":
            fields[key] = _value(text)
        elif key in ("depth", "nodes"):
            if not (text.isascii() and text.isdigit() and len(text) <= 18):
                raise ProtocolError(f"info {key} must be a whole number >= 0, got {shorten(text, 20)!r}")
            fields[key] = int(text)
        else:
            raise ProtocolError(
                f"unknown info field {shorten(key, 20)!r} (accepted: value, depth, nodes, pv)"
            )
    return Info(**fields)


def _value(text: str) -> float:
    try:
        value = float(text) if text.isascii() and len(text) <= 30 else float("nan")
    except ValueError:
        value = float("nan")
    if not -1.0 <= value <= 1.0:  # NaN is not either
        raise ProtocolError(f"info value must be a number in [-1, 1], got {shorten(text, 20)!r}")
    return value


# --- the program ----------------------------------------------------------------------------


class EngineExited(Exception):
    """The engine's output ended: its process exited (or closed its output)."""


class EngineTimeout(Exception):
    """No line came from the engine before the deadline."""


class EngineProcess:
    """A running engine program: lines sent to its stdin, lines from its stdout read by a
    thread into a queue (so that a read can wait with a deadline), the last lines of its stderr
    kept by another (so that a chatty engine never blocks on a full pipe).

    Started in this process's group and session (``start_new_session=False``): a worker's group,
    ended by the arena, ends the engine too. OSError if the program cannot be started.
    """

    def __init__(self, argv: list[str]) -> None:
        self.popen = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=False,
            close_fds=True,
        )
        self.lines: queue.Queue[tuple[str, str]] = queue.Queue()
        self.heard = False
        """True once anything at all, comments and empty lines included, came on its output."""
        self.stderr_tail: deque[str] = deque(maxlen=STDERR_LINES)
        assert self.popen.stdout is not None and self.popen.stderr is not None
        self._readers = [
            threading.Thread(target=self._read_stdout, args=(self.popen.stdout,), daemon=True),
            threading.Thread(target=self._read_stderr, args=(self.popen.stderr,), daemon=True),
        ]
        for reader in self._readers:
            reader.start()

    @property
    def pid(self) -> int:
        """The program's process id."""
        return self.popen.pid

    @property
    def running(self) -> bool:
        """True while the program's process has not exited."""
        return self.popen.poll() is None

    def _read_stdout(self, stream: IO[bytes]) -> None:
        with _closing(stream):
            with contextlib.suppress(OSError, ValueError):
                for raw in _lines(stream):
                    self.heard = True
                    if len(raw) >= MAX_LINE and not raw.endswith(b"\n"):
                        self.lines.put(("long", raw[:200].decode("utf-8", "replace")))
                        return
                    self.lines.put(("line", raw.decode("utf-8", "replace").rstrip("\r\n")))
            self.lines.put(("eof", ""))

    def _read_stderr(self, stream: IO[bytes]) -> None:
        with _closing(stream), contextlib.suppress(OSError, ValueError):
            for raw in _lines(stream):
                text = one_line(raw.decode("utf-8", "replace"))
                if text:
                    self.stderr_tail.append(shorten(text, 200))

    def send(self, line: str) -> None:
        """Write one command line; OSError (BrokenPipeError) if the program no longer reads."""
        stdin = self.popen.stdin
        assert stdin is not None
        stdin.write(line.encode("utf-8") + b"\n")
        stdin.flush()

    def receive(self, deadline: float | None) -> str:
        """The next line (without its line break) by ``deadline`` (a ``time.monotonic()``
        reading; None: no deadline): EngineTimeout if none came, EngineExited if the output
        ended, ProtocolError for a line over :data:`MAX_LINE` bytes."""
        wait = None if deadline is None else deadline - time.monotonic()
        if wait is not None and wait <= 0:
            raise EngineTimeout
        try:
            kind, text = self.lines.get(timeout=wait)
        except queue.Empty:
            raise EngineTimeout from None
        if kind == "eof":
            self.lines.put((kind, text))  # every later read sees the end too
            raise EngineExited
        if kind == "long":
            raise ProtocolError(f"sent a line of over {MAX_LINE} bytes ({text!r}...)")
        return text

    def unasked(self) -> str | None:
        """A line the engine sent that nothing asked for (a second move, say), comments and empty
        lines aside, and taken from the queue; None if there is none. The end of its output
        stays queued, for the next read to report."""
        while True:
            try:
                kind, text = self.lines.get_nowait()
            except queue.Empty:
                return None
            if kind == "eof":
                self.lines.put((kind, text))
                return None
            if kind == "long" or (text.split() and not text.split()[0].startswith("#")):
                return text

    def exit_report(self, when: str = "") -> str:
        """``engine exited (exit code 3) WHEN: its last stderr line``, once its output has ended
        (the process is waited for, and killed if it lingers)."""
        try:
            code = self.popen.wait(QUIT_SECONDS)
        except subprocess.TimeoutExpired:  # closed its output but still runs
            self.kill()
            code = self.popen.returncode
        self._readers[1].join(QUIT_SECONDS)  # the last words on stderr
        last = f": {self.stderr_tail[-1]}" if self.stderr_tail else ""
        return f"engine exited ({describe_exit(code)}){when}{last}"

    def kill(self) -> None:
        """End the program at once."""
        with contextlib.suppress(OSError):
            self.popen.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.popen.wait(QUIT_SECONDS)
        self._close_pipes()

    def close(self) -> None:
        """Stop the program: ``quit`` and the end of its input, then a kill if it has not
        exited within :data:`QUIT_SECONDS`."""
        if self.running:
            with contextlib.suppress(OSError, ValueError):
                self.send("quit")
            with contextlib.suppress(OSError, ValueError):
                assert self.popen.stdin is not None
                self.popen.stdin.close()
            try:
                self.popen.wait(QUIT_SECONDS)
            except subprocess.TimeoutExpired:
                self.kill()
        self._close_pipes()

    def _close_pipes(self) -> None:
        """Close the program's input. Its output and its stderr are closed by their readers,
        once they end: closing a stream here while its reader waits on it would wait for that
        read, for ever where a child of the program (the engine a wrapper script or ``cargo
        run`` started) outlives it and holds the pipe."""
        if self.popen.stdin is not None:
            _close(self.popen.stdin)


@contextlib.contextmanager
def _closing(stream: IO[bytes]) -> Iterator[None]:
    """Close ``stream`` at the end of the block, whatever happens."""
    try:
        yield
    finally:
        _close(stream)


def _close(stream: IO[bytes]) -> None:
    with contextlib.suppress(OSError, ValueError):
        stream.close()


def _lines(stream: IO[bytes]) -> Iterator[bytes]:
    """The lines of ``stream``, each at most :data:`MAX_LINE` bytes, until it ends."""
    while raw := stream.readline(MAX_LINE):
        yield raw


# --- the agent ------------------------------------------------------------------------------


def answer_grace(seconds: float) -> float:
    """Seconds an answer due in ``seconds`` of a time per move may come late: :data:`MIN_GRACE`,
    or a tenth of ``seconds`` where that is more (past a game clock, :data:`MIN_GRACE`)."""
    return max(MIN_GRACE, 0.1 * seconds)


class EngineAgent(Agent):
    """A program in any language, speaking boardlab's engine protocol, as an agent.

    ``cmd`` is split into words as a shell would and checked when the agent is built (a path must
    be an executable file, a bare name a program on the PATH: AgentSpecError otherwise); the
    program starts in :meth:`prepare`, or at the first move of an agent not prepared. Each
    decision sends the position and the call's limit (its time per move, depth, nodes and
    iterations over the spec's, as every agent takes them; a game clock as it is, with its
    increment and the moves to go, for the engine to share out), and waits for the move until
    the time, or what is left on the clock, plus a grace (:func:`answer_grace`); with neither, it
    waits as long as it takes (the arena stops a hung agent). The decision carries the last
    ``info`` line's value and search figures, and the engine's name (from its handshake, else
    the program's file name) as ``info.engine``.

    Every failure is an :class:`~boardlab.play.referee.AgentForfeit` with a one-line detail,
    ``failed to start: ...`` while starting; after a failure in a game the agent answers every
    move with the same forfeit, and :meth:`prepare` starts a fresh program.
    """

    name = "engine"
    summary = "a program in any language speaking boardlab's engine protocol on stdin/stdout"
    Settings: ClassVar[type] = EngineSettings
    settings: EngineSettings

    def __init__(self, seed: int | None = None, settings: Any = None, **options: Any) -> None:
        super().__init__(seed, settings, **options)
        self.argv = engine_command(self.settings.cmd)
        self.engine_name = Path(self.argv[0]).name
        """The engine's name: what it said in its handshake, else its program's file name."""
        self.failed: str | None = None
        """The forfeit's detail once the engine has failed (None while it plays)."""
        self._process: EngineProcess | None = None
        self._stop: weakref.finalize | None = None
        self._game: str | None = None
        self._in_game = False

    @classmethod
    def check_whole_game(cls, settings: Any, game: Any, start: Any = None) -> None:
        """AgentSpecError, in one line, unless the program starts, answers the handshake and
        accepts ``game`` within ``start`` seconds (:func:`check_start`): an engine that exits,
        refuses the game or never says ready is refused before play, not forfeited at every
        game's start."""
        super().check_whole_game(settings, game, start)
        check_start(settings, game)

    @classmethod
    def default_limit(cls, settings: Any) -> Limit:
        return Limit.from_options(
            time=settings.time, depth=settings.depth, nodes=settings.nodes, iterations=settings.iters
        )

    @property
    def pid(self) -> int | None:
        """The running program's process id (None before it starts and once it has stopped)."""
        process = self._process
        return process.pid if process is not None and process.running else None

    def prepare(self, game: Any) -> None:
        """Start the program (again, after a failure) and tell it the game; AgentForfeit
        (``failed to start: ...``) if it cannot be started, fails the handshake or refuses the
        game."""
        line = game_line(game)
        process = self._process
        if self.failed is not None or process is None or not process.running:
            self._start()
        elif line == self._game:
            return
        self._tell_game(line)

    def new_game(self) -> None:
        """A new game starts: ``newgame`` goes before the next position."""
        self._in_game = False

    def close(self) -> None:
        """Stop the program now (it is stopped anyway when the agent is dropped)."""
        if self._stop is not None:
            self._stop()
        self._process = self._stop = None
        self._game = None

    def act(self, state: Any, limit: Limit | None = None) -> Decision:
        budget = self._budget(limit, state)
        if self._process is None or game_line(state.game) != self._game:
            self.prepare(state.game)
        if self.failed is not None:
            raise AgentForfeit(self.failed)
        assert self._process is not None
        if (unasked := self._process.unasked()) is not None:  # it would answer the wrong position
            self._fail(f"engine sent {_shown(unasked.split())} unasked (after its last answer)")
        if not self._in_game:
            self._send("newgame", "go")
            self._in_game = True
        self._send(f"position {state.to_text()}", "go")
        self._send(go_line(budget), "go")
        deadline, overdue = self._deadline(budget)
        tic = time.perf_counter()
        info = Info()
        while True:
            words = self._receive(deadline, overdue, "go")
            if words[0] == "info":
                try:
                    info = _merged(info, read_info(words[1:]))
                except ProtocolError as err:
                    self._fail(f"engine sent {_shown(words)}: {err}")
                continue
            if words[0] != "move" or len(words) != 2:
                self._fail(
                    f"engine sent {_shown(words)} after go (expected info or move NOTATION; {DEBUG_HINT})"
                )
            return self._decision(state, words[1], info, time.perf_counter() - tic)

    def _budget(self, limit: Limit | None, state: Any) -> Limit:
        """The call's limit over the spec's; a game clock is passed on as it is (with a time per
        move only where the call sets one), not turned into a time per move."""
        checked = check_limit(limit)
        if checked is not None and checked.clock is not None:
            return checked.over(replace(self.limit, time=None))
        return call_limit(checked, self.limit, state)

    @staticmethod
    def _deadline(budget: Limit) -> tuple[float | None, str]:
        """When a move is overdue (a ``time.monotonic()`` reading; None: never) and the forfeit
        that says so."""
        if budget.clock is not None and (budget.time is None or budget.clock <= budget.time):
            # past its clock the move has lost on time already: the grace only covers the pipes
            left = reading_text(budget.clock)
            overdue = f"no move with {left} left on its clock and {MIN_GRACE:g} s of grace (stopped)"
            return time.monotonic() + budget.clock + MIN_GRACE, overdue
        if budget.time is not None:
            grace = answer_grace(budget.time)
            overdue = f"no move within its {budget.time:g} s and {grace:g} s of grace (stopped)"
            return time.monotonic() + budget.time + grace, overdue
        return None, ""

    def _decision(self, state: Any, text: str, info: Info, seconds: float) -> Decision:
        try:
            move = state.parse_move(text)
            legal = state.is_legal(move)
        except Exception as err:  # the game's own words on what is wrong with the move
            self._fail(f"answered {shorten(text, 20)!r}, not a legal move: {err}")
        if not legal:
            self._fail(f"answered {shorten(text, 20)!r}, not a legal move")
        search = SearchInfo(
            depth=info.depth or 0,
            nodes=info.nodes,  # None where it sent none: unknown, not 0
            seconds=seconds,
            score=info.value,
            pv=info.pv or (str(move),),
            engine=self.engine_name,
        )
        return Decision(move, value=info.value, info=search)

    # --- starting, talking, failing -----------------------------------------------------------

    def _start(self) -> None:
        self.close()
        self.failed = None
        try:
            process = EngineProcess(self.argv)
        except OSError as err:
            reason = err.strerror or type(err).__name__
            self._fail(f"failed to start: cannot run {shown_program(self.argv[0])!r}: {reason}")
        self._process = process
        self._stop = weakref.finalize(self, process.close)
        self.engine_name = Path(self.argv[0]).name
        deadline = time.monotonic() + self.settings.start
        overdue = f"failed to start: no ready within {self.settings.start:g} s (stopped)"
        self._send(f"boardlab {PROTOCOL_VERSION}", f"boardlab {PROTOCOL_VERSION}", "failed to start: ")
        while True:
            words = self._receive(deadline, overdue, f"boardlab {PROTOCOL_VERSION}", "failed to start: ")
            if words == ["ready"]:
                return
            if words[0] != "name":
                self._fail(
                    f"failed to start: engine sent {_shown(words)} in its handshake "
                    f"(expected name TEXT or ready; {DEBUG_HINT})"
                )
            if len(words) > 1:
                self.engine_name = shorten(one_line(" ".join(words[1:])), 40)

    def _tell_game(self, line: str) -> None:
        self._game = None
        self._in_game = False
        deadline = time.monotonic() + self.settings.start
        overdue = f"failed to start: no answer to the game within {self.settings.start:g} s (stopped)"
        self._send(f"game {line}", "game", "failed to start: ")
        words = self._receive(deadline, overdue, "game", "failed to start: ")
        if words[0] == "refuse":
            reason = " ".join(words[1:]) or "no reason given"
            self._fail(f"failed to start: engine refused the game {shorten(line)}: {shorten(reason, 120)}")
        if words != ["ready"]:
            self._fail(
                f"failed to start: engine sent {_shown(words)} after game "
                f"(expected ready or refuse; {DEBUG_HINT})"
            )
        self._game = line

    def _send(self, line: str, request: str, prefix: str = "") -> None:
        """Send ``line``, one of those making ``request`` (the command whose answer is awaited:
        ``go`` for ``newgame`` and ``position`` too); a forfeit if the engine has exited, said
        as :meth:`_receive` says it, since which of the two sees an exit first is a race."""
        process = self._process
        assert process is not None
        try:
            process.send(line)
        except (OSError, ValueError):  # it no longer reads: it has exited, most likely
            self._fail(prefix + process.exit_report(f" before answering {request!r}"))

    def _receive(self, deadline: float | None, overdue: str, command: str, prefix: str = "") -> list[str]:
        """The words of the engine's next line that is not empty or a comment; a forfeit if it
        does not come by ``deadline`` (``overdue``), the engine exits or sends an overlong line."""
        process = self._process
        assert process is not None
        while True:
            try:
                line = process.receive(deadline)
            except EngineTimeout:  # from an engine never heard, most often its output unflushed
                self._fail(overdue if process.heard else f"{overdue}; {UNFLUSHED_HINT}")
            except EngineExited:
                self._fail(prefix + process.exit_report(f" before answering {command!r}"))
            except ProtocolError as err:
                self._fail(f"{prefix}engine {err}")
            words = line.split()
            if words and not words[0].startswith("#"):
                return words

    def _fail(self, detail: str) -> NoReturn:
        """Stop the engine (its state is no longer known) and forfeit with ``detail``."""
        self.failed = detail = one_line(detail)
        process = self._process
        if process is not None:
            process.kill()
        raise AgentForfeit(detail)


_STARTED: set[tuple[Any, ...]] = set()
"""The starts :func:`check_start` saw succeed in this process, by what they depend on."""


def check_start(settings: EngineSettings, game: Any) -> None:
    """Start the program of ``settings`` once, do the handshake and name ``game``, then quit it;
    AgentSpecError (``engine: cmd 'CMD' cannot play GAME: failed to start: ...``) if it exits,
    refuses the game or does not say ready within its ``start`` seconds. A start that succeeded
    is not tried again in this process for the same command, files, folder and game: a command
    that checks each of its agents more than once starts each engine once."""
    argv = engine_command(settings.cmd)
    key = (tuple(argv), os.getcwd(), _files_of(argv), game_line(game), settings.start)
    if key in _STARTED:
        return
    agent = EngineAgent(settings=settings)
    try:
        agent.prepare(game)
    except AgentForfeit as err:
        # the command in full, up to a long line: two engines may differ only in their script
        shown = shorten(settings.cmd, SHOWN_COMMAND)
        raise AgentSpecError(f"engine: cmd {shown!r} cannot play {game.spec}: {err.detail}") from None
    finally:
        agent.close()
    _STARTED.add(key)


def _files_of(argv: list[str]) -> tuple[tuple[str, int, int], ...]:
    """Each word of ``argv`` that names a file, with its time of change and size: an engine
    rebuilt, or a script edited, is started again by :func:`check_start`."""
    files = []
    for word in argv:
        with contextlib.suppress(OSError, ValueError):
            stat = Path(word).stat()
            if S_ISREG(stat.st_mode):  # a folder's time changes with what the engine writes there
                files.append((word, stat.st_mtime_ns, stat.st_size))
    return tuple(files)


def _merged(old: Info, new: Info) -> Info:
    """What the ``info`` lines so far say: each field from the latest line that gave it."""
    return Info(
        value=new.value if new.value is not None else old.value,
        depth=new.depth if new.depth is not None else old.depth,
        nodes=new.nodes if new.nodes is not None else old.nodes,
        pv=new.pv or old.pv,
    )


def _shown(words: list[str]) -> str:
    """An engine's line, quoted and shortened, for a forfeit's detail."""
    return repr(shorten(" ".join(words), SHOWN))
