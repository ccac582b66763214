"""The AlphaZero network, its model file and its batched evaluator.

**The network** (:class:`Network`) reads a game's observation planes (``kernel.obs_shape``,
from the mover's view) and answers a policy over the game's fixed action space and a value in
[-1, 1] for the side to move: a 3x3 convolution stem, ``blocks`` residual blocks of
``channels`` channels, a policy head (1x1 convolution, then a linear layer to one logit per
action; illegal actions are masked out before the softmax) and a value head (1x1
convolution, a small hidden layer, tanh). Nothing in it names a game.

**The model file** is one safetensors file: the weights, and in its header's metadata a JSON
object naming the game spec, the kernel (the game with its board size), the observation shape,
the action count, the blocks and the channels, and the SHA-256 of the tensor bytes
(:mod:`boardlab.models.digest`). A training checkpoint is the same file with the
optimiser's moments and the run's JSON state added, so that one atomic write keeps them
together. Reading checks the whole file: a damaged (its checksum, where it has one), truncated
or foreign file is refused with
:class:`NetworkFileError`, a sound file for another game or board size with
:class:`NetworkMismatchError`. Nothing is pickled (``torch.load`` is never used).

PyTorch is the optional ``torch`` extra: this module imports it only when a network is built
or read, and :func:`require_torch` says in one line which extra to install.
"""

from __future__ import annotations

import io
import json
import math
import warnings
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from boardlab.core.files import atomic_write_bytes
from boardlab.core.spec import shown_value
from boardlab.games.base import Game, Kernel, observe_batch
from boardlab.models.digest import digest_problem, with_digest
from boardlab.models.errors import ModelFileError, ModelMismatchError
from boardlab.models.formats import ALPHAZERO_FORMAT, EVALNET_FORMAT

FORMAT = ALPHAZERO_FORMAT
VERSION = 1
METADATA_KEY = "boardlab"
OPTIMIZER_PREFIX = "optimizer."
MAX_FILE_BYTES = 1 << 30
MAX_BLOCKS = 40
MAX_CHANNELS = 512
VALUE_HIDDEN = 32


class TorchMissingError(ImportError):
    """PyTorch is not installed: the AlphaZero network needs the ``torch`` extra."""


class NetworkFileError(ModelFileError):
    """A network file that cannot be used: unreadable, truncated, not a boardlab network or
    inconsistent with its own metadata."""


class NetworkMismatchError(NetworkFileError, ModelMismatchError):
    """A sound network file made for another game or board size."""


def require_torch() -> Any:
    """The ``torch`` module; TorchMissingError naming the extra when it is not installed."""
    try:
        import torch
    except ImportError:
        raise TorchMissingError(
            "the AlphaZero network needs PyTorch: pip install 'boardlab[torch]'"
        ) from None
    return torch


# --- the shape of a network ------------------------------------------------------------------


def _game_of(game: Any) -> Game:
    """``game`` as a Game: a spec string is parsed (GameOptionError if it names none); TypeError
    for anything else."""
    if isinstance(game, str):
        from boardlab.games import parse_game  # the registry, only when a spec is given

        return parse_game(game)
    if not isinstance(game, Game):
        raise TypeError(
            f"a network is made for a Game or a game spec such as 'connect4', got {shown_value(game, 30)}"
        )
    return game


@dataclass(frozen=True)
class NetworkShape:
    """What a network is built for (the game) and its size (blocks, channels). ``also`` names
    other games of the same board it is declared fit for (Quixo's other rulebook, which differs
    only when one push completes lines of both colours): the search plays their rules, the
    network's priors and values were learned on ``game``."""

    game: str
    kernel: str
    obs_shape: tuple[int, int, int]
    num_actions: int
    blocks: int = 3
    channels: int = 32
    also: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not 0 <= self.blocks <= MAX_BLOCKS or not 1 <= self.channels <= MAX_CHANNELS:
            raise ValueError(
                f"a network has 0..{MAX_BLOCKS} blocks and 1..{MAX_CHANNELS} channels, "
                f"not {self.blocks} and {self.channels}"
            )

    @classmethod
    def for_game(cls, game: Game | str, blocks: int = 3, channels: int = 32) -> NetworkShape:
        """The shape of a network for ``game`` (a Game or a game spec such as ``"connect4"``)."""
        game = _game_of(game)
        kernel = game.kernel
        planes, rows, columns = kernel.obs_shape
        return cls(game.spec, kernel.name, (planes, rows, columns), kernel.num_actions, blocks, channels)

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "obs_shape": list(self.obs_shape), "also": list(self.also)}

    def fits(self, game: Any) -> bool:
        """Whether the network plays ``game``: its own game, or one of ``also`` on the same board."""
        if game.spec == self.game:
            return game.kernel.name == self.kernel
        kernel = game.kernel
        return game.spec in self.also and (tuple(kernel.obs_shape), kernel.num_actions) == (
            self.obs_shape,
            self.num_actions,
        )


