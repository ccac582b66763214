"""The worker pool on Ray: the same games as the local pool, lost actors' games played again,
clear errors for a cluster that does not answer. On a local 2-CPU Ray instance (one per session)."""

from __future__ import annotations

import math
import os
import re
import signal
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import broken_players
import napping_player
import numpy as np
import pytest
import typer
from arena_helpers import arena_app
from typer.testing import CliRunner

from boardlab.arena import Store, TournamentConfig, run_tournament
from boardlab.games import Reason
from boardlab.play import ray_backend
from boardlab.play.backend import open_backend
from boardlab.play.pool import BackendError
from boardlab.play.ray_backend import (
    LOST_WORKER_MESSAGE,
    SETTINGS_FRAME,
    RayBackend,
    RayGamePool,
    check_address,
    resolve_address,
    split_address,
)
from boardlab.ui import arena as arena_cli

KILL_AFTER_SECONDS = 0.3
"""A game is killed once it has run this long: surely in the middle (a game takes about a second)."""


def _contents(records: Any) -> dict[int, tuple[Any, ...]]:
    return {r.index: r.game_content() for r in records}


class _WatchedRay(RayBackend):
    """A Ray backend that lets the test see the pool it hands out."""

    pools: list[RayGamePool[Any, Any]]

    def game_pool(self, *args: Any, **kwargs: Any) -> RayGamePool[Any, Any]:
        pool = super().game_pool(*args, **kwargs)
        self.pools = [*getattr(self, "pools", []), pool]
        return pool


def _note_pids(backend: _WatchedRay, pids: set[int]) -> Callable[[Any], None]:
    return lambda _: pids.update(backend.pools[-1].pids())


def test_a_tournament_on_ray_equals_the_local_pool_game_for_game(ray_instance: Any, tmp_path: Path) -> None:
    # forfeits included: an agent whose process dies, one that hangs past its limit
    dying, hanging = broken_players.spec("DyingPlayer"), broken_players.spec("HangingPlayer")
    config = TournamentConfig(("random", dying, hanging), 1, "quixo", seed=11, opening_plies=1)
    with Store(tmp_path / "local.sqlite") as store:
        local = run_tournament(config, store, workers=2, move_timeout=0.5)
    seen: tuple[set[int], set[int]] = (set(), set())
    with _WatchedRay() as backend:
        with Store(tmp_path / "ray.sqlite") as store:
            note = _note_pids(backend, seen[0])
            on_ray = run_tournament(config, store, workers=2, move_timeout=0.5, backend=backend, on_game=note)
        # the next pool of the same backend is served by the same actors, configured again
        small = TournamentConfig(("random", "greedy"), 2, "tictactoe")
        with Store(":memory:") as store:
            note = _note_pids(backend, seen[1])
            assert run_tournament(small, store, workers=2, backend=backend, on_game=note).complete
    assert seen[0] and seen[1] <= seen[0]
    assert local.complete and on_ray.complete and len(on_ray.records) == config.total_games == 3
    assert _contents(on_ray.records) == _contents(local.records)
    forfeits = [r for r in on_ray.records if r.outcome.reason is Reason.FORFEIT]
    assert {r.second_spec if r.winner == 0 else r.first_spec for r in forfeits} == {dying, hanging}
    assert any("no move within 0.5 s" in r.outcome.detail for r in forfeits)
    assert any("process ended" in r.outcome.detail for r in forfeits)


def _kill_one_game(backend: _WatchedRay, killed: list[int], stop: threading.Event) -> None:
    """SIGKILL the actor of the first game seen running for KILL_AFTER_SECONDS."""
    while not stop.wait(0.02):
        for pool in getattr(backend, "pools", []):
            for index, pid, seconds in pool.busy():
                if seconds >= KILL_AFTER_SECONDS:
                    os.kill(pid, signal.SIGKILL)
                    killed.append(index)
                    return


def test_an_actor_killed_mid_game_has_its_game_played_again(ray_instance: Any, tmp_path: Path) -> None:
    config = TournamentConfig((napping_player.spec(), "random"), 4, "quixo", seed=5, opening_plies=2)
    with Store(tmp_path / "local.sqlite") as store:
        local = run_tournament(config, store, workers=0)
    backend, killed, stop = _WatchedRay(), [], threading.Event()
    killer = threading.Thread(target=_kill_one_game, args=(backend, killed, stop))
    killer.start()
    try:
        with backend, Store(tmp_path / "ray.sqlite") as store:
            run = run_tournament(config, store, workers=2, backend=backend)
            stored = store.games(config.tournament_id)
            indices = store.stored_indices(config.tournament_id)
    finally:
        stop.set()
        killer.join()
    (pool,) = backend.pools
    assert len(killed) == 1 and pool.counts.replayed_indices == killed and pool.counts.lost == 1
    # nothing lost, nothing doubled, and the replayed game is the game it would have been
    assert run.complete and run.played == config.total_games
    assert sorted(r.index for r in stored) == sorted(indices) == list(range(config.total_games))
    assert _contents(stored) == _contents(local.records)
    assert not any(r.outcome.reason is Reason.FORFEIT for r in stored)


