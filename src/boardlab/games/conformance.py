"""The game contract as checks a game from any package can run on itself.

``check_game(game)`` plays seeded random games and checks, with one clear message per broken
promise (:class:`ConformanceError`), that the Python face and the compiled kernel agree move
by move, finished positions have no moves, outcomes name a winner or a draw, symmetries
commute with play and map masks and observations consistently, observations have the
declared shape from the mover's view, texts round-trip, equal positions hash equal and
different ones differently, the people's views are JSON, and bad input raises the game's
error classes (junk texts and values that are not texts, actions and symmetries that are not
integers in range, options of the wrong type). Each check is also a function of its own,
taking a seed where it plays random games, so that a property-testing library can drive it
(boardlab's tests use hypothesis).

    from boardlab.games.conformance import check_game
    check_game(MyGame())
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import random
import string
from collections.abc import Callable
from typing import Any

import numpy as np
from rich.text import Text

from boardlab.core.spec import options_of
from boardlab.games import GAMES, game_class, parse_game
from boardlab.games.base import (
    ONGOING,
    Game,
    GameError,
    GameOptionError,
    GameOverError,
    IllegalMoveError,
    MoveParseError,
    PositionParseError,
    State,
    transform_actions,
    transform_observations,
)

LINE_PLIES = 400
JUNK_MOVES = ("", "zz", "99999", "\x00")
NOT_TEXTS = (None, 5, 1.5, b"1", ["1"])
"""Values that are not texts at all, given where a move or position text is expected."""


class ConformanceError(AssertionError):
    """A game breaks a promise of the game contract."""


def _ensure(condition: Any, message: str) -> None:
    if not condition:
        raise ConformanceError(message)


def _raises(
    error: type[Exception], what: str, action: Callable[..., object], *args: object, **kwargs: object
) -> None:
    # ``action(*args, **kwargs)`` must raise ``error``; the arguments are often deliberately of
    # the wrong type, hence the untyped call
    try:
        action(*args, **kwargs)
    except error:
        return
    except Exception as err:
        raise ConformanceError(f"{what} raised {type(err).__name__}, not {error.__name__}: {err}") from err
    raise ConformanceError(f"{what} raised nothing; expected {error.__name__}")


def random_line(game: Game, seed: int, plies: int = LINE_PLIES) -> list[State]:
    """The positions of one uniformly random game from the start (seeded)."""
    rng = random.Random(seed)
    states = [game.initial()]
    while not states[-1].is_over and len(states) <= plies:
        states.append(states[-1].play_index(rng.choice(states[-1].legal_indices())))
    return states


def kernel_moves(state: State) -> list[int]:
    """The legal actions of ``state`` as its kernel lists them."""
    kernel = state.kernel
    buf = np.empty(kernel.num_actions, dtype=np.int64)
    n = kernel.gen_moves(kernel.ctx, np.int64(state.a), np.int64(state.b), buf)
    return list(buf[:n].tolist())


# --- play ---------------------------------------------------------------------------------------


def check_play(game: Game, seed: int) -> None:
    """The Python face and the kernel agree move by move along a random game."""
    kernel = game.kernel
    line = random_line(game, seed)
    for before, after in itertools.pairwise(line):
        status = kernel.status(kernel.ctx, np.int64(before.a), np.int64(before.b))
        _ensure(status == ONGOING, f"{before.to_text()!r}: a position played from is not ongoing")
        _ensure(before.legal_indices() == kernel_moves(before), f"{before.to_text()!r}: moves differ")
        _ensure(
            all(0 <= a < kernel.num_actions for a in before.legal_indices()),
            f"{before.to_text()!r}: an action outside 0..{kernel.num_actions - 1}",
        )
        _ensure(
            after.ply == before.ply + 1 and after.to_move == 1 - before.to_move,
            f"{after.to_text()!r}: ply and side to move must advance by one",
        )
    end = line[-1]
    _ensure(end.is_over == (end.outcome is not None), f"{end.to_text()!r}: is_over disagrees with outcome")


def check_finished_positions(game: Game, seed: int) -> None:
    """Finished positions have no moves and refuse play; the others have some."""
    for state in random_line(game, seed):
        if state.is_over:
            _ensure(
                state.legal_moves() == [] and not state.legal_mask().any(),
                f"{state.to_text()!r}: a finished position has moves",
            )
            _raises(GameOverError, f"playing in finished {state.to_text()!r}", state.play_index, 0)
        else:
            _ensure(
                state.legal_moves() and state.legal_mask().sum() == len(state.legal_moves()),
                f"{state.to_text()!r}: the legal mask disagrees with the legal moves",
            )
        if state.status == ONGOING:
            _ensure(kernel_moves(state), f"{state.to_text()!r}: an ongoing position must have a legal move")


def check_outcome(game: Game, seed: int) -> None:
    """A random game's outcome names a winner or a draw, scores 1 in all, and is JSON."""
    end = random_line(game, seed)[-1]
    if not end.is_over:
        return
    outcome = end.outcome
    _ensure(outcome is not None and outcome.winner in (None, 0, 1), f"{end.to_text()!r}: bad winner")
    assert outcome is not None
    _ensure(end.winner == outcome.winner, f"{end.to_text()!r}: winner disagrees with the outcome")
    _ensure(outcome.score_for(0) + outcome.score_for(1) == 1.0, "the two scores of an outcome must sum to 1")
    _ensure(
        json.loads(json.dumps(outcome.to_json())) == outcome.to_json(), "an outcome's JSON must round-trip"
    )