def build_module(shape: NetworkShape) -> Any:
    """A fresh ``torch.nn.Module`` of this shape (weights from torch's current random state)."""
    torch = require_torch()
    nn = torch.nn
    planes, rows, cols = shape.obs_shape
    ch, cells = shape.channels, rows * cols

    class Residual(nn.Module):  # type: ignore[misc,name-defined]
        def __init__(self) -> None:
            super().__init__()
            self.conv1 = nn.Conv2d(ch, ch, 3, padding=1, bias=False)
            self.bn1 = nn.BatchNorm2d(ch)
            self.conv2 = nn.Conv2d(ch, ch, 3, padding=1, bias=False)
            self.bn2 = nn.BatchNorm2d(ch)

        def forward(self, x: Any) -> Any:
            y = torch.relu(self.bn1(self.conv1(x)))
            return torch.relu(x + self.bn2(self.conv2(y)))

    class PolicyValue(nn.Module):  # type: ignore[misc,name-defined]
        def __init__(self) -> None:
            super().__init__()
            self.stem = nn.Sequential(
                nn.Conv2d(planes, ch, 3, padding=1, bias=False), nn.BatchNorm2d(ch), nn.ReLU()
            )
            self.tower = nn.Sequential(*[Residual() for _ in range(shape.blocks)])
            self.policy_conv = nn.Sequential(nn.Conv2d(ch, 2, 1, bias=False), nn.BatchNorm2d(2), nn.ReLU())
            self.policy_fc = nn.Linear(2 * cells, shape.num_actions)
            self.value_conv = nn.Sequential(nn.Conv2d(ch, 1, 1, bias=False), nn.BatchNorm2d(1), nn.ReLU())
            self.value_fc1 = nn.Linear(cells, VALUE_HIDDEN)
            self.value_fc2 = nn.Linear(VALUE_HIDDEN, 1)

        def forward(self, x: Any) -> tuple[Any, Any]:
            h = self.tower(self.stem(x))
            logits = self.policy_fc(torch.flatten(self.policy_conv(h), 1))
            v = torch.relu(self.value_fc1(torch.flatten(self.value_conv(h), 1)))
            return logits, torch.tanh(self.value_fc2(v)).squeeze(1)

    return PolicyValue()


# --- the network -----------------------------------------------------------------------------


INFERENCE_MODES = ("eager", "script", "onnx")


def onnx_runtime() -> Any:
    """The ``onnxruntime`` module, or None where it (or ``onnx``, which the export needs) is
    not installed."""
    try:
        import onnx  # noqa: F401
        import onnxruntime
    except ImportError:
        return None
    return onnxruntime


def default_mode() -> str:
    """``onnx`` where ONNX Runtime is installed (the fastest measured here, see BENCHMARKS.md),
    else ``script``."""
    return "onnx" if onnx_runtime() is not None else "script"


