"""Endgame tables in play: the hybrid agent plays covered positions perfectly."""

from __future__ import annotations

import os
import random
import shutil
from pathlib import Path

import pytest
import typer

from boardlab.agents.base import AgentSpecError, make_agent
from boardlab.arena import ArenaError, match
from boardlab.arena.oracle import measure
from boardlab.games import endgame_for, parse_game
from boardlab.games.quixo.exact import best_moves, move_values, tables_for
from boardlab.games.quixo.solver import MemoryTables, QuixoTables, solve
from boardlab.ui import train as train_cli
from boardlab.ui.train import UsageProblem


def random_positions(spec: str, count: int, seed: int) -> list:
    """Ongoing positions met in random games."""
    game = parse_game(spec)
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        state = game.initial()
        while not state.is_over and len(out) < count:
            if rng.random() < 0.3:
                out.append(state)
            state = state.play_index(rng.choice(state.legal_indices()))
    return out


@pytest.mark.parametrize("spec", ["quixo:size=3", "quixo:size=3,rules=course"])
def test_hybrid_plays_the_tables_best_moves(spec: str) -> None:
    agent = make_agent("hybrid:time=0.05", seed=3)
    tables = tables_for(3, rulebook=parse_game(spec).rules)
    for state in random_positions(spec, 60, seed=1):
        move = agent.choose(state)
        assert agent.last_engine == "tables"
        best = {m.action for m in best_moves(state, tables)}
        assert state.game.action_of(move) in best


def test_hybrid_gives_the_tables_value_with_their_move() -> None:
    """A move from the tables carries the position's value for the mover, as perfect's does."""
    hybrid, perfect = make_agent("hybrid:time=0.05", seed=3), make_agent("perfect", seed=3)
    values = set()
    for state in random_positions("quixo:size=3", 30, seed=5):
        decision = hybrid.act(state)
        assert decision.info is not None and decision.info.engine == "tables"
        assert decision.value == perfect.act(state).value
        values.add(decision.value)
    assert {-1.0, 1.0} <= values


def test_hybrid_without_tables_searches() -> None:
    agent = make_agent("hybrid:time=0.05,tables=false", seed=3)
    state = random_positions("quixo:size=3", 1, seed=2)[0]
    agent.choose(state)
    assert agent.last_engine in ("alphabeta", "mcts")


def test_course_and_official_tables_disagree_where_the_rules_do() -> None:
    official, course = parse_game("quixo:size=3"), parse_game("quixo:size=3,rules=course")
    state = official.parse_position("X.OX.OOO. X")
    values = {m.action: m.value for m in move_values(state)}
    course_values = {m.action: m.value for m in move_values(course.parse_position("X.OX.OOO. X"))}
    assert max(values.values()) < 0 < max(course_values.values())


def test_no_endgame_without_tables(tmp_path: Path) -> None:
    assert endgame_for(parse_game("connect4")) is None
    assert endgame_for(parse_game("quixo:size=4"), directory=str(tmp_path)) is None


def test_endgame_from_tables_on_disk(tmp_path: Path) -> None:
    solve(3, tmp_path, min_cubes=6)  # only boards with at most three blanks
    endgame = endgame_for(parse_game("quixo:size=3"), directory=str(tmp_path))
    assert endgame is not None
    covered = uncovered = 0
    for state in random_positions("quixo:size=3", 80, seed=4):
        if endgame.covers(state):
            covered += 1
            assert endgame.best_actions(state)
        else:
            uncovered += 1
            assert (state.a | state.b).bit_count() < 6
    assert covered and uncovered


def test_hybrid_reports_a_damaged_table_once_and_searches_without_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from boardlab.games.quixo import exact as quixo_exact
    from boardlab.games.quixo.solver import QuixoTables
    from boardlab.games.quixo.table import HEADER_SIZE

    solve(3, tmp_path, min_cubes=8)  # endgame tables on disk, as on 5x5
    for table in tmp_path.glob("*.qtb"):  # one flipped byte in each: every payload checksum fails
        data = bytearray(table.read_bytes())
        data[HEADER_SIZE] ^= 0x04
        table.write_bytes(bytes(data))
    monkeypatch.setattr(quixo_exact, "_TABLES", {(3, "", "official"): QuixoTables(3, tmp_path)})
    game = parse_game("quixo:size=3")
    agent = make_agent("hybrid:time=0.05", seed=3)
    for text in ("XOXOX.OXO X 8", "OXOXO.XOX X 8"):
        decision = agent.act(game.parse_position(text))
        assert decision.move in game.parse_position(text).legal_moves()
        assert agent.last_engine in ("alphabeta", "mcts")
    reports = capsys.readouterr().err.strip().splitlines()
    assert len(reports) == 1 and "checksum" in reports[0] and "searching without the tables" in reports[0]


