"""The web server's JSON API against the real app: games to the end, legality decided by the
server, undo and resign, analysis equal to the exact play, reviews equal to ``boardlab review``,
agents that crash or hang forfeiting their game only, bounds on games, and no 5xx for any input
over the OpenAPI schema."""

from __future__ import annotations

import asyncio
import dataclasses
import http.client
import json
import os
import random
import re
import shlex
import shutil
import signal
import socket
import sqlite3
import sys
import threading
import time
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
import uvicorn
from broken_players import spec as broken_spec
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner
from web_helpers import free_port, replayed, running_server, settle

from boardlab.agents.base import list_agents
from boardlab.agents.decision import Limit
from boardlab.arena.oracle import judge_for
from boardlab.arena.play import GameRecord
from boardlab.arena.ratings import RatingError
from boardlab.arena.review import review_game, review_move
from boardlab.arena.schedule import TournamentConfig
from boardlab.arena.store import Store
from boardlab.arena.summary import pooled_games, summarize
from boardlab.core import machine
from boardlab.games import Outcome, Reason, available_games, exact_play, parse_game
from boardlab.games.quixo.solver import solve
from boardlab.play.agent_pool import AgentWorker, Busy, Overrun, ThinkError
from boardlab.play.clock import TimeControl
from boardlab.ui.cli import app
from boardlab.ui.serve import store_problem
from boardlab.ui.web import analysis, server, workers
from boardlab.ui.web import app as app_module
from boardlab.ui.web import hall as hall_module
from boardlab.ui.web import replay as replay_module
from boardlab.ui.web.analysis import Analyst
from boardlab.ui.web.app import ServeSettings, create_app
from boardlab.ui.web.boards import DRAWN
from boardlab.ui.web.hall import (
    MIN_MOVE_LIMIT,
    Hall,
    HallSettings,
    WebGame,
    WebInputError,
    check_agent,
    move_limit,
    said,
    start_position,
)
from boardlab.ui.web.replay import Replays
from boardlab.ui.web.workers import think_pool


@pytest.fixture(scope="module")
def client() -> Any:
    hall = HallSettings(max_games=200, allow_paths=True, min_move_limit=1.5, pace=0.0, max_think=5.0)
    with TestClient(
        create_app(ServeSettings(hall=hall, analysis_seconds=3.0, analysis_agent="greedy"))
    ) as test_client:
        yield test_client


@pytest.fixture(scope="module")
def patient_client() -> Any:
    """A server that gives an analysis up to 30 s (a cold worker on a loaded machine)."""
    hall = HallSettings(max_think=30.0)
    with TestClient(create_app(ServeSettings(hall=hall))) as test_client:
        yield test_client


def new(client: Any, **body: Any) -> dict[str, Any]:
    reply = client.post("/api/games", json=body)
    assert reply.status_code == 201, reply.json()
    return reply.json()  # type: ignore[no-any-return]


def test_a_whole_tictactoe_game_against_perfect_play_never_wins_and_matches_the_engine(client: Any) -> None:
    rng = random.Random(3)
    view = new(client, game="tictactoe", sides=[None, "perfect"], think=0.5)
    while view["outcome"] is None:
        move = rng.choice(view["position"]["legal"])
        reply = client.post(f"/api/games/{view['id']}/move", json={"move": move})
        assert reply.status_code == 200, reply.json()
        view = settle(client, view["id"])
        state = replayed(view)
        assert view["position"]["text"] == state.to_text()
        assert view["position"]["cells"] == state.game.json_view(state)["cells"]
    assert view["outcome"]["winner"] in (None, 1)  # perfect play never loses
    assert all(m["seconds"] is not None for m in view["moves"] if m["mover"] == 1)


@pytest.mark.timeout(120)
def test_an_engine_refusing_the_game_is_a_400_before_the_game_starts(client: Any) -> None:
    engine = [sys.executable, str(Path(__file__).parent / "protocol_engines.py"), "refuses"]
    spec = f"engine:cmd=({shlex.join(engine)})"  # serve --allow-paths runs programs
    reply = client.post("/api/games", json={"game": "tictactoe", "sides": [None, spec]})
    assert reply.status_code == 400, reply.json()
    assert reply.json()["detail"].endswith(
        "cannot play tictactoe: failed to start: "
        "engine refused the game tictactoe: this engine plays nothing today"
    )


def test_the_server_alone_decides_legality(client: Any) -> None:
    view = new(client, game="connect4", sides=[None, None], moves="444444")
    url = f"/api/games/{view['id']}/move"
    full = client.post(url, json={"move": "4"})
    assert full.status_code == 400 and "full" in full.json()["detail"]
    assert client.post(url, json={"move": "9"}).status_code == 400
    assert client.post(url, json={"move": ""}).status_code == 422
    assert client.get(f"/api/games/{view['id']}").json()["moves"] == view["moves"]
    quixo = new(client, game="quixo", sides=[None, None], moves="a1e1")
    refused = client.post(f"/api/games/{quixo['id']}/move", json={"move": "e1a1"})  # X's cube, O to move
    assert refused.status_code == 400 and "opponent" in refused.json()["detail"]


def test_undo_takes_back_the_persons_move_and_the_agents_answer(client: Any) -> None:
    view = new(client, game="connect4", sides=[None, "greedy"], think=0.2, seed=1)
    client.post(f"/api/games/{view['id']}/move", json={"move": "4"})
    view = settle(client, view["id"])
    client.post(f"/api/games/{view['id']}/move", json={"move": "3"})
    view = settle(client, view["id"])
    assert len(view["moves"]) == 4
    undone = client.post(f"/api/games/{view['id']}/undo").json()
    assert [m["move"] for m in undone["moves"]] == [m["move"] for m in view["moves"][:2]]
    assert undone["position"]["text"] == replayed(undone).to_text()


def test_undo_is_offered_only_when_a_persons_move_can_be_taken_back(client: Any) -> None:
    view = settle(client, new(client, game="tictactoe", sides=["greedy", None], think=0.1)["id"])
    assert len(view["moves"]) == 1 and not view["can_undo"]  # only the agent's opening move
    assert client.post(f"/api/games/{view['id']}/undo").status_code == 409
    client.post(f"/api/games/{view['id']}/move", json={"move": view["position"]["legal"][0]})
    view = settle(client, view["id"])
    assert view["can_undo"]
    undone = client.post(f"/api/games/{view['id']}/undo").json()
    assert len(undone["moves"]) == 1 and not undone["can_undo"]


def test_resign_ends_the_game_for_the_person(client: Any) -> None:
    view = new(client, game="quixo:size=4", sides=[None, "random"], think=0.1)
    resigned = client.post(f"/api/games/{view['id']}/resign").json()
    assert resigned["outcome"] == {"winner": 1, "reason": "resignation", "detail": ""}
    assert resigned["outcome_text"] == "O wins (resignation)"
    assert client.post(f"/api/games/{view['id']}/move", json={"move": "a1d1"}).status_code == 409


def test_positions_load_from_text_and_from_moves(client: Any) -> None:
    game = parse_game("quixo")
    text = "XOX.O/...../..X../...../O...X O 7"
    view = new(client, game="quixo", sides=[None, None], position=text)
    assert view["position"]["text"] == game.parse_position(text).to_text()
    assert view["start_initial"] is False  # the page shows where such a game started
    c4 = new(client, game="connect4", sides=[None, None], moves="4453")
    assert c4["start_initial"] is True
    assert c4["position"]["text"] == parse_game("connect4").parse_position("4453").to_text()
    assert [m["move"] for m in c4["moves"]] == ["4", "4", "5", "3"]
    assert client.post("/api/games", json={"game": "quixo", "position": "XXXX"}).status_code == 400
    assert client.post("/api/games", json={"game": "connect4", "moves": "4448"}).status_code == 400


@pytest.mark.parametrize(
    ("game", "words"),
    [
        ("nim:misere=false", "Whoever takes the last object wins."),
        ("quixo:size=3", "a1c1 takes a1 and pushes it in at c1"),
        ("connect4:width=9", "1-9 from the left"),
    ],
)
def test_a_games_view_carries_its_variants_notation_help(client: Any, game: str, words: str) -> None:
    view = new(client, game=game, sides=[None, None])
    assert words in view["position"]["notation"]
    assert view["position"]["notation"] == parse_game(game).notation_help


@pytest.mark.parametrize(
    ("game", "moves", "text"),
    [
        ("tictactoe", "b2 a1 c1 a3 a2 c2 b3 b1 c3", "draw (full board)"),
        ("tictactoe", "b2 a1 a2 c2 b1 c3 c1 a3 b3", "X wins (three in a row)"),
        ("nim:piles=2,misere=false", "1:2", "X wins (took the last object)"),
        ("quixo:size=3,ply_cap=2", "a1c1 a3c3", "draw (ply cap: 2 plies)"),
    ],
)
def test_the_outcome_reads_as_a_sentence(client: Any, game: str, moves: str, text: str) -> None:
    view = new(client, game=game, sides=[None, None], moves=moves)
    assert view["outcome_text"] == view["position"]["outcome_text"] == text


@pytest.mark.parametrize(
    ("game", "moves"),
    [
        ("tictactoe", ["b2", "a1"]),
        ("quixo:size=3", ["a1c1"]),
        ("nim:piles=2-3-4", ["1:1"]),
        ("connect4", list("44444455555")),
    ],
)
def test_analysis_gives_the_exact_value_of_every_move(
    patient_client: Any, game: str, moves: list[str]
) -> None:
    # a generous budget: a loaded machine must not turn the exact answer into a search's
    body = {"game": game, "moves": ",".join(moves), "seconds": 30}
    reply = patient_client.post("/api/analysis", json=body)
    assert reply.status_code == 200, reply.json()
    answer = reply.json()["exact"]
    state = parse_game(game).initial()
    for move in moves:
        state = state.play(move)
    exact = exact_play(state.game)
    expected = {
        str(state.move_from_index(v.action)): (v.name, v.depth, v.score) for v in exact.move_values(state)
    }
    assert {m["move"]: (m["value"], m["depth"], m["score"]) for m in answer["moves"]} == expected


def test_analysis_without_a_solver_shows_a_search(client: Any) -> None:
    reply = client.post("/api/analysis", json={"game": "quixo", "agent": "mcts:iters=200", "seconds": 1})
    assert reply.status_code == 200, reply.json()
    answer = reply.json()
    assert answer["exact"] is None and "tables" in answer["why"]
    search = answer["search"]
    assert search["agent"] == "mcts:iters=200"
    assert search["move"] in parse_game("quixo").initial().to_json()["legal"]
    assert search["info"]["nodes"] > 0


def test_analysis_by_an_agent_that_cannot_play_the_game_is_refused_in_its_words(client: Any) -> None:
    reply = client.post("/api/analysis", json={"game": "connect4", "agent": "qlearning", "seconds": 0.2})
    assert reply.status_code == 400 and reply.json()["detail"].startswith("qlearning: no model is shipped")


@pytest.mark.parametrize(
    ("player", "phrase"), [("RaisingPlayer", "broken"), ("DyingPlayer", "process ended")]
)
def test_an_agent_that_crashes_forfeits_its_game_and_the_server_goes_on(
    client: Any, player: str, phrase: str
) -> None:
    other = new(client, game="tictactoe", sides=[None, "random"], think=0.1)
    view = new(client, game="quixo", sides=[broken_spec(player, attempts=1), None], think=0.1)
    view = settle(client, view["id"])
    assert view["outcome"]["reason"] == "forfeit" and view["outcome"]["winner"] == 1
    assert phrase in view["outcome"]["detail"]
    assert client.post(f"/api/games/{other['id']}/move", json={"move": "b2"}).status_code == 200
    assert len(settle(client, other["id"])["moves"]) == 2