class Network:
    """A policy-value network for one game, with the inference the searches call.

    ``mode`` picks how inference runs: ``eager`` PyTorch, ``script`` (TorchScript, traced and
    frozen on first use) or ``onnx`` (exported to ONNX on first use and run by ONNX Runtime on
    as many threads as PyTorch has then); the default is the fastest installed, as the benchmark
    measured them (BENCHMARKS.md). Training uses :attr:`module` directly.
    """

    def __init__(self, shape: NetworkShape, module: Any = None, mode: str = "") -> None:
        torch = require_torch()
        mode = mode or default_mode()
        if mode not in INFERENCE_MODES:
            raise ValueError(f"inference mode must be one of {', '.join(INFERENCE_MODES)}, not {mode!r}")
        if mode == "onnx" and onnx_runtime() is None:
            raise TorchMissingError("inference mode onnx needs onnx and onnxruntime (the torch extra)")
        self.shape = shape
        self.module = module if module is not None else build_module(shape)
        self.mode = mode
        self._torch = torch
        self._scripted: Any = None
        self._session: Any = None
        self._session_threads = 0

    @classmethod
    def for_game(cls, game: Game | str, blocks: int = 3, channels: int = 32, seed: int = 0) -> Network:
        """A randomly initialised network for ``game`` (a Game or a game spec such as
        ``"connect4"``), its weights drawn from ``seed``."""
        game = _game_of(game)
        torch = require_torch()
        with torch.random.fork_rng():
            torch.manual_seed(seed)
            return cls(NetworkShape.for_game(game, blocks, channels))

    def fits(self, game: Any) -> bool:
        """True when this network was made for ``game`` (its spec and board size)."""
        return self.shape.kernel == game.kernel.name and self.shape.game == game.spec

    def infer(self, observations: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Logits (n, num_actions) and values (n,) of a float32 batch of observations."""
        torch = self._torch
        if self.module.training:
            self.module.eval()
        if self.mode == "onnx":
            return self._infer_onnx(np.ascontiguousarray(observations, dtype=np.float32))
        x = torch.from_numpy(np.ascontiguousarray(observations, dtype=np.float32))
        with torch.inference_mode():
            if self.mode == "script":
                if self._scripted is None:
                    with warnings.catch_warnings():  # TorchScript is deprecated yet measured fastest here
                        warnings.simplefilter("ignore", DeprecationWarning)
                        traced = torch.jit.trace(self.module, x[:1], check_trace=False)
                        self._scripted = torch.jit.freeze(traced.eval())
                logits, values = self._scripted(x)
            else:
                logits, values = self.module(x)
        return logits.numpy(), values.numpy()

    def _infer_onnx(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        threads = self._torch.get_num_threads()
        if self._session is None or self._session_threads != threads:
            self._session = self._onnx_session(x.shape[1:], threads)
            self._session_threads = threads
        logits, values = self._session.run(None, {"planes": x})
        return logits, values.reshape(len(x))

    def _onnx_session(self, plane_shape: tuple[int, ...], threads: int) -> Any:
        """The module exported to ONNX (a free batch size) in an ONNX Runtime session."""
        torch, runtime = self._torch, onnx_runtime()
        buffer = io.BytesIO()
        sample = torch.zeros((1, *plane_shape), dtype=torch.float32)
        with warnings.catch_warnings():  # the TorchScript-based exporter: deprecated, and fast here
            warnings.simplefilter("ignore")
            torch.onnx.export(
                self.module,
                (sample,),
                buffer,
                input_names=["planes"],
                output_names=["logits", "values"],
                dynamic_axes={name: {0: "batch"} for name in ("planes", "logits", "values")},
                dynamo=False,
            )
        options = runtime.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        return runtime.InferenceSession(buffer.getvalue(), options, providers=["CPUExecutionProvider"])

    def forget_compiled(self) -> None:
        """Drop the TorchScript copy and the ONNX session (after the weights changed)."""
        self._scripted = None
        self._session = None

    def evaluator(self, kernel: Kernel | None = None) -> NetworkEvaluator:
        """A batched :class:`~boardlab.search.mcts.Evaluator` over this network, observing
        positions with ``kernel``; EvaluatorError when the kernel's observations or actions are
        not the network's."""
        return NetworkEvaluator(self, kernel)

    def weights(self) -> dict[str, Any]:
        """The weights and batch-norm statistics as contiguous CPU tensors, by name."""
        return {k: v.detach().cpu().contiguous() for k, v in self.module.state_dict().items()}


def masked_softmax(logits: np.ndarray, legal: np.ndarray) -> np.ndarray:
    """Softmax of ``logits`` over the ``legal`` actions of each row (zero elsewhere)."""
    masked = np.where(legal, logits.astype(np.float64), -np.inf)
    top = masked.max(axis=1, keepdims=True)
    top = np.where(np.isfinite(top), top, 0.0)
    e = np.where(legal, np.exp(masked - top), 0.0)
    total = e.sum(axis=1, keepdims=True)
    return np.divide(e, total, out=np.zeros_like(e), where=total > 0)


class NetworkEvaluator:
    """The network as a search evaluator: priors (softmax over the legal actions) and values
    of a batch of positions given by their state words. ``calls`` and ``positions`` count the
    batches and positions evaluated (the benchmark reads them)."""

    def __init__(self, network: Network, kernel: Kernel | None = None) -> None:
        from boardlab.search.mcts import EvaluatorError  # compiled code: the search is loaded to use one

        shape = network.shape
        if kernel is not None and (tuple(kernel.obs_shape), kernel.num_actions) != (
            tuple(shape.obs_shape),
            shape.num_actions,
        ):
            raise EvaluatorError(
                f"a network for {shape.game} (observations {tuple(shape.obs_shape)}, "
                f"{shape.num_actions} actions) cannot evaluate positions of {kernel.name} "
                f"(observations {tuple(kernel.obs_shape)}, {kernel.num_actions} actions)"
            )
        self.network = network
        self.kernel = kernel
        self.calls = 0
        self.positions = 0

    def evaluate(self, words: np.ndarray, legal: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        if self.kernel is None:
            raise ValueError("this evaluator needs the game's kernel to observe positions")
        self.calls += 1
        self.positions += len(words)
        logits, values = self.network.infer(observe_batch(self.kernel, words))
        return masked_softmax(logits, legal), np.clip(values.astype(np.float64), -1.0, 1.0)


# --- the file ---------------------------------------------------------------------------------


def network_bytes(network: Network, optimizer: dict[str, Any] | None = None, state: Any = None) -> bytes:
    """The safetensors bytes of ``network`` (and optionally an optimiser's tensors, by name, and
    a run's JSON ``state``), with the checksum of its tensors (:mod:`boardlab.models.digest`)."""
    require_torch()
    from safetensors.torch import save

    tensors = network.weights()
    for name, tensor in (optimizer or {}).items():
        tensors[OPTIMIZER_PREFIX + name] = tensor.detach().cpu().contiguous()
    meta: dict[str, Any] = {"format": FORMAT, "version": VERSION, **network.shape.to_json()}
    if state is not None:
        meta["state"] = state
    return with_digest(bytes(save(tensors, metadata={METADATA_KEY: json.dumps(meta)})))


def save_network(
    path: Path | str, network: Network, optimizer: dict[str, Any] | None = None, state: Any = None
) -> Path:
    """Write ``network`` (see :func:`network_bytes`) to ``path`` atomically."""
    return atomic_write_bytes(path, network_bytes(network, optimizer, state))


@dataclass
class NetworkFile:
    """What a network file holds: the network, the optimiser's tensors (a checkpoint's) and the
    run's JSON state (None in a plain model file)."""

    network: Network
    optimizer: dict[str, Any]
    state: Any


def read_network(path: Path | str, game: Any = None, mode: str = "") -> NetworkFile:
    """Read a network file, checked whole; with ``game``, NetworkMismatchError unless the
    network was made for it. NetworkFileError for anything unreadable or inconsistent.
    ``mode`` is the network's inference mode (see :class:`Network`; the fastest installed by
    default)."""
    path = Path(path)
    try:
        if path.stat().st_size > MAX_FILE_BYTES:
            raise NetworkFileError(f"{path} is larger than a network file can be")
        data = path.read_bytes()
    except FileNotFoundError:
        raise NetworkFileError(f"model file {path} does not exist") from None
    except IsADirectoryError:
        raise NetworkFileError(f"model file {path} is a folder") from None
    except OSError as error:
        raise NetworkFileError(f"cannot read {path}: {error.strerror or error}") from None
    return parse_network(data, str(path), game, mode)


def parse_network(data: bytes, where: str, game: Any = None, mode: str = "") -> NetworkFile:
    """:func:`read_network` of bytes already read (``where`` names them in errors)."""
    require_torch()
    shape, state = _header(data, where)
    damage = digest_problem(data)
    if damage is not None:
        raise NetworkFileError(f"{where}: {damage}")
    if game is not None and not shape.fits(game):
        raise NetworkMismatchError(f"{where} is a network for {shape.game}, not {game.spec}")
    from safetensors.torch import load

    try:
        tensors = load(data)
    except Exception as error:  # safetensors raises its own error types for damaged files
        raise NetworkFileError(f"{where} is not a readable safetensors file ({_short(error)})") from None
    optimizer = {k[len(OPTIMIZER_PREFIX) :]: v for k, v in tensors.items() if k.startswith(OPTIMIZER_PREFIX)}
    weights = {k: v for k, v in tensors.items() if not k.startswith(OPTIMIZER_PREFIX)}
    network = Network(shape, mode=mode)
    expected = network.module.state_dict()
    if set(weights) != set(expected):
        missing = sorted(set(expected) - set(weights))[:3]
        raise NetworkFileError(f"{where}: the weights do not fit its metadata (missing {missing or 'none'})")
    for name, tensor in weights.items():
        if tuple(tensor.shape) != tuple(expected[name].shape) or tensor.dtype != expected[name].dtype:
            raise NetworkFileError(
                f"{where}: weight {name!r} has shape {tuple(tensor.shape)}, not the metadata's"
            )
        if tensor.is_floating_point() and not bool(tensor.isfinite().all()):
            raise NetworkFileError(f"{where}: weight {name!r} is not finite")
    network.module.load_state_dict(weights)
    network.module.eval()
    return NetworkFile(network, optimizer, state)


def _header(data: bytes, where: str) -> tuple[NetworkShape, Any]:
    """The shape and state in a safetensors file's metadata, checked."""
    if len(data) < 8:
        raise NetworkFileError(f"{where} is truncated: no safetensors header")
    size = int.from_bytes(data[:8], "little")
    if size <= 0 or 8 + size > len(data):
        raise NetworkFileError(f"{where} is truncated or not a safetensors file")
    try:
        header = json.loads(data[8 : 8 + size])
        meta = json.loads(header["__metadata__"][METADATA_KEY])
    except (UnicodeDecodeError, json.JSONDecodeError, KeyError, TypeError):
        raise NetworkFileError(f"{where} is not a boardlab network file (no metadata)") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        if isinstance(meta, dict) and meta.get("format") == EVALNET_FORMAT:
            raise NetworkFileError(
                f"{where} is an evaluation network (alphabeta:eval=net:), not an AlphaZero network "
                "(train one with boardlab train alphazero)"
            )
        raise NetworkFileError(f"{where} is not a boardlab network file")
    if meta.get("version") != VERSION:
        raise NetworkFileError(f"{where} has network format version {meta.get('version')!r}, not {VERSION}")
    try:
        obs = meta["obs_shape"]
        if not (
            isinstance(obs, list)
            and len(obs) == 3
            and all(isinstance(x, int) and 0 < x < 10_000 for x in obs)
        ):
            raise ValueError("obs_shape")
        fields = {k: meta[k] for k in ("game", "kernel", "num_actions", "blocks", "channels")}
        if not isinstance(fields["game"], str) or not isinstance(fields["kernel"], str):
            raise ValueError("game")
        for k in ("num_actions", "blocks", "channels"):
            if not isinstance(fields[k], int) or isinstance(fields[k], bool) or not 0 <= fields[k] < 100_000:
                raise ValueError(k)
        also = meta.get("also", [])
        if not (isinstance(also, list) and len(also) < 100 and all(isinstance(a, str) for a in also)):
            raise ValueError("also")
        shape = NetworkShape(obs_shape=(obs[0], obs[1], obs[2]), also=tuple(also), **fields)
    except (KeyError, ValueError) as error:
        raise NetworkFileError(f"{where}: its metadata is damaged ({_short(error)})") from None
    return shape, meta.get("state")


def _short(error: BaseException) -> str:
    text = str(error).splitlines()[0] if str(error) else type(error).__name__
    return text[:120]


def read_state(path: Path | str) -> Any:
    """The JSON state in a checkpoint's metadata (None in a plain model file), without the weights."""
    return read_header(path)[1]


def read_header(path: Path | str) -> tuple[NetworkShape, Any]:
    """The shape and the JSON state (None in a plain model file) of a network file, read from
    its metadata alone (no torch needed); NetworkFileError when it cannot be read."""
    path = Path(path)
    try:
        with path.open("rb") as f:
            head = f.read(8)
            size = int.from_bytes(head, "little") if len(head) == 8 else 0
            if size <= 0 or size > MAX_FILE_BYTES:
                raise NetworkFileError(f"{path} is truncated or not a safetensors file")
            data = head + f.read(size)
    except FileNotFoundError:
        raise NetworkFileError(f"model file {path} does not exist") from None
    except OSError as error:
        raise NetworkFileError(f"cannot read {path}: {error.strerror or error}") from None
    return _header(data, str(path))


def parameter_count(network: Network) -> int:
    """Trainable parameters of a network."""
    return int(sum(math.prod(p.shape) for p in network.module.parameters()))


__all__ = [
    "Network",
    "NetworkEvaluator",
    "NetworkFile",
    "NetworkFileError",
    "NetworkMismatchError",
    "NetworkShape",
    "TorchMissingError",
    "build_module",
    "masked_softmax",
    "network_bytes",
    "parameter_count",
    "parse_network",
    "read_header",
    "read_network",
    "read_state",
    "require_torch",
    "save_network",
]
