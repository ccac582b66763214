"""Reviewing a game against perfect play: ``arena.review`` and ``boardlab review``."""

from __future__ import annotations

import json
import random
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from boardlab.arena import match
from boardlab.arena.oracle import OracleError, judge_for
from boardlab.arena.review import Verdict, review_game
from boardlab.arena.store import Store
from boardlab.games import DRAW, LOSS, WIN, parse_game
from boardlab.ui.cli import app

runner = CliRunner()
TTT = parse_game("tictactoe")


def _random_game(seed: int) -> list[str]:
    rng, state, moves = random.Random(seed), TTT.initial(), []
    while not state.is_over:
        move = str(rng.choice(state.legal_moves()))
        moves.append(move)
        state = state.play(move)
    return moves


@pytest.mark.parametrize("seed", range(8))
def test_each_verdict_agrees_with_the_values_before_and_after_the_move(seed: int) -> None:
    judge = judge_for(TTT)
    moves = _random_game(seed)
    review = review_game(TTT.initial(), moves, judge)
    assert [m.move for m in review.moves] == moves and review.final.is_over
    state = TTT.initial()
    for reviewed in review.moves:
        before = judge.position_value(state).value
        after = state.play(reviewed.move)
        kept = -judge.position_value(after).value if not after.is_over else _final_value(after, state.to_move)
        assert (reviewed.value, reviewed.played) == (before, kept)
        assert (reviewed.verdict is Verdict.THREW_WIN) == (before == WIN and kept != WIN)
        assert (reviewed.verdict is Verdict.LOST_DRAW) == (before == DRAW and kept == LOSS)
        assert (reviewed.verdict in (Verdict.BEST, Verdict.KEPT)) == (kept == before)
        assert (reviewed.verdict is Verdict.BEST) == (reviewed.move in reviewed.best)
        assert reviewed.mover == state.to_move and reviewed.ply == state.ply
        state = after
    for side in (0, 1):
        tally, mine = review.tallies[side], [m for m in review.moves if m.mover == side]
        assert tally.moves == len(mine)
        assert tally.kept == sum(m.verdict in (Verdict.BEST, Verdict.KEPT) for m in mine)
        assert tally.thrown + tally.lost == sum(m in review.mistakes for m in mine)


def _final_value(state: Any, mover: int) -> int:
    winner = state.outcome.winner
    return DRAW if winner is None else (WIN if winner == mover else LOSS)


class _FirstPliesUncovered:
    """Tic-Tac-Toe's judge, covering only positions from ply 3 on."""

    def __init__(self) -> None:
        self.judge = judge_for(TTT)

    def uncovered(self, state: Any) -> str | None:
        return "too early" if state.ply < 3 else None

    def move_values(self, state: Any) -> Any:
        assert state.ply >= 3, "an uncovered position was asked about"
        return self.judge.move_values(state)


def test_moves_outside_the_judge_or_before_from_ply_are_passed_over_with_why() -> None:
    moves = ["b2", "a1", "c3", "a3", "a2", "c1", "b1"]
    review = review_game(TTT.initial(), moves, _FirstPliesUncovered(), from_ply=4)  # type: ignore[arg-type]
    whys = [m.why for m in review.moves]
    assert whys == ["before ply 4"] * 4 + ["", "", ""]
    assert [m.verdict for m in review.moves[:4]] == [Verdict.UNJUDGED] * 4
    assert review.tallies[0].moves + review.tallies[1].moves == 3
    partial = review_game(TTT.initial(), moves, _FirstPliesUncovered())  # type: ignore[arg-type]
    assert [m.why for m in partial.moves[:3]] == ["too early"] * 3 and partial.moves[3].why == ""
    assert [m.verdict for m in partial.mistakes] == [Verdict.LOST_DRAW] and partial.mistakes[0].ply == 5


@pytest.mark.parametrize(
    ("moves", "message"),
    [
        (["b2", "zz"], "move 2: cannot read move 'zz'"),
        (["a1", "b1", "a2", "b2", "a3", "c3"], "move 6 (c3) comes after the end"),
    ],
)
def test_a_move_that_cannot_be_played_is_named(moves: list[str], message: str) -> None:
    with pytest.raises(OracleError, match=message.replace("(", r"\(").replace(")", r"\)")):
        review_game(TTT.initial(), moves, judge_for(TTT))


