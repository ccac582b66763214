"""NEAT for Quixo: networks evolved with neat-python, judged by games against a pool of opponents.

**What evolves.** A genome of neat-python (``DefaultGenome``: nodes with bias, response and
activation; connections with weight, enabled flag and innovation number) is a value network
over the observation planes of a position (the cubes of the side to move and of its opponent,
``2 × N × N`` inputs, one output). It plays as :mod:`boardlab.agents.neat_player` does: every
legal move is scored by minus the network's value of the position it leads to, a move that
ends the game by its result, and with ``guard`` (the default) a
move that lets the opponent win at once below every safe move, so the network learns to
choose among safe moves. NEAT (Stanley & Miikkulainen 2002) grows the networks from the
plain input-to-output connections, adding nodes and connections by mutation, and protects new
structures by speciation (species by compatibility distance, fitness shared within a species,
stagnant species removed): all of this is neat-python's ``Population``, ``DefaultReproduction``,
``DefaultSpeciesSet`` and ``DefaultStagnation``, but for one change: when the species
outnumber what the population can give each its minimum size, the least fit of them are
removed as stagnant ones are (:class:`BoundedStagnation`), where neat-python would stop.

**Fitness** is the mean score of games against a pool of opponents (a draw ½; a win
``1 - speed·t`` and a loss ``speed·t``, ``t`` the game's plies over 100, at most 1: among wins
the quick ones count more, among losses the long ones, which gives the first generations,
who lose most games against ``greedy``, something to climb):
``games`` games against ``random`` and as many against ``greedy`` (wins at once, never hands
over an immediate win), and ``champion_games`` against each of the last ``pool`` champions
(the best genome every ``champion_every`` generations). Seats alternate and every game opens
with ``opening`` random plies. All genomes of a generation play the same games (the same
openings and random draws: common random numbers), so their fitness values compare fairly.
Genomes are evaluated in ``workers`` worker processes (:class:`boardlab.play.pool.Workers`);
the number of workers does not change the results.

**Hyper-parameters** are one frozen dataclass, :class:`NeatParams`; they are printed at the
start, stored in the checkpoint and the model, and turned into neat-python's configuration
file (:func:`config_text`), written to a temporary folder and read by ``neat.Config``.

**Files** (never pickle). After every generation two JSON files are written atomically:
``model.json``, the champion of the generation in the format the ``neat`` agent reads, and
``checkpoint.json``, everything needed to continue: the population (every genome, genes in
their insertion order), the species (members, representative, creation, last improvement,
fitness history), neat-python's counters (next genome id, next node id, innovation counter),
the state of Python's ``random`` module that neat-python draws from, the opponent pool and
the history behind the plots. :meth:`Evolution.resume` rebuilds neat-python's objects from it,
so a resumed run continues from the saved population with nothing lost and, because fitness
games are seeded by the run's seed and the generation, gives the same result as an
uninterrupted run (neat-python's record of each genome's parents, which it never reads, is not
kept). The champion of a generation is its best genome by fitness: a noisy estimate, which is
why the learning curve plays it against fixed opponents.

    boardlab train neat --game quixo --out runs/neat --epochs 100 --hyper population=80
"""

from __future__ import annotations

import itertools
import json
import random
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from random import Random
from typing import Any, ClassVar

import neat
import numpy as np

from boardlab.agents.greedy import build_greedy_kinds
from boardlab.agents.neat_player import (
    NeatPolicy,
    Network,
    check_genome,
    model_json,
)
from boardlab.core.files import atomic_write_text
from boardlab.core.inputs import InputFileError, check_fields, read_json, short_reason
from boardlab.games import GameOptionError, parse_game
from boardlab.games.base import DRAW, ONGOING, WIN, compiled_for
from boardlab.models.table import ModelFileError, ModelMismatchError
from boardlab.play.pool import Workers
from boardlab.train.plots import write_neat_plots
from boardlab.train.run import (
    GameResult,
    Match,
    Method,
    RunDefaults,
    TrainingError,
    check_history,
    check_state,
    checked_settings,
    play_matches,
    tallies,
)
from boardlab.train.run import parse_hyper as hyper_settings
from boardlab.train.settings import INITIAL_CONNECTIONS, MIN_SPECIES_SIZE, NeatParams, activation_names

