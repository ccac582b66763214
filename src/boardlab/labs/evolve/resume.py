"""Resume points: a strategy's run, whole, at the top of its main loop.

A :class:`~boardlab.labs.evolve.core.Run` made ``resumable`` records, at the top of every
iteration of a strategy's main loop, everything the rest of the run depends on: the run's
counters and histories, the random generator's state and the strategy's own variables (its
population, its probability vector, its mutation rate, ...). A run restored from such a
:class:`ResumePoint` and handed to the same strategy with the same configuration continues
exactly as the uninterrupted run did: same genomes evaluated, same result record.

A resume point is written as arrays only (:meth:`ResumePoint.to_arrays`, for ``np.savez``) with
the scalars and the generator's state (``bit_generator.state``, a dict of numbers) as one JSON
text: no pickle.
"""

from __future__ import annotations

import json
import numbers
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

FORMAT = 1
"""The version of the layout :meth:`ResumePoint.to_arrays` writes."""
STRATEGY_PREFIX = "strategy_"
"""Names of the strategy's own arrays begin with this, the run's do not."""
HISTORIES = ("history_best", "history_mean", "history_calls", "history_diversity")


class ResumeError(ValueError):
    """A resume point that cannot be continued: damaged, or saved by another strategy or
    configuration (the message names what does not fit)."""


@dataclass(eq=False)  # arrays: compare the fields one by one
class ResumePoint:
    """A run at the top of a strategy's main loop, with what the strategy needs to go on.

    Attributes:
        calls, generation, best_genome, best_fitness, best_generation, calls_to_best,
        calls_to_target, stagnant_generations: the run's counters (as :class:`Run` holds them).
        history_best, history_mean, history_calls, history_diversity: the run's histories, one
            value per generation completed.
        rng_state: the strategy's ``numpy.random.Generator``'s ``bit_generator.state``.
        strategy: the strategy's own variables by name, or None when the point was taken before
            the strategy began (it starts from its random generator, as a fresh run does).
    """

    calls: int
    generation: int
    best_genome: np.ndarray | None
    best_fitness: float
    best_generation: int
    calls_to_best: int
    calls_to_target: int | None
    stagnant_generations: int
    history_best: np.ndarray
    history_mean: np.ndarray
    history_calls: np.ndarray
    history_diversity: np.ndarray
    rng_state: dict[str, Any]
    strategy: dict[str, np.ndarray] | None

    def to_arrays(self) -> dict[str, np.ndarray]:
        """The point as named arrays, for ``np.savez`` (read back by :meth:`from_arrays`)."""
        counters = {
            "format": FORMAT,
            "calls": self.calls,
            "generation": self.generation,
            "best_generation": self.best_generation,
            "calls_to_best": self.calls_to_best,
            "calls_to_target": self.calls_to_target,
            "stagnant_generations": self.stagnant_generations,
            "started": self.strategy is not None,
            "rng_state": self.rng_state,
        }
        arrays = {
            "run": np.array(json.dumps(counters)),
            "best_fitness": np.array(self.best_fitness, dtype=np.float64),
            "history_best": np.asarray(self.history_best, dtype=np.float64),
            "history_mean": np.asarray(self.history_mean, dtype=np.float64),
            "history_calls": np.asarray(self.history_calls, dtype=np.int64),
            "history_diversity": np.asarray(self.history_diversity, dtype=np.float64),
        }
        if self.best_genome is not None:
            arrays["best_genome"] = self.best_genome
        for name, value in (self.strategy or {}).items():
            arrays[STRATEGY_PREFIX + name] = value
        return arrays

    @classmethod
    def from_arrays(cls, arrays: Mapping[str, np.ndarray]) -> ResumePoint:
        """The point :meth:`to_arrays` wrote; ResumeError naming the first thing that is missing
        or does not fit."""
        counters = _counters(arrays)
        generation = _whole(counters, "generation")
        histories = {name: _history(arrays, name, generation) for name in HISTORIES}
        genome = arrays.get("best_genome")
        if genome is not None and (genome.ndim != 1 or genome.size == 0):
            raise ResumeError("its best genome must be one non-empty row")
        calls_to_target = counters.get("calls_to_target")
        rng_state = counters.get("rng_state")
        if not isinstance(rng_state, dict):
            raise ResumeError("it lacks the state of its random generator")
        started = counters.get("started")
        if not isinstance(started, bool):
            raise ResumeError("'started' must be true or false")
        strategy = {
            name[len(STRATEGY_PREFIX) :]: value
            for name, value in arrays.items()
            if name.startswith(STRATEGY_PREFIX)
        }
        return cls(
            calls=_whole(counters, "calls"),
            generation=generation,
            best_genome=genome,
            best_fitness=_scalar(arrays, "best_fitness"),
            best_generation=_whole(counters, "best_generation"),
            calls_to_best=_whole(counters, "calls_to_best"),
            calls_to_target=None if calls_to_target is None else _whole(counters, "calls_to_target"),
            stagnant_generations=_whole(counters, "stagnant_generations"),
            history_best=histories["history_best"],
            history_mean=histories["history_mean"],
            history_calls=histories["history_calls"],
            history_diversity=histories["history_diversity"],
            rng_state=rng_state,
            strategy=strategy if started else None,
        )


