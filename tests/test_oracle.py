"""The oracle: judges agree with plain search, perfect play scores 1.0, the CLI and its files."""

from __future__ import annotations

import inspect
import json
import math
import random
from pathlib import Path
from typing import Any

import broken_players
import pytest
import typer
from typer.testing import CliRunner

from boardlab import games
from boardlab.agents.base import Agent, make_agent
from boardlab.arena import oracle
from boardlab.arena.oracle import (
    AgentFailure,
    GameJudgement,
    MoveAccuracy,
    OpponentResult,
    OracleError,
    OracleReport,
    Tally,
    judge_for,
    judge_move,
    measure,
    move_accuracy,
    play_judged_game,
    plot_accuracy,
    write_json,
)
from boardlab.games import DRAW, LOSS, WIN, parse_game
from boardlab.games.exact import ExactPlayError, MoveValue
from boardlab.games.quixo.exact import QuixoTablesPlay
from boardlab.play.referee import AgentForfeit
from boardlab.ui.oracle_cli import game_spec, register, split_specs, summary_lines

QUICK = ("random", "greedy")


@pytest.fixture(scope="module")
def quixo3():
    return parse_game("quixo:size=3")


@pytest.fixture(scope="module")
def tictactoe():
    return parse_game("tictactoe")


def _random_positions(game, count: int, plies: range, seed: int) -> list:
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        state = game.initial()
        for _ in range(rng.choice(plies)):
            if state.is_over:
                break
            state = state.play_index(rng.choice(state.legal_indices()))
        if not state.is_over:
            out.append(state)
    return out


# --- judges against plain search ----------------------------------------------------------------


def _negamax(state) -> int:
    """Plain minimax value for the side to move (no memo, no solver)."""
    outcome = state.outcome
    if outcome is not None:
        return DRAW if outcome.winner is None else (WIN if outcome.winner == state.to_move else LOSS)
    return max(-_negamax(state.play_index(a)) for a in state.legal_indices())


def test_tictactoe_judge_agrees_with_plain_search(tictactoe) -> None:
    judge = judge_for(tictactoe)
    for state in _random_positions(tictactoe, 6, range(3, 6), seed=5):
        for move in judge.move_values(state):
            assert move.value == -_negamax(state.play_index(move.action)), (state.to_text(), move)


def _wins_within(state, plies: int) -> bool:
    """The side to move can force a win within ``plies`` plies (plain search)."""
    if state.outcome is not None:
        return state.outcome.winner == state.to_move
    if plies <= 0:
        return False
    return any(_loses_within(state.play_index(a), plies - 1) for a in state.legal_indices())


def _loses_within(state, plies: int) -> bool:
    """Whatever the side to move does, it loses within ``plies`` plies."""
    if state.outcome is not None:
        return state.outcome.winner == 1 - state.to_move
    if plies <= 0:
        return False
    return all(_wins_within(state.play_index(a), plies - 1) for a in state.legal_indices())


def test_quixo_judge_agrees_with_the_tables_and_with_plain_search(quixo3) -> None:
    from boardlab.games.quixo.exact import tables_for

    judge = judge_for(quixo3)
    tables = tables_for(3)
    checked_short = 0
    for state in _random_positions(quixo3, 12, range(4, 12), seed=3):
        for move in judge.move_values(state):
            child = state.play_index(move.action)
            value, depth = tables.value(child.a, child.b)
            assert (move.value, move.depth) == (-value, depth + 1)
            if move.value == WIN and move.depth <= 3:
                assert _loses_within(child, move.depth - 1)
                if move.depth >= 2:  # not faster either: the depth is exact
                    assert not _loses_within(child, move.depth - 2)
                checked_short += 1
    assert checked_short > 0


def test_quixo_judge_counts_cubes(quixo3) -> None:
    judge = judge_for(quixo3)
    state = quixo3.parse_position("X.O.O.X.. O 5")
    assert judge.pieces_label == "cubes" and judge.pieces(state) == 4


def test_no_judge_and_missing_tables_are_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(OracleError, match="boardlab solve quixo --size 4"):
        judge_for("quixo:size=4", tmp_path)
    monkeypatch.setattr(games.game_class("nim"), "exact_play", ())
    with pytest.raises(OracleError, match="no exact judge for nim"):
        judge_for("nim")


