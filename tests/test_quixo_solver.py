"""The Quixo retrograde solver, checked against a naive solver; tables on disk; perfect play."""

from __future__ import annotations

import json
import math
import os
import random
import re
import struct
import zlib
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
import quixo_naive_solver as naive
import typer
from typer.testing import CliRunner

from boardlab.games.quixo import table as qt
from boardlab.games.quixo.exact import best_moves, covers, move_values, perfect_move, state_sides
from boardlab.games.quixo.exact import position_value as quixo_value
from boardlab.games.quixo.index import class_size, index_of, position_of
from boardlab.games.quixo.solver import (
    DRAW,
    LOSS,
    WIN,
    QuixoTables,
    TablebaseFormatError,
    class_pairs,
    rules,
    solve,
    solve_in_memory,
    solve_pair,
)
from boardlab.ui.solve_cli import parse_quixo_position, register

CODE_VALUE = {qt.WIN_CODE: WIN, qt.LOSS_CODE: LOSS, qt.DRAW_CODE: DRAW}


def masks(cells: tuple[int, ...]) -> tuple[int, int]:
    """(me, opp) masks of a naive position."""
    me = sum(1 << i for i, v in enumerate(cells) if v == 0)
    opp = sum(1 << i for i, v in enumerate(cells) if v == 1)
    return me, opp


def cells_of(me: int, opp: int, n: int) -> tuple[int, ...]:
    return tuple(0 if me >> i & 1 else 1 if opp >> i & 1 else -1 for i in range(n * n))


def make_state(me: int, opp: int, size: int) -> object:
    """A State with the first player (X) to move, whichever State API the games module has."""
    from boardlab.games import quixo as quixo_module

    state_class = getattr(quixo_module, "State", None)
    if state_class is not None and hasattr(state_class, "from_masks"):
        return state_class.from_masks(me, opp, 0, 0, size)
    from boardlab.games import parse_game  # type: ignore[attr-defined]

    return parse_game(f"quixo:size={size}").state(me, opp, 0, 0)


@pytest.fixture(scope="module")
def naive3() -> dict[tuple[int, ...], tuple[int, int]]:
    return naive.solve_board(3)


@pytest.fixture(scope="module")
def tables3():
    return solve_in_memory(3)


# --- the solver --------------------------------------------------------------------------------


def test_3x3_counts_and_empty_board(tables3) -> None:
    assert tables3.counts() == (12_748, 6_935, 0)
    value, depth = tables3.value(0, 0)
    assert value == WIN and depth == 7


def test_3x3_matches_the_naive_solver_everywhere(tables3, naive3) -> None:
    assert len(naive3) == 3**9
    mismatches = [cells for cells, expected in naive3.items() if tables3.value(*masks(cells)) != expected]
    assert mismatches == []


@pytest.mark.parametrize(("me", "opp"), [(1, 1), (3, 6), (1 << 9, 0), (0, 1 << 9), (-1, 0), (0, -2)])
def test_a_look_up_refuses_masks_that_are_no_position(tables3, me: int, opp: int) -> None:
    with pytest.raises(ValueError, match="overlap or fall outside the board"):
        tables3.value(me, opp)


def test_naive_solver_counts(naive3) -> None:
    values = [v for v, _ in naive3.values()]
    assert (values.count(1), values.count(-1), values.count(0)) == (12_748, 6_935, 0)


Lookup = Callable[[tuple[int, ...]], tuple[int, int]]


def _solve_4x4_pairs(pairs: list[tuple[int, int]], rulebook: str = "official") -> Lookup:
    """Solve a chain of 4x4 class pairs (each needing only the ones before); the look-up of a
    naive position's (value, depth) in them."""
    solved: dict[tuple[int, int], tuple[np.ndarray, np.ndarray]] = {}
    for a, b in pairs:
        fuller = {}
        for sa, sb in {(a, b), (b, a)}:
            if sa + sb < 16:
                codes, depths = solved[(sb, sa + 1)]
                fuller[(sb, sa + 1)] = (qt.pack_values(codes), depths)
        solved.update(solve_pair(4, a, b, fuller, rulebook))
    rk = rules(4).rk

    def lookup(cells: tuple[int, ...]) -> tuple[int, int]:
        me, opp = masks(cells)
        a, b = me.bit_count(), opp.bit_count()
        codes, depths = solved[(a, b)]
        i = int(index_of(np.int64(me), np.int64(opp), a, b, rk))
        return CODE_VALUE[int(codes[i])], int(depths[i])

    return lookup