def test_hybrid_tables_value_a_win_past_the_ply_cap_as_a_draw() -> None:
    capped = parse_game("quixo:size=3,ply_cap=7").parse_position("X..O.O..X O 5")
    free = parse_game("quixo:size=3").parse_position("X..O.O..X O 5")
    for state, value in ((free, 1.0), (capped, 0.0)):
        decision = make_agent("hybrid:time=0.05", seed=0, game=state.game).act(state)
        assert decision.info is not None and decision.info.engine == "tables"
        assert decision.value == value


def test_hybrid_tables_choose_among_equal_moves_from_the_seed() -> None:
    game = parse_game("quixo:size=3")
    state = game.initial()
    moves = {make_agent("hybrid:time=0.05", seed=seed, game=game).choose(state) for seed in range(12)}
    assert len(moves) > 1


class EndgameOnlyTables(MemoryTables):
    """5x5 tables standing for a built endgame set (boards with one blank cube or none); no
    value is ever read from them here."""

    def has_class(self, a: int, b: int) -> bool:
        return a + b >= self.size * self.size - 1


@pytest.mark.parametrize("built", [False, True])
def test_perfect_is_refused_a_whole_5x5_game_before_play(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, built: bool
) -> None:
    from boardlab.games.quixo import exact as quixo_exact

    tables = EndgameOnlyTables(5) if built else QuixoTables(5, tmp_path)
    monkeypatch.setitem(quixo_exact._TABLES, (5, "", "official"), tables)
    if built:  # the tables there: perfect takes 5x5 Quixo, for the positions they cover
        make_agent("perfect", game="quixo")
    with pytest.raises(ArenaError) as refused:
        match("perfect", "random", 2, game="quixo", workers=0)
    message = str(refused.value)
    assert "tables cover endgames only (boards with at most one blank cube)" in message
    assert "needs another agent, such as hybrid" in message
    assert "boardlab solve" not in message  # building the tables would not make a whole game playable