def test_cli_says_lost_ray_workers_in_one_line_of_its_own(
    ray_instance: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    backend, killed, stop = _WatchedRay(), [], threading.Event()
    monkeypatch.setattr(arena_cli, "open_backend", lambda *args: backend)
    killer = threading.Thread(target=_kill_one_game, args=(backend, killed, stop))
    killer.start()
    args = ["match", napping_player.spec(), "random", "-n", "4", "-j", "2", "--backend", "ray"]
    try:
        result = CliRunner().invoke(
            arena_app(), [*args, "--db", str(tmp_path / "a.sqlite"), "--out", str(tmp_path / "out")]
        )
    finally:
        stop.set()
        killer.join()
    assert result.exit_code == 0, result.stderr
    assert len(killed) == 1
    assert "1 Ray worker lost, 1 game played again\n" in result.stderr
    assert "4 new games" in result.stdout


def test_rays_message_about_a_lost_worker_stays_off_stdout(
    ray_instance: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    from ray._private import worker

    def published(message: str) -> dict[str, Any]:  # as Ray's driver thread hands it on
        return {"lines": [message], "pid": "raylet", "is_err": False}

    lost = f"{LOST_WORKER_MESSAGE} by an unexpected system error. To troubleshoot ..."
    with RayBackend():
        worker.print_to_stdstream(published(lost), ignore_prefix=False)
        worker.print_to_stdstream(published("the cluster ran out of memory"), ignore_prefix=False)
    said = capsys.readouterr()
    assert said.out == ""  # the command's report alone
    assert "the cluster ran out of memory" in said.err and LOST_WORKER_MESSAGE not in said.err
    worker.print_to_stdstream(published("after"), ignore_prefix=False)  # Ray's own way again
    assert "after" in capsys.readouterr().out


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_an_address_where_nothing_answers_is_one_clear_error_at_once() -> None:
    address = f"127.0.0.1:{_free_port()}"
    started = time.monotonic()
    with pytest.raises(BackendError, match=f"no Ray cluster answers at {address}"):
        open_backend("ray", address)
    assert time.monotonic() - started < 5


@contextmanager
def _answering_once(reply: bytes, read_first: bool = False) -> Iterator[str]:
    """The address of a local TCP server that answers its first connection with ``reply``
    (having read what the client sent first, if ``read_first``)."""
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()

        def answer() -> None:
            conn, _ = server.accept()
            with conn:
                if read_first:
                    conn.recv(64)
                conn.sendall(reply)

        thread = threading.Thread(target=answer)
        thread.start()
        yield f"127.0.0.1:{server.getsockname()[1]}"
        thread.join()


def test_an_address_where_something_else_answers_is_refused(tmp_path: Path) -> None:
    # a plain TCP server that says nothing HTTP/2 understands
    reply = b"HTTP/1.0 400 Bad Request\r\n\r\n"
    with _answering_once(reply) as address, pytest.raises(BackendError, match="not a Ray head"):
        check_address(address, timeout=2)


@pytest.mark.parametrize(
    ("reply", "answers"),
    [
        (SETTINGS_FRAME, True),  # what a gRPC server says first
        (SETTINGS_FRAME[:3] + b"\x07" + SETTINGS_FRAME[4:], False),  # nine bytes, but not SETTINGS
        (SETTINGS_FRAME[:5], False),  # cut short
    ],
    ids=["settings", "another-frame", "cut-short"],
)
def test_only_an_http2_settings_frame_passes_for_a_ray_head(reply: bytes, answers: bool) -> None:
    with _answering_once(reply, read_first=True) as address:
        if answers:
            check_address(address, timeout=2)
        else:
            with pytest.raises(BackendError, match="not a Ray head"):
                check_address(address, timeout=2)


@pytest.mark.parametrize(
    ("address", "split"),
    [
        ("head:10001", ("head", 10001)),
        ("[::1]:6379", ("::1", 6379)),
        (" 10.0.0.2:65535 ", ("10.0.0.2", 65535)),
    ],
)
def test_a_cluster_address_splits_into_host_and_port(address: str, split: tuple[str, int]) -> None:
    assert split_address(address) == split


def test_an_address_of_another_cluster_than_the_one_joined_is_refused(ray_instance: Any) -> None:
    # answers the handshake as a Ray head's GCS server does
    refused = r"already connected to the Ray cluster at .*, not 127\.0\.0\.1"
    with (
        _answering_once(SETTINGS_FRAME, read_first=True) as address,
        pytest.raises(BackendError, match=refused),
    ):
        RayBackend(address)
    joined = ray_instance.get_runtime_context().gcs_address
    with RayBackend(joined) as backend:  # the cluster this process joined: used as it is
        assert backend.default_size() == 2
    assert ray_instance.is_initialized()


@pytest.mark.parametrize(
    "address", ["nowhere", "host:", ":6379", "host:99999", "host:65536", "host:0", "host:port"]
)
def test_a_malformed_address_is_refused(address: str) -> None:
    with pytest.raises(BackendError, match="HOST:PORT"):
        split_address(address)


@pytest.mark.parametrize(
    ("address", "message"),
    [
        ("http://127.0.0.1:6379", "--address must be HOST:PORT of a Ray cluster's head, or auto"),
        ("https://head:6379", "got 'https://head:6379' (without https://: not a URL)"),
        ("ray://head:10001", "--address 'ray://head:10001' is a Ray Client address (ray://), which boardlab"),
    ],
)
def test_a_url_is_refused_as_no_host_port(address: str, message: str) -> None:
    # before trying to reach it: a URL's scheme is no host name
    with pytest.raises(BackendError, match=re.escape(message)):
        open_backend("ray", address)


def test_auto_is_the_cluster_ray_finds_and_any_other_address_itself(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RAY_ADDRESS", "10.0.0.7:6379")  # where Ray looks first, as ray.init("auto") does
    assert resolve_address("auto") == "10.0.0.7:6379"
    assert resolve_address("10.0.0.8:6380") == "10.0.0.8:6380"


def test_auto_where_ray_finds_no_cluster_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    from ray._private import services

    def finds_none(address: str) -> str:
        raise ConnectionError("Could not find any running Ray instance.")

    monkeypatch.setattr(services, "canonicalize_bootstrap_address_or_die", finds_none)
    with pytest.raises(
        BackendError,
        match=r"^--address auto: Ray finds no running cluster \(none in RAY_ADDRESS, .*HOST:PORT$",
    ):
        open_backend("ray", "auto")


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost"])
def test_auto_where_the_cluster_found_does_not_answer_names_it_as_given(
    monkeypatch: pytest.MonkeyPatch, host: str
) -> None:
    port = _free_port()
    monkeypatch.setenv("RAY_ADDRESS", f"{host}:{port}")  # Ray names this machine by its own IP
    found = re.escape(
        f"--address auto found {host}:{port} in RAY_ADDRESS, but no Ray cluster answers there ("
    )
    with pytest.raises(BackendError, match=f"^{found}"):
        open_backend("ray", "auto")


def test_auto_with_ray_address_holding_no_address_names_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RAY_ADDRESS", "garbage")
    refused = "--address auto: RAY_ADDRESS must be HOST:PORT of a Ray cluster's head, got 'garbage'"
    with pytest.raises(BackendError, match=f"^{re.escape(refused)}$"):
        open_backend("ray", "auto")


def test_auto_joins_the_cluster_ray_finds(ray_instance: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    joined = ray_instance.get_runtime_context().gcs_address
    monkeypatch.setenv("RAY_ADDRESS", joined)
    with RayBackend("auto") as backend:
        assert backend.address == joined and backend.default_size() == 2
    assert ray_instance.is_initialized()


def test_backend_names_and_a_missing_ray(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(BackendError, match="unknown backend 'spark'"):
        open_backend("spark")
    with pytest.raises(BackendError, match="--address is for the ray backend"):
        open_backend("local", "127.0.0.1:6379")
    monkeypatch.setitem(sys.modules, "ray", None)  # as if the extra were not installed
    with pytest.raises(BackendError, match=r"pip install 'boardlab\[ray\]'"):
        open_backend("ray")


class _StubRay:
    """Stands for the ray module where no Ray instance runs: records what starts it."""

    def __init__(self) -> None:
        self.started: list[str] = []

    def is_initialized(self) -> bool:
        return False

    def init(self, address: str, **options: Any) -> None:
        self.started.append(address)

    def remote(self, **options: Any) -> Callable[[Any], Any]:
        return lambda cls: cls


@pytest.mark.parametrize(
    ("address", "said"),
    [(None, "starting a local Ray instance"), ("10.0.0.9:6379", "joining the Ray cluster at 10.0.0.9:6379")],
)
def test_ray_says_it_starts_before_it_takes_its_seconds(
    monkeypatch: pytest.MonkeyPatch, address: str | None, said: str
) -> None:
    stub = _StubRay()
    monkeypatch.setattr(ray_backend, "_ray", lambda: stub)
    monkeypatch.setattr(ray_backend, "_checked_cluster", lambda given: given)  # as if it answered
    announced: list[str] = []

    def announce(line: str) -> None:
        announced.append(line)
        assert not stub.started  # before Ray's start, not after it

    open_backend("ray", address, announce).close()
    assert announced == [said] and stub.started == [address or "local"]


def test_cli_warns_of_more_workers_than_the_ray_cluster_has_cpus(
    ray_instance: Any, app: typer.Typer, tmp_path: Path
) -> None:
    args = ["match", "random", "greedy", "--game", "tictactoe", "-n", "4", "-j", "3", "--backend", "ray"]
    result = CliRunner().invoke(
        app, [*args, "--db", str(tmp_path / "a.sqlite"), "--out", str(tmp_path / "out")]
    )
    assert result.exit_code == 0, result.stderr
    warning = "warning: --workers 3 on a Ray cluster of 2 CPUs: 1 of them wait for a free CPU"
    assert warning in " ".join(result.stderr.split()) and "4 new games" in result.stdout


def test_compiled_work_maps_the_same_on_ray(ray_instance: Any) -> None:
    tasks = list(range(7))
    with RayBackend() as backend, backend.workers(2) as workers:  # a function Ray's workers can import
        assert workers.map(math.factorial, tasks) == [math.factorial(t) for t in tasks]
    assert ray_instance.is_initialized()  # the backend leaves an instance it did not start


@pytest.fixture
def app() -> typer.Typer:
    app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)
    arena_cli.register(app)
    return app


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--backend", "ray", "--address", "127.0.0.1:{port}"], "no Ray cluster answers at 127.0.0.1:"),
        (["--backend", "local", "--address", "127.0.0.1:6379"], "--address is for the ray backend"),
        (["--backend", "dask"], "unknown backend 'dask'"),
    ],
)
def test_cli_bad_backend_exits_2_with_one_line_before_any_file(
    app: typer.Typer, tmp_path: Path, options: list[str], message: str
) -> None:
    options = [o.format(port=_free_port()) for o in options]
    db = tmp_path / "sub" / "a.sqlite"
    args = ["tournament", "random", "greedy", "--db", str(db), "--out", str(tmp_path / "out"), *options]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2
    assert result.stderr.startswith("Error: ") and message in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert not db.parent.exists()


def test_cli_takes_address_auto_as_the_cluster_ray_finds(
    app: typer.Typer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    port = _free_port()
    monkeypatch.setenv("RAY_ADDRESS", f"127.0.0.1:{port}")  # found, but nothing answers there
    db = tmp_path / "sub" / "a.sqlite"
    args = ["tournament", "random", "greedy", "--db", str(db), "--backend", "ray", "--address", "auto"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2
    found = f"Error: --address auto found 127.0.0.1:{port} in RAY_ADDRESS, but no Ray cluster answers there ("
    assert result.stderr.startswith(found)
    assert len(result.stderr.strip().splitlines()) == 1 and not db.parent.exists()


def test_cli_match_on_ray_stores_every_game(ray_instance: Any, app: typer.Typer, tmp_path: Path) -> None:
    db = tmp_path / "a.sqlite"
    args = ["match", "random", "greedy", "--game", "tictactoe", "-n", "4", "-j", "1", "--backend", "ray"]
    result = CliRunner().invoke(app, [*args, "--db", str(db), "--out", str(tmp_path / "out")])
    assert result.exit_code == 0, result.stderr
    with Store(db) as store:
        (tournament,) = store.tournaments()
        assert sorted(store.stored_indices(tournament["id"])) == [0, 1, 2, 3]


# --- AlphaZero self-play on Ray -------------------------------------------------------------------


def test_alphazero_self_play_on_ray_equals_the_local_workers(ray_instance: Any, tmp_path: Path) -> None:
    """One Tic-Tac-Toe iteration (self-play, training, evaluation) gives the same network on both
    backends: every random choice comes from the seed and the iteration, not from the workers."""
    from test_alphazero import TTT, tiny_params, weights_of

    from boardlab.train.alphazero import AlphaZeroRun

    weights = []
    for backend in ("local", "ray"):
        run = AlphaZeroRun.start(TTT, tiny_params(games=12, eval_positions=20, workers=2, backend=backend), 9)
        run.save(tmp_path / backend / "checkpoint.safetensors")
        try:
            run.step(1)
        finally:
            run.close()
        weights.append(weights_of(run))
    local, ray = weights
    assert local.keys() == ray.keys() and all(np.array_equal(local[k], ray[k]) for k in local)


def test_alphazero_training_on_a_ray_address_that_does_not_answer_is_one_line(tmp_path: Path) -> None:
    from boardlab.ui.cli import app

    out = tmp_path / "az"
    args = ["train", "alphazero", "--game", "tictactoe", "--out", str(out), "--hours", "0.01"]
    result = CliRunner().invoke(app, [*args, "--backend", "ray", "--address", f"127.0.0.1:{_free_port()}"])
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith("Error: ") and "no Ray cluster answers" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
