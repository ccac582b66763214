"""The page in headless Chromium against the real server (uvicorn on a free port): whole games
played by clicking, the drawn board checked against the engine after every move, undo, refused
clicks, analysis equal to the exact play, positions from the URL, a stored game replayed, and
games reviewed as ``boardlab review`` judges them.
Screenshots go to the session's results folder (``web-screens`` under pytest's tmp dir)."""

from __future__ import annotations

import random
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, quote, urlsplit

import pytest
from playwright.sync_api import Page, Route, sync_playwright
from records import game_record
from web_helpers import running_server

from boardlab.agents import make_agent
from boardlab.arena.oracle import judge_for
from boardlab.arena.play import GameRecord
from boardlab.arena.review import Review, review_game
from boardlab.arena.schedule import TournamentConfig
from boardlab.arena.store import Store
from boardlab.games import GAMES, exact_play, new_game, parse_game
from boardlab.play.session import Session
from boardlab.ui.terminal import clock_text
from boardlab.ui.web.app import ServeSettings, create_app
from boardlab.ui.web.hall import HallSettings
from boardlab.ui.web.replay import Replays

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples" / "hexapawn"))

from boardlab_hexapawn import Hexapawn

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
WAIT_MS = 60_000


def _stored_game(path: Path) -> GameRecord:
    """A Connect Four game between greedy and random, stored as a tournament's only game."""
    config = TournamentConfig(
        ("greedy", "random"), 1, game="connect4", seed=5, opening_plies=2, name="web test"
    )
    start = new_game("connect4")
    opening = ["4", "3"]
    for move in opening:
        start = start.play(move)
    agents = [make_agent(spec, seed=i, game=start.game) for i, spec in enumerate(config.specs)]
    session = Session(start, agents)
    outcome = session.run()
    moves = tuple(opening) + tuple(session.moves)
    record = game_record(
        "connect4",
        moves,
        outcome,
        tournament_id=config.tournament_id,
        opening=tuple(opening),
        move_times=tuple(t.seconds or 0.0 for t in session.turns),
    )
    with Store(path) as store:
        store.register_tournament(config)
        store.add_game(record)
    return record