def test_cli_reviews_moves_and_names_the_mistakes() -> None:
    result = runner.invoke(
        app, ["review", "--game", "tictactoe", "--moves", "b2 a1 c3 a3 a2 c1 b1"], env={"COLUMNS": "200"}
    )
    assert result.exit_code == 0, result.output
    rows = {
        line.split("│")[1].strip(): [c.strip() for c in line.split("│")[2:-1]]
        for line in result.output.splitlines()
        if line.startswith("│")
    }
    assert rows["5"] == ["O", "c1", "draw", "loss in 2 plies", "loses the draw", "c2"]
    assert rows["6"] == ["X", "b1", "win", "win in 3 plies", "keeps the value", "c2"]
    assert rows["0"][4] == "best"
    assert "O: 3 of 3 moves judged, 2 kept the value (2 best), 1 draw lost (ply 5)" in result.output


def test_cli_reviews_connect_four_moves_written_together_with_the_distance_to_the_end() -> None:
    result = runner.invoke(app, ["review", "--game", "connect4", "--moves", "445"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    rows = {
        line.split("│")[1].strip(): [c.strip() for c in line.split("│")[2:-1]]
        for line in result.output.splitlines()
        if line.startswith("│")
    }
    assert rows["0"][:4] == ["X", "4", "win", "win in 41 plies"]  # X wins with its 21st stone, ply 41
    assert rows["2"][:5] == ["X", "5", "win", "loss in 38 plies", "throws the win"]


def test_connect_four_distances_are_the_plies_perfect_play_takes_to_the_end() -> None:
    """From positions late in random games, both sides playing a best-scoring move end the game
    exactly as many plies later as the position's value says."""
    game = parse_game("connect4")
    judge, rng, checked = judge_for(game), random.Random(5), 0
    for _ in range(40):
        state = game.initial()
        while state.ply < 26 and not state.is_over:
            state = state.play(rng.choice(state.legal_moves()))
        if state.is_over or judge.position_value(state).depth is None:
            continue
        expected, start = judge.position_value(state).depth, state.ply
        while not state.is_over:
            best = max(judge.move_values(state), key=lambda m: m.rank)
            assert best.depth == judge.position_value(state).depth
            state = state.play_index(best.action)
        assert state.ply - start == expected
        checked += 1
    assert checked >= 6  # most late positions are decided


def test_moves_written_together_are_read_only_where_a_column_is_one_digit() -> None:
    assert parse_game("connect4").move_texts("445, 3 2") == ["4", "4", "5", "3", "2"]
    assert parse_game("connect4:width=10,height=5").move_texts("10 4") == ["10", "4"]
    assert TTT.move_texts("b2,a1  c3") == ["b2", "a1", "c3"]


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    db = tmp_path_factory.mktemp("review") / "arena.sqlite"
    assert match("greedy", "random", 2, game="tictactoe", store=db, workers=0, name="ttt").played == 2
    with Store(db, read_only=True) as opened:
        return db, opened.tournaments()[0]["id"]


def test_cli_reviews_a_stored_game_as_its_moves_but_its_random_opening(store: tuple[Path, str]) -> None:
    db, tournament = store
    with Store(db, read_only=True) as opened:
        record = opened.games(tournament)[1]
    assert record.opening  # the arena's random plies
    args = ["review", "--db", str(db), "--tournament", "ttt", "--index", "1", "--json"]
    stored = runner.invoke(app, args)
    assert stored.exit_code == 0, stored.output
    moves = json.loads(stored.stdout)["moves"]
    expected = review_game(TTT.initial(), record.moves, judge_for(TTT), opening=len(record.opening))
    assert moves == expected.to_json(TTT.initial())["moves"]
    assert [m["why"] for m in moves[: len(record.opening)]] == ["the arena's opening"] * len(record.opening)
    assert all(m["verdict"] != "not judged" for m in moves[len(record.opening) :])


def test_a_stored_game_that_cannot_be_read_is_left_out_of_the_review_and_named(tmp_path: Path) -> None:
    db = tmp_path / "arena.sqlite"
    assert match("greedy", "random", 2, game="tictactoe", store=db, workers=0, name="t").played == 2
    with sqlite3.connect(db) as conn:  # a hand's edit: a reason the store does not know
        conn.execute('UPDATE games SET outcome = \'{"winner": 0, "reason": "resign"}\' WHERE game_index = 0')
    conn.close()
    result = runner.invoke(app, ["review", "--db", str(db), "--tournament", "t", "--json"])
    assert result.exit_code == 0, result.output
    assert (
        "game 0 of tournament" in result.stderr
        and "is unreadable ('resign' is not a valid Reason)" in result.stderr
    )
    assert {p["games"] for p in json.loads(result.stdout)["players"]} == {1}


def test_a_tournament_s_players_are_judged_by_spec_and_perfect_keeps_every_value(tmp_path: Path) -> None:
    db = tmp_path / "arena.sqlite"
    assert match("perfect", "random", 6, game="tictactoe", store=db, workers=0, name="p").played == 6
    with Store(db, read_only=True) as opened:
        records = opened.games(opened.tournaments()[0]["id"])
    result = runner.invoke(app, ["review", "--db", str(db), "--tournament", "p", "--json"])
    assert result.exit_code == 0, result.output
    players = {p["player"]: p for p in json.loads(result.stdout)["players"]}
    perfect, rand = players["perfect"], players["random"]
    assert perfect["games"] == rand["games"] == 6
    assert perfect["kept"] == perfect["exact"] == perfect["moves"] > 0
    assert perfect["thrown"] == perfect["lost"] == 0
    judged = sum(len(r.moves) - len(r.opening) for r in records)
    assert perfect["moves"] + rand["moves"] == judged  # every move but the openings'
    mistakes = json.loads(result.stdout)["mistakes"]
    assert {m["player"] for m in mistakes} <= {"random"}
    assert len(mistakes) == rand["thrown"] + rand["lost"]
    table = runner.invoke(app, ["review", "--db", str(db), "--tournament", "p"], env={"COLUMNS": "200"})
    assert table.exit_code == 0, table.output
    row = next(line for line in table.output.splitlines() if line.startswith("│ perfect"))
    assert [c.strip() for c in row.split("│")[2:-1]][:4] == ["6", str(perfect["moves"]), "100.0%", "100.0%"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            [],
            'say which game to review: --moves "MOVES" (with --game, and a POSITION to start elsewhere), '
            "or --db STORE --tournament NAME (with --index N for one of its games)",
        ),
        (["--game", "tictactoe"], 'say which game to review: --moves "MOVES"'),
        (["--game", "tictactoe", "--moves", " "], "--moves names no move to review"),
        (["--game", "tictactoe", "--moves", "b2 b2"], "--moves: move 2:"),
        (
            ["--game", "tictactoe", "--moves", "b2", "--index", "1"],
            "--tournament and --index choose a game of --db",
        ),
        (["--db", "{db}"], "--db needs --tournament (id or name), and --index for one game of it"),
        (
            ["--db", "{db}", "--tournament", "ttt", "--index", "7"],
            "--index 7: tournament ttt holds games 0..1",
        ),
        (["--db", "{db}", "--tournament", "nope", "--index", "0"], "no tournament is named 'nope'"),
        (
            ["--db", "{db}", "--tournament", "ttt", "--index", "0", "--moves", "b2"],
            "give no position, --moves or --game",
        ),
        (["--db", "{tmp}/none.sqlite", "--tournament", "ttt", "--index", "0"], "no such store"),
        (["--moves", "a1e1", "--dir", "{tmp}"], "no exact judge for quixo"),
        (["--game", "tictactoe", "--moves", "b2", "--from-ply", "-1"], "--from-ply"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    store: tuple[Path, str], tmp_path: Path, args: list[str], message: str
) -> None:
    args = [a.replace("{db}", str(store[0])).replace("{tmp}", str(tmp_path)) for a in args]
    result = runner.invoke(app, ["review", *args])
    assert result.exit_code == 2, result.output
    text = result.output.strip()
    assert message in text and len(text.splitlines()) == 1, text


def test_cli_json_holds_every_move_and_each_side_s_tally() -> None:
    result = runner.invoke(
        app, ["review", "--game", "tictactoe", "--moves", "b2 a1 c3 a3 a2 c1 b1", "--json"]
    )
    assert result.exit_code == 0, result.output
    assert "Reviewing 7 moves" in result.stderr
    data = json.loads(result.stdout)
    assert (data["game"], data["start"]) == ("tictactoe", parse_game("tictactoe").initial().to_text())
    assert [m["move"] for m in data["moves"]] == ["b2", "a1", "c3", "a3", "a2", "c1", "b1"]
    assert data["moves"][5] == {
        "ply": 5,
        "mover": 1,
        "move": "c1",
        "verdict": "loses the draw",
        "value": "draw",
        "played": "loss",
        "plies": 2,
        "best": ["c2"],
        "why": "",
    }
    assert [(side["moves"], side["kept"], side["lost"]) for side in data["sides"]] == [(4, 4, 0), (3, 2, 1)]
