"""Stored games held against the rules (``boardlab ratings --verify``): every way a stored game
can contradict its moves is named, games the rules agree with pass, and the ratings leave out
what the rules contradict."""

from __future__ import annotations

import dataclasses
import random
import sqlite3
from pathlib import Path

import pytest
from records import game_record
from typer.testing import CliRunner

from boardlab.arena import match
from boardlab.arena.play import GameRecord
from boardlab.arena.store import Store
from boardlab.arena.verify import contradicted, replay_problem
from boardlab.games import Outcome, Reason, parse_game
from boardlab.ui.cli import app

X_WINS = ("a1", "b1", "a2", "b2", "a3")  # X's column a


def stored(
    moves: tuple[str, ...], outcome: Outcome, game: str = "tictactoe", **changes: object
) -> GameRecord:
    return game_record(game, moves, outcome, **changes)


def test_games_the_rules_agree_with_pass() -> None:
    assert replay_problem(stored(X_WINS, Outcome(0, Reason.RULE))) is None
    assert replay_problem(stored(("b2", "a1"), Outcome(1, Reason.RESIGNATION))) is None
    assert replay_problem(stored(("b2", "a1"), Outcome(0, Reason.FORFEIT))) is None
    assert replay_problem(stored((), Outcome(None, Reason.REPETITION))) is None
    draw = ("b2", "a1", "c3", "a3", "a2", "c2", "b1", "b3", "c1")
    assert replay_problem(stored(draw, Outcome(None, Reason.DRAW))) is None


def test_a_game_at_its_ply_cap_passes_only_at_the_cap() -> None:
    game = parse_game("quixo:size=4,ply_cap=6")
    rng = random.Random(1)
    while True:  # a random game that reaches the cap without a line
        state, moves = game.initial(), []
        while not state.is_over:
            move = rng.choice(state.legal_moves())
            moves.append(str(move))
            state = state.play(move)
        if state.outcome is not None and state.outcome.reason is Reason.PLY_CAP:
            break
    capped = Outcome(None, Reason.PLY_CAP, "6 plies")
    assert replay_problem(stored(tuple(moves), capped, game=game.spec)) is None
    early = replay_problem(stored(tuple(moves[:-1]), capped, game=game.spec))
    assert early == "stored: draw (ply cap: 6 plies); the moves lead to an unfinished game"


@pytest.mark.parametrize(
    ("moves", "outcome", "changes", "problem"),
    [
        (
            X_WINS,
            Outcome(1, Reason.RULE),
            {},
            "stored: O wins; the moves lead to X wins (three in a row)",
        ),
        (X_WINS[:4], Outcome(0, Reason.RULE), {}, "; the moves lead to an unfinished game"),
        (X_WINS, Outcome(1, Reason.RESIGNATION), {}, "; the moves had ended the game before: X wins"),
        ((*X_WINS, "c3"), Outcome(0, Reason.RULE), {}, "ply 6 (c3) comes after the end of the game"),
        (("b2", "b2"), Outcome(0, Reason.RESIGNATION), {}, "ply 2 (b2): "),
        (("b2", "zz"), Outcome(0, Reason.RESIGNATION), {}, "ply 2 (zz): cannot read move"),
        (X_WINS, Outcome(0, Reason.RULE), {"plies": 7}, "7 plies stored for 5 moves"),
        (X_WINS, Outcome(0, Reason.RULE), {"game": "chess"}, "its game 'chess': unknown game"),
    ],
)
def test_each_contradiction_is_named(
    moves: tuple[str, ...], outcome: Outcome, changes: dict[str, object], problem: str
) -> None:
    found = replay_problem(stored(moves, outcome, **changes))
    assert found is not None and problem in found


def test_contradicted_lists_only_the_games_the_rules_contradict() -> None:
    good, bad = stored(X_WINS, Outcome(0, Reason.RULE)), stored(X_WINS, Outcome(None, Reason.DRAW))
    assert contradicted([good, bad, good]) == [
        (bad, "stored: draw; the moves lead to X wins (three in a row)")
    ]


def test_ratings_verify_leaves_out_and_names_what_the_rules_contradict(tmp_path: Path) -> None:
    db = tmp_path / "arena.sqlite"
    assert match("greedy", "random", 4, game="tictactoe", store=db, workers=0).played == 4
    with Store(db) as store:
        tournament = store.tournaments()[0]["id"]
        played = store.games(tournament)
        assert contradicted(played) == []  # boardlab's own games agree with the rules
        first = played[0]
        flipped = Outcome(0 if first.winner is None else 1 - first.winner, Reason.RULE)
        store.add_game(dataclasses.replace(first, index=99, outcome=flipped))
    runner = CliRunner()
    plain = runner.invoke(app, ["ratings", str(db)])
    assert plain.exit_code == 0 and "Ratings (tictactoe): 5 games" in plain.stdout
    verified = runner.invoke(app, ["ratings", str(db), "--verify"])
    assert verified.exit_code == 0, verified.output
    assert "Ratings (tictactoe): 4 games" in verified.stdout
    assert f"left out: tictactoe game 99 of tournament {tournament}" in verified.stderr
    assert "tictactoe: 4 of 5 games agree with the rules" in verified.stderr


def test_a_player_whose_every_game_is_left_out_is_not_rated(tmp_path: Path) -> None:
    db = tmp_path / "arena.sqlite"
    assert match("greedy", "random", 2, game="tictactoe", store=db, workers=0).played == 2
    assert match("greedy", "mcts:iters=10", 1, game="tictactoe", store=db, workers=0).played == 1
    with Store(db) as store, sqlite3.connect(db) as conn:
        tournament = next(t["id"] for t in store.tournaments() if "mcts:iters=10" in t["specs"])
        conn.execute("UPDATE games SET plies = plies + 1 WHERE tournament_id = ?", (tournament,))
    verified = CliRunner().invoke(app, ["ratings", str(db), "--verify"])
    assert verified.exit_code == 0, verified.output
    assert "Ratings (tictactoe): 2 games" in verified.stdout and "mcts" not in verified.stdout
    assert "plies stored for" in verified.stderr
