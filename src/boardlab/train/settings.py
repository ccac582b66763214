"""The hyper-parameters of every ``boardlab train`` method: one dataclass each, from which the
CLI derives its flags and its help.

They live apart from the methods' compiled code so that ``boardlab train KIND --help`` and the
settings checks load no kernel; each method's module re-exports its own.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from boardlab.agents.base import AgentSpecError, make_agent
from boardlab.agents.neat_player import ACTIVATIONS
from boardlab.core.spec import format_value, option
from boardlab.play.backend import BACKENDS
from boardlab.train.run import game_specs, game_specs_problem

GENOMES = ("target", "rules")
"""What the Nim GA evolves (:data:`boardlab.models.nim_genome.GENOMES`)."""
POOLS = {"random": ("random",), "optimal": ("optimal",), "both": ("random", "optimal")}
"""The Nim GA's fitness opponents by ``pool``."""
ES_OPPONENTS = ("random", "greedy", "alphabeta")
"""The rules ES's fitness opponents."""
SCALES = ("log", "linear")
"""What the rules ES's Gaussian steps move."""
INITIAL_CONNECTIONS = {"full": "full_direct", "partial": "partial_direct 0.5", "none": "unconnected"}
"""NEAT's first connections, as neat-python names them."""
MIN_SPECIES_SIZE = 2
"""Genomes every NEAT species keeps (neat-python's ``min_species_size``)."""
EVALNET_PLAYERS = (
    "hybrid:time=0.03,search=(alphabeta:eval=tuned);alphabeta:time=0.03,eval=patterns,contempt=20;"
    "alphabeta:depth=3,eval=tuned"
)
"""The players of the evaluation network's data unless ``players`` says: the hybrid with `tuned`
(version 7), not the network."""


# --- Tabular RL (:mod:`boardlab.train.tabular`) ----------------------------------------------


@dataclass(frozen=True)
class TabularParams:
    """What the tabular learners share: Monte Carlo's step and discount (Q-learning sets its
    own), exploration, the opponent, exploring starts, the episode's length and reward shaping."""

    alpha: float = option(0.1, "learning rate (constant step size)", minimum=0.0, maximum=1.0)
    gamma: float = option(0.95, "discount per ply", minimum=0.0, maximum=1.0)
    epsilon: float = option(1.0, "exploration rate at the start", minimum=0.0, maximum=1.0)
    epsilon_end: float = option(0.05, "exploration rate after the decay", minimum=0.0, maximum=1.0)
    epsilon_decay: int = option(
        5_000, "episodes over which exploration falls linearly to epsilon_end", minimum=0, maximum=10**12
    )
    opponent: str = option(
        "self", "who the learner plays: itself, or a random player", choices=("self", "random")
    )
    opening: int = option(
        6,
        "exploring starts: each episode opens with 0..N random plies not learned from",
        minimum=0,
        maximum=10**6,
    )
    max_plies: int = option(
        0, "plies after which an episode is a draw (0: the game's cap, else 1000)", minimum=0, maximum=10**6
    )
    shaping: str = option(
        "none", "potential-based reward shaping: none, or a named evaluation of the game as the potential"
    )
    shaping_weight: float = option(
        0.1, "scale of the shaping potential (the evaluation times this)", minimum=0.0, maximum=100.0
    )


@dataclass(frozen=True)
class QLearningParams(TabularParams):
    """Hyper-parameters of Q-learning."""

    alpha: float = option(0.3, "learning rate", minimum=0.0, maximum=1.0)
    gamma: float = option(
        0.9, "discount per own move (the opponent's reply included)", minimum=0.0, maximum=1.0
    )
    q_init: float = option(
        1.0,
        "value of an action not tried yet (optimistic: every action gets tried)",
        minimum=-1.0,
        maximum=1.0,
    )


@dataclass(frozen=True)
class MonteCarloParams(TabularParams):
    """Hyper-parameters of every-visit Monte Carlo value learning."""


# --- The Nim GA (:mod:`boardlab.train.nim_ga`) -----------------------------------------------


