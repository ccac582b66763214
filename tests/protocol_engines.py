"""Engines speaking boardlab's engine protocol, well and badly, for the engine agent's tests.

Run as ``python tests/protocol_engines.py BEHAVIOUR [--log FILE] [--pids FOLDER]
[--ready-delay S] [--move-delay S]``. Every behaviour answers the handshake (``name
protocol-test``) and accepts every game, then:

- ``play``: plays the first legal move: read from the position text on Tic-Tac-Toe (the first
  empty cell), Nim (one object from the first pile that has any) and Connect Four (the first
  column with room), through boardlab's rules on other games; an ``info`` line and a comment
  before each move;
- ``chatty``: plays as ``play``, writing 256 KiB to stderr before every move;
- ``exits``: plays its first move, then writes ``giving up`` and blank lines to stderr and exits
  with code 3;
- ``hangs``: never answers a ``go`` (and ignores the rest of its input);
- ``garbage``: answers ``go`` with ``bestmove e2e4``;
- ``unreadable``: answers ``move zz``;
- ``repeats``: always answers the move it played first (taken on its second turn);
- ``twice``: answers every ``go`` with its move twice;
- ``bad-info``: sends ``info value 7`` before its move;
- ``refuses``: refuses every game;
- ``silent``: never says ready;
- ``dies``: writes ``cannot load weights`` to stderr and exits with code 2 before the handshake;
- ``crlf``: plays as ``play``, every line it writes ending in CR LF (as a Windows build's);
- ``spaces``: plays as ``play``, its ``move`` line with blanks around the words (``  move a1  ``);
- ``garbled``: plays as ``play``, with bytes that are not UTF-8 in its name and in a comment;
- ``bare-move``: plays as ``play`` but sends no ``info`` line, only its move;
- ``infos``: plays as ``play`` after three ``info`` lines, each giving other fields
  (``value 0.5 pv MOVE x y``, ``depth 2 nodes 10``, ``value -1``);
- ``long-pv``: plays as ``play`` after an ``info`` line of 1000 moves of principal variation;
- ``long-line``: answers ``go`` with a comment of 100 000 characters (over the line limit);
- ``after-move``: plays as ``play``, then writes an empty line and a comment after its move;
- ``move-extra``: answers ``move MOVE MOVE``;
- ``info-after``: plays as ``play``, but writes its ``info`` line after its move (both at once);
- ``bad-hello``: answers the handshake with ``hello`` before ``ready``;
- ``closes``: closes its output at its first ``go`` and keeps running (until killed);
- ``unflushed``: plays as ``play`` but never flushes its output (it reaches boardlab when the
  program exits, if ever).

``--ready-delay S`` waits S seconds before each ``ready`` (to the handshake and to a game),
``--move-delay S`` before answering a ``go``.

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


def info_lines(behaviour: str, move: str) -> list[str]:
    """The ``info`` lines the engine of ``behaviour`` sends before ``move``."""
    if behaviour == "bad-info":
        return ["info value 7"]
    if behaviour == "bare-move":
        return []
    if behaviour == "infos":
        return [f"info value 0.5 pv {move} x y", "info depth 2 nodes 10", "info value -1"]
    if behaviour == "long-pv":
        return ["info depth 9 pv " + " ".join([move] * 1000)]
    return [f"info depth 1 nodes 1 value 0.25 pv {move}"]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("behaviour")
    parser.add_argument("--log")
    parser.add_argument("--pids")
    parser.add_argument("--ready-delay", type=float, default=0.0)
    parser.add_argument("--move-delay", type=float, default=0.0)
    args = parser.parse_args()
    behaviour = args.behaviour
    if args.pids:
        (Path(args.pids) / str(os.getpid())).touch()
    if behaviour == "dies":
        sys.stderr.write("loading...\ncannot load weights\n")
        sys.exit(2)
    log = open(args.log, "a", encoding="utf-8") if args.log else None  # noqa: SIM115

    end = b"\r\n" if behaviour == "crlf" else b"\n"
    out = open(1, "wb", closefd=False)  # noqa: SIM115  # buffered, whatever PYTHONUNBUFFERED says

    def say(line: str | bytes) -> None:
        out.write((line.encode() if isinstance(line, str) else line) + end)
        if behaviour != "unflushed":
            out.flush()

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
            say(b"name protocol-test \xff\xfe" if behaviour == "garbled" else "name protocol-test")
            say("")
            if behaviour == "bad-hello":
                say("hello")
            time.sleep(args.ready_delay)
            say("ready")
        elif command == "game":
            game = rest
            time.sleep(args.ready_delay)
            say("refuse this engine plays nothing today" if behaviour == "refuses" else "ready")
        elif command == "position":
            position = rest
        elif command == "go":
            moves += 1
            if behaviour == "hangs":
                continue
            time.sleep(args.move_delay)
            if behaviour == "closes":
                os.close(1)  # its output ends, the program does not
                time.sleep(3600)
            if behaviour == "long-line":
                say("# " + "x" * 100_000)
                continue
            if behaviour == "exits" and moves > 1:
                sys.stderr.write("giving up\n\n  \n")
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
            infos = info_lines(behaviour, move)
            for info in infos if behaviour != "info-after" else []:
                say(info)
            say(b"# thinking \xc3\x28 done" if behaviour == "garbled" else "# thinking done")
            if behaviour == "twice":
                say(f"move {move}\nmove {move}")
            elif behaviour == "info-after":
                say(f"move {move}\n{infos[0]}")
            elif behaviour == "spaces":
                say(f"  move \t{move}   ")
            elif behaviour == "move-extra":
                say(f"move {move} {move}")
            else:
                say(f"move {move}")
            if behaviour == "after-move":
                say("")
                say("# that was my move")
            if behaviour == "leaves":  # gone before the next request: its sending side sees it
                sys.stderr.write("done after one move\n")
                sys.exit(3)
        elif command == "quit":
            break
    if behaviour == "hangs":  # its input ended: a hung engine does not notice
        time.sleep(3600)


if __name__ == "__main__":
    main()
