"""Running the app with uvicorn: what ``boardlab serve`` calls."""

from __future__ import annotations

import contextlib
import socket
import sys
from collections.abc import Callable
from typing import Any

from boardlab.core.processes import main_module_problem
from boardlab.ui.web.app import ServeSettings, create_app

STARTUP_FAILURE = 3
"""uvicorn's exit status when the app could not start."""


class ServeError(ValueError):
    """A server that cannot start: the address is taken, the store is missing, a program read
    from standard input (whose worker processes could not start)."""


def check_address(host: str, port: int) -> None:
    """ServeError when ``host:port`` cannot be bound now."""
    try:
        with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind((host, port))
    except (OSError, UnicodeError, TypeError) as err:  # a host name that cannot even be encoded
        shown = host if len(host) <= 60 else host[:57] + "..."
        reason = err.strerror if isinstance(err, OSError) and err.strerror else "not a host name"
        raise ServeError(f"cannot listen on {shown}:{port}: {reason}") from None


def announcing_server(config: Any, announce: Callable[[], None] | None) -> Any:
    """A uvicorn server that calls ``announce`` once it listens: its app started (the worker
    processes take seconds) and its socket bound, so the address it says can be opened."""
    import uvicorn

    class Announcing(uvicorn.Server):
        async def startup(self, sockets: Any = None) -> None:
            await super().startup(sockets)
            if self.started and not self.should_exit and announce is not None:  # not if stopping
                announce()

    return Announcing(config)


def serve(
    settings: ServeSettings,
    host: str = "127.0.0.1",
    port: int = 8000,
    log_level: str = "warning",
    announce: Callable[[], None] | None = None,
) -> None:
    """Serve the page and the API at ``host:port`` until interrupted; ``announce`` is called
    once the server listens."""
    import uvicorn

    check_address(host, port)
    if (problem := main_module_problem()) is not None:  # its workers could not start
        raise ServeError(problem)
    config = uvicorn.Config(
        create_app(settings), host=host, port=port, log_level=log_level, timeout_graceful_shutdown=3
    )
    server = announcing_server(config, announce)
    with contextlib.suppress(KeyboardInterrupt):  # as uvicorn.run: Ctrl-C is the way to stop it
        server.run()
    if not server.started:
        sys.exit(STARTUP_FAILURE)


__all__ = ["ServeError", "announcing_server", "check_address", "serve"]
