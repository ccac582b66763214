"""The ``neat`` agent: plays Quixo with a network evolved by NEAT (``boardlab train neat``).

The network is a value function. For each legal move the agent builds the position the move
leads to, reads its observation planes (:meth:`boardlab.games.base.State.observation`: the
cubes of the side to move, then the opponent's, from the view of the side to move, here the
opponent) and scores the move by minus the network's value of that position: what is good
for the opponent is bad for the mover. A move that ends the game is scored by its exact
result instead (a win above every other move, a loss below). Illegal moves are never scored;
ties are split at random from the agent's seed. With the *guard* (``guard=on``, or
``guard=model`` for a model trained with it, the default of ``boardlab train neat``), the
rules also rank the moves that let the opponent win with its reply below every safe move, as
``greedy`` does; the network orders the moves within each class.

The network is rebuilt here from the genome in the model file, not with neat-python: the
expressed nodes are sorted into layers (a node waits for every node feeding it), and each
layer is one matrix product over the batch of after-move positions, so a move costs one pass
over a (moves × inputs) array. :class:`Network` gives the same outputs as neat-python's
``FeedForwardNetwork`` for the same genome (checked by the tests), for the ``sum``
aggregation and the activations in :data:`ACTIVATIONS`.

``neat:model=PATH`` plays the champion in ``PATH`` (``model.json`` of ``boardlab train neat
--out DIR``); without it the agent plays the champion shipped in the package
(``boardlab/models/quixo-neat.json``). A model file is JSON (never pickle): its format and
version, the game it was trained on, the network's input and output sizes, the genome (nodes
with bias, response, activation and aggregation; connections with weight, enabled flag and
innovation number), the hyper-parameters and the neat-python configuration values needed to
rebuild it. A damaged file, a newer version, or a model made for another game or board size
is refused with a clear message.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from boardlab.agents.base import Agent, AgentSpecError
from boardlab.agents.greedy import build_greedy_kinds
from boardlab.agents.models import ModelCache, model_file, shipped_model_file
from boardlab.core.inputs import InputFileError, read_json
from boardlab.core.spec import option
from boardlab.games.base import DRAW, LOSS, ONGOING, WIN, Kernel, compiled_for
from boardlab.models.errors import ModelFileError, ModelMismatchError

FORMAT = "boardlab-neat"
VERSION = 1
SHIPPED_MODEL = "quixo-neat.json"
WIN_SCORE = 1e9
"""The score of a move that wins at once (a loss scores minus this; network values are finite)."""


# --- activations, as neat-python defines them --------------------------------------------------


def _clip(z: np.ndarray, low: float, high: float) -> np.ndarray:
    return np.clip(z, low, high)


ACTIVATIONS: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "sigmoid": lambda z: 1.0 / (1.0 + np.exp(-_clip(5.0 * z, -60.0, 60.0))),
    "tanh": lambda z: np.tanh(_clip(2.5 * z, -60.0, 60.0)),
    "sin": lambda z: np.sin(_clip(5.0 * z, -60.0, 60.0)),
    "gauss": lambda z: np.exp(-5.0 * _clip(z, -3.4, 3.4) ** 2),
    "relu": lambda z: np.where(z > 0.0, z, 0.0),
    "elu": lambda z: np.where(z > 0.0, z, np.expm1(np.minimum(z, 0.0))),
    "lelu": lambda z: np.where(z > 0.0, z, 0.005 * z),
    "softplus": lambda z: 0.2 * np.log1p(np.exp(_clip(5.0 * z, -60.0, 60.0))),
    "identity": lambda z: z,
    "clamped": lambda z: _clip(z, -1.0, 1.0),
    "abs": np.abs,
    "square": np.square,
    "cube": lambda z: z**3,
}
"""The node activations a model may use (neat-python's definitions, on numpy arrays)."""
AGGREGATIONS = ("sum",)
"""The node aggregations a model may use."""


# --- the network ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Layer:
    """Nodes evaluated together: ``values[:, targets] = act(bias + response * total)``, one
    activation per group of ``columns``, where ``total`` sums each node's weighted inputs.

    The inputs are kept dense (``values[:, sources] @ weights``, ``sources`` the columns feeding
    the layer) when that matrix is small next to the layer's links, else as the links themselves
    (``sparse``: source columns, target positions, weights), so that a network costs memory and
    time linear in its genome whatever its shape."""

    targets: np.ndarray
    sources: np.ndarray
    weights: np.ndarray
    bias: np.ndarray
    response: np.ndarray
    groups: tuple[tuple[str, np.ndarray], ...]
    sparse: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None

    def total(self, values: np.ndarray) -> np.ndarray:
        """The weighted sums of the layer's inputs, (batch, nodes)."""
        if self.sparse is None:
            return values[:, self.sources] @ self.weights
        source, target, weight = self.sparse
        total = np.zeros((len(values), len(self.targets)))
        np.add.at(total.T, target, (values[:, source] * weight).T)
        return total


@dataclass(frozen=True)
class Network:
    """A feed-forward network rebuilt from a genome, evaluated a batch at a time.

    Values are kept in one array with a column per input and per expressed node: inputs
    first (the genome's input keys ``-1, -2, ...`` in order), then the nodes in layer order.
    """

    num_inputs: int
    num_outputs: int
    layers: tuple[Layer, ...]
    output_columns: np.ndarray
    width: int

    @classmethod
    def from_genome(cls, genome: Mapping[str, Any], num_inputs: int, num_outputs: int) -> Network:
        """The network of a genome in the JSON form of :func:`check_genome` (time and memory
        linear in the genome)."""
        nodes = {int(n["id"]): n for n in genome["nodes"]}
        incoming: dict[int, list[tuple[int, float]]] = {}
        for c in genome["connections"]:
            if c["enabled"]:
                incoming.setdefault(int(c["to"]), []).append((int(c["from"]), float(c["weight"])))
        inputs = [-i - 1 for i in range(num_inputs)]
        outputs = list(range(num_outputs))
        order = _layers(inputs, outputs, incoming)
        column = {key: i for i, key in enumerate(inputs)}
        for layer in order:
            for key in layer:
                column[key] = len(column)
        built = tuple(_build_layer(layer, nodes, incoming, column) for layer in order)
        return cls(num_inputs, num_outputs, built, np.array([column[k] for k in outputs]), len(column))

    def evaluate(self, inputs: np.ndarray) -> np.ndarray:
        """Outputs (batch, num_outputs) for inputs (batch, num_inputs)."""
        x = np.asarray(inputs, dtype=np.float64).reshape(-1, self.num_inputs)
        values = np.zeros((len(x), self.width))
        values[:, : self.num_inputs] = x
        for layer in self.layers:
            total = layer.bias + layer.response * layer.total(values)
            for name, columns in layer.groups:
                values[:, layer.targets[columns]] = ACTIVATIONS[name](total[:, columns])
        return values[:, self.output_columns]


def _layers(
    inputs: Sequence[int], outputs: Sequence[int], incoming: Mapping[int, Sequence[tuple[int, float]]]
) -> list:
    """The nodes needed for the outputs, in layers whose members depend only on earlier ones
    (neat-python's ``feed_forward_layers``, nodes without inputs first); ``incoming[b]`` lists
    the ``(source, weight)`` links into node ``b``. Each link is visited a bounded number of
    times, so a long chain of nodes costs no more than a wide layer of them."""
    input_set = set(inputs)
    needed, stack = set(outputs), list(outputs)
    while stack:  # every node an output depends on
        for a, _ in incoming.get(stack.pop(), ()):
            if a not in needed and a not in input_set:
                needed.add(a)
                stack.append(a)
    waiting: dict[int, int] = {}
    users: dict[int, list[int]] = {}
    for node in needed:
        sources = {a for a, _ in incoming.get(node, ()) if a in needed}  # inputs are ready at once
        waiting[node] = len(sources)
        for a in sources:
            users.setdefault(a, []).append(node)
    layer = sorted(n for n in needed if waiting[n] == 0)
    layers, placed = [], 0
    while layer:
        layers.append(layer)
        placed += len(layer)
        following = []
        for node in layer:
            for user in users.get(node, ()):
                waiting[user] -= 1
                if waiting[user] == 0:
                    following.append(user)
        layer = sorted(following)
    if placed != len(needed):
        raise ModelFileError("the genome's connections form a cycle; a feed-forward network has none")
    return layers


DENSE_FACTOR = 8
"""A layer's inputs are a dense matrix when it has at most this many entries per link (plus 64)."""


def _build_layer(
    keys: Sequence[int],
    nodes: Mapping[int, Any],
    incoming: Mapping[int, Sequence[tuple[int, float]]],
    column: dict,
) -> Layer:
    links = [(column[a], i, w) for i, b in enumerate(keys) for a, w in incoming.get(b, ()) if a in column]
    sources = sorted({c for c, _, _ in links})
    names = [nodes[k]["activation"] for k in keys]
    groups = tuple(
        (name, np.array([i for i, n in enumerate(names) if n == name])) for name in sorted(set(names))
    )
    bias = np.array([float(nodes[k]["bias"]) for k in keys])
    response = np.array([float(nodes[k]["response"]) for k in keys])
    targets = np.array([column[k] for k in keys])
    if len(sources) * len(keys) > DENSE_FACTOR * len(links) + 64:
        sparse = (
            np.array([c for c, _, _ in links], dtype=np.int64),
            np.array([i for _, i, _ in links], dtype=np.int64),
            np.array([w for _, _, w in links]),
        )
        return Layer(targets, np.zeros(0, dtype=np.int64), np.zeros((0, 0)), bias, response, groups, sparse)
    row = {c: r for r, c in enumerate(sources)}
    weights = np.zeros((len(sources), len(keys)))
    for c, i, w in links:
        weights[row[c], i] += w
    return Layer(targets, np.array(sources, dtype=np.int64), weights, bias, response, groups)


# --- model files ---------------------------------------------------------------------------------


def _number(value: Any, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ModelFileError(f"{what} must be a finite number, got {str(value)[:30]!r}")
    return float(value)


def _whole(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ModelFileError(f"{what} must be a whole number, got {str(value)[:30]!r}")
    return value


def check_genome(genome: Any, num_inputs: int, num_outputs: int) -> dict[str, Any]:
    """``genome`` if it is a well-formed JSON genome for these sizes; ModelFileError naming the fault.

    A genome is ``{"key", "fitness", "nodes": [{"id", "bias", "response", "activation",
    "aggregation"}], "connections": [{"from", "to", "weight", "enabled", "innovation"}]}``;
    node ids ``0..num_outputs-1`` are the outputs, inputs are ``-1..-num_inputs``.
    """
    if not isinstance(genome, dict) or not isinstance(genome.get("nodes"), list):
        raise ModelFileError("the genome must be an object with a list of nodes")
    if not isinstance(genome.get("connections"), list):
        raise ModelFileError("the genome must have a list of connections")
    ids = set()
    for node in genome["nodes"]:
        if not isinstance(node, dict):
            raise ModelFileError("every node must be an object")
        key = _whole(node.get("id"), "a node id")
        if key < 0 or key in ids:
            raise ModelFileError(f"node id {key} is negative or repeated")
        ids.add(key)
        _number(node.get("bias"), f"node {key} bias")
        _number(node.get("response"), f"node {key} response")
        if node.get("activation") not in ACTIVATIONS:
            raise ModelFileError(
                f"node {key} activation {str(node.get('activation'))[:20]!r} is not one of "
                f"{', '.join(ACTIVATIONS)}"
            )
        if node.get("aggregation") not in AGGREGATIONS:
            raise ModelFileError(f"node {key} aggregation must be one of {', '.join(AGGREGATIONS)}")
    missing = set(range(num_outputs)) - ids
    if missing:
        raise ModelFileError(
            f"the genome lacks {'output node' if len(missing) == 1 else 'output nodes'} {sorted(missing)}"
        )
    for link in genome["connections"]:
        if not isinstance(link, dict):
            raise ModelFileError("every connection must be an object")
        a, b = _whole(link.get("from"), "a connection's from"), _whole(link.get("to"), "a connection's to")
        if not (-num_inputs <= a < 0 or a in ids) or b not in ids:
            raise ModelFileError(f"connection {a}->{b} names a node the genome does not have")
        _number(link.get("weight"), f"connection {a}->{b} weight")
        if not isinstance(link.get("enabled"), bool):
            raise ModelFileError(f"connection {a}->{b} enabled must be true or false")
    return genome


@dataclass(frozen=True)
class NeatModel:
    """A checked model file: the game it plays, its network sizes, genome and metadata."""

    game: str
    num_inputs: int
    num_outputs: int
    genome: dict[str, Any]
    header: dict[str, Any]

    def network(self) -> Network:
        """The champion's network."""
        return Network.from_genome(self.genome, self.num_inputs, self.num_outputs)


def model_json(
    game: Any, genome: Mapping[str, Any], extra: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """The JSON object of a model file for ``game`` (a Game) holding ``genome``."""
    return {
        "format": FORMAT,
        "version": VERSION,
        "game": game.spec,
        "obs_shape": list(game.kernel.obs_shape),
        "num_actions": game.kernel.num_actions,
        "num_inputs": int(np.prod(game.kernel.obs_shape)),
        "num_outputs": 1,
        "input": "observation planes of the position after the move, from the next mover's view",
        **(extra or {}),
        "genome": dict(genome),
    }


def parse_model(data: Any, where: str = "the model") -> NeatModel:
    """A :class:`NeatModel` from a model file's JSON object; ModelFileError naming the fault."""
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ModelFileError(f"{where} is not a NEAT model (format {FORMAT!r} expected)")
    version = data.get("version")
    if version != VERSION:
        raise ModelFileError(
            f"{where} has version {str(version)[:20]}; this boardlab reads version {VERSION}"
        )
    if not isinstance(data.get("game"), str):
        raise ModelFileError(f"{where} does not name its game")
    num_inputs = _whole(data.get("num_inputs"), "num_inputs")
    num_outputs = _whole(data.get("num_outputs"), "num_outputs")
    if num_outputs != 1 or not 0 < num_inputs <= 10_000:
        raise ModelFileError(f"{where} has {num_inputs} inputs and {num_outputs} outputs; expected 1 output")
    hyper = data.get("hyper", {})
    if not isinstance(hyper, dict) or not isinstance(hyper.get("guard", False), bool):
        raise ModelFileError(f"{where}: 'hyper' must be an object whose 'guard' is true or false")
    try:
        genome = check_genome(data.get("genome"), num_inputs, num_outputs)
        Network.from_genome(genome, num_inputs, num_outputs)
    except ModelFileError as error:
        raise ModelFileError(f"{where}: {error}") from None
    header = {k: v for k, v in data.items() if k != "genome"}
    return NeatModel(data["game"], num_inputs, num_outputs, genome, header)


MAX_MODEL_BYTES = 64 << 20
"""The largest NEAT model file read (a trained champion takes a few kilobytes)."""


def load_model(path: Path | str) -> NeatModel:
    """The model in ``path``; ModelFileError when it is missing, not a regular file, too large,
    damaged or not a NEAT model."""
    path = Path(path)
    try:
        data = read_json(path, "model file", MAX_MODEL_BYTES)
    except InputFileError as error:
        raise ModelFileError(str(error)) from None
    return parse_model(data, str(path))


def check_model_game(model: NeatModel, game: Any, where: str) -> None:
    """ModelMismatchError unless ``model`` was made for ``game`` (same game, size and inputs)."""
    kernel = game.kernel
    trained = model.game.partition(":")[0]
    if trained != game.name:
        raise ModelMismatchError(f"{where} was trained on {model.game}, not {game.name}")
    shape = model.header.get("obs_shape")
    if shape != list(kernel.obs_shape) or model.num_inputs != int(np.prod(kernel.obs_shape)):
        raise ModelMismatchError(
            f"{where} was trained on {model.game} (observation {shape}); {game.spec} has "
            f"observation {list(kernel.obs_shape)}: a different board size"
        )
    if model.header.get("num_actions") != kernel.num_actions:
        raise ModelMismatchError(f"{where} was trained on {model.game}, whose moves differ from {game.spec}")


# --- playing ------------------------------------------------------------------------------------


def build_after_moves(kernel: Kernel) -> Any:
    """A compiled ``after_moves(ctx, a, b, actions, statuses, observations) -> n``: the legal
    actions, the status of each resulting position (for the side then to move) and its
    observation planes."""
    from boardlab.games.jit import cached_njit  # compiled code: numba loaded only when a network plays

    gen_moves, play, status, observe = kernel.gen_moves, kernel.play, kernel.status, kernel.observe

    @cached_njit
    def after_moves(ctx, a, b, actions, statuses, observations):  # type: ignore[no-untyped-def]
        n = gen_moves(ctx, a, b, actions)
        for i in range(n):
            x, y = play(ctx, a, b, actions[i])
            statuses[i] = status(ctx, x, y)
            observations[i, :, :, :] = 0.0
            observe(ctx, x, y, observations[i])
        return n

    return after_moves


class NeatPolicy:
    """A network playing one game: move scores and move choice on state words.

    With ``guard``, the rules decide what they can within two plies, as ``greedy`` does: a
    move that wins at once scores above every other, and a move that loses at once or lets the
    opponent win with its reply scores below every safe one; the network ranks the rest.
    """

    def __init__(self, network: Network, game: Any, guard: bool = False) -> None:
        self.network = network
        self.game = game
        self.guard = guard
        kernel = game.kernel
        self._kernel = kernel
        self._after = compiled_for(kernel, build_after_moves)
        self._kinds_of = compiled_for(kernel, build_greedy_kinds) if guard else None
        self._reply = np.empty(kernel.num_actions, dtype=np.int64)
        self._kinds = np.empty(kernel.num_actions, dtype=np.int64)
        self._actions = np.empty(kernel.num_actions, dtype=np.int64)
        self._statuses = np.empty(kernel.num_actions, dtype=np.int64)
        self._observations = np.zeros((kernel.num_actions, *kernel.obs_shape), dtype=np.float32)

    def scores(self, a: int, b: int) -> tuple[np.ndarray, np.ndarray]:
        """The legal actions of the position ``(a, b)`` and the score of each."""
        kernel = self._kernel
        n = self._after(
            kernel.ctx, np.int64(a), np.int64(b), self._actions, self._statuses, self._observations
        )
        actions = self._actions[:n].copy()
        statuses = self._statuses[:n]
        values = -self.network.evaluate(self._observations[:n].reshape(n, -1))[:, 0]
        values[statuses == LOSS] = WIN_SCORE  # the opponent, to move, has lost
        values[statuses == WIN] = -WIN_SCORE
        values[statuses == DRAW] = 0.0
        if self._kinds_of is not None:
            self._kinds_of(kernel.ctx, np.int64(a), np.int64(b), self._actions, self._reply, self._kinds)
            losing = (self._kinds[:n] == 0) & (statuses == ONGOING)
            values[losing] -= WIN_SCORE / 2  # below every safe move, still ranked by the network
        return actions, values

    def choose_action(self, a: int, b: int, rng: Any) -> int:
        """A best-scoring legal action, ties split with ``rng`` (``random.Random`` or numpy Generator)."""
        actions, values = self.scores(a, b)
        best = np.flatnonzero(values >= values.max() - 1e-12)
        pick = rng.integers(len(best)) if isinstance(rng, np.random.Generator) else rng.randrange(len(best))
        return int(actions[best[pick]])


# --- the agent ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class NeatSettings:
    """Options of the ``neat`` agent."""

    model: str = option(
        "", "model file from `boardlab train neat` (default: the model shipped in the package)"
    )
    guard: str = option(
        "model",
        "take wins at once and avoid moves that let the opponent win at once (as greedy does) before "
        "asking the network: on, off, or model (as the model was trained)",
        choices=("model", "on", "off"),
    )


def shipped_model() -> Path | None:
    """The path of the Quixo NEAT model shipped in the package, or None."""
    return shipped_model_file(SHIPPED_MODEL)


_MODELS: ModelCache[NeatModel] = ModelCache(load_model)
cached_model = _MODELS.get


class NeatAgent(Agent):
    """Best move by a NEAT-evolved value network (see the module docstring)."""

    name = "neat"
    summary = "Quixo by a network evolved with NEAT (boardlab train neat)"
    games = ("quixo",)
    Settings = NeatSettings
    settings: NeatSettings

    def __init__(self, seed: int | None = None, settings: Any = None, **options: Any) -> None:
        super().__init__(seed, settings, **options)
        self._policies: dict[str, NeatPolicy] = {}

    @classmethod
    def model_path(cls, settings: Any) -> Path:
        """The model file these settings play with; AgentSpecError when there is none."""
        return model_file(cls.name, settings.model, shipped_model(), "boardlab train neat", "model.json")

    @classmethod
    def model(cls, settings: Any) -> NeatModel:
        """The checked model of these settings; AgentSpecError naming what is wrong."""
        return _MODELS.for_agent(cls.name, cls.model_path(settings))

    @classmethod
    def supports(cls, game: Any) -> bool:
        """Quixo on the board size of the shipped model (a ``model=`` of another size plays
        that size)."""
        if game.name not in cls.games:
            return False
        path = shipped_model()
        if path is None:
            return True
        try:
            check_model_game(cached_model(path), game, str(path))
        except ModelFileError:
            return False
        return True

    @classmethod
    def check_game(cls, settings: Any, game: Any) -> None:
        if game.name not in cls.games:
            raise AgentSpecError(f"agent {cls.name} plays only {', '.join(cls.games)}, not {game.name}")
        model = cls.model(settings)
        try:
            check_model_game(model, game, str(cls.model_path(settings)))
        except ModelMismatchError as error:  # a sound model of another board: how to get one
            raise AgentSpecError(
                f"{cls.name}: {error}; train one with `boardlab train neat --game {game.spec} --out DIR` "
                "and pass model=DIR/model.json"
            ) from None
        except ModelFileError as error:
            raise AgentSpecError(f"{cls.name}: {error}") from None

    def policy(self, game: Any) -> NeatPolicy:
        """The champion's player on ``game`` (the model read and checked once)."""
        if game.spec not in self._policies:
            self.check_game(self.settings, game)
            model = self.model(self.settings)
            guard = self.settings.guard == "on" or (
                self.settings.guard == "model" and bool(model.header.get("hyper", {}).get("guard", False))
            )
            self._policies[game.spec] = NeatPolicy(model.network(), game, guard)
        return self._policies[game.spec]

    def prepare(self, game: Any) -> None:
        a, b = game.initial_words()
        self.policy(game).scores(a, b)  # reads the model and compiles the move generation

    def choose(self, state: Any) -> Any:
        return state.move_from_index(self.policy(state.game).choose_action(state.a, state.b, self.rng))


__all__ = [
    "ACTIVATIONS",
    "FORMAT",
    "SHIPPED_MODEL",
    "VERSION",
    "NeatAgent",
    "NeatModel",
    "NeatPolicy",
    "NeatSettings",
    "Network",
    "check_genome",
    "check_model_game",
    "load_model",
    "model_json",
    "parse_model",
    "shipped_model",
]