def test_one_move_is_tallied() -> None:
    values = [MoveValue(0, WIN, 3), MoveValue(1, WIN, 5), MoveValue(2, DRAW, 9)]
    assert judge_move(values, 0) == Tally(moves=1, kept=1, exact=1, won=1, thrown=0)
    assert judge_move(values, 1) == Tally(moves=1, kept=1, exact=0, won=1, thrown=0)
    assert judge_move(values, 2) == Tally(moves=1, kept=0, exact=0, won=1, thrown=1)
    drawn = [MoveValue(0, DRAW, 2), MoveValue(1, LOSS, 1)]
    assert judge_move(drawn, 0) == Tally(moves=1, kept=1, exact=1, drawn=1, lost=0)
    assert judge_move(drawn, 1) == Tally(moves=1, kept=0, exact=0, won=0, thrown=0, drawn=1, lost=1)
    lost = [MoveValue(0, LOSS, 4), MoveValue(1, LOSS, 2)]
    assert judge_move(lost, 1) == Tally(moves=1, kept=1, exact=0)  # a lost position loses nothing
    with pytest.raises(OracleError):
        judge_move(drawn, 7)


# --- accuracy of agents -------------------------------------------------------------------------


@pytest.mark.parametrize("game", ["quixo:size=3", "tictactoe"])
def test_perfect_agent_keeps_every_value(game: str) -> None:
    report = measure("perfect", game, opponents=QUICK, games=4, seed=1)
    assert report.games == 8 and report.moves > 8
    assert report.accuracy == 1.0 and report.exact_accuracy == 1.0
    assert report.thrown_games == 0 and report.tally.thrown == 0
    assert report.won_games > 0 and report.unconverted == 0  # every win stood is taken
    assert report.distinct.accuracy == 1.0 and 0 < report.distinct.moves <= report.moves
    assert sum(t.moves for t in report.by_pieces.values()) == report.moves


def test_random_agent_makes_mistakes_on_quixo3() -> None:
    report = measure("random", "quixo:size=3", opponents=QUICK, games=4, seed=1)
    assert report.accuracy < 1.0
    assert report.thrown_share > 0.0
    assert report.exact_accuracy <= report.accuracy
    # the games stood won and then won are among the wins (the others the opponent gave away)
    assert report.won_games - report.unconverted <= sum(r.wins for r in report.opponents)
    assert 0 < report.unconverted <= report.won_games


def test_thrown_wins_are_recorded_with_the_winning_move(quixo3) -> None:
    report = measure("random", quixo3, opponents=QUICK, games=4, seed=1)
    judge = judge_for(quixo3)
    thrown = [t for r in report.opponents for t in r.thrown_wins]
    assert len(thrown) == report.tally.thrown > 0
    for t in thrown:
        state = quixo3.parse_position(t.position)
        values = {str(state.move_from_index(v.action)): v for v in judge.move_values(state)}
        assert state.ply == t.ply and values[t.played].name == t.value != "win"
        assert t.wins == sum(v.value == WIN for v in values.values())
        fastest = values[t.fastest]
        assert fastest.value == WIN and fastest.depth == t.plies
        assert t.plies == min(v.depth for v in values.values() if v.value == WIN)
    listed = [t["played"] for r in report.to_json()["opponents"] for t in r["thrown_wins"]]
    assert listed == [t.played for t in thrown]


def test_lost_draws_are_recorded_with_a_drawing_move(tictactoe) -> None:
    report = measure("random", tictactoe, opponents=["perfect"], games=6, seed=2)
    judge = judge_for(tictactoe)
    lost = [t for r in report.opponents for t in r.lost_draws]
    assert len(lost) == report.tally.lost > 0 and report.tally.drawn >= report.tally.lost
    # every move not keeping the value threw a win away or lost a draw
    assert report.tally.moves - report.tally.kept == report.tally.thrown + report.tally.lost
    for t in lost:
        state = tictactoe.parse_position(t.position)
        values = {str(state.move_from_index(v.action)): v for v in judge.move_values(state)}
        assert state.ply == t.ply and max(v.value for v in values.values()) == DRAW
        assert values[t.played].value == LOSS and values[t.played].depth == t.plies
        assert values[t.drawing].value == DRAW
        assert t.draws == sum(v.value == DRAW for v in values.values())
    listed = [t["played"] for r in report.to_json()["opponents"] for t in r["lost_draws"]]
    assert listed == [t.played for t in lost]