CHECKPOINT_FILE = "checkpoint.json"
MODEL_FILE = "model.json"
CHECKPOINT_FORMAT = "boardlab-neat-checkpoint"
MAX_CHECKPOINT_BYTES = 1 << 30
"""The largest checkpoint read (a population of large genomes stays far below)."""
CHECKPOINT_VERSION = 1
HISTORY_FIELDS = {
    "generation": "int",
    "best": "number",
    "mean": "number",
    "species": "counts",
    "nodes": "int",
    "connections": "int",
    "pool": "int",
}
"""What the plots, the summary and the progress bar read in each generation's record."""
DEFAULT_AGAINST = ("random", "greedy", "alphabeta:depth=1")
EVAL_OPENING = 2
"""Random plies opening each game against the fixed opponents."""
NOT_RESULTS = ("workers",)
"""Hyper-parameters that do not change what a run computes (a resumed run may change them)."""


class NeatTrainingError(TrainingError):
    """Bad training input: a hyper-parameter out of range, a game NEAT cannot learn here."""


# --- hyper-parameters --------------------------------------------------------------------------


def params_for(values: Mapping[str, Any] | None = None) -> NeatParams:
    """:class:`NeatParams` with ``values`` (others default), checked; NeatTrainingError otherwise."""
    return checked_settings(NeatParams, "neat", values, NeatTrainingError)


def parse_hyper(text: str) -> NeatParams:
    """:class:`NeatParams` from ``key=value,...`` (e.g. ``population=80,node_add=0.2``)."""
    return hyper_settings(NeatParams, "neat", text, NeatTrainingError)


def config_text(params: NeatParams, num_inputs: int) -> str:
    """neat-python's configuration file for ``params`` and a network of ``num_inputs`` inputs."""
    activations = activation_names(params)
    values = {
        "NEAT": {
            "fitness_criterion": "max",
            "fitness_threshold": "1e9",
            "pop_size": params.population,
            "reset_on_extinction": "True",
            "no_fitness_termination": "True",
        },
        "DefaultGenome": {
            "num_inputs": num_inputs,
            "num_outputs": 1,
            "num_hidden": params.hidden,
            "feed_forward": "True",
            "initial_connection": INITIAL_CONNECTIONS[params.initial],
            "compatibility_disjoint_coefficient": 1.0,
            "compatibility_weight_coefficient": 0.5,
            "conn_add_prob": params.conn_add,
            "conn_delete_prob": params.conn_delete,
            "node_add_prob": params.node_add,
            "node_delete_prob": params.node_delete,
            "activation_default": activations[0],
            "activation_options": " ".join(activations),
            "activation_mutate_rate": 0.1 if len(activations) > 1 else 0.0,
            "aggregation_default": "sum",
            "aggregation_options": "sum",
            "aggregation_mutate_rate": 0.0,
            **_float_gene("bias", 0.0, 1.0, 0.5, 0.7, 0.1),
            **_float_gene("response", 1.0, 0.0, 0.0, 0.0, 0.0),
            **_float_gene("weight", 0.0, 1.0, params.weight_power, params.weight_rate, 0.1),
            "enabled_default": "True",
            "enabled_mutate_rate": 0.01,
        },
        "DefaultSpeciesSet": {"compatibility_threshold": params.compatibility},
        "DefaultStagnation": {
            "species_fitness_func": "max",
            "max_stagnation": params.stagnation,
            "species_elitism": params.species_elitism,
        },
        "DefaultReproduction": {
            "elitism": params.elitism,
            "survival_threshold": params.survival,
            "min_species_size": MIN_SPECIES_SIZE,
        },
    }
    lines = []
    for section, items in values.items():
        lines.append(f"[{section}]")
        lines.extend(f"{key} = {value}" for key, value in items.items())
        lines.append("")
    return "\n".join(lines)


def _float_gene(name: str, mean: float, stdev: float, power: float, rate: float, replace: float) -> dict:
    return {
        f"{name}_init_mean": mean,
        f"{name}_init_stdev": stdev,
        f"{name}_max_value": 30.0,
        f"{name}_min_value": -30.0,
        f"{name}_mutate_power": power,
        f"{name}_mutate_rate": rate,
        f"{name}_replace_rate": replace,
    }


