"""The errors of model files, apart from :mod:`boardlab.models.table`'s compiled code so that
code catching them (the command line) loads without numba."""

from __future__ import annotations

from typing import Any

from boardlab.core.inputs import InputFileError


class ModelFileError(InputFileError):
    """A model file that cannot be used: unreadable, not a boardlab table, or inconsistent."""


class ModelMismatchError(ModelFileError):
    """A sound model file made for another game, method, version or action count."""


def check_model_format(header: Any, where: str, what: str, format_name: str, version: int) -> None:
    """ModelFileError unless ``header`` is a JSON object of the format ``format_name`` (a
    boardlab ``what``, e.g. ``tabular model``); ModelMismatchError when it is one of another
    ``version``. ``where`` names the file in the messages."""
    if not isinstance(header, dict) or header.get("format") != format_name:
        raise ModelFileError(f"{where} is not a boardlab {what} (format {format_name!r} expected)")
    if header.get("version") != version:
        raise ModelMismatchError(
            f"{where} is a version {repr(header.get('version'))[:20]} model; "
            f"this boardlab reads version {version}"
        )