def test_same_seed_same_report() -> None:
    first = measure("random", "tictactoe", opponents=["random"], games=4, seed=7).to_json()
    second = measure("random", "tictactoe", opponents=["random"], games=4, seed=7).to_json()
    first.pop("seconds")
    second.pop("seconds")
    assert first == second


def test_a_report_adds_up_the_games_it_played(monkeypatch: pytest.MonkeyPatch) -> None:
    played: list[tuple[int, Any, GameJudgement]] = []
    judge_game = oracle.play_judged_game

    def recorded(game: Any, agent: Any, opponent: Any, colour: int, start: Any, *rest: Any) -> GameJudgement:
        judged = judge_game(game, agent, opponent, colour, start, *rest)
        played.append((colour, start, judged))
        return judged

    monkeypatch.setattr(oracle, "play_judged_game", recorded)
    report = measure("random", "tictactoe", opponents=("random",), games=4, seed=3)
    assert len(played) == report.games == 4
    for o, result in enumerate(report.opponents):
        games = played[4 * o : 4 * o + 4]
        assert [colour for colour, _, _ in games] == [0, 1, 0, 1]
        assert games[0][1] == games[1][1] and games[2][1] == games[3][1]  # one opening per pair of games
        winners = [judged.final.outcome.winner for _, _, judged in games]
        colours = [colour for colour, _, _ in games]
        assert (result.wins, result.draws, result.losses) == (
            sum(w == c for w, c in zip(winners, colours, strict=True)),
            winners.count(None),
            sum(w == 1 - c for w, c in zip(winners, colours, strict=True)),
        )
        assert result.thrown_games == sum(judged.tally.thrown > 0 for _, _, judged in games)
        assert result.won_games == sum(judged.stood_won for _, _, judged in games)
        stood = [judged.stood_won for _, _, judged in games]
        assert result.unconverted == sum(
            s and w != c for s, w, c in zip(stood, winners, colours, strict=True)
        )
        assert result.tally.moves == sum(judged.tally.moves for _, _, judged in games)
        assert result.tally.thrown == sum(judged.tally.thrown for _, _, judged in games)
    assert 0 < report.thrown_games < report.tally.thrown  # a game can throw more than one win away


def test_move_accuracy_shares() -> None:
    accuracy = MoveAccuracy("random", positions=10, kept=4, kept_outcome=6, won=5, thrown=2)
    assert (accuracy.kept_share, accuracy.outcome_share, accuracy.thrown_share) == (0.4, 0.6, 0.4)
    assert math.isnan(MoveAccuracy("random", 0, 0, 0, 0, 0).thrown_share)


def test_moves_before_from_ply_are_played_not_judged() -> None:
    report = measure("random", "tictactoe", opponents=["random"], games=2, seed=0, from_ply=4)
    assert report.moves > 0 and report.unjudged > 0
    assert min(report.by_pieces) == 4  # tictactoe counts plies
    assert measure("random", "tictactoe", opponents=["random"], games=2, from_ply=99).moves == 0


def test_connect4_judge_agrees_with_plain_search() -> None:
    game = parse_game("connect4")
    judge = judge_for(game)
    for state in _random_positions(game, 3, range(36, 37), seed=2):
        for move in judge.move_values(state):
            assert move.value == -_negamax(state.play_index(move.action)), (state.to_text(), move)


def test_report_files(tmp_path: Path) -> None:
    report = measure("greedy", "quixo:size=3", opponents=["random"], games=2, seed=0)
    data = json.loads(write_json(report, tmp_path / "o.json").read_text())
    assert data["moves"] == report.moves and data["by_pieces"][0]["cubes"] >= 0
    png = plot_accuracy([report], tmp_path / "o.png").read_bytes()
    assert png.startswith(b"\x89PNG")
    assert plot_accuracy([report, report], tmp_path / "two.png").exists()


# --- the command --------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def cli() -> typer.Typer:
    app = typer.Typer()

    @app.callback()
    def main() -> None:
        """boardlab (test copy)"""

    register(app)
    return app