def test_4x4_class_pairs_match_the_naive_solver() -> None:
    # a chain of small classes from the full board down to 13 cubes, and a full-board pair with draws
    chain = [(0, 16), (1, 15), (2, 14), (3, 13), (7, 9), (0, 15), (1, 14), (2, 13), (0, 14), (1, 13), (0, 13)]
    mine = _solve_4x4_pairs(chain)
    seen_values = set()
    for pair in [(7, 9), (2, 13), (1, 13), (0, 13)]:
        expected = naive.solve_class_pair(4, *pair, outside=mine)
        assert len(expected) == 2 * class_size(16, *pair)
        wrong = [cells for cells, result in expected.items() if mine(cells) != result]
        assert wrong == [], f"class pair {pair}: {len(wrong)} positions differ"
        seen_values |= {v for v, _ in expected.values()}
    assert seen_values == {WIN, LOSS, DRAW}


def test_3x3_course_rules_match_the_naive_solver_everywhere(tables3) -> None:
    course = solve_in_memory(3, rulebook="course")
    expected = naive.solve_board(3, rulebook="course")
    mismatches = [cells for cells, result in expected.items() if course.value(*masks(cells)) != result]
    assert mismatches == []
    # the rulebooks differ on some boards with lines of both colours
    finished = [c for c in expected if naive.terminal(c, 3) is not None]
    differ = [c for c in finished if naive.terminal(c, 3) != naive.terminal(c, 3, "course")]
    assert differ and all(course.value(*masks(c))[0] != tables3.value(*masks(c))[0] for c in differ)


def test_4x4_course_rules_class_pairs_match_the_naive_solver() -> None:
    chain = [(7, 9), (4, 12), (5, 11), (4, 11)]  # boards where both colours can have a line
    mine = _solve_4x4_pairs(chain, rulebook="course")
    for pair in [(7, 9), (4, 11)]:
        expected = naive.solve_class_pair(4, *pair, outside=mine, rulebook="course")
        wrong = [cells for cells, result in expected.items() if mine(cells) != result]
        assert wrong == [], f"class pair {pair}: {len(wrong)} positions differ"


def test_course_tables_are_kept_apart_from_official_ones(disk3: Path, tmp_path: Path) -> None:
    course = solve(3, tmp_path, rulebook="course")
    assert QuixoTables(3, tmp_path, rulebook="course").counts() == (course.wins, course.losses, course.draws)
    with pytest.raises(TablebaseFormatError, match="solved under the course rules, expected the official"):
        qt.read_table(tmp_path, 3, 4, 4)
    with pytest.raises(TablebaseFormatError, match="solved under the official rules, expected the course"):
        qt.read_table(disk3, 3, 4, 4, rulebook="course")
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    with pytest.raises(ValueError, match="solved under the course rules, not the official rules"):
        solve(3, tmp_path)  # it would overwrite them: the file names do not say the rulebook
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before


def test_class_pairs_order() -> None:
    pairs = list(class_pairs(3))
    assert pairs[0] == (0, 9) and pairs[-1] == (0, 0)
    assert len({p for a, b in pairs for p in ((a, b), (b, a))}) == 55
    assert all(a + b >= 24 for a, b in class_pairs(5, 24))


def test_index_round_trip_on_every_3x3_class() -> None:
    rk = rules(3).rk
    for a in range(10):
        for b in range(10 - a):
            for i in range(class_size(9, a, b)):
                me, opp = position_of(np.int64(i), a, b, rk)
                assert me & opp == 0 and int(me).bit_count() == a and int(opp).bit_count() == b
                assert index_of(me, opp, a, b, rk) == i


def test_class_sizes_and_what_is_no_class() -> None:
    sizes = {(9, 0, 0): 1, (9, 4, 4): 630, (9, 0, 9): 1, (16, 8, 8): 12_870}
    assert {key: class_size(*key) for key in sizes} == sizes
    for a, b in ((-1, 3), (3, -1), (5, 5), (0, 10)):
        with pytest.raises(ValueError, match="no class"):
            class_size(9, a, b)


def test_solve_pair_needs_the_fuller_classes() -> None:
    with pytest.raises(ValueError, match="needs the solved class"):
        solve_pair(3, 2, 3, {})


# --- files ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def disk3(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("tables3")
    report = solve(3, folder)
    assert (report.wins, report.losses, report.draws) == (12_748, 6_935, 0)
    return folder


def test_tables_round_trip_through_files(disk3: Path, tables3) -> None:
    on_disk = QuixoTables(3, disk3)
    assert on_disk.counts() == (12_748, 6_935, 0)
    for me in range(0, 512, 7):
        opp = (~me & 511) & 0b101010101
        assert on_disk.value(me, opp) == tables3.value(me, opp)
    assert not [p for p in disk3.iterdir() if p.name.startswith(".")]  # no temporary file left


