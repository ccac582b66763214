"""Tables, JSON summary and PNG plots of a tournament."""

from __future__ import annotations

import dataclasses
import itertools
import json
from pathlib import Path
from typing import Any

import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from rich.console import Console

from boardlab.arena.play import GameRecord
from boardlab.arena.plots import LABEL_CHARS, outcomes_figure, plot_label, write_plots
from boardlab.arena.ratings import pair_elo
from boardlab.arena.report import (
    ENDINGS,
    colour_table,
    forfeit_lines,
    gauntlet_table,
    print_report,
    progress_bar,
    ratings_table,
    score_matrix_table,
    tournaments_table,
    write_summary_json,
)
from boardlab.arena.schedule import TournamentConfig
from boardlab.arena.store import Store
from boardlab.arena.summary import Outcomes, player_name, player_names, pooled_games, summarize
from boardlab.games import Outcome, Reason, new_game

SPECS = ("random", "greedy", "random")


def _game(index: int, first: int, second: int, winner: int | None, plies: int) -> GameRecord:
    return GameRecord(
        tournament_id="t",
        index=index,
        game="quixo",
        first_player=first,
        second_player=second,
        first_spec=SPECS[first],
        second_spec=SPECS[second],
        first_seed=1,
        second_seed=2,
        opening_index=0,
        opening=("a1e1",),
        moves=("a1e1",) + ("b1b5",) * (plies - 1),
        outcome=Outcome(winner, Reason.RULE) if winner is not None else Outcome(None, Reason.PLY_CAP),
        plies=plies,
        move_times=(0.5,) * (plies - 1),
        started="",
        finished="",
    )


GAMES = [
    _game(0, 1, 0, 0, 11),  # greedy first, wins
    _game(1, 0, 1, 1, 12),  # greedy second, wins
    _game(2, 0, 2, None, 200),  # draw
    _game(3, 2, 0, 0, 9),  # random#2 first, wins
    _game(4, 1, 2, 1, 15),  # greedy first, loses
    _game(5, 2, 1, 1, 14),  # greedy second, wins
]


def test_summary_counts_by_colour_and_pair() -> None:
    summary = summarize(SPECS, GAMES)
    assert summary.names == ("random", "greedy", "random#2")
    assert summary.as_first[1].text() == "1-0-1" and summary.as_second[1].text() == "2-0-0"
    assert summary.as_first[0].text() == "0-1-1" and summary.as_second[0].text() == "0-0-2"
    assert summary.first_player.text() == "2-1-3"
    assert summary.points[1, 0] == 2 and summary.points[0, 1] == 0
    assert summary.points[0, 2] == 0.5 and summary.points[2, 0] == 1.5
    scores = summary.score_matrix()
    assert scores[1, 2] == 0.5 and np.isnan(scores[0, 0])
    assert summary.ranking()[0] == 1
    assert summary.move_seconds == (0.5, 0.5, 0.5)
    assert player_names(["a", "a", "b", "a"]) == ("a", "a#2", "b", "a#3")


def test_summary_longest_move_per_player() -> None:
    slow = dataclasses.replace(GAMES[0], move_times=(0.5, 2.0) + (0.5,) * 8)  # greedy's first own move
    summary = summarize(SPECS, [slow, *GAMES[1:]])
    assert summary.max_move_seconds == (0.5, 2.0, 0.5)
    assert summary.move_seconds[1] > 0.5 and summary.move_seconds[0] == 0.5