def test_cli_writes_the_table_the_json_and_the_plot(cli: typer.Typer, tmp_path: Path) -> None:
    args = [
        "oracle",
        "perfect",
        "--size",
        "3",
        "--games",
        "2",
        "--opponents",
        "random",
        "--out",
        str(tmp_path),
    ]
    result = CliRunner().invoke(cli, args, terminal_width=120)
    assert result.exit_code == 0, result.output
    assert "100.0%" in result.output and "cubes" in result.output
    data = json.loads((tmp_path / "oracle.json").read_text())
    assert data["agent"] == "perfect" and data["accuracy"] == 1.0 and data["games"] == 2
    assert (tmp_path / "oracle.png").read_bytes().startswith(b"\x89PNG")
    assert "positions thrown away" not in result.output  # perfect play throws nothing
    assert "positions lost" not in result.output


def test_cli_lists_the_wins_thrown_away(cli: typer.Typer, tmp_path: Path) -> None:
    args = ["oracle", "random", "--size", "3", "--games", "4", "--opponents", "greedy"]
    args += ["--out", str(tmp_path)]
    result = CliRunner().invoke(cli, args, terminal_width=160)
    assert result.exit_code == 0, result.output
    data = json.loads((tmp_path / "oracle.json").read_text())
    first = data["opponents"][0]["thrown_wins"][0]
    assert "Won positions thrown away" in result.output and first["position"] in result.output


def test_cli_lists_the_draws_lost_and_names_opponents_on_a_narrow_terminal(
    cli: typer.Typer, tmp_path: Path
) -> None:
    args = ["oracle", "random", "--game", "tictactoe", "--games", "6", "--seed", "2"]
    args += ["--opponents", "perfect alphabeta:depth=2", "--out", str(tmp_path)]
    result = CliRunner().invoke(cli, args, terminal_width=80)
    assert result.exit_code == 0, result.output
    assert max(len(line) for line in result.output.splitlines()) <= 80
    data = json.loads((tmp_path / "oracle.json").read_text())
    first = next(t for r in data["opponents"] for t in r["lost_draws"])
    assert "Drawn positions lost" in result.output and first["position"] in result.output
    for name in ("perfect", "alphabeta:depth=2"):  # the opponent column keeps its names
        assert sum(line.count(name) for line in result.output.splitlines()) >= 2


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["oracle", "nosuch", "--size", "3"], "unknown agent 'nosuch'"),
        (["oracle", "random", "--size", "3", "--opponents", "random nosuch"], "unknown agent 'nosuch'"),
        (["oracle", "random", "--game", "chess"], "unknown game"),
        (["oracle", "random", "--size", "4", "--tables", "{tmp}"], "boardlab solve quixo --size 4"),
        (["oracle", "random", "--game", "tictactoe", "--size", "3"], "--size is for Quixo"),
        (["oracle", "random", "--size", "3", "--games", "0"], "--games must be at least 1, got 0"),
        (["oracle", "random", "--size", "3", "--opening", "-1"], "--opening must be 0 or more, got -1"),
        (["oracle", "random", "--size", "3", "--from-ply", "-1"], "--from-ply must be 0 or more, got -1"),
        (["oracle", "random", "--size", "3", "--opponents", ", ;"], "--opponents names no agent"),
        (["oracle", "random", "--game", "nim"], "no exact judge for nim"),
        (
            ["oracle", "random", "--size", "3", "--from-ply", "200"],
            "ends by ply 200; no move would be judged",
        ),
    ],
)
def test_cli_bad_input_is_one_line_and_exit_2(
    cli: typer.Typer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str], message: str
) -> None:
    monkeypatch.setattr(games.game_class("nim"), "exact_play", ())
    args = [a.replace("{tmp}", str(tmp_path / "none")) for a in args]
    result = CliRunner().invoke(cli, args, terminal_width=400)
    assert result.exit_code == 2, result.output
    text = result.output.strip()
    assert message in text and len(text.splitlines()) == 1, text
    assert not (tmp_path / "none").exists()


def test_dash_n_is_the_number_of_games_as_in_match_and_tournament(cli: typer.Typer, tmp_path: Path) -> None:
    args = ["oracle", "random", "--game", "tictactoe", "-n", "3", "--opponents", "random"]
    result = CliRunner().invoke(cli, [*args, "--out", str(tmp_path)], terminal_width=200)
    assert result.exit_code == 0, result.output
    assert json.loads((tmp_path / "oracle.json").read_text())["games"] == 3


def _report(
    won: int, unconverted: int, capped: int = 0, unjudged: int = 0, from_ply: int = 0
) -> OracleReport:
    against = OpponentResult("random", games=8, won_games=won, unconverted=unconverted, capped=capped)
    against.unjudged = unjudged
    return OracleReport("greedy", "quixo", "tables", "cubes", 0, 2, [against], {}, from_ply=from_ply)