@pytest.fixture(scope="session")
def screens(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("web-screens")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    folder = tmp_path_factory.mktemp("web-server")
    record = _stored_game(folder / "arena.sqlite")
    settings = ServeSettings(
        hall=HallSettings(max_games=50, pace=0.05), analysis_seconds=5.0, db=str(folder / "arena.sqlite")
    )
    GAMES.register("hexapawn", Hexapawn)  # a game from outside boardlab, which the page has no drawing for
    try:
        with running_server(create_app(settings)) as url:
            yield {"url": url, "record": record, "db": folder / "arena.sqlite"}
    finally:
        GAMES.unregister("hexapawn")


@pytest.fixture(scope="module")  # the one browser of the run: every browser test is in this module
def browser_context(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    profile = tmp_path_factory.mktemp("chromium-profile")
    with sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            str(profile),
            executable_path=CHROMIUM,
            args=CHROMIUM_ARGS,
            headless=True,
            viewport={"width": 1400, "height": 900},
        )
        yield context
        context.close()


@pytest.fixture
def page(browser_context: Any) -> Iterator[Page]:
    the_page = browser_context.new_page()
    the_page.set_default_timeout(WAIT_MS)
    yield the_page
    the_page.close()


# --- reading the page -------------------------------------------------------------------------


def open_page(page: Page, server: dict[str, Any], query: str) -> None:
    page.goto(server["url"] + "/" + query)
    page.wait_for_selector("body[data-ready='1']")
    settle(page)


def settle(page: Page) -> None:
    """Wait until no agent thinks or is to move: the turn marker names the person, or the game is over."""
    page.wait_for_function(
        "() => { const t = document.getElementById('turn').textContent;"
        " return document.getElementById('thinking').textContent === '' &&"
        " (t.includes('(you)') || t === 'game over'); }"
    )


def page_moves(page: Page) -> list[str]:
    return page.eval_on_selector_all("#moves li", "items => items.map(li => li.dataset.move)")


def drawn_cells(page: Page) -> dict[tuple[int, int], str]:
    cells = page.eval_on_selector_all(
        "#board [data-v]", "els => els.map(e => [Number(e.dataset.x), Number(e.dataset.y), e.dataset.v])"
    )
    return {(x, y): v for x, y, v in cells}


def engine_cells(state: Any) -> dict[tuple[int, int], str]:
    view = state.game.json_view(state)
    rows = view["board"] if "board" in view else view["cells"]
    symbols = state.game.symbols
    return {(x, y): "." if v < 0 else symbols[v] for y, row in enumerate(rows) for x, v in enumerate(row)}


def engine_state(game: str, moves: list[str], start: str = "") -> Any:
    state = parse_game(game).parse_position(start) if start else new_game(game)
    for move in moves:
        state = state.play(move)
    return state


def check_board(page: Page, game: str, start: str = "") -> Any:
    """The engine's position after the page's moves, once checked against the drawn board."""
    state = engine_state(game, page_moves(page), start)
    assert drawn_cells(page) == engine_cells(state)
    return state


# --- whole games by clicking ------------------------------------------------------------------


def test_a_whole_connect_four_game_by_clicking(page: Page, server: dict[str, Any], screens: Path) -> None:
    rng = random.Random(7)
    open_page(page, server, "?game=connect4&x=person&o=greedy&think=0.1")
    state = check_board(page, "connect4")
    while not state.is_over:
        column = str(rng.choice(state.legal_moves()))
        played = len(page_moves(page))
        page.click(f".col[data-col='{column}']")
        page.wait_for_function(f"() => document.querySelectorAll('#moves li').length > {played}")
        settle(page)
        state = check_board(page, "connect4")
    assert page.inner_text("#result").startswith("Game over")
    if state.winner is not None:
        assert page.locator(".disc.line").count() >= 4
    page.screenshot(path=str(screens / "connect4-game.png"))


def test_a_whole_quixo_game_by_clicking_with_the_legal_ends_highlighted(
    page: Page, server: dict[str, Any], screens: Path
) -> None:
    rng = random.Random(11)
    open_page(page, server, "?game=quixo&x=person&o=greedy&think=0.1")
    state = check_board(page, "quixo")
    while not state.is_over:
        move = rng.choice(state.legal_moves())
        page.click(f".cell[data-x='{move.x}'][data-y='{move.y}']")
        ends = page.eval_on_selector_all(
            ".cell.end", "els => els.map(e => [Number(e.dataset.x), Number(e.dataset.y)])"
        )
        legal_ends = {m.destination for m in state.legal_moves() if (m.x, m.y) == (move.x, move.y)}
        assert {tuple(e) for e in ends} == legal_ends
        arrows = page.eval_on_selector_all(
            ".cell.end",
            "els => els.map(e => [+e.dataset.x, +e.dataset.y, e.querySelector('.dir').textContent])",
        )
        for x, y, arrow in arrows:  # the way the cube goes in: the line slides toward its cell
            if x == move.x:
                assert arrow == ("↓" if y < move.y else "↑")
            else:
                assert arrow == ("→" if x < move.x else "←")
        x, y = move.destination
        played = len(page_moves(page))
        page.click(f".cell.end[data-x='{x}'][data-y='{y}']")
        page.wait_for_function(f"() => document.querySelectorAll('#moves li').length > {played}")
        settle(page)
        state = check_board(page, "quixo")
        assert page.locator(".cell.last").count() == 1 and page.locator(".cell.from").count() == 1
    assert page.inner_text("#result").startswith("Game over")
    if state.winner is not None:
        assert page.locator(".cell.line").count() >= 5
    page.screenshot(path=str(screens / "quixo-game.png"))


def test_a_game_from_outside_is_drawn_as_its_grid_and_played_by_clicking_its_cells(
    page: Page, server: dict[str, Any], screens: Path
) -> None:
    rng = random.Random(5)
    open_page(page, server, "?game=hexapawn:size=4&x=person&o=person")
    page.click(".cell[data-x='1'][data-y='1']")  # an empty cell: no move starts there
    assert "no move starts at b2" in page.inner_text("#message")
    assert page.eval_on_selector_all(".side .badge", "els => els.map(e => e.textContent)") == ["W", "B"]
    state = check_board(page, "hexapawn:size=4")
    cells = "els => els.map(e => [+e.dataset.x, +e.dataset.y])"
    while not state.is_over:
        starts = page.eval_on_selector_all(".cell.clickable", cells)
        assert {tuple(c) for c in starts} == {(m.x, m.y) for m in state.legal_moves()}
        move = rng.choice(state.legal_moves())
        page.click(f".cell[data-x='{move.x}'][data-y='{move.y}']")
        page.wait_for_selector(".cell.selected")
        pawn_moves = [m for m in state.legal_moves() if (m.x, m.y) == (move.x, move.y)]
        ends = page.eval_on_selector_all(".cell.end", cells)
        assert {tuple(c) for c in ends} == {(m.to_x, m.to_y) for m in pawn_moves}
        buttons = page.eval_on_selector_all(".legal-moves button", "els => els.map(e => e.textContent)")
        assert sorted(buttons) == sorted(str(m) for m in pawn_moves)
        played = len(page_moves(page))
        page.click(f".cell.end[data-x='{move.to_x}'][data-y='{move.to_y}']")
        page.wait_for_function(f"() => document.querySelectorAll('#moves li').length > {played}")
        state = check_board(page, "hexapawn:size=4")
        assert page_moves(page)[-1] == str(move)
        assert page.locator(f".cell.from[data-x='{move.x}'][data-y='{move.y}']").count() == 1
        assert page.locator(f".cell.last[data-x='{move.to_x}'][data-y='{move.to_y}']").count() == 1
    assert page.inner_text("#result").startswith("Game over")
    ringed = page.eval_on_selector_all(".cell.line", cells)
    assert {tuple(c) for c in ringed} == set(state.game.winning_cells(state))
    page.screenshot(path=str(screens / "hexapawn-game.png"))


def test_undo_takes_back_a_move_pair(page: Page, server: dict[str, Any]) -> None:
    open_page(page, server, "?game=connect4&x=person&o=random&think=0.1")
    for column in ("4", "3"):
        played = len(page_moves(page))
        page.click(f".col[data-col='{column}']")
        page.wait_for_function(f"() => document.querySelectorAll('#moves li').length > {played}")
        settle(page)
    before = page_moves(page)
    assert len(before) == 4
    page.click("#undo")
    page.wait_for_function("() => document.querySelectorAll('#moves li').length === 2")
    assert page_moves(page) == before[:2]
    check_board(page, "connect4")


def test_illegal_clicks_are_refused(page: Page, server: dict[str, Any]) -> None:
    open_page(page, server, "?game=connect4&moves=444444&x=person&o=person")
    page.click(".col[data-col='4']")
    page.wait_for_function("() => document.getElementById('message').textContent.includes('full')")
    assert page_moves(page) == list("444444")
    check_board(page, "connect4")
    open_page(page, server, "?game=quixo&moves=a1e1&x=person&o=person")
    page.click(".cell[data-x='4'][data-y='0']")  # X's cube, O to move
    assert "cannot take" in page.inner_text("#message")
    assert page.locator(".cell.end").count() == 0
    assert page_moves(page) == ["a1e1"]


# --- analysis, URLs, replay -------------------------------------------------------------------


def analysis_rows(page: Page) -> dict[str, tuple[str, str | None, str | None]]:
    page.wait_for_selector("#analysis-table tr[data-move]")
    rows = page.eval_on_selector_all(
        "#analysis-table tr[data-move]",
        "rows => rows.map(r => [r.dataset.move, r.dataset.value,"
        " r.dataset.depth || null, r.dataset.score || null])",
    )
    return {move: (value, depth, score) for move, value, depth, score in rows}


def exact_rows(state: Any) -> dict[str, tuple[str, str | None, str | None]]:
    values = exact_play(state.game).move_values(state)
    return {
        str(state.move_from_index(v.action)): (
            v.name,
            None if v.depth is None else str(v.depth),
            None if v.score is None else str(v.score),
        )
        for v in values
    }


def test_analysis_shows_the_solvers_values(page: Page, server: dict[str, Any], screens: Path) -> None:
    open_page(page, server, "?game=tictactoe&moves=b2,a1&x=person&o=person&hints=1")
    assert analysis_rows(page) == exact_rows(engine_state("tictactoe", ["b2", "a1"]))
    # a drawn position: its source named once, no length for a draw
    head = page.text_content("#exact-head") or ""
    assert head.startswith("Exact, from a full solve (") and head.endswith("the side to move draws")
    moves = list("4444445555531")
    open_page(page, server, f"?game=connect4&moves={''.join(moves)}&x=person&o=person&hints=1")
    state = engine_state("connect4", moves)
    assert analysis_rows(page) == exact_rows(state)
    labels = page.eval_on_selector_all(".c4 .score", "els => els.map(e => e.textContent)")
    scores = {
        str(state.move_from_index(v.action)): v.score for v in exact_play(state.game).move_values(state)
    }
    for column, label in enumerate(labels, 1):
        expected = scores.get(str(column))
        assert label == ("" if expected is None else f"{'+' if expected > 0 else ''}{expected}")
    page.screenshot(path=str(screens / "connect4-analysis.png"))
    open_page(page, server, "?game=connect4&x=person&o=person&hints=1")  # the start, from the book
    page.wait_for_selector("#analysis-table tr[data-move]")
    labels = page.eval_on_selector_all(".c4 .score", "els => els.map(e => e.textContent)")
    assert labels == ["-2", "-1", "0", "+1", "0", "-1", "-2"]


def test_a_position_in_the_url_loads_as_it_reads(page: Page, server: dict[str, Any], screens: Path) -> None:
    text = "XOX.O/.O.X./..X../.O.X./O...X O 11"
    open_page(page, server, f"?game=quixo&pos={quote(text)}&x=person&o=person")
    state = check_board(page, "quixo", text)
    assert state.to_text() == parse_game("quixo").parse_position(text).to_text()
    assert page.get_attribute("#turn", "data-to-move") == "1"
    page.fill("#paste", "4453")
    page.select_option("#game-select", "connect4")
    page.click("#paste-load")
    page.wait_for_function("() => document.querySelectorAll('#moves li').length === 4")
    check_board(page, "connect4")
    assert "moves=4453" in page.url
    page.select_option("#game-select", "quixo")
    page.fill("#paste", text)
    page.click("#paste-load")
    page.wait_for_function("() => document.querySelectorAll('#moves li').length === 0")
    check_board(page, "quixo", text)
    page.fill("#paste", "z9")
    page.click("#paste-load")
    page.wait_for_function("() => document.getElementById('message').textContent.includes('as a position')")


def test_a_stored_game_is_replayed_with_its_thinking_times(
    page: Page, server: dict[str, Any], screens: Path
) -> None:
    record: GameRecord = server["record"]
    open_page(page, server, "?game=tictactoe&x=person&o=person")
    page.wait_for_selector("#replay-games li[data-index='0']")
    label = f"web test (connect4, openings 2 plies at random, 1 game, id {record.tournament_id})"
    assert page.inner_text("#tournaments option") == label
    plies = len(record.moves)
    assert page.inner_text("#replay-games li[data-index='0']").endswith(f", {plies} plies")
    rows = page.eval_on_selector_all(
        "#standings tr[data-player]", "rows => rows.map(r => [...r.cells].map(c => c.textContent))"
    )
    table = Replays(server["db"]).standings(record.tournament_id)
    assert [row[:3] for row in rows] == [
        [str(r["rank"]), r["player"], f"{r['wins']}-{r['draws']}-{r['losses']}"] for r in table
    ]
    assert {r["player"] for r in table} == {"greedy", "random"}
    page.click("#replay-games li[data-index='0']")
    page.wait_for_selector("#replay-controls:not([hidden])")
    assert page.input_value("#game-select") == "connect4"  # a new game from here is of the game shown
    state = new_game("connect4")
    assert drawn_cells(page) == engine_cells(state)
    for ply, move in enumerate(record.moves, 1):
        page.click("#replay-next")
        state = state.play(move)
        assert page.inner_text("#replay-ply") == f"{ply} / {len(record.moves)}"
        assert drawn_cells(page) == engine_cells(state)
    shown = page.eval_on_selector_all("#moves li", "items => items.map(li => li.textContent)")
    assert len(shown) == len(record.moves)
    for text, seconds in zip(shown[len(record.opening) :], record.move_times, strict=True):
        assert f"({seconds:.2f} s)" in text
    assert page.inner_text("#result").startswith("Game over")
    page.screenshot(path=str(screens / "replay.png"))
    page.focus("#paste")
    page.keyboard.press("ArrowLeft")  # typing in a box does not step the replay
    assert page.inner_text("#replay-ply") == f"{len(record.moves)} / {len(record.moves)}"
    page.focus("#replay-last")
    page.keyboard.press("ArrowLeft")
    assert page.inner_text("#replay-ply") == f"{len(record.moves) - 1} / {len(record.moves)}"
    page.click("#analyse")  # the replay's position, one move before its end
    before_end = new_game("connect4")
    for move in record.moves[:-1]:
        before_end = before_end.play(move)
    assert analysis_rows(page) == exact_rows(before_end)


def test_the_tournament_list_says_a_gauntlet_and_its_suite_of_openings(
    page: Page, server: dict[str, Any]
) -> None:
    suite = (("4",), ("3",), ("5", "4"))
    config = TournamentConfig(
        ("greedy", "random", "mcts"), 1, "connect4", name="suite", pairing="gauntlet", openings=suite
    )
    with Store(server["db"]) as store:
        store.register_tournament(config)  # listed after the stored game's tournament
    open_page(page, server, "?game=tictactoe&x=person&o=person")
    page.wait_for_selector("#tournaments option:nth-child(2)", state="attached")
    options = page.eval_on_selector_all("#tournaments option", "items => items.map(o => o.textContent)")
    first = server["record"].tournament_id
    assert options == [
        f"web test (connect4, openings 2 plies at random, 1 game, id {first})",
        f"suite (connect4, gauntlet, openings a suite of 3, 0 games, id {config.tournament_id})",
    ]


def open_ready(page: Page, server: dict[str, Any], query: str) -> None:
    """The page of ``query`` once it has started (a replay the URL names is open by then)."""
    page.goto(server["url"] + "/" + query)
    page.wait_for_selector("body[data-ready='1']")


def page_query(page: Page) -> dict[str, str]:
    return dict(parse_qsl(urlsplit(page.url).query))


@pytest.mark.timeout(300)
def test_a_stored_game_and_its_tournament_are_linked_by_the_url(
    page: Page, server: dict[str, Any], screens: Path
) -> None:
    record: GameRecord = server["record"]
    tournament = record.tournament_id
    open_page(page, server, "?game=tictactoe&x=person&o=person")
    page.wait_for_selector("#replay-games li[data-index='0']")
    assert page_query(page)["tournament"] == tournament  # the tournament listed
    page.click("#replay-games li[data-index='0']")
    page.wait_for_selector("#replay-controls:not([hidden])")
    for _ in range(3):
        page.click("#replay-next")
    query = page_query(page)
    assert (query["tournament"], query["index"], query["ply"]) == (tournament, "0", "3")
    assert query["game"] == "tictactoe"  # the game under the replay is kept too
    link = page.url
    after_three = engine_state("connect4", list(record.moves[:3]))
    other = page.context.new_page()
    try:  # the link opens that replay at that position, with its tournament's standings
        other.set_default_timeout(WAIT_MS)
        open_ready(other, server, "?" + urlsplit(link).query)
        assert other.inner_text("#replay-ply") == f"3 / {len(record.moves)}"
        assert drawn_cells(other) == engine_cells(after_three)
        assert other.eval_on_selector("#tournaments", "s => s.value") == tournament
        assert other.eval_on_selector_all("#standings tr[data-player]", "rows => rows.length") == 2
        assert other.inner_text("#message").startswith("replay: ")
        other.screenshot(path=str(screens / "replay-from-url.png"))
        other.click("#new-game")  # a new game closes the replay: its game leaves the URL
        other.wait_for_function("() => !location.search.includes('index=')")
        assert page_query(other)["tournament"] == tournament
    finally:
        other.close()
    # a tournament named by its name, which the URL then gives by its id
    open_ready(
        page, server, f"?game=tictactoe&x=person&o=person&tournament={quote('web test')}&index=0&ply=2"
    )
    assert page.inner_text("#replay-ply") == f"2 / {len(record.moves)}"
    assert page_query(page)["tournament"] == tournament
    with Store(server["db"]) as store:  # two more tournaments, named alike
        shared = [
            store.register_tournament(TournamentConfig(("greedy", "random"), 1, game, name="twins"))
            for game in ("tictactoe", "nim")
        ]
    for query_text, said, once in (
        (
            "tournament=twins&index=0",
            f"tournament=twins: 2 tournaments are named 'twins'; give one of their ids: "
            f"{shared[0]}, {shared[1]}. Showing web test.",
            "are named",
        ),
        (
            "tournament=nosuch",
            "tournament=nosuch: no tournament 'nosuch' in the store (give its id or its name).",
            "no tournament",
        ),
        (
            f"tournament={tournament}&index=7",
            f"index=7: tournament '{tournament}' has no game 7.",
            "has no game",
        ),
        (f"tournament={tournament}&index=-1", "index must be a whole number ≥ 0, got -1.", "whole number"),
        (f"tournament={tournament}&index=x", "index must be a whole number ≥ 0, got x.", "whole number"),
        (f"tournament={tournament}&index=0&ply=99", "ply=99: not a ply of this game", "not a ply"),
    ):
        open_ready(page, server, "?game=tictactoe&x=person&o=person&" + query_text)
        message = page.inner_text("#message")
        assert said in message and message.count(once) == 1, message  # said once, in words
        assert "path." not in message and "Input should" not in message
        assert page.eval_on_selector("#tournaments", "s => s.value") == tournament
    assert page.inner_text("#replay-ply") == f"{len(record.moves)} / {len(record.moves)}"  # ply=99: the end
    page.screenshot(path=str(screens / "replay-url-refused.png"))
    page.select_option("#tournaments", shared[1])  # the replay on the board stays the URL's
    page.wait_for_function(
        "id => document.getElementById('tournament-info').textContent.includes(id)", arg=shared[1]
    )
    assert page_query(page)["tournament"] == tournament and page_query(page)["index"] == "0"
    page.click("#new-game")  # once it is closed, the tournament chosen is
    page.wait_for_function("id => location.search.includes('tournament=' + id)", arg=shared[1])
    assert "index" not in page_query(page)


# --- review -----------------------------------------------------------------------------------

REVIEW_STATUS = "() => document.getElementById('review-status').textContent"


def review_marks(page: Page) -> list[tuple[str, str]]:
    """Each move of the list and its verdict ("" where it has none)."""
    marks = page.eval_on_selector_all(
        "#moves li", "items => items.map(li => [li.dataset.move, li.dataset.verdict || ''])"
    )
    return [(move, verdict) for move, verdict in marks]


def summary_rows(page: Page) -> list[list[str]]:
    return page.eval_on_selector_all(
        "#review-summary tr[data-side]", "rows => rows.map(r => [...r.cells].map(c => c.textContent))"
    )


def expected_rows(review: Review, symbols: tuple[str, str]) -> list[list[str]]:
    rows = []
    for side, tally in enumerate(review.tallies):
        moves = sum(m.mover == side for m in review.moves)
        judged = [f"{tally.moves} of {moves}", str(tally.kept), str(tally.exact)]
        rows.append(
            [symbols[side], *judged, f"{tally.thrown} of {tally.won}", f"{tally.lost} of {tally.drawn}"]
        )
    return rows


def wait_for_review(page: Page, status: str) -> None:
    page.wait_for_function(f"s => ({REVIEW_STATUS})() === s", arg=status)


def test_a_finished_game_is_reviewed_with_its_mistakes_and_each_sides_summary(
    page: Page, server: dict[str, Any], screens: Path
) -> None:
    moves = ["a1", "c3", "c1", "b3", "a2", "a3"]  # O loses the draw, X throws its win: O wins
    open_page(page, server, "?game=tictactoe&x=person&o=person&moves=" + ",".join(moves))
    assert page.inner_text("#review-status") == "" and page.is_hidden("#review-summary")
    page.click("#review")
    wait_for_review(page, "6 moves reviewed")
    review = review_game(new_game("tictactoe"), moves, judge_for("tictactoe"))
    verdicts = [m.verdict.value for m in review.moves]
    assert {"best", "keeps the value", "throws the win", "loses the draw"} <= set(verdicts)
    assert review_marks(page) == list(zip(moves, verdicts, strict=True))
    assert summary_rows(page) == expected_rows(review, ("X", "O"))
    marks = page.eval_on_selector_all(
        "#moves li .verdict", "spans => spans.map(s => [s.textContent, getComputedStyle(s).backgroundColor])"
    )
    symbols = {"best": "★", "keeps the value": "✓", "throws the win": "??", "loses the draw": "?"}
    assert [text for text, _ in marks] == [f"{symbols[v]} {v}" for v in verdicts]  # a symbol and words
    colours = {verdict: colour for (_, colour), verdict in zip(marks, verdicts, strict=True)}
    assert len(set(colours.values())) == 4  # and a colour of its own
    for number, move in enumerate(review.moves):
        item = page.inner_text(f"#moves li:nth-child({number + 1})")
        assert ("best: " + " ".join(move.best) in item) == (move in review.mistakes)
    page.screenshot(path=str(screens / "tictactoe-review.png"))
    page.click("#undo")  # the marks of the moves still played stay, and the summary counts them
    page.wait_for_function("() => document.querySelectorAll('#moves li').length === 5")
    assert review_marks(page) == list(zip(moves[:5], verdicts[:5], strict=True))
    assert page.inner_text("#review-status") == "5 moves reviewed"
    shorter = review_game(new_game("tictactoe"), moves[:5], judge_for("tictactoe"))
    assert summary_rows(page) == expected_rows(shorter, ("X", "O"))
    page.click(".cell[data-x='1'][data-y='0']")  # O plays b1 instead: not reviewed yet
    page.wait_for_function("() => document.querySelectorAll('#moves li').length === 6")
    assert (
        review_marks(page)[-1] == ("b1", "") and page.inner_text("#review-status") == "5 of 6 moves reviewed"
    )
    page.click("#review")  # the moves reviewed before are kept; the new one is asked
    wait_for_review(page, "6 moves reviewed")
    assert review_marks(page)[:5] == list(zip(moves[:5], verdicts[:5], strict=True))
    assert review_marks(page)[-1][1] != ""
    page.click("#new-game")
    page.wait_for_function("() => document.querySelectorAll('#moves li').length === 0")
    assert page.inner_text("#review-status") == "" and page.is_hidden("#review-summary")
    assert page.is_disabled("#review")  # no move to review


def test_a_stored_game_is_reviewed_in_the_replay_but_its_random_opening(
    page: Page, server: dict[str, Any], screens: Path
) -> None:
    record: GameRecord = server["record"]
    # a server of the same store with a short budget: Connect Four's early positions overrun it soon
    with running_server(create_app(ServeSettings(analysis_seconds=1.0, db=str(server["db"])))) as url:
        open_page(page, {"url": url}, "?game=tictactoe&x=person&o=person")
        page.click("#replay-games li[data-index='0']")
        page.wait_for_selector("#replay-controls:not([hidden])")
        page.click("#review")
        page.wait_for_function(f"() => ({REVIEW_STATUS})().endsWith('judged (each other move says why not)')")
        verdicts = [verdict for _, verdict in review_marks(page)]
        opening = len(record.opening)
        assert verdicts[:opening] == ["not judged"] * opening
        assert "the arena's opening" in page.inner_text("#moves li:first-child")
        # the early positions that overran the budget are not judged, and say so: the last ones are
        judged = [ply for ply, verdict in enumerate(verdicts) if verdict != "not judged"]
        assert judged and judged == list(range(judged[0], len(verdicts)))
        for ply in range(opening, judged[0]):
            title = page.get_attribute(f"#moves li:nth-child({ply + 1}) .verdict", "title") or ""
            assert "longer than 1 s" in title
        start = new_game("connect4")
        review = review_game(start, record.moves, judge_for("connect4"), from_ply=judged[0], opening=opening)
        assert verdicts[judged[0] :] == [m.verdict.value for m in review.moves[judged[0] :]]
        assert summary_rows(page) == expected_rows(review, ("X", "O"))
        judged_text = (
            f"{len(record.moves)} moves reviewed, {len(verdicts) - verdicts.count('not judged')} judged"
        )
        assert page.inner_text("#review-status").startswith(judged_text)
        last = judged[-1]  # a marked move, clicked, shows the position after it
        page.click(f"#moves li:nth-child({last + 1})")
        assert page.inner_text("#replay-ply") == f"{last + 1} / {len(record.moves)}"
        state = start
        for move in record.moves[: last + 1]:
            state = state.play(move)
        assert drawn_cells(page) == engine_cells(state)
        page.screenshot(path=str(screens / "replay-review.png"))


def test_a_review_with_no_move_judged_says_so_and_why(page: Page, server: dict[str, Any]) -> None:
    open_page(page, server, "?game=quixo&x=person&o=person&moves=a1e1,e5a5")  # 5x5: no exact judge
    page.click("#review")
    page.wait_for_function(f"() => ({REVIEW_STATUS})().startsWith('0 of 2 moves judged: ')")
    assert [verdict for _, verdict in review_marks(page)] == ["not judged"] * 2
    assert page.is_hidden("#review-summary")


def test_a_review_can_be_stopped(page: Page, server: dict[str, Any]) -> None:
    moves = ["b2", "a1", "c3", "a3", "a2", "c1", "b1", "b3", "c2"]
    open_page(page, server, "?game=tictactoe&x=person&o=person&moves=" + ",".join(moves))

    def slowly(route: Route) -> None:
        page.wait_for_timeout(300)
        route.continue_()

    page.route("**/api/review", slowly)
    page.click("#review")
    page.wait_for_function(f"() => ({REVIEW_STATUS})().startsWith('reviewing move 8 of 9')")
    page.click("#review-stop")
    page.wait_for_function(f"() => ({REVIEW_STATUS})().startsWith('stopped: ')")
    marked = [verdict for _, verdict in review_marks(page) if verdict]
    assert 1 <= len(marked) < len(moves) and page.is_hidden("#review-stop") and page.is_enabled("#review")
    assert page.inner_text("#review-status") == f"stopped: {len(marked)} of 9 moves reviewed"
    page.unroute_all(behavior="ignoreErrors")


def test_hints_stay_on_and_an_agents_policy_is_shown(
    page: Page, server: dict[str, Any], screens: Path
) -> None:
    open_page(page, server, "?game=tictactoe&x=person&o=perfect&think=0.2&hints=1")
    assert analysis_rows(page) == exact_rows(new_game("tictactoe"))
    page.click(".cell[data-x='1'][data-y='1']")
    page.wait_for_function("() => document.querySelectorAll('#moves li').length === 2")
    settle(page)
    state = check_board(page, "tictactoe")
    page.wait_for_function(
        "n => document.querySelectorAll('#analysis-table tr[data-move]').length === n",
        arg=len(state.legal_moves()),
    )
    assert analysis_rows(page) == exact_rows(state)  # the hints followed the game
    before = new_game("tictactoe").play("b2")
    shares = page.eval_on_selector_all(
        "#last-decision-info .policy tr", "rows => rows.map(r => [r.dataset.move, Number(r.dataset.share)])"
    )
    best = {str(before.move_from_index(a)) for a in exact_play(before.game).best_actions(before)}
    assert {move for move, share in shares if share > 0} == best
    said = page.inner_text("#last-decision-info")
    assert "value 0.000" in said and "depth" not in said  # exact play: no search depth to say
    page.screenshot(path=str(screens / "tictactoe-hints.png"))


def test_an_agents_first_move_says_it_is_starting_and_its_start_up_apart(
    page: Page, server: dict[str, Any]
) -> None:
    open_page(page, server, "?game=tictactoe&x=person&o=greedy")
    thinking = "v => { drawThinking(v); return document.getElementById('thinking').textContent; }"
    first = page.evaluate(f"({thinking})({{...ui.view, thinking: 1, thinking_for: 6.6}})")
    assert first.startswith("O (greedy) is starting and thinking … 6.6 s (first move: starting it")
    page.click(".cell[data-x='1'][data-y='1']")
    page.wait_for_function("() => ui.view.moves.length === 2")
    settle(page)
    later = page.evaluate(f"({thinking})({{...ui.view, thinking: 1, thinking_for: 0.4}})")
    assert later == "O (greedy) is thinking … 0.4 s"
    # a start-up of 6.6 s is said beside the agent's own thinking, which its clock is charged
    page.evaluate(
        "() => { ui.view.moves[1].seconds = 0.001; ui.view.moves[1].start_seconds = 6.6; drawMoves(); }"
    )
    reply = page.locator("#moves li").nth(1)
    assert reply.inner_text().endswith(" (0.00 s, +6.6 s starting)")
    assert "own thinking" in (reply.get_attribute("title") or "")


def test_the_move_lists_value_and_depth_are_spelled_out_in_their_tooltips(
    page: Page, server: dict[str, Any]
) -> None:
    open_page(page, server, "?game=tictactoe&x=person&o=person&moves=b2")
    page.evaluate("() => { ui.view.moves[0].decision = { value: 1, info: { depth: 9 } }; drawMoves(); }")
    titles = page.eval_on_selector_all("#moves li .said", "spans => spans.map(s => [s.textContent, s.title])")
    assert titles == [
        ["  v=+1.00", "value +1.00 for X (the mover's, from its own judgement: +1 a win, −1 a loss)"],
        [" d9", "searched to depth 9 (plies ahead)"],
    ]


def test_an_agents_proven_win_is_said_in_words(page: Page, server: dict[str, Any]) -> None:
    open_page(page, server, "?game=tictactoe&x=alphabeta&o=person&think=0.2&moves=a1,b1,a2,b2")
    page.wait_for_selector("#last-decision-info")
    info = page.inner_text("#last-decision-info")
    assert "a proven win for X in 1 ply" in info and "999" not in info and "depth 1," in info
    assert "value 1.000 for X" in info


def test_an_agents_value_names_the_side_it_is_for(page: Page, server: dict[str, Any]) -> None:
    # O is lost whatever it plays (X threatens c1 and a2); once it has moved, X is to move, and the
    # value beside O's move is O's, as the proof's words say
    open_page(page, server, f"?game=tictactoe&x=person&o=alphabeta&think=0.2&pos={quote('XX./.O./X.O O')}")
    page.wait_for_selector("#last-decision-info")
    info = page.inner_text("#last-decision-info")
    assert page.get_attribute("#turn", "data-to-move") == "0"
    assert "value -1.000 for O" in info and "a proven loss for O" in info, info
    assert "side to move" not in info
    open_page(page, server, "?game=quixo&x=person&o=person&moves=a1e1")
    page.click("#analyse")  # a search of O's position (no tables for 5x5 Quixo): its value is O's
    page.wait_for_selector("#analysis #search-info")
    assert " for O" in page.inner_text("#search-info") and "side to move" not in page.inner_text(
        "#search-info"
    )


def test_nim_is_played_by_clicking_an_object(page: Page, server: dict[str, Any]) -> None:
    open_page(page, server, "?game=nim&x=person&o=person")
    page.click(".pile[data-pile='3'] .token[data-i='1']")  # pile 3 holds 5: take the last 4
    page.wait_for_function("() => document.querySelectorAll('#moves li').length === 1")
    assert page_moves(page) == ["3:4"]
    counts = page.eval_on_selector_all(".pile", "rows => rows.map(r => Number(r.dataset.count))")
    assert counts == [1, 3, 1, 7]
    assert page.locator(".pile.last[data-pile='3']").count() == 1


def test_the_notation_help_is_the_chosen_variants(page: Page, server: dict[str, Any]) -> None:
    open_page(page, server, "?game=nim:misere=false&x=person&o=person")
    assert "Whoever takes the last object wins." in page.inner_text("#notation")


def test_moves_on_a_board_wider_than_nine_survive_a_reload(page: Page, server: dict[str, Any]) -> None:
    open_page(page, server, "?game=connect4:width=12,height=4&x=person&o=person")
    for played, column in enumerate(("1", "2"), 1):
        page.click(f".col[data-col='{column}']")
        page.wait_for_function(f"() => document.querySelectorAll('#moves li').length === {played}")
    assert "moves=1%2C2" in page.url  # not "12", which reads as one move in column 12
    page.reload()
    page.wait_for_selector("body[data-ready='1']")
    assert page_moves(page) == ["1", "2"]
    check_board(page, "connect4:width=12,height=4")


def test_resign_waits_for_the_agent_and_a_refusal_goes_with_the_agents_move(
    page: Page, server: dict[str, Any]
) -> None:
    open_page(page, server, "?game=quixo&x=person&o=greedy&think=0.1")
    held: list[Route] = []  # the page's polls wait here: it sees the agent to move until they go on
    page.route(
        "**/api/games/*",
        lambda route: held.append(route) if route.request.method == "GET" else route.continue_(),
    )
    page.click(".cell[data-x='0'][data-y='0']")
    page.click(".cell.end[data-x='4'][data-y='0']")
    page.wait_for_function("() => document.querySelectorAll('#moves li').length === 1")
    assert page.is_disabled("#resign") and page.is_disabled("#undo")
    # a request sent while the agent thinks gets the server's refusal (the API tests check it)
    refusal = {"detail": "the agent is thinking; wait for its move"}
    page.route("**/resign", lambda route: route.fulfill(status=409, json=refusal))
    page.evaluate("act('/resign')")
    page.wait_for_function("() => document.getElementById('message').textContent.includes('thinking')")
    page.unroute("**/api/games/*")
    for route in held:
        route.continue_()
    page.wait_for_function("() => document.querySelectorAll('#moves li').length === 2")
    assert page.inner_text("#message") == ""  # the refusal was about the position before
    assert page.is_enabled("#resign") and page.is_enabled("#undo")


@pytest.mark.parametrize(
    ("query", "game", "words"),
    [
        (
            "?game=chess&x=foo",
            "quixo",
            ["no game chess", "playing Quixo", "x=foo: no agent foo", "person plays X"],
        ),
        (
            "?game=quixo:size=9&moves=a1e1,a1",
            "quixo",
            ["not 9; playing size=5", "move 2 (a1)", "the beginning"],
        ),
        ("?game=nim:piles=abc", "nim", ["piles must be whole numbers", "Nim with its default piles"]),
        ("?game=nim&o=greedy&think=100", "nim", ["think=100", "at most 30 s", "they get 1 s"]),
        ("?game=nim&o=greedy&tc=soon", "nim", ["a time control is BASE", "Playing without a clock."]),
    ],
)
def test_bad_settings_in_the_url_are_said_and_fall_back(
    page: Page, server: dict[str, Any], query: str, game: str, words: list[str]
) -> None:
    open_page(page, server, query)  # the page shows what was wrong, and a game nonetheless
    message = page.inner_text("#message")
    assert all(w in message for w in words), message
    assert page.input_value("#game-select") == game and page.input_value("#side-0") == "person"
    assert page.locator("#board > *").count() > 0  # a game is on the board


@pytest.mark.parametrize(
    ("query", "game", "sides", "moves", "words"),
    [
        (
            "?game=quixo:size=4&x=person&o=alphabeta:depth=-1",
            "quixo:size=4",
            [None, "alphabeta"],
            [],
            ["depth must be at least 0", "O's alphabeta plays with its default depth."],
        ),
        (
            "?game=connect4:width=5,height=4&moves=33&o=mcts:iters=abc,c=2",
            "connect4:width=5,height=4",
            [None, "mcts:c=2"],
            ["3", "3"],
            ["iters must be a whole number", "O's mcts plays with its default iters."],
        ),
    ],
)
def test_a_refused_setting_in_the_url_alone_falls_back(
    page: Page,
    server: dict[str, Any],
    query: str,
    game: str,
    sides: list[Any],
    moves: list[str],
    words: list[str],
) -> None:
    open_page(page, server, query)
    message = page.inner_text("#message")
    assert all(w in message for w in words) and "default options" not in message, message
    shown_game, shown_sides = page.evaluate("[ui.view.game, ui.view.sides]")
    assert shown_game == game and [side and side.replace("=2.0", "=2") for side in shown_sides] == sides
    assert page_moves(page)[: len(moves)] == moves


def test_the_page_offers_agents_that_run_programs_only_when_the_server_allows_paths(
    page: Page, server: dict[str, Any]
) -> None:
    open_page(page, server, "?game=tictactoe&o=engine:cmd=sh")  # this server does not allow paths
    offered = page.eval_on_selector_all("#side-1 option", "os => os.map(o => o.value)")
    assert "greedy" in offered and not {"engine", "course"} & set(offered)
    message = page.inner_text("#message")
    assert "o=engine:cmd=sh: agent engine needs serve --allow-paths" in message, message
    assert page.input_value("#side-1") == "greedy"

    def allowing(route: Route) -> None:  # a server started with --allow-paths
        route.fulfill(json={**route.fetch().json(), "allow_paths": True})

    page.route("**/api/meta", allowing)
    open_page(page, server, "?game=tictactoe&x=person&o=person")
    offered = page.eval_on_selector_all("#side-1 option", "os => os.map(o => o.value)")
    assert "engine" in offered


def test_the_page_offers_no_thinking_time_above_the_servers_bound(page: Page, server: dict[str, Any]) -> None:
    def bounded(route: Route) -> None:  # a server started with --max-think 2
        route.fulfill(json={**route.fetch().json(), "max_think": 2})

    page.route("**/api/meta", bounded)
    open_page(page, server, "?game=nim&o=greedy&think=3")
    offered = page.eval_on_selector_all("#think option", "os => os.map(o => Number(o.value))")
    assert offered == [0.1, 0.3, 1, 2] and page.input_value("#think") == "1"
    assert "think=3" in page.inner_text("#message") and page.locator("#board > *").count() > 0


def test_a_bad_clock_is_named_and_pasted_moves_are_not_blamed_for_it(
    page: Page, server: dict[str, Any]
) -> None:
    open_page(page, server, "?game=tictactoe&x=person&o=person")
    page.fill("#clock", "abc")
    page.fill("#paste", "b2 a1 c3")
    page.click("#paste-load")
    page.wait_for_function("() => document.getElementById('message').textContent !== ''")
    message = page.inner_text("#message")
    assert message.startswith("Game clock: a time control is") and "got 'abc'" in message, message
    assert "as moves" not in message and "as a position" not in message and "Nothing was loaded." in message
    assert page_moves(page) == []
    page.fill("#clock", "")  # the clock mended, an agent's options are what is wrong
    page.select_option("#side-1", "alphabeta")
    page.fill("#side-1-opts", "bogus=1")
    page.click("#paste-load")
    page.wait_for_function("() => document.getElementById('message').textContent.includes('bogus')")
    assert page.inner_text("#message").startswith("O's player: alphabeta: unknown option 'bogus'")
    page.fill("#side-1-opts", "")
    page.select_option("#side-1", "person")
    page.click("#paste-load")
    page.wait_for_function("() => document.querySelectorAll('#moves li').length === 3")
    assert page_moves(page) == ["b2", "a1", "c3"] and page.inner_text("#message") == ""
    page.fill("#paste", "b2 b2")  # now the text is at fault, read both ways
    page.click("#paste-load")
    page.wait_for_function("() => document.getElementById('message').textContent.includes('as a position')")
    assert page.inner_text("#message").startswith("The pasted text, as moves: move 2 (b2)")
    page.fill("#clock", "abc")
    page.click("#new-game")
    page.wait_for_function("() => document.getElementById('message').textContent.startsWith('Game clock: ')")
    assert page_moves(page) == ["b2", "a1", "c3"]  # the game on the board stays


def test_loading_an_empty_box_keeps_the_game(page: Page, server: dict[str, Any]) -> None:
    open_page(page, server, "?game=tictactoe&x=person&o=person&moves=b2")
    game_id = page.evaluate("ui.gameId")
    page.fill("#paste", "  ")
    page.click("#paste-load")
    page.wait_for_function("() => document.getElementById('message').textContent !== ''")
    assert page.inner_text("#message").startswith("Nothing to load: paste a position or moves")
    assert page.evaluate("ui.gameId") == game_id and page_moves(page) == ["b2"]


def test_a_refused_new_game_leaves_the_game_on_the_board_playable(page: Page, server: dict[str, Any]) -> None:
    open_page(page, server, "?game=tictactoe&x=person&o=person")
    page.click(".cell[data-x='0'][data-y='0']")
    page.wait_for_function("() => document.querySelectorAll('#moves li').length === 1")
    page.select_option("#side-1", "alphabeta")
    page.fill("#side-1-opts", "depth=abc")
    page.click("#new-game")
    page.wait_for_function("() => document.getElementById('message').textContent.includes('depth')")
    page.click(".cell[data-x='1'][data-y='1']")  # the game on the board was not dropped
    page.wait_for_function("() => document.querySelectorAll('#moves li').length === 2")
    assert page_moves(page) == ["a1", "b2"]


def test_a_reload_shows_the_same_game_its_clock_times_and_result(page: Page, server: dict[str, Any]) -> None:
    open_page(page, server, "?game=tictactoe&x=person&o=greedy&tc=30")
    page.wait_for_timeout(300)  # X's move takes a tenth of a second at least
    page.click(".cell[data-x='1'][data-y='1']")
    page.wait_for_function("() => ui.view.moves.length === 2")
    settle(page)
    game_id, moves = page.evaluate("[ui.gameId, ui.view.moves]")
    left = 30 - moves[0]["seconds"]  # X's clock once it moved (running again since)
    page.reload()
    page.wait_for_selector("body[data-ready='1']")
    assert page.evaluate("[ui.gameId, ui.view.moves]") == [game_id, moves]  # the times kept
    assert page.evaluate("ui.clocks.left[0]") <= left < 29.9  # not a full clock again
    page.click("#resign")
    page.wait_for_function("() => document.getElementById('turn').textContent === 'game over'")
    result = page.inner_text("#result")
    page.reload()
    page.wait_for_selector("body[data-ready='1']")
    assert page.inner_text("#result") == result and page.inner_text("#turn") == "game over"
    # an address whose game the server no longer has (or another's moves) starts it again
    page.request.delete(f"{server['url']}/api/games/{game_id}")
    page.reload()
    page.wait_for_selector("body[data-ready='1']")
    settle(page)
    assert page.evaluate("ui.gameId") != game_id and page_moves(page) == [m["move"] for m in moves]
    assert page.inner_text("#turn") == "X to move (you)"


def test_two_pages_on_one_address_show_one_game(page: Page, server: dict[str, Any]) -> None:
    open_page(page, server, "?game=tictactoe&x=person&o=person")
    other = page.context.new_page()
    try:
        open_ready(other, server, "?" + urlsplit(page.url).query)
        assert other.evaluate("ui.gameId") == page.evaluate("ui.gameId")
        page.click(".cell[data-x='1'][data-y='1']")
        page.wait_for_function("() => ui.view.moves.length === 1")
        other.click(".cell[data-x='0'][data-y='0']")  # chosen on the empty board: refused, not played
        other.wait_for_function("() => ui.view.moves.length === 1")
        assert page_moves(other) == ["b2"] and "moved on" in other.inner_text("#message")
    finally:
        other.close()


def test_back_after_a_new_game_shows_the_game_before(page: Page, server: dict[str, Any]) -> None:
    open_page(page, server, "?game=tictactoe&x=person&o=person")
    page.click(".cell[data-x='0'][data-y='0']")
    page.wait_for_function("() => ui.view.moves.length === 1")
    first = page.evaluate("ui.gameId")
    page.click("#new-game")
    page.wait_for_function(f"() => ui.gameId !== '{first}'")
    assert page_moves(page) == []
    page.go_back()
    page.wait_for_function(f"() => document.body.dataset.ready === '1' && ui.gameId === '{first}'")
    assert page_moves(page) == ["a1"]


def test_a_full_server_is_said_once(page: Page, server: dict[str, Any]) -> None:
    full = {"detail": "the server holds its most games (50); try again later"}
    page.route("**/api/games", lambda route: route.fulfill(status=429, json=full))
    page.goto(server["url"] + "/?game=nim&x=person&o=random")  # the default players are refused too
    page.wait_for_selector("body[data-ready='1']")
    assert page.inner_text("#message").count("most games") == 1, page.inner_text("#message")


def test_a_ply_cap_in_the_url_is_kept(page: Page, server: dict[str, Any]) -> None:
    open_page(page, server, "?game=quixo:size=3,ply_cap=7&x=person&o=person")
    assert page.input_value("#opt-ply_cap") == "7" and page.inner_text("#message") == ""
    assert "game=quixo%3Asize%3D3%2Cply_cap%3D7" in page.url
    assert "a1c1 takes a1" in page.inner_text("#notation")  # the help of the 3x3 board


def test_nim_marks_exactly_what_a_click_takes(page: Page, server: dict[str, Any]) -> None:
    open_page(page, server, "?game=nim:k=2&x=person&o=person")  # pile 4 holds 7: take 1 or 2
    tokens = ".pile[data-pile='4'] .token"
    looks = "ts => ts.map(t => [t.classList.contains('takable'), getComputedStyle(t).cursor])"
    assert page.eval_on_selector_all(tokens, looks) == [[False, "auto"]] * 5 + [[True, "pointer"]] * 2
    marked = "ts => ts.map(t => getComputedStyle(t).backgroundColor === 'rgb(213, 94, 0)')"
    page.hover(f"{tokens}[data-i='5']")
    assert page.eval_on_selector_all(tokens, marked) == [False] * 5 + [True] * 2
    page.hover(f"{tokens}[data-i='2']")  # three objects: more than k allows
    assert page.eval_on_selector_all(tokens, marked) == [False] * 7
    page.click(f"{tokens}[data-i='5']")
    page.wait_for_function("() => document.querySelectorAll('#moves li').length === 1")
    assert page_moves(page) == ["4:2"]


def test_nims_rows_and_labels_stay_put_as_piles_empty(page: Page, server: dict[str, Any]) -> None:
    open_page(page, server, "?game=nim&x=person&o=person")  # 1-3-5-7
    places = "rs => rs.map(r => [r.offsetHeight, r.querySelector('.label').getBoundingClientRect().x])"
    before = page.eval_on_selector_all(".pile", places)
    for played, move in enumerate(["1:1", "2:3", "3:5", "4:6", "4:1"], 1):  # the last move ends the game
        page.evaluate(f"playMove('{move}')")
        page.wait_for_function(f"() => ui.view.moves.length === {played}")
    assert page.inner_text("#turn") == "game over"
    assert page.eval_on_selector_all(".pile", places) == before


def test_large_nim_piles_wrap_within_the_window(page: Page, server: dict[str, Any], screens: Path) -> None:
    page.set_viewport_size({"width": 1280, "height": 800})
    open_page(page, server, "?game=nim:piles=3-40-120&x=person&o=person")
    assert page.evaluate("document.documentElement.scrollWidth") <= 1280
    assert page.locator(".pile[data-pile='3'] .token").count() == 120
    page.screenshot(path=str(screens / "nim-large.png"))


def test_the_page_fits_a_phone_and_a_wide_board_fits_a_laptop(
    page: Page, server: dict[str, Any], screens: Path
) -> None:
    fits = (
        "() => { const w = document.documentElement.clientWidth, b = document.getElementById('board')"
        ".getBoundingClientRect(), s = document.querySelector('.side-panel').getBoundingClientRect();"
        " return [document.documentElement.scrollWidth <= w, b.left >= 0 && b.right <= w, s.right <= w,"
        " b.top < document.querySelector('.setup').getBoundingClientRect().top]; }"
    )
    page.set_viewport_size({"width": 390, "height": 844})
    for game in ("quixo", "connect4:width=12,height=4"):
        open_page(page, server, f"?game={game}&x=person&o=person")
        assert page.evaluate(fits) == [True, True, True, True]  # one column, the board first
        page.screenshot(path=str(screens / f"phone-{game.split(':')[0]}.png"))
    page.set_viewport_size({"width": 1280, "height": 800})  # three columns: the board in the middle
    assert page.evaluate(fits) == [True, True, True, False]


# a three-player tournament's table, as `boardlab tournament greedy random alphabeta:depth=3` left it
LONG_STANDINGS = [
    ("alphabeta:depth=3", 6, 2, 0, 0.875, 252.0, -1.0, 505.0),
    ("greedy", 4, 2, 2, 0.625, 98.0, -125.0, 321.0),
    ("random", 0, 0, 8, 0.0, -350.0, -684.0, -16.0),
]
SCROLLS_SIDEWAYS = "() => document.scrollingElement.scrollWidth > innerWidth"


@pytest.mark.parametrize("width", [1280, 375])
def test_a_tournaments_standings_and_a_replay_fit_the_window(
    page: Page, server: dict[str, Any], screens: Path, width: int
) -> None:
    def three_players(route: Route) -> None:
        data = route.fetch().json()
        data["standings"] = [
            {
                "rank": rank,
                "player": player,
                "games": w + d + lost,
                "wins": w,
                "draws": d,
                "losses": lost,
                "score": score,
                "elo": elo,
                "elo_low": low,
                "elo_high": high,
            }
            for rank, (player, w, d, lost, score, elo, low, high) in enumerate(LONG_STANDINGS, 1)
        ]
        route.fulfill(json=data)

    page.route("**/api/replay/*", three_players)  # the tournament, not its games
    page.set_viewport_size({"width": width, "height": 800})
    tournament = server["record"].tournament_id
    open_ready(page, server, f"?game=tictactoe&x=person&o=person&tournament={tournament}&index=0&ply=2")
    assert page.eval_on_selector_all("#standings tr[data-player]", "rows => rows.length") == 3
    assert not page.evaluate(SCROLLS_SIDEWAYS)
    # the step buttons are under the board, in the window as the page opens (a phone included)
    board = page.locator("#board").bounding_box()
    steps = page.locator("#replay-controls").bounding_box()
    assert board is not None and steps is not None
    assert 0 <= steps["y"] - (board["y"] + board["height"]) < 20
    assert steps["y"] + steps["height"] <= page.viewport_size["height"]
    page.screenshot(path=str(screens / f"replay-standings-{width}.png"), full_page=True)


def test_a_long_list_of_stored_games_shows_whole_lines_and_says_there_are_more(
    page: Page, server: dict[str, Any], screens: Path
) -> None:
    def many_games(route: Route) -> None:
        data = route.fetch().json()
        data["games"] = [
            {**data["games"][0], "index": i, "first": "alphabeta:depth=3,time=0.1"} for i in range(20)
        ]
        route.fulfill(json=data)

    page.route("**/api/replay/*", many_games)
    open_ready(page, server, "?game=tictactoe&x=person&o=person")
    page.wait_for_selector("#replay-games li[data-index='19']")
    assert page.inner_text("#replay-count") == "20 games (scroll the list for more)"
    shown = page.evaluate(
        """() => { const list = document.getElementById('replay-games'), top = list.getBoundingClientRect();
             return [...list.children].map((li) => li.getBoundingClientRect())
               .filter((r) => r.bottom > top.top + 1 && r.top < top.bottom - 1)
               .map((r) => r.top >= top.top - 1 && r.bottom <= top.bottom + 1); }"""
    )
    assert shown == [True] * 8  # eight whole games, none cut
    page.locator(".side-panel").screenshot(path=str(screens / "replay-list.png"))


def test_a_message_does_not_move_the_board(page: Page, server: dict[str, Any]) -> None:
    open_page(page, server, "?game=quixo&x=person&o=person")
    before = page.locator("#board").bounding_box()
    page.fill("#clock", "abc")
    page.click("#new-game")  # refused, in a message of several lines
    page.wait_for_function("() => document.getElementById('message').textContent.startsWith('Game clock')")
    assert page.locator("#message").bounding_box()["height"] > 40
    assert page.locator("#board").bounding_box() == before


def test_the_move_list_shows_whole_moves_at_its_top(page: Page, server: dict[str, Any]) -> None:
    rng = random.Random(5)
    state, moves = new_game("quixo"), []
    while len(moves) < 40:  # a long game, not over
        after = [m for m in state.legal_moves() if not state.play(m).is_over]
        move = rng.choice(after)
        state, moves = state.play(move), [*moves, str(move)]
    for shown in (len(moves), 25):  # the last move, and one in the middle in a replay of it
        open_page(page, server, f"?game=quixo&x=person&o=person&moves={','.join(moves)}")
        if shown < len(moves):
            page.evaluate("n => drawMoves(n - 1)", shown)
        cut = page.evaluate(
            """() => { const list = document.getElementById('moves').getBoundingClientRect();
                 return [...document.querySelectorAll('#moves li')].map((li) => li.getBoundingClientRect())
                   .filter((r) => r.bottom > list.top + 1 && r.top < list.bottom - 1)
                   .filter((r) => r.top < list.top - 1 || r.bottom > list.bottom + 1).length; }"""
        )
        assert cut == 0  # no move half out of the list
        assert page.locator(f"#moves li:nth-child({shown})").is_visible()


MARKS_MET = """() => {
  // for each end cell holding a cube: whether its arrow or its value covers the ink of its X or O
  const meet = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
  const ink = (mark) => {  // the glyph's own box, as the canvas measures it, from the text's box
    const style = getComputedStyle(mark), box = mark.getBoundingClientRect();
    const context = document.createElement("canvas").getContext("2d");
    context.font = style.fontWeight + " " + style.fontSize + " " + style.fontFamily;
    const m = context.measureText(mark.textContent), baseline = box.top + m.fontBoundingBoxAscent;
    return { left: box.left - m.actualBoundingBoxLeft, right: box.left + m.actualBoundingBoxRight,
             top: baseline - m.actualBoundingBoxAscent, bottom: baseline + m.actualBoundingBoxDescent };
  };
  return [...document.querySelectorAll(".cell.end")].filter((c) => c.querySelector(".mark")).map((c) => {
    const glyph = ink(c.querySelector(".mark"));
    return [...c.querySelectorAll(".dir, .hint")].some((b) => meet(glyph, b.getBoundingClientRect()));
  });
}"""


def test_a_cubes_mark_stays_clear_of_the_ends_arrow_and_value(
    page: Page, server: dict[str, Any], screens: Path
) -> None:
    for width, query in (
        (1400, "?game=quixo:size=3&x=person&o=person&hints=1&moves=a1c1,c3a3"),
        (375, "?game=quixo&x=person&o=person&moves=a1e1,e5a5,a2a1,a4a5"),
    ):
        page.set_viewport_size({"width": width, "height": 800})
        open_page(page, server, query)
        if "hints" in query:
            page.wait_for_selector("#analysis-table")
        page.click(".cell[data-x='0'][data-y='0']")  # X's cube at a1: its ends hold cubes
        page.wait_for_selector(".cell.end .dir")
        if "hints" in query:
            page.wait_for_selector(".cell.end .hint")
        clear = page.evaluate(MARKS_MET)
        assert clear and not any(clear), clear
        page.screenshot(path=str(screens / f"quixo-ends-{width}.png"))


CLICK_AT_LABELS = """([file, rank]) => {
  // clicks the cell in the column under the file label and the row beside the rank label
  const label = (kind, text) =>
    [...document.querySelectorAll(kind + " span")].find((s) => s.textContent === text);
  const f = label(".files", file).getBoundingClientRect(), r = label(".ranks", rank).getBoundingClientRect();
  document.elementFromPoint((f.left + f.right) / 2, (r.top + r.bottom) / 2).closest(".cell").click();
}"""


@pytest.mark.parametrize(
    ("game", "cells", "move"),
    [("tictactoe", [("b", "3")], "b3"), ("quixo", [("a", "1"), ("e", "1")], "a1e1")],
)
def test_the_coordinates_beside_the_grid_name_the_cells_as_the_moves_do(
    page: Page, server: dict[str, Any], game: str, cells: list[tuple[str, str]], move: str
) -> None:
    open_page(page, server, f"?game={game}&x=person&o=person")
    for file, rank in cells:  # the cell in the column of that file and the row of that rank
        page.evaluate(CLICK_AT_LABELS, [file, rank])
    page.wait_for_function("() => document.querySelectorAll('#moves li').length === 1")
    assert page_moves(page) == [move]


FOCUSED = """() => {
  // the element the keyboard is on: its label and role, whether it is on the board, and its ring
  const e = document.activeElement, style = getComputedStyle(e);
  return { label: e.getAttribute("aria-label"), role: e.getAttribute("role"),
           onBoard: document.getElementById("board").contains(e),
           ring: style.outlineStyle !== "none" && parseFloat(style.outlineWidth) >= 2 };
}"""


def tab_to(page: Page, label: str, most: int = 40) -> dict[str, Any]:
    """Press Tab from the Load button (the last box before the board) until the board element
    labelled ``label`` has the focus; what is focused then."""
    page.focus("#paste-load")
    for _ in range(most):
        page.keyboard.press("Tab")
        focused: dict[str, Any] = page.evaluate(FOCUSED)
        assert focused["onBoard"], focused  # Tab goes through the board's targets before leaving it
        if focused["label"] == label:
            return focused
    raise AssertionError(f"Tab did not reach {label}")


def test_tic_tac_toe_and_quixo_are_played_by_keyboard(
    page: Page, server: dict[str, Any], screens: Path
) -> None:
    open_page(page, server, "?game=tictactoe&x=person&o=person")
    page.focus("#paste-load")
    page.keyboard.press("Tab")
    first = page.evaluate(FOCUSED)
    assert (first["label"], first["role"], first["ring"]) == ("a1", "button", True)  # the first cell, ringed
    tab_to(page, "b2")
    page.keyboard.press("Enter")
    page.wait_for_function("() => document.querySelectorAll('#moves li').length === 1")
    assert page.evaluate(FOCUSED)["label"] == "b2 X"  # the keyboard stays where it played
    page.keyboard.press("Tab")  # on to the next free cell
    assert page.evaluate(FOCUSED)["label"] == "c2"
    page.keyboard.press(" ")
    page.wait_for_function("() => document.querySelectorAll('#moves li').length === 2")
    assert page_moves(page) == ["b2", "c2"]
    page.screenshot(path=str(screens / "keyboard-tictactoe.png"))

    open_page(page, server, "?game=quixo&x=person&o=person")
    tab_to(page, "a1")
    page.keyboard.press("Enter")  # takes a1: Tab now goes through its ends
    page.wait_for_selector(".cell.selected")
    page.keyboard.press("Tab")
    assert page.evaluate(FOCUSED)["label"].startswith("e1: push in here")
    page.keyboard.press("Enter")
    page.wait_for_function("() => document.querySelectorAll('#moves li').length === 1")
    assert page_moves(page) == ["a1e1"]
    tab_to(page, "b1")
    page.keyboard.press("Enter")
    page.wait_for_selector(".cell.selected")
    page.keyboard.press("Escape")  # the cube put back
    page.wait_for_selector(".cell.selected", state="detached")


def test_connect_four_and_nim_are_played_by_keyboard(page: Page, server: dict[str, Any]) -> None:
    open_page(page, server, "?game=connect4&x=person&o=person&moves=3333")
    focused = tab_to(page, "column 3")
    assert focused["ring"]
    page.keyboard.press("Enter")
    page.wait_for_function("() => document.querySelectorAll('#moves li').length === 5")
    page.keyboard.press("Enter")  # column 3 is full now: Tab passes it by
    page.wait_for_function("() => document.querySelectorAll('#moves li').length === 6")
    labels = []
    page.focus("#paste-load")
    for _ in range(6):
        page.keyboard.press("Tab")
        labels.append(page.evaluate(FOCUSED)["label"])
    assert labels == [f"column {c}" for c in (1, 2, 4, 5, 6, 7)]

    open_page(page, server, "?game=nim&x=person&o=person")
    view = page.evaluate("ui.view.position")
    focused = tab_to(page, f"take 1 from pile {len(view['piles'])}")
    page.keyboard.press(" ")
    page.wait_for_function("() => document.querySelectorAll('#moves li').length === 1")
    assert page_moves(page) == [f"{len(view['piles'])}:1"]


def test_the_keyboards_place_is_told_apart_and_shows_what_enter_takes(
    page: Page, server: dict[str, Any]
) -> None:
    ring = "() => getComputedStyle(document.activeElement).outlineColor"
    open_page(page, server, "?game=connect4&x=person&o=person")
    tab_to(page, "column 1")
    assert page.evaluate(ring) == "rgb(255, 255, 255)"  # light on the dark board
    open_page(page, server, "?game=nim&x=person&o=person")  # pile 4 holds 7
    tab_to(page, "take 2 from pile 4")
    marked = "ts => ts.map(t => getComputedStyle(t).backgroundColor === 'rgb(213, 94, 0)')"
    assert page.eval_on_selector_all(".pile[data-pile='4'] .token", marked) == [False] * 5 + [True] * 2
    open_page(page, server, "?game=quixo&x=person&o=person")
    tab_to(page, "a1")
    page.keyboard.press("Enter")
    page.wait_for_selector(".cell.selected")
    page.keyboard.press("Tab")  # on an end: its ring is not the taken cube's
    taken = page.eval_on_selector(".cell.selected", "c => getComputedStyle(c, '::after').borderTopColor")
    assert page.evaluate(ring) == "rgb(0, 0, 0)" and taken != "rgb(0, 0, 0)"
    assert page.eval_on_selector(".cell.selected", "c => getComputedStyle(c).transform") != "none"


def test_changed_settings_are_said_to_wait_for_a_new_game(page: Page, server: dict[str, Any]) -> None:
    open_page(page, server, "?game=tictactoe&x=person&o=person")
    assert not page.is_visible("#settings-note")
    for change, undo in (
        (lambda: page.select_option("#side-1", "greedy"), lambda: page.select_option("#side-1", "person")),
        (lambda: page.fill("#clock", "60"), lambda: page.fill("#clock", "")),
        (
            lambda: page.select_option("#game-select", "nim"),
            lambda: page.select_option("#game-select", "tictactoe"),
        ),
    ):
        change()
        assert page.is_visible("#settings-note")
        assert "next game" in page.inner_text("#settings-note")
        assert page_moves(page) == [] and page.inner_text("#title") == "Tic-Tac-Toe"  # nothing else changed
        undo()
        assert not page.is_visible("#settings-note")
    page.fill("#paste", "b2")  # the text to load is no setting
    assert not page.is_visible("#settings-note")
    page.select_option("#side-1", "greedy")
    page.click("#new-game")  # the game now is the panel's
    page.wait_for_function("() => ui.view.sides[1] === 'greedy'")
    page.wait_for_selector("#settings-note", state="hidden")


def test_a_stored_game_opened_from_the_list_notes_no_changed_settings(
    page: Page, server: dict[str, Any]
) -> None:
    open_page(page, server, "?game=tictactoe&x=person&o=person")
    page.click("#replay-games li[data-index='0']")  # a Connect Four game: the panel's game follows
    page.wait_for_selector("#replay-controls:not([hidden])")
    assert page.input_value("#game-select") == "connect4" and not page.is_visible("#settings-note")


def test_the_page_loads_without_console_errors(page: Page, server: dict[str, Any]) -> None:
    errors: list[str] = []
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    open_page(page, server, "?game=tictactoe&x=person&o=person")
    assert errors == []
    # the icon is inline, so no browser asks for /favicon.ico (a 404 and an error on a first visit)
    assert page.eval_on_selector("link[rel='icon']", "link => link.href.startsWith('data:image/svg+xml')")


def test_the_api_docs_show_every_operation_with_nothing_fetched_from_elsewhere(
    page: Page, server: dict[str, Any], screens: Path
) -> None:
    elsewhere: list[str] = []

    def offline(route: Route) -> None:  # a machine without the internet: only the server answers
        if route.request.url.startswith(server["url"]):
            route.continue_()
        else:
            elsewhere.append(route.request.url)
            route.abort()

    page.route("**/*", offline)
    page.goto(server["url"] + "/docs")
    page.wait_for_selector(".opblock")
    paths = page.eval_on_selector_all(".opblock-summary-path", "els => els.map(e => e.textContent)")
    assert "/api/games" in paths and "/api/analysis" in paths
    assert elsewhere == []
    page.screenshot(path=str(screens / "api-docs.png"))


def test_a_game_on_a_clock_shows_both_clocks_counting_down_and_a_person_losing_on_time(
    page: Page, server: dict[str, Any], screens: Path
) -> None:
    open_page(page, server, "?game=connect4&x=person&o=greedy&think=0.1&tc=60+1")  # + as typed
    assert page.input_value("#clock") == "60+1" and page.is_visible("#clocks")
    assert page.is_disabled("#think")  # the clock decides the agents' time
    assert page.inner_text("#clock-1") == "O 1:00.0"
    assert page.get_attribute("#clock-0", "class") == "clock p0 running"
    first = float(page.get_attribute("#clock-0", "data-left") or "")
    page.wait_for_function(f"() => Number(document.getElementById('clock-0').dataset.left) < {first}")
    page.click(".col[data-col='4']")
    page.wait_for_function("() => document.querySelectorAll('#moves li').length === 2")
    settle(page)
    assert "tc=60%2B1" in page.url  # the clock goes with the address
    agents, left = page.evaluate("[ui.view.moves[1].seconds, ui.clocks.left[1]]")
    assert left == pytest.approx(61 - agents, abs=1e-3)  # charged its thinking, given its increment
    assert page.inner_text("#clock-1") == "O " + clock_text(left)  # and standing still now
    assert "running" in (page.get_attribute("#clock-0", "class") or "")
    page.screenshot(path=str(screens / "clocks.png"))
    page.click("#replay-games li[data-index='0']")  # a stored game replayed: not on this game's clock
    page.wait_for_selector("#replay-controls:not([hidden])")
    assert not page.is_visible("#clocks")
    # a one-second clock: the person's runs out on the page, and the server says the game is lost
    open_page(page, server, "?game=tictactoe&x=person&o=greedy&tc=1")
    page.wait_for_function("() => document.getElementById('result').textContent.includes('on time')")
    assert (
        page.inner_text("#result")
        == "Game over: O wins (on time: X made no move in the 1.0 s left on its clock)"
    )
    assert page.inner_text("#clock-0") == "X 0:00.0" and page.inner_text("#turn") == "game over"
    assert page.get_attribute("#clock-0", "class") == "clock p0 empty"  # in the colour of a loss
    page.fill("#clock", "")
    assert page.is_enabled("#think")


def test_a_clock_of_periods_shows_the_moves_each_side_must_make_on_it(
    page: Page, server: dict[str, Any]
) -> None:
    open_page(page, server, "?game=tictactoe&x=person&o=person&tc=2/30")
    assert page.inner_text("#clock-1") == "O 0:30.0 2 moves to go"
    assert (
        page.get_attribute("#clock-1", "title")
        == "2 moves to make on this time, then the clock gains its base again"
    )
    for played, (x, y) in enumerate([(1, 1), (0, 0), (2, 2)], start=1):
        page.click(f".cell[data-x='{x}'][data-y='{y}']")
        page.wait_for_function(f"() => ui.view.moves.length === {played}")
    assert page.inner_text("#clock-1").endswith(" 1 move to go")
    assert (
        page.get_attribute("#clock-1", "title")
        == "1 move to make on this time, then the clock gains its base again"
    )
    assert page.evaluate("ui.clocks.left[0]") > 30  # X's base came back after its second move
    open_page(page, server, "?game=tictactoe&x=person&o=person&tc=60")
    assert page.inner_text("#clock-1") == "O 1:00.0" and page.get_attribute("#clock-1", "title") == ""


def test_a_clock_is_kept_when_the_url_is_refused_for_something_else(
    page: Page, server: dict[str, Any]
) -> None:
    open_page(page, server, "?game=tictactoe&x=person&o=greedy&moves=zz&tc=60")
    message = page.inner_text("#message")
    assert "the beginning" in message and "without a clock" not in message, message
    assert page.input_value("#clock") == "60" and page.inner_text("#clock-1") == "O 1:00.0"


def test_a_refused_clock_dropped_from_the_url_frees_the_seconds_per_move(
    page: Page, server: dict[str, Any]
) -> None:
    open_page(page, server, "?game=nim&o=greedy&tc=soon")
    assert "Playing without a clock." in page.inner_text("#message")
    assert page.input_value("#clock") == "" and not page.is_visible("#clocks")
    assert page.is_enabled("#think")  # no clock now: the agents' seconds per move count again