def _copy_class(src: Path, dst: Path, a: int, b: int) -> Path:
    dst.mkdir(parents=True, exist_ok=True)
    target = qt.table_path(dst, 3, a, b)
    target.write_bytes(qt.table_path(src, 3, a, b).read_bytes())
    return target


def test_truncated_table_is_refused(disk3: Path, tmp_path: Path) -> None:
    path = _copy_class(disk3, tmp_path, 4, 4)
    path.write_bytes(path.read_bytes()[:-5])
    with pytest.raises(TablebaseFormatError, match="truncated"):
        qt.read_table(tmp_path, 3, 4, 4)
    path.write_bytes(b"BLQX")
    with pytest.raises(TablebaseFormatError, match="truncated"):
        qt.read_table(tmp_path, 3, 4, 4)


def test_corrupt_table_is_refused(disk3: Path, tmp_path: Path) -> None:
    path = _copy_class(disk3, tmp_path, 4, 4)
    data = bytearray(path.read_bytes())
    data[qt.HEADER_SIZE + 3] ^= 0x10
    path.write_bytes(bytes(data))
    with pytest.raises(TablebaseFormatError, match="checksum"):
        qt.read_table(tmp_path, 3, 4, 4)
    qt.read_table(tmp_path, 3, 4, 4, verify=False)  # the caller may skip the check
    data[20] ^= 1  # the header has its own checksum
    path.write_bytes(bytes(data))
    with pytest.raises(TablebaseFormatError, match="header"):
        qt.read_table(tmp_path, 3, 4, 4)
    path.write_bytes(b"NOTATABLE" + bytes(100))
    with pytest.raises(TablebaseFormatError, match="magic"):
        qt.read_table(tmp_path, 3, 4, 4)


def test_wrong_size_or_class_is_refused(disk3: Path, tmp_path: Path) -> None:
    path = _copy_class(disk3, tmp_path, 4, 4)
    path.write_bytes(path.read_bytes() + b"\0")
    with pytest.raises(TablebaseFormatError, match="too long"):
        qt.read_table(tmp_path, 3, 4, 4)
    # a file of another class under this class's name
    path.write_bytes(qt.table_path(disk3, 3, 4, 5).read_bytes())
    with pytest.raises(TablebaseFormatError, match=r"class \(4, 5\)"):
        qt.read_table(tmp_path, 3, 4, 4)
    with pytest.raises(TablebaseFormatError, match="missing"):
        qt.read_table(tmp_path, 3, 0, 0)
    assert issubclass(TablebaseFormatError, ValueError)


HEADER_FIELDS = ("magic", "version", "size", "a", "b", "width", "flags", "count", "wins", "losses", "draws")


def _edit_header(path: Path, field: str, change: Callable[[int], int]) -> None:
    """Change one header field of a table file, with a header checksum that matches again."""
    data = bytearray(path.read_bytes())
    fields = list(struct.unpack_from("<8sHBBBBHQQQQII", data))
    where = HEADER_FIELDS.index(field)
    fields[where] = change(fields[where])
    head = struct.pack("<8sHBBBBHQQQQI", *fields[:-1])
    data[: len(head) + 4] = head + struct.pack("<I", zlib.crc32(head))
    path.write_bytes(bytes(data))


@pytest.mark.parametrize(
    ("field", "change", "message"),
    [
        ("version", lambda v: 0, "format version 0"),
        ("version", lambda v: v + 1, "format version 2"),
        ("wins", lambda w: w + 1, "declares"),  # the counts no longer add up to the class size
        ("width", lambda w: 3, "declares"),
        ("flags", lambda f: 7, r"unknown \(flags 7\)"),
        ("size", lambda n: 4, "of a 4x4 board"),
        ("b", lambda b: 5, r"class \(4, 5\)"),
    ],
)
def test_a_table_whose_header_says_something_else_is_refused(
    disk3: Path, tmp_path: Path, field: str, change: Callable[[int], int], message: str
) -> None:
    path = _copy_class(disk3, tmp_path, 4, 4)
    _edit_header(path, field, change)
    with pytest.raises(TablebaseFormatError, match=message):
        qt.read_table(tmp_path, 3, 4, 4)