def test_report_tables_and_json(tmp_path: Path) -> None:
    summary = summarize(SPECS, GAMES)
    console = Console(record=True, width=140)
    print_report(summary, console, "demo")
    text = console.export_text()
    for expected in ("Ratings (demo): 6 games", "random#2", "Score matrix", "Results by colour", "1-0-1"):
        assert expected in text
    data = json.loads(write_summary_json(summary, tmp_path / "summary.json").read_text())
    assert data["games"] == 6 and data["players"][1]["as_second"] == {"wins": 2, "draws": 0, "losses": 0}
    assert data["endings"] == {"rule": {"wins": 5, "draws": 0}, "ply_cap": {"wins": 0, "draws": 1}}
    assert str(colour_table(summary).caption).endswith("; 5 won by the rules, 1 at the ply cap (1 draw)")
    assert (
        data["players"][1]["elo"]["low"]
        < data["players"][1]["elo"]["rating"]
        < data["players"][1]["elo"]["high"]
    )


def test_plots_are_png_files(tmp_path: Path) -> None:
    paths = write_plots(summarize(SPECS, GAMES), tmp_path / "plots")
    names = {p.name for p in paths}
    assert names == {"score_matrix.png", "outcomes_by_side.png", "game_lengths.png", "ratings.png"}
    for path in paths:
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert path.stat().st_size > 5000


spec_piece = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789=./_-", min_size=1, max_size=30)
spec_pieces = st.lists(spec_piece, min_size=1, max_size=6)


@given(st.lists(spec_pieces.map(",".join), min_size=2, max_size=6, unique=True))
def test_plot_labels_wrap_long_specs_whole_and_keep_them_apart(specs: list[str]) -> None:
    specs = [f"hybrid:{spec}" for spec in specs]
    labels = [plot_label(spec) for spec in specs]
    assert all(len(line) <= LABEL_CHARS for label in labels for line in label.split("\n"))
    assert [label.replace("\n", "") for label in labels] == specs  # whole, hence apart


def test_a_plot_label_shortens_only_a_piece_too_long_for_a_line() -> None:
    path = "/home/student/" + "x" * 80 + "/player.py"
    label = plot_label(f"course:{path},seed=1")
    assert all(len(line) <= LABEL_CHARS for line in label.split("\n"))
    assert label.startswith("course:\n/home/student/") and "…" in label and label.endswith("\nseed=1")


def test_the_outcomes_legend_hides_no_bar() -> None:
    figure = outcomes_figure(summarize(SPECS, GAMES))
    renderer = figure.canvas.get_renderer()  # type: ignore[attr-defined]
    figure.draw(renderer)
    (ax,) = figure.axes
    legends = [*figure.legends, *([ax.get_legend()] if ax.get_legend() else [])]
    assert legends
    for legend in legends:
        assert not legend.get_window_extent(renderer).overlaps(ax.get_window_extent(renderer))


def test_tables_keep_every_number_whole_beside_long_names() -> None:
    # course players' paths are long: they fold, while no number is cut or dropped
    long = tuple(
        f"course:player=/home/student/projects/quixo/{n}_player.py:Player" for n in ("first", "second")
    )
    specs = (*long, "random")
    games = [
        dataclasses.replace(g, first_spec=specs[g.first_player], second_spec=specs[g.second_player])
        for g in GAMES
    ]
    summary = summarize(specs, games)
    for width in (130, 100):
        console = Console(record=True, width=width)
        for table in (ratings_table(summary), score_matrix_table(summary), colour_table(summary)):
            console.print(table)
        text = console.export_text()
        assert "…" not in text
        for i in range(3):
            overall = summary.overall(i)
            assert f"{overall.score:.1%}" in text and overall.text() in text
            assert f"{summary.elo.ratings[i]:+.0f}" in text  # type: ignore[union-attr]
        assert "time/move" in text or "time/mov" in text


def test_outcomes_count_a_draw_as_half_a_point() -> None:
    outcomes = Outcomes(wins=3, draws=2, losses=1)
    assert outcomes.games == 6 and outcomes.points == 4.0 and outcomes.score == 4 / 6
    assert np.isnan(Outcomes().score)


