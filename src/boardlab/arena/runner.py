"""Running matches and tournaments, in parallel worker processes, into the store.

The main process owns the schedule and the store; worker processes
(:mod:`boardlab.play.pool`) receive each game's task as JSON, build both agents from
their specs and seeds, play, and send the record back as JSON. Each finished game is stored
at once in its own transaction. Agents play under a time limit per move: one that overruns,
raises, exits or answers an illegal move forfeits that game, which is stored like any other
(``Reason.FORFEIT``), and the tournament goes on. Ctrl-C (KeyboardInterrupt) stops the
workers, keeps every stored game and returns a run marked ``interrupted``; running the same
tournament again plays only the missing games. The schedule is read lazily, one game at a
time, so its length costs no memory.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import re
from collections.abc import Callable, Generator, Iterable, Iterator, Mapping, Sequence
from contextlib import closing
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from boardlab.agents.base import Agent, check_whole_game, make_agent, memory_of, parse_spec
from boardlab.arena.openings import check_openings
from boardlab.arena.play import ARENA_JOBS, GameRecord, move_limit, play_game, play_opening
from boardlab.arena.ratings import DEFAULT_PRIOR_DRAWS
from boardlab.arena.schedule import ROUND_ROBIN, ArenaError, GameTask, TournamentConfig, iter_schedule
from boardlab.arena.sprt import SprtTally
from boardlab.arena.store import Store
from boardlab.arena.summary import Summary, summarize
from boardlab.core.console import counted
from boardlab.core.machine import memory_problem
from boardlab.core.processes import raise_if_stopping
from boardlab.core.spec import options_of, shorten, with_article
from boardlab.games import parse_game
from boardlab.play.backend import Backend, LocalBackend
from boardlab.play.pool import PoolCounts, PoolError
from boardlab.play.referee import describe_failure

StartHook = Callable[[int, int], None]
"""Called once before play with ``(games in the schedule, games already stored)``."""
GameHook = Callable[[GameRecord], None]
"""Called after each newly stored game."""
StopHook = Callable[[], bool]
"""Asked before play and after each newly stored game whether to stop the run there."""


@dataclass(frozen=True)
class TournamentRun:
    """The outcome of running (part of) a tournament's schedule."""

    config: TournamentConfig
    records: tuple[GameRecord, ...]
    played: int
    already_stored: int
    interrupted: bool
    store_path: str
    stopped: bool = False
    """True when the run's ``stop`` hook answered True (and no game started after that)."""
    stored_beyond: int = 0
    """Games of the tournament stored past this run's schedule (a larger count played them
    earlier): kept, but not in :attr:`records` nor in this run's report."""
    losses: PoolCounts = field(default_factory=PoolCounts)
    """Workers lost during the run through no agent's doing (a killed process, a machine gone),
    and the games played again for them (on Ray; see :class:`~boardlab.play.pool.PoolCounts`)."""

    @property
    def total(self) -> int:
        """Games in the schedule."""
        return self.config.total_games

    @property
    def complete(self) -> bool:
        """True when every scheduled game is stored."""
        return len(self.records) == self.total

    def summary(self, prior_draws: float = DEFAULT_PRIOR_DRAWS) -> Summary:
        """Scores, colours and ratings of the stored games of this schedule."""
        return summarize(self.config.specs, self.records, prior_draws)


def default_workers() -> int:
    """All cores."""
    return os.cpu_count() or 1


def check_specs(specs: Iterable[object]) -> None:
    """ArenaError, in one line, unless each of ``specs`` is an agent spec (a string): each game
    is played in a worker process that builds its agents from their specs, so a class or an
    agent object cannot be sent there."""
    for spec in specs:
        if not isinstance(spec, str):
            raise ArenaError(_not_a_spec(spec))


