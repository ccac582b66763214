"""Load check of ``boardlab serve``: many concurrent games against a fast agent over real HTTP.

Starts the server (``boardlab serve`` in its own process, on a free local port), then plays
``--games`` Connect Four games at once, each by an asynchronous client that makes a random
legal move, polls until the agent has answered, and so on to the end. Every request's response
time is recorded; at the end each game's move list is checked against the moves its client
made (nothing lost: every person's move is there, in order, each followed by exactly one agent
move unless the game ended).

    .venv/bin/python benchmarks/web_load.py --games 50 --agent greedy
"""

from __future__ import annotations

import argparse
import asyncio
import random
import signal
import socket
import statistics
import subprocess
import sys
import time
from typing import Any

import httpx2


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class Timings:
    def __init__(self) -> None:
        self.seconds: dict[str, list[float]] = {}
        self.errors: list[str] = []

    async def call(self, client: httpx2.AsyncClient, kind: str, method: str, url: str, **kw: Any) -> Any:
        tic = time.perf_counter()
        reply = await client.request(method, url, **kw)
        self.seconds.setdefault(kind, []).append(time.perf_counter() - tic)
        if reply.status_code >= 400:
            self.errors.append(f"{kind} {reply.status_code}: {reply.text[:120]}")
        return reply.json()


async def play_one(client: httpx2.AsyncClient, timings: Timings, seed: int, args: argparse.Namespace) -> bool:
    rng = random.Random(seed)
    body = {"game": args.game, "sides": [None, args.agent], "think": args.think, "seed": seed}
    view = await timings.call(client, "new game", "POST", "/api/games", json=body)
    mine: list[str] = []
    while view["outcome"] is None:
        move = rng.choice(view["position"]["legal"])
        mine.append(move)
        view = await timings.call(
            client, "move", "POST", f"/api/games/{view['id']}/move", json={"move": move}
        )
        while view["thinking"] is not None or (
            view["outcome"] is None and view["sides"][view["position"]["to_move"]] is not None
        ):
            await asyncio.sleep(args.poll)
            view = await timings.call(client, "poll", "GET", f"/api/games/{view['id']}")
    played = [m["move"] for m in view["moves"]]
    return played[0::2] == mine and len(played) in (2 * len(mine), 2 * len(mine) - 1)


def run_server(args: argparse.Namespace) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    command = [sys.executable, "-c", "from boardlab.ui.cli import main; main()", "serve", "--port", str(port)]
    command += ["--workers", str(args.workers), "--max-games", str(args.games + 10)]
    server = subprocess.Popen(command, stdout=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while True:
        try:
            if httpx2.get(base + "/api/meta", timeout=5).status_code == 200:
                return server, base
        except httpx2.HTTPError:
            pass
        if server.poll() is not None or time.monotonic() > deadline:
            raise SystemExit(f"the server did not start (exit status {server.poll()})")
        time.sleep(0.2)


async def load(base: str, args: argparse.Namespace) -> tuple[Timings, list[bool], float]:
    timings = Timings()
    limits = httpx2.Limits(max_connections=args.games + 10)
    async with httpx2.AsyncClient(base_url=base, timeout=120, limits=limits) as client:
        await timings.call(
            client,
            "warm-up",
            "POST",
            "/api/games",
            json={"game": args.game, "sides": [args.agent, args.agent]},
        )
        tic = time.perf_counter()
        results = await asyncio.gather(*(play_one(client, timings, seed, args) for seed in range(args.games)))
        return timings, list(results), time.perf_counter() - tic


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=50)
    parser.add_argument("--game", default="connect4")
    parser.add_argument("--agent", default="greedy")
    parser.add_argument("--think", type=float, default=0.1)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--poll", type=float, default=0.05)
    args = parser.parse_args()
    server, base = run_server(args)
    try:
        timings, results, wall = asyncio.run(load(base, args))
    finally:
        server.send_signal(signal.SIGINT)
        server.wait(30)
    print(f"{args.games} concurrent {args.game} games against {args.agent} ({args.workers} agent workers)")
    print(
        f"wall time {wall:.1f} s; games complete and intact: {sum(results)}/{len(results)}; "
        f"errors: {len(timings.errors)}"
    )
    print(f"{'request':<10} {'count':>6} {'median ms':>10} {'p95 ms':>8} {'p99 ms':>8} {'max ms':>8}")
    for kind, values in timings.seconds.items():
        if kind == "warm-up":
            continue
        ordered = sorted(values)
        p95 = ordered[int(0.95 * (len(ordered) - 1))]
        p99 = ordered[int(0.99 * (len(ordered) - 1))]
        print(
            f"{kind:<10} {len(values):>6} {1000 * statistics.median(values):>10.1f} {1000 * p95:>8.1f} "
            f"{1000 * p99:>8.1f} {1000 * ordered[-1]:>8.1f}"
        )
    for error in timings.errors[:5]:
        print("error:", error)


if __name__ == "__main__":
    main()