def test_endings_are_listed_most_frequent_first_draws_included() -> None:
    draw = dataclasses.replace(GAMES[2], outcome=Outcome(None, Reason.PLY_CAP))
    win = dataclasses.replace(GAMES[0], outcome=Outcome(0, Reason.RULE))
    summary = summarize(SPECS, [win, draw, draw, draw])
    assert summary.endings == (("ply_cap", 0, 3), ("rule", 1, 0))


def test_pooled_games_rate_specs_across_tournaments_and_leave_out_self_play() -> None:
    with Store() as store:
        for specs in (("random", "greedy"), ("greedy", "random", "random")):
            config = TournamentConfig(specs, 1, game="quixo")
            store.register_tournament(config)
            for a, b in config.pairs:
                record = dataclasses.replace(
                    GAMES[0],
                    tournament_id=config.tournament_id,
                    index=config.pairs.index((a, b)),
                    first_player=a,
                    second_player=b,
                    first_spec=specs[a],
                    second_spec=specs[b],
                )
                store.add_game(record)
        players, games = pooled_games(store, "quixo:size=5")
    assert players == ["random", "greedy"]
    assert len(games) == 3  # random-random is left out
    assert all({g.first_spec, g.second_spec} == {"random", "greedy"} for g in games)
    assert all(players[g.first_player] == g.first_spec for g in games)
    assert all(players[g.second_player] == g.second_spec for g in games)


def test_one_agent_written_two_ways_is_one_player_across_tournaments() -> None:
    """Case, spaces, option order and defaults written out do not make another player; a
    spec naming no known agent is kept as written."""
    spellings = (
        ("alphabeta:depth=2,eval=lines", "random"),
        ("AlphaBeta: eval = lines, depth=2", "random:"),
        ("alphabeta:eval=lines,depth=2", "nosuch-agent"),
    )
    with Store() as store:
        for seed, specs in enumerate(spellings):  # three tournaments (one seed would be one)
            config = TournamentConfig(specs, 1, game="quixo", seed=seed)
            store.register_tournament(config)
            for index, (a, b) in enumerate(config.pairs):
                store.add_game(
                    dataclasses.replace(
                        GAMES[0],
                        tournament_id=config.tournament_id,
                        index=index,
                        first_player=a,
                        second_player=b,
                        first_spec=specs[a],
                        second_spec=specs[b],
                    )
                )
        players, games = pooled_games(store, "quixo")
    assert players == [player_name("alphabeta:depth=2,eval=lines"), "random", "nosuch-agent"]
    assert len(games) == 3 and {g.first_player for g in games} == {0}
    assert player_name("AlphaBeta:eval=lines , depth=2") == players[0] != "random"


def test_a_narrow_terminal_loses_no_column_of_the_report() -> None:
    # the tables cannot fold their numbers into 60 columns: they run wider rather than drop
    # the last columns (score, time/move) off the edge of the terminal
    specs = ("random", "alphabeta:depth=1,time=0.05", "greedy")
    games = [
        dataclasses.replace(g, first_spec=specs[g.first_player], second_spec=specs[g.second_player])
        for g in GAMES
    ]
    summary = summarize(specs, games)
    console = Console(record=True, width=60)
    print_report(summary, console)
    text = console.export_text()
    assert "time/move" in text and "1 virtual draw per player against" in text  # not "time/mov\ne"
    for i in range(3):
        assert f"{summary.overall(i).score:.1%}" in text
        assert f"{summary.as_second[i].score:.1%}" in text or np.isnan(summary.as_second[i].score)


def test_a_single_game_plots_whole_plies_and_counts_each_bar() -> None:
    from boardlab.arena.plots import game_lengths_figure

    summary = summarize(SPECS, GAMES[:1])
    figure = game_lengths_figure(summary)
    figure.draw(figure.canvas.get_renderer())  # type: ignore[attr-defined]
    (ax,) = figure.axes
    assert list(ax.get_xticks()) == [GAMES[0].plies]  # not 5.55, 5.70, ...
    assert ax.get_title() == "Game length (1 game)"
    labels = [t.get_text() for t in outcomes_figure(summary).axes[0].get_yticklabels()]
    assert "all games, first player (1 game)" in labels
    assert any(label.endswith("(first, 0 games)") for label in labels)  # an empty bar says why


