"""The example packages of examples/ installed with pip, and boardlab's command line run with them."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def install_example(name: str, scratch: Path) -> dict[str, str]:
    """``examples/NAME`` installed with pip into a folder of its own under ``scratch`` (its entry
    points in its dist-info), and the environment that puts it on the path of boardlab's commands
    and worker processes (before the test run's own ``PYTHONPATH``). The package is built from a
    copy, so that the checkout gets no build folder."""
    source, target = scratch / "source" / name, scratch / "site"
    shutil.copytree(
        EXAMPLES / name, source, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__")
    )
    pip = [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation"]
    subprocess.run([*pip, "--no-index", "--target", str(target), str(source)], check=True, timeout=300)
    path = os.pathsep.join(p for p in (str(target), os.environ.get("PYTHONPATH", "")) if p)
    return {**os.environ, "PYTHONPATH": path, "COLUMNS": "200"}


def run_boardlab(
    env: dict[str, str], *args: str, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """``boardlab ARGS`` run in a process of its own with ``env``, whatever its exit status."""
    command = [sys.executable, "-c", "from boardlab.ui.cli import main; main()", *args]
    return subprocess.run(command, env=env, cwd=cwd, capture_output=True, text=True, timeout=300)


def boardlab(env: dict[str, str], *args: str, cwd: Path | None = None) -> str:
    """What ``boardlab ARGS`` prints, once it has succeeded."""
    done = run_boardlab(env, *args, cwd=cwd)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout
