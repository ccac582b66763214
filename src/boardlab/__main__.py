"""``python -m boardlab ...``: the same as the ``boardlab`` command."""

from boardlab.ui.cli import app

if __name__ == "__main__":
    app(prog_name="boardlab")