# --- symmetries ---------------------------------------------------------------------------------


def check_symmetries(game: Game, seed: int, pick: int = 0) -> None:
    """Symmetries commute with play and map legal masks and observations consistently; those
    that keep results (``Kernel.value_symmetries``) keep the position's result and key (at the
    position ``pick`` of a random game, modulo its length)."""
    kernel = game.kernel
    line = random_line(game, seed)
    state = line[pick % len(line)]
    obs = state.observation()
    where = f"{state.to_text()!r}"
    kept = kernel.kept_symmetries
    for sym in range(kernel.num_symmetries):
        image = state.transform(sym)
        _ensure(image.to_move == state.to_move, f"{where}: symmetry {sym} changes the side to move")
        if sym in kept:
            _ensure(image.status == state.status, f"{where}: symmetry {sym} changes the result")
            _ensure(
                image.canonical_key() == state.canonical_key(), f"{where}: symmetric canonical keys differ"
            )
        mask = transform_actions(kernel, state.legal_mask(), sym)
        _ensure(
            np.array_equal(mask, image.legal_mask()), f"{where}: symmetry {sym} maps the legal mask wrong"
        )
        planes = transform_observations(kernel, obs, sym)
        _ensure(
            np.array_equal(planes, image.observation()), f"{where}: symmetry {sym} maps observations wrong"
        )
        _ensure(
            image.transform(int(kernel.sym_inverse[sym])) == state, f"{where}: sym_inverse[{sym}] is wrong"
        )
        for action in state.legal_indices():
            mapped = int(kernel.action_maps[sym, action])
            _ensure(
                image.play_index(mapped) == state.play_index(action).transform(sym),
                f"{where}: symmetry {sym} does not commute with action {action}",
            )


def check_symmetry_tables(game: Game) -> None:
    """The symmetry tables are permutations, symmetry 0 the identity."""
    kernel = game.kernel
    rows, cols = kernel.obs_shape[1:]
    _ensure(kernel.action_maps.shape == (kernel.num_symmetries, kernel.num_actions), "action_maps shape")
    _ensure(kernel.cell_maps.shape == (kernel.num_symmetries, rows * cols), "cell_maps shape")
    for sym in range(kernel.num_symmetries):
        _ensure(sorted(kernel.action_maps[sym]) == list(range(kernel.num_actions)), f"action_maps[{sym}]")
        _ensure(sorted(kernel.cell_maps[sym]) == list(range(rows * cols)), f"cell_maps[{sym}]")
    _ensure(list(kernel.action_maps[0]) == list(range(kernel.num_actions)), "symmetry 0 is the identity")


# --- observations, hashing, text ----------------------------------------------------------------