@pytest.mark.parametrize(
    ("won", "unconverted", "sentence"),
    [
        (7, 0, "The agent had a won position in 7 of 8 games and won all 7."),
        (1, 0, "The agent had a won position in 1 of 8 games and won it."),
        (7, 2, "The agent had a won position in 7 of 8 games and won 5 of them, letting 2 slip."),
        (3, 3, "The agent had a won position in 3 of 8 games and won none of them."),
        (1, 1, "The agent had a won position in 1 of 8 games and did not win it."),
    ],
)
def test_the_summary_says_how_many_won_positions_were_won(won: int, unconverted: int, sentence: str) -> None:
    assert summary_lines(_report(won, unconverted)) == [sentence]


def test_the_summary_counts_capped_games_and_unjudged_moves_in_plain_words() -> None:
    assert summary_lines(_report(0, 0)) == []  # nothing to say
    capped, unjudged = summary_lines(_report(0, 0, capped=1, unjudged=1))
    assert capped.startswith("1 of 8 games was drawn by the ply cap: ")
    assert unjudged == "1 move of the agent was not judged: in positions the judge does not cover."
    capped, unjudged = summary_lines(_report(0, 0, capped=2, unjudged=1_200, from_ply=6))
    assert capped.startswith("2 of 8 games were drawn by the ply cap: ")
    assert unjudged == (
        "1,200 moves of the agent were not judged: before ply 6 (--from-ply) or in positions the judge "
        "does not cover."
    )


def test_cli_judging_no_move_writes_nothing_and_exits_2(cli: typer.Typer, tmp_path: Path) -> None:
    # Tic-Tac-Toe has no ply cap, but no game of it reaches ply 9 with a move left to judge
    args = ["oracle", "random", "--game", "tictactoe", "--games", "1", "--opponents", "random"]
    result = CliRunner().invoke(cli, [*args, "--from-ply", "9", "--out", str(tmp_path)], terminal_width=400)
    assert result.exit_code == 2, result.output
    assert result.stderr.strip().splitlines() == [
        "Error: no move of random was judged: every game ended before ply 9 (--from-ply) or left the "
        "positions the judge covers; nothing written"
    ]
    assert not list(tmp_path.iterdir())


def test_option_parsing() -> None:
    assert split_specs(["hybrid:search=(alphabeta:tt=12,sym=false),time=0.1,random"]) == [
        "hybrid:search=(alphabeta:tt=12,sym=false),time=0.1",
        "random",
    ]
    assert split_specs(["random greedy,alphabeta:depth=2,eval=lines3;mcts:iters=5"]) == [
        "random",
        "greedy",
        "alphabeta:depth=2,eval=lines3",
        "mcts:iters=5",
    ]
    assert split_specs(["alphabeta:depth=2,mcts:iters=5", "random"]) == [
        "alphabeta:depth=2",
        "mcts:iters=5",
        "random",
    ]
    assert game_spec("quixo", None) == "quixo:size=4"
    assert game_spec("quixo:ply_cap=50", 3) == "quixo:ply_cap=50,size=3"
    assert game_spec("tictactoe", None) == "tictactoe"


def test_5x5_games_start_where_the_endgame_tables_reach() -> None:
    class Tables:  # stands in for the 5x5 tables: every open position is a slow win
        size, rulebook = 5, "official"

        def has_class(self, a: int, b: int) -> bool:
            return a + b >= 24

        def covers(self, me: int, opp: int) -> bool:
            return self.has_class(me.bit_count(), opp.bit_count())

        def value(self, me: int, opp: int) -> tuple[int, int]:
            return WIN, 9

    game = parse_game("quixo")
    judge = QuixoTablesPlay.__new__(QuixoTablesPlay)
    judge.game, judge.endgames_only, judge.table_set = game, True, Tables()
    rng = random.Random(5)
    starts = [judge.start(rng) for _ in range(200)]
    assert all(not s.is_over and (s.a | s.b).bit_count() >= 24 for s in starts)
    assert {(s.a | s.b).bit_count() for s in starts} == {24, 25}
    assert {s.to_move for s in starts} == {0, 1}
    assert all(s.ply % 2 == s.to_move for s in starts)


