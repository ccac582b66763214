"""A checksum of a safetensors file's tensors, kept in the file's own metadata.

A safetensors file is an 8-byte header length, a JSON header (each tensor's dtype, shape and
byte range, and a ``__metadata__`` object of strings) and the tensors' bytes. The format has no
checksum: bytes overwritten with other finite values load and play. boardlab's network files
(:mod:`boardlab.models.network`, :mod:`boardlab.models.evalnet`) carry the SHA-256 of the
tensor bytes, everything after the header, under :data:`DIGEST_KEY` in ``__metadata__``, as
the Quixo tables carry CRC-32s of their payloads. Readers check it when it is there; a file
written before the checksum existed has none and is read as before.

:func:`with_digest` adds it to a file's bytes by rewriting the header alone, so the tensor
bytes stay exactly as they were (a shipped file re-stamped keeps its weights bit for bit).
"""

from __future__ import annotations

import hashlib
import json

DIGEST_KEY = "boardlab_sha256"
"""The ``__metadata__`` entry holding the hex SHA-256 of the tensor bytes."""
MAX_HEADER_BYTES = 100 << 20
"""The largest header read (the safetensors library's own limit)."""


def _split(data: bytes) -> tuple[dict[str, object], int]:
    """The header of safetensors ``data`` and where its tensor bytes start; ValueError when the
    bytes are not a safetensors file."""
    if len(data) < 8:
        raise ValueError("no safetensors header")
    size = int.from_bytes(data[:8], "little")
    if size <= 0 or size > MAX_HEADER_BYTES or 8 + size > len(data):
        raise ValueError("truncated or not a safetensors file")
    header = json.loads(data[8 : 8 + size])
    if not isinstance(header, dict):
        raise ValueError("the safetensors header is not a JSON object")
    return header, 8 + size


def tensor_digest(data: bytes) -> str:
    """The hex SHA-256 of the tensor bytes of safetensors ``data`` (after its header)."""
    _, start = _split(data)
    return hashlib.sha256(memoryview(data)[start:]).hexdigest()


def with_digest(data: bytes) -> bytes:
    """Safetensors ``data`` with :data:`DIGEST_KEY` set in its metadata to the digest of its
    tensor bytes; only the header changes (padded with spaces to 8 bytes, as the library
    writes it). ValueError when ``data`` is not a safetensors file."""
    header, start = _split(data)
    metadata = header.get("__metadata__") or {}
    if not isinstance(metadata, dict):
        raise ValueError("the safetensors metadata is not a JSON object")
    tensors = memoryview(data)[start:]
    header["__metadata__"] = {**metadata, DIGEST_KEY: hashlib.sha256(tensors).hexdigest()}
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    return len(text).to_bytes(8, "little") + text + bytes(tensors)


def digest_problem(data: bytes) -> str | None:
    """Why the tensor bytes of safetensors ``data`` do not match the checksum its metadata
    holds, or None: they match, there is none (a file written before the checksum), or the
    header cannot be read (which the reader's own checks report)."""
    try:
        header, start = _split(data)
    except (ValueError, UnicodeDecodeError, RecursionError):
        return None
    metadata = header.get("__metadata__")
    expected = metadata.get(DIGEST_KEY) if isinstance(metadata, dict) else None
    if expected is None:
        return None
    if expected != hashlib.sha256(memoryview(data)[start:]).hexdigest():
        return "its tensors do not match the checksum in its metadata (the file is damaged)"
    return None


__all__ = ["DIGEST_KEY", "digest_problem", "tensor_digest", "with_digest"]
