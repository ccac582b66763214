"""An agent added from outside boardlab: the flat Monte Carlo package in examples/flatmc.

It plays every game (Hexapawn, a game of another package, too), answers a full Decision, takes a
win in one at once, is reproducible from its seed, and honours a playout count, a time limit and
a game clock; once installed with pip its entry point makes it an agent of every command: listed
with its options, playing a match in a worker process, its bad options refused with one line."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from example_packages import EXAMPLES, boardlab, install_example, run_boardlab

from boardlab.agents.base import AGENTS, make_agent, register
from boardlab.agents.decision import Decision, Limit
from boardlab.games import GAMES, State, parse_game

sys.path.insert(0, str(EXAMPLES / "flatmc"))
sys.path.insert(0, str(EXAMPLES / "hexapawn"))

from boardlab_flatmc import FlatMonteCarlo
from boardlab_hexapawn import Hexapawn

EVERY_GAME = sorted({*GAMES.names(), "hexapawn"})


@pytest.fixture(scope="module", autouse=True)
def registered() -> Iterator[None]:
    register(FlatMonteCarlo)
    GAMES.register("hexapawn", Hexapawn)
    yield
    AGENTS.unregister("flatmc")
    GAMES.unregister("hexapawn")


def check_decision(state: State, decision: Decision) -> None:
    """A legal move, a policy over the whole action space summing to 1 on the legal actions and
    0 elsewhere, and a value in [-1, 1]."""
    assert state.is_legal(decision.move)
    assert decision.policy is not None and decision.policy.shape == (state.kernel.num_actions,)
    assert np.all(decision.policy >= 0) and not decision.policy[~state.legal_mask()].any()
    assert decision.policy[state.legal_mask()].sum() == pytest.approx(1.0)
    assert decision.value is not None and -1.0 <= decision.value <= 1.0
    assert decision.info is not None and decision.info.engine == "flatmc"


def self_play(spec: str, game: str, seed: int, plies: int) -> list[str]:
    """The moves of a game of ``spec`` against itself (its first ``plies`` at most), every
    decision checked."""
    agent = make_agent(spec, seed=seed, game=game)
    state = parse_game(game).initial()
    agent.prepare(state.game)
    agent.new_game()
    moves = []
    while not state.is_over and len(moves) < plies:
        decision = agent.act(state)
        check_decision(state, decision)
        moves.append(str(decision.move))
        state = state.play(decision.move)
    return moves


@pytest.mark.timeout(120)
@pytest.mark.parametrize("game", EVERY_GAME)
def test_it_plays_legal_moves_with_a_full_decision_on_every_game(game: str) -> None:
    moves = self_play("flatmc:playouts=20", game, seed=0, plies=30)
    state = parse_game(game).initial()
    for move in moves:
        state = state.play(move)
    assert len(moves) == 30 or state.is_over


def test_the_same_seed_plays_the_same_game() -> None:
    games = [self_play("flatmc:playouts=30", "connect4", seed, plies=42) for seed in (3, 3, 4)]
    assert games[0] == games[1]
    assert games[0] != games[2]  # the seed is what decides: another one plays another game


@pytest.mark.parametrize(
    ("game", "position"),
    [
        ("tictactoe", "XX./OO./... X 4"),  # O threatens too: X wins rather than blocks
        ("connect4", "445566"),  # three in a row on the bottom, both ends open
        ("hexapawn", ".B./WWB/... B 5"),  # Black's pawn on c2 goes through
    ],
)
def test_a_win_in_one_is_played_at_once(game: str, position: str) -> None:
    state = parse_game(game).parse_position(position)
    decision = make_agent("flatmc", seed=0).act(state)
    assert state.play(decision.move).winner == state.to_move
    assert decision.value == 1.0 and decision.info is not None and decision.info.nodes == 0
    assert decision.policy is not None and decision.policy[state.move_index(decision.move)] == 1.0


def test_a_lost_position_has_the_value_minus_one_and_a_policy_over_its_moves() -> None:
    state = parse_game("nim").parse_position("0-0-0-1 O 15")  # misère: the last object loses
    decision = make_agent("flatmc:playouts=5", seed=0).act(state)
    check_decision(state, decision)
    assert decision.value == -1.0 and decision.info is not None and decision.info.nodes == 5


@pytest.mark.parametrize("playouts", [1, 7, 100])
def test_the_playout_count_is_honoured_exactly(playouts: int) -> None:
    state = parse_game("tictactoe").initial()
    from_spec = make_agent(f"flatmc:playouts={playouts}", seed=0).act(state)
    from_call = make_agent("flatmc", seed=0).act(state, Limit(iterations=playouts))
    for decision in (from_spec, from_call):
        assert decision.info is not None and decision.info.nodes == playouts


@pytest.mark.timeout(60)
def test_a_time_limit_stops_the_playouts() -> None:
    state = parse_game("connect4").initial()
    for agent, limit in [
        (make_agent("flatmc:playouts=1000000000", seed=0), Limit(time=0.05)),
        (make_agent("flatmc:playouts=1000000000,time=0.05", seed=0), None),
    ]:
        decision = agent.act(state, limit)
        check_decision(state, decision)
        assert decision.info is not None and 1 <= decision.info.nodes < 10**9


@pytest.mark.timeout(60)
def test_a_game_clock_becomes_a_time_for_the_move_in_place_of_the_specs_own() -> None:
    state = parse_game("connect4").initial()
    agent = make_agent("flatmc:playouts=1000000000,time=3600", seed=0)  # an hour, were it not a clock
    for clock in (0.001, 0.2):
        decision = agent.act(state, Limit(clock=clock, increment=0.01))
        check_decision(state, decision)
        assert decision.info is not None and 1 <= decision.info.nodes < 10**9
    small = make_agent("flatmc:playouts=1000000", seed=0).act(state, Limit(clock=0.001))
    assert small.info is not None and small.info.nodes < 1_000_000  # a millisecond: a few playouts


# --- installed with pip: an agent of every command -------------------------------------------------


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The environment of boardlab's commands with the example installed with pip."""
    return install_example("flatmc", tmp_path_factory.mktemp("flatmc"))