def test_an_agent_that_hangs_forfeits_after_its_limit(client: Any) -> None:
    tic = time.monotonic()
    view = new(client, game="quixo", sides=[broken_spec("HangingPlayer", attempts=1), None], think=0.05)
    view = settle(client, view["id"])
    assert view["outcome"]["reason"] == "forfeit" and "no answer within" in view["outcome"]["detail"]
    assert time.monotonic() - tic < 30


def test_an_agent_may_always_take_the_floor_or_ten_times_its_thinking_time() -> None:
    assert move_limit(0.05) == MIN_MOVE_LIMIT  # a short thinking time still leaves the floor
    assert move_limit(0.05, least=1.5) == 1.5
    assert move_limit(3.0) == 10 * 3.0 > MIN_MOVE_LIMIT


def test_an_agent_is_checked_against_its_game_and_the_memory_before_any_worker(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    quixo = parse_game("quixo")
    with pytest.raises(WebInputError, match="agent optimal plays only nim, not quixo"):
        check_agent("optimal", quixo)
    assert check_agent("alphabeta:depth=2", quixo) == "alphabeta:depth=2"
    monkeypatch.setattr(machine, "available_memory", lambda: 1 << 20)  # 1 MiB left
    with pytest.raises(WebInputError, match=r"needs .* of memory.*choose smaller tables"):
        check_agent("alphabeta:depth=2", quixo)


def test_a_single_move_that_is_not_digits_is_not_split() -> None:
    tictactoe = parse_game("tictactoe")
    with pytest.raises(WebInputError, match=r"move 1 \(b9\)"):
        start_position(tictactoe, moves="b9")
    connect4 = parse_game("connect4")
    assert start_position(connect4, moves="4453")[1] == ["4", "4", "5", "3"]
    for long_text in ({"moves": "4" * 4001}, {"position": "." * 4001}):
        with pytest.raises(WebInputError, match="at most 4000 characters"):
            start_position(connect4, **long_text)


def test_paths_are_refused_unless_allowed() -> None:
    with TestClient(create_app(ServeSettings(agent_workers=1))) as strict:
        files = ("course:player=x.py:P", "rules:model=/etc/passwd", "alphabeta:weights=w.json")
        for spec in (*files, "course", "hybrid:search=(alphabeta:weights=w.json)"):
            reply = strict.post("/api/games", json={"game": "quixo", "sides": [None, spec]})
            assert reply.status_code == 400 and "--allow-paths" in reply.json()["detail"]
        assert strict.post("/api/games", json={"sides": [None, "nosuchagent"]}).status_code == 400
        assert strict.post("/api/games", json={"game": "chess"}).status_code == 400
        assert strict.post("/api/games", json={"sides": [None, "optimal"]}).status_code == 400  # Nim only
        tables = strict.post("/api/games", json={"sides": [None, "perfect"]})  # no 5x5 tables built here
        assert tables.status_code == 400 and "tables" in tables.json()["detail"]
        evaluation = {"sides": [None, "alphabeta:eval=lines3,depth=1"], "game": "quixo"}
        assert strict.post("/api/games", json=evaluation).status_code == 201


def test_perfect_is_refused_a_game_from_a_position_its_tables_do_not_cover() -> None:
    """Tables of endgames only (as 5x5's): a game from the first position would be forfeited at
    its first move, so it is refused with a 400; one from a covered endgame is played."""
    tables = Path(os.environ["BOARDLAB_TABLES"]) / "quixo4"  # where the agent workers look
    solve(4, tables, min_cubes=15)  # boards with at most one blank cube
    try:
        with TestClient(create_app(ServeSettings(agent_workers=1))) as client:
            game = {"game": "quixo:size=4", "sides": [None, "perfect"], "think": 0.5}
            refused = client.post("/api/games", json=game)
            assert refused.status_code == 400
            assert "cannot play a whole game from that position" in refused.json()["detail"]
            endgame = client.post("/api/games", json={**game, "position": "XXOO/OOXX/XXOO/OOX. X 16"})
            assert endgame.status_code == 201, endgame.text
    finally:
        shutil.rmtree(tables)


class _HandClock:
    """The hall's clock, moved by hand: idle times do not depend on the machine's load."""

    def __init__(self) -> None:
        self.now = 1000.0

    def monotonic(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture
def hand_clock(monkeypatch: pytest.MonkeyPatch) -> _HandClock:
    clock = _HandClock()
    monkeypatch.setattr(hall_module, "time", clock)  # the hall's own clock only
    return clock


def test_the_hall_is_bounded_and_drops_idle_games(hand_clock: _HandClock) -> None:
    hall = HallSettings(max_games=2, idle_seconds=0.2)
    with TestClient(create_app(ServeSettings(hall=hall, agent_workers=1))) as small:
        first = new(small, game="nim", sides=[None, None])
        new(small, game="nim", sides=[None, None])
        full = small.post("/api/games", json={"game": "nim", "sides": [None, None]})
        assert full.status_code == 429
        hand_clock.sleep(0.3)
        new(small, game="nim", sides=[None, None])  # room made by dropping an idle game
        assert small.get(f"/api/games/{first['id']}").status_code == 404


def test_a_person_cannot_move_for_the_agent() -> None:
    # the agent moves first; its thread is not started here, so its turn stays open
    start = parse_game("tictactoe").initial()
    web_game = WebGame("g", start, [], ("random", None), 1.0, None, seed=0)  # type: ignore[arg-type]
    with pytest.raises(WebInputError, match="it is the agent's turn, not yours") as refused:
        web_game.play("b2")
    assert refused.value.status == 409 and web_game.session.turns == []


def test_where_two_people_play_the_one_to_move_resigns() -> None:
    start = parse_game("tictactoe").initial()
    web_game = WebGame("g", start, ["b2"], (None, None), 1.0, None, seed=0)  # type: ignore[arg-type]
    web_game.resign()
    assert web_game.view["outcome"]["winner"] == 0
    assert web_game.view["outcome_text"] == "X wins (resignation)"
    assert web_game.view["can_undo"] is False  # a resignation is not taken back
    with pytest.raises(WebInputError):
        web_game.undo()


def test_two_agents_watched_are_paced_between_their_moves(monkeypatch: pytest.MonkeyPatch) -> None:
    pauses: list[float] = []
    clock = types.SimpleNamespace(monotonic=time.monotonic, sleep=pauses.append)
    monkeypatch.setattr(hall_module, "time", clock)  # the hall's own clock only
    start = parse_game("tictactoe").initial()
    web_game = WebGame("g", start, [], ("random", "random"), 1.0, _Pool(_search), seed=0)  # type: ignore[arg-type]
    web_game.running = True
    web_game.agent_turns(pace=0.4)
    plies = len(web_game.view["moves"])
    assert web_game.view["outcome"] is not None and not web_game.running
    assert pauses == [0.4] * (plies - 1)  # none after the last move


def test_a_policy_is_shown_per_move_largest_first() -> None:
    state = parse_game("tictactoe").initial()
    policy = [0.0] * state.game.kernel.num_actions
    for index, share in zip(state.legal_indices()[:3], (0.1, 0.6, 0.3), strict=True):
        policy[index] = share
    shown = said({"move": "a1", "policy": policy, "value": 0.5}, state)
    assert "move" not in shown and shown["value"] == 0.5
    moves = [str(state.move_from_index(i)) for i in state.legal_indices()[:3]]
    assert shown["policy_moves"][:3] == [(moves[1], 0.6), (moves[2], 0.3), (moves[0], 0.1)]


def test_a_game_looked_at_is_not_dropped_as_idle(hand_clock: _HandClock) -> None:
    hall = Hall(None, HallSettings(max_games=2, idle_seconds=0.3))  # type: ignore[arg-type]
    try:
        watched = hall.create("nim", (None, None))
        left = hall.create("nim", (None, None))
        hand_clock.sleep(0.2)
        hall.get(watched.id).snapshot()  # what the page's polling does
        hand_clock.sleep(0.2)
        hall.create("nim", (None, None))  # room is made by dropping the game nobody looked at
        assert hall.get(watched.id) is watched
        with pytest.raises(WebInputError, match="dropped after idling"):
            hall.get(left.id)
    finally:
        hall.close()


# --- no 5xx on any input, over the OpenAPI schema ---------------------------------------------

TEXTS = st.one_of(
    st.sampled_from(
        ["quixo", "connect4", "tictactoe", "nim", "quixo:size=3", "nim:piles=1-2", "greedy", "4"]
    ),
    st.sampled_from(["a1e1", "4453", "X...O/...../...../...../..... X 2", "perfect", "random", "1:1", "b2"]),
    st.text(max_size=30),
)
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | TEXTS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=8,
)


def _operations(client: Any) -> list[tuple[str, str, list[str]]]:
    schema = client.get("/openapi.json").json()
    out = []
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            body = operation.get("requestBody", {}).get("content", {}).get("application/json", {})
            ref = body.get("schema", {}).get("$ref", "")
            fields = list(schema["components"]["schemas"][ref.split("/")[-1]]["properties"]) if ref else []
            out.append((method, path, fields))
    return out


@settings(max_examples=50, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_no_input_gets_a_server_error(client: Any, data: Any) -> None:
    operations = _operations(client)
    method, path, fields = data.draw(st.sampled_from(operations))
    game_id = data.draw(st.sampled_from(["0" * 16, "x", "..%2Fetc"]))
    tournament = quote(data.draw(st.text(max_size=10)) or "t", safe="")
    url = path.replace("{game_id}", game_id).replace("{tournament}", tournament)
    url = url.replace("{index}", str(data.draw(st.integers(-5, 2**70))))
    body = data.draw(st.fixed_dictionaries({}, optional={f: JSON for f in fields}) | JSON)
    reply = client.request(method.upper(), url, json=body if method in ("post", "put") else None)
    assert reply.status_code < 500, (method, url, body, reply.text)
    assert isinstance(reply.json(), dict)


ACTIONS = st.lists(
    st.one_of(
        st.tuples(st.just("legal"), st.integers(0, 99)),
        st.tuples(st.just("move"), TEXTS),
        st.tuples(st.sampled_from(["undo", "resign"]), st.none()),
    ),
    max_size=14,
)


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    game=st.sampled_from(
        [
            "quixo:size=3",
            "quixo:size=4,rules=course",
            "connect4:width=5,height=4",
            "tictactoe",
            "nim:piles=1-2-3",
        ]
    ),
    actions=ACTIONS,
)
def test_a_persons_requests_in_any_order_get_no_server_error(
    client: Any, game: str, actions: list[Any]
) -> None:
    view = new(client, game=game, sides=[None, None])
    for kind, detail in actions:
        legal = view["position"]["legal"]
        if kind == "legal" and not legal:
            continue
        move = legal[detail % len(legal)] if kind == "legal" else detail
        body = {"move": move} if kind in ("legal", "move") else None
        path = kind if kind in ("undo", "resign") else "move"
        reply = client.post(f"/api/games/{view['id']}/{path}", json=body)
        assert reply.status_code < 500, (kind, move, reply.text)
        assert reply.status_code in (200, 400, 409, 422) and isinstance(
            reply.json()["detail" if reply.status_code != 200 else "id"], str
        )
        if kind == "legal":  # a legal move is played, unless the game ended (by resignation)
            assert reply.status_code == (409 if view["outcome"] else 200), reply.json()
        view = client.get(f"/api/games/{view['id']}").json()
        assert replayed(view).to_text() == view["position"]["text"]
    client.delete(f"/api/games/{view['id']}")


def test_two_agents_play_to_the_end_while_watched(client: Any) -> None:
    view = new(client, game="nim:piles=2-3", sides=["random", "perfect"], think=0.2, seed=4)
    view = settle(client, view["id"])
    assert view["outcome"] is not None and view["outcome"]["reason"] == "rule"
    assert replayed(view).is_over
    assert client.post(f"/api/games/{view['id']}/undo").status_code == 409  # no person to undo for


def test_a_searchs_score_is_said_in_words_where_it_says_more_than_the_value(client: Any) -> None:
    """A proven win is said with its distance, as the terminal says it; a heuristic score only
    where the decision has no value; nothing beside a value that the score only repeats."""

    def search(moves: str, agent: str) -> dict[str, Any]:
        reply = client.post("/api/analysis", json={"game": "tictactoe", "moves": moves, "agent": agent})
        assert reply.status_code == 200, reply.text
        return reply.json()["search"]

    assert search("a1 b1 a2 b2", "alphabeta")["evaluation"] == "a proven win for X in 1 ply"
    assert (
        search("a1 b1 a2", "alphabeta")["evaluation"] == "a proven loss for O in 4 plies"
    )  # a3, a fork, a block, a line
    assert search("b2", "alphabeta:depth=1")["evaluation"].startswith("evaluation ")
    assert search("", "alphabeta")["evaluation"] == "evaluation +0.00 for X"  # a draw: never -0.00
    assert search("b2", "mcts:iters=200")["evaluation"] is None  # its score is its value


def test_an_agents_policy_and_value_are_shown_per_move(client: Any) -> None:
    state = parse_game("tictactoe").initial().play("b2")
    reply = client.post("/api/analysis", json={"game": "tictactoe", "moves": "b2", "agent": "perfect"})
    search = reply.json()["search"]
    assert search["agent"] == "perfect" and search["value"] == 0
    shares = dict(search["policy_moves"])
    assert set(shares) == {str(m) for m in state.legal_moves()}
    assert abs(sum(shares.values()) - 1) < 1e-6
    best = {str(state.move_from_index(a)) for a in exact_play(state.game).best_actions(state)}
    assert {move for move, share in shares.items() if share > 0} == best
    view = new(client, game="tictactoe", sides=[None, "perfect"], think=0.2, moves="b2")
    answered = settle(client, view["id"])["moves"][-1]
    assert answered["decision"]["value"] == 0 and answered["move"] in dict(
        answered["decision"]["policy_moves"]
    )


def test_the_page_sees_an_agent_thinking(client: Any) -> None:
    view = new(client, game="quixo", sides=[broken_spec("SlowPlayer", attempts=1), None], think=0.5)
    deadline = time.monotonic() + 20
    while (seen := client.get(f"/api/games/{view['id']}").json())["thinking"] is None:
        assert time.monotonic() < deadline and seen["outcome"] is None
        time.sleep(0.05)
    assert seen["thinking"] == 0 and seen["thinking_for"] >= 0
    assert client.post(f"/api/games/{view['id']}/resign").status_code == 409  # wait for the move
    assert client.get("/api/meta").status_code == 200  # the server answers meanwhile


def test_serve_refuses_a_missing_store_and_a_taken_port(tmp_path: Path) -> None:
    missing = CliRunner().invoke(app, ["serve", "--db", str(tmp_path / "none.sqlite")])
    assert missing.exit_code == 2 and "no such arena store" in missing.output
    damaged = tmp_path / "damaged.sqlite"
    Store(damaged).close()
    damaged.write_bytes(damaged.read_bytes()[:3000])
    refused = CliRunner().invoke(app, ["serve", "--db", str(damaged)])
    assert refused.exit_code == 2 and "not a usable SQLite database" in refused.output
    no_model = CliRunner().invoke(app, ["serve", "--analysis-agent", f"qlearning:model={tmp_path / 'x.npz'}"])
    assert (
        no_model.exit_code == 2
        and "--analysis-agent" in no_model.output
        and "does not exist" in no_model.output
    )
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        busy = CliRunner().invoke(app, ["serve", "--port", str(taken.getsockname()[1])])
    assert busy.exit_code == 2 and "cannot listen" in busy.output


@pytest.mark.parametrize("host", ["", "  "])
def test_serve_refuses_an_empty_host(host: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # an empty address would listen on every interface, not on 127.0.0.1
    monkeypatch.setattr(server, "serve", lambda settings, host, port, announce: None)
    empty = CliRunner().invoke(app, ["serve", "--host", host])
    assert empty.exit_code == 2 and "--host" in empty.output and "0.0.0.0" in empty.output


def test_serve_reads_its_store_without_writing_it(tmp_path: Path) -> None:
    empty = tmp_path / "empty.dat"
    empty.write_bytes(b"")
    assert store_problem(empty) == ""  # a store without games
    assert empty.read_bytes() == b"" and sorted(p.name for p in tmp_path.iterdir()) == ["empty.dat"]


def test_serve_prints_its_address_and_starts_with_its_options(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    started: list[tuple[ServeSettings, str, int]] = []
    monkeypatch.setattr(
        server, "serve", lambda settings, host, port, announce: started.append((settings, host, port))
    )
    store = tmp_path / "arena.sqlite"
    Store(store).close()
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    args = ["serve", "--port", str(port), "--db", str(store), "--max-games", "7", "--allow-paths"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "http://" not in result.output  # not before the server listens: it never did here
    settings, host, bound = started[0]
    assert (host, bound, settings.db, settings.hall.max_games) == ("127.0.0.1", port, str(store), 7)
    assert settings.hall.allow_paths


def test_serve_says_its_address_once_the_page_can_be_opened(monkeypatch: pytest.MonkeyPatch) -> None:
    said: list[bool] = []

    def announce() -> None:  # the page answers when the address is said
        with socket.create_connection(("127.0.0.1", port), timeout=10):
            said.append(True)
        running.should_exit = True

    async def page(scope: dict[str, Any], receive: Any, send: Any) -> None:
        return None

    port = free_port()
    config = uvicorn.Config(page, host="127.0.0.1", port=port, log_level="warning", lifespan="off")
    running = server.announcing_server(config, announce)
    thread = threading.Thread(target=running.run, daemon=True)
    thread.start()
    thread.join(30)
    assert said == [True]
    monkeypatch.setattr(server, "serve", lambda settings, host, port, announce: announce())
    result = CliRunner().invoke(app, ["serve", "--port", str(free_port())])
    assert result.exit_code == 0 and result.output.endswith("/  (Ctrl-C stops it)\n"), result.output


def _started_by_serve(monkeypatch: pytest.MonkeyPatch, args: list[str]) -> tuple[Any, ServeSettings, str]:
    """``boardlab serve ARGS`` with the server replaced: its result and the settings it started with."""
    started: list[ServeSettings] = []

    def pretend(settings: ServeSettings, host: str, port: int, announce: Any) -> None:
        started.append(settings)
        announce()

    monkeypatch.setattr(server, "serve", pretend)
    result = CliRunner().invoke(app, ["serve", "--port", str(free_port()), *args])
    assert result.exit_code == 0, result.output
    return result, started[0], result.output


def test_serve_passes_each_option_on(monkeypatch: pytest.MonkeyPatch) -> None:
    args = ["--workers", "3", "--analysis-workers", "2", "--analysis-agent", "greedy", "--idle-minutes", "2"]
    args += ["--max-think", "20", "--analysis-seconds", "50"]
    _, settings, _ = _started_by_serve(monkeypatch, args)
    assert (settings.agent_workers, settings.analysis_workers, settings.analysis_agent) == (3, 2, "greedy")
    assert (settings.hall.idle_seconds, settings.hall.max_think) == (120, 20)
    assert settings.analysis_seconds == 20  # never more than an agent may be given


def test_serve_takes_an_analysis_agent_that_plays_only_some_games(monkeypatch: pytest.MonkeyPatch) -> None:
    _, settings, _ = _started_by_serve(monkeypatch, ["--analysis-agent", "optimal"])  # Nim only
    assert settings.analysis_agent == "optimal"


def test_serve_shows_an_ipv6_address_in_brackets(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(server, "check_address", lambda host, port: None)
    _, _, output = _started_by_serve(monkeypatch, ["--host", "::1"])
    assert "serving on http://[::1]:" in output


def test_an_address_is_checked_in_its_own_family() -> None:
    try:  # an IPv6 loopback, where this machine has one
        with socket.socket(socket.AF_INET6) as probe:
            probe.bind(("::1", 0))
    except OSError:
        with pytest.raises(server.ServeError, match=r"cannot listen on ::1:"):
            server.check_address("::1", free_port())
    else:
        server.check_address("::1", free_port())


def test_serve_refuses_a_host_that_is_no_name_and_a_store_that_is_a_folder(tmp_path: Path) -> None:
    unnamed = CliRunner().invoke(app, ["serve", "--host", "é" * 70])  # too long for a name's label
    assert unnamed.exit_code == 2 and "not a host name" in unnamed.output
    assert "é" * 57 + "..." in unnamed.output and "é" * 58 not in unnamed.output
    folder = CliRunner().invoke(app, ["serve", "--db", str(tmp_path)])
    assert folder.exit_code == 2 and "not a regular file" in folder.output
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        with pytest.raises(
            server.ServeError, match=r"cannot listen on 127\.0\.0\.1:[0-9]+: Address already in use"
        ):
            server.check_address("127.0.0.1", taken.getsockname()[1])


async def _failing_start(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """An app whose start fails (as when its worker processes cannot start)."""
    if scope["type"] == "lifespan":
        await receive()
        await send({"type": "lifespan.startup.failed", "message": "the workers did not start"})


def test_a_server_that_cannot_start_says_nothing_and_exits_3(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(server, "create_app", lambda settings: _failing_start)
    said: list[bool] = []
    with pytest.raises(SystemExit) as failed:
        server.serve(
            ServeSettings(), port=free_port(), log_level="critical", announce=lambda: said.append(True)
        )
    assert failed.value.code == server.STARTUP_FAILURE == 3
    assert said == []


async def _interrupted_while_starting(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """An app that gets Ctrl-C while its worker processes start."""
    if scope["type"] == "lifespan":
        await receive()
        signal.raise_signal(signal.SIGINT)
        await send({"type": "lifespan.startup.complete"})
        await receive()
        await send({"type": "lifespan.shutdown.complete"})


@pytest.mark.timeout(60)
def test_ctrl_c_while_a_server_starts_stops_it_quietly_before_it_says_its_address(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(server, "create_app", lambda settings: _interrupted_while_starting)
    said: list[bool] = []
    server.serve(ServeSettings(), port=free_port(), log_level="critical", announce=lambda: said.append(True))
    assert said == []  # the address is never said: nothing would answer there


def test_bodies_are_bounded(client: Any) -> None:
    huge = client.post("/api/games", content=b'{"game": "' + b"x" * 70_000 + b'"}')
    assert huge.status_code == 413 and "at most" in huge.json()["detail"]
    long_moves = client.post("/api/games", json={"game": "connect4", "moves": "4" * 5000})
    assert long_moves.status_code == 422


def test_a_body_sent_in_chunks_is_bounded_by_the_bytes_received(client: Any) -> None:
    def chunks() -> Iterator[bytes]:  # a valid game padded to 4 MiB, with no content-length
        yield b'{"game": "nim", "sides": [null, null]'
        for _ in range(64):
            yield b" " * 65_536
        yield b"}"

    huge = client.post("/api/games", content=chunks(), headers={"content-type": "application/json"})
    assert "content-length" not in huge.request.headers
    assert huge.status_code == 413 and "at most" in huge.json()["detail"]
    small = client.post(
        "/api/games",
        content=iter([b'{"game": "nim", ', b'"sides": [null, null]}']),
        headers={"content-type": "application/json"},
    )
    assert small.status_code == 201, small.json()


# --- replays of an arena store ------------------------------------------------------------------


def _record(
    config: TournamentConfig, index: int, moves: tuple[str, ...], times: tuple[float, ...]
) -> GameRecord:
    state = parse_game(config.game).initial()
    for move in moves:
        state = state.play(state.parse_move(move))
    outcome = state.outcome or Outcome(1 - state.to_move, Reason.RESIGNATION)
    return GameRecord(
        tournament_id=config.tournament_id,
        index=index,
        game=config.game,
        first_player=index % 2,
        second_player=1 - index % 2,
        first_spec=config.specs[index % 2],
        second_spec=config.specs[1 - index % 2],
        first_seed=0,
        second_seed=1,
        opening_index=0,
        opening=moves[:2],
        moves=moves,
        outcome=outcome,
        plies=len(moves),
        move_times=times,
        started="2026-11-26T00:00:00.000+00:00",
        finished="2026-11-26T00:00:01.000+00:00",
    )


@pytest.fixture
def stored(tmp_path: Path) -> tuple[Path, str, list[GameRecord]]:
    """A store with a tournament of two Tic-Tac-Toe games: a win on the board and a resignation."""
    config = TournamentConfig(("greedy", "random"), 1, game="tictactoe", name="replays")
    records = [
        _record(config, 0, ("a1", "b1", "a2", "b2", "a3"), (0.25, 0.5, 0.75)),
        _record(config, 1, ("b2", "a1", "c3"), ()),  # a move without its time
    ]
    path = tmp_path / "arena.sqlite"
    with Store(path) as store:
        store.register_tournament(config)
        for record in records:
            store.add_game(record)
    return path, config.tournament_id, records


def test_a_game_that_cannot_be_read_is_left_out_of_the_page_and_said_once(
    stored: tuple[Path, str, list[GameRecord]], capsys: pytest.CaptureFixture[str]
) -> None:
    path, tournament, _ = stored
    with sqlite3.connect(path) as conn:  # a hand's edit: a reason the store does not know
        conn.execute('UPDATE games SET outcome = \'{"winner": 0, "reason": "resign"}\' WHERE game_index = 0')
    conn.close()
    replays = Replays(path)
    for _ in range(2):
        assert [g["index"] for g in replays.games(tournament)] == [1]
        assert sum(row["games"] for row in replays.standings(tournament)) == 2  # one game, two players
    assert replays.game(tournament, 1)["index"] == 1
    said = capsys.readouterr().err.splitlines()
    assert said == [f"warning: store {path}: game 0 of tournament {tournament} (replays) is unreadable "
                    "('resign' is not a valid Reason); left out"]  # fmt: skip


def test_a_stored_game_replays_position_by_position(stored: tuple[Path, str, list[GameRecord]]) -> None:
    path, tournament, records = stored
    replays = Replays(path)
    assert [(t["id"], t["games"]) for t in replays.tournaments()] == [(tournament, 2)]
    listed = replays.games(tournament)
    assert [(g["index"], g["first"], g["second"], g["plies"]) for g in listed] == [
        (0, "greedy", "random", 5),
        (1, "random", "greedy", 3),
    ]
    assert [g["result"] for g in listed] == [r.outcome.text(("X", "O")) for r in records]
    for record in records:
        game = replays.game(tournament, record.index)
        assert game["index"] == record.index and game["moves"] == list(record.moves)
        assert game["players"] == [record.first_spec, record.second_spec]
        assert game["result"] == record.outcome.text(("X", "O"))
        state = parse_game("tictactoe").initial()
        texts = [state.to_text()]
        for move in record.moves:
            state = state.play(state.parse_move(move))
            texts.append(state.to_text())
        assert [p["text"] for p in game["positions"]] == texts
        # each position marks the move that led to it
        assert "to" not in game["positions"][0]["marks"]
        assert all("to" in p["marks"] for p in game["positions"][1:])
        assert game["opening"] == 2
        # the opening's moves have no thinking time; a move without a stored time has none either
        assert len(game["seconds"]) == len(record.moves)
        assert game["seconds"][:2] == [None, None]
        assert game["seconds"][2:] == list(record.move_times) + [None] * (
            len(record.moves) - 2 - len(record.move_times)
        )
    assert replays.game(tournament, 0)["positions"][-1]["outcome"]["winner"] == 0
    assert replays.game(tournament, 1)["positions"][1]["marks"]["to"] == [1, 1]  # b2, the centre


def test_the_tournament_list_gives_a_suite_of_openings_by_its_length(tmp_path: Path) -> None:
    suite = tuple((str(column),) for column in range(1, 8))
    gauntlet = TournamentConfig(
        ("greedy", "random", "greedy"), 1, "connect4", openings=suite, pairing="gauntlet"
    )
    path = tmp_path / "arena.sqlite"
    with Store(path) as store:
        store.register_tournament(gauntlet)
        store.register_tournament(TournamentConfig(("greedy", "random"), 1, game="tictactoe"))
    listed = Replays(path).tournaments()
    assert [(t["pairing"], t["openings"], t["opening_plies"]) for t in listed] == [
        ("gauntlet", 7, 0),
        ("round-robin", 0, 2),
    ]


def test_a_tournaments_standings_rank_its_players_as_the_ratings_do(tmp_path: Path) -> None:
    # A beats B twice, B beats C twice, A and C draw; a game of A against itself says nothing
    config = TournamentConfig(("greedy", "random", "alphabeta:depth=1"), 1, game="tictactoe")
    a, b, c = config.specs
    results = [(a, b, 0), (b, a, 1), (b, c, 0), (c, b, 1), (a, c, None), (a, a, 0)]
    path = tmp_path / "arena.sqlite"
    with Store(path) as store:
        store.register_tournament(config)
        for index, (first, second, winner) in enumerate(results):
            outcome = Outcome(winner, Reason.RESIGNATION if winner is not None else Reason.DRAW)
            record = dataclasses.replace(
                _record(config, index, ("b2",), ()),
                first_player=config.specs.index(first),
                second_player=config.specs.index(second),
                first_spec=first,
                second_spec=second,
                outcome=outcome,
            )
            store.add_game(record)
        specs, records = pooled_games(store, "tictactoe", config.tournament_id)
    table = Replays(path).standings(config.tournament_id)
    assert [(r["rank"], r["player"]) for r in table] == [(1, a), (2, b), (3, c)]
    assert [(r["wins"], r["draws"], r["losses"], r["games"]) for r in table] == [
        (2, 1, 0, 3),
        (2, 0, 2, 4),
        (0, 1, 2, 3),
    ]
    assert [r["score"] for r in table] == [round(2.5 / 3, 4), 0.5, round(0.5 / 3, 4)]
    ratings = summarize(specs, records).elo
    assert ratings is not None
    for row in table:
        player = specs.index(row["player"])
        assert row["elo"] == pytest.approx(float(ratings.ratings[player]), abs=1e-3)
        assert row["elo_low"] < row["elo"] < row["elo_high"]


def test_replays_refuse_what_the_store_does_not_hold(stored: tuple[Path, str, list[GameRecord]]) -> None:
    path, tournament, records = stored
    with pytest.raises(WebInputError, match="start serve with --db") as no_store:
        Replays(None).tournaments()
    assert no_store.value.status == 404
    for look in (Replays(path).games, Replays(path).standings):
        with pytest.raises(WebInputError, match="no tournament") as unknown:
            look("nope")
        assert unknown.value.status == 404

    def unfit_summary(*args: Any) -> Any:
        raise RatingError("Elo fit did not converge")

    with pytest.MonkeyPatch.context() as patched:  # a fit that fails is a 422, not a server error
        patched.setattr(replay_module, "summarize", unfit_summary)
        with pytest.raises(WebInputError, match="did not converge") as unfit:
            Replays(path).standings(tournament)
        assert unfit.value.status == 422
    with pytest.raises(WebInputError, match="has no game 2") as no_game:
        Replays(path).game(tournament, 2)
    assert no_game.value.status == 404
    with Store(path) as store:  # a game written by something else, with a move the rules refuse
        store.add_game(
            dataclasses.replace(records[1], index=2, opening=("b2", "b2"), moves=("b2", "b2", "c3"))
        )
    with pytest.raises(WebInputError, match="game 2 cannot be replayed") as illegal:
        Replays(path).game(tournament, 2)
    assert illegal.value.status == 422
    empty = path.with_name("empty.sqlite")
    empty.write_bytes(b"")
    assert Replays(empty).tournaments() == []  # read, never written
    assert empty.read_bytes() == b"" and not empty.with_name("empty.sqlite-journal").exists()
    path.unlink()
    with pytest.raises(WebInputError, match="is gone") as gone:
        Replays(path).tournaments()
    assert gone.value.status == 404
    path.write_bytes(b"not a database at all" * 100)
    with pytest.raises(WebInputError) as broken:
        Replays(path).tournaments()
    assert broken.value.status == 422


# --- the analysis panel, with pools that answer at once ---------------------------------------


class _Pool:
    """A pool whose workers answer with ``answer(request)`` (or raise what it raises)."""

    def __init__(self, answer: Any) -> None:
        self.answer = answer
        self.asked: list[dict[str, Any]] = []
        self.waits: list[float | None] = []  # the limit of each request

    def ask(
        self,
        request: dict[str, Any],
        limit: float | None,
        queue_seconds: float = 60.0,
        setup_seconds: Any = None,
    ) -> dict[str, Any]:
        self.asked.append(request)
        self.waits.append(limit)
        return self.answer(request)  # type: ignore[no-any-return]

    def kinds(self, kind: str) -> int:
        return sum(request["kind"] == kind for request in self.asked)


def test_an_agents_start_up_is_done_before_its_first_move_and_told_apart_from_its_thinking() -> None:
    pool = _Pool(_search)
    pool.size = 2  # type: ignore[attr-defined]
    hall = Hall(pool, HallSettings(pace=0.0))  # type: ignore[arg-type]
    try:
        web_game = hall.create("tictactoe", (None, "greedy"))
        deadline = time.monotonic() + 30
        while pool.kinds("prepare") < 2 and time.monotonic() < deadline:
            time.sleep(0.01)
        prepared = [r for r in pool.asked if r["kind"] == "prepare"]
        # each worker builds the agent the first move asks for, while the person thinks
        assert [r["key"] for r in prepared] == [f"{web_game.id}/1/0"] * 2
        web_game.play("b2")
        hall.start_agents(web_game)
        while web_game.view["thinking"] is not None or len(web_game.view["moves"]) < 2:
            time.sleep(0.01)
        reply = web_game.view["moves"][1]
        assert reply["seconds"] == 0.01 and reply["start_seconds"] is not None  # told apart
        assert web_game.view["moves"][0]["start_seconds"] is None  # the person's move
    finally:
        hall.close()
    worker = AgentWorker()
    request = {"kind": "prepare", "key": "g/1/0", "game": "tictactoe", "agent": "greedy", "seed": 1}
    assert workers.prepare(worker, request, lambda message: None) == {"ok": True}
    assert list(worker.agents) == ["g/1/0"]  # kept for the first move's "act" under that key


def _exact(request: dict[str, Any]) -> dict[str, Any]:
    return {"exact": {"moves": "all drawn"}, "why": None}


def _search(request: dict[str, Any]) -> dict[str, Any]:
    if request["kind"] == "check":
        return {}
    state = parse_game(request["game"]).parse_position(request["position"])
    return {"decision": {"move": str(state.legal_moves()[0]), "value": 0.25}, "seconds": 0.01}


def _raise(error: Exception) -> Any:
    def answer(request: dict[str, Any]) -> Any:
        if request["kind"] == "check":
            return {}
        raise error

    return answer


def _after(game: str, *moves: str) -> Any:
    state = parse_game(game).initial()
    for move in moves:
        state = state.play(state.parse_move(move))
    return state


def test_analysis_is_exact_where_it_can_be_and_searches_when_asked() -> None:
    exact, search = _Pool(_exact), _Pool(_search)
    analyst = Analyst(exact, search, seconds=1.0, max_seconds=5.0, agent="greedy")
    state = _after("tictactoe", "b2")
    answer = analyst.analyze(state)
    assert answer["exact"] == {"moves": "all drawn"} and answer["search"] is None
    assert answer["cached"] is False and search.kinds("act") == 0
    named = analyst.analyze(state, agent="random")  # an agent named: its search beside the exact values
    assert named["exact"] == {"moves": "all drawn"}
    assert named["search"]["agent"] == "random" and named["search"]["move"] == "a1"
    assert named["search"]["value"] == 0.25 and search.asked[-1]["agent"] == "random"
    assert named["search"]["seconds"] == 0.01  # the worker's own thinking time
    blank = analyst.analyze(state, agent="  ")  # a blank agent is no agent
    assert blank["cached"] is True and blank["search"] is None
    assert analyst.analyze(state, seconds=5.0)["cached"] is False  # each budget is its own answer
    over = analyst.analyze(_after("tictactoe", "a1", "b1", "a2", "b2", "a3"))
    assert over["why"] == "the game is over" and over["exact"] is None and over["search"] is None
    assert exact.kinds("exact") == 3
    for budget in (0.0, -1.0, 5.5):
        with pytest.raises(WebInputError, match=r"analysis time must be in \(0, 5\]"):
            analyst.analyze(state, seconds=budget)


def test_analysis_without_exact_values_asks_the_default_agent() -> None:
    none = _Pool(lambda request: {"exact": None, "why": "no solver for this game"})
    search = _Pool(_search)
    answer = Analyst(none, search, agent="greedy").analyze(_after("quixo"))
    assert answer["why"] == "no solver for this game"
    assert answer["search"]["agent"] == "greedy" and search.asked[-1]["agent"] == "greedy"


def test_a_solve_that_overran_is_not_tried_again_on_earlier_positions() -> None:
    exact = _Pool(_raise(Overrun("no answer within 1 s")))
    analyst = Analyst(exact, _Pool(_search), seconds=1.0, agent="greedy")
    deep = analyst.analyze(_after("connect4", "4", "4", "4"))
    assert deep["why"] == "no exact value: no answer within 1 s" and deep["search"]["agent"] == "greedy"
    assert exact.kinds("exact") == 1
    earlier = analyst.analyze(_after("connect4", "4", "4"))
    same = analyst.analyze(_after("connect4", "3", "3", "3"))
    assert earlier["why"] == same["why"] == "no exact value: a position at ply 3 already took longer than 1 s"
    assert exact.kinds("exact") == 1
    analyst.analyze(_after("connect4", "4", "4", "4", "4"))  # a later, easier position is tried
    assert exact.kinds("exact") == 2
    analyst.analyze(_after("connect4", "4", "4"), seconds=2.0)  # a larger budget is tried too
    assert exact.kinds("exact") == 3


def test_analysis_reports_a_failed_search_and_refuses_when_every_worker_is_busy() -> None:
    failing = Analyst(_Pool(_raise(ThinkError("solver broke"))), _Pool(_raise(ThinkError("agent broke"))))
    answer = failing.analyze(_after("tictactoe"))
    assert answer["why"] == "no exact value: solver broke"
    assert answer["search"] is None and answer["search_error"] == "alphabeta: agent broke"
    for busy in (
        Analyst(_Pool(_raise(Busy("every worker is busy"))), _Pool(_search)),
        Analyst(_Pool(lambda request: {"exact": None}), _Pool(_raise(Busy("every worker is busy")))),
    ):
        with pytest.raises(WebInputError, match="every worker is busy") as refused:
            busy.analyze(_after("tictactoe"))
        assert refused.value.status == 429


def test_the_analysis_cache_forgets_the_least_recently_used_position(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(analysis, "CACHE_SIZE", 2)
    exact = _Pool(_exact)
    analyst = Analyst(exact, _Pool(_search))
    a, b, c = _after("tictactoe", "a1"), _after("tictactoe", "b1"), _after("tictactoe", "c1")
    for state in (a, b, a, c):
        analyst.analyze(state)
    assert analyst.analyze(a)["cached"] and analyst.analyze(c)["cached"]
    assert not analyst.analyze(b)["cached"]


# --- the page's metadata, bodies refused in one line, a game's own settings ------------------


def test_the_meta_lists_the_games_the_agents_and_the_servers_bounds(client: Any) -> None:
    meta = client.get("/api/meta").json()
    games = {g["name"]: g for g in meta["games"]}
    assert list(games) == available_games()
    assert games["connect4"]["title"] == "Connect Four"  # the game's name, not one variant's title
    assert all(games[name]["drawn"] for name in DRAWN)
    width = next(o for o in games["connect4"]["options"] if o["name"] == "width")
    assert (width["minimum"], width["maximum"], width["default"]) == (2, 21, "7")
    size = next(o for o in games["quixo"]["options"] if o["name"] == "size")
    assert size["choices"] == ["3", "4", "5"]
    assert [a["name"] for a in meta["agents"]] == [cls.name for cls in list_agents()]
    assert (meta["max_think"], meta["analysis_seconds"], meta["allow_paths"], meta["replay"]) == (
        5.0,
        3.0,
        True,
        False,
    )


@pytest.mark.parametrize(
    ("path", "body", "detail"),
    [
        ("/api/games/x/move", {"move": ""}, "move: String should have at least 1 character"),
        ("/api/games", {"sides": [None]}, "sides: List should have at least 2 items after validation, not 1"),
        ("/api/games", {"sides": [None, None, None]}, "sides: List should have at most 2 items"),
        ("/api/games", {"seed": -1}, "seed must be a whole number from 0 to 2147483647, got -1"),
        ("/api/games", {"think": 0}, "think: Input should be greater than 0"),
        ("/api/analysis", {"seconds": 0}, "seconds: Input should be greater than 0"),
        ("/api/games", [1], "request: Input should be a valid dictionary"),
    ],
)
def test_a_bad_body_is_refused_in_one_line_naming_its_field(
    client: Any, path: str, body: Any, detail: str
) -> None:
    reply = client.post(path, json=body)
    assert reply.status_code == 422 and reply.json()["detail"].startswith(detail), reply.json()


JSON_TYPE = "application/json"


@pytest.mark.parametrize(
    ("body", "content_type", "detail"),
    [
        (
            b"{not json",
            JSON_TYPE,
            "the body is not valid JSON: Expecting property name enclosed in double quotes at position 1",
        ),
        (
            b'{"game": "nim",}',
            JSON_TYPE,
            "the body is not valid JSON: Expecting property name enclosed in double quotes at position 15",
        ),
        (b'{"think": NaN}', JSON_TYPE, "think: a finite number is needed (not NaN or Infinity)"),
        (b'{"think": Infinity}', JSON_TYPE, "think: a finite number is needed (not NaN or Infinity)"),
        (b'{"think": -Infinity}', JSON_TYPE, "think: a finite number is needed (not NaN or Infinity)"),
        (
            b'{"game": "nim"}',
            "text/plain",
            "the body must be JSON, sent as content-type: application/json, not text/plain",
        ),
        (
            b'{"game": "\xffnim"}',
            JSON_TYPE,
            "the body is not UTF-8 text (byte 0xff at position 10)",
        ),
        (b'\x00\xff{"game": "nim"}', JSON_TYPE, "the body is not UTF-8 text (byte 0xff at position 1)"),
        (
            b'{"game": "nim"}',
            "",
            "the body must be JSON, sent as content-type: application/json (the request",
        ),
        (b"[" * 20_000, JSON_TYPE, "the body is not valid JSON: it is nested too deeply"),
    ],
)
def test_a_body_that_is_not_json_says_why_in_a_422(
    client: Any, body: bytes, content_type: str, detail: str
) -> None:
    headers = {"content-type": content_type} if content_type else {}
    reply = client.post("/api/games", content=body, headers=headers)
    assert reply.status_code == 422 and reply.json()["detail"].startswith(detail), reply.json()


@pytest.mark.parametrize(
    ("path", "body", "detail"),
    [
        ("/api/games", {"seed": 1e30}, "seed must be a whole number from 0 to 2147483647, got 1e+30"),
        ("/api/games", {"seed": -1}, "seed must be a whole number from 0 to 2147483647, got -1"),
        (
            "/api/review",
            {"moves": "a1", "number": 1.5},
            "number must be a whole number from 1 to 4000, got 1.5",
        ),
    ],
)
def test_a_whole_number_out_of_bounds_is_said_with_its_bounds(
    client: Any, path: str, body: dict[str, Any], detail: str
) -> None:
    reply = client.post(path, json=body)
    assert reply.status_code == 422 and reply.json()["detail"] == detail


def test_a_seconds_field_that_is_not_finite_is_named(client: Any) -> None:
    for path in ("/api/analysis", "/api/review"):
        reply = client.post(
            path, content=b'{"moves": "a1", "number": 1, "seconds": NaN}', headers={"content-type": JSON_TYPE}
        )
        assert reply.status_code == 422
        assert reply.json() == {
            "detail": "seconds: a finite number is needed (not NaN or Infinity)",
            "field": "seconds",
        }


def test_an_unknown_game_id_of_any_length_is_a_404_for_every_request(client: Any) -> None:
    for game_id in ("x" * 16, "x" * 5000):
        answers = [
            client.get(f"/api/games/{game_id}"),
            client.post(f"/api/games/{game_id}/move", json={"move": "a1"}),
            client.post(f"/api/games/{game_id}/undo"),
            client.post(f"/api/games/{game_id}/resign"),
            client.delete(f"/api/games/{game_id}"),
        ]
        assert [a.status_code for a in answers] == [404] * 5, [a.json() for a in answers]
        assert all(len(a.json()["detail"]) < 120 for a in answers)


@pytest.mark.parametrize(
    ("body", "field", "said"),
    [
        ({"game": "tictactoe", "time_control": "abc", "moves": "b2 a1"}, "time_control", "a time control is"),
        ({"game": "chess"}, "game", "chess"),
        ({"game": "tictactoe", "sides": ["alphabeta:bogus=1", None]}, "sides.0", "bogus"),
        ({"game": "tictactoe", "sides": [None, "alphabeta:bogus=1"]}, "sides.1", "bogus"),
        ({"game": "tictactoe", "think": 100}, "think", "thinking time"),
        ({"game": "tictactoe", "moves": "b2 b2"}, "moves", "move 2 (b2)"),
        ({"game": "tictactoe", "position": "zz"}, "position", "zz"),
        ({"game": "nim", "sides": [None, "random:depth=3"], "time_control": "soon"}, "time_control", "soon"),
    ],
)
def test_a_refused_new_game_names_the_field_at_fault(
    client: Any, body: dict[str, Any], field: str, said: str
) -> None:
    reply = client.post("/api/games", json=body)
    assert reply.status_code == 400 and reply.json()["field"] == field and said in reply.json()["detail"]


def test_a_refused_analysis_names_the_field_at_fault(client: Any) -> None:
    for body, field in [
        ({"game": "chess"}, "game"),
        ({"game": "tictactoe", "moves": "b2 b2"}, "moves"),
        ({"game": "tictactoe", "agent": "nope"}, "agent"),
        ({"game": "tictactoe", "seconds": 10}, "seconds"),
    ]:
        reply = client.post("/api/analysis", json=body)
        assert (reply.status_code, reply.json()["field"]) == (400, field), reply.json()
    reply = client.post("/api/review", json={"game": "tictactoe", "moves": "b2", "number": 2})
    assert (reply.status_code, reply.json()["field"]) == (400, "number")


def test_the_schema_bounds_seconds_as_the_server_does() -> None:
    schema = create_app(ServeSettings(hall=HallSettings(max_think=7.0))).openapi()
    models = schema["components"]["schemas"]
    think = models["NewGame"]["properties"]["think"]
    assert think["maximum"] == 7.0 and think["exclusiveMinimum"] == 0
    for model in ("AnalysisBody", "ReviewBody"):
        numbers = [p for p in models[model]["properties"]["seconds"]["anyOf"] if p.get("type") == "number"]
        assert [p["maximum"] for p in numbers] == [7.0]
    refusal = models["HTTPValidationError"]
    assert refusal["properties"]["detail"] == {"type": "string", "description": "why, in one line"}


def test_the_server_refuses_what_its_schema_says_it_refuses(client: Any) -> None:
    # the client's server gives agents and analyses at most 5 s: 5 is taken, more is not
    bound = client.get("/openapi.json").json()["components"]["schemas"]["AnalysisBody"]["properties"][
        "seconds"
    ]
    assert bound["anyOf"][0]["maximum"] == 5.0
    assert client.post("/api/analysis", json={"game": "tictactoe", "seconds": 5}).status_code == 200
    assert client.post("/api/analysis", json={"game": "tictactoe", "seconds": 5.01}).status_code == 400


def test_a_long_refusal_is_shortened(client: Any) -> None:
    spec = "alphabeta:eval=" + "y" * 180  # its error names the spec and every evaluation
    reply = client.post("/api/games", json={"sides": [None, spec]})
    assert reply.status_code == 400
    detail = reply.json()["detail"]
    assert detail.startswith("alphabeta: eval='yyy") and len(detail) <= 300 and "\n" not in detail


def test_a_game_keeps_its_thinking_time_and_its_seed(client: Any) -> None:
    body = {"game": "tictactoe", "sides": ["random", "random"], "think": 0.2, "seed": 17}
    first, second = (settle(client, new(client, **body)["id"]) for _ in range(2))
    assert first["think"] == second["think"] == 0.2
    assert [m["move"] for m in first["moves"]] == [m["move"] for m in second["moves"]]


def test_a_move_chosen_on_a_game_that_moved_on_is_refused(client: Any) -> None:
    # two pages show one game: the second's move, chosen before the first's, is not played
    view = new(client, game="tictactoe", sides=[None, None])
    assert client.post(f"/api/games/{view['id']}/move", json={"move": "b2", "ply": 0}).status_code == 200
    late = client.post(f"/api/games/{view['id']}/move", json={"move": "a1", "ply": 0})
    assert late.status_code == 409 and "moved on" in late.json()["detail"] and late.json()["field"] == "ply"
    assert [m["move"] for m in client.get(f"/api/games/{view['id']}").json()["moves"]] == ["b2"]


def test_a_left_game_is_kept_but_dropped_first_for_room(hand_clock: _HandClock) -> None:
    hall = Hall(None, HallSettings(max_games=2))  # type: ignore[arg-type]
    try:
        left, kept = hall.create("nim", (None, None)), hall.create("nim", (None, None))
        hand_clock.sleep(1)
        hall.leave(left.id)
        assert hall.get(left.id) is left  # kept, for a reload to show it again
        hall.create("nim", (None, None))  # room made: the left game goes, the one in use stays
        assert hall.get(kept.id) is kept
        with pytest.raises(WebInputError):
            hall.get(left.id)
        hall.leave(kept.id)
        hand_clock.sleep(1)
        kept.snapshot()  # a page showed it again (a reload): it is in use once more
        with pytest.raises(WebInputError, match="most games"):
            hall.create("nim", (None, None))
    finally:
        hall.close()


def test_a_dropped_game_is_gone(client: Any) -> None:
    view = new(client, game="nim", sides=[None, None])
    assert client.delete(f"/api/games/{view['id']}").json() == {"dropped": view["id"]}
    assert client.get(f"/api/games/{view['id']}").status_code == 404
    assert client.delete(f"/api/games/{view['id']}").status_code == 404


def test_an_analysis_longer_than_the_server_allows_is_refused(client: Any) -> None:
    reply = client.post("/api/analysis", json={"game": "tictactoe", "seconds": 10})
    assert reply.status_code == 400 and "analysis time must be in (0, 5]" in reply.json()["detail"]


def test_the_page_and_its_files_are_served(client: Any) -> None:
    page = client.get("/")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert "/static/app.js" in page.text
    assert client.get("/static/app.js").status_code == 200


def test_the_api_docs_load_their_scripts_from_this_server(client: Any) -> None:
    for page_path in ("/docs", "/redoc"):
        page = client.get(page_path)
        assert page.status_code == 200, page_path
        sources = re.findall(r"""(?:src|href)=["']([^"']+)["']""", page.text)
        assets = [s for s in sources if s.endswith((".js", ".css"))]
        assert assets, page.text
        for asset in assets:
            assert asset.startswith("/"), (page_path, asset)  # nothing from a CDN
            assert client.get(asset).status_code == 200, asset


# --- a server's life: its store, its sweeps, its workers ---------------------------------------


def test_a_server_with_a_store_replays_its_games(stored: tuple[Path, str, list[GameRecord]]) -> None:
    path, tournament, records = stored
    settings = ServeSettings(agent_workers=1, db=str(path))
    with TestClient(create_app(settings)) as replaying:
        assert replaying.get("/api/meta").json()["replay"] is True
        listed = replaying.get("/api/replay").json()["tournaments"]
        assert [t["id"] for t in listed] == [tournament]
        games = replaying.get(f"/api/replay/{quote(tournament, safe='')}").json()
        assert [g["index"] for g in games["games"]] == [0, 1]
        assert {row["player"] for row in games["standings"]} == {"greedy", "random"}
        game = replaying.get(f"/api/replay/{quote(tournament, safe='')}/1").json()
        assert game["moves"] == list(records[1].moves)


def _registered(path: Path, *configs: TournamentConfig) -> list[str]:
    with Store(path) as store:
        return [store.register_tournament(config) for config in configs]


def test_tournaments_alike_but_for_their_clock_or_sharing_a_name_are_told_apart(tmp_path: Path) -> None:
    path = tmp_path / "arena.sqlite"
    specs = ("alphabeta:depth=2", "mcts:iters=50", "greedy")
    ids = _registered(
        path,
        TournamentConfig(specs, 1, "quixo"),
        TournamentConfig(specs, 1, "quixo", time_control="10+0.1"),
        TournamentConfig(specs, 1, "quixo", time_control="60"),
        TournamentConfig(specs, 1, "quixo", openings=(("a1e1",), ("b1b5",))),
        TournamentConfig(("greedy", "random"), 1, "tictactoe", name="class quixo"),
        TournamentConfig(("greedy", "random"), 1, "nim", name="class quixo", pairing="gauntlet"),
        TournamentConfig(("greedy", "random"), 1, "nim", name="the only one"),
    )
    labels = [t["label"] for t in Replays(path).tournaments()]
    assert len(set(labels)) == len(labels) == 7
    names = " vs ".join(specs)
    assert labels[:4] == [
        f"{names} (quixo, openings 2 plies at random, 0 games, id {ids[0]})",
        f"{names} (quixo, openings 2 plies at random, clock 10+0.1, 0 games, id {ids[1]})",
        f"{names} (quixo, openings 2 plies at random, clock 60, 0 games, id {ids[2]})",
        f"{names} (quixo, openings a suite of 2, 0 games, id {ids[3]})",
    ]
    assert labels[5] == f"class quixo (nim, gauntlet, openings 2 plies at random, 0 games, id {ids[5]})"
    with TestClient(create_app(ServeSettings(agent_workers=1, db=str(path)))) as client:
        listed = client.get("/api/replay").json()["tournaments"]
        assert [t["label"] for t in listed] == labels
        by_name = client.get("/api/replay/the%20only%20one")
        assert by_name.status_code == 200, by_name.text
        assert by_name.json()["tournament"]["id"] == ids[6] and by_name.json()["games"] == []
        by_id = client.get(f"/api/replay/{ids[6]}").json()
        assert by_id == by_name.json()
        for shared in ("/api/replay/class%20quixo", "/api/replay/class%20quixo/0"):
            both = client.get(shared)
            assert both.status_code == 409
            assert both.json()["detail"] == (
                f"2 tournaments are named 'class quixo'; give one of their ids: {ids[4]}, {ids[5]}"
            )
        unknown = client.get("/api/replay/class%20chess")
        assert unknown.status_code == 404
        assert (
            unknown.json()["detail"] == "no tournament 'class chess' in the store (give its id or its name)"
        )


def test_a_stored_game_is_found_by_its_tournaments_name(stored: tuple[Path, str, list[GameRecord]]) -> None:
    path, tournament, records = stored
    with TestClient(create_app(ServeSettings(agent_workers=1, db=str(path)))) as client:
        game = client.get("/api/replay/replays/1").json()
        assert game["tournament"] == tournament and game["moves"] == list(records[1].moves)
        for odd in ("%00", "x" * 5000, "%F0%9F%8E%B2", "a%2Fb", "..", "%20", "replays%0A", "-1"):
            for path_tail in (odd, f"{odd}/0", f"{odd}/-1", f"{odd}/{2**70}"):
                answer = client.get(f"/api/replay/{path_tail}")
                assert 400 <= answer.status_code < 500, (path_tail, answer.status_code, answer.text)


def test_a_stored_games_index_out_of_range_is_said_in_plain_words(
    stored: tuple[Path, str, list[GameRecord]],
) -> None:
    path, _, records = stored
    with TestClient(create_app(ServeSettings(agent_workers=1, db=str(path)))) as client:
        for index in ("-1", "abc", "1.5"):
            answer = client.get(f"/api/replay/replays/{index}")
            assert answer.status_code == 422
            assert answer.json() == {
                "detail": f"index must be a whole number ≥ 0, got {index}",
                "field": "index",
            }
        beyond = client.get(f"/api/replay/replays/{len(records)}")
        assert beyond.status_code == 404 and beyond.json()["detail"].endswith(f"has no game {len(records)}")


def test_idle_games_are_swept_while_nobody_asks(
    hand_clock: _HandClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(app_module, "SWEEP_SECONDS", 0.02)
    hall = HallSettings(idle_seconds=60)
    with TestClient(create_app(ServeSettings(hall=hall, agent_workers=1))) as idle:
        view = new(idle, game="nim", sides=[None, None])
        hand_clock.sleep(61)
        games = idle.app.state.boardlab["hall"]
        deadline = time.monotonic() + 20
        while len(games) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert idle.get(f"/api/games/{view['id']}").status_code == 404


def test_the_workers_stop_with_the_server(monkeypatch: pytest.MonkeyPatch) -> None:
    pools: list[Any] = []

    def recorded(size: int) -> Any:
        pools.append(think_pool(size))
        return pools[-1]

    monkeypatch.setattr(app_module, "think_pool", recorded)
    with TestClient(create_app(ServeSettings(agent_workers=2))) as running:
        assert running.get("/api/meta").status_code == 200
    processes = [slot.process for pool in pools for slot in pool._slots]
    assert len(processes) == 3
    for process in processes:
        process.join(10)
    assert not any(process.is_alive() for process in processes)


# --- the bounds on each request, over a real connection ------------------------------------------


async def _count_the_body(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """An app that reads the whole body and answers with its length."""
    if scope["type"] != "http":
        return
    size, more = 0, True
    while more:
        message = await receive()
        size += len(message.get("body", b""))
        more = message.get("more_body", False)
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/plain")]})
    await send({"type": "http.response.body", "body": str(size).encode()})


def _slowly(chunks: list[bytes]) -> Iterator[bytes]:
    """The chunks with a pause between them, so that the server reads them one by one."""
    for index, chunk in enumerate(chunks):
        if index:
            time.sleep(0.05)
        yield chunk


def _post(url: str, chunks: list[bytes], chunked: bool) -> tuple[int, bytes]:
    host, port = url.removeprefix("http://").split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=30)
    try:
        if chunked:
            headers = {"Transfer-Encoding": "chunked"}
            connection.request("POST", "/", body=_slowly(chunks), headers=headers, encode_chunked=True)
        else:
            connection.request("POST", "/", body=b"".join(chunks))
        reply = connection.getresponse()
        return reply.status, reply.read()
    finally:
        connection.close()


def test_a_body_is_bounded_at_its_limit_declared_or_sent_in_chunks() -> None:
    limit = app_module.MAX_BODY_BYTES
    with running_server(app_module.Bounded(_count_the_body)) as url:
        for chunked in (False, True):
            assert _post(url, [b"x" * (limit // 2)] * 2, chunked) == (200, str(limit).encode())
            status, answer = _post(url, [b"x" * (limit // 2 + 1)] * 2, chunked)
            assert status == 413 and b"at most" in answer
        # no chunk alone is over the limit: the bytes received are counted together
        status, _ = _post(url, [b"x" * 40_000] * 4, chunked=True)
        assert status == 413


def _asked(app: Any) -> list[dict[str, Any]]:
    """What ``app`` sent for a GET without a body, through the request bounds."""
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    asyncio.run(app_module.Bounded(app)({"type": "http", "headers": []}, receive, send))
    return sent


def test_a_request_over_its_time_is_answered_429(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(app_module, "REQUEST_SECONDS", 0.05)

    async def hangs(scope: Any, receive: Any, send: Any) -> None:
        await asyncio.sleep(30)

    sent = _asked(hangs)
    assert [m["type"] for m in sent] == ["http.response.start", "http.response.body"]
    assert sent[0]["status"] == 429
    assert json.loads(sent[1]["body"]) == {"detail": "the request took longer than 0.05 s"}

    async def answers_then_hangs(scope: Any, receive: Any, send: Any) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await asyncio.sleep(30)

    started = _asked(answers_then_hangs)  # an answer under way is not answered again
    assert [(m["type"], m.get("status")) for m in started] == [("http.response.start", 200)]


# --- review: one move of a game at a time, judged as boardlab review judges it --------------------


def _random_moves(game: str, seed: int) -> list[str]:
    rng, state, moves = random.Random(seed), parse_game(game).initial(), []
    while not state.is_over:
        move = str(rng.choice(state.legal_moves()))
        moves.append(move)
        state = state.play(move)
    return moves


def _summed(tallies: list[dict[str, Any] | None]) -> dict[str, int]:
    fields = ("moves", "kept", "exact", "won", "thrown", "drawn", "lost")
    return {field: sum(t[field] for t in tallies if t is not None) for field in fields}


@pytest.mark.parametrize(
    ("game", "seed"),
    [
        ("tictactoe", 0),
        ("tictactoe", 1),
        ("tictactoe", 5),
        ("quixo:size=3", 0),
        ("quixo:size=3,ply_cap=6", 2),
    ],
)
def test_the_review_of_every_move_is_boardlab_reviews(client: Any, game: str, seed: int) -> None:
    moves = _random_moves(game, seed)
    expected = review_game(parse_game(game).initial(), moves, judge_for(game), opening=1)
    body = {"game": game, "moves": ",".join(moves), "opening": 1}
    answers = []
    for number in range(1, len(moves) + 1):
        reply = client.post("/api/review", json={**body, "number": number})
        assert reply.status_code == 200, reply.json()
        answers.append(reply.json())
    tallies = [answer.pop("tally") for answer in answers]
    assert {answer.pop("cached") for answer in answers} == {False}
    assert answers == [move.to_json() for move in expected.moves]
    assert answers[0]["why"] == "the arena's opening" and tallies[0] is None
    for side in (0, 1):
        mine = [t for t, m in zip(tallies, expected.moves, strict=True) if m.mover == side]
        assert _summed(mine) == _summed([expected.tallies[side].to_json()])
    again = client.post("/api/review", json={**body, "number": len(moves)}).json()
    assert again["cached"] is True and again["verdict"] == expected.moves[-1].verdict.value


@pytest.mark.parametrize(
    ("body", "status", "words"),
    [
        ({"game": "tictactoe", "moves": "b2", "number": 2}, 400, "number 2: the game has 1 move"),
        ({"game": "tictactoe", "moves": "b2", "number": 0}, 422, "number must be a whole number from 1"),
        ({"game": "tictactoe", "moves": "", "number": 1}, 422, "moves:"),
        ({"game": "tictactoe", "number": 1}, 422, "moves:"),
        (
            {"game": "tictactoe", "moves": "b2", "number": 1, "opening": -1},
            422,
            "opening must be a whole number from 0",
        ),
        ({"game": "tictactoe", "moves": "b2 b2", "number": 1}, 400, "move 2 (b2)"),
        ({"game": "tictactoe", "moves": "a1 b1 a2 b2 a3 c3", "number": 1}, 400, "move 6 (c3)"),
        ({"game": "tictactoe", "moves": "b2", "number": 1, "position": "X"}, 400, ""),
        ({"game": "chess", "moves": "e4", "number": 1}, 400, "chess"),
        ({"game": "tictactoe", "moves": "b2", "number": 1, "seconds": 99}, 400, "analysis time must be in"),
        ({"game": "tictactoe", "moves": "b2," * 2000, "number": 1}, 422, "moves:"),
        ({"game": "tictactoe", "moves": "b2", "number": 2**40}, 422, "number must be a whole number from 1"),
        ({"game": "tictactoe", "moves": "b2", "number": 1, "seconds": 0}, 422, "seconds:"),
        (
            {"game": "tictactoe", "moves": "b2", "number": 1, "opening": 1, "seconds": 99},
            400,
            "analysis time",
        ),
    ],
)
def test_a_bad_review_request_is_refused_in_one_line(
    client: Any, body: dict[str, Any], status: int, words: str
) -> None:
    reply = client.post("/api/review", json=body)
    assert reply.status_code == status, reply.json()
    detail = reply.json()["detail"]
    assert words in detail and "\n" not in detail


def _reviewing(request: dict[str, Any]) -> dict[str, Any]:
    if request["kind"] == "exact":
        return _exact(request)
    state = parse_game(request["game"]).parse_position(request["position"])
    reviewed, tally = review_move(state, request["move"], judge_for(request["game"]))
    return {"review": reviewed.to_json(), "tally": None if tally is None else tally.to_json()}


def test_a_review_overrun_is_not_judged_and_earlier_positions_are_passed_over() -> None:
    exact = _Pool(_raise(Overrun("no answer within 1 s")))
    analyst = Analyst(exact, _Pool(_search), seconds=1.0, agent="greedy")
    deep = analyst.review(_after("connect4", "4", "4", "4"), "4")
    assert (deep["verdict"], deep["why"], deep["tally"]) == (
        "not judged",
        "the judge took longer than 1 s",
        None,
    )
    earlier = analyst.review(_after("connect4", "4", "4"), "3")
    assert earlier["why"] == "a position at ply 3 already took longer than 1 s"
    assert (earlier["ply"], earlier["mover"], earlier["move"]) == (2, 0, "3")
    beside = analyst.review(_after("connect4", "4", "4", "4"), "3")  # the same ply, another move
    assert beside["why"] == "a position at ply 3 already took longer than 1 s"
    assert exact.kinds("review") == 1
    longer = analyst.review(_after("connect4", "4", "4"), "3", seconds=2.0)  # a budget of its own
    assert longer["why"] == "the judge took longer than 2 s" and exact.kinds("review") == 2
    opening = analyst.review(_after("connect4", "4", "4", "4", "4"), "5", opening=True)
    assert opening["why"] == "the arena's opening" and exact.kinds("review") == 2
    broken = Analyst(_Pool(_raise(ThinkError("solver broke"))), _Pool(_search)).review(
        _after("tictactoe"), "b2"
    )
    assert (broken["verdict"], broken["why"]) == ("not judged", "solver broke")
    with pytest.raises(WebInputError, match="every worker is busy") as refused:
        Analyst(_Pool(_raise(Busy("every worker is busy"))), _Pool(_search)).review(_after("tictactoe"), "b2")
    assert refused.value.status == 429
    with pytest.raises(WebInputError, match=r"analysis time must be in \(0, 30\]"):
        analyst.review(_after("tictactoe"), "b2", seconds=31.0)


def test_a_reviewed_move_is_written_in_the_games_notation(client: Any) -> None:
    body = {"game": "tictactoe", "moves": "B2,A1", "number": 2}
    for opening in (0, 2):  # judged, and not judged (the arena's opening)
        answer = client.post("/api/review", json={**body, "opening": opening}).json()
        assert answer["move"] == "a1" and (answer["verdict"] == "not judged") == (opening == 2)


def test_a_review_is_the_workers_answer_kept_by_position_move_and_budget() -> None:
    exact = _Pool(_reviewing)
    analyst = Analyst(exact, _Pool(_search))
    state = _after("tictactoe", "b2")
    answer = analyst.review(state, "a2")
    assert answer["verdict"] == "loses the draw" and answer["tally"]["lost"] == 1
    assert exact.asked[-1] == {
        "kind": "review",
        "game": "tictactoe",
        "position": state.to_text(),
        "move": "a2",
    }
    assert analyst.review(state, "a2")["cached"] and not analyst.review(state, "a1")["cached"]
    assert not analyst.review(state, "a2", seconds=1.0)["cached"]
    assert analyst.analyze(state)["cached"] is False  # an analysis of the position is its own answer
    assert exact.kinds("review") == 3


def test_a_worker_without_exact_play_for_a_game_says_why_each_move_is_not_judged() -> None:
    worker = AgentWorker()
    worker.kept["exact:tictactoe"] = "no exact play here"
    state = _after("tictactoe", "b2")
    said_moves: list[dict[str, Any]] = []
    answer = workers.review(
        worker, {"game": "tictactoe", "position": state.to_text(), "move": "a1"}, said_moves.append
    )
    assert answer["tally"] is None and said_moves == [{"started": True}]
    assert (answer["review"]["verdict"], answer["review"]["why"]) == ("not judged", "no exact play here")
    worker.kept.clear()  # the game's exact play opened in the worker: judged as boardlab review does
    request = {"kind": "review", "game": "tictactoe", "position": state.to_text(), "move": "a1"}
    assert workers.review(worker, request, said_moves.append) == _reviewing(request)


# --- game clocks ------------------------------------------------------------------------------


def test_a_clocked_games_view_carries_the_time_control_and_each_sides_clock(client: Any) -> None:
    view = new(client, game="tictactoe", sides=[None, "greedy"], time_control=" 60+1 ")
    assert view["time_control"] == "60+1" and view["clock_running"] == 0
    assert view["clock_left"][1] == 60 and 0 < view["clock_left"][0] <= 60
    client.post(f"/api/games/{view['id']}/move", json={"move": "b2"})
    view = settle(client, view["id"])
    mine, agents = (move["seconds"] for move in view["moves"])
    assert mine is not None and agents is not None  # the person's move was charged too
    assert view["clock_left"][1] == pytest.approx(60 + 1 - agents, abs=1e-3)
    assert view["clock_running"] == 0 and view["clock_left"][0] <= 60 + 1 - mine
    assert view["clock_moves_to_go"] == [None, None]  # the base is for the whole game
    periods = new(client, game="tictactoe", sides=[None, None], time_control="2/30")
    assert (periods["time_control"], periods["clock_moves_to_go"]) == ("2/30", [2, 2])
    for move in ("b2", "a1", "c3"):
        client.post(f"/api/games/{periods['id']}/move", json={"move": move})
    periods = client.get(f"/api/games/{periods['id']}").json()
    assert periods["clock_moves_to_go"] == [2, 1] and periods["clock_left"][0] > 30  # a new period
    periods = client.post(f"/api/games/{periods['id']}/undo").json()  # back across the period's end
    assert periods["clock_moves_to_go"] == [1, 1] and periods["clock_left"][0] <= 30
    resumed = new(client, game="tictactoe", sides=[None, None], moves="b2 a1", time_control="2/30")
    assert resumed["clock_moves_to_go"] == [2, 2]  # the moves it started from were on no clock
    plain = new(client, game="tictactoe", sides=[None, None])
    assert (plain["time_control"], plain["clock_left"], plain["clock_running"]) == (None, None, None)
    assert plain["clock_moves_to_go"] is None
    client.post(f"/api/games/{plain['id']}/move", json={"move": "b2"})
    assert client.get(f"/api/games/{plain['id']}").json()["moves"][0]["seconds"] is None  # as before


@pytest.mark.parametrize("clock", ["fast", "0", "60+-1", "1e9", "+5", "0/60", "40/"])
def test_a_bad_clock_is_refused_in_one_line(client: Any, clock: str) -> None:
    reply = client.post("/api/games", json={"game": "nim", "time_control": clock})
    assert reply.status_code == 400 and "BASE, BASE+INCREMENT or MOVES/BASE" in reply.json()["detail"]
    assert "\n" not in reply.json()["detail"]
    assert client.post("/api/games", json={"time_control": "1" * 41}).status_code == 422


def _clocked(sides: tuple[str | None, str | None], control: str, pool: Any = None) -> WebGame:
    start = parse_game("tictactoe").initial()
    return WebGame(
        "g", start, [], sides, 1.0, pool or _Pool(_search), 0, time_control=TimeControl.parse(control)
    )


def _agents_move(web_game: WebGame) -> None:
    web_game.running = True
    web_game.agent_turns(pace=0.0)


def test_a_persons_move_is_charged_and_one_past_their_clock_loses_on_time(hand_clock: _HandClock) -> None:
    web_game = _clocked((None, "random"), "10+1")
    hand_clock.sleep(3.0)
    web_game.play("b2")
    _agents_move(web_game)
    assert [m["seconds"] for m in web_game.view["moves"]] == [3.0, 0.01]
    hand_clock.sleep(2.0)
    assert web_game.snapshot()["clock_left"] == [6.0, 10.99]  # 10 - 3 + 1, less the 2 s running
    hand_clock.sleep(6.5)
    web_game.play("c3")  # 8.5 s with 8 s left: too late, not played
    view = web_game.snapshot()
    assert view["outcome"] == {
        "winner": 1,
        "reason": "time",
        "detail": "X took 8.5 s with 8.0 s left on its clock",
    }
    assert view["outcome_text"] == "O wins (on time: X took 8.5 s with 8.0 s left on its clock)"
    assert len(view["moves"]) == 2 and view["clock_left"] == [0.0, 10.99] and view["clock_running"] is None
    with pytest.raises(WebInputError, match="the game is over"):
        web_game.play("c3")


def test_a_persons_clock_that_runs_out_is_flagged_at_the_next_look(hand_clock: _HandClock) -> None:
    web_game = _clocked((None, None), "5")
    hand_clock.sleep(4.0)
    assert web_game.snapshot()["clock_left"] == [1.0, 5.0]
    hand_clock.sleep(1.0)  # the whole clock used, not past it: still in time
    view = web_game.snapshot()
    assert view["outcome"] is None and view["clock_left"] == [0.0, 5.0] and view["clock_running"] == 0
    hand_clock.sleep(0.5)
    view = web_game.snapshot()  # what the page's polling or its clock reaching zero asks
    assert view["outcome"] == {
        "winner": 1,
        "reason": "time",
        "detail": "X made no move in the 5.0 s left on its clock",
    }
    assert view["clock_left"] == [0.0, 5.0] and not view["can_undo"]


def test_undo_gives_the_time_back_and_starts_the_persons_turn_again(hand_clock: _HandClock) -> None:
    web_game = _clocked((None, "random"), "10")
    hand_clock.sleep(3.0)
    web_game.play("b2")
    _agents_move(web_game)
    hand_clock.sleep(2.0)
    web_game.undo()
    assert web_game.snapshot()["clock_left"] == [10.0, 10.0]
    hand_clock.sleep(1.0)
    assert web_game.snapshot()["clock_left"] == [9.0, 10.0]


def test_agents_play_on_their_clock_and_are_waited_for_what_is_left(hand_clock: _HandClock) -> None:
    pool = _Pool(_search)
    web_game = _clocked(("random", None), "2+0.5", pool)
    _agents_move(web_game)
    limit = Limit(**pool.asked[-1]["limit"])  # as the worker rebuilds it
    # its clock and increment, and the server's bound per move in place of the page's think
    assert limit == Limit(time=HallSettings.max_think, clock=2.0, increment=0.5)
    assert pool.waits == [2.0]  # the watchdog waits for what is left on the clock (and a grace)
    assert web_game.snapshot()["clock_left"] == [2.49, 2.0]


def test_an_agent_over_its_clock_or_stopped_at_it_loses_on_time(hand_clock: _HandClock) -> None:
    def slow(request: dict[str, Any]) -> dict[str, Any]:
        return {**_search(request), "seconds": 2.5}

    web_game = _clocked(("random", None), "2", _Pool(slow))
    _agents_move(web_game)
    assert web_game.view["outcome"] == {
        "winner": 1,
        "reason": "time",
        "detail": "took 2.50 s with 2.00 s left",
    }

    def hung(request: dict[str, Any]) -> dict[str, Any]:
        hand_clock.sleep(2.5)  # the pool waited the clock and its grace out, then stopped it
        raise Overrun("no answer within 2 s (stopped)")

    web_game = _clocked(("random", None), "2", _Pool(hung))
    _agents_move(web_game)
    assert web_game.view["outcome"]["reason"] == "time"
    assert web_game.view["outcome_text"] == "O wins (random loses on time: no answer within 2 s (stopped))"


def test_an_agent_on_a_clock_in_a_worker_thinks_its_share_not_its_own_time(client: Any) -> None:
    # mcts:time=4 would think 4 s a move on its own: on a 2 s clock it must share the clock out
    view = settle(client, new(client, game="tictactoe", sides=["mcts:time=4", None], time_control="2")["id"])
    assert view["outcome"] is None and len(view["moves"]) == 1
    assert view["clock_left"][0] == pytest.approx(2 - view["moves"][0]["seconds"], abs=1e-3)


@pytest.mark.parametrize("action", ["undo", "resign"])
def test_an_undo_or_resignation_past_the_clock_is_a_loss_on_time(hand_clock: _HandClock, action: str) -> None:
    # an undo would give the time back, and a resignation would hide the loss on time
    web_game = _clocked((None, "random"), "10")
    hand_clock.sleep(3.0)
    web_game.play("b2")
    _agents_move(web_game)
    hand_clock.sleep(8.0)  # with 7 s left
    with pytest.raises(WebInputError, match="the game is over"):
        getattr(web_game, action)()
    view = web_game.snapshot()
    assert view["outcome"] == {
        "winner": 1,
        "reason": "time",
        "detail": "X made no move in the 7.0 s left on its clock",
    }
    assert len(view["moves"]) == 2


def test_an_agent_on_a_clock_has_the_servers_bound_per_move_not_the_pages(hand_clock: _HandClock) -> None:
    def slow(request: dict[str, Any]) -> dict[str, Any]:
        return {**_search(request), "seconds": 12.0}  # more than an agent given 1 s a move may take

    web_game = _clocked(("random", None), "60", _Pool(slow))
    _agents_move(web_game)
    assert web_game.view["outcome"] is None and web_game.snapshot()["clock_left"] == [48.0, 60.0]
    pool = _Pool(_search)
    hall = Hall(pool, HallSettings(max_think=2.0))  # a server started with --max-think 2
    try:
        bounded = hall.create("tictactoe", (None, "random"), time_control="60")
        bounded.play("b2")
        _agents_move(bounded)
    finally:
        hall.close()
    assert Limit(**pool.asked[-1]["limit"]) == Limit(time=2.0, clock=60.0, increment=0.0)


def test_an_agents_clock_runs_while_it_thinks_and_stops_at_zero(hand_clock: _HandClock) -> None:
    looks: list[list[float]] = []

    def thinking(request: dict[str, Any]) -> dict[str, Any]:
        hand_clock.sleep(3.0)
        looks.append(web_game.snapshot()["clock_left"])  # the page polling while the agent thinks
        hand_clock.sleep(9.0)
        looks.append(web_game.snapshot()["clock_left"])
        return {**_search(request), "seconds": 12.0}

    web_game = _clocked(("random", None), "10", _Pool(thinking))
    _agents_move(web_game)
    assert looks == [[7.0, 10.0], [0.0, 10.0]]
    assert web_game.view["outcome"]["reason"] == "time"


def test_an_agent_not_yet_thinking_is_not_flagged_by_a_look(hand_clock: _HandClock) -> None:
    # the hall's threads all busy: its move has not started, and its clock only counts thinking
    web_game = _clocked(("random", None), "2")
    hand_clock.sleep(5.0)
    view = web_game.snapshot()
    assert view["outcome"] is None and view["clock_left"] == [2.0, 2.0]
    _agents_move(web_game)
    assert web_game.view["outcome"] is None and len(web_game.view["moves"]) == 1


def test_a_bad_clock_is_refused_before_the_rest_of_a_new_game(client: Any) -> None:
    # the page drops a refused clock first when the refusal names it, then what else is wrong
    body = {"game": "nim", "sides": [None, "random:depth=3"], "moves": "zzz", "time_control": "soon"}
    reply = client.post("/api/games", json=body)
    assert reply.status_code == 400 and "a time control is BASE" in reply.json()["detail"]