def test_the_game_length_legend_stands_above_the_bars() -> None:
    from boardlab.arena.plots import game_lengths_figure

    figure = game_lengths_figure(summarize(SPECS, GAMES[:1]))  # one bar, as wide as the axes
    renderer = figure.canvas.get_renderer()  # type: ignore[attr-defined]
    figure.draw(renderer)
    (ax,) = figure.axes
    legend = ax.get_legend()
    assert legend is not None
    box = legend.get_window_extent(renderer)
    assert all(not box.overlaps(bar.get_window_extent(renderer)) for bar in ax.patches)


def test_neighbouring_game_lengths_are_bars_apart_with_their_edges() -> None:
    from boardlab.arena.plots import game_lengths_figure

    # 9, 11 and 12 plies: 11 and 12 neighbours with one game each, 10 with none
    figure = game_lengths_figure(summarize(SPECS, [GAMES[0], GAMES[1], GAMES[3]]))
    (ax,) = figure.axes
    bars = sorted(ax.patches, key=lambda bar: bar.get_x())
    standing = [bar for bar in bars if bar.get_height() > 0]
    assert [round(bar.get_x() + bar.get_width() / 2) for bar in standing] == [9, 11, 12]
    for left, right in itertools.pairwise(bars):
        assert left.get_x() + left.get_width() < right.get_x()  # a gap between every two lengths
    assert all(bar.get_linewidth() > 0 for bar in standing)


def test_the_score_matrix_writes_white_on_its_dark_cells() -> None:
    from matplotlib.colors import to_rgb

    from boardlab.arena.plots import score_matrix_figure

    summary = summarize(SPECS, GAMES)
    (ax, _colourbar) = score_matrix_figure(summary).axes
    for text in ax.texts:
        score = float(text.get_text().split("%")[0]) / 100
        dark = score < 0.2 or score > 0.8  # deep red or deep green under the text
        assert to_rgb(text.get_color()) == ((1.0, 1.0, 1.0) if dark else (0.0, 0.0, 0.0))


def _forfeited(index: int, first: int, second: int, winner: int) -> GameRecord:
    outcome = Outcome(winner, Reason.FORFEIT, f"broke in game {index}")
    return dataclasses.replace(_game(index, first, second, winner, 3), outcome=outcome)


@given(
    st.lists(
        st.tuples(st.sampled_from([(0, 1), (1, 0), (2, 1), (1, 2)]), st.sampled_from([0, 1, None])),
        max_size=8,
    ),
    st.integers(1, 5),
)
def test_forfeit_lines_name_the_loser_of_each_forfeited_game(
    games: list[tuple[tuple[int, int], int | None]], limit: int
) -> None:
    names = ["random", "greedy", "random#2"]
    records = [
        _forfeited(i, first, second, winner) if winner is not None else _game(i, first, second, None, 5)
        for i, ((first, second), winner) in enumerate(games)
    ]
    lines = forfeit_lines(records, names, limit)
    lost = [
        (i, (second if winner == 0 else first))
        for i, ((first, second), winner) in enumerate(games)
        if winner is not None
    ]
    if not lost:
        assert lines == []
        return
    assert lines[0] == f"{len(lost)} game{'s' if len(lost) != 1 else ''} forfeited:"
    at = _played("a1e1", "b1b5", "b1b5")
    shown = [
        f"  game {i}: {names[loser]} forfeits after 3 plies: broke in game {i} (at {at})"
        for i, loser in lost[:limit]
    ]
    more = [f"  ... and {len(lost) - limit} more (see the store)"] if len(lost) > limit else []
    assert lines[1:] == shown + more


