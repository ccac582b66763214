"""Helpers of the web tests: waiting for a game's agents, and the engine's view of a game."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import uvicorn

from boardlab.games import parse_game


def settle(client: Any, game_id: str, timeout: float = 60.0) -> dict[str, Any]:
    """The game's view once no agent is thinking or to move (polling the API)."""
    deadline = time.monotonic() + timeout
    while True:
        view = client.get(f"/api/games/{game_id}").json()
        agent_to_move = view["outcome"] is None and view["sides"][view["position"]["to_move"]] is not None
        if view["thinking"] is None and not agent_to_move:
            return view
        if time.monotonic() > deadline:
            raise AssertionError(f"the agents of game {game_id} did not settle in {timeout} s: {view}")
        time.sleep(0.05)


def replayed(view: dict[str, Any]) -> Any:
    """The engine's position after the moves a game's view lists, from its start."""
    game = parse_game(view["game"])
    state = game.parse_position(view["start"])
    for move in view["moves"]:
        state = state.play(state.parse_move(move["move"]))
    return state


def free_port() -> int:
    """A TCP port free on 127.0.0.1 now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextlib.contextmanager
def running_server(app: Any) -> Iterator[str]:
    """The app served by uvicorn in a thread on a free local port, as its base URL."""
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise AssertionError("the server did not start")
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(30)
