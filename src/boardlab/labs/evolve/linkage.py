"""Effect-group hill climbing: linkage learned from single-bit perturbations.

Many pseudo-boolean problems are built from blocks of interchangeable loci: flipping any bit of a
block has exactly the same effect on fitness. The climber works in rounds:

1. *Learn* (full sweep, L calls): evaluate every single-bit flip of the current genome and group
   the loci whose flips give the same fitness (within ``effect_tolerance``).
2. *Move*: try flipping each group as a whole, most promising group first, keeping every strict
   improvement. Group moves cross the deceptive valleys that stop single-bit climbers (a block
   whose bits are each harmful alone but profitable together).
3. *Refresh* (cheap, one call per group): the groups are kept and only one representative locus
   of each is re-probed at the new genome; groups whose representatives now have the same effect
   are merged for the next move step. When a cheap round finds no improvement the climber falls
   back to a full sweep; when a full round finds none it perturbs the best local optimum found
   (iterated local search) and starts again.

The algorithm only reads fitness values, so it applies to any bit-string problem; it is cheap
exactly when the problem has such equal-effect blocks (OneMax needs L + 2 calls).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from boardlab.labs.evolve.core import EvolutionResult, Run, check_number
from boardlab.labs.evolve.operators import flip_exactly, random_bits, single_flips
from boardlab.labs.evolve.resume import ResumeError, SavedState


@dataclass(frozen=True)
class LinkageClimberConfig:
    """Hyper-parameters of :func:`linkage_hill_climber`.

    Attributes:
        effect_tolerance: single-flip fitness values closer than this are one group
            (0 = exactly equal).
        perturbation: fraction of loci flipped at random to leave a local optimum.
        cheap_refresh: re-probe one representative per known group instead of a full sweep
            while that keeps finding improvements.
    """

    effect_tolerance: float = 0.0
    perturbation: float = 0.05
    cheap_refresh: bool = True

    def __post_init__(self) -> None:
        check_number(self, "effect_tolerance", 0.0, math.inf)
        check_number(self, "perturbation", 0.0, 1.0)


def group_by_effect(values: np.ndarray, tolerance: float = 0.0) -> list[np.ndarray]:
    """Indices grouped by value (consecutive sorted values within ``tolerance``), best first."""
    order = np.argsort(-values, kind="stable")
    with np.errstate(invalid="ignore"):  # equal infinities give nan gaps: same group
        gaps = -np.diff(values[order])
    cuts = np.flatnonzero(gaps > tolerance) + 1
    return np.split(order, cuts)


Move = tuple[np.ndarray, float]
"""A group of loci to flip together and the fitness of flipping one of them alone."""


def _full_sweep(run: Run, genome: np.ndarray, tolerance: float) -> tuple[list[np.ndarray], list[Move]]:
    """Evaluate every single flip (L calls); the equal-effect groups and their moves."""
    flip_values = run.evaluate(single_flips(genome, np.arange(len(genome))))
    groups = group_by_effect(flip_values, tolerance)
    return groups, [(group, float(flip_values[group[0]])) for group in groups]


def _cheap_refresh(run: Run, genome: np.ndarray, groups: list[np.ndarray], tolerance: float) -> list[Move]:
    """Probe one locus per known group (one call each); merge groups of equal effect."""
    representatives = np.array([group[0] for group in groups])
    values = run.evaluate(single_flips(genome, representatives))
    merged = group_by_effect(values, tolerance)
    return [(np.concatenate([groups[i] for i in members]), float(values[members[0]])) for members in merged]


def _flip_groups(
    run: Run, genome: np.ndarray, fitness: float, moves: list[Move]
) -> tuple[np.ndarray, float, bool]:
    """Try each group flip in turn and keep strict improvements; when a whole group fails but
    its single flip looked improving, try that single flip."""
    improved = False
    for group, single_flip_value in moves:
        if run.done:
            break
        candidate = genome.copy()
        candidate[group] ^= True
        candidate_fitness = run.evaluate_one(candidate)
        if candidate_fitness <= fitness and len(group) > 1 and single_flip_value > fitness:
            candidate = genome.copy()
            candidate[group[0]] ^= True
            candidate_fitness = run.evaluate_one(candidate)
        if candidate_fitness > fitness:
            genome, fitness, improved = candidate, candidate_fitness, True
    return genome, fitness, improved


def _groups_state(groups: list[np.ndarray]) -> dict[str, np.ndarray]:
    """The known groups as two arrays: their loci one group after another, and their sizes."""
    sizes = np.array([len(group) for group in groups], dtype=np.int64)
    return {"group_loci": np.concatenate(groups), "group_sizes": sizes}


def _saved_groups(saved: SavedState, length: int) -> list[np.ndarray] | None:
    """The groups :func:`_groups_state` saved (None: none known, the next round learns them)."""
    if "group_loci" not in saved:
        return None
    loci = saved.array("group_loci", np.intp, (None,))
    sizes = saved.array("group_sizes", np.int64, (None,))
    if (
        sizes.size == 0
        or sizes.min() < 1
        or sizes.sum() != loci.size
        or not np.all((loci >= 0) & (loci < length))
    ):
        raise ResumeError("the strategy's groups must split loci of the genome into non-empty groups")
    return np.split(loci, np.cumsum(sizes)[:-1])


def linkage_hill_climber(
    run: Run,
    length: int,
    config: LinkageClimberConfig,
    rng: np.random.Generator,
    initial: np.ndarray | None = None,
) -> EvolutionResult:
    """Effect-group hill climbing with iterated-local-search perturbations (see module doc)."""
    saved = run.begin(rng)
    groups: list[np.ndarray] | None = None
    if saved is None:
        current = initial.copy() if initial is not None else random_bits(rng, 1, length)[0]
        current_fitness = run.evaluate_one(current)
        anchor, anchor_fitness = current, current_fitness
        run.end_generation()
    else:
        current, current_fitness = saved.array("current", bool, (length,)), saved.number("current_fitness")
        anchor, anchor_fitness = saved.array("anchor", bool, (length,)), saved.number("anchor_fitness")
        groups = _saved_groups(saved, length)
    while not run.done:
        run.mark(
            rng,
            current=current,
            current_fitness=current_fitness,
            anchor=anchor,
            anchor_fitness=anchor_fitness,
            **({} if groups is None else _groups_state(groups)),
        )
        full_round = groups is None or not config.cheap_refresh
        if groups is None or full_round:
            groups, moves = _full_sweep(run, current, config.effect_tolerance)
        else:
            moves = _cheap_refresh(run, current, groups, config.effect_tolerance)
        if run.done:
            break
        current, current_fitness, improved = _flip_groups(run, current, current_fitness, moves)
        if not improved and not full_round:
            groups = None  # the known groups are exhausted: learn again from scratch
        elif not improved:
            if current_fitness >= anchor_fitness:
                anchor, anchor_fitness = current, current_fitness
            flips = max(1, round(config.perturbation * length))
            current = flip_exactly(anchor[None, :], flips, rng)[0]
            current_fitness = run.evaluate_one(current)
            groups = None
        run.end_generation()
    return run.result()