def _not_a_spec(value: object) -> str:
    """Why ``value`` cannot enter the arena, and what to give instead."""
    what = (
        f"the class {value.__name__}"
        if isinstance(value, type)
        else f"{with_article(type(value).__name__)} object"
    )
    message = (
        f"the arena takes agent specs (strings), not {what}: each game is played in a worker "
        "process, which builds its agents from their specs"
    )
    course = "put a course player in a file and name it: course:player=file.py:ClassName (docs/course.md)"
    if callable(getattr(value, "make_move", None)):
        name = value.__name__ if isinstance(value, type) else type(value).__name__
        return f"{message}; {course.replace('ClassName', name)}"
    if isinstance(value, Agent):
        if value.name == "course" and value.spec == "course":  # built around a class or an instance
            return f"{message}; {course}"
        return f"{message}; give its spec, {shorten(value.spec, 200)!r}"
    if isinstance(value, type) and issubclass(value, Agent):
        return f"{message}; give its spec, {value.name!r} (with options: '{value.name}:key=value')"
    return message


def named_files(spec: str) -> list[Path]:
    """The files an agent spec names in its options (a course player's file, an engine's
    program or script, a model or weights file), those that exist here."""
    cls, settings = parse_spec(spec)
    found: list[Path] = []
    for option in options_of(cls.Settings):
        value = getattr(settings, option.name)
        if not isinstance(value, str):
            continue
        for word in re.split(r"[\s,=():]+", value):  # nested specs, commands, file.py:Class
            with contextlib.suppress(OSError, ValueError):
                if word and Path(word).is_file() and Path(word) not in found:
                    found.append(Path(word))
    return found


def changed_since_played(specs: Sequence[str], records: Sequence[GameRecord]) -> list[Path]:
    """The files named by ``specs`` that changed after the last of ``records`` ended: stored
    games of an older version of a player, which the same specs resume rather than play again."""
    if not records:
        return []
    last = max(datetime.fromisoformat(record.finished).timestamp() for record in records)
    changed: list[Path] = []
    for spec in specs:
        for path in named_files(spec):
            with contextlib.suppress(OSError):
                if path.stat().st_mtime > last and path not in changed:
                    changed.append(path)
    return changed


def validate_config(config: TournamentConfig) -> None:
    """Raise ArenaError naming the problem if the game, an agent spec or the openings are bad
    (an agent that cannot play the game, or fails while being built, included)."""
    try:
        game = parse_game(config.game)
    except ValueError as err:
        raise ArenaError(str(err)) from None
    for spec in config.specs:
        try:
            check_whole_game(spec, game)  # an agent of some positions only: refused, not forfeited
            make_agent(spec, 0, game=game)
        except ValueError as err:  # AgentSpecError, GameError, or an agent's own check
            raise ArenaError(str(err)) from None
        except (Exception, SystemExit) as err:  # an agent's own code failing as it is built
            raise ArenaError(f"agent {shorten(spec)!r} cannot be built: {describe_failure(err)}") from None
    if config.openings:
        check_openings(config.game, config.openings)
    else:
        play_opening(config.game, config.opening_plies, config.seed)


def check_memory(config: TournamentConfig, workers: int) -> None:
    """ArenaError if ``workers`` processes, each holding the two hungriest agents of ``config``,
    would need more memory than the machine has available."""
    game = parse_game(config.game)
    needs = sorted((memory_of(spec, game), spec) for spec in dict.fromkeys(config.specs))[-2:]
    processes = max(workers, 1)
    players = " and ".join(shorten(spec) for _, spec in needs)
    what = f"playing {players} in {counted(processes, 'process', 'processes')}"
    problem = memory_problem(processes * sum(need for need, _ in needs), what)
    if problem is not None:
        raise ArenaError(f"{problem}; use fewer workers (-j) or smaller tables")