def test_the_installed_agent_is_listed_with_its_options(installed: dict[str, str]) -> None:
    listing = boardlab(installed, "agents")
    assert "flatmc" in listing and "plays the move whose random playouts score best" in listing
    table = boardlab(installed, "agents", "flatmc")
    rows = [[cell.strip() for cell in line.split("│")[1:-1]] for line in table.splitlines() if "│" in line]
    assert [row[:2] for row in rows] == [["playouts", "1000"], ["time", "0.0"], ["horizon", "200"]]


@pytest.mark.timeout(240)
def test_the_installed_agent_beats_random_in_a_worker_process(
    installed: dict[str, str], tmp_path: Path
) -> None:
    boardlab(
        installed,
        *("match", "flatmc:playouts=50", "random", "--game", "tictactoe", "-n", "4", "--seed", "0"),
        *("-j", "1", "--db", str(tmp_path / "games.sqlite"), "--out", str(tmp_path)),
    )
    summary = json.loads((tmp_path / "summary.json").read_text())
    flatmc = next(p for p in summary["players"] if p["spec"] == "flatmc:playouts=50")
    wins, losses = (
        sum(flatmc[side][key] for side in ("as_first", "as_second")) for key in ("wins", "losses")
    )
    assert summary["games"] == 4 and flatmc["forfeits"] == 0
    assert wins >= 3 and losses <= 1  # seeds 0 to 9: 3 or 4 wins, at most one loss


def test_a_bad_option_is_refused_with_one_line(installed: dict[str, str], tmp_path: Path) -> None:
    done = run_boardlab(
        installed, "match", "flatmc:playouts=-1", "random", "--game", "tictactoe", cwd=tmp_path
    )
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.strip().splitlines() == ["Error: flatmc: playouts must be at least 1, got -1"]
