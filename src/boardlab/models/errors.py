"""The errors of model files, apart from :mod:`boardlab.models.table`'s compiled code so that
code catching them (the command line) loads without numba."""

from __future__ import annotations

from boardlab.core.inputs import InputFileError


class ModelFileError(InputFileError):
    """A model file that cannot be used: unreadable, not a boardlab table, or inconsistent."""


class ModelMismatchError(ModelFileError):
    """A sound model file made for another game, method, version or action count."""