def run_tournament(
    config: TournamentConfig,
    store: Store,
    *,
    workers: int | None = None,
    max_games: int | None = None,
    move_timeout: float | None = None,
    on_start: StartHook | None = None,
    on_game: GameHook | None = None,
    backend: Backend | None = None,
    stop: StopHook | None = None,
    sprt: SprtTally | None = None,
) -> TournamentRun:
    """Play the games of ``config``'s schedule that ``store`` lacks and store each as it ends.

    ``backend`` says where the workers run (default: processes on this machine, see
    :func:`boardlab.play.backend.open_backend`); whatever it is, the results come back here and
    only this process writes the store. ``workers`` play in parallel (default: all the
    backend's cores); 0 plays in this process,
    where an agent that hangs cannot be stopped (for debugging, and for agents registered at
    run time, which worker processes do not know). ``max_games`` plays at most that many of
    the missing games, in schedule order. ``move_timeout`` is every agent's limit per move in
    seconds (0: none; default: :func:`~boardlab.arena.play.move_limit`, 10 times the agent's
    own time per move and at least 10 s); an agent over it forfeits the game. A tournament on a
    game clock has no limit per move but the clock, and refuses a ``move_timeout``.

    ``stop`` (a sequential test: :class:`~boardlab.arena.sprt.SprtTally`) is asked after
    ``on_start`` and after each ``on_game`` whether to end the run: once it answers True no
    game starts, and the games still being played are stopped and not stored (a later run that
    needs them plays them again), so the store holds exactly the games ``stop`` last saw. With
    a ``stop``, games are stored and shown to it in schedule order (one that ends before an
    earlier one waits for it), so where a test stops does not depend on the number of workers
    or on which game ended first, and a run stopped there holds a prefix of the schedule.
    ``sprt`` (a two-player match's test) counts the stored games and each game as it ends, and
    stops the run once it decides, as such a ``stop`` would.
    """
    backend = backend or LocalBackend()
    workers = backend.default_size() if workers is None else workers
    if workers < 0:
        raise ArenaError(f"workers must be at least 0, got {workers}")
    if config.time_control and move_timeout is not None:
        raise ArenaError("a tournament on a game clock takes no move timeout: the clock is the limit")
    limits = {spec: move_limit(spec, move_timeout) for spec in config.specs}
    validate_config(config)
    if backend.name == "local":  # a cluster's memory is not this machine's
        check_memory(config, workers)
    config = store.register(config)  # as stored: its key (an older version's spelling's) and name
    tournament_id = config.tournament_id
    stored = store.stored_indices(tournament_id)
    if stored:  # a damaged stored game is reported before any work, not after it
        stored_games = store.games(tournament_id, below=config.total_games)
        if sprt is not None:
            sprt.extend(stored_games)
    if sprt is not None:
        on_game, stop = _tested(sprt, on_game, stop)
    already = sum(1 for i in stored if i < config.total_games)
    missing = config.total_games - already
    if max_games is not None:
        missing = min(missing, max(max_games, 0))
    if on_start is not None:
        on_start(config.total_games, already)
    stopped = stop is not None and stop()
    if stopped:
        missing = 0
    pending = list(itertools.islice((t for t in iter_schedule(config) if t.index not in stored), missing))
    played, interrupted, losses = 0, False, PoolCounts()
    try:
        playing = _play_all(iter(pending), missing, workers, config.game, limits, backend, losses)
        with closing(playing) as finished:
            ordered = finished if stop is None else in_schedule_order(finished, [t.index for t in pending])
            for record in ordered:
                if store.add_game(record):
                    played += 1
                    if on_game is not None:
                        on_game(record)
                raise_if_stopping()  # a Ctrl-C swallowed by a compile stops at the next game
                if stop is not None and stop():
                    stopped = True
                    break  # closing the pool stops the games in flight, unstored
    except KeyboardInterrupt:
        interrupted = True
    records = tuple(store.games(tournament_id, below=config.total_games))
    beyond = len(stored) - already
    return TournamentRun(config, records, played, already, interrupted, store.path, stopped, beyond, losses)


def in_schedule_order(records: Iterable[GameRecord], order: Sequence[int]) -> Iterator[GameRecord]:
    """``records`` (games ending in any order) in the order of the indices ``order``: each is
    held until every game before it in ``order`` has ended."""
    waiting: dict[int, GameRecord] = {}
    position = 0
    for record in records:
        waiting[record.index] = record
        while position < len(order) and order[position] in waiting:
            yield waiting.pop(order[position])
            position += 1


def _tested(sprt: SprtTally, on_game: GameHook | None, stop: StopHook | None) -> tuple[GameHook, StopHook]:
    """``on_game`` counting each game into ``sprt`` first, and ``stop`` also once it decides."""

    def counted_game(record: GameRecord) -> None:
        sprt.add(record)
        if on_game is not None:
            on_game(record)

    return counted_game, lambda: sprt.decided or (stop is not None and stop())