def _played(*moves: str) -> str:
    """The text of the 5x5 Quixo position after ``moves``, played one by one."""
    state = new_game("quixo")
    for move in moves:
        state = state.play(move)
    return state.to_text()


def _cells(table: Any) -> list[list[str]]:
    return [[str(cell) for cell in column.cells] for column in table.columns]


def test_the_score_matrix_shows_each_row_players_score_against_each_column_player() -> None:
    summary = summarize(SPECS, GAMES)
    order = summary.ranking()
    columns = _cells(score_matrix_table(summary))
    scores = summary.score_matrix()
    assert columns[0] == [summary.names[i] for i in order]
    for c, j in enumerate(order, start=1):
        for r, i in enumerate(order):
            games = int(summary.games[i, j])
            assert columns[c][r] == ("" if i == j or not games else f"{scores[i, j]:.0%} ({games})")


def test_times_per_move_are_shown_in_milliseconds_below_a_second() -> None:
    for seconds, shown in ((0.5, "500.0 ms"), (0.999, "999.0 ms"), (1.0, "1.00 s"), (2.5, "2.50 s")):
        games = [dataclasses.replace(g, move_times=(seconds,) * len(g.move_times)) for g in GAMES]
        summary = summarize(SPECS, games)
        assert set(_cells(ratings_table(summary))[7]) == {shown}


def test_counts_of_one_are_singular_in_the_report() -> None:
    # a forfeit on the first move, in a match of one game
    record = dataclasses.replace(_forfeited(0, 0, 1, 1), plies=1, moves=("a1e1",), move_times=())
    assert forfeit_lines([record], ["random", "greedy"]) == [
        "1 game forfeited:",
        f"  game 0: random forfeits after 1 ply: broke in game 0 (at {_played('a1e1')})",
    ]
    console = Console(record=True, width=120)
    print_report(summarize(SPECS[:2], [record]), console, "random vs greedy", [record])
    assert "Ratings (random vs greedy): 1 game " in console.export_text()


def test_every_way_a_game_ends_has_its_words_in_the_colour_table() -> None:
    assert set(ENDINGS) == set(Reason)


@given(st.lists(st.tuples(st.integers(1, 3), st.booleans(), st.sampled_from([0, 1, None])), max_size=30))
def test_the_gauntlet_table_counts_the_first_players_games_against_each(
    games: list[tuple[int, bool, int | None]],
) -> None:
    specs = ("greedy", "random", "mcts", "minimax")
    records = [
        dataclasses.replace(
            _game(i, 0, 1, winner, 9),
            first_player=0 if zero_first else other,
            second_player=other if zero_first else 0,
            first_spec=specs[0 if zero_first else other],
            second_spec=specs[other if zero_first else 0],
        )
        for i, (other, zero_first, winner) in enumerate(games)
    ]
    columns = _cells(gauntlet_table(summarize(specs, records), records))
    assert columns[0] == list(specs[1:])
    for row, other in enumerate((1, 2, 3)):
        mine = [(zero_first, winner) for o, zero_first, winner in games if o == other]

        def counted(first: bool, mine: list[tuple[bool, int | None]] = mine) -> list[int]:
            results = [
                0.5 if winner is None else float((winner == 0) == zero_first)
                for zero_first, winner in mine
                if zero_first == first
            ]
            return [results.count(1.0), results.count(0.5), results.count(0.0)]

        first, second = counted(True), counted(False)
        both = [a + b for a, b in zip(first, second, strict=True)]
        assert columns[1][row] == str(len(mine))
        assert [columns[c][row] for c in (2, 3, 4)] == ["-".join(map(str, w)) for w in (both, first, second)]
        if not mine:
            assert columns[6][row] == "-"
            continue
        diff, low, high = pair_elo(*both)
        assert columns[6][row] == f"{diff:+.0f} [{low:+.0f}, {high:+.0f}]"