class BoundedStagnation(neat.DefaultStagnation):  # type: ignore[misc]
    """neat-python's stagnation, which also removes the least fit species beyond ``room``, the
    most species the next generation can hold (set by :class:`BoundedReproduction`).

    neat-python's reproduction gives every surviving species at least ``min_species_size``
    genomes (and its elites), and raises a RuntimeError ("Configuration conflict") when the
    species outnumber what the population can give them: a small ``compatibility`` (or a small
    ``survival``, which breeds the population apart) can split a population of 30 into 28
    species. Every value of those hyper-parameters is a fair experiment, so rather than refuse
    it the run keeps going and the species that do not fit go the way stagnant ones go: the
    least fit first (``update`` lists the species in ascending fitness). Where every species
    fits, nothing changes: a run gives what neat-python alone gives.
    """

    room: int | None = None

    def update(self, species_set: Any, generation: int) -> list[tuple[int, Any, bool]]:
        """neat-python's verdicts, the least fit species beyond ``room`` marked for removal."""
        marked: list[tuple[int, Any, bool]] = super().update(species_set, generation)
        kept = [index for index, (_, _, stagnant) in enumerate(marked) if not stagnant]
        excess = 0 if self.room is None else len(kept) - self.room
        for index in kept[: max(excess, 0)]:
            key, species, _ = marked[index]
            marked[index] = (key, species, True)
        return marked


