"""``boardlab analyze`` by a search: where no exact play covers a position, and with ``--agent``."""

from __future__ import annotations

import random
from pathlib import Path

import broken_players
import numpy as np
import pytest
from rich.console import Console
from typer.testing import CliRunner

from boardlab.agents import make_agent
from boardlab.agents.decision import Decision, Limit, SearchInfo
from boardlab.games import exact_play, new_game, parse_game
from boardlab.ui.cli import app
from boardlab.ui.search_analysis import POLICY_ROWS, SEARCH_AGENT, decision_summary, show_decision

runner = CliRunner()
WIDE = {"COLUMNS": "200"}
OPENING_5X5 = "X...O.................... X 2"


def _field(output: str, name: str) -> str:
    """The text after ``name`` on the line of the decision that starts with it."""
    lines = [line.strip() for line in output.splitlines() if line.strip().startswith(name + " ")]
    assert len(lines) == 1, output
    return lines[0][len(name) :].strip()


def _shown(state: object, spec: str, decision: Decision) -> str:
    console = Console(record=True, width=200)
    show_decision(console, state, spec, 1.0, decision)
    return console.export_text()


def test_a_position_no_exact_play_covers_is_analysed_by_the_default_search(tmp_path: Path) -> None:
    # no tables in tmp_path: the exact play says why, and alpha-beta answers instead
    result = runner.invoke(
        app, ["analyze", OPENING_5X5, "--dir", str(tmp_path), "--seconds", "0.2"], env=WIDE
    )
    assert result.exit_code == 0, result.output
    assert "X to move; no exact value: the 5x5 Quixo tables are not built in" in result.output
    assert "boardlab solve quixo --size 5 --blanks 1" in result.output
    assert f"{SEARCH_AGENT}, up to 0.2 s of search:" in result.output
    state = parse_game("quixo").parse_position(OPENING_5X5)
    best = _field(result.output, "best move")
    assert best in {str(m) for m in state.legal_moves()}
    assert _field(result.output, "line").split()[0] == best
    assert "legal moves, best first" not in result.output  # no exact table


def test_a_4x4_position_without_its_tables_names_the_command_that_builds_them(tmp_path: Path) -> None:
    args = ["analyze", "X.O.O.X..O.O.X.. O 9", "--dir", str(tmp_path), "--seconds", "0.1"]
    result = runner.invoke(app, args, env=WIDE)
    assert result.exit_code == 0, result.output
    assert "no exact value: the 4x4 Quixo tables are not built" in result.output
    assert "boardlab solve quixo --size 4" in result.output


def test_agent_searches_even_where_exact_play_answers() -> None:
    # O wins at once on the anti-diagonal; exact play would list the 16 moves instead
    result = runner.invoke(
        app, ["analyze", "X.O.O.X.. O 5", "--agent", "alphabeta", "--seconds", "0.5"], env=WIDE
    )
    assert result.exit_code == 0, result.output
    assert "no exact value" not in result.output and "legal moves, best first" not in result.output
    assert "alphabeta, up to 0.5 s of search:" in result.output
    assert _field(result.output, "evaluation") == "a proven win for O in 1 ply"
    assert _field(result.output, "value").startswith("+1.000 for O")
    state = parse_game("quixo:size=3").parse_position("X.O.O.X.. O 5")
    assert state.play(_field(result.output, "best move")).outcome.winner == 1


def test_a_proven_result_is_shown_with_the_distance_perfect_play_gives() -> None:
    # alpha-beta's proven wins and losses against Tic-Tac-Toe's full solve, over random games
    game = new_game("tictactoe").game
    exact = exact_play(game)
    agent = make_agent("alphabeta", seed=0, game=game)
    rng, checked = random.Random(3), 0
    for _ in range(6):
        state = game.initial()
        while not state.is_over:
            value = exact.position_value(state)
            if value.value != 0:
                side = game.symbols[state.to_move]
                result, plies = ("win", value.depth) if value.value > 0 else ("loss", value.depth)
                words = f"a proven {result} for {side} in {plies} {'ply' if plies == 1 else 'plies'}"
                decision = agent.act(state, Limit(depth=9))  # to the end: proven whatever the load
                assert _field(_shown(state, "alphabeta", decision), "evaluation") == words
                checked += 1
            state = state.play(rng.choice(state.legal_moves()))
    assert checked >= 5


def test_a_heuristic_score_is_shown_in_the_search_s_units_and_a_value_once() -> None:
    state = parse_game("quixo").parse_position(OPENING_5X5)
    info = SearchInfo(depth=3, nodes=1234, seconds=0.5, score=-12.5, pv=("e3a3", "e4e1"), engine="alphabeta")
    text = _shown(state, "alphabeta", Decision(state.legal_moves()[0], info=info))
    assert _field(text, "evaluation") == "-12.50 for X (in the search's own units)"
    assert _field(text, "depth") == "3 (1,234 nodes in 0.50 s, alphabeta)"
    assert _field(text, "line") == "e3a3 e4e1"
    assert "value" not in text and "policy" not in text
    # with a value (MCTS: the score is the same mean), the score is not shown again
    text = _shown(state, "mcts", Decision(state.legal_moves()[0], value=0.25, info=info))
    assert _field(text, "value").startswith("+0.250 for X") and "evaluation" not in text