def test_5x5_starts_decided_at_once_are_not_kept() -> None:
    class Tables:  # every open position a win in 1: no start is quiet enough
        size, rulebook = 5, "official"

        def has_class(self, a: int, b: int) -> bool:
            return a + b >= 24

        def covers(self, me: int, opp: int) -> bool:
            return self.has_class(me.bit_count(), opp.bit_count())

        def value(self, me: int, opp: int) -> tuple[int, int]:
            return WIN, 1

    judge = QuixoTablesPlay.__new__(QuixoTablesPlay)
    judge.game, judge.endgames_only, judge.table_set = parse_game("quixo"), True, Tables()
    with pytest.raises(ExactPlayError, match="no open endgame position"):
        judge.start(random.Random(0))


def test_a_win_the_ply_cap_comes_before_is_judged_a_draw_not_thrown() -> None:
    # O wins in 3 plies here without a cap; a cap 2 plies away makes every move a draw
    game = parse_game("quixo:size=3,ply_cap=7")
    judge = judge_for(game)
    start = game.parse_position("X..O.O..X O 5")
    slow = next(v.action for v in judge.move_values(start) if v.value == LOSS)

    class Stub:
        def choose(self, state: Any) -> Any:
            return state.move_from_index(slow if state.ply == 5 else state.legal_indices()[0])

    judged = play_judged_game(game, Stub(), Stub(), start.to_move, start, judge, {})  # type: ignore[arg-type]
    assert judged.final.outcome.reason.value == "ply_cap"
    assert (judged.tally.won, judged.tally.thrown, judged.tally.drawn, judged.tally.kept) == (0, 0, 1, 1)
    assert judged.thrown == []


def test_move_accuracy_judges_under_the_ply_cap() -> None:
    # O wins in 3 plies without a cap; 2 plies from the cap every move draws, none is thrown
    position = parse_game("quixo:size=3,ply_cap=7").parse_position("X..O.O..X O 5")
    accuracy = move_accuracy("random", [position], seed=1)
    assert (accuracy.positions, accuracy.kept, accuracy.won, accuracy.thrown) == (1, 1, 0, 0)


def test_move_accuracy_refuses_a_position_its_judge_does_not_cover() -> None:
    class Tables:  # stands in for 5x5 tables of endgames with no blank cube
        size, rulebook = 5, "official"

        def covers(self, me: int, opp: int) -> bool:
            return (me | opp).bit_count() == 25

    game = parse_game("quixo")
    judge = QuixoTablesPlay.__new__(QuixoTablesPlay)
    judge.game, judge.endgames_only, judge.table_set = game, True, Tables()
    with pytest.raises(OracleError, match="not covered by the judge: the 5x5 Quixo tables"):
        move_accuracy("random", [game.initial()], judge=judge)


def test_cli_on_a_very_narrow_terminal_keeps_every_column_and_header_whole(
    cli: typer.Typer, tmp_path: Path
) -> None:
    # 60 columns cannot hold the tables: they run wider rather than cut a header ("drawi…")
    # or drop the last columns off the edge
    args = ["oracle", "random", "--game", "tictactoe", "--games", "2", "--seed", "2"]
    args += ["--opponents", "greedy", "--out", str(tmp_path)]
    result = CliRunner().invoke(cli, args, env={"COLUMNS": "60"})
    assert result.exit_code == 0, result.output
    assert "…" not in result.output
    headers = ("distinct", "draws lost", "drawing", "plies", "exact")
    assert all(name in result.output for name in headers), result.output
    data = json.loads((tmp_path / "oracle.json").read_text())
    assert f"{data['accuracy']:.1%}" in result.output


def _table_rows(output: str, title: str) -> list[list[str]]:
    """The cells of each body row of the table titled ``title`` (up to the next table)."""
    lines = output.splitlines()
    start = next(k for k, line in enumerate(lines) if title in line)
    rows: list[list[str]] = []
    for line in lines[start + 1 :]:
        if line.startswith("└"):
            break
        if line.startswith("│"):
            rows.append([cell.strip() for cell in line.split("│")[1:-1]])
    return rows


