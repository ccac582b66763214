"""The FastAPI application behind ``boardlab serve``: a JSON API and the one static page.

Every answer the page needs comes from the API (its OpenAPI schema is at ``/openapi.json``,
browsable at ``/docs``); the server alone decides what is legal. Input is checked before any
work: a bad body, game, position, move or agent spec gets a 4xx with a one-line ``detail``.
Each request has a time limit (:data:`REQUEST_SECONDS`) and a body size limit
(:data:`MAX_BODY_BYTES`); agents and solvers run in worker processes
(:mod:`boardlab.ui.web.workers`), so the server answers while they think.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Annotated, Any

from fastapi import FastAPI, Request
from fastapi import Path as PathParam
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from fastapi_offline import FastAPIOffline
from pydantic import BaseModel, Field
from starlette.exceptions import HTTPException as StarletteHTTPException

from boardlab.agents.base import list_agents
from boardlab.core.console import counted
from boardlab.core.spec import format_value, one_line, options_of, shorten
from boardlab.games import available_games, parse_game
from boardlab.ui.search_analysis import SEARCH_AGENT
from boardlab.ui.web.analysis import Analyst
from boardlab.ui.web.boards import DRAWN
from boardlab.ui.web.hall import Hall, HallSettings, WebInputError, blamed, check_game, start_position
from boardlab.ui.web.replay import Replays
from boardlab.ui.web.workers import think_pool

DOCS_ASSETS = "/docs-assets"
"""Where the scripts and styles of ``/docs`` and ``/redoc`` are served."""
REQUEST_SECONDS = 60.0
"""Most seconds one request may take before the server answers 429."""
MAX_BODY_BYTES = 64 * 1024
SWEEP_SECONDS = 30.0
"""How often idle games are looked for."""
SPEC_CHARS = 200
TEXT_CHARS = 4000


@dataclass(frozen=True)
class ServeSettings:
    """Everything a server is started with (the ``serve`` command's options)."""

    hall: HallSettings = field(default_factory=HallSettings)
    agent_workers: int = 2
    analysis_workers: int = 1
    analysis_seconds: float = 2.0
    analysis_agent: str = SEARCH_AGENT
    """The agent whose decision the analysis shows where no exact play answers."""
    db: str | None = None


# --- request bodies -----------------------------------------------------------------------

Spec = Annotated[str, Field(min_length=1, max_length=SPEC_CHARS)]
Seconds = Annotated[
    float,
    Field(
        gt=0,
        le=3600,
        allow_inf_nan=False,
        description="seconds, at most the server's --max-think (max_think in GET /api/meta)",
    ),
]
"""A time in seconds; the OpenAPI schema gives the server's own bound (see :func:`served_schema`)."""


class NewGame(BaseModel):
    """A game to start: the game spec, who plays each side (an agent spec, or null for a
    person), the agents' thinking time per move, where it starts, and its game clock
    (``BASE``, ``BASE+INC`` or ``MOVES/BASE[+INC]`` seconds a side, as ``--tc`` reads it;
    empty: no clock), which
    replaces the agents' thinking time per move."""

    game: Spec = "quixo"
    sides: Annotated[list[Spec | None], Field(min_length=2, max_length=2)] = [None, "greedy"]
    think: Seconds = 1.0
    position: Annotated[str, Field(max_length=TEXT_CHARS)] = ""
    moves: Annotated[str, Field(max_length=TEXT_CHARS)] = ""
    seed: Annotated[int | None, Field(ge=0, lt=2**31)] = None
    time_control: Annotated[str, Field(max_length=40)] = ""


class MoveBody(BaseModel):
    """A person's move in the game's notation; ``ply``, where given, the number of moves on the
    board it was chosen on: a game that has moved on since (played on another page too) refuses
    it (409)."""

    move: Annotated[str, Field(min_length=1, max_length=40)]
    ply: Annotated[int | None, Field(ge=0, le=100_000)] = None


class AnalysisBody(BaseModel):
    """A position to analyse (the game's text notation, or moves from the start) within a
    budget; ``agent`` names the agent whose decision is shown (default: exact values where
    known, else alpha-beta)."""

    game: Spec = "quixo"
    position: Annotated[str, Field(max_length=TEXT_CHARS)] = ""
    moves: Annotated[str, Field(max_length=TEXT_CHARS)] = ""
    seconds: Seconds | None = None
    agent: Annotated[str | None, Field(max_length=SPEC_CHARS)] = None


class ReviewBody(BaseModel):
    """One move of a game to judge against perfect play, as ``boardlab review`` judges it: the
    game, the position its moves start from (the game's text notation; empty: the start), its
    moves (as for an analysis), which of them to judge (``number``: 1 for the first), how many of
    the first moves were an arena's opening (not judged), and the budget (the server's
    analysis time by default)."""

    game: Spec = "quixo"
    position: Annotated[str, Field(max_length=TEXT_CHARS)] = ""
    moves: Annotated[str, Field(min_length=1, max_length=TEXT_CHARS)]
    number: Annotated[int, Field(ge=1, le=TEXT_CHARS)]
    opening: Annotated[int, Field(ge=0, le=TEXT_CHARS)] = 0
    seconds: Seconds | None = None


# --- the page's metadata ------------------------------------------------------------------


def _option(option: Any) -> dict[str, Any]:
    info = option.info
    return {
        "name": option.name,
        "type": option.type_name,
        "default": format_value(option.default),
        "choices": [format_value(c) for c in info.choices],
        "minimum": info.minimum,
        "maximum": info.maximum,
        "help": info.help,
    }


def meta(settings: ServeSettings) -> dict[str, Any]:
    """The games and agents the page offers, and the server's bounds."""
    games = []
    for name in available_games():
        game = parse_game(name)
        games.append(
            {
                "name": name,
                "title": type(game).display_name or game.title,
                "drawn": name in DRAWN,
                "options": [_option(o) for o in options_of(type(game))],
                "notation": game.notation_help,
            }
        )
    agents = [
        {
            "name": cls.name,
            "summary": cls.summary,
            "games": list(cls.games),
            "options": [_option(o) for o in options_of(cls.Settings)],
        }
        for cls in list_agents()
    ]
    hall = settings.hall
    return {
        "games": games,
        "agents": agents,
        "max_think": hall.max_think,
        "analysis_seconds": settings.analysis_seconds,
        "allow_paths": hall.allow_paths,
        "replay": settings.db is not None,
    }


# --- the app ------------------------------------------------------------------------------


def _error(status: int, message: str, field: str | None = None) -> JSONResponse:
    """The answer to a refused request: its one-line ``detail`` and, where one field of the body
    is at fault, that ``field`` (``think``, ``sides.1``)."""
    body: dict[str, Any] = {"detail": shorten(one_line(message), 300)}
    if field:
        body["field"] = field
    return JSONResponse(body, status_code=status)


PATH_WORDS = {"index": "a whole number ≥ 0"}
"""What a number in a path must be, in words (pydantic's say "Input should be ...")."""
WHOLE_NUMBERS = {
    "seed": (0, 2**31 - 1),
    "number": (1, TEXT_CHARS),
    "opening": (0, TEXT_CHARS),
    "ply": (0, 100_000),
}
"""The whole-number fields of the bodies and their bounds, said in words when a value is refused
(pydantic's words for 1e30 are "Unable to parse input string as an integer")."""
WHOLE_NUMBER_ERRORS = (
    "int_type",
    "int_parsing",
    "int_parsing_size",
    "int_from_float",
    "greater_than",
    "greater_than_equal",
    "less_than",
    "less_than_equal",
)


def _is_json(content_type: str) -> bool:
    """Whether a request's content type is one FastAPI reads as JSON (none is not: FastAPI reads
    a body without one as bytes)."""
    kind = content_type.split(";")[0].strip().lower()
    return kind == "application/json" or (kind.startswith("application/") and kind.endswith("+json"))


def not_utf8(body: bytes) -> str | None:
    """Where ``body`` is not UTF-8 text, in words (JSON is read as UTF-8); None where it is."""
    try:
        body.decode("utf-8")
    except UnicodeDecodeError as err:
        return f"the body is not UTF-8 text (byte 0x{body[err.start]:02x} at position {err.start})"
    return None


def validation_problem(
    err: RequestValidationError, content_type: str = "", body: bytes = b""
) -> tuple[str, str | None]:
    """The first problem of a body or path FastAPI refused, in one line, and the field it is
    about (None for the body as a whole): a body that is not JSON says where it breaks (one not
    UTF-8 says so, though Python's reader may have read it as UTF-16), one sent as another
    content type names that type, a whole number out of bounds says the bounds."""
    errors = err.errors()
    if not errors:
        return "invalid request", None
    first = errors[0]
    loc = [str(p) for p in first.get("loc", ())]
    if first.get("type") == "json_invalid" and not_utf8(body):
        return str(not_utf8(body)), None
    if first.get("type") == "json_invalid":
        reason = (first.get("ctx") or {}).get("error", "not JSON")
        at = f" at position {loc[1]}" if len(loc) > 1 and loc[0] == "body" else ""
        return f"the body is not valid JSON: {reason}{at}", None
    where = ".".join(p for p in loc if p not in ("body", "path", "query"))
    if loc[:1] == ["path"] and where in PATH_WORDS and first.get("type") != "less_than":
        return f"{where} must be {PATH_WORDS[where]}, got {first.get('input')}", where
    if not where and loc[:1] == ["body"] and not _is_json(content_type):
        sent = f", not {content_type}" if content_type.strip() else " (the request gave no content type)"
        return f"the body must be JSON, sent as content-type: application/json{sent}", None
    if loc[:1] == ["body"] and where in WHOLE_NUMBERS and first.get("type") in WHOLE_NUMBER_ERRORS:
        low, high = WHOLE_NUMBERS[where]
        got = shorten(str(first.get("input")), 40)
        return f"{where} must be a whole number from {low} to {high}, got {got}", where
    message = first.get("msg", "invalid")
    if first.get("type") == "finite_number":
        message = "a finite number is needed (not NaN or Infinity)"
    return f"{where or 'request'}: {message}", where or None


def _unreadable_body(cause: BaseException) -> str:
    """Why a body could not be read as JSON text (FastAPI's own words are only that it could not)."""
    if isinstance(cause, UnicodeDecodeError):  # read as UTF-8, or as UTF-16 or -32 its first bytes suggested
        said = not_utf8(bytes(cause.object))
        if said is not None:
            return said
        byte = cause.object[cause.start]
        return f"it is not {cause.encoding} text (byte 0x{byte:02x} at position {cause.start})"
    if isinstance(cause, RecursionError):
        return "it is nested too deeply"
    return one_line(str(cause)) or type(cause).__name__


BOUNDED_SECONDS = (("NewGame", "think"), ("AnalysisBody", "seconds"), ("ReviewBody", "seconds"))
"""The body fields in seconds that the server bounds by its ``--max-think``."""


REFUSAL_SCHEMA = {
    "title": "Refusal",
    "type": "object",
    "properties": {
        "detail": {"type": "string", "description": "why, in one line"},
        "field": {"type": "string", "description": "the field of the body (or path) at fault, where one is"},
    },
    "required": ["detail"],
}
"""What every refusal answers (FastAPI's schema says a list of errors for a 422)."""


def served_schema(schema: dict[str, Any], max_seconds: float) -> dict[str, Any]:
    """``schema`` (the app's OpenAPI schema) as the server answers: the server's bound on
    seconds as the ``maximum`` of each field of :data:`BOUNDED_SECONDS`, so that the schema
    promises no time the server refuses (the models' own bound is only a sanity ceiling), and a
    422's body as :data:`REFUSAL_SCHEMA`."""
    models = schema.get("components", {}).get("schemas", {})
    if "HTTPValidationError" in models:
        models["HTTPValidationError"] = dict(REFUSAL_SCHEMA)
    for model, name in BOUNDED_SECONDS:
        field_schema = models[model]["properties"][name]
        for part in (field_schema, *field_schema.get("anyOf", ())):
            if part.get("type") == "number":
                part["maximum"] = max_seconds
    return schema


def _warm_games() -> None:
    for name in available_games():
        with contextlib.suppress(Exception):
            state = parse_game(name).initial()
            state.play(state.legal_moves()[0]).to_json()


class BodyTooLarge(StarletteHTTPException):
    """A request body longer than :data:`MAX_BODY_BYTES`, found while it is read (413)."""

    def __init__(self) -> None:
        super().__init__(413, f"a request body is at most {MAX_BODY_BYTES} bytes")


class Bounded:
    """ASGI middleware bounding each request: a body of at most :data:`MAX_BODY_BYTES` (413) and
    at most :data:`REQUEST_SECONDS` of work (429 when no answer has started by then).

    A body's declared length is checked first; the bytes received are counted as well, so a body
    sent in chunks (no ``content-length``) is refused as soon as it passes the limit, unread
    beyond it."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        length = headers.get(b"content-length", b"0")
        if not length.isdigit() or int(length) > MAX_BODY_BYTES:
            await _error(413, BodyTooLarge().detail)(scope, receive, send)
            return
        started = False
        received = 0

        async def counted() -> dict[str, Any]:
            nonlocal received
            message: dict[str, Any] = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > MAX_BODY_BYTES:
                    raise BodyTooLarge()
            return message

        async def watched(message: dict[str, Any]) -> None:
            nonlocal started
            started = True
            await send(message)

        try:
            await asyncio.wait_for(self.app(scope, counted, watched), REQUEST_SECONDS)
        except BodyTooLarge as err:  # read outside a route (a route's handler answers it itself)
            if not started:
                await _error(413, err.detail)(scope, receive, send)
        except TimeoutError:
            if not started:
                await _error(429, f"the request took longer than {REQUEST_SECONDS:g} s")(scope, receive, send)


def create_app(settings: ServeSettings | None = None) -> FastAPI:
    """The server's app; its worker processes start with the app's lifespan."""
    settings = settings or ServeSettings()
    state: dict[str, Any] = {}

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        agents = think_pool(settings.agent_workers)
        thinkers = think_pool(settings.analysis_workers)
        hall = Hall(agents, settings.hall)
        state.update(
            hall=hall,
            analyst=Analyst(
                thinkers,
                agents,
                settings.analysis_seconds,
                settings.hall.max_think,
                settings.hall.allow_paths,
                settings.analysis_agent,
            ),
            replays=Replays(settings.db),
            meta=meta(settings),
        )

        # compile each game's rules in this process now, not in a player's first request
        warming = asyncio.create_task(asyncio.to_thread(_warm_games))

        async def sweep() -> None:
            while True:
                await asyncio.sleep(SWEEP_SECONDS)
                hall.sweep()

        sweeper = asyncio.create_task(sweep())
        try:
            yield
        finally:
            sweeper.cancel()
            warming.cancel()
            hall.close()
            agents.close()
            thinkers.close()

    # /docs and /redoc load their scripts from this server (fastapi-offline ships them), not from
    # a CDN: they work offline, as the page does
    app = FastAPIOffline(
        static_url=DOCS_ASSETS,
        title="boardlab",
        summary="Play, watch and analyse boardlab's games against its agents.",
        version="1",
        lifespan=lifespan,
    )
    app.state.boardlab = state
    app.add_middleware(Bounded)
    schema_of_routes = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            served_schema(schema_of_routes(), settings.hall.max_think)
        return app.openapi_schema  # type: ignore[return-value]

    app.openapi = openapi  # type: ignore[method-assign]

    @app.exception_handler(WebInputError)
    async def refused(request: Request, err: WebInputError) -> JSONResponse:
        return _error(err.status, str(err), err.field)

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, err: RequestValidationError) -> JSONResponse:
        body = b""
        with contextlib.suppress(Exception):  # read already (FastAPI keeps it), else not needed
            body = await request.body()
        return _error(422, *validation_problem(err, request.headers.get("content-type", ""), body))

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, err: StarletteHTTPException) -> JSONResponse:
        if err.status_code == 400 and err.__cause__ is not None:
            # FastAPI could not read the body as JSON text (bytes that are not UTF-8, say): a
            # malformed body, a 422 as a body that is not JSON is
            reason = _unreadable_body(err.__cause__)
            return _error(
                422, reason if reason.startswith("the body") else f"the body is not valid JSON: {reason}"
            )
        return _error(err.status_code, str(err.detail))

    static = Path(str(resources.files("boardlab.ui.web") / "static"))
    app.mount("/static", StaticFiles(directory=static), name="static")

    @app.get("/", include_in_schema=False)
    def page() -> FileResponse:
        return FileResponse(static / "index.html")

    @app.get("/api/meta", summary="The games, their options, the agents and the server's bounds")
    def get_meta() -> dict[str, Any]:
        return state["meta"]  # type: ignore[no-any-return]

    @app.post("/api/games", status_code=201, summary="Start a game")
    def new_game(body: NewGame) -> JSONResponse:
        hall: Hall = state["hall"]
        sides = (body.sides[0], body.sides[1])
        web_game = hall.create(
            body.game,
            sides,
            think=body.think,
            position=body.position,
            moves=body.moves,
            seed=body.seed,
            time_control=body.time_control,
        )
        return JSONResponse(web_game.snapshot(), status_code=201)

    @app.get("/api/games/{game_id}", summary="A game as it stands (poll it while an agent thinks)")
    async def get_game(game_id: str) -> JSONResponse:
        # on the event loop, without a thread: a snapshot never waits for a lock
        return JSONResponse(state["hall"].get(game_id).snapshot())

    @app.post("/api/games/{game_id}/move", summary="Play a person's move")
    def play_move(game_id: str, body: MoveBody) -> JSONResponse:
        hall: Hall = state["hall"]
        web_game = hall.get(game_id)
        web_game.play(body.move, body.ply)
        hall.start_agents(web_game)
        return JSONResponse(web_game.snapshot())

    @app.post("/api/games/{game_id}/undo", summary="Take back the person's last move")
    def undo(game_id: str) -> JSONResponse:
        hall: Hall = state["hall"]
        web_game = hall.get(game_id)
        web_game.undo()
        hall.start_agents(web_game)
        return JSONResponse(web_game.snapshot())

    @app.post("/api/games/{game_id}/resign", summary="The person resigns")
    def resign(game_id: str) -> JSONResponse:
        web_game = state["hall"].get(game_id)
        web_game.resign()
        return JSONResponse(web_game.snapshot())

    @app.post("/api/games/{game_id}/leave", summary="A page showing the game was left (kept, dropped first)")
    def leave(game_id: str) -> dict[str, Any]:
        state["hall"].leave(game_id)
        return {"left": game_id}

    @app.delete("/api/games/{game_id}", summary="Drop a game")
    def drop(game_id: str) -> dict[str, Any]:
        state["hall"].drop(game_id)
        return {"dropped": game_id}

    @app.post("/api/analysis", summary="Exact values of every move, or a search's evaluation")
    def analyse(body: AnalysisBody) -> dict[str, Any]:
        with blamed("game"):
            game = check_game(body.game)
        start, moves = start_position(game, body.position, body.moves)
        position = start
        for move in moves:
            position = position.play(position.parse_move(move))
        return state["analyst"].analyze(position, body.seconds, body.agent)  # type: ignore[no-any-return]

    @app.post("/api/review", summary="One move of a game judged against perfect play")
    def review(body: ReviewBody) -> dict[str, Any]:
        with blamed("game"):
            game = check_game(body.game)
        start, moves = start_position(game, body.position, body.moves)
        if body.number > len(moves):
            raise WebInputError(
                f"number {body.number}: the game has {counted(len(moves), 'move')}", field="number"
            )
        position = start
        for move in moves[: body.number - 1]:
            position = position.play(position.parse_move(move))
        analyst: Analyst = state["analyst"]
        return analyst.review(position, moves[body.number - 1], body.seconds, body.number <= body.opening)

    @app.get("/api/replay", summary="The tournaments of the arena store")
    def tournaments() -> dict[str, Any]:
        return {"tournaments": state["replays"].tournaments()}

    @app.get(
        "/api/replay/{tournament}",
        summary="A tournament (its id or name), its games and its standings",
    )
    def games(tournament: str) -> dict[str, Any]:
        replays: Replays = state["replays"]
        return {
            "tournament": replays.tournament(tournament),
            "games": replays.games(tournament),
            "standings": replays.standings(tournament),
        }

    @app.get(
        "/api/replay/{tournament}/{index}",
        summary="One stored game (of a tournament's id or name), position by position",
    )
    def replay(tournament: str, index: Annotated[int, PathParam(ge=0, lt=2**62)]) -> dict[str, Any]:
        return state["replays"].game(tournament, index)  # type: ignore[no-any-return]

    return app


__all__ = ["AnalysisBody", "MoveBody", "NewGame", "ReviewBody", "ServeSettings", "create_app", "meta"]
