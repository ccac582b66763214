"""Where the one worker pool runs: worker processes on this machine, or a Ray cluster.

A :class:`Backend` hands out the two kinds of workers the rest of boardlab uses:

- :meth:`Backend.game_pool`: games played under the referee's clock, results streamed back
  to the caller as they finish (:class:`~boardlab.play.pool.WorkerPool` on this machine,
  :class:`boardlab.play.ray_backend.RayGamePool` on Ray). Only the caller writes the results
  anywhere: the arena's SQLite store keeps a single writer whatever the backend.
- :meth:`Backend.workers`: trusted compiled work shared out as a parallel map
  (:class:`~boardlab.play.pool.Workers` on this machine, Ray tasks on Ray); a task's result
  depends on the task alone, so the backend never changes a result.

:func:`open_backend` builds one from the command line's ``--backend local|ray`` and
``--address``; use it as a context manager (a Ray backend that started its own local Ray
instance shuts it down on close).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Generator, Iterator, Mapping, Sequence
from types import TracebackType
from typing import Any, Protocol, TypeVar

from boardlab.play.pool import BackendError, GameJobs, PoolCounts, Task, WorkerPool, Workers
from boardlab.play.referee import SETUP_TIMEOUT

BACKENDS = ("local", "ray")

T = TypeVar("T", bound=Task)
R = TypeVar("R")


class GamePool(Protocol[T, R]):
    """Workers playing games (see :class:`~boardlab.play.pool.WorkerPool`); a context manager."""

    counts: PoolCounts
    """The workers lost so far, and the games played again for them."""

    def play(self, tasks: Iterator[T]) -> Generator[R, None, None]:
        """Results of ``tasks`` as they finish; PoolError if a task cannot be played."""
        ...

    def close(self, kill: bool = False) -> None:
        """Stop the workers."""
        ...

    def __enter__(self) -> GamePool[T, R]: ...

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None
    ) -> None: ...


class WorkMap(Protocol):
    """A parallel map over trusted tasks (see :class:`~boardlab.play.pool.Workers`)."""

    count: int

    def map(self, function: Callable[[Any], Any], tasks: Sequence[Any]) -> list[Any]:
        """``[function(t) for t in tasks]``, computed by the workers."""
        ...

    def close(self) -> None:
        """Stop the workers."""
        ...


class Backend(Protocol):
    """Where workers run; a context manager that releases what it started."""

    name: str

    def default_size(self) -> int:
        """Workers to use when the caller names no number: the cores this backend has."""
        ...

    def game_pool(
        self,
        size: int,
        game: str,
        limits: Mapping[str, float | None],
        jobs: GameJobs[T, R],
        *,
        setup_timeout: float = SETUP_TIMEOUT,
    ) -> GamePool[T, R]:
        """``size`` workers playing games of ``game`` as ``jobs`` says (limits: seconds per
        move of each agent spec, None for none)."""
        ...

    def workers(self, count: int) -> WorkMap:
        """``count`` workers for trusted compiled work."""
        ...

    def close(self) -> None:
        """Release what the backend started."""
        ...

    def __enter__(self) -> Backend: ...

    def __exit__(self, *exc: object) -> None: ...


class LocalBackend:
    """Worker processes on this machine (the default)."""

    name = "local"

    def default_size(self) -> int:
        """All cores of this machine."""
        return os.cpu_count() or 1

    def game_pool(
        self,
        size: int,
        game: str,
        limits: Mapping[str, float | None],
        jobs: GameJobs[T, R],
        *,
        setup_timeout: float = SETUP_TIMEOUT,
    ) -> WorkerPool[T, R]:
        """A :class:`~boardlab.play.pool.WorkerPool` of ``size`` processes."""
        return WorkerPool(size, game, limits, jobs, setup_timeout=setup_timeout)

    def workers(self, count: int) -> Workers:
        """A :class:`~boardlab.play.pool.Workers` of ``count`` processes."""
        return Workers(count)

    def close(self) -> None:
        """Nothing to release: each pool stops its own processes."""

    def __enter__(self) -> LocalBackend:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def open_backend(
    name: str = "local", address: str | None = None, announce: Callable[[str], None] | None = None
) -> Backend:
    """The backend ``name`` (``local`` or ``ray``), connected and ready.

    ``address`` is a Ray cluster's address (``HOST:PORT`` of its head, as ``ray start --head``
    prints, or ``auto``: the running cluster Ray finds, as ``ray.init(address="auto")``);
    without one the Ray backend starts a local Ray instance. BackendError names the
    problem: an unknown backend, an address for the local one, Ray not installed, or a cluster
    that does not answer. ``announce`` is given one line as a Ray instance starts or a cluster
    is joined, once the address is known to answer (Ray takes seconds to be ready).
    """
    if name not in BACKENDS:
        raise BackendError(f"unknown backend {name!r}; choose one of {', '.join(BACKENDS)}")
    if name == "local":
        if address is not None:
            raise BackendError("--address is for the ray backend (use --backend ray --address ADDR)")
        return LocalBackend()
    from boardlab.play.ray_backend import RayBackend  # Ray only when asked for

    return RayBackend(address, announce)