def test_table_files_follow_the_documented_layout(disk3: Path, tables3) -> None:
    """Read the files as the format's notes describe them, independently of the reader."""
    rk = rules(3).rk
    for a, b in [(4, 4), (0, 9), (3, 5), (1, 1)]:
        data = qt.table_path(disk3, 3, a, b).read_bytes()
        count = class_size(9, a, b)
        magic, version, size, ca, cb, width, flags, declared, wins, losses, draws, crc, _ = (
            struct.unpack_from("<8sHBBBBHQQQQII", data)
        )
        assert (magic, version, size, ca, cb, flags, declared) == (b"BLQXTB\r\n", 1, 3, a, b, 0, count)
        values_len = math.ceil(math.ceil(count / 4) / 8) * 8  # 2 bits a position, padded to 8 bytes
        assert len(data) == 64 + values_len + count * width and crc == zlib.crc32(data[64:])
        depths = np.frombuffer(data[64 + values_len :], dtype=np.uint8 if width == 1 else "<u2")
        tally = {WIN: 0, LOSS: 0, DRAW: 0}
        for i in range(count):
            code = data[64 + i // 4] >> (2 * (i % 4)) & 3
            me, opp = position_of(np.int64(i), a, b, rk)
            assert (CODE_VALUE[code], int(depths[i])) == tables3.value(int(me), int(opp))
            tally[CODE_VALUE[code]] += 1
        assert (wins, losses, draws) == (tally[WIN], tally[LOSS], tally[DRAW])


def test_depths_past_255_take_two_bytes_and_read_back(tmp_path: Path) -> None:
    count = class_size(9, 1, 1)
    codes = np.array([qt.WIN_CODE, qt.LOSS_CODE, qt.DRAW_CODE] * (count // 3), dtype=np.uint8)
    depths = np.arange(count, dtype=np.int64) * 7  # up to 497 plies
    written = qt.write_table(tmp_path, 3, 1, 1, codes, depths)
    read = qt.read_table(tmp_path, 3, 1, 1)
    for table in (written, read):
        assert table.depths.tolist() == depths.tolist()
        assert qt.unpack_values(table.values, count).tolist() == codes.tolist()
        assert (table.wins, table.losses, table.draws) == (count // 3,) * 3
    with pytest.raises(ValueError, match="does not fit"):
        qt.write_table(tmp_path, 3, 1, 1, codes, depths + 65_536)
    with pytest.raises(ValueError, match="72 positions"):
        qt.write_table(tmp_path, 3, 1, 1, codes, depths[:-1])


def test_solve_resumes_and_rebuilds_damaged_tables(disk3: Path, tmp_path: Path) -> None:
    for path in disk3.iterdir():
        (tmp_path / path.name).write_bytes(path.read_bytes())
    damaged = qt.table_path(tmp_path, 3, 2, 2)
    damaged.write_bytes(damaged.read_bytes()[:-1])
    os.remove(qt.table_path(tmp_path, 3, 0, 0))
    report = solve(3, tmp_path)
    assert report.pairs_solved == 2 and report.pairs_loaded == len(list(class_pairs(3))) - 2
    assert (report.wins, report.losses, report.draws) == (12_748, 6_935, 0)
    assert QuixoTables(3, tmp_path).value(0, 0) == (WIN, 7)


def test_missing_class_names_the_command(tmp_path: Path) -> None:
    with pytest.raises(KeyError, match="boardlab solve quixo --size 4"):
        QuixoTables(4, tmp_path).value(0, 0)


# --- perfect play ------------------------------------------------------------------------------


def test_perfect_move_keeps_the_value_and_the_fastest_win(tables3) -> None:
    rng = np.random.default_rng(7)
    picker = random.Random(3)
    positions = [
        (me, opp)
        for a in range(10)
        for b in range(10 - a)
        for me, opp in (position_of(np.int64(i), a, b, rules(3).rk) for i in range(class_size(9, a, b)))
    ]
    checked = 0
    for me, opp in picker.sample(positions, 600):
        me, opp = int(me), int(opp)
        value, depth = tables3.value(me, opp)
        state = make_state(me, opp, 3)
        if depth == 0:  # a line is on the board: the game is over
            assert value != DRAW and move_values(state, tables3) == []
            continue
        action = perfect_move(state, rng if checked % 2 else picker, tables3)
        _, cme, copp = state_sides(state.play_index(action))
        child_value, child_depth = tables3.value(cme, copp)
        assert child_value == -value  # a won position stays won, a lost one is lost anyway
        assert child_depth == depth - 1  # fastest win, slowest loss
        checked += 1
    assert checked > 300


def test_perfect_player_beats_random_play_from_the_start(tables3) -> None:
    rng = np.random.default_rng(11)
    for game in range(20):
        state = make_state(0, 0, 3)
        for ply in range(40):
            if not state.legal_indices():
                break
            if ply % 2 == 0:
                action = perfect_move(state, rng, tables3)
            else:
                action = int(rng.choice(state.legal_indices()))
            state = state.play_index(action)
        assert state.winner == 0, f"game {game}"
        assert state.ply <= 7


def test_best_moves_and_move_values(tables3) -> None:
    state = parse_quixo_position("X.O.O.X.. O 5")
    values = move_values(state, tables3)
    assert len(values) == len(state.legal_indices())
    best = best_moves(state, tables3)
    assert best and all(m.value == WIN and m.depth == 1 for m in best)
    assert tables3.value(*state_sides(state)[1:]) == (WIN, 1)
    over = state.play_index(best[0].action)
    assert over.is_over and move_values(over, tables3) == [] and best_moves(over, tables3) == []
    with pytest.raises(ValueError, match="the game is over"):
        perfect_move(over, random.Random(1), tables3)


def test_tables_of_another_size_or_rulebook_cannot_judge(tables3) -> None:
    course = solve_in_memory(3, rulebook="course")
    three = parse_quixo_position("X.O.O.X.. O 5")
    four = parse_quixo_position("." * 16)
    for state, tables, why in ((three, course, "course rules cannot judge"), (four, tables3, "3x3 Quixo")):
        for answer in (move_values, best_moves, quixo_value, covers):
            with pytest.raises(ValueError, match=why):
                answer(state, tables)
    assert quixo_value(three, tables3) == tables3.value(*state_sides(three)[1:])


# --- command line ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def cli() -> typer.Typer:
    app = typer.Typer()

    @app.callback()
    def main() -> None:
        """boardlab (test copy)"""

    register(app)
    return app


def test_cli_solve_prints_counts_and_the_empty_board(cli: typer.Typer, tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["solve", "quixo", "--size", "3", "--dir", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "12,748" in result.output and "6,935" in result.output
    assert "win in 7 plies" in result.output


def _rows(output: str) -> list[list[str]]:
    """The cells of each row of the moves table."""
    return [[cell.strip() for cell in line.split("│")[1:-1]] for line in output.splitlines() if "│" in line]


def test_cli_analyze_lists_every_move(cli: typer.Typer, disk3: Path) -> None:
    args = ["analyze", "X.O.O.X.. O 5", "--dir", str(disk3)]
    result = CliRunner().invoke(cli, args, terminal_width=200)
    assert result.exit_code == 0, result.output
    assert "O to move: win in 1 ply" in result.output
    assert "16 legal moves" in result.output
    rows = _rows(result.output)
    assert len(rows) == 16 and rows[0][1:] == ["win", "1", "*"]  # best first
    assert [best for _, _, _, best in rows] == ["*" if row[1:3] == ["win", "1"] else "" for row in rows]
    assert any(value != "win" for _, value, _, _ in rows)


def test_cli_analyze_ranks_moves_by_their_value_under_the_ply_cap(cli: typer.Typer, disk3: Path) -> None:
    # O wins in 3 without a cap; 2 plies from the cap every move draws: slow wins and slow
    # losses alike are best
    args = ["analyze", "X..O.O..X O 5", "--game", "quixo:size=3,ply_cap=7", "--dir", str(disk3)]
    result = CliRunner().invoke(cli, args, terminal_width=200)
    assert result.exit_code == 0, result.output
    rows = _rows(result.output)
    assert len(rows) == 16 and all(best == "*" for _, _, _, best in rows)
    assert {value.split(";")[1].split(" in ")[0].strip() for _, value, _, _ in rows} == {"win", "loss"}


@pytest.mark.parametrize(
    ("position", "line"),
    [("XXX.OO.O. O 7", "O to move: lost already"), ("XXX.OO.O. X 6", "X to move: won already")],
)
def test_cli_analyze_of_a_finished_game_lists_no_move(
    cli: typer.Typer, disk3: Path, position: str, line: str
) -> None:
    result = CliRunner().invoke(cli, ["analyze", position, "--game", "quixo:size=3", "--dir", str(disk3)])
    assert result.exit_code == 0, result.output
    assert line in result.output and "No move to play: the game is over." in result.output
    assert "legal moves" not in result.output


def test_cli_solve_of_full_boards_only_does_not_cover_the_empty_board(
    cli: typer.Typer, tmp_path: Path
) -> None:
    result = CliRunner().invoke(
        cli, ["solve", "quixo", "--size", "3", "--blanks", "0", "--dir", str(tmp_path)]
    )
    assert result.exit_code == 0, result.output
    assert "Solving 3x3 Quixo (at most 0 blank cubes)" in result.output
    assert "The empty board is not covered by these tables." in result.output


@pytest.mark.parametrize("blanks", ["0", "1"])
def test_cli_5x5_endgames_up_to_one_blank_are_accepted(cli: typer.Typer, tmp_path: Path, blanks: str) -> None:
    # a folder of course-rules tables stops the solve after the options are accepted, before any work
    qt.write_table(tmp_path, 5, 0, 0, np.zeros(1, np.uint8), np.zeros(1, np.int64), "course")
    result = CliRunner().invoke(
        cli, ["solve", "quixo", "--size", "5", "--blanks", blanks, "--dir", str(tmp_path)]
    )
    assert result.exit_code == 2, result.output
    assert "under the course rules" in result.output and "--blanks" not in result.output


def test_cli_analyze_reports_a_position_at_the_ply_cap_as_over(cli: typer.Typer, disk3: Path) -> None:
    result = CliRunner().invoke(
        cli, ["analyze", "X.O.O.X.. O 251", "--game", "quixo:size=3", "--dir", str(disk3)]
    )
    assert result.exit_code == 0, result.output
    assert "O to move: draw (ply cap: 200 plies)" in result.output and "No move to play" in result.output
    assert "win" not in result.output


def test_cli_analyze_gives_values_under_the_ply_cap(cli: typer.Typer, disk3: Path) -> None:
    # X loses in 2 without a cap; at ply 8 of 9 only the moves that lose at once still lose
    args = ["analyze", "X.OX.OOO. X 8", "--game", "quixo:size=3,ply_cap=9", "--dir", str(disk3)]
    result = CliRunner().invoke(cli, args, terminal_width=200)
    assert result.exit_code == 0, result.output
    assert "X to move: draw by the ply cap (9 plies; without it: loss in 2 plies)" in result.output
    rows = [
        [cell.strip() for cell in line.split("│")[1:-1]] for line in result.output.splitlines() if "│" in line
    ]
    assert rows and all(depth in ("1", "-") for _, _, depth, _ in rows)
    assert {value for _, value, depth, _ in rows if depth == "-"} == {"draw (cap; loss in 2 plies without)"}
    assert all(best == "*" for _, value, _, best in rows if value.startswith("draw"))
    assert "ends the game 1 ply from here" in result.output


def test_cli_solves_and_analyzes_under_the_course_rules(cli: typer.Typer, tmp_path: Path) -> None:
    solved = CliRunner().invoke(cli, ["solve", "quixo:rules=course", "--size", "3", "--dir", str(tmp_path)])
    assert solved.exit_code == 0, solved.output
    assert "course rules" in solved.output and "12,720" in solved.output and "6,963" in solved.output
    assert "Solving 3x3 Quixo (at most 9 blank cubes, course rules)" in solved.output
    # c3 pushed in at a3 completes X's column a and O's column c: the course referee scans
    # columns from the left and gives X the game; the official rules give it to O
    position = ["analyze", "X.OX.OOO. X"]
    course = CliRunner().invoke(cli, [*position, "--game", "quixo:rules=course", "--dir", str(tmp_path)])
    assert course.exit_code == 0, course.output
    assert "X to move: win in 1 ply" in course.output
    official = CliRunner().invoke(cli, position)
    assert official.exit_code == 0, official.output
    assert "X to move: loss in 2 plies" in official.output


@pytest.mark.parametrize(("there", "wanted"), [("official", "quixo:rules=course"), ("course", "quixo")])
def test_cli_solve_refuses_a_folder_of_the_other_rulebook(
    cli: typer.Typer, tmp_path: Path, there: str, wanted: str
) -> None:
    # one table of the other rulebook is enough: the solve would overwrite it (same file names)
    qt.write_table(tmp_path, 3, 0, 0, np.zeros(1, np.uint8), np.zeros(1, np.int64), there)
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    result = CliRunner().invoke(cli, ["solve", wanted, "--size", "3", "--dir", str(tmp_path)])
    assert result.exit_code == 2, result.output
    text = result.output.strip()
    assert len(text.splitlines()) == 1 and f"under the {there} rules" in text and "another folder" in text
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["analyze", "X.O.O.X.Z O 4"], "cannot read position"),
        (["analyze", "X.O.O.X.. O", "--game", "quixo:rules=house"], "cannot analyze"),
        (["solve", "chess"], "cannot solve"),
        (
            ["solve", "tictactoe"],
            "tictactoe needs no tables: boardlab analyze --game tictactoe solves its positions when asked",
        ),
        (
            ["solve", "nim"],
            "nim needs no tables: boardlab analyze --game nim solves its positions when asked",
        ),
        (["solve", "quixo", "--size", "5"], "too large to solve in full; pass --blanks 0..1"),
        (["solve", "quixo", "--size", "5", "--blanks", "3"], "--blanks"),
        (["solve", "quixo", "--size", "6"], "--size"),
        (["solve", "quixo", "--size", "3", "--blanks", "-1"], "--blanks must be in 0..9"),
        (["solve", "quixo", "--size", "3", "--blanks", "10"], "--blanks must be in 0..9"),
        (["solve", "quixo", "44", "--size", "3", "--dir", "{tmp}"], "takes no position"),
        (["solve", "connect4", "1212121", "--blanks", "1"], "are for Quixo"),
        (
            ["solve", "connect4", "1212121", "--dir", "{tmp}"],
            "--dir is where Quixo's tables or the Connect Four book",
        ),
        (["analyze", "X.O.O.X.. O 5", "--dir", "{file}"], "it is a file; expected a folder"),
        (["solve", "quixo", "--size", "3", "--dir", "{file}"], "it is a file; expected a folder"),
    ],
)
def test_cli_bad_input_is_one_line_and_exit_2(
    cli: typer.Typer, tmp_path: Path, args: list[str], message: str
) -> None:
    (tmp_path / "file").write_text("")
    args = [a.replace("{tmp}", str(tmp_path)).replace("{file}", str(tmp_path / "file")) for a in args]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 2
    text = result.output.strip()
    assert message in text and len(text.splitlines()) == 1


@pytest.mark.parametrize(
    ("game", "value"), [("tictactoe", "X to move: draw"), ("nim", "X to move: loss in 15")]
)
def test_the_games_solve_points_to_are_analyzed_without_tables(
    cli: typer.Typer, game: str, value: str
) -> None:
    result = CliRunner().invoke(cli, ["analyze", "--game", game])
    assert result.exit_code == 0, result.output
    assert value in result.output


def test_exact_play_for_the_perfect_agent(tables3, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from boardlab.games import ExactPlayError, exact_play
    from boardlab.games.quixo import exact as quixo_perfect

    monkeypatch.setenv("BOARDLAB_TABLES", str(tmp_path))
    monkeypatch.setattr(quixo_perfect, "_TABLES", {})
    state = parse_quixo_position("X.O.O.X.. O 5")
    exact = exact_play(state.game)
    assert exact.lookup and exact.knows_depth and exact.covers(state)
    assert set(exact.best_actions(state)) == {m.action for m in best_moves(state, tables3)}
    assert exact.move_values(state) == move_values(state, tables3)
    assert (exact.position_value(state).value, exact.position_value(state).depth) == tables3.value(
        *state_sides(state)[1:]
    )
    four = parse_quixo_position("." * 16)
    with pytest.raises(ExactPlayError, match="boardlab solve quixo --size 4"):
        exact_play(four.game)
    five = parse_quixo_position("." * 25)
    with pytest.raises(ExactPlayError, match="--blanks 1`"):  # the default folder: no --dir
        exact_play(five.game)
    assert not quixo_perfect.covers(five)
    elsewhere = tmp_path / "my tables"  # the command builds where it was looked for
    with pytest.raises(ExactPlayError, match=re.escape(f"--size 4 --dir '{elsewhere}'`")):
        exact_play(four.game, tables=elsewhere)
    with pytest.raises(KeyError, match=re.escape(f"--size 4 --dir '{elsewhere}'`")):
        QuixoTables(4, elsewhere).table(8, 8)


def test_perfect_agent_plays_only_what_partial_tables_cover(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from boardlab.agents.base import make_agent
    from boardlab.agents.perfect import PerfectAgent
    from boardlab.games import UncoveredPosition, exact_play
    from boardlab.games.quixo import exact as quixo_perfect

    solve(3, tmp_path, min_cubes=8)  # endgame tables only, as on 5x5
    monkeypatch.setattr(quixo_perfect, "_TABLES", {(3, "", "official"): QuixoTables(3, tmp_path)})
    game = parse_quixo_position("." * 9).game
    assert not PerfectAgent.supports(game)  # it cannot play whole games from the start
    agent = make_agent("perfect", seed=0, game=game)
    covered = parse_quixo_position("XOXOX.OXO X 8")
    decision = agent.act(covered)
    best = exact_play(game).best_actions(covered)
    assert game.action_of(decision.move) in best
    assert decision.policy is not None and set(np.flatnonzero(decision.policy)) == set(best)
    assert decision.value == exact_play(game).position_value(covered).value
    with pytest.raises(UncoveredPosition, match="do not cover boards with 5 blank cubes"):
        agent.choose(parse_quixo_position("X.O.O.X.. O 5"))
    assert exact_play(game).title == "the Quixo 3x3 tables (endgames)"


def test_4x4_perfect_agent_never_lets_a_won_position_go(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from boardlab.agents.base import make_agent
    from boardlab.games import exact_play
    from boardlab.games.quixo import exact as quixo_perfect

    tables = QuixoTables(4, tmp_path)
    solve(4, tmp_path, min_cubes=14)  # the 4x4 endgames: boards with at most two blanks
    monkeypatch.setattr(quixo_perfect, "_TABLES", {(4, "", "official"): tables})
    game = parse_quixo_position("." * 16).game
    # judged games start from covered endgames (one blank or none), not from the empty board
    exact = exact_play(game)
    assert exact.title == "the Quixo 4x4 tables (endgames)"
    start = exact.start(random.Random(4))
    assert exact.covers(start) and not start.is_over and exact.pieces(start) >= 15
    perfect = make_agent("perfect", seed=1, game=game)
    rng = random.Random(9)
    won_games = 0
    while won_games < 20:
        cells = rng.sample(range(16), 14)
        x = sum(1 << c for c in cells[:7])
        o = sum(1 << c for c in cells[7:])
        state = game.state(x, o, 0, 14)
        if state.is_over or quixo_perfect.position_value(state)[0] != WIN:
            continue
        won_games += 1
        while not state.is_over:  # perfect against random play from a won position
            if state.to_move == 0:
                assert quixo_perfect.position_value(state)[0] == WIN
                state = state.play(perfect.choose(state))
            else:
                state = state.play_index(rng.choice(state.legal_indices()))
        assert state.winner == 0


def test_a_draw_from_the_tables_has_no_distance(tmp_path: Path) -> None:
    """The tables store 0 for a draw's depth; a draw never ends under perfect play (only a ply
    cap ends it), so its plies to the end are unknown everywhere: Python, analyze, review."""
    from boardlab.games import exact_play
    from boardlab.games.quixo import Quixo
    from boardlab.ui.cli import app

    solve(4, tmp_path, min_cubes=16)  # full boards: some of their moves draw
    tables = QuixoTables(4, tmp_path)
    text = "OOXX/OXOX/XXOO/OXOX X 16"
    state = parse_quixo_position(text)
    draws = [m for m in move_values(state, tables) if m.value == DRAW]
    assert draws and all(m.depth is None for m in draws)
    assert quixo_value(state.play_index(draws[0].action), tables) == (DRAW, None)
    exact = exact_play(Quixo(size=4), tables=tmp_path)
    assert exact.position_value(state.play_index(draws[0].action)).depth is None
    assert [m.depth for m in exact.move_values(state) if m.value == DRAW] == [None] * len(draws)
    analyzed = CliRunner().invoke(app, ["analyze", text, "--dir", str(tmp_path)], terminal_width=200)
    assert analyzed.exit_code == 0, analyzed.output
    lines = analyzed.output.splitlines()
    rows = [[c.strip() for c in line.split("│")[1:-1]] for line in lines if "│" in line]
    assert {depth for _, value, depth, _ in rows if value == "draw"} == {"-"}
    drawn = str(state.move_from_index(draws[0].action))
    args = ["review", text, "--game", "quixo:size=4", "--moves", drawn, "--tables", str(tmp_path), "--json"]
    reviewed = CliRunner().invoke(app, args)
    assert reviewed.exit_code == 0, reviewed.output
    move = json.loads(reviewed.stdout)["moves"][0]
    assert (move["played"], move["plies"]) == ("draw", None)


def test_one_blank_cube_is_said_in_the_singular(cli: typer.Typer, tmp_path: Path) -> None:
    from boardlab.games import exact_play

    full, one = tmp_path / "full", tmp_path / "one"
    solved = CliRunner().invoke(cli, ["solve", "quixo", "--size", "3", "--blanks", "1", "--dir", str(one)])
    assert solved.exit_code == 0, solved.output
    assert "Solving 3x3 Quixo (at most 1 blank cube) into" in solved.output
    solved = CliRunner().invoke(cli, ["solve", "quixo", "--size", "3", "--blanks", "0", "--dir", str(full)])
    assert "Solving 3x3 Quixo (at most 0 blank cubes) into" in solved.output
    game = parse_quixo_position("XOXOX.OXO X 8").game
    reason = exact_play(game, tables=full).uncovered(parse_quixo_position("XOXOX.OXO X 8"))
    assert reason is not None and "do not cover boards with 1 blank cube;" in reason
    reason = exact_play(game, tables=one).uncovered(parse_quixo_position("XOXOX..XO X 8"))
    assert reason is not None and "do not cover boards with 2 blank cubes;" in reason