class BoundedReproduction(neat.DefaultReproduction):  # type: ignore[misc]
    """neat-python's reproduction, which never keeps more species than the population can give
    their minimum size (see :class:`BoundedStagnation`, which removes the others)."""

    def reproduce(self, config: Any, species: Any, pop_size: int, generation: int) -> dict[int, Any]:
        """The next generation, from at most ``pop_size // smallest`` species."""
        settings = self.reproduction_config
        smallest = max(settings.min_species_size, settings.elitism)  # what neat-python gives each
        self.stagnation.room = max(1, pop_size // smallest)
        population: dict[int, Any] = super().reproduce(config, species, pop_size, generation)
        return population


class ExtinctionCounter(neat.reporting.BaseReporter):  # type: ignore[misc]
    """Counts neat-python's complete extinctions: every species removed as stagnant (possible
    with ``species_elitism=0``), after which it draws a new population (``reset_on_extinction``)
    and says nothing."""

    def __init__(self) -> None:
        self.count = 0

    def complete_extinction(self) -> None:
        """One more extinction."""
        self.count += 1


def make_config(params: NeatParams, num_inputs: int) -> neat.Config:
    """neat-python's ``Config`` for ``params``, read from a file in a temporary folder."""
    text = config_text(params, num_inputs)
    for base, ours in (
        (neat.DefaultStagnation, BoundedStagnation),
        (neat.DefaultReproduction, BoundedReproduction),
    ):
        # neat-python reads each class's settings from the section of its class name; the model
        # file keeps the default names, which neat-python's own classes read
        text = text.replace(f"[{base.__name__}]", f"[{ours.__name__}]")
    with tempfile.TemporaryDirectory(prefix="boardlab-neat-") as folder:
        path = Path(folder) / "neat.ini"
        atomic_write_text(path, text)
        return neat.Config(
            neat.DefaultGenome,
            BoundedReproduction,
            neat.DefaultSpeciesSet,
            BoundedStagnation,
            str(path),
        )


# --- genomes as JSON ---------------------------------------------------------------------------


def genome_to_json(genome: Any) -> dict[str, Any]:
    """A neat-python genome as JSON, genes in their insertion order (it steers neat-python's draws)."""
    nodes = []
    for key, gene in genome.nodes.items():
        attributes = {a.name: getattr(gene, a.name) for a in gene._gene_attributes}
        nodes.append({"id": key, **attributes})
    connections = []
    for (a, b), gene in genome.connections.items():
        connections.append(
            {
                "from": a,
                "to": b,
                "weight": gene.weight,
                "enabled": bool(gene.enabled),
                "innovation": gene.innovation,
            }
        )
    return {"key": genome.key, "fitness": genome.fitness, "nodes": nodes, "connections": connections}


def genome_from_json(data: Mapping[str, Any], config: neat.Config) -> Any:
    """The neat-python genome written by :func:`genome_to_json`; ModelFileError when malformed."""
    genome_config = config.genome_config
    check_genome(data, genome_config.num_inputs, genome_config.num_outputs)
    genome = config.genome_type(int(data["key"]))
    genome.fitness = data.get("fitness")
    for node in data["nodes"]:
        gene = genome_config.node_gene_type(int(node["id"]))
        for attribute in gene._gene_attributes:
            if attribute.name not in node:
                raise ModelFileError(f"node {node['id']} lacks {attribute.name}")
            setattr(gene, attribute.name, node[attribute.name])
        genome.nodes[gene.key] = gene
    for link in data["connections"]:
        key = (int(link["from"]), int(link["to"]))
        innovation = link.get("innovation")
        if isinstance(innovation, bool) or not isinstance(innovation, int):
            raise ModelFileError(f"connection {key} lacks its innovation number")
        gene = genome_config.connection_gene_type(key, innovation=innovation)
        gene.weight = float(link["weight"])
        gene.enabled = bool(link["enabled"])
        genome.connections[key] = gene
    return genome


# --- the population as JSON --------------------------------------------------------------------


def _peek(counter: itertools.count) -> tuple[int, itertools.count]:
    value = next(counter)
    return value, itertools.count(value)


def population_state(population: neat.Population) -> dict[str, Any]:
    """Everything of a neat-python ``Population`` that the next generation depends on, as JSON."""
    species_set = population.species
    next_species, species_set.indexer = _peek(species_set.indexer)
    reproduction = population.reproduction
    next_genome, reproduction.genome_indexer = _peek(reproduction.genome_indexer)
    genome_config = population.config.genome_config
    next_node = None
    if genome_config.node_indexer is not None:
        next_node, genome_config.node_indexer = _peek(genome_config.node_indexer)
    species = []
    for sid, s in species_set.species.items():
        species.append(
            {
                "key": sid,
                "created": s.created,
                "last_improved": s.last_improved,
                "representative": s.representative.key,
                "members": list(s.members),
                "fitness": s.fitness,
                "adjusted_fitness": s.adjusted_fitness,
                "fitness_history": list(s.fitness_history),
            }
        )
    version, internal, gauss_next = random.getstate()
    return {
        "generation": population.generation,
        "genomes": [genome_to_json(g) for g in population.population.values()],
        "species": species,
        "genome_to_species": [[g, s] for g, s in species_set.genome_to_species.items()],
        "next_species": next_species,
        "next_genome": next_genome,
        "next_node": next_node,
        "innovation": reproduction.innovation_tracker.global_counter,
        "random": [version, list(internal), gauss_next],
    }


POPULATION_FIELDS = {
    "generation": "int",
    "next_genome": "int",
    "next_species": "int",
    "innovation": "int",
    "genomes": "list",
    "species": "list",
    "genome_to_species": "list",
    "random": "list",
}


def _check_population(state: Any, inputs: int, where: str) -> None:
    """ModelFileError unless a saved population has its counters (whole numbers of at least 0)
    and sound genomes (:func:`boardlab.agents.neat_player.check_genome`)."""
    try:
        check_fields(state, f"{where}: the population", POPULATION_FIELDS)
        if state.get("next_node") is not None:  # None: neat-python numbers new nodes itself
            check_fields(state, f"{where}: the population", {"next_node": "int"})
    except InputFileError as error:
        raise ModelFileError(str(error)) from None
    counters = [state[name] for name, kind in POPULATION_FIELDS.items() if kind == "int"]
    if state.get("next_node") is not None:
        counters.append(state["next_node"])
    if min(counters) < 0:
        raise ModelFileError(f"{where}: the population's counters must be at least 0")
    for genome in state["genomes"]:
        check_genome(genome, inputs, 1)


def _check_champions(data: Mapping[str, Any], inputs: int, where: str) -> None:
    """ModelFileError unless the opponent pool and the champion (when there is one) are sound
    genomes: the next generation plays the pool, and the model file is the champion."""
    champion = data.get("champion")
    for index, genome in enumerate([*data["pool"], *([] if champion is None else [champion])]):
        try:
            check_genome(genome, inputs, 1)
        except ModelFileError as error:
            which = "the champion" if index == len(data["pool"]) else f"champion {index + 1} of the pool"
            raise ModelFileError(f"{where}: {which}: {error}") from None


def restore_population(config: neat.Config, state: Mapping[str, Any]) -> neat.Population:
    """The neat-python ``Population`` saved by :func:`population_state` (Python's ``random``
    set back to where it was)."""
    genomes = {}
    for data in state["genomes"]:
        genome = genome_from_json(data, config)
        genomes[genome.key] = genome
    species_set = config.species_set_type(config.species_set_config, neat.reporting.ReporterSet())
    for data in state["species"]:
        s = neat.species.Species(data["key"], data["created"])
        s.last_improved = data["last_improved"]
        s.update(genomes[data["representative"]], {g: genomes[g] for g in data["members"]})
        s.fitness = data["fitness"]
        s.adjusted_fitness = data["adjusted_fitness"]
        s.fitness_history = list(data["fitness_history"])
        species_set.species[s.key] = s
    species_set.genome_to_species = {g: s for g, s in state["genome_to_species"]}
    species_set.indexer = itertools.count(state["next_species"])
    population = neat.Population(config, (genomes, species_set, state["generation"]))
    population.reproduction.genome_indexer = itertools.count(state["next_genome"])
    population.reproduction.innovation_tracker.global_counter = state["innovation"]
    population.reproduction.ancestors = {}
    node = state["next_node"]
    config.genome_config.node_indexer = None if node is None else itertools.count(node)
    config.genome_config.innovation_tracker = population.reproduction.innovation_tracker
    version, internal, gauss_next = state["random"]
    random.setstate((version, tuple(internal), gauss_next))
    return population


# --- playing games -----------------------------------------------------------------------------


Chooser = Callable[[int, int, Random], int]


class Players:
    """The fast players of the fitness games on one game's kernel: random, greedy and networks."""

    def __init__(self, game: Any) -> None:
        self.game = game
        self.kernel = game.kernel
        count = self.kernel.num_actions
        self._actions = np.empty(count, dtype=np.int64)
        self._reply = np.empty(count, dtype=np.int64)
        self._kinds = np.empty(count, dtype=np.int64)
        self._greedy = compiled_for(self.kernel, build_greedy_kinds)

    def random(self, a: int, b: int, rng: Random) -> int:
        """A uniformly random legal action."""
        n = self.kernel.gen_moves(self.kernel.ctx, np.int64(a), np.int64(b), self._actions)
        return int(self._actions[rng.randrange(n)])

    def greedy(self, a: int, b: int, rng: Random) -> int:
        """The ``greedy`` agent's choice: a win, else a safe move, else any, at random."""
        n = self._greedy(self.kernel.ctx, np.int64(a), np.int64(b), self._actions, self._reply, self._kinds)
        kinds = self._kinds[:n]
        pool = np.flatnonzero(kinds == kinds.max())
        return int(self._actions[pool[rng.randrange(len(pool))]])

    def network(self, genome: Mapping[str, Any], guard: bool) -> Chooser:
        """The player of a genome (JSON), with or without the two-ply guard."""
        inputs = int(np.prod(self.kernel.obs_shape))
        policy = NeatPolicy(Network.from_genome(genome, inputs, 1), self.game, guard)
        return policy.choose_action

    def play(self, first: Chooser, second: Chooser, opening: int, rng: Random) -> tuple[int | None, int]:
        """One game: the winner's seat (None for a draw) and the plies played; the first
        ``opening`` plies are random."""
        kernel, ctx = self.kernel, self.kernel.ctx
        a, b = (np.int64(w) for w in self.game.initial_words())
        cap = self.game.ply_cap
        players = (first, second)
        ply = 0
        while True:
            status = kernel.status(ctx, a, b)
            if status != ONGOING:
                return (None if status == DRAW else (ply % 2 if status == WIN else 1 - ply % 2)), ply
            if cap is not None and ply >= cap:
                return None, ply
            chooser = self.random if ply < opening else players[ply % 2]
            a, b = kernel.play(ctx, a, b, chooser(int(a), int(b), rng))
            ply += 1


@dataclass(frozen=True)
class FitnessTask:
    """The fitness games of one genome: the game, the genome, the pool of earlier champions
    and the seeds of the generation (the same for every genome)."""

    game: str
    genome: dict[str, Any]
    champions: tuple[dict[str, Any], ...]
    games: int
    champion_games: int
    opening: int
    speed: float
    guard: bool
    seed: int


_PLAYERS: dict[str, Players] = {}


def _players(spec: str) -> Players:
    if spec not in _PLAYERS:
        _PLAYERS[spec] = Players(parse_game(spec))
    return _PLAYERS[spec]


def fitness_games(task: FitnessTask) -> list[float]:
    """The learner's score (1, ½, 0) in each fitness game of ``task``, in a fixed order."""
    players = _players(task.game)
    learner = players.network(task.genome, task.guard)
    random_player: Chooser = players.random
    greedy_player: Chooser = players.greedy
    opponents = [random_player] * task.games + [greedy_player] * task.games
    for champion in task.champions:
        opponents += [players.network(champion, task.guard)] * task.champion_games
    scores = []
    for index, opponent in enumerate(opponents):
        rng = random.Random(task.seed * 1_000_003 + index)
        seat = index % 2
        first, second = (learner, opponent) if seat == 0 else (opponent, learner)
        winner, plies = players.play(first, second, task.opening, rng)
        scores.append(game_score(winner, seat, plies, task.speed))
    return scores


def game_score(winner: int | None, seat: int, plies: int, speed: float) -> float:
    """The fitness of one game for the player in ``seat``: ½ for a draw, ``1 - speed·t`` for a
    win and ``speed·t`` for a loss, ``t = min(plies, 100) / 100``."""
    if winner is None:
        return 0.5
    late = speed * min(plies, 100) / 100
    return 1.0 - late if winner == seat else late


# --- evaluation against fixed opponents ---------------------------------------------------------


def champion_policy(game: Any, recipe: tuple[Mapping[str, Any], bool]) -> NeatPolicy:
    """The player of a genome (JSON) on ``game``, with or without the guard: what a
    :class:`boardlab.train.run.Match` builds in a worker process."""
    genome, guard = recipe
    network = Network.from_genome(genome, int(np.prod(game.kernel.obs_shape)), 1)
    return NeatPolicy(network, game, guard)


# --- the run -----------------------------------------------------------------------------------


def check_game(game: Any) -> Any:
    """``game`` if NEAT can be trained on it here (Quixo); NeatTrainingError otherwise."""
    if game.name != "quixo":
        raise NeatTrainingError(f"neat trains Quixo players; {game.spec} is not Quixo")
    return game


@dataclass
class Evolution(RunDefaults):
    """A NEAT run on one game: neat-python's population plus the pool, history and curve."""

    game: Any
    params: NeatParams
    seed: int
    config: neat.Config
    population: neat.Population
    pool: list[dict[str, Any]] = field(default_factory=list)
    history: list[dict[str, Any]] = field(default_factory=list)
    curve: list[dict[str, Any]] = field(default_factory=list)
    champion: dict[str, Any] | None = None
    train_seconds: float = 0.0
    fitness_games: int = 0
    _workers: Workers | None = field(default=None, repr=False, compare=False)

    curve_key: ClassVar[str] = "episode"
    curve_unit: ClassVar[str] = "generations"
    checkpoint_seconds: ClassVar[float] = 0.0

    @property
    def num_inputs(self) -> int:
        """The network's inputs: the cells of the observation planes."""
        return int(np.prod(self.game.kernel.obs_shape))

    @property
    def generation(self) -> int:
        """Generations evaluated so far."""
        return len(self.history)

    @classmethod
    def start(cls, game: Any, params: NeatParams, seed: int) -> Evolution:
        """A new run: the first population drawn from ``seed``."""
        check_game(game)
        config = make_config(params, int(np.prod(game.kernel.obs_shape)))
        random.seed(seed)
        population = neat.Population(config)
        return cls(game, params, seed, config, population)

    @classmethod
    def resume(cls, path: Path | str, game: Any = None) -> Evolution:
        """The run saved in the checkpoint ``path``; ModelFileError when it cannot be read,
        ModelMismatchError when ``game`` (if given) is not the game it trains on."""
        path = Path(path)
        try:
            data = read_json(path, "checkpoint", MAX_CHECKPOINT_BYTES)
        except InputFileError as error:
            raise ModelFileError(str(error)) from None
        if not isinstance(data, dict) or data.get("format") != CHECKPOINT_FORMAT:
            raise ModelFileError(f"{path} is not a NEAT checkpoint")
        if data.get("version") != CHECKPOINT_VERSION:
            raise ModelFileError(f"{path} has version {data.get('version')}; expected {CHECKPOINT_VERSION}")
        check_state(
            data,
            path,
            {
                "seed": "int",
                "game": "str",
                "hyper": "dict",
                "population": "dict",
                "pool": "list",
                "history": "list",
                "curve": "list",
            },
            {"train_seconds": "number", "fitness_games": "int"},
        )
        try:
            trained = check_game(parse_game(data["game"]))
            params = params_for(data["hyper"])
            inputs = int(np.prod(trained.kernel.obs_shape))
            config = make_config(params, inputs)
            _check_population(data["population"], inputs, f"checkpoint {path}")
            population = restore_population(config, data["population"])
        except (KeyError, TypeError, ValueError, GameOptionError, AssertionError) as error:
            # neat-python checks the types of what it is given with assertions
            raise ModelFileError(f"checkpoint {path} is damaged: {short_reason(error)}") from None
        _check_champions(data, inputs, f"checkpoint {path}")
        if game is not None and game.spec != trained.spec:
            raise ModelMismatchError(f"{path} trains on {trained.spec}, not {game.spec}")
        check_history(data["history"], path, HISTORY_FIELDS)
        return cls(
            trained,
            params,
            int(data["seed"]),
            config,
            population,
            list(data["pool"]),
            list(data["history"]),
            list(data["curve"]),
            data.get("champion"),
            float(data.get("train_seconds", 0.0)),
            int(data.get("fitness_games", 0)),
        )

    @property
    def workers(self) -> Workers:
        """The processes evaluating genomes (``params.workers``), started when first needed."""
        if self._workers is None or self._workers.count != self.params.workers:
            self.close()
            self._workers = Workers(self.params.workers)
        return self._workers

    def step(self, limit: int = 1) -> None:
        """Evaluate one generation and breed the next (neat-python's ``Population.run``),
        whatever ``limit``."""
        started = time.perf_counter()
        extinctions = ExtinctionCounter()
        self.population.add_reporter(extinctions)
        try:
            self.population.run(lambda genomes, config: self._evaluate(genomes, self.workers), 1)
        finally:
            self.population.remove_reporter(extinctions)
        if extinctions.count:  # the generation just evaluated left no species: a new population
            self.history[-1]["extinct"] = True
        self.train_seconds += time.perf_counter() - started

    def _evaluate(self, genomes: list[tuple[int, Any]], workers: Workers) -> None:
        generation = self.generation
        seed = (self.seed * 1_000_033 + generation) % 2**62
        p = self.params
        champions = tuple(self.pool[-p.pool :]) if p.pool else ()
        tasks = [
            FitnessTask(
                self.game.spec,
                genome_to_json(g),
                champions,
                p.games,
                p.champion_games,
                p.opening,
                p.speed,
                p.guard,
                seed,
            )
            for _, g in genomes
        ]
        results = workers.map(fitness_games, tasks)
        for (_, genome), scores in zip(genomes, results, strict=True):
            genome.fitness = float(np.mean(scores))
        self.fitness_games += sum(len(s) for s in results)
        best = max((g for _, g in genomes), key=lambda g: (g.fitness, -g.key))
        self.champion = genome_to_json(best)
        fitness = [g.fitness for _, g in genomes]
        species = {str(sid): len(s.members) for sid, s in self.population.species.species.items()}
        self.history.append(
            {
                "generation": generation,
                "best": max(fitness),
                "mean": float(np.mean(fitness)),
                "species": species,
                "nodes": len(best.nodes),
                "connections": sum(1 for c in best.connections.values() if c.enabled),
                "pool": len(champions),
            }
        )
        if (generation + 1) % p.champion_every == 0:
            self.pool.append(self.champion)

    # the run protocol (boardlab.train.run) ---------------------------------------------------

    @property
    def progress(self) -> int:
        """Generations evaluated so far."""
        return self.generation

    @property
    def title(self) -> str:
        """``NEAT on quixo``."""
        return f"NEAT on {self.game.spec}"

    @property
    def curve_player(self) -> str:
        """The curve's player: the generation's champion network."""
        return "the champion"

    def evaluate(self, opponents: Sequence[str], games: int) -> list[dict[str, Any]]:
        """The champion against each fixed opponent; nothing before the first generation, which
        has no champion yet (a point of no games is no point of the curve)."""
        if self.champion is None:
            return []
        results = self.final_games(opponents, games, salt=self.generation)
        return [
            {"episode": self.generation, "opponent": o, **t} for o, t in tallies(results, opponents).items()
        ]

    def final_games(self, opponents: Sequence[str], games: int, salt: int = -1) -> list[GameResult]:
        """``games`` games of the champion against each opponent, split over the workers."""
        if self.champion is None or games <= 0:
            return []
        parts = max(1, min(self.workers.count, games))
        matches = []
        for index, opponent in enumerate(opponents):
            for part in range(parts):
                count = games // parts + (1 if part < games % parts else 0)
                seed = (self.seed * 7919 + 104_729 + index * 131 + part * 17 + salt * 1_000_003) % 2**62
                recipe = (self.champion, self.params.guard)
                matches.append(
                    Match(champion_policy, recipe, self.game.spec, opponent, count, seed, EVAL_OPENING)
                )
        return play_matches(self.workers, matches)

    def summary(self) -> dict[str, Any]:
        """The run in ``summary.json``: generations, fitness games and the champion's size."""
        champion = self.champion
        return {
            "method": "neat",
            "game": self.game.spec,
            "hyper": asdict(self.params),
            "seed": self.seed,
            "generations": self.generation,
            "fitness_games": self.fitness_games,
            "train_seconds": round(self.train_seconds, 3),
            "champion": {"nodes": len(champion["nodes"]), "connections": len(champion["connections"])}
            if champion
            else None,
            "extinctions": len(self.extinctions),
        }

    @property
    def extinctions(self) -> list[int]:
        """The generations (1 is the first) after which every species was removed as stagnant
        and neat-python drew a new population."""
        return [h["generation"] + 1 for h in self.history if h.get("extinct")]

    def report_lines(self) -> list[str]:
        """The extinctions, if any: the run went on from a new population, which the fitness
        plot alone does not tell."""
        if not self.extinctions:
            return []
        after = ", ".join(map(str, self.extinctions))
        generations = "generation" if len(self.extinctions) == 1 else "generations"
        return [
            f"Every species was removed as stagnant after {generations} {after}: neat-python drew a new "
            f"population each time (species_elitism={self.params.species_elitism}; at least 1 keeps "
            "the best species)"
        ]

    def plots(self, out: Path) -> list[Path]:
        """Fitness and species over the generations."""
        return write_neat_plots(out, self.history, self.title)

    def status(self) -> str:
        """Fitness, species, the champion's size and its last curve point."""
        record = self.history[-1] if self.history else None
        if record is None:
            return ""
        text = (
            f"best {record['best']:.3f} mean {record['mean']:.3f} species {len(record['species'])} "
            f"champion {record['nodes']} nodes {record['connections']} links"
        )
        last = [p for p in self.curve if p["episode"] == self.generation]
        if last:
            text += " | " + ", ".join(
                f"{p['opponent']} {100 * p['wins'] / max(p['games'], 1):.0f}%" for p in last
            )
        return text

    def close(self) -> None:
        """Stop the worker processes."""
        if self._workers is not None:
            self._workers.close()

    def model(self, genome: Mapping[str, Any] | None = None, generation: int | None = None) -> dict[str, Any]:
        """A model file the ``neat`` agent plays: the latest champion, or ``genome`` of ``generation``."""
        if genome is None:
            if self.champion is None:
                raise NeatTrainingError("no generation has been evaluated yet")
            genome, generation = self.champion, self.generation
        extra = {
            "hyper": asdict(self.params),
            "seed": self.seed,
            "generation": generation,
            "neat_python": getattr(neat, "__version__", ""),
            "neat_config": config_text(self.params, self.num_inputs),
        }
        return model_json(self.game, genome, extra)

    def candidates(self) -> list[dict[str, Any]]:
        """Model files of every champion in the opponent pool (one every ``champion_every``
        generations) and of the latest champion, oldest first: the choice for a model to ship."""
        every = self.params.champion_every
        models = [self.model(g, (i + 1) * every) for i, g in enumerate(self.pool)]
        if self.champion is not None and (not self.pool or self.pool[-1] != self.champion):
            models.append(self.model())
        return models

    def checkpoint(self) -> dict[str, Any]:
        """The whole run as JSON (see the module docstring)."""
        return {
            "format": CHECKPOINT_FORMAT,
            "version": CHECKPOINT_VERSION,
            "game": self.game.spec,
            "hyper": asdict(self.params),
            "seed": self.seed,
            "train_seconds": self.train_seconds,
            "fitness_games": self.fitness_games,
            "champion": self.champion,
            "pool": self.pool,
            "history": self.history,
            "curve": self.curve,
            "population": population_state(self.population),
        }

    def save(self, path: Path) -> Path:
        """Write the checkpoint to ``path`` and, once a generation has a champion, the model
        file beside it (``model.json``), each atomically."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        if self.champion is not None:
            atomic_write_text(path.parent / MODEL_FILE, json.dumps(self.model(), indent=1))
        return atomic_write_text(path, json.dumps(self.checkpoint()))


# --- the method ------------------------------------------------------------------------------


def saved_game(path: Path) -> str:
    """The game of the run saved in the checkpoint ``path``."""
    return str(read_json(path, "checkpoint", MAX_CHECKPOINT_BYTES)["game"])


KINDS = {
    "neat": Method(
        "neat",
        NeatParams,
        start=Evolution.start,
        resume=Evolution.resume,
        unit="epochs",
        default_total=100,
        default_game="quixo",
        checkpoint_file=CHECKPOINT_FILE,
        model_file=MODEL_FILE,
        games=lambda text: check_game(parse_game(text)),
        default_against=lambda game: DEFAULT_AGAINST,
        free=NOT_RESULTS,
        max_seed=2**62 - 1,
        error=NeatTrainingError,
        saved_game=saved_game,
    )
}
"""``boardlab train neat``."""


__all__ = [
    "CHECKPOINT_FILE",
    "DEFAULT_AGAINST",
    "KINDS",
    "MODEL_FILE",
    "BoundedReproduction",
    "BoundedStagnation",
    "Evolution",
    "ExtinctionCounter",
    "FitnessTask",
    "NeatParams",
    "NeatTrainingError",
    "Players",
    "champion_policy",
    "config_text",
    "fitness_games",
    "genome_from_json",
    "genome_to_json",
    "make_config",
    "params_for",
    "parse_hyper",
    "population_state",
    "restore_population",
]
