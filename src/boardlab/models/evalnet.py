"""Value networks for alpha-beta's leaves (NNUE-style): the file format, its loader and the
compiled forward pass.

A network values a position for its side to move from the two state words of the game's
kernel, read as cell planes: input ``c`` is cell ``c`` of the mover's word, input ``cells + c``
cell ``c`` of the opponent's. For games whose words are cell masks (Quixo, Tic-Tac-Toe) these
are exactly the observation planes of :meth:`boardlab.games.base.Kernel.observe`, flattened;
:func:`check_words_are_planes` verifies that for a kernel before a network is used on it.

Two hidden layers with clipped activations (``clamp(x, 0, 1)``, as NNUE's ClippedReLU) lead to
a scalar: the logit of the side to move winning. In the search that logit is multiplied by
``scale`` (100 for Quixo, the units of ``tuned``, so that a contempt means the same with either
evaluation). A network may be a correction of one of the game's evaluations (``base``, e.g.
``tuned``): its output is then added to that evaluation's value over ``scale``.

The first layer is evaluated sparsely (a row of weights per occupied cell, as an NNUE
accumulator), the rest densely, in float32; a leaf is recomputed, not updated incrementally
(``benchmarks/evalnet_speed.py`` measures what a leaf costs).

Files are safetensors (written and read with the safetensors library's NumPy API, never
pickle): the six float32 tensors ``w1 (inputs, h1)``, ``b1``, ``w2 (h1, h2)``, ``b2``,
``w3 (h2,)``, ``b3 (1,)`` and, in the header's ``__metadata__``, ``boardlab`` = a JSON object
naming the format, the game, board size, rulebooks and kernels it was trained for, the layer
sizes and how it was trained, and the SHA-256 of the tensor bytes
(:mod:`boardlab.models.digest`; a file without it, written before it, is read too). A file
that is truncated, corrupt (its tensors do not match its checksum), of another game or of the
wrong size is refused with :class:`EvalNetError` naming the file and what is wrong.
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import struct
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from boardlab.core.files import atomic_write_bytes
from boardlab.core.inputs import InputFileError, read_bytes, short_reason
from boardlab.games.base import Kernel
from boardlab.games.jit import cached_njit
from boardlab.models.digest import digest_problem, with_digest
from boardlab.models.formats import ALPHAZERO_FORMAT, EVALNET_FORMAT

FORMAT = EVALNET_FORMAT
VERSION = 1
TENSORS = ("w1", "b1", "w2", "b2", "w3", "b3")
MAX_FILE_BYTES = 64 << 20
"""The largest network file read (a shipped one takes a few kilobytes)."""
MAX_HEADER_BYTES = 1 << 20
MAX_WIDTH = 4096
SHIPPED = {"quixo5": "quixo5-evalnet.safetensors", "quixo5-course": "quixo5-evalnet.safetensors"}
"""The network shipped for each kernel (package data beside this module)."""


class EvalNetError(ValueError):
    """A network file that cannot be used: unreadable, damaged, or made for another board."""


class NoShippedNetwork(EvalNetError):
    """No network is shipped for a game (its agent's message says how to train one)."""


@dataclass(frozen=True)
class EvalNet:
    """A value network and what it was made for.

    ``kernels`` names the kernels whose positions it values (``quixo5``, ``quixo5-course``);
    ``scale`` turns its logit into the search's units; ``trained`` records how it was made
    (positions, held-out log-losses, the command).
    """

    game: str
    size: int
    rules: tuple[str, ...]
    kernels: tuple[str, ...]
    cells: int
    w1: np.ndarray
    b1: np.ndarray
    w2: np.ndarray
    b2: np.ndarray
    w3: np.ndarray
    b3: np.ndarray
    scale: float = 100.0
    base: str = ""
    trained: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        problem = _shape_problem(self)
        if problem:
            raise EvalNetError(f"network: {problem}")

    @property
    def inputs(self) -> int:
        """Input features: two planes of ``cells``."""
        return 2 * self.cells

    @property
    def layers(self) -> tuple[int, int, int, int]:
        """(inputs, first hidden, second hidden, outputs)."""
        return (self.inputs, self.w1.shape[1], self.w2.shape[1], 1)

    def metadata(self) -> dict[str, Any]:
        """The JSON object stored in the file's header."""
        return {
            "format": FORMAT,
            "version": VERSION,
            "game": self.game,
            "size": self.size,
            "rules": list(self.rules),
            "kernels": list(self.kernels),
            "cells": self.cells,
            "layers": list(self.layers),
            "activation": "clamp(0,1)",
            "output": "logit of the side to move winning",
            "scale": self.scale,
            "base": self.base,
            "trained": self.trained,
        }

    def tensors(self) -> dict[str, np.ndarray]:
        """The weights by name, float32."""
        return {name: np.ascontiguousarray(getattr(self, name), dtype=np.float32) for name in TENSORS}

    def save(self, path: str | Path) -> Path:
        """Write the network as safetensors, atomically."""
        path = Path(path)
        atomic_write_bytes(path, safetensors_bytes(self.tensors(), {"boardlab": json.dumps(self.metadata())}))
        return path

    def logits(self, me: np.ndarray, opp: np.ndarray, kernel: Kernel | None = None) -> np.ndarray:
        """The network's logits of positions given as word arrays (numpy, float32 arithmetic),
        plus its ``base`` evaluation's (read from ``kernel``) when it has one."""
        x = word_features(me, opp, self.cells)
        h1 = np.clip(x @ self.w1 + self.b1, 0.0, 1.0)
        h2 = np.clip(h1 @ self.w2 + self.b2, 0.0, 1.0)
        out = np.asarray(h2 @ self.w3 + self.b3[0], dtype=np.float64)
        if self.base:
            if kernel is None:
                raise EvalNetError(f"the network corrects {self.base}: its logits need the game's kernel")
            out += base_logits(kernel, self.base_id(kernel), me, opp, self.scale)
        return out

    def base_id(self, kernel: Kernel) -> int:
        """The id of the ``base`` evaluation in ``kernel`` (-1 for none); EvalNetError if it lacks it."""
        if not self.base:
            return -1
        if self.base not in kernel.evaluations:
            raise EvalNetError(f"the network corrects {self.base!r}, which {kernel.name} does not have")
        return kernel.evaluations.index(self.base)

    def compiled(self, scale: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
        """The network as :func:`forward_words` reads it: one flat float32 array (a header of the
        layer sizes, then the tensors, the output layer times ``scale``) and scratch memory for
        the hidden layers. Two arrays, not seven: the search passes ``ctx`` by value at every
        call, and each array in it costs; the scratch apart, so that its writes cannot alias
        the weights (which would keep the loops from being vectorised)."""
        t = self.tensors()
        n1, n2 = t["b1"].shape[0], t["b2"].shape[0]
        header = np.array([self.inputs, n1, n2, 0], dtype=np.float32)
        parts = [header, t["w1"].ravel(), t["b1"], t["w2"].ravel(), t["b2"]]
        parts += [t["w3"] * np.float32(scale), t["b3"] * np.float32(scale)]
        flat = np.ascontiguousarray(np.concatenate(parts), dtype=np.float32)
        return flat, np.zeros(n1 + n2, np.float32)

    def search_ctx(self, kernel: Kernel) -> tuple[Any, ...]:
        """``kernel.ctx`` followed by :meth:`compiled` in the search's units, as
        :func:`net_evaluation` reads it; one per search thread (it holds scratch memory)."""
        check_fits(self, kernel)
        return (*kernel.ctx, *self.compiled(self.scale))


def _shape_problem(net: EvalNet) -> str:
    if not 1 <= net.cells <= 62:
        return f"{net.cells} cells per plane; a state word holds 1 to 62"
    arrays = {name: np.asarray(getattr(net, name)) for name in TENSORS}
    h1 = arrays["w1"].shape[1] if arrays["w1"].ndim == 2 else -1
    h2 = arrays["w2"].shape[1] if arrays["w2"].ndim == 2 else -1
    expected = {
        "w1": (net.inputs, h1),
        "b1": (h1,),
        "w2": (h1, h2),
        "b2": (h2,),
        "w3": (h2,),
        "b3": (1,),
    }
    for name, shape in expected.items():
        if arrays[name].shape != shape:
            return f"tensor {name} has shape {arrays[name].shape}, expected {shape}"
        if not np.all(np.isfinite(arrays[name])):
            return f"tensor {name} holds a value that is not finite"
    if not (1 <= h1 <= MAX_WIDTH and 1 <= h2 <= MAX_WIDTH):
        return f"hidden layers of {h1} and {h2}; each must have 1 to {MAX_WIDTH} units"
    if not (math.isfinite(net.scale) and net.scale > 0):
        return f"scale {net.scale!r} must be a positive number"
    return ""


def base_logits(kernel: Kernel, eval_id: int, me: np.ndarray, opp: np.ndarray, scale: float) -> np.ndarray:
    """A game evaluation of each position, over ``scale`` (Quixo's ``tuned``: its logit)."""
    values = [
        kernel.evaluate(kernel.ctx, np.int64(a), np.int64(b), eval_id) for a, b in zip(me, opp, strict=True)
    ]
    return np.array(values, dtype=np.float64) / scale


def word_features(me: np.ndarray, opp: np.ndarray, cells: int) -> np.ndarray:
    """The input matrix (positions x 2 * cells, float32) of positions given as word arrays."""
    shifts = np.arange(cells, dtype=np.int64)
    own = (np.asarray(me, dtype=np.int64)[:, None] >> shifts) & 1
    theirs = (np.asarray(opp, dtype=np.int64)[:, None] >> shifts) & 1
    return np.concatenate([own, theirs], axis=1).astype(np.float32)


def kernel_cells(kernel: Kernel) -> int:
    """Cells per observation plane of a kernel."""
    return int(np.prod(kernel.obs_shape[1:]))


def check_words_are_planes(kernel: Kernel, samples: int = 64, seed: int = 0) -> None:
    """EvalNetError unless the kernel's two state words are its two observation planes, cell by
    cell (checked on random positions), which the networks' features assume."""
    if len(kernel.obs_shape) != 3 or kernel.obs_shape[0] != 2:
        raise EvalNetError(f"{kernel.name}: networks read two observation planes; it has {kernel.obs_shape}")
    cells = kernel_cells(kernel)
    rng = np.random.default_rng(seed)
    out = np.zeros(kernel.obs_shape, dtype=np.float32)
    for _ in range(samples):
        owner = rng.integers(0, 3, cells)
        me = int(sum(1 << c for c in range(cells) if owner[c] == 1))
        opp = int(sum(1 << c for c in range(cells) if owner[c] == 2))
        kernel.observe(kernel.ctx, np.int64(me), np.int64(opp), out)
        planes = out.reshape(2, cells)
        if not np.array_equal(
            planes, word_features(np.array([me]), np.array([opp]), cells).reshape(2, cells)
        ):
            raise EvalNetError(f"{kernel.name}: its state words are not its observation planes")


def check_fits(net: EvalNet, kernel: Kernel) -> None:
    """EvalNetError unless ``net`` was made for ``kernel`` (game, board size, rulebook)."""
    if kernel.name not in net.kernels:
        raise EvalNetError(
            f"the network is for {', '.join(net.kernels)} ({net.game} {net.size}x{net.size}, rules "
            f"{'/'.join(net.rules)}), not {kernel.name}"
        )
    if kernel_cells(kernel) != net.cells:
        raise EvalNetError(f"the network reads {net.cells} cells; {kernel.name} has {kernel_cells(kernel)}")
    net.base_id(kernel)


# --- safetensors ----------------------------------------------------------------------------------


def safetensors_bytes(tensors: dict[str, np.ndarray], metadata: dict[str, str]) -> bytes:
    """The safetensors encoding of float32 ``tensors`` with string ``metadata`` and the checksum
    of the tensors (:mod:`boardlab.models.digest`)."""
    from safetensors.numpy import save

    arrays = {name: np.ascontiguousarray(a, dtype="<f4") for name, a in tensors.items()}
    return with_digest(save(arrays, metadata=metadata))


def read_safetensors(data: bytes, where: str) -> tuple[dict[str, np.ndarray], dict[str, str]]:
    """The float32 tensors and the metadata of a safetensors file's bytes; EvalNetError when
    they are not a whole, well-formed file, or its tensors do not match its checksum."""
    from safetensors import SafetensorError
    from safetensors.numpy import load

    metadata = _metadata(data, where)
    _refuse_alphazero(metadata, where)  # before its tensors, whose types would be named instead
    damage = digest_problem(data)
    if damage is not None:
        raise EvalNetError(f"{where}: {damage}")
    try:
        tensors = load(data)
    except (SafetensorError, ValueError, TypeError) as error:
        raise EvalNetError(f"{where}: damaged safetensors file ({short_reason(error)})") from None
    for name, tensor in tensors.items():
        if tensor.dtype != np.float32:
            raise EvalNetError(f"{where}: tensor {name!r} is {tensor.dtype}; networks are stored as F32")
    return tensors, metadata


def _refuse_alphazero(metadata: dict[str, str], where: str) -> None:
    """EvalNetError naming an AlphaZero network file for what it is (its metadata says so)."""
    try:
        meta = json.loads(metadata.get("boardlab", "null"))
    except (json.JSONDecodeError, RecursionError):
        return  # damaged metadata: the reader says so
    if isinstance(meta, dict) and meta.get("format") == ALPHAZERO_FORMAT:
        raise EvalNetError(
            f"{where} is an AlphaZero network, not an evaluation network (train one with boardlab "
            "train evalnet)"
        )


def _metadata(data: bytes, where: str) -> dict[str, str]:
    """The string metadata of a safetensors file's header, checked before its tensors are read."""
    if len(data) < 8:
        raise EvalNetError(f"{where}: not a safetensors file (only {len(data)} bytes)")
    (size,) = struct.unpack("<Q", data[:8])
    if size > MAX_HEADER_BYTES or 8 + size > len(data):
        raise EvalNetError(f"{where}: truncated or not a safetensors file (header of {size} bytes)")
    try:
        header = json.loads(data[8 : 8 + size].decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as error:
        raise EvalNetError(f"{where}: damaged safetensors header ({type(error).__name__})") from None
    metadata = header.get("__metadata__", {}) if isinstance(header, dict) else None
    if not isinstance(metadata, dict) or not all(isinstance(v, str) for v in metadata.values()):
        raise EvalNetError(f"{where}: its metadata must map names to strings")
    return metadata


# --- loading ---------------------------------------------------------------------------------------


def load_evalnet(path: str | Path) -> EvalNet:
    """The network in a safetensors file written by :meth:`EvalNet.save`; EvalNetError naming the
    file and what is wrong when it cannot be used."""
    try:  # a regular file of a sane size, proven before it is read (a FIFO would block)
        data = read_bytes(path, "network file", MAX_FILE_BYTES)
    except InputFileError as error:
        raise EvalNetError(str(error)) from None
    return _cached_from_bytes(data, str(path))


@functools.lru_cache(maxsize=16)
def _cached_from_bytes(data: bytes, where: str) -> EvalNet:
    return evalnet_from_bytes(data, where)


def evalnet_from_bytes(data: bytes, where: str = "network") -> EvalNet:
    """:func:`load_evalnet` of a file's bytes."""
    tensors, metadata = read_safetensors(data, where)
    try:
        meta = json.loads(metadata["boardlab"])
    except KeyError:
        raise EvalNetError(f"{where}: not a boardlab network (no 'boardlab' metadata)") from None
    except (json.JSONDecodeError, RecursionError) as error:
        raise EvalNetError(f"{where}: damaged metadata ({type(error).__name__})") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise EvalNetError(f"{where}: not a boardlab network (format is not {FORMAT!r})")
    if meta.get("version") != VERSION:
        raise EvalNetError(
            f"{where}: network format version {meta.get('version')!r}; this boardlab reads {VERSION}"
        )
    missing = [name for name in TENSORS if name not in tensors]
    if missing:
        raise EvalNetError(f"{where}: tensors missing: {', '.join(missing)}")
    try:
        net = EvalNet(
            game=str(meta["game"]),
            size=int(meta["size"]),
            rules=tuple(str(r) for r in meta["rules"]),
            kernels=tuple(str(k) for k in meta["kernels"]),
            cells=int(meta["cells"]),
            scale=float(meta["scale"]),
            base=str(meta.get("base", "")),
            trained=dict(meta.get("trained", {})),
            **{name: tensors[name] for name in TENSORS},
        )
    except (KeyError, TypeError, ValueError, OverflowError) as error:
        if isinstance(error, EvalNetError):
            raise EvalNetError(f"{where}: {str(error).removeprefix('network: ')}") from None
        raise EvalNetError(f"{where}: damaged metadata ({error!r})") from None
    if list(net.layers) != meta.get("layers"):
        raise EvalNetError(
            f"{where}: its metadata says layers {meta.get('layers')}, its tensors {list(net.layers)}"
        )
    return net


def shipped_path(kernel: Kernel) -> Path:
    """The shipped network file for a kernel; NoShippedNetwork when none is shipped."""
    name = SHIPPED.get(kernel.name)
    if name is None:
        raise NoShippedNetwork(
            f"no network is shipped for {kernel.name} (shipped: {', '.join(sorted(SHIPPED))})"
        )
    return Path(str(resources.files("boardlab.models").joinpath(name)))


def ships_for(kernel: Kernel) -> bool:
    """True when a network is shipped for the kernel (its board size and rulebook)."""
    return kernel.name in SHIPPED


def net_for(kernel: Kernel, path: str = "") -> EvalNet:
    """The network of ``path`` (the shipped one for the kernel when empty), checked to fit it."""
    net = load_evalnet(path or shipped_path(kernel))
    check_fits(net, kernel)
    check_words_are_planes(kernel)
    return net


def file_digest(path: str | Path) -> str:
    """A short content digest of a file (for reports)."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()[:12]


# --- the compiled forward pass ---------------------------------------------------------------------


_DE_BRUIJN = np.array(
    [
        0,
        1,
        28,
        2,
        29,
        14,
        24,
        3,
        30,
        22,
        20,
        15,
        25,
        17,
        4,
        8,
        31,
        27,
        13,
        23,
        21,
        19,
        16,
        7,
        26,
        12,
        18,
        6,
        11,
        5,
        10,
        9,
    ],
    dtype=np.int64,
)
"""The index of a lone bit below 2**32 from its de Bruijn product (no branch per cell)."""


@cached_njit(inline="always")
def _bit_index(low):  # type: ignore[no-untyped-def]
    if low >= 1 << 32:
        return 32 + _DE_BRUIJN[(((low >> 32) * 0x077CB531) & 0xFFFFFFFF) >> 27]
    return _DE_BRUIJN[((low * 0x077CB531) & 0xFFFFFFFF) >> 27]


HEADER = 4
"""Floats before the tensors in :meth:`EvalNet.compiled`: inputs, first and second hidden units, 0."""


@cached_njit(inline="always")
def _accumulate(h1, flat, offset, n1, bits):  # type: ignore[no-untyped-def]
    # add the weight row of each set bit: as many rows as cubes, no test per empty cell
    while bits:
        low = bits & -bits
        start = offset + _bit_index(low) * n1
        row = flat[start : start + n1]  # a view: indices from 0 keep the loop vectorised
        for j in range(n1):
            h1[j] += row[j]
        bits ^= low


@cached_njit(nogil=True, fastmath=True)
def forward_words(flat, scratch, me, opp):  # type: ignore[no-untyped-def]
    """The network's output for one position given by its two words (float32 arithmetic);
    ``flat`` is :meth:`EvalNet.compiled`.

    The first layer adds the weight row of each occupied cell (an accumulator, as in NNUE);
    its rows hold the mover's cells first, then the opponent's. The hidden layers live in
    ``scratch``, so that a leaf allocates nothing (an allocation per leaf cost about as much as
    the arithmetic); one search thread, one scratch.
    """
    inputs = int(flat[0])
    n1 = int(flat[1])
    n2 = int(flat[2])
    w1 = HEADER
    b1 = w1 + inputs * n1
    w2 = b1 + n1
    b2 = w2 + n1 * n2
    w3 = b2 + n2
    b3 = w3 + n2
    h1 = scratch[:n1]
    h2 = scratch[n1 : n1 + n2]
    bias1 = flat[b1 : b1 + n1]
    for j in range(n1):
        h1[j] = bias1[j]
    _accumulate(h1, flat, w1, n1, me)
    _accumulate(h1, flat, w1 + (inputs // 2) * n1, n1, opp)
    bias2 = flat[b2 : b2 + n2]
    for k in range(n2):
        h2[k] = bias2[k]
    for j in range(n1):
        a = min(max(h1[j], np.float32(0.0)), np.float32(1.0))
        row = flat[w2 + j * n2 : w2 + (j + 1) * n2]
        for k in range(n2):
            h2[k] += a * row[k]
    out = flat[w3 : w3 + n2]
    total = flat[b3]
    for k in range(n2):
        total += min(max(h2[k], np.float32(0.0)), np.float32(1.0)) * out[k]
    return float(total)


@cached_njit
def forward_batch(flat, scratch, me, opp):  # type: ignore[no-untyped-def]
    """:func:`forward_words` of arrays of positions."""
    out = np.empty(me.shape[0])
    for i in range(me.shape[0]):
        out[i] = forward_words(flat, scratch, me[i], opp[i])
    return out


_EVALUATIONS: dict[tuple[str, int, bool], Any] = {}


def net_evaluation(kernel: Kernel, net: EvalNet | None = None) -> Any:
    """A compiled leaf evaluation (the signature of ``kernel.evaluate``) reading a network from
    ``ctx`` after the kernel's tables (:meth:`EvalNet.search_ctx`). With a network that
    corrects a base evaluation, the search passes that evaluation's id (``eval_id``) and its
    value is added. One per kernel and kind, so that every network for a game shares one
    compiled search."""
    first = len(kernel.ctx)
    corrects = net is not None and bool(net.base)
    key = (kernel.name, first, corrects)
    if key not in _EVALUATIONS:
        at, scratch_at = first, first + 1
        base = kernel.evaluate

        if corrects:

            @cached_njit(nogil=True)
            def evaluate(ctx, me, opp, eval_id):  # type: ignore[no-untyped-def]
                net = forward_words(ctx[at], ctx[scratch_at], me, opp)
                return base(ctx, me, opp, eval_id) + net

        else:

            @cached_njit(nogil=True)
            def evaluate(ctx, me, opp, eval_id):  # type: ignore[no-untyped-def]
                return forward_words(ctx[at], ctx[scratch_at], me, opp)

        _EVALUATIONS[key] = evaluate
    return _EVALUATIONS[key]


__all__ = [
    "FORMAT",
    "SHIPPED",
    "EvalNet",
    "EvalNetError",
    "NoShippedNetwork",
    "base_logits",
    "check_fits",
    "check_words_are_planes",
    "evalnet_from_bytes",
    "file_digest",
    "forward_batch",
    "forward_words",
    "kernel_cells",
    "load_evalnet",
    "net_evaluation",
    "net_for",
    "read_safetensors",
    "safetensors_bytes",
    "shipped_path",
    "word_features",
]
