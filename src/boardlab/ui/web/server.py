"""Running the app with uvicorn: what ``boardlab serve`` calls."""

from __future__ import annotations

import socket

from boardlab.ui.web.app import ServeSettings, create_app


class ServeError(ValueError):
    """A server that cannot start: the address is taken, the store is missing."""


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


def serve(
    settings: ServeSettings, host: str = "127.0.0.1", port: int = 8000, log_level: str = "warning"
) -> None:
    """Serve the page and the API at ``host:port`` until interrupted."""
    import uvicorn

    check_address(host, port)
    uvicorn.run(create_app(settings), host=host, port=port, log_level=log_level, timeout_graceful_shutdown=3)


__all__ = ["ServeError", "check_address", "serve"]