def tournament(
    specs: Sequence[str],
    games_per_pair: int,
    *,
    game: str = "quixo",
    seed: int = 0,
    opening_plies: int = 2,
    name: str = "",
    store: Store | str | Path | None = None,
    workers: int | None = None,
    move_timeout: float | None = None,
    on_start: StartHook | None = None,
    on_game: GameHook | None = None,
    backend: Backend | None = None,
    pairing: str = ROUND_ROBIN,
    openings: Sequence[Sequence[str]] = (),
    time_control: str = "",
    sprt: SprtTally | None = None,
) -> TournamentRun:
    """A round robin: every pair of ``specs`` plays ``games_per_pair`` games, colours alternating;
    with ``pairing="gauntlet"`` only the first spec and each of the others. The games start from
    ``opening_plies`` random moves, or from the ``openings`` of a suite in turn (each a sequence
    of moves in the game's notation, see :func:`boardlab.arena.openings.parse_openings`).
    ``time_control`` (``"60+0.5"``) plays every game on a game clock.

    ``store`` is an open :class:`Store`, a path to one, or None for a throw-away in-memory store.
    ``workers``, ``move_timeout``, ``backend`` and ``sprt`` (two specs only) are as in
    :func:`run_tournament`.
    """
    if isinstance(specs, str):
        raise ArenaError(f"specs is a list of agent specs, got the one string {shorten(specs)!r}")
    specs = tuple(specs)
    check_specs(specs)
    suite = tuple(tuple(moves) for moves in openings)
    config = TournamentConfig(
        tuple(specs), games_per_pair, game, seed, opening_plies, name, pairing, suite, time_control
    )
    options = {
        "workers": workers,
        "move_timeout": move_timeout,
        "on_start": on_start,
        "on_game": on_game,
        "backend": backend,
        "sprt": sprt,
    }
    if sprt is not None and len(specs) != 2:
        raise ArenaError(f"an SPRT tests a match of two agents, not {len(specs)}")
    if isinstance(store, Store):
        return run_tournament(config, store, **options)  # type: ignore[arg-type]
    with Store(":memory:" if store is None else store) as opened:
        return run_tournament(config, opened, **options)  # type: ignore[arg-type]


def match(
    spec_a: str,
    spec_b: str,
    games: int,
    *,
    game: str = "quixo",
    seed: int = 0,
    opening_plies: int = 2,
    name: str = "",
    store: Store | str | Path | None = None,
    workers: int | None = None,
    move_timeout: float | None = None,
    on_start: StartHook | None = None,
    on_game: GameHook | None = None,
    backend: Backend | None = None,
    openings: Sequence[Sequence[str]] = (),
    time_control: str = "",
    sprt: SprtTally | None = None,
) -> TournamentRun:
    """``games`` games between two agents, colours alternating (A moves first in even games);
    ``openings`` and ``time_control`` as in :func:`tournament`. With ``sprt`` (an empty
    :class:`~boardlab.arena.sprt.SprtTally`) the match stops once the test decides: ``games``
    is then the most it plays, and the tally holds the outcome (games stored before count)."""
    return tournament(
        (spec_a, spec_b),
        games,
        game=game,
        seed=seed,
        opening_plies=opening_plies,
        name=name,
        store=store,
        workers=workers,
        move_timeout=move_timeout,
        on_start=on_start,
        on_game=on_game,
        backend=backend,
        openings=openings,
        time_control=time_control,
        sprt=sprt,
    )


def _play_all(
    tasks: Iterator[GameTask],
    count: int,
    workers: int,
    game: str,
    limits: Mapping[str, float | None],
    backend: Backend,
    losses: PoolCounts,
) -> Generator[GameRecord, None, None]:
    """The records of ``tasks`` as they end; the pool's lost workers are counted into ``losses``
    when it closes (however play ends)."""
    if count <= 0:
        return
    if workers == 0:
        for task in tasks:
            yield play_game(task, (limits[task.first_spec], limits[task.second_spec]))
        return
    try:
        with backend.game_pool(min(workers, count), game, limits, ARENA_JOBS) as pool:
            try:
                yield from pool.play(tasks)
            finally:
                losses.add(pool.counts)
    except PoolError as err:
        raise ArenaError(str(err)) from None