def _counters(arrays: Mapping[str, np.ndarray]) -> dict[str, Any]:
    text = arrays.get("run")
    if text is None or text.shape != () or text.dtype.kind != "U":
        raise ResumeError("it lacks the run's counters")
    try:
        counters = json.loads(str(text))
    except ValueError:
        raise ResumeError("its counters are not JSON") from None
    if not isinstance(counters, dict):
        raise ResumeError("its counters must be a JSON object")
    if counters.get("format") != FORMAT:
        raise ResumeError(f"it is of format {str(counters.get('format'))[:20]!r}, not {FORMAT}")
    return counters


def _whole(counters: Mapping[str, Any], name: str) -> int:
    value = counters.get(name)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ResumeError(f"{name!r} must be a whole number >= 0, got {str(value)[:30]!r}")
    return value


def _scalar(arrays: Mapping[str, np.ndarray], name: str) -> float:
    value = arrays.get(name)
    if value is None or value.shape != () or value.dtype != np.float64:
        raise ResumeError(f"{name!r} must be one float64 number")
    return float(value)


def _history(arrays: Mapping[str, np.ndarray], name: str, generation: int) -> np.ndarray:
    value = arrays.get(name)
    dtype = np.int64 if name == "history_calls" else np.float64
    if value is None or value.dtype != dtype or value.shape != (generation,):
        raise ResumeError(
            f"{name!r} must hold one {np.dtype(dtype)} value for each of {generation} generations"
        )
    return value


class SavedState:
    """A strategy's own variables at a resume point, read with checks: ResumeError naming the
    variable that is missing or not of the kind and shape this strategy and configuration give
    it (a point saved by another strategy or configuration)."""

    def __init__(self, arrays: Mapping[str, np.ndarray]) -> None:
        self._arrays = dict(arrays)

    def __contains__(self, name: object) -> bool:
        return name in self._arrays

    def array(self, name: str, dtype: Any, shape: tuple[int | None, ...]) -> np.ndarray:
        """The array ``name``, of this dtype and shape (None: any length), as saved."""
        value = self._arrays.get(name)
        if value is None:
            raise ResumeError(f"the strategy's state lacks {name!r}")
        fits = len(shape) == value.ndim and all(
            size is None or size == actual for size, actual in zip(shape, value.shape, strict=True)
        )
        if value.dtype != np.dtype(dtype) or not fits:
            wanted = "x".join("n" if size is None else str(size) for size in shape) or "one value"
            raise ResumeError(
                f"the strategy's {name!r} must be {wanted} of {np.dtype(dtype)}, not "
                f"{'x'.join(map(str, value.shape)) or 'one value'} of {value.dtype}"
            )
        return value.copy()  # the strategy may change its variables in place

    def number(self, name: str) -> float:
        """The float ``name``."""
        return float(self.array(name, np.float64, ()))

    def whole(self, name: str) -> int:
        """The whole number ``name``."""
        value = self._arrays.get(name)
        if value is not None and value.shape == () and value.dtype.kind == "i":
            return int(value)
        raise ResumeError(f"the strategy's {name!r} must be one whole number")


def as_state(value: np.ndarray | float | int | bool) -> np.ndarray:
    """A strategy variable as the array a resume point keeps: a copy, with its own dtype (a
    Python float as float64, an int as int64)."""
    if isinstance(value, np.ndarray):
        return value.copy()
    if isinstance(value, bool | np.bool_):
        return np.array(value, dtype=bool)
    if isinstance(value, numbers.Integral):
        return np.array(value, dtype=np.int64)
    return np.array(value, dtype=np.float64)