@dataclass(frozen=True)
class GAParams:
    """Hyper-parameters of the Nim GA (see the module docstring)."""

    genome: str = option(
        "rules",
        "what evolves: target (preferred nim-sum and its range) or rules (weights of move features)",
        choices=GENOMES,
    )
    selection: str = option(
        "tournament", "parent selection: tournament or roulette-wheel", choices=("tournament", "roulette")
    )
    population: int = option(40, "genomes per epoch", minimum=2, maximum=10_000)
    elitism: int = option(2, "best genomes copied unchanged into the next epoch", minimum=0, maximum=9_999)
    tournament_size: int = option(3, "contestants per tournament", minimum=2, maximum=1_000)
    crossover_rate: float = option(
        0.7, "share of children made by uniform crossover", minimum=0.0, maximum=1.0
    )
    mutation_rate: float = option(0.3, "probability that a gene is mutated", minimum=0.0, maximum=1.0)
    sigma: float = option(
        0.1, "Gaussian mutation step, as a share of a gene's range", minimum=0.0, maximum=1.0
    )
    games: int = option(
        40,
        "fitness games per opponent and training game each epoch (seats alternate)",
        minimum=1,
        maximum=10**6,
    )
    pool: str = option("optimal", "fitness opponents: random, optimal or both", choices=tuple(POOLS))
    starts: str = option(
        "random",
        "start positions: the game's starting piles, or random positions within them",
        choices=("initial", "random"),
    )

    def problem(self) -> str | None:
        """What is wrong across fields, or None."""
        if self.elitism >= self.population:
            return f"elitism={self.elitism} must be smaller than population={self.population}"
        return None


# --- The rules ES (:mod:`boardlab.train.rules_es`) -------------------------------------------


@dataclass(frozen=True)
class ESParams:
    """Hyper-parameters of the (1+λ) ES (see the module docstring)."""

    offspring: int = option(8, "λ: children per epoch", minimum=1, maximum=1_000)
    games: int = option(
        200, "K: fitness games per genome each epoch (seats alternate)", minimum=2, maximum=10**6
    )
    scale: str = option(
        "log", "what the Gaussian steps move: the weights' logarithms (log10) or the weights", choices=SCALES
    )
    sigma: float = option(
        0.5, "Gaussian step at the start (decades on the log scale)", minimum=0.0, maximum=4.0
    )
    sigma_final: float = option(0.05, "Gaussian step after the decay", minimum=0.0, maximum=4.0)
    decay: int = option(30, "epochs of geometric decay from sigma to sigma_final", minimum=1, maximum=10**6)
    patience: int = option(15, "T: stop after this many epochs without improvement", minimum=1, maximum=10**6)
    opponent: str = option("random", "fitness opponent", choices=ES_OPPONENTS)
    depth: int = option(1, "search depth of the alphabeta opponent", minimum=1, maximum=4)
    confirm: bool = option(True, "a best child must also beat the parent on a second set of K games")
    init: float = option(0.5, "every weight of the first parent", minimum=0.0, maximum=1.0)
    workers: int = option(2, "processes playing the games (1: this process)", minimum=1, maximum=64)


# --- NEAT on Quixo (:mod:`boardlab.train.neat_quixo`) ----------------------------------------


