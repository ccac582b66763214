"""Engines speaking boardlab's engine protocol, well and badly, for the engine agent's tests.

Run as ``python tests/protocol_engines.py BEHAVIOUR [--log FILE] [--pids FOLDER]``. Every
behaviour answers the handshake (``name protocol-test``) and accepts every game, then:

- ``play``: plays the first legal move: read from the position text on Tic-Tac-Toe (the first
  empty cell), Nim (one object from the first pile that has any) and Connect Four (the first
  column with room), through boardlab's rules on other games; an ``info`` line and a comment
  before each move;
- ``chatty``: plays as ``play``, writing 256 KiB to stderr before every move;
- ``exits``: plays its first move, then writes ``giving up`` to stderr and exits with code 3;
- ``hangs``: never answers a ``go`` (and ignores the rest of its input);
- ``garbage``: answers ``go`` with ``bestmove e2e4``;
- ``unreadable``: answers ``move zz``;
- ``repeats``: always answers the move it played first (taken on its second turn);
- ``twice``: answers every ``go`` with its move twice;
- ``bad-info``: sends ``info value 7`` before its move;
- ``refuses``: refuses every game;
- ``silent``: never says ready;
- ``dies``: writes ``cannot load weights`` to stderr and exits with code 2 before the handshake.

``--log FILE`` appends every line received to FILE; ``--pids FOLDER`` creates a file named by
the process id there, so that a test can check the process is gone.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path


def first_move(game: str, position: str) -> str:
    """The first legal move of ``position`` (the text after ``position``) in ``game``."""
    name = game.partition(":")[0]
    board = position.split()[0]
    if name == "tictactoe":
        cells = board.replace("/", "")
        index = cells.index(".")
        return "abc"[index % 3] + str(index // 3 + 1)
    if name == "nim":
        piles = [int(p) for p in board.split("-")]
        return f"{next(i for i, p in enumerate(piles) if p) + 1}:1"
    if name == "connect4":
        top = board.split("/")[0]
        return str(top.index(".") + 1)
    from boardlab.games import parse_game

    return str(parse_game(game).parse_position(position).legal_moves()[0])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("behaviour")
    parser.add_argument("--log")
    parser.add_argument("--pids")
    args = parser.parse_args()
    behaviour = args.behaviour
    if args.pids:
        (Path(args.pids) / str(os.getpid())).touch()
    if behaviour == "dies":
        sys.stderr.write("loading...\ncannot load weights\n")
        sys.exit(2)
    log = open(args.log, "a", encoding="utf-8") if args.log else None  # noqa: SIM115

    def say(line: str) -> None:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()

    game, position, moves, first = "", "", 0, ""
    for raw in sys.stdin:
        line = raw.rstrip("\n")
        if log is not None:
            log.write(line + "\n")
            log.flush()
        command, _, rest = line.partition(" ")
        if command == "boardlab":
            if behaviour == "silent":
                continue
            say("# a comment before the name")
            say("name protocol-test")
            say("")
            say("ready")
        elif command == "game":
            game = rest
            say("refuse this engine plays nothing today" if behaviour == "refuses" else "ready")
        elif command == "position":
            position = rest
        elif command == "go":
            moves += 1
            if behaviour == "hangs":
                continue
            if behaviour == "exits" and moves > 1:
                sys.stderr.write("giving up\n")
                sys.stderr.flush()
                sys.exit(3)
            if behaviour == "chatty":
                sys.stderr.write(("x" * 1023 + "\n") * 256)
                sys.stderr.flush()
            if behaviour == "garbage":
                say("bestmove e2e4")
                continue
            if behaviour == "unreadable":
                say("move zz")
                continue
            move = first_move(game, position)
            if behaviour == "repeats":
                first = first or move
                move = first
            say("info value 7" if behaviour == "bad-info" else f"info depth 1 nodes 1 value 0.25 pv {move}")
            say("# thinking done")
            say(f"move {move}\nmove {move}" if behaviour == "twice" else f"move {move}")
        elif command == "quit":
            break
    if behaviour == "hangs":  # its input ended: a hung engine does not notice
        time.sleep(3600)


if __name__ == "__main__":
    main()
