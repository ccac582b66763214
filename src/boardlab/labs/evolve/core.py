"""Shared machinery of every strategy: the stopping rule, the counted run and the result record.

A strategy never calls the fitness function directly: it asks a :class:`Run`, which counts every
genome it evaluates (re-evaluations included), never exceeds the call budget, keeps the best
genome seen so far and records the per-generation history. Because the run holds the best so far,
an interrupted strategy (Ctrl-C) still leaves a usable answer behind.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Collection
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from boardlab.labs.evolve.diversity import mean_pairwise_hamming
from boardlab.labs.evolve.resume import ResumeError, ResumePoint, SavedState, as_state

PopulationFitness = Callable[[np.ndarray], np.ndarray]
"""A fitness function on a whole population: ``(n, L)`` genomes -> ``(n,)`` floats, higher is better."""


def check_count(owner: object, name: str, low: int = 1) -> None:
    """ValueError unless the setting ``name`` of ``owner`` (a config) is a whole number >= ``low``."""
    value = getattr(owner, name)
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < low:
        raise ValueError(f"{type(owner).__name__}.{name} must be a whole number >= {low}, got {value!r}")


def check_number(owner: object, name: str, low: float, high: float, optional: bool = False) -> None:
    """ValueError unless the setting ``name`` of ``owner`` is a number in ``[low, high]`` (NaN is
    not; infinity is only where ``high`` is) or None when ``optional``."""
    value = getattr(owner, name)
    if optional and value is None:
        return
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not low <= float(value) <= high:
        raise ValueError(
            f"{type(owner).__name__}.{name} must be a number in [{low:g}, {high:g}], got {value!r}"
        )


def check_choice(owner: object, name: str, choices: Collection[str]) -> None:
    """ValueError unless the setting ``name`` of ``owner`` is one of ``choices``."""
    value = getattr(owner, name)
    if not isinstance(value, str) or value not in choices:
        raise ValueError(f"{type(owner).__name__}.{name} must be one of {', '.join(choices)}, got {value!r}")


@dataclass(frozen=True)
class StopRule:
    """When a run ends: whichever limit comes first. ``None`` disables a limit.

    Attributes:
        target_fitness: stop as soon as a genome at least this fit has been evaluated.
        max_calls: hard budget of fitness evaluations; never exceeded.
        max_generations: number of generations (strategy iterations).
        stagnation: generations in a row without improvement of the best fitness.
    """

    target_fitness: float | None = None
    max_calls: int | None = None
    max_generations: int | None = None
    stagnation: int | None = None

    def __post_init__(self) -> None:
        if self.target_fitness is not None and not math.isfinite(self.target_fitness):
            # never reached (NaN) or never stopping (infinite: None says so)
            raise ValueError(f"target_fitness must be a finite number, got {self.target_fitness}")
        for name in ("max_calls", "max_generations", "stagnation"):
            value = getattr(self, name)
            if value is not None and value < 1:
                raise ValueError(f"{name} must be a positive integer, got {value}")
        if all(
            getattr(self, name) is None
            for name in ("target_fitness", "max_calls", "max_generations", "stagnation")
        ):
            raise ValueError("a stopping rule needs at least one limit")


@dataclass
class EvolutionResult:
    """The common record every strategy returns.

    Attributes:
        best_genome: the fittest genome evaluated.
        best_fitness: its fitness.
        best_generation: generation in which it was first found (0 = initial population).
        generations: generations completed.
        calls: fitness evaluations spent (every genome evaluated counts).
        calls_to_best: evaluations spent when the best genome was evaluated.
        calls_to_target: evaluations spent when the target fitness was first reached, or None.
        history_best: best fitness so far at the end of each generation.
        history_mean: mean fitness of the genomes evaluated in each generation.
        history_calls: cumulative calls at the end of each generation.
        history_diversity: mean pairwise Hamming distance over L of the population at the end
            of each generation (NaN for single-solution strategies and real vectors).
        stop_reason: which limit ended the run ("target", "max_calls", ..., "interrupted").
    """

    best_genome: np.ndarray
    best_fitness: float
    best_generation: int
    generations: int
    calls: int
    calls_to_best: int
    calls_to_target: int | None
    history_best: list[float] = field(default_factory=list)
    history_mean: list[float] = field(default_factory=list)
    history_calls: list[int] = field(default_factory=list)
    history_diversity: list[float] = field(default_factory=list)
    stop_reason: str = ""

    def summary(self) -> dict[str, Any]:
        """JSON-friendly summary (the genome as a 0/1 string when it is a bit string)."""
        genome = self.best_genome
        if genome.dtype == bool:
            genome_repr: Any = "".join("1" if bit else "0" for bit in genome)
        else:
            genome_repr = [float(v) for v in genome]
        return {
            "best_fitness": self.best_fitness,
            "best_generation": self.best_generation,
            "generations": self.generations,
            "calls": self.calls,
            "calls_to_best": self.calls_to_best,
            "calls_to_target": self.calls_to_target,
            "stop_reason": self.stop_reason,
            "best_genome": genome_repr,
        }

    def to_record(self) -> dict[str, Any]:
        """The whole result as JSON-friendly values, histories included, that
        :meth:`from_record` turns back into an equal result: floats exactly (NaN and infinities,
        which JSON has no numbers for, as the texts ``"nan"``, ``"inf"``, ``"-inf"``), a bit-string
        genome as a 0/1 text."""
        record = self.summary()
        if self.best_genome.dtype != bool:  # a real vector: its values, NaN or infinite ones too
            record["best_genome"] = [_json_float(value) for value in self.best_genome]
        return {
            **record,
            "best_fitness": _json_float(self.best_fitness),
            "history_best": [_json_float(value) for value in self.history_best],
            "history_mean": [_json_float(value) for value in self.history_mean],
            "history_calls": [int(calls) for calls in self.history_calls],
            "history_diversity": [_json_float(value) for value in self.history_diversity],
        }

    @classmethod
    def from_record(cls, record: Any) -> EvolutionResult:
        """The result :meth:`to_record` wrote; ValueError naming the first field that is missing,
        of the wrong kind or at odds with the others (a damaged record)."""
        if not isinstance(record, dict):
            raise ValueError("the result must be a JSON object")
        generations = _count_field(record, "generations")
        target = record.get("calls_to_target", _MISSING)
        histories = {name: [_float_field(v, name) for v in _list_field(record, name)] for name in _HISTORIES}
        history_calls = [_whole(v, "history_calls") for v in _list_field(record, "history_calls")]
        if {len(history) for history in histories.values()} | {len(history_calls)} != {generations}:
            raise ValueError(f"its histories must hold one value for each of its {generations} generations")
        stop_reason = record.get("stop_reason")
        if not isinstance(stop_reason, str):
            raise ValueError("'stop_reason' must be a text")
        return cls(
            best_genome=_genome_field(record.get("best_genome")),
            best_fitness=_float_field(record.get("best_fitness", _MISSING), "best_fitness"),
            best_generation=_count_field(record, "best_generation"),
            generations=generations,
            calls=_count_field(record, "calls"),
            calls_to_best=_count_field(record, "calls_to_best"),
            calls_to_target=None if target is None else _whole(target, "calls_to_target"),
            history_best=histories["history_best"],
            history_mean=histories["history_mean"],
            history_calls=history_calls,
            history_diversity=histories["history_diversity"],
            stop_reason=stop_reason,
        )


_MISSING: Any = object()
_HISTORIES = ("history_best", "history_mean", "history_diversity")
_NON_FINITE = ("nan", "inf", "-inf")


def _json_float(value: float) -> float | str:
    """``value`` as JSON holds it exactly: the number when finite, else ``"nan"``, ``"inf"``
    or ``"-inf"`` (Python writes floats with as many digits as it takes to read them back)."""
    value = float(value)
    return value if math.isfinite(value) else repr(value)


def _float_field(value: Any, name: str) -> float:
    _present(value, name)
    if isinstance(value, str) and value in _NON_FINITE:
        return float(value)
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"{name!r}: {str(value)[:30]!r} is not a number")
    return float(value)


def _whole(value: Any, name: str) -> int:
    _present(value, name)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{name!r}: {str(value)[:30]!r} is not a whole number >= 0")
    return value


def _present(value: Any, name: str) -> None:
    if value is _MISSING:
        raise ValueError(f"it lacks {name!r}")


def _count_field(record: dict[str, Any], name: str) -> int:
    return _whole(record.get(name, _MISSING), name)


def _list_field(record: dict[str, Any], name: str) -> list[Any]:
    value = record.get(name)
    if not isinstance(value, list):
        raise ValueError(f"{name!r} must be a list")
    return value


def _genome_field(value: Any) -> np.ndarray:
    """A genome as :meth:`EvolutionResult.summary` writes it: a 0/1 text, or a list of numbers."""
    if isinstance(value, str) and value and set(value) <= {"0", "1"}:
        return np.frombuffer(value.encode("ascii"), dtype=np.uint8) == ord("1")
    if isinstance(value, list) and value:
        return np.array([_float_field(v, "best_genome") for v in value])
    raise ValueError("'best_genome' must be a 0/1 text or a list of numbers")


ProgressCallback = Callable[["Run"], None]


class Run:
    """A counted, budgeted evaluation session shared by a strategy and its caller.

    Args:
        fitness: population fitness function.
        stop: the stopping rule.
        on_progress: called after every evaluated batch (progress bars, checkpoints).
        calls_offset: calls already spent before this run (a warm start from a genome found
            earlier); they count towards ``stop.max_calls``.
        resumable: keep the latest resume point (:attr:`resume_point`), from which
            :meth:`restore` continues the run exactly.

    Every strategy calls :meth:`begin` before it draws a random number and :meth:`mark` at the
    top of each iteration of its main loop; both do nothing more than return None on a run that
    is not ``resumable``.
    """

    def __init__(
        self,
        fitness: PopulationFitness,
        stop: StopRule,
        on_progress: ProgressCallback | None = None,
        calls_offset: int = 0,
        resumable: bool = False,
    ) -> None:
        self.fitness = fitness
        self.stop = stop
        self.on_progress = on_progress
        self.resumable = resumable
        self._latest: ResumePoint | None = None
        self._restored: ResumePoint | None = None
        self.calls = calls_offset
        self.generation = 0
        self.best_genome: np.ndarray | None = None
        self.best_fitness = -math.inf
        self.best_generation = 0
        self.calls_to_best = 0
        self.calls_to_target: int | None = None
        self.history_best: list[float] = []
        self.history_mean: list[float] = []
        self.history_calls: list[int] = []
        self.history_diversity: list[float] = []
        self._generation_sum = 0.0
        self._generation_count = 0
        self._stagnant_generations = 0
        self._improved_this_generation = False
        self.stop_reason = ""

    # -- resume points ----------------------------------------------------------------------

    def begin(self, rng: np.random.Generator) -> SavedState | None:
        """Called by the strategy first: the strategy's variables to go on from (with ``rng``
        put back in the state it had there) when this run was restored from a resume point
        taken inside the strategy's loop; None when the strategy starts afresh, from ``rng``.
        ResumeError when the saved state does not fit this generator."""
        point, self._restored = self._restored, None
        if point is not None:
            try:
                rng.bit_generator.state = point.rng_state
            except (TypeError, ValueError, KeyError) as error:
                raise ResumeError(f"its random generator state does not fit: {error}") from None
        if point is not None and point.strategy is not None:
            return SavedState(point.strategy)
        if self.resumable and self.calls == 0 and self.generation == 0:
            self._latest = self._point(rng, None)  # a fresh start: resumed, it starts afresh
        return None

    def mark(self, rng: np.random.Generator, **state: np.ndarray | float | int | bool) -> None:
        """Called by the strategy at the top of each iteration of its main loop with every
        variable the rest of the run depends on: the resume point there (kept when the run is
        ``resumable``)."""
        if not self.resumable or self._generation_count:
            return  # a generation begun before the strategy (a warm start's genome) is no point
        self._latest = self._point(rng, {name: as_state(value) for name, value in state.items()})

    def _point(self, rng: np.random.Generator, strategy: dict[str, np.ndarray] | None) -> ResumePoint:
        empty = np.empty(0)
        return ResumePoint(
            calls=self.calls,
            generation=self.generation,
            best_genome=self.best_genome,  # replaced, never changed in place: no copy needed
            best_fitness=self.best_fitness,
            best_generation=self.best_generation,
            calls_to_best=self.calls_to_best,
            calls_to_target=self.calls_to_target,
            stagnant_generations=self._stagnant_generations,
            history_best=empty,  # the histories only grow: cut to the generation when asked for
            history_mean=empty,
            history_calls=empty,
            history_diversity=empty,
            rng_state=dict(rng.bit_generator.state),
            strategy=strategy,
        )

    @property
    def resume_point(self) -> ResumePoint | None:
        """The latest resume point (None before the strategy began or on a run that is not
        ``resumable``): continued by :meth:`restore`, it gives exactly this run's result."""
        point = self._latest
        if point is None:
            return None
        end = point.generation
        return replace(
            point,
            history_best=np.array(self.history_best[:end], dtype=np.float64),
            history_mean=np.array(self.history_mean[:end], dtype=np.float64),
            history_calls=np.array(self.history_calls[:end], dtype=np.int64),
            history_diversity=np.array(self.history_diversity[:end], dtype=np.float64),
        )

    def restore(self, point: ResumePoint) -> None:
        """Take up a fresh run where ``point`` left it: the strategy run on it next (the same
        strategy, configuration and genome length) continues exactly, its random generator put
        back by :meth:`begin`. The run becomes ``resumable``."""
        if self.calls or self.generation or self.best_genome is not None:
            raise RuntimeError("only a run that has not started can be restored")
        self.calls = point.calls
        self.generation = point.generation
        self.best_genome = None if point.best_genome is None else point.best_genome.copy()
        self.best_fitness = point.best_fitness
        self.best_generation = point.best_generation
        self.calls_to_best = point.calls_to_best
        self.calls_to_target = point.calls_to_target
        self._stagnant_generations = point.stagnant_generations
        self.history_best = [float(value) for value in point.history_best]
        self.history_mean = [float(value) for value in point.history_mean]
        self.history_calls = [int(value) for value in point.history_calls]
        self.history_diversity = [float(value) for value in point.history_diversity]
        self.resumable = True
        self._restored = point
        self._latest = replace(point, best_genome=self.best_genome)

    # -- evaluation -------------------------------------------------------------------------

    @property
    def remaining_calls(self) -> int | None:
        """Evaluations left in the budget (None when unlimited)."""
        if self.stop.max_calls is None:
            return None
        return max(0, self.stop.max_calls - self.calls)

    def evaluate(self, genomes: np.ndarray) -> np.ndarray:
        """Evaluate a population ``(n, L)``; genomes beyond the budget get ``-inf`` unevaluated."""
        genomes = np.atleast_2d(genomes)
        allowed = genomes.shape[0]
        if self.remaining_calls is not None:
            allowed = min(allowed, self.remaining_calls)
        values = np.full(genomes.shape[0], -math.inf)
        if allowed > 0:
            values[:allowed] = self.fitness(genomes[:allowed])
            self._account(genomes[:allowed], values[:allowed])
        return values

    def evaluate_one(self, genome: np.ndarray) -> float:
        """Evaluate a single genome (one call)."""
        return float(self.evaluate(genome[None, :])[0])

    def _account(self, genomes: np.ndarray, values: np.ndarray) -> None:
        first_call = self.calls
        self.calls += len(values)
        self._generation_sum += float(values.sum())
        self._generation_count += len(values)
        best_index = int(np.argmax(values))
        if values[best_index] > self.best_fitness:
            self.best_fitness = float(values[best_index])
            self.best_genome = genomes[best_index].copy()
            self.best_generation = self.generation
            self.calls_to_best = first_call + best_index + 1
            self._improved_this_generation = True
        target = self.stop.target_fitness
        if target is not None and self.calls_to_target is None:
            hits = np.flatnonzero(values >= target)
            if hits.size:
                self.calls_to_target = first_call + int(hits[0]) + 1
        if self.on_progress is not None:
            self.on_progress(self)

    # -- generations and stopping -----------------------------------------------------------

    def end_generation(self, population: np.ndarray | None = None) -> None:
        """Close the current generation: record history (with the diversity of ``population``
        when a bit-string population is given) and update the stagnation counter."""
        self.generation += 1
        mean = self._generation_sum / self._generation_count if self._generation_count else math.nan
        self.history_best.append(self.best_fitness)
        self.history_mean.append(mean)
        self.history_calls.append(self.calls)
        diversity = math.nan
        if population is not None and population.dtype == bool and population.shape[1]:
            diversity = mean_pairwise_hamming(population) / population.shape[1]
        self.history_diversity.append(diversity)
        self._stagnant_generations = 0 if self._improved_this_generation else (self._stagnant_generations + 1)
        self._improved_this_generation = False
        self._generation_sum = 0.0
        self._generation_count = 0

    @property
    def done(self) -> bool:
        """True once any limit of the stopping rule is reached (sets ``stop_reason``)."""
        stop = self.stop
        if stop.target_fitness is not None and self.best_fitness >= stop.target_fitness:
            self.stop_reason = "target"
        elif stop.max_calls is not None and self.calls >= stop.max_calls:
            self.stop_reason = "max_calls"
        elif stop.max_generations is not None and self.generation >= stop.max_generations:
            self.stop_reason = "max_generations"
        elif stop.stagnation is not None and self._stagnant_generations >= stop.stagnation:
            self.stop_reason = "stagnation"
        return bool(self.stop_reason)

    def result(self) -> EvolutionResult:
        """The result record of the run so far (valid at any time, e.g. after Ctrl-C)."""
        if self.best_genome is None:
            raise RuntimeError("no genome has been evaluated yet")
        return EvolutionResult(
            best_genome=self.best_genome.copy(),
            best_fitness=self.best_fitness,
            best_generation=self.best_generation,
            generations=self.generation,
            calls=self.calls,
            calls_to_best=self.calls_to_best,
            calls_to_target=self.calls_to_target,
            history_best=list(self.history_best),
            history_mean=list(self.history_mean),
            history_calls=list(self.history_calls),
            history_diversity=list(self.history_diversity),
            stop_reason=self.stop_reason or "interrupted",
        )
