"""Shared test set-up.

Quixo's solved tables are looked for in an empty temporary folder, never in the user's cache.
Hypothesis runs without per-example deadlines: the first example of a test may include a
numba compile, which would otherwise be reported as a slow example. Set HYPOTHESIS_PROFILE
to pick another registered profile.
"""

from __future__ import annotations

import atexit
import functools
import os
import shutil
import tempfile
from collections.abc import Iterator
from typing import Any

import pytest
import typer.main
import typer.testing
from hypothesis import settings

# Solved tables built on this machine (a user's ~/.cache) must not change what the tests see:
# agents that read tables find an empty folder, and tests that need tables build their own.
_TABLES = tempfile.mkdtemp(prefix="boardlab-test-tables-")
os.environ["BOARDLAB_TABLES"] = _TABLES
atexit.register(shutil.rmtree, _TABLES, ignore_errors=True)

# typer's CliRunner builds the click command from the app's signatures on every invoke (about
# 50 ms, most of what a refused command line costs); the app does not change, so build it once
typer.testing._get_command = functools.cache(typer.main.get_command)

settings.register_profile("boardlab", deadline=None, print_blob=True)
# CI runs the same examples every time, so that a red run is a change's fault, not luck's
settings.register_profile("ci", deadline=None, print_blob=True, derandomize=True)
default_profile = "ci" if os.environ.get("CI") else "boardlab"
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", default_profile))


def pytest_sessionfinish(session: pytest.Session) -> None:
    """In a pytest-xdist worker, hand the reliability counters to the controller."""
    from reliability import COUNTS

    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:
        workeroutput["reliability"] = dict(COUNTS)


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error):  # type: ignore[no-untyped-def]
    """In the pytest-xdist controller, add up the counters of a worker that finished."""
    from reliability import COUNTS

    COUNTS.update(getattr(node, "workeroutput", {}).get("reliability", {}))


def pytest_terminal_summary(terminalreporter, exitstatus, config):  # type: ignore[no-untyped-def]
    """Print the reliability counters (inputs tried, kills survived, games checked) if any ran."""
    from reliability import COUNTS

    if COUNTS:
        figures = ", ".join(f"{what}: {n:,}" for what, n in sorted(COUNTS.items()))
        terminalreporter.write_line(f"reliability: {figures}")


@pytest.fixture(scope="session")
def ray_instance() -> Iterator[Any]:
    """A local 2-CPU Ray instance for the whole test session (started on first use, ~10 s).

    ``address="local"`` always starts a fresh instance: never a cluster someone else runs.
    """
    os.environ.setdefault("RAY_AUTH_MODE", "disabled")
    import ray

    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level="ERROR")
    try:
        yield ray
    finally:
        ray.shutdown()