def check_observations(game: Game, seed: int) -> None:
    """Observations have the declared shape and dtype, and show the mover's view."""
    for state in random_line(game, seed)[:30]:
        obs = state.observation()
        where = f"{state.to_text()!r}"
        _ensure(obs.dtype == np.float32 and obs.shape == game.kernel.obs_shape, f"{where}: observation shape")
        _ensure(np.isfinite(obs).all(), f"{where}: observation not finite")
        # the mover's view: equal state words give equal planes, whoever moves
        flipped = game.state(state.a, state.b, 1 - state.to_move, state.ply)
        _ensure(np.array_equal(flipped.observation(), obs), f"{where}: the observation depends on the colour")


def check_texts(game: Game, seed: int) -> None:
    """Position and move texts round-trip; equal positions hash equal."""
    for state in random_line(game, seed):
        where = f"{state.to_text()!r}"
        again = game.parse_position(state.to_text())
        _ensure(
            again == state and again.status == state.status, f"{where}: the position text does not round-trip"
        )
        _ensure(again.position_hash() == state.position_hash(), f"{where}: equal positions, different hashes")
        _ensure(hash(again) == hash(state), f"{where}: equal states, different Python hashes")
        for move in state.legal_moves():
            _ensure(state.parse_move(str(move)) == move, f"{where}: move {move} does not round-trip")
            _ensure(state.move_index(move) == game.action_of(move), f"{where}: move {move} has two actions")


def check_hashes(game: Game, seeds: int = 20) -> None:
    """Different positions (state words) hash differently over ``seeds`` random games."""
    states = {s for seed in range(seeds) for s in random_line(game, seed)}
    by_words = {(s.a, s.b) for s in states}
    _ensure(len({s.position_hash() for s in states}) == len(by_words), "different positions share a hash")


def check_views(game: Game, seed: int = 3) -> None:
    """Terminal, text and JSON views exist; the spec rebuilds the game."""
    for state in random_line(game, seed)[::5]:
        _ensure(isinstance(state.render(), Text) and str(state).strip(), f"{state.to_text()!r}: no rendering")
        view = state.to_json()
        _ensure(
            json.loads(json.dumps(view)) == view, f"{state.to_text()!r}: the JSON view does not round-trip"
        )
        _ensure(view["game"] == game.spec and view["text"] == state.to_text(), "the JSON view names its game")
    if game.name in GAMES and game_class(game.name) is type(game):  # else: no spec boardlab reads
        _ensure(parse_game(game.spec) == game, f"the spec {game.spec!r} does not rebuild the game")
    _ensure(game.title and game.evaluations and game.notation_help, "title, evaluations and notation help")
    _ensure(
        game.evaluations == game.kernel.evaluations,
        f"the game names evaluations {game.evaluations}, its kernel {game.kernel.evaluations}",
    )


# --- bad input ----------------------------------------------------------------------------------


def check_move_text(game: Game, text: str) -> None:
    """Any move text is a legal move of the first position or a game error."""
    state = game.initial()
    try:
        move = state.parse_move(text)
    except (MoveParseError, IllegalMoveError):
        return
    _ensure(move in state.legal_moves(), f"move text {text!r} parsed to an illegal move")


def check_position_text(game: Game, text: str) -> None:
    """Any position text is a position that round-trips or a PositionParseError."""
    try:
        state = game.parse_position(text)
    except PositionParseError:
        return
    _ensure(game.parse_position(state.to_text()) == state, f"position text {text!r} does not round-trip")


def check_bad_moves(game: Game) -> None:
    """Junk, illegal and out-of-range moves raise the game's error classes; so do values that
    are not texts given as move texts."""
    state = game.initial()
    for junk in (*JUNK_MOVES, *NOT_TEXTS):
        _raises(MoveParseError, f"parse_move({junk!r})", state.parse_move, junk)
        _raises(GameError, f"play({junk!r})", state.play, junk)
    illegal = [a for a in range(game.kernel.num_actions) if a not in state.legal_indices()]
    for action in illegal[:3]:
        _raises(IllegalMoveError, f"play_index({action})", state.play_index, action)
    _raises(GameError, "an action out of range", state.play_index, game.kernel.num_actions + 5)
    ends = (line[-1] for seed in range(50) if (line := random_line(game, seed))[-1].is_over)
    end = next(ends, None)
    if end is not None:
        _raises(GameOverError, "playing in a finished game", end.play_index, 0)


