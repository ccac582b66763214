"""One reading of a command's game arguments: a game spec, a ``--size`` option and a position.

``perft``, ``bench``, ``solve``, ``analyze`` and ``oracle`` all take a game spec (``--game
quixo:size=4``), some a ``--size`` shorthand for Quixo's board side, and some a position text
(whose Quixo board has a side of its own). Where two of them say different things, the command
is refused (one ``Error:`` line, exit 2, no work done) rather than one of them silently winning.
"""

from __future__ import annotations

from typing import Any

from boardlab.core.spec import SpecError, shorten, split_spec
from boardlab.games import Game, GameError, parse_game
from boardlab.ui.errors import fail

TABLES_DEFAULT_HELP = "default: $BOARDLAB_TABLES/quixoN or ~/.cache/boardlab/tables/quixoN, N the board side"
"""Where solved tables are looked for, as the ``--tables`` / ``--dir`` options' help says it."""
SIZED = "quixo"
"""The game whose board side ``--size`` gives."""
MAX_MOVES_TEXT = 100_000
"""Longest ``--moves`` text read (a few thousand moves)."""
MOVES_HELP = "moves played from the position, in the game's notation, separated by blanks or commas"


def game_spec(game: str, size: int | None, default_size: int | None = None, given_as: str = "--game") -> str:
    """The game spec from ``--game`` and ``--size``: ``--size N`` stands for ``size=N`` in
    the spec (Quixo only), and is refused where the spec says another size; ``default_size``
    fills a Quixo spec that says none; ``given_as`` names the spec in messages as the command
    takes it (``the game`` for a command whose game is an argument). Exits with one ``Error:``
    line on bad input."""

    try:
        name, options = split_spec(game)
    except SpecError as err:
        fail(str(err))
    if size is not None:
        if name != SIZED:
            fail(f"--size is for Quixo; give the options of {name} in --game, e.g. --game {name}:key=value")
        said = options.get("size")
        if said is not None and _as_int(said) != size:
            spec = f"{given_as} {shorten(game)}"
            fail(f"--size {size} contradicts {spec} (size={shorten(said)}); give one of them")
        options["size"] = str(size)
    elif name == SIZED and "size" not in options and default_size is not None:
        options["size"] = str(default_size)
    return name + (":" + ",".join(f"{k}={v}" for k, v in options.items()) if options else "")


def _as_int(text: str) -> int | None:
    try:
        return int(text.strip())
    except ValueError:
        return None


def game_of(
    game: str, size: int | None = None, default_size: int | None = None, given_as: str = "--game"
) -> Any:
    """The Game of ``--game`` and ``--size`` (see :func:`game_spec`); exits with one
    ``Error:`` line when the spec is bad or the two disagree."""

    spec = game_spec(game, size, default_size, given_as)
    try:
        return parse_game(spec)
    except GameError as err:
        fail(str(err))


def sizes_given(game: str, size: int | None) -> bool:
    """True when ``--game`` or ``--size`` names a Quixo board side (a position must then have it)."""
    try:
        _, options = split_spec(game)
    except SpecError:
        return False
    return size is not None or "size" in options


def position_of(game: str, size: int | None, position: str, default_size: int | None = None) -> Any:
    """The position of a command: ``position`` read in the game of ``--game`` and ``--size``
    (its start when ``position`` is empty). A Quixo position's board side is read from its text
    unless the spec or ``--size`` gives one, and then it must be that side: a 3x3 position with
    ``--size 4`` is refused, never played on the board it happens to fit. Exits with one
    ``Error:`` line on bad input."""

    the_game = game_of(game, size, default_size)
    if not position:
        return the_game.initial()
    try:
        if the_game.name == SIZED and not sizes_given(game, size):
            from boardlab.games.quixo import State as QuixoState  # the game's kernel: loaded on use

            side = QuixoState.from_text(position).size  # the text's own board side
            the_game = game_of(game, side)
        return the_game.parse_position(position)
    except (GameError, ValueError) as err:
        fail(str(err))


def played(state: Any, moves: str | list[str] | None, flag: str = "--moves") -> Any:
    """``state`` after ``moves`` (a command's ``--moves``: moves in the game's notation,
    separated by blanks or commas, or a list of them); exits with one ``Error:`` line naming
    the first move that cannot be played and why (after ``flag``)."""
    if moves is None:
        return state
    for number, text in enumerate(move_texts(moves, state.game) if isinstance(moves, str) else moves, 1):
        if state.is_over:
            over = state.outcome.text(state.game.symbols)
            fail(f"{flag}: move {number} ({shorten(text, 24)}) comes after the end of the game ({over})")
        try:
            state = state.play(text)
        except (GameError, ValueError) as err:
            fail(f"{flag}: move {number}: {err}")
    return state


def move_texts(moves: str, game: Game) -> list[str]:
    """The moves of a ``--moves`` text as ``game`` reads them (separated by blanks or commas;
    Connect Four's also written together, ``445``); exits with one ``Error:`` line for a text
    longer than :data:`MAX_MOVES_TEXT`."""
    if len(moves) > MAX_MOVES_TEXT:
        fail(f"--moves is {len(moves):,} characters long; at most {MAX_MOVES_TEXT:,} are read")
    return game.move_texts(moves)
