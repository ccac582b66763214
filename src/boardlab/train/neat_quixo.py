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
``DefaultSpeciesSet`` and ``DefaultStagnation``.

**Fitness** is the mean score of games against a pool of opponents (a draw ½; a win
``1 - speed·t`` and a loss ``speed·t``, ``t`` the game's plies over 100, at most 1: among wins
the quick ones count more, among losses the long ones, which gives the first generations,
who lose most games against ``greedy``, something to climb):
``games`` games against ``random`` and as many against ``greedy`` (wins at once, never hands
over an immediate win), and ``champion_games`` against each of the last ``pool`` champions
(the best genome every ``champion_every`` generations). Seats alternate and every game opens
with ``opening`` random plies. All genomes of a generation play the same games (the same
openings and random draws: common random numbers), so their fitness values compare fairly.
Genomes are evaluated in ``workers`` worker processes (:func:`boardlab.core.processes.worker_context`);
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
from typing import Any

import neat
import numpy as np

from boardlab.agents.neat_player import (
    ACTIVATIONS,
    NeatPolicy,
    Network,
    build_greedy_kinds,
    check_genome,
    model_json,
)
from boardlab.core.files import atomic_write_text
from boardlab.core.spec import SpecError, build_options, check_options, option, options_of, split_spec
from boardlab.games.base import DRAW, ONGOING, WIN, compiled_for
from boardlab.models.table import ModelFileError

CHECKPOINT_FILE = "checkpoint.json"
MODEL_FILE = "model.json"
SUMMARY_FILE = "summary.json"
CHECKPOINT_FORMAT = "boardlab-neat-checkpoint"
CHECKPOINT_VERSION = 1
DEFAULT_AGAINST = ("random", "greedy", "alphabeta:depth=1")
EVAL_OPENING = 2
"""Random plies opening each game against the fixed opponents."""
INITIAL_CONNECTIONS = {"full": "full_direct", "partial": "partial_direct 0.5", "none": "unconnected"}
NOT_RESULTS = ("workers",)
"""Hyper-parameters that do not change what a run computes (a resumed run may change them)."""


class NeatTrainingError(ValueError):
    """Bad training input: a hyper-parameter out of range, a game NEAT cannot learn here."""


# --- hyper-parameters --------------------------------------------------------------------------


@dataclass(frozen=True)
class NeatParams:
    """Hyper-parameters of NEAT on Quixo (see :mod:`boardlab.train.neat_quixo`)."""

    population: int = option(60, "genomes per generation", minimum=4, maximum=10_000)
    games: int = option(
        10, "fitness games against random and as many against greedy", minimum=0, maximum=10_000
    )
    champion_games: int = option(
        4, "fitness games against each earlier champion in the pool", minimum=0, maximum=10_000
    )
    pool: int = option(4, "earlier champions kept in the opponent pool", minimum=0, maximum=100)
    champion_every: int = option(
        5, "generations between champions joining the pool", minimum=1, maximum=10_000
    )
    opening: int = option(2, "random plies opening every fitness game", minimum=0, maximum=20)
    guard: bool = option(
        True,
        "the player takes wins at once and avoids handing over an immediate win before asking the network",
    )
    speed: float = option(
        0.2,
        "a win scores 1 - speed*t, a loss speed*t, t = plies/100 (at most 1): win fast, lose slowly",
        minimum=0.0,
        maximum=0.5,
    )
    initial: str = option(
        "full",
        "first connections: full (every input to the output), partial (half) or none",
        choices=tuple(INITIAL_CONNECTIONS),
    )
    hidden: int = option(0, "hidden nodes in the first genomes", minimum=0, maximum=100)
    activations: str = option("tanh", "activations a node may take, joined by '+', e.g. tanh+relu+sigmoid")
    compatibility: float = option(
        2.0, "compatibility threshold: genomes closer than this share a species", minimum=0.01, maximum=1e3
    )
    conn_add: float = option(0.3, "probability of adding a connection", minimum=0.0, maximum=1.0)
    conn_delete: float = option(0.1, "probability of deleting a connection", minimum=0.0, maximum=1.0)
    node_add: float = option(0.15, "probability of adding a node", minimum=0.0, maximum=1.0)
    node_delete: float = option(0.05, "probability of deleting a node", minimum=0.0, maximum=1.0)
    weight_rate: float = option(0.8, "probability that a weight is perturbed", minimum=0.0, maximum=1.0)
    weight_power: float = option(0.5, "standard deviation of a weight perturbation", minimum=0.0, maximum=100)
    elitism: int = option(2, "best genomes of each species kept unchanged", minimum=0, maximum=1000)
    survival: float = option(0.25, "share of each species allowed to reproduce", minimum=0.01, maximum=1.0)
    stagnation: int = option(
        15, "generations without improvement before a species is removed", minimum=1, maximum=10_000
    )
    species_elitism: int = option(2, "species protected from stagnation", minimum=0, maximum=1000)
    workers: int = option(
        2,
        "worker processes evaluating genomes (1: this process); results do not depend on it",
        minimum=1,
        maximum=256,
    )