def test_perfect_is_refused_a_whole_game_its_tables_on_disk_do_not_cover(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from boardlab.games.quixo import exact as quixo_exact

    solve(3, tmp_path, min_cubes=8)  # endgames only, as on 5x5
    monkeypatch.setitem(quixo_exact._TABLES, (3, "", "official"), QuixoTables(3, tmp_path))
    with pytest.raises(ArenaError, match="cannot play a whole game from the game's first position"):
        match("perfect", "random", 2, game="quixo:size=3", workers=0)
    # nor as the oracle's player or opponent, nor as a trainer's opponent
    for agent, opponents in (("perfect", ["random"]), ("random", ["perfect"])):
        with pytest.raises(AgentSpecError, match="cannot play a whole game"):
            measure(agent, "quixo:size=3", opponents=opponents, games=2)
    with pytest.raises(UsageProblem, match="--against: perfect cannot play a whole game"):
        train_cli._opponents("perfect", ["random"], parse_game("quixo:size=3"))


def _full_boards_only(size: int, folder: Path) -> QuixoTables:
    """Tables of full boards only (``--blanks 0``): no class with a blank cube is built."""
    solve(size, folder, min_cubes=size * size)
    return QuixoTables(size, folder)


def test_perfect_starts_on_tables_of_full_boards_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its warm-up reads only classes that are built (blank cubes never come back, so a game
    from a full board needs nothing else)."""
    from boardlab.games.quixo import exact as quixo_exact

    tables = _full_boards_only(4, tmp_path)
    monkeypatch.setitem(quixo_exact._TABLES, (4, "", "official"), tables)
    game = parse_game("quixo:size=4")
    exact = quixo_exact.QuixoTablesPlay.open(game)
    for seed in range(20):
        start = exact.start(random.Random(seed))
        assert (start.a | start.b).bit_count() == 16 and exact.covers(start)
    agent = make_agent("perfect", seed=0)
    agent.prepare(game)
    state = game.parse_position("XXOO/OOXX/XXOO/OOXX X 16")
    assert state.is_legal(agent.act(state).move)


def test_perfect_starts_where_a_warm_up_would_fail(monkeypatch: pytest.MonkeyPatch) -> None:
    """A warm-up is no part of play: its failure is no failure to start."""
    from boardlab.games.quixo.exact import QuixoTablesPlay

    def fail(self: QuixoTablesPlay) -> None:
        raise KeyError("a table the warm-up wanted")

    monkeypatch.setattr(QuixoTablesPlay, "warm", fail)
    game = parse_game("quixo:size=3")
    agent = make_agent("perfect", seed=0)
    agent.prepare(game)
    assert game.initial().is_legal(agent.choose(game.initial()))


@pytest.mark.timeout(180)
def test_cli_perfect_plays_from_a_full_board_with_only_full_boards_built() -> None:
    from typer.testing import CliRunner

    from boardlab.ui.play import register

    folder = Path(os.environ["BOARDLAB_TABLES"]) / "quixo4"  # where the agent's process looks
    _full_boards_only(4, folder)
    app = typer.Typer()
    app.callback()(lambda: None)
    register(app)
    try:
        args = ["play", "--game", "quixo:size=4", "--agent", "perfect", "--side", "o"]
        position = ["--position", "XXOO/OOXX/XXOO/OOXX X 16"]
        result = CliRunner().invoke(app, [*args, *position], input="quit\n")
    finally:
        shutil.rmtree(folder)
    assert result.exit_code == 0, result.output
    assert "cannot play" not in result.output and "failed to start" not in result.output
    assert "move 18, you are O" in result.output  # perfect (X) moved first


def test_a_decision_from_the_tables_says_how_far_the_win_is() -> None:
    """The hint of perfect or of hybrid's tables, the terminal's and the web page's, words the
    value as analyze does, with its distance; a win the ply cap comes before is a draw, said as
    analyze says one."""
    from boardlab.ui.search_analysis import decision_summary
    from boardlab.ui.web.hall import said

    state = parse_game("quixo:size=3").parse_position("X..O.O..X O 5")  # O wins in 3 plies
    for spec in ("perfect", "hybrid:time=0.05"):
        decision = make_agent(spec, seed=0).act(state)
        assert decision.info is not None and decision.info.plies_to_end == 3
        assert decision_summary(state, decision).startswith("a win for O in 3 plies")
        assert said(decision.to_json(), state)["evaluation"] == "a win for O in 3 plies"
    capped = parse_game("quixo:size=3,ply_cap=7").parse_position("X..O.O..X O 5")
    decision = make_agent("perfect", seed=0).act(capped)
    assert decision.info is not None and decision.info.plies_to_end is None
    assert decision_summary(capped, decision) == "a draw"  # as analyze says it


def test_a_review_says_moves_beyond_the_tables_in_one_short_row(tmp_path: Path) -> None:
    """Each move's reason names its own count of blank cubes; a run of them is one row, its
    reason covering the range (here 3x3 tables of full boards only, as 5x5's --blanks 0)."""
    from typer.testing import CliRunner

    from boardlab.ui.cli import app

    solve(3, tmp_path, min_cubes=9)
    moves = "a1c1 b1a1 a2a1 b1c1 a3c3 c2c1 a3a1 b3a3 a2a3 c2a2 c2c3 b3c3 a3a1"  # full from ply 11
    args = [
        "review",
        "--game",
        "quixo:size=3",
        "--moves",
        moves,
        "--tables",
        str(tmp_path),
        "--from-ply",
        "2",
    ]
    result = CliRunner().invoke(app, args, env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    rows = [[c.strip() for c in line.split("│")[1:-1]] for line in result.output.splitlines() if "│" in line]
    assert [(row[0], row[5]) for row in rows if row[0]] == [
        ("0-1", "not judged: before ply 2"),  # another kind of reason: a row of its own
        ("2-10", "not judged: boards of 1 to 7 blank cubes; the tables hold full boards only"),
        ("11", "throws the win"),
        ("12", "throws the win"),
    ]
    assert len(rows) == 4  # no reason wraps at this width


def test_review_rows_put_together_what_the_judge_says_at_once() -> None:
    from boardlab.arena.oracle import judge_for
    from boardlab.arena.review import review_game, review_rows
    from boardlab.games import parse_game

    class ByPly:  # Tic-Tac-Toe's judge, covering nothing before ply 4, each ply a reason of its own
        def __init__(self) -> None:
            self.judge = judge_for("tictactoe")

        def uncovered(self, state: object) -> str | None:
            ply = state.ply  # type: ignore[attr-defined]
            return f"ply {ply} is too early" if ply < 4 else None

        def uncovered_run(self, states: list) -> str | None:
            plies = [s.ply for s in states]
            return (
                f"plies {plies[0]} to {plies[-1]} are too early"
                if len(plies) > 1
                else self.uncovered(states[0])
            )

        def move_values(self, state: object) -> object:
            return self.judge.move_values(state)

    game = parse_game("tictactoe")
    moves = ["b2", "a1", "c3", "a3", "a2", "c1", "b1"]
    judge = ByPly()
    review = review_game(game.initial(), moves, judge, opening=1)  # type: ignore[arg-type]
    rows = review_rows(game.initial(), review.moves, judge)  # type: ignore[arg-type]
    assert [(len(row.moves), row.why) for row in rows] == [
        (1, "the arena's opening"),
        (3, "plies 1 to 3 are too early"),
        (1, ""),
        (1, ""),
        (1, ""),
    ]
    assert judge_for("tictactoe").uncovered_run([game.initial()]) is None  # covered: no reason
