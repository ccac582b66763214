"""Suites of openings: read by the rules, played in turn with both colours, stored and resumed."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from boardlab.arena import match, tournament
from boardlab.arena import openings as openings_module
from boardlab.arena.openings import check_openings, distinct_openings, parse_openings, read_openings
from boardlab.arena.schedule import MAX_OPENINGS, ArenaError, GameTask, TournamentConfig, build_schedule
from boardlab.arena.store import Store
from boardlab.core.inputs import InputFileError
from boardlab.games import parse_game
from scripts import load_script


def random_line(game: str, data: st.DataObject) -> list[str]:
    """Moves of a game left open, drawn by hypothesis."""
    state, moves = parse_game(game).initial(), []
    for _ in range(data.draw(st.integers(1, 6))):
        choices = [m for m in state.legal_moves() if not state.play(m).is_over]
        if not choices:
            break
        move = data.draw(st.sampled_from(choices))
        moves.append(str(move))
        state = state.play(move)
    return moves


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(["quixo", "connect4", "tictactoe", "nim"]), st.data())
def test_a_suite_reads_back_the_openings_written_however_they_are_separated(
    game: str, data: st.DataObject
) -> None:
    suite = [random_line(game, data) for _ in range(data.draw(st.integers(1, 4)))]
    suite = [moves for moves in suite if moves]
    if not suite:
        return
    separators = data.draw(st.sampled_from([" ", ",", " , ", "\t"]))
    lines = ["# a suite", ""] + [separators.join(moves) + "  # comment" for moves in suite]
    assert parse_openings("\n".join(lines), game) == tuple(tuple(moves) for moves in suite)


def test_moves_are_kept_in_the_games_notation() -> None:
    assert parse_openings("A1E1 e5a5\n", "quixo") == (("a1e1", "e5a5"),)


@pytest.mark.parametrize(
    ("text", "game", "message"),
    [
        ("4 4\n4 9\n", "connect4", "suite line 2: move 2 (9): cannot read move '9'"),
        ("a1 a1\n", "tictactoe", "suite line 1: move 2 (a1)"),
        ("a1 b1 a2 b2 a3\n", "tictactoe", "suite line 1: the game is over after move 5"),
        ("# only a comment\n\n", "tictactoe", "suite: no opening"),
        ("b2 " * 1001, "tictactoe", "1001 moves; an opening takes at most 1000"),
    ],
)
def test_a_suite_that_cannot_be_played_is_refused_with_its_line(text: str, game: str, message: str) -> None:
    with pytest.raises(ArenaError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse_openings(text, game, "suite")


def test_a_suite_of_too_many_openings_is_refused() -> None:
    with pytest.raises(ArenaError, match=f"more than {MAX_OPENINGS:,} openings"):
        parse_openings("a1\n" * (MAX_OPENINGS + 1), "tictactoe")


def test_a_suite_file_that_cannot_be_read_is_refused(tmp_path: Path) -> None:
    with pytest.raises(InputFileError, match="does not exist"):
        read_openings(tmp_path / "none.txt", "tictactoe")
    (tmp_path / "bad.txt").write_bytes(b"a1 \xff\n")
    with pytest.raises(InputFileError, match="not UTF-8 text"):
        read_openings(tmp_path / "bad.txt", "tictactoe")
    (tmp_path / "good.txt").write_text("b2\n")
    assert read_openings(tmp_path / "good.txt", "tictactoe") == (("b2",),)


def test_check_openings_wants_legal_moves_in_the_games_notation() -> None:
    check_openings("quixo", [("a1e1",)])
    with pytest.raises(ArenaError, match="opening 2: A1E1 is not in the game's notation"):
        check_openings("quixo", [("a1e1",), ("A1E1",)])
    with pytest.raises(ArenaError, match="opening 1: move 1 is int"):
        check_openings("tictactoe", [(5,)])  # type: ignore[list-item]


def test_the_schedule_plays_the_suite_in_turn_with_both_colours() -> None:
    suite = (("4",), ("3", "4"), ("5", "5"))
    config = TournamentConfig(("a", "b", "c"), 8, "connect4", opening_plies=5, openings=suite)
    assert config.opening_plies == 0  # random plies say nothing where a suite is played
    tasks = build_schedule(config)
    for task in tasks:
        assert task.opening == suite[task.opening_index % 3] and task.opening_plies == len(task.opening)
        assert GameTask.from_json(task.to_json()) == task
    for pair in config.pairs:
        mine = [t for t in tasks if {t.first_player, t.second_player} == set(pair)]
        assert [t.opening for t in mine] == [suite[m % 3] for m in range(4) for _ in (0, 1)]
        assert [t.first_player for t in mine[:2]] == list(pair)
    random = TournamentConfig(("a", "b", "c"), 8, "connect4", opening_plies=0)
    assert config.tournament_id != random.tournament_id
    assert config.tournament_id != dataclasses.replace(config, openings=suite[:2]).tournament_id


def test_a_match_from_a_suite_stores_its_openings_and_resumes(tmp_path: Path) -> None:
    suite = [["a1", "b2"], ["b2"]]
    db = tmp_path / "arena.sqlite"
    run = match(
        "greedy", "random", 4, game="tictactoe", openings=suite, store=db, workers=1
    )  # a worker process
    assert [record.opening for record in run.records] == [("a1", "b2")] * 2 + [("b2",)] * 2
    assert all(record.moves[: len(record.opening)] == record.opening for record in run.records)
    assert [record.first_spec for record in run.records] == ["greedy", "random"] * 2
    again = match("greedy", "random", 6, game="tictactoe", openings=suite, store=db, workers=0)
    assert again.already_stored == 4 and again.played == 2
    assert [record.opening for record in again.records[4:]] == [("a1", "b2")] * 2
    with Store(db, read_only=True) as store:
        [stored] = store.tournaments()
    assert stored["openings"] == suite and stored["opening_plies"] == 0


def test_a_suite_that_breaks_the_rules_stops_the_tournament_before_any_game() -> None:
    with pytest.raises(ArenaError, match="opening 1: move 2"):
        tournament(["greedy", "random"], 2, game="tictactoe", openings=[["a1", "a1"]], workers=0)


def open_positions(game: str, plies: int) -> dict[int, list[tuple[str, ...]]]:
    """Every move sequence of ``plies`` moves leaving ``game`` open, by the canonical key of the
    position it reaches: a plain walk of the whole tree."""
    found: dict[int, list[tuple[str, ...]]] = {}

    def walk(state: object, moves: tuple[str, ...]) -> None:
        if len(moves) == plies:
            found.setdefault(state.canonical_key(), []).append(moves)  # type: ignore[attr-defined]
            return
        for move in state.legal_moves():  # type: ignore[attr-defined]
            after = state.play(move)  # type: ignore[attr-defined]
            if not after.is_over:
                walk(after, (*moves, str(move)))

    walk(parse_game(game).initial(), ())
    return found


@pytest.mark.parametrize(
    ("game", "plies"),
    [("tictactoe", 1), ("tictactoe", 3), ("connect4", 1), ("connect4", 3), ("quixo:size=4", 2)],
)
def test_distinct_openings_give_each_open_position_once(game: str, plies: int) -> None:
    suite = distinct_openings(game, plies)
    reference = open_positions(game, plies)
    start = parse_game(game).initial()
    keys = []
    for moves in suite:
        state = start
        for move in moves:
            state = state.play(move)
        keys.append(state.canonical_key())
        assert moves in reference[keys[-1]]
    assert sorted(keys) == sorted(reference)  # every position once, none missing
    assert parse_openings("\n".join(" ".join(moves) for moves in suite), game) == suite


def test_mirror_images_are_one_opening() -> None:
    assert distinct_openings("connect4", 1) == (("1",), ("2",), ("3",), ("4",))
    assert distinct_openings("tictactoe", 1) == (("a1",), ("b1",), ("b2",))


def test_distinct_openings_refuse_too_many_none_and_bad_plies(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ArenaError, match="no opening of 1 ply leaves a game of nim:piles=1 open"):
        distinct_openings("nim:piles=1", 1)
    with pytest.raises(ArenaError, match=r"opening plies must be in 1\.\.1000, got 0"):
        distinct_openings("tictactoe", 0)
    monkeypatch.setattr(openings_module, "MAX_OPENINGS", 10)
    with pytest.raises(ArenaError, match="more than 10 distinct openings of 2 plies; use fewer plies"):
        distinct_openings("tictactoe", 2)


def test_the_strength_script_plays_each_opponent_from_the_suite(tmp_path: Path) -> None:
    script = load_script("benchmarks/strength.py")
    suite, db = tmp_path / "suite.txt", tmp_path / "strength.sqlite"
    suite.write_text("a1\nb2 a1\n")
    argv = ["--agent", "greedy", "--opponents", "random", "mcts:iters=10", "--game", "tictactoe"]
    argv += ["--games", "4", "--workers", "1", "--openings", str(suite), "--db", str(db)]
    assert script.main(argv) == 0
    with Store(db, read_only=True) as store:
        stored = store.tournaments()
        openings = {t["specs"][1]: [r.opening for r in store.games(t["id"])] for t in stored}
    assert openings == {
        opponent: [("a1",), ("a1",), ("b2", "a1"), ("b2", "a1")] for opponent in ("random", "mcts:iters=10")
    }
    suite.write_text("a1 a1\n")
    assert script.main(argv) == 2  # a suite the rules refuse: one line, nothing played


def test_distinct_openings_take_up_to_the_limits(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ArenaError, match="no opening of 1,000 plies leaves"):
        distinct_openings("tictactoe", 1000)  # the most plies asked, though no game lasts so long
    with pytest.raises(ArenaError, match=r"opening plies must be in 1\.\.1000, got 1001"):
        distinct_openings("tictactoe", 1001)
    suite = distinct_openings("tictactoe", 2)
    monkeypatch.setattr(openings_module, "MAX_OPENINGS", len(suite))
    assert distinct_openings("tictactoe", 2) == suite  # exactly as many as allowed


def test_an_opening_of_the_most_moves_is_read() -> None:
    # each player pushes a cube along a row and back: the game never ends
    line = " ".join(["a1e1", "a5e5", "e1a1", "e5a5"] * 250)
    [opening] = parse_openings(line, "quixo:ply_cap=1001")
    assert len(opening) == 1000
    check_openings("quixo:ply_cap=1001", [opening])


def test_openings_for_an_unknown_game_are_refused_as_arena_errors() -> None:
    with pytest.raises(ArenaError, match="chess"):
        parse_openings("e4\n", "chess")
    with pytest.raises(ArenaError, match="chess"):
        distinct_openings("chess", 1)


def test_a_suite_is_kept_as_tuples_and_its_moves_and_order_name_the_tournament() -> None:
    config = TournamentConfig(("a", "b"), 4, "tictactoe", openings=[["a1", "b2"], ["b2"]])  # type: ignore[list-item]
    assert config.openings == (("a1", "b2"), ("b2",))
    assert [task.opening for task in build_schedule(config)] == [("a1", "b2")] * 2 + [("b2",)] * 2
    hash(config)
    other_moves = dataclasses.replace(config, openings=(("a1", "b2"), ("c3",)))
    other_order = dataclasses.replace(config, openings=(("b2",), ("a1", "b2")))
    ids = {config.tournament_id, other_moves.tournament_id, other_order.tournament_id}
    assert len(ids) == 3


def test_a_tournament_takes_a_suite_up_to_its_limits() -> None:
    most = TournamentConfig(("a", "b"), 2, "tictactoe", openings=(("b2",),) * MAX_OPENINGS)
    assert len(most.openings) == MAX_OPENINGS
    with pytest.raises(ArenaError, match=f"a suite takes at most {MAX_OPENINGS:,} openings"):
        TournamentConfig(("a", "b"), 2, "tictactoe", openings=(("b2",),) * (MAX_OPENINGS + 1))
    assert TournamentConfig(("a", "b"), 2, "tictactoe", openings=(("b2",) * 1000,)).openings[0][999] == "b2"
    with pytest.raises(ArenaError, match="an opening takes at most 1000 moves, got 1001"):
        TournamentConfig(("a", "b"), 2, "tictactoe", openings=(("b2",) * 3, ("b2",) * 1001))


def test_a_suite_saved_with_a_byte_order_mark_is_read(tmp_path: Path) -> None:
    """Some editors start a UTF-8 file with U+FEFF: it is not part of the first move."""
    path = tmp_path / "suite.txt"
    path.write_bytes("\ufeff4\n4 1\n".encode())
    assert read_openings(path, "connect4") == (("4",), ("4", "1"))


def test_an_opening_written_again_is_kept_and_its_lines_are_said_in_one_warning(tmp_path: Path) -> None:
    path = tmp_path / "suite.txt"
    path.write_text("# centre\n4\n4 1\n\n4, 1\n3\n4  # again\n")
    said: list[str] = []
    assert read_openings(path, "connect4", said.append) == (("4",), ("4", "1"), ("4", "1"), ("3",), ("4",))
    repeats = "line 5 repeats line 3, line 7 repeats line 2"
    assert said == [f"{path}: {repeats}; a repeated opening is played again in its turn"]
    said.clear()
    parse_openings("4\n4 1\n", "connect4", on_warning=said.append)
    assert said == []


def test_a_suite_written_for_another_game_says_so_where_it_cannot_be_played() -> None:
    text = "# connect4: 7 distinct openings of 2 plies\n1 1\n1 2\n"
    said = r"line 2: .*; the file says it holds connect4 openings, not tictactoe"
    with pytest.raises(ArenaError, match=said):
        parse_openings(text, "tictactoe", "c4.txt")
    # a comment that is no such header, or one naming the game played, adds nothing
    for header in ("# Connect Four: the centre\n", "# tictactoe: 1 distinct opening of 1 ply\n"):
        with pytest.raises(ArenaError) as refused:
            parse_openings(header + "a1 a1\n", "tictactoe", "t.txt")
        assert "the file says" not in str(refused.value)