def params_for(values: Mapping[str, Any] | None = None) -> NeatParams:
    """:class:`NeatParams` with ``values`` (others default), checked; NeatTrainingError otherwise."""
    known = {o.name for o in options_of(NeatParams)}
    values = dict(values or {})
    for key in values:
        if key not in known:
            raise NeatTrainingError(
                f"neat has no hyper-parameter {key!r}; accepted: {', '.join(sorted(known))}"
            )
    try:
        params = NeatParams(**values)
        check_options(params, "neat")
    except SpecError as error:
        raise NeatTrainingError(str(error)) from None
    for name in activation_names(params):
        if name not in ACTIVATIONS:
            raise NeatTrainingError(
                f"neat: activation {name[:20]!r} is not accepted; choose among {', '.join(ACTIVATIONS)}"
            )
    if params.games == 0 and (params.champion_games == 0 or params.pool == 0):
        raise NeatTrainingError("neat: games=0 leaves no fitness games; give games or champion games")
    return params


def parse_hyper(text: str) -> NeatParams:
    """:class:`NeatParams` from ``key=value,...`` (e.g. ``population=80,node_add=0.2``)."""
    try:
        _, texts = split_spec("neat:" + (text or ""))
        values = asdict(build_options(NeatParams, "neat", texts))
    except SpecError as error:
        raise NeatTrainingError(str(error)) from None
    return params_for(values)


def activation_names(params: NeatParams) -> list[str]:
    """The activations of ``params.activations`` (``tanh+relu`` → ``["tanh", "relu"]``)."""
    return [name.strip() for name in params.activations.split("+") if name.strip()] or ["tanh"]


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
            "min_species_size": 2,
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


