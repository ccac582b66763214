"""Running matches and tournaments, in parallel worker processes, into the store.

The main process owns the schedule and the store; workers receive each game's task as JSON,
build both agents from their specs and seeds, play, and send the record back as JSON. Each
finished game is stored at once in its own transaction. Ctrl-C (KeyboardInterrupt) stops the
workers, keeps every stored game and returns a run marked ``interrupted``; running the same
tournament again plays only the missing games.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
from collections.abc import Callable, Generator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

from boardlab.agents.base import make_agent
from boardlab.arena.play import (
    GameRecord,
    play_game,
    play_opening,
    play_task_json,
    record_from_worker,
    warm_up,
)
from boardlab.arena.ratings import DEFAULT_PRIOR_DRAWS
from boardlab.arena.schedule import ArenaError, GameTask, TournamentConfig, build_schedule
from boardlab.arena.store import Store
from boardlab.arena.summary import Summary, summarize
from boardlab.games import parse_game

StartHook = Callable[[int, int], None]
"""Called once before play with ``(games in the schedule, games already stored)``."""
GameHook = Callable[[GameRecord], None]
"""Called after each newly stored game."""


@dataclass(frozen=True)
class TournamentRun:
    """The outcome of running (part of) a tournament's schedule."""

    config: TournamentConfig
    records: tuple[GameRecord, ...]
    played: int
    already_stored: int
    interrupted: bool
    store_path: str

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


def validate_config(config: TournamentConfig) -> None:
    """Raise ArenaError naming the problem if the game, an agent spec or the openings are bad
    (an agent that cannot play the game included)."""
    try:
        game = parse_game(config.game)
        for spec in config.specs:
            make_agent(spec, 0, game=game)
    except ValueError as err:  # AgentSpecError, GameError, or an agent's own check
        raise ArenaError(str(err)) from None
    play_opening(config.game, config.opening_plies, config.seed)


def run_tournament(
    config: TournamentConfig,
    store: Store,
    *,
    workers: int | None = None,
    max_games: int | None = None,
    on_start: StartHook | None = None,
    on_game: GameHook | None = None,
) -> TournamentRun:
    """Play the games of ``config``'s schedule that ``store`` lacks and store each as it ends.

    ``workers`` processes play in parallel (default: all cores; 1 plays in this process).
    ``max_games`` plays at most that many of the missing games, in schedule order.
    """
    workers = default_workers() if workers is None else workers
    if workers < 1:
        raise ArenaError(f"workers must be at least 1, got {workers}")
    validate_config(config)
    tournament_id = store.register_tournament(config)
    stored = store.stored_indices(tournament_id)
    pending = [task for task in build_schedule(config) if task.index not in stored]
    already = config.total_games - len(pending)
    if max_games is not None:
        pending = pending[: max(max_games, 0)]
    if on_start is not None:
        on_start(config.total_games, already)
    played, interrupted = 0, False
    try:
        with closing(_play_all(pending, workers)) as finished:
            for record in finished:
                if store.add_game(record):
                    played += 1
                    if on_game is not None:
                        on_game(record)
    except KeyboardInterrupt:
        interrupted = True
    records = tuple(store.games(tournament_id, below=config.total_games))
    return TournamentRun(config, records, played, already, interrupted, store.path)


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
    on_start: StartHook | None = None,
    on_game: GameHook | None = None,
) -> TournamentRun:
    """A round robin: every pair of ``specs`` plays ``games_per_pair`` games, colours alternating.

    ``store`` is an open :class:`Store`, a path to one, or None for a throw-away in-memory store.
    """
    config = TournamentConfig(tuple(specs), games_per_pair, game, seed, opening_plies, name)
    if isinstance(store, Store):
        return run_tournament(config, store, workers=workers, on_start=on_start, on_game=on_game)
    with Store(":memory:" if store is None else store) as opened:
        return run_tournament(config, opened, workers=workers, on_start=on_start, on_game=on_game)


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
    on_start: StartHook | None = None,
    on_game: GameHook | None = None,
) -> TournamentRun:
    """``games`` games between two agents, colours alternating (A moves first in even games)."""
    return tournament(
        (spec_a, spec_b),
        games,
        game=game,
        seed=seed,
        opening_plies=opening_plies,
        name=name,
        store=store,
        workers=workers,
        on_start=on_start,
        on_game=on_game,
    )


def _play_all(tasks: list[GameTask], workers: int) -> Generator[GameRecord, None, None]:
    if workers == 1 or len(tasks) <= 1:
        for task in tasks:
            yield play_game(task)
        return
    specs = tuple(dict.fromkeys(spec for t in tasks for spec in (t.first_spec, t.second_spec)))
    with _WorkerPool(min(workers, len(tasks)), tasks[0].game, specs) as pool:
        yield from pool.play(tasks)


def _start_worker(game: str, specs: tuple[str, ...]) -> None:
    """Worker initializer: leave Ctrl-C to the main process, then warm the tournament's game."""
    # Ctrl-C reaches the whole process group; the main process decides what stops.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    warm_up(game, specs)  # never raises: an exception here would break the whole pool


def _worker_context() -> multiprocessing.context.BaseContext:
    """Forkserver where available (workers forked from a warm, thread-free server), else spawn.

    Plain fork is avoided: this process may hold threads and locks (numba, the progress bar).
    """
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("spawn")
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(["__main__", "boardlab.arena._preload"])
    return context


class _WorkerPool:
    """A process pool (see :func:`_worker_context`) torn down at once when play stops early."""

    def __init__(self, workers: int, game: str, specs: tuple[str, ...]) -> None:
        context = _worker_context()
        self._executor = ProcessPoolExecutor(
            workers, mp_context=context, initializer=_start_worker, initargs=(game, specs)
        )
        self._futures: list[Future[str]] = []

    def __enter__(self) -> _WorkerPool:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None
    ) -> None:
        if kind is None:
            self._executor.shutdown(wait=True)
        else:
            self._terminate()

    def play(self, tasks: list[GameTask]) -> Generator[GameRecord, None, None]:
        """Records of ``tasks`` in the order they finish."""
        self._futures = [self._executor.submit(play_task_json, task.to_json()) for task in tasks]
        for future in as_completed(self._futures):
            try:
                text = future.result()
            except BrokenProcessPool as err:
                raise ArenaError(
                    f"a worker process died ({err}); the stored games are kept, run again to resume"
                ) from None
            yield record_from_worker(text)

    def _terminate(self) -> None:
        for future in self._futures:
            future.cancel()
        terminate = getattr(self._executor, "terminate_workers", None)  # Python 3.14+
        if terminate is not None:
            terminate()
            return
        processes = list((getattr(self._executor, "_processes", None) or {}).values())
        self._executor.shutdown(wait=False, cancel_futures=True)
        for process in processes:
            process.terminate()
        for process in processes:
            process.join(timeout=5)