def test_a_search_that_gives_no_node_count_is_shown_without_one() -> None:
    state = parse_game("tictactoe").initial()
    info = SearchInfo(depth=4, nodes=None, seconds=1.47, pv=("b2",), engine="my-engine d4")  # an engine's
    text = _shown(state, "engine:cmd=./my_engine", Decision(state.legal_moves()[4], info=info))
    assert _field(text, "depth") == "4 (1.47 s, my-engine d4)"
    untold = SearchInfo(depth=0, nodes=None, seconds=1.47, engine="my-engine")  # neither depth nor nodes
    text = _shown(state, "engine:cmd=./my_engine", Decision(state.legal_moves()[4], info=untold))
    assert _field(text, "time") == "(1.47 s, my-engine)" and "depth" not in text
    zero = SearchInfo(depth=1, nodes=0, seconds=0.01, engine="alphabeta")  # a count of none is a count
    assert _field(_shown(state, "alphabeta", Decision(state.legal_moves()[0], info=zero)), "depth") == (
        "1 (0 nodes in 0.01 s, alphabeta)"
    )


def test_a_policy_is_listed_largest_share_first() -> None:
    state = parse_game("quixo").parse_position(OPENING_5X5)
    legal = state.legal_indices()
    policy = [0.0] * state.game.kernel.num_actions
    for rank, action in enumerate(legal):
        policy[action] = (rank + 1) / sum(range(1, len(legal) + 1))
    decision = Decision(state.move_from_index(legal[-1]), policy=np.array(policy))
    text = _shown(state, "alphazero", decision)
    assert f"policy      {POLICY_ROWS} of {len(legal)} moves, largest share first:" in text
    rows = [line.split() for line in text.splitlines() if line.strip().endswith("%")]
    assert [row[0] for row in rows] == [str(state.move_from_index(a)) for a in reversed(legal[-POLICY_ROWS:])]
    shares = [float(row[1]) for row in rows]
    assert shares == sorted(shares, reverse=True)
    assert shares[0] == pytest.approx(100 * policy[legal[-1]], abs=0.05)


def test_connect4_with_an_agent_is_searched_not_solved() -> None:
    result = runner.invoke(
        app, ["analyze", "--game", "connect4", "4453", "--agent", "mcts", "--seconds", "0.2"]
    )
    assert result.exit_code == 0, result.output
    assert "score of each column" not in result.output
    assert _field(result.output, "best move") in {str(c) for c in range(1, 8)}
    assert "policy      7 of 7 moves" in result.output


def test_a_finished_game_is_not_searched() -> None:
    result = runner.invoke(
        app, ["analyze", "XXX.OO.O. O 7", "--game", "quixo:size=3", "--agent", "alphabeta"]
    )
    assert result.exit_code == 0, result.output
    assert "No move to play: the game is over." in result.output and "search" not in result.output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--agent", "bogus"], "unknown agent 'bogus'"),
        (["--agent", "alphabeta:depth=zero"], "alphabeta"),
        (["--agent", "perfect"], "perfect: the 5x5 Quixo tables are not built"),
        (["--seconds", "0"], "--seconds must be at least 0.05"),
        (["--seconds", "nan"], "--seconds must be a finite number"),
        (["--seconds", "5000"], "--seconds must be at most 3600"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(tmp_path: Path, args: list[str], message: str) -> None:
    result = runner.invoke(app, ["analyze", OPENING_5X5, "--dir", str(tmp_path), *args], env=WIDE)
    assert result.exit_code == 2, result.output
    text = result.output.strip()
    assert message in text and len(text.splitlines()) == 1, text


def test_an_agent_that_fails_is_one_line_and_exit_1() -> None:
    spec = broken_players.spec("RaisingPlayer")
    result = runner.invoke(app, ["analyze", OPENING_5X5, "--agent", spec, "--seconds", "1"], env=WIDE)
    assert result.exit_code == 1, result.output
    text = result.output.strip()
    assert "failed:" in text and "this player is broken" in text and len(text.splitlines()) == 1, text


@pytest.mark.parametrize("engine", ["exact", "tables"])
def test_an_exact_draw_is_said_as_analyze_says_it(engine: str) -> None:
    state = new_game("tictactoe")
    move = state.legal_moves()[0]
    exact = Decision(move, value=0.0, info=SearchInfo(engine=engine))
    assert decision_summary(state, exact) == "a draw"
    assert _field(_shown(state, "perfect", exact), "evaluation") == "a draw"


def test_a_searchs_value_of_0_is_no_proven_draw() -> None:
    state = new_game("tictactoe")
    decision = Decision(state.legal_moves()[0], value=0.0, info=SearchInfo(engine="mcts", depth=2))
    assert decision_summary(state, decision) == "value +0.00 for X, depth 2"