NOT_ACTIONS = (-1, 1.5, "0", None, True, 0.0)
"""Values that are no action of any game (with ``num_actions`` itself, the first past the end)."""


def check_bad_positions(game: Game) -> None:
    """Values that are not texts, given as position texts, raise PositionParseError."""
    for junk in NOT_TEXTS:
        _raises(PositionParseError, f"parse_position({junk!r})", game.parse_position, junk)


def check_bad_actions(game: Game) -> None:
    """Anything but an integer in ``0..num_actions - 1`` (NumPy integers are; ``bool`` is not)
    raises IllegalMoveError from ``move_from_index`` and ``move_of``."""
    state = game.initial()
    count = game.kernel.num_actions
    for action in (*NOT_ACTIONS, count, count + 7):
        _raises(IllegalMoveError, f"move_from_index({action!r})", state.move_from_index, action)
        _raises(IllegalMoveError, f"move_of({action!r})", game.move_of, action)
    for number in (np.int64(count - 1), np.int32(0), np.uint8(0)):
        _ensure(
            state.move_from_index(number) == game.move_of(int(number)),
            f"move_from_index(np.{type(number).__name__}({number})) must be the move of {int(number)}",
        )


def check_bad_symmetries(game: Game) -> None:
    """Anything but an integer in ``0..num_symmetries - 1`` raises ValueError from ``transform``."""
    state = game.initial()
    count = game.kernel.num_symmetries
    for sym in (-1, count, 1.5, 0.0, "0", None, True):
        _raises(ValueError, f"transform({sym!r})", state.transform, sym)
    _ensure(state.transform(np.int64(count - 1)) == state.transform(count - 1), "transform(np.int64)")


def check_bad_options(game: Game) -> None:
    """The game built directly with an option of the wrong type raises GameOptionError."""
    for spec in options_of(type(game)):
        _raises(
            GameOptionError,
            f"{type(game).__name__}({spec.name}=object())",
            dataclasses.replace,
            game,
            **{spec.name: object()},
        )


def _junk_texts(rng: random.Random, count: int, longest: int) -> list[str]:
    alphabet = string.printable + "\x00éXO./-:"
    return ["".join(rng.choice(alphabet) for _ in range(rng.randrange(longest + 1))) for _ in range(count)]


# --- all of it ----------------------------------------------------------------------------------


def check_game(game: Game, games: int = 10, seed: int = 0) -> None:
    """Every check of the contract on ``game``, over ``games`` random games from ``seed``;
    ConformanceError naming the first broken promise."""
    seeds = [seed + i for i in range(games)]
    check_symmetry_tables(game)
    for s in seeds:
        check_play(game, s)
        check_finished_positions(game, s)
        check_outcome(game, s)
        check_symmetries(game, s, pick=s * 7919)
        check_observations(game, s)
        check_texts(game, s)
    check_hashes(game)
    check_views(game)
    rng = random.Random(f"conformance:{seed}")
    for text in _junk_texts(rng, 50, 30):
        check_move_text(game, text)
    for text in _junk_texts(rng, 50, 60):
        check_position_text(game, text)
    check_bad_moves(game)
    check_bad_positions(game)
    check_bad_actions(game)
    check_bad_symmetries(game)
    check_bad_options(game)


__all__ = [
    "ConformanceError",
    "check_bad_actions",
    "check_bad_moves",
    "check_bad_options",
    "check_bad_positions",
    "check_bad_symmetries",
    "check_finished_positions",
    "check_game",
    "check_hashes",
    "check_move_text",
    "check_observations",
    "check_outcome",
    "check_play",
    "check_position_text",
    "check_symmetries",
    "check_symmetry_tables",
    "check_texts",
    "check_views",
    "kernel_moves",
    "random_line",
]