@dataclass(frozen=True)
class NeatParams:
    """Hyper-parameters of NEAT on Quixo (see :mod:`boardlab.train.neat_quixo`)."""

    population: int = option(60, "genomes per generation", minimum=4, maximum=10_000)
    games: int = option(
        10,
        "fitness games against random and as many against greedy (at least 1: the first generation "
        "has no champions to play, and a genome with no games has no fitness)",
        minimum=1,
        maximum=10_000,
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

    def problem(self) -> str | None:
        """What is wrong across fields, or None."""
        for name in activation_names(self):
            if not name:
                return f"activations={self.activations[:40]!r} holds an empty name; join names with one '+'"
            if name not in ACTIVATIONS:
                return f"activation {name[:20]!r} is not accepted; choose among {', '.join(ACTIVATIONS)}"
        if max(self.elitism, MIN_SPECIES_SIZE) > self.population:
            # neat-python keeps at least this many genomes in each species, elites included
            return f"elitism={self.elitism} must be at most population={self.population}"
        return None


def activation_names(params: NeatParams) -> list[str]:
    """The activations of ``params.activations`` (``tanh+relu`` → ``["tanh", "relu"]``)."""
    return [name.strip() for name in params.activations.split("+")]


# --- AlphaZero (:mod:`boardlab.train.alphazero`) ---------------------------------------------


@dataclass(frozen=True)
class AlphaZeroParams:
    """Hyper-parameters of AlphaZero training (one dataclass; the CLI derives its flags)."""

    hours: float = option(
        1.0,
        "wall hours of training in all, more than 0 (resumed runs may extend it)",
        minimum=0.0,
        maximum=10_000.0,
    )
    blocks: int = option(3, "residual blocks of the network", minimum=0, maximum=40)
    channels: int = option(32, "channels of the network", minimum=4, maximum=512)
    games: int = option(64, "self-play games per iteration", minimum=1, maximum=100_000)
    parallel: int = option(
        32, "games a worker plays at once (their leaves share a network call)", minimum=1, maximum=4096
    )
    sims: int = option(
        32, "simulations of a full search (its policy is trained on)", minimum=1, maximum=100_000
    )
    fast_sims: int = option(
        8, "simulations of a fast search (playout-cap randomisation)", minimum=1, maximum=100_000
    )
    full_share: float = option(0.25, "share of self-play moves searched in full", minimum=0.0, maximum=1.0)
    considered: int = option(16, "actions the Gumbel root considers", minimum=1, maximum=4096)
    c_visit: float = option(50.0, "Gumbel sigma's visit offset", minimum=0.0, maximum=10_000.0)
    c_scale: float = option(1.0, "Gumbel sigma's scale", minimum=0.0, maximum=1000.0)
    window: int = option(20, "iterations of self-play kept in the replay window", minimum=1, maximum=100_000)
    batch: int = option(256, "training minibatch size", minimum=1, maximum=65_536)
    reuse: float = option(
        4.0, "times each new position is trained on, on average", minimum=0.01, maximum=1000.0
    )
    lr: float = option(0.002, "AdamW learning rate", minimum=0.0, maximum=10.0)
    weight_decay: float = option(0.0001, "AdamW weight decay", minimum=0.0, maximum=10.0)
    versus_games: int = option(
        10,
        "games with search against each fixed opponent per evaluation; also caps the final games "
        "(at least 2 of them, one with each colour)",
        minimum=0,
        maximum=100_000,
    )
    eval_sims: int = option(
        32, "simulations per move in evaluation games and search accuracy", minimum=1, maximum=100_000
    )
    elo_every: int = option(
        5,
        "iterations between evaluation games (stored in arena.sqlite and rated; each keeps a snapshot)",
        minimum=1,
        maximum=100_000,
    )
    eval_positions: int = option(
        300, "solver-judged positions for the accuracy (0: none)", minimum=0, maximum=1_000_000
    )
    also: str = option(
        "",
        "';'-separated games (specs) of the same board the network is also declared fit for "
        "(quixo:rules=course for a network trained on quixo)",
    )
    workers: int = option(0, "self-play processes (0: one per core)", minimum=0, maximum=256)
    backend: str = option("local", "where self-play runs: local processes or Ray", choices=BACKENDS)
    address: str = option(
        "",
        "with backend=ray: the cluster's HOST:PORT, or auto: the one Ray finds (empty: a local Ray instance)",
    )

    def problem(self) -> str | None:
        if self.hours <= 0:  # a run of no time would write an untrained network as its result
            return f"hours must be more than 0, got {format_value(self.hours)}"
        if self.fast_sims > self.sims:
            return "fast_sims must not exceed sims"
        return game_specs_problem("also", self.also)

    @property
    def also_specs(self) -> tuple[str, ...]:
        """The game specs of ``also``."""
        return game_specs(self.also)


# --- The evaluation network (:mod:`boardlab.train.evalnet`) ----------------------------------


@dataclass(frozen=True)
class EvalNetSettings:
    """Hyper-parameters of ``boardlab train evalnet``."""

    games: int = option(400, "self-play games in the dataset", minimum=2, maximum=10_000_000)
    shard_games: int = option(
        20, "games per data shard (the unit of resumable work)", minimum=1, maximum=100_000
    )
    players: str = option(
        "",
        "';'-separated agent specs whose games make the dataset (empty: "
        "hybrid:time=0.03,search=(alphabeta:eval=tuned), alphabeta:time=0.03,eval=patterns,contempt=20 "
        "and alphabeta:depth=3,eval=tuned)",
    )
    opening: int = option(10, "a game opens with 2 to this many random plies", minimum=2, maximum=60)
    ply_cap: int = option(160, "plies after which a data game is drawn", minimum=10, maximum=10_000)
    data: str = option("", "folder of the data shards (default: data/ beside the checkpoint)")
    hidden1: int = option(32, "units of the first hidden layer", minimum=1, maximum=4096)
    hidden2: int = option(8, "units of the second hidden layer", minimum=1, maximum=4096)
    lr: float = option(2e-3, "Adam's learning rate", minimum=1e-6, maximum=1.0)
    anneal: int = option(
        0,
        "epochs over which the learning rate falls on a half cosine to 1/100 of lr, then stays there "
        "(0: constant)",
        minimum=0,
        maximum=100_000,
    )
    batch: int = option(1024, "positions per gradient step", minimum=8, maximum=1_000_000)
    distill: float = option(
        0.5, "weight of the search score in the target (the game's result has the rest)", minimum=0, maximum=1
    )
    scale: float = option(100.0, "search units per logit (Quixo's tuned: 100)", minimum=1e-3, maximum=1e6)
    labels: str = option(
        "search",
        "the score distilled: search (the mover's alpha-beta score) or tables (the perfect-play value "
        "from the solved tables built here, e.g. 4x4 Quixo; the result where they do not reach)",
        choices=("search", "tables"),
    )
    base: str = option(
        "",
        "a game evaluation the network corrects (its output is added to that evaluation's logit, "
        "e.g. tuned; empty: the network alone)",
    )
    also: str = option(
        "",
        "';'-separated games (specs) the network is also declared fit for, of the same board: "
        "quixo:rules=course (the rulebooks differ only when one push completes lines of both colours)",
    )
    workers: int = option(2, "worker processes playing the data games", minimum=1, maximum=256)
    threads: int = option(
        1, "PyTorch threads (more: faster, the last bits of the weights may differ)", minimum=1, maximum=256
    )

    def problem(self) -> str:
        if self.shard_games > self.games:
            return f"shard_games {self.shard_games} is more than games {self.games}"
        for spec in self.player_specs:
            try:
                make_agent(spec, seed=0)
            except AgentSpecError as error:
                return f"players: {error}"
        problem = game_specs_problem("also", self.also)
        if problem:
            return problem
        return "" if len(self.player_specs) >= 1 else "players names no agent"

    @property
    def also_specs(self) -> tuple[str, ...]:
        """The game specs of ``also``."""
        return game_specs(self.also)

    @property
    def player_specs(self) -> list[str]:
        """The agent specs of ``players``."""
        return [spec.strip() for spec in (self.players or EVALNET_PLAYERS).split(";") if spec.strip()]

    @property
    def shards(self) -> int:
        """Data shards in all."""
        return math.ceil(self.games / self.shard_games)


SETTINGS: dict[str, type] = {
    "qlearning": QLearningParams,
    "mcrl": MonteCarloParams,
    "ga": GAParams,
    "es": ESParams,
    "neat": NeatParams,
    "alphazero": AlphaZeroParams,
    "evalnet": EvalNetSettings,
}
"""Each kind of ``boardlab train KIND`` and its hyper-parameter dataclass."""
