"""Builders of compiled closures for tests/test_jit.py, importable by a child process."""

from __future__ import annotations

from typing import Any

import numpy as np

from boardlab.games.jit import UnstableClosureError, cached_njit, closure_key


def scaled_sum(factor: int, weights: tuple[float, ...] = (1.0, 2.0)) -> Any:
    """A compiled ``f(n)``: ``factor`` times the sum of ``range(n)`` plus the weights' sum."""
    table = np.array(weights)

    @cached_njit
    def part(n):  # type: ignore[no-untyped-def]
        return factor * n

    @cached_njit
    def total(n):  # type: ignore[no-untyped-def]
        s = 0.0
        for i in range(n):
            s += part(i)
        return s + table.sum()

    return total


def word_filter() -> Any:
    """A closure whose code holds a set of strings (a constant whose order follows the hashes)."""
    step = scaled_sum(1)

    def keep(n, word):  # type: ignore[no-untyped-def]
        return step(n) if word in {"alpha", "beta", "gamma", "delta"} else 0.0

    return keep


def holding_an_object() -> Any:
    """A compiled closure over a value that has no description the same in every process."""
    box = object()

    @cached_njit
    def answer(n):  # type: ignore[no-untyped-def]
        return n + 1 if box is not None else n

    return answer


def _cache_use(factor: int) -> str:
    built = scaled_sum(factor)
    answer = built(10)
    return f"{answer} {sum(built.stats.cache_hits.values())} {sum(built.stats.cache_misses.values())}"


def _prompt_key() -> str:
    namespace: dict[str, Any] = {}
    exec("def f(n):\n    return n\n", namespace)  # as at a prompt: no source file
    try:
        return closure_key(namespace["f"])
    except UnstableClosureError as err:
        return str(err)


def main(args: list[str]) -> None:
    """Run as ``python -c "import jit_builders; jit_builders.main(ARGS)"``: the functions keep
    this module's name, as in the tests' process."""
    if args[0] == "keys":  # the keys of three closures, one a line
        print(closure_key(scaled_sum(3).py_func), closure_key(word_filter()), _prompt_key(), sep="\n")
    else:  # f(10) and the cache's hits and misses of one build, for each factor given
        print(*(_cache_use(int(factor)) for factor in args), sep="\n")
