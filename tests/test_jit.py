"""Compiled closures kept in numba's disk cache between processes (boardlab.games.jit)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from jit_builders import holding_an_object, scaled_sum, word_filter

from boardlab.games import parse_game
from boardlab.games.jit import CurrentIndex, UnstableClosureError, cached_njit, closure_key, package_digest
from boardlab.search import mcts
from boardlab.search.alphabeta import compiled_search
from boardlab.search.clock import now
from boardlab.search.minimax import compiled_minimax

TESTS = Path(__file__).parent


def _run(args: list[str], cache: Path, hash_seed: str = "0") -> str:
    """What ``jit_builders.main(args)`` prints in a new process using the cache at ``cache``."""
    env = {
        **os.environ,
        "NUMBA_CACHE_DIR": str(cache),
        "PYTHONHASHSEED": hash_seed,
        "PYTHONPATH": os.pathsep.join([str(TESTS), *sys.path]),
    }
    done = subprocess.run(
        [sys.executable, "-c", f"import jit_builders; jit_builders.main({args!r})"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_the_next_process_loads_a_compiled_closure_from_the_cache(tmp_path: Path) -> None:
    # f(10) = factor * 45 + 3, then the cache's hits and misses of that one build
    assert _run(["3"], tmp_path).splitlines() == ["138.0 0 1"]
    # a closure over another value is another entry: compiled, and its own answer
    assert _run(["3", "4"], tmp_path).splitlines() == ["138.0 1 0", "183.0 0 1"]


@pytest.fixture(scope="module")
def keys_in_two_processes(tmp_path_factory: pytest.TempPathFactory) -> list[list[str]]:
    cache = tmp_path_factory.mktemp("cache")
    return [_run(["keys"], cache, seed).splitlines() for seed in ("1", "2")]


def test_the_key_is_the_same_in_every_process_and_tells_closures_apart(
    keys_in_two_processes: list[list[str]],
) -> None:
    here = closure_key(scaled_sum(3).py_func)
    assert {keys[0] for keys in keys_in_two_processes} == {here}
    others = {
        closure_key(scaled_sum(4).py_func),
        closure_key(scaled_sum(3, (1.0, 3.0)).py_func),
        closure_key(scaled_sum(3, (1.0, 2.0, 0.0)).py_func),
    }
    assert len(others) == 3 and here not in others


def test_a_set_in_the_code_gives_one_key_whatever_the_string_hashes(
    keys_in_two_processes: list[list[str]],
) -> None:
    assert {keys[1] for keys in keys_in_two_processes} == {closure_key(word_filter())}


def test_code_typed_at_a_prompt_has_no_source_file_and_no_key(keys_in_two_processes: list[list[str]]) -> None:
    assert {keys[2] for keys in keys_in_two_processes} == {"f has no source file"}


def test_code_with_the_same_bytecode_but_other_constants_has_another_key() -> None:
    def builder(kind: int) -> Any:
        step = scaled_sum(1)
        if kind:

            def f(n):  # type: ignore[no-untyped-def]
                return step(n) * 2

        else:

            def f(n):  # type: ignore[no-untyped-def]
                return step(n) * 3

        return f

    assert builder(0).__code__.co_code == builder(1).__code__.co_code
    assert closure_key(builder(0)) != closure_key(builder(1))


def test_a_closure_without_a_stable_description_is_compiled_in_each_process() -> None:
    with pytest.raises(UnstableClosureError, match="a closure holds an object"):
        closure_key(holding_an_object().py_func)
    assert type(holding_an_object()._cache).__name__ == "NullCache"
    assert type(cached_njit(scaled_sum(2).py_func)._cache).__name__ == "_ClosureCache"


@pytest.mark.parametrize(
    "compiled",
    [
        lambda kernel: [compiled_search(kernel)],
        lambda kernel: [compiled_minimax(kernel)],
        lambda kernel: [mcts.compiled_mcts(kernel)],
        lambda kernel: list(mcts.batched_search(kernel)),
        lambda kernel: [now] if now() > 0 else [],
    ],
    ids=["alphabeta", "minimax", "mcts", "batched-mcts", "clock"],
)
def test_the_searches_can_be_cached(compiled: Any) -> None:
    # numba refuses to cache code holding addresses of this process (a ctypes function, a big
    # array): a search built so would be compiled afresh in every process again
    for dispatcher in compiled(parse_game("tictactoe").kernel):
        overloads = list(dispatcher.overloads.values())
        assert overloads and all(dispatcher._cache._impl.check_cachable(o) for o in overloads)


def test_entries_from_earlier_sources_are_dropped_and_their_files_written_over(tmp_path: Path) -> None:
    index = CurrentIndex(cache_path=str(tmp_path), filename_base="f", source_stamp=(1.0, 2))
    earlier, present = ("sig", "magic", "key", "earlier sources"), ("sig", "magic", "key", package_digest())
    index.save(earlier, ("compiled from earlier sources",))
    index.save(present, ("compiled from these",))
    assert index.load(present) == ("compiled from these",) and index.load(earlier) is None
    assert [path.name for path in tmp_path.glob("*.nbc")] == ["f.1.nbc"]


def test_a_cached_function_is_compiled_again_when_a_function_it_calls_changes(tmp_path: Path) -> None:
    # numba's own cache checks only the caller's file, and loaded the caller as it was compiled
    code = tmp_path / "code"
    code.mkdir()
    (code / "caller.py").write_text(
        "from callee import step\nfrom boardlab.games.jit import cached_njit\n\n"
        "@cached_njit\ndef twice(n):\n    return step(step(n))\n"
    )
    callee = "from numba import njit\n\n@njit\ndef step(n):\n    return n + {}\n"
    env = {
        **os.environ,
        "NUMBA_CACHE_DIR": str(tmp_path / "cache"),
        "PYTHONPATH": os.pathsep.join([str(code), *sys.path]),
    }
    answers = []
    for increment in (1, 10):
        (code / "callee.py").write_text(callee.format(increment))
        run = [sys.executable, "-c", "import caller; print(caller.twice(0))"]
        answers.append(
            subprocess.run(run, env=env, capture_output=True, text=True, check=True).stdout.strip()
        )
    assert answers == ["2", "20"]