def test_a_gauntlets_report_shows_its_table_in_place_of_the_score_matrix() -> None:
    console = Console(width=200, record=True)
    print_report(summarize(SPECS, GAMES), console, "g", GAMES, gauntlet=True)
    text = console.export_text()
    assert "random against each" in text and "Score matrix" not in text


def _table_rows(text: str) -> list[dict[str, str]]:
    """The rows of a rendered rich table, each cell by its heading (cells on one line)."""
    lines = [line.strip("┃│") for line in text.splitlines() if line[:1] in ("┃", "│")]
    header, *rows = ([cell.strip() for cell in line.replace("┃", "│").split("│")] for line in lines)
    return [dict(zip(header, row, strict=True)) for row in rows]


def test_the_tournaments_table_puts_each_value_under_its_heading() -> None:
    gauntlet = {
        "id": "0123456789abcdef",
        "name": "champion",
        "game": "connect4",
        "pairing": "gauntlet",
        "openings": [],
        "opening_plies": 1,
        "time_control": "",
        "specs": ["greedy", "random", "mcts"],
        "games": 1234,
        "created": "2026-01-02T03:04:05+00:00",
    }
    suite = {
        **gauntlet,
        "id": "fedcba9876543210",
        "pairing": "round-robin",
        "openings": [["b2"]] * 1001,
        "opening_plies": 0,
        "time_control": "60+0.5",
        "specs": ["a", "b"],
        "games": 0,
    }
    console = Console(record=True, width=200)
    console.print(tournaments_table([gauntlet, suite]))
    common = {"name": "champion", "game": "connect4", "created (UTC)": "2026-01-02 03:04"}
    assert _table_rows(console.export_text()) == [
        {**common, "id": "0123456789abcdef", "pairing": "gauntlet", "openings": "1 ply at random"}
        | {"clock": "-", "players": "3", "games": "1,234"},
        {**common, "id": "fedcba9876543210", "pairing": "round-robin", "openings": "a suite of 1,001"}
        | {"clock": "60+0.5", "players": "2", "games": "0"},
    ]


def test_a_long_label_leaves_the_progress_bar_its_count_and_note() -> None:
    """Two versions of one long engine spec stay apart, and the LLR of an SPRT stays in sight."""
    console = Console(width=100, record=True, force_terminal=True)
    first = "engine:cmd=(python3 /home/me/engines/connect_four/my_engine.py --depth 3)"
    label = f"{first} vs {first.replace('3)', '2)')}"
    with progress_bar(console, label, lambda: "LLR +1.23 [-2.94, +2.94]") as (on_start, _):
        on_start(400, 0)
    shown = console.export_text()
    assert "LLR +1.23 [-2.94, +2.94]" in shown and "0/400" in shown
    assert "epth 3) vs engine:" in shown and "epth 2) ━" in shown  # each spec shortened in its middle


def test_on_a_narrow_terminal_the_progress_label_goes_above_the_bar_whole() -> None:
    console = Console(width=80, record=True, force_terminal=True)
    label = "alphabeta:depth=3 vs alphabeta:depth=2"
    with progress_bar(console, label, lambda: "LLR +3.00 [-2.94, +2.94]") as (on_start, _):
        on_start(10_000, 0)
    lines = console.export_text().splitlines()
    note = "LLR +3.00 [-2.94, +2.94]"
    bar = next(line for line in lines if note in line)  # the live display's draws, run together
    first_draw = bar[: bar.index(note) + len(note)]
    assert label in lines and "0/10000" in first_draw and len(first_draw) <= 80
    wide = Console(width=120, record=True, force_terminal=True)
    with progress_bar(wide, label, lambda: "LLR +3.00 [-2.94, +2.94]") as (on_start, _):
        on_start(10_000, 0)
    wide_lines = wide.export_text().splitlines()  # room beside the bar: the label in its line
    assert label not in wide_lines and any(" vs alpha" in line and note in line for line in wide_lines)