def make_config(params: NeatParams, num_inputs: int) -> neat.Config:
    """neat-python's ``Config`` for ``params``, read from a file in a temporary folder."""
    with tempfile.TemporaryDirectory(prefix="boardlab-neat-") as folder:
        path = Path(folder) / "neat.ini"
        atomic_write_text(path, config_text(params, num_inputs))
        return neat.Config(
            neat.DefaultGenome,
            neat.DefaultReproduction,
            neat.DefaultSpeciesSet,
            neat.DefaultStagnation,
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


Chooser = Callable[[int, int, random.Random], int]


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

    def random(self, a: int, b: int, rng: random.Random) -> int:
        """A uniformly random legal action."""
        n = self.kernel.gen_moves(self.kernel.ctx, np.int64(a), np.int64(b), self._actions)
        return int(self._actions[rng.randrange(n)])

    def greedy(self, a: int, b: int, rng: random.Random) -> int:
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

    def play(
        self, first: Chooser, second: Chooser, opening: int, rng: random.Random
    ) -> tuple[int | None, int]:
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
    from boardlab.games import parse_game

    if spec not in _PLAYERS:
        _PLAYERS[spec] = Players(parse_game(spec))
    return _PLAYERS[spec]


def fitness_games(task: FitnessTask) -> list[float]:
    """The learner's score (1, ½, 0) in each fitness game of ``task``, in a fixed order."""
    players = _players(task.game)
    learner = players.network(task.genome, task.guard)
    opponents: list[Chooser] = [players.random] * task.games + [players.greedy] * task.games
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


@dataclass(frozen=True)
class EvalTask:
    """Games of a genome against a fixed agent (a spec), for the learning curve: seats
    alternate and each game opens with ``opening`` random plies, so that two deterministic
    players do not replay one game."""

    game: str
    genome: dict[str, Any]
    opponent: str
    games: int
    opening: int
    guard: bool
    seed: int


def eval_games(task: EvalTask) -> list[Any]:
    """``GameResult`` of :mod:`boardlab.train.tabular` for each game of ``task``."""
    from boardlab.agents.base import make_agent
    from boardlab.games import parse_game
    from boardlab.train.tabular import GameResult

    game = parse_game(task.game)
    network = Network.from_genome(task.genome, int(np.prod(game.kernel.obs_shape)), 1)
    policy = NeatPolicy(network, game, task.guard)
    rng = random.Random(task.seed)
    agent = make_agent(task.opponent, seed=rng.getrandbits(62), game=game)
    results = []
    for index in range(task.games):
        learner = index % 2
        agent.new_game()
        state = game.initial()
        while not state.is_over:
            if state.ply < task.opening:
                state = state.play_index(rng.choice(state.legal_indices()))
            elif state.to_move == learner:
                state = state.play_index(policy.choose_action(state.a, state.b, rng))
            else:
                state = state.play(agent.choose(state))
        results.append(GameResult(task.opponent, learner, state.winner, state.ply))
    return results


def _init_worker() -> None:
    import signal

    from boardlab.core.processes import die_with_parent

    die_with_parent()
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the main process decides when to stop


class Workers:
    """Runs tasks in ``count`` worker processes (in this process when ``count`` is 1)."""

    def __init__(self, count: int) -> None:
        self.count = count
        self._pool: Any = None

    def map(self, function: Callable[[Any], Any], tasks: Sequence[Any]) -> list[Any]:
        """``[function(t) for t in tasks]``, in parallel."""
        if self.count <= 1 or len(tasks) <= 1:
            return [function(t) for t in tasks]
        if self._pool is None:
            from boardlab.core.processes import worker_context

            self._pool = worker_context().Pool(self.count, initializer=_init_worker)
        return list(self._pool.map(function, tasks, chunksize=1))

    def close(self) -> None:
        """Stop the worker processes."""
        if self._pool is not None:
            self._pool.terminate()
            self._pool.join()
            self._pool = None


# --- the run -----------------------------------------------------------------------------------


def check_game(game: Any) -> Any:
    """``game`` if NEAT can be trained on it here (Quixo); NeatTrainingError otherwise."""
    if game.name != "quixo":
        raise NeatTrainingError(f"neat trains Quixo players; {game.spec} is not Quixo")
    return game


@dataclass
class Evolution:
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
    def resume(cls, path: Path | str, workers: int | None = None) -> Evolution:
        """The run saved in the checkpoint ``path``; ModelFileError when it cannot be read."""
        from boardlab.games import GameOptionError, parse_game

        path = Path(path)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise ModelFileError(f"checkpoint {path} does not exist") from None
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
            raise ModelFileError(f"checkpoint {path} is damaged: {error}") from None
        if not isinstance(data, dict) or data.get("format") != CHECKPOINT_FORMAT:
            raise ModelFileError(f"{path} is not a NEAT checkpoint")
        if data.get("version") != CHECKPOINT_VERSION:
            raise ModelFileError(f"{path} has version {data.get('version')}; expected {CHECKPOINT_VERSION}")
        try:
            game = check_game(parse_game(data["game"]))
            hyper = dict(data["hyper"])
            if workers is not None:
                hyper["workers"] = workers
            params = params_for(hyper)
            config = make_config(params, int(np.prod(game.kernel.obs_shape)))
            population = restore_population(config, data["population"])
        except (KeyError, TypeError, ValueError, GameOptionError) as error:
            raise ModelFileError(f"checkpoint {path} is damaged: {error}") from None
        return cls(
            game,
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

    def step(self, workers: Workers) -> None:
        """Evaluate one generation and breed the next (neat-python's ``Population.run``)."""
        started = time.perf_counter()
        self.population.run(lambda genomes, config: self._evaluate(genomes, workers), 1)
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

    def evaluate_point(self, workers: Workers, opponents: Sequence[str], games: int) -> list[dict[str, Any]]:
        """Play the champion against each fixed opponent; record and return the curve points."""
        from boardlab.train.tabular import tally

        results = self.final_games(workers, opponents, games, salt=self.generation)
        points = []
        for opponent in opponents:
            counts = tally([r for r in results if r.opponent == opponent])
            points.append({"episode": self.generation, "opponent": opponent, **counts})
        self.curve.extend(points)
        return points

    def final_games(
        self, workers: Workers, opponents: Sequence[str], games: int, salt: int = -1
    ) -> list[Any]:
        """``games`` games of the champion against each opponent, split over the workers."""
        if self.champion is None or games <= 0:
            return []
        parts = max(1, min(workers.count, games))
        tasks = []
        for index, opponent in enumerate(opponents):
            for part in range(parts):
                count = games // parts + (1 if part < games % parts else 0)
                seed = (self.seed * 7919 + 104_729 + index * 131 + part * 17 + salt * 1_000_003) % 2**62
                tasks.append(
                    EvalTask(
                        self.game.spec, self.champion, opponent, count, EVAL_OPENING, self.params.guard, seed
                    )
                )
        return [r for chunk in workers.map(eval_games, tasks) for r in chunk]

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

    def save(self, out: Path) -> None:
        """Write ``model.json`` and ``checkpoint.json`` into ``out``, atomically."""
        atomic_write_text(out / CHECKPOINT_FILE, json.dumps(self.checkpoint()))
        atomic_write_text(out / MODEL_FILE, json.dumps(self.model(), indent=1))


def run_evolution(
    run: Evolution,
    generations: int,
    out: Path,
    *,
    workers: Workers,
    eval_every: int = 0,
    eval_games: int = 0,
    opponents: Sequence[str] = DEFAULT_AGAINST,
    on_generation: Callable[[Evolution], None] | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> bool:
    """Evolve until ``generations`` generations in all, saving after each; False if stopped early."""
    out.mkdir(parents=True, exist_ok=True)
    while run.generation < generations:
        if should_stop is not None and should_stop():
            return False
        run.step(workers)
        last = run.generation == generations
        if eval_games and eval_every and (run.generation % eval_every == 0 or last):
            run.evaluate_point(workers, opponents, eval_games)
        run.save(out)
        if on_generation is not None:
            on_generation(run)
    return True


# --- plots -------------------------------------------------------------------------------------


PLOT_FILES = {"fitness": "fitness.png", "species": "species.png", "win_rates": "win_rates.png"}
"""The NEAT plots :func:`write_neat_plots` writes beside the outcome plots of :mod:`boardlab.train.plots`."""


def plot_fitness(history: Sequence[Mapping[str, Any]], path: Path, title: str) -> Path:
    """Best and mean fitness over generations, with the champion's size."""
    from boardlab.train.plots import _figure, _save

    figure = _figure(7.5, 4.2)
    ax = figure.subplots()
    generations = [h["generation"] + 1 for h in history]
    ax.plot(generations, [h["best"] for h in history], color="#1f77b4", label="best")
    ax.plot(generations, [h["mean"] for h in history], color="#ff7f0e", label="mean")
    ax.set_xlabel("generation")
    ax.set_ylabel("fitness (mean game score: win ≈ 1, draw ½, loss ≈ 0)")
    ax.set_ylim(0, 1.02)
    ax.grid(alpha=0.3)
    size = ax.twinx()
    size.plot(generations, [h["connections"] for h in history], color="#7f7f7f", lw=0.8, ls=":")
    size.set_ylabel("champion's enabled connections (dotted)")
    ax.legend(loc="lower right")
    ax.set_title(title)
    return _save(figure, path)


def plot_species(history: Sequence[Mapping[str, Any]], path: Path, title: str) -> Path:
    """Members of each species over generations (stacked)."""
    from boardlab.train.plots import _figure, _save

    figure = _figure(7.5, 4.2)
    ax = figure.subplots()
    generations = [h["generation"] + 1 for h in history]
    keys = sorted({k for h in history for k in h["species"]}, key=int)
    sizes = np.array([[h["species"].get(k, 0) for h in history] for k in keys]) if keys else np.zeros((0, 0))
    if len(keys):
        from matplotlib import colormaps

        palette = colormaps["tab20"].colors
        colours = [palette[i % len(palette)] for i in range(len(keys))]
        ax.stackplot(generations, sizes, labels=[f"species {k}" for k in keys], colors=colours)
    ax.set_xlabel("generation")
    ax.set_ylabel("genomes")
    ax.set_title(f"{title} ({len(keys)} species in all)")
    if len(keys) <= 12:
        ax.legend(loc="upper left", fontsize=7, ncols=2)
    ax.margins(x=0)
    return _save(figure, path)


def plot_win_rates(curve: Sequence[Mapping[str, Any]], path: Path, title: str) -> Path:
    """The champion's wins, draws and losses against each fixed opponent over generations."""
    from boardlab.train.plots import COLOURS, OUTCOMES, _figure, _save

    opponents = list(dict.fromkeys(p["opponent"] for p in curve))
    figure = _figure(7.5, 2.3 * max(len(opponents), 1) + 0.6)
    axes = np.atleast_1d(figure.subplots(max(len(opponents), 1), 1, sharex=True))
    for ax, opponent in zip(axes, opponents, strict=False):
        rows = sorted((p for p in curve if p["opponent"] == opponent), key=lambda p: p["episode"])
        generations = [p["episode"] for p in rows]
        for outcome in OUTCOMES:
            share = [p[outcome] / max(p["games"], 1) for p in rows]
            ax.plot(generations, share, marker="o", markersize=3, color=COLOURS[outcome], label=outcome)
        games = rows[-1]["games"] if rows else 0
        ax.set_title(f"champion against {opponent} ({games} games per point, both colours)", fontsize=10)
        ax.set_ylim(-0.03, 1.03)
        ax.set_ylabel("share of games")
        ax.grid(alpha=0.3)
    if opponents:
        axes[0].legend(loc="center right", fontsize=8)
    axes[-1].set_xlabel("generation")
    figure.suptitle(title)
    return _save(figure, path)


def write_neat_plots(out: Path, run: Evolution, results: Sequence[Any]) -> list[Path]:
    """Every plot of a run: fitness, species, win rates over generations and the outcomes of the
    final games (:mod:`boardlab.train.plots`)."""
    from boardlab.train.plots import PLOT_FILES as COMMON
    from boardlab.train.plots import plot_end_turns, plot_outcomes, plot_outcomes_by_starter

    name = f"NEAT on {run.game.spec}"
    paths = [
        plot_fitness(run.history, out / PLOT_FILES["fitness"], f"{name}: fitness over generations"),
        plot_species(run.history, out / PLOT_FILES["species"], f"{name}: species sizes"),
        plot_win_rates(
            run.curve, out / PLOT_FILES["win_rates"], f"{name}: the champion against fixed opponents"
        ),
    ]
    if results:
        paths.append(
            plot_outcomes(results, out / COMMON["outcomes"], f"{name}: outcomes of {len(results)} games")
        )
        paths.append(
            plot_outcomes_by_starter(results, out / COMMON["by_starter"], f"{name}: outcomes by who started")
        )
        paths.append(
            plot_end_turns(results, out / COMMON["end_turns"], f"{name}: wins and draws by end turn")
        )
    return paths


# --- the command -------------------------------------------------------------------------------


@dataclass(frozen=True)
class CommandPlan:
    """A checked ``boardlab train neat`` command: a fresh run or the ``resumed`` one."""

    game: Any
    params: NeatParams
    seed: int
    resumed: Evolution | None
    out: Path
    epochs: int
    eval_every: int
    eval_games: int
    final_games: int
    opponents: list[str]


def plan_command(
    *,
    game: str,
    out: Path | None,
    epochs: str | None,
    hyper: str | None,
    resume: bool,
    force: bool,
    seed: str | None,
    eval_every: str,
    eval_games: str,
    final_games: str,
    against: str,
    tabular_options: Mapping[str, Any],
) -> CommandPlan:
    """Check the options of ``boardlab train neat`` and read the run to resume; UsageProblem
    (of :mod:`boardlab.train.cli`) naming what is wrong otherwise."""
    from boardlab.games import GameOptionError, parse_game
    from boardlab.train.cli import UsageProblem, checked_opponents, epoch_counts, run_file

    counts = epoch_counts(
        "neat",
        epochs=epochs,
        default_epochs=100,
        eval_every=eval_every,
        eval_games=eval_games,
        final_games=final_games,
        seed=seed,
        tabular_options=tabular_options,
        max_seed=2**62 - 1,
    )
    try:
        the_game = check_game(parse_game(game))
        params = parse_hyper(hyper or "")
    except (GameOptionError, NeatTrainingError) as error:
        raise UsageProblem(str(error)) from None
    seed_value = counts.seed
    opponents = checked_opponents(against, DEFAULT_AGAINST, the_game)
    path = run_file(out, CHECKPOINT_FILE, resume, force)
    resumed = None
    if resume:
        resumed = _resumed(path, hyper, params, seed_value, the_game)
        params, seed_value = resumed.params, resumed.seed
    return CommandPlan(
        the_game,
        params,
        0 if seed_value is None else seed_value,
        resumed,
        path.parent,
        counts.epochs,
        counts.eval_every,
        counts.eval_games,
        counts.final_games,
        opponents,
    )


def _resumed(path: Path, hyper: str | None, params: NeatParams, seed: int | None, game: Any) -> Evolution:
    from boardlab.train.cli import UsageProblem, check_resumed_params, check_resumed_seed

    try:
        run = Evolution.resume(path, workers=params.workers if hyper and "workers" in hyper else None)
    except ModelFileError as error:
        raise UsageProblem(str(error)) from None
    if run.game.spec != game.spec:
        raise UsageProblem(f"--game {game.spec} differs from the run being resumed ({run.game.spec})")
    if hyper:
        check_resumed_params(params, run.params, NOT_RESULTS)
    check_resumed_seed(seed, run.seed)
    return run


def _generation_text(run: Evolution) -> str:
    record = run.history[-1]
    text = (
        f"best {record['best']:.3f} mean {record['mean']:.3f} species {len(record['species'])} "
        f"champion {record['nodes']} nodes {record['connections']} links"
    )
    last = [p for p in run.curve if p["episode"] == run.generation]
    if last:
        text += " | " + ", ".join(
            f"{p['opponent']} {100 * p['wins'] / max(p['games'], 1):.0f}%" for p in last
        )
    return text


def run_command(console: Any, plan: CommandPlan) -> None:
    """Run a planned ``boardlab train neat``: progress bar, checkpoints, final games, summary, plots."""
    import typer
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
    from rich.table import Table

    from boardlab.train.cli import _interrupt_flag
    from boardlab.train.tabular import tally

    title = f"NEAT on {plan.game.spec}"
    table = Table(title=title)
    table.add_column("hyper-parameter")
    table.add_column("value", justify="right")
    for name, value in asdict(plan.params).items():
        table.add_row(name, str(value))
    table.add_row("seed", str(plan.seed))
    console.print(table)
    plan.out.mkdir(parents=True, exist_ok=True)
    progress = Progress(
        TextColumn("[bold]generations"),
        BarColumn(bar_width=24),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("{task.fields[last]}"),
        console=console,
    )
    workers = Workers(plan.params.workers)
    try:
        with _interrupt_flag() as stop, progress as bar:
            run = plan.resumed or Evolution.start(plan.game, plan.params, plan.seed)
            task = bar.add_task("neat", total=plan.epochs, completed=run.generation, last="")
            finished = run_evolution(
                run,
                plan.epochs,
                plan.out,
                workers=workers,
                eval_every=plan.eval_every,
                eval_games=plan.eval_games,
                opponents=plan.opponents,
                on_generation=lambda r: bar.update(task, completed=r.generation, last=_generation_text(r)),
                should_stop=lambda: stop.requested,
            )
        if not finished:
            console.print(
                f"{stop.how} after {run.generation} generations; saved {plan.out / CHECKPOINT_FILE}. "
                "Run the same command with --resume to continue."
            )
            raise typer.Exit(stop.exit_code)
        with console.status(f"playing {plan.final_games} games against each opponent..."):
            results = run.final_games(workers, plan.opponents, plan.final_games)
    finally:
        workers.close()
    model = plan.out / MODEL_FILE
    summary = {
        "method": "neat",
        "game": run.game.spec,
        "hyper": asdict(run.params),
        "seed": run.seed,
        "generations": run.generation,
        "fitness_games": run.fitness_games,
        "train_seconds": round(run.train_seconds, 3),
        "model_bytes": model.stat().st_size,
        "champion": {"nodes": len(run.champion["nodes"]), "connections": len(run.champion["connections"])}
        if run.champion
        else None,
        "final": {o: tally([r for r in results if r.opponent == o]) for o in plan.opponents},
    }
    atomic_write_text(plan.out / SUMMARY_FILE, json.dumps(summary, indent=2))
    plots = write_neat_plots(plan.out, run, results)
    outcome = Table(title=f"{title}: {run.generation} generations in {run.train_seconds:.1f} s of training")
    for column in ("opponent", "games", "wins", "draws", "losses"):
        outcome.add_column(column, justify="right")
    for opponent, counts in summary["final"].items():
        outcome.add_row(opponent, *(str(counts[k]) for k in ("games", "wins", "draws", "losses")))
    console.print(outcome)
    console.print(
        f"Model: {model} ({summary['model_bytes']:,} bytes); plots: {', '.join(str(p) for p in plots)}"
    )


__all__ = [
    "CHECKPOINT_FILE",
    "DEFAULT_AGAINST",
    "MODEL_FILE",
    "PLOT_FILES",
    "CommandPlan",
    "Evolution",
    "FitnessTask",
    "NeatParams",
    "NeatTrainingError",
    "Players",
    "Workers",
    "config_text",
    "fitness_games",
    "genome_from_json",
    "genome_to_json",
    "make_config",
    "params_for",
    "parse_hyper",
    "plan_command",
    "population_state",
    "restore_population",
    "run_command",
    "run_evolution",
    "write_neat_plots",
]