def test_cli_reports_games_stood_won_or_capped_and_moves_not_judged(cli: typer.Typer, tmp_path: Path) -> None:
    args = ["oracle", "random", "--game", "quixo:size=3,ply_cap=12", "--games", "12", "--from-ply", "2"]
    result = CliRunner().invoke(
        cli, [*args, "--opponents", "greedy random", "--out", str(tmp_path)], terminal_width=200
    )
    assert result.exit_code == 0, result.output
    data = json.loads((tmp_path / "oracle.json").read_text())
    text = " ".join(result.output.split())
    assert data["won_games"] and data["capped"] and data["unjudged"]
    games, won_games, unconverted = data["games"], data["won_games"], data["unconverted"]
    assert 0 < unconverted < won_games
    assert (
        f"The agent had a won position in {won_games} of {games} games and won {won_games - unconverted} "
        f"of them, letting {unconverted} slip." in text
    )
    assert f"{data['capped']} of {games} games were drawn by the ply cap" in text
    assert f"{data['unjudged']} moves of the agent were not judged: before ply 2 (--from-ply)" in text
    totals = [sum(r[key] for r in data["opponents"]) for key in ("wins", "draws", "losses")]
    rows = _table_rows(result.output, "judged by")
    assert rows[-1][:2] == ["all", "-".join(map(str, totals))]
    thrown = sum(len(r["thrown_wins"]) for r in data["opponents"])
    assert thrown > 20 and f"Won positions thrown away ({thrown};" in result.output
    assert len(_table_rows(result.output, "Won positions thrown away")) == 20  # the rest in the JSON


def test_cli_shows_no_share_for_an_opponent_none_of_whose_moves_were_judged(
    cli: typer.Typer, tmp_path: Path
) -> None:
    # the games against perfect play end before ply 7; those against random go on
    args = ["oracle", "random", "--size", "3", "--games", "2", "--from-ply", "7"]
    result = CliRunner().invoke(
        cli, [*args, "--opponents", "perfect random", "--out", str(tmp_path)], terminal_width=200
    )
    assert result.exit_code == 0, result.output
    perfect, rest, _ = _table_rows(result.output, "judged by")
    assert perfect[0] == "perfect" and perfect[2:] == ["0", "-", "-", "-"]
    assert rest[0] == "random" and "-" not in rest[3:]


@pytest.mark.timeout(120)
def test_cli_says_in_one_line_which_agent_forfeited_where_and_why(cli: typer.Typer, tmp_path: Path) -> None:
    player = broken_players.spec("FiveByFivePlayer")
    args = ["oracle", player, "--game", "quixo:rules=course", "--size", "3", "--games", "2"]
    result = CliRunner().invoke(
        cli, [*args, "--opponents", "random", "--out", str(tmp_path)], terminal_width=400
    )
    assert result.exit_code == 2, result.output
    line = inspect.getsourcelines(broken_players.FiveByFivePlayer.make_move)[1] + 1  # its first line
    assert result.stderr.strip().splitlines() == [
        f"Error: {player} forfeited at ply 0 of game 1 against random (position ......... X 0): "
        "raised IndexError: index 4 is out of bounds for axis 0 with size 3 "
        f"(at broken_players.py:{line}, in make_move) "
        "(the board is 3x3: read its size from game.get_board(), do not assume 5x5)"
    ]
    assert not list(tmp_path.iterdir())


def _failing(spec: str, choose: Any) -> Agent:
    agent = make_agent(spec, seed=0)
    agent.choose = choose  # type: ignore[method-assign]
    return agent


def test_a_forfeit_or_an_illegal_move_in_a_judged_game_names_the_agent_and_the_position(quixo3) -> None:
    judge = judge_for(quixo3)
    start = quixo3.initial()

    def forfeits(state: Any) -> Any:
        raise AgentForfeit("no move within 1 s (stopped)")

    def plays_the_first_move_twice(state: Any) -> Any:
        return start.legal_moves()[0] if state.ply < 2 else "a1a3"

    with pytest.raises(AgentFailure) as caught:
        play_judged_game(quixo3, make_agent("random", 0), _failing("greedy", forfeits), 0, start, judge, {})
    assert str(caught.value).startswith("greedy forfeited at ply 1 (position ")
    assert str(caught.value).endswith("): no move within 1 s (stopped)")
    illegal = _failing("random", plays_the_first_move_twice)
    with pytest.raises(
        AgentFailure,
        match=r"^random forfeited at ply 2 \(position .+\): answered the text 'a1a3'; an agent returns a "
        r"move object \(state\.parse_move\('a1a3'\)\)$",
    ):
        play_judged_game(quixo3, illegal, make_agent("random", 1), 0, start, judge, {})
