"""The game contract as checks a game from any package can run on itself.

``check_game(game)`` plays seeded random games and checks, with one clear message per broken
promise (:class:`ConformanceError`), that the game starts unfinished, ends without a ply cap and
lasts no longer than its bound on plies where it names one; the Python face and the compiled
kernel agree move by move, finished positions have no moves and unfinished ones some, outcomes
name a winner or a draw, symmetries form a group, keep results and commute with play and map
masks and observations consistently, observations have the declared shape from the mover's view,
fill their buffer and tell apart positions of different results or move counts, evaluations are
finite and symmetric, the kernel's optional shortcuts agree with it and no kernel function
writes to its tables, texts round-trip (and ``move_of`` and ``action_of`` are inverse), equal
positions hash equal and different ones differently, the people's views draw every position and
the whole board and are JSON, a grid (where a game draws one) names cells on it for every legal
move and winning cells only after a win, and bad input raises the game's error classes (junk
texts, texts one edit away from real ones and values that are not texts, illegal moves, actions
and symmetries that are not integers in range, options of the wrong type). Each check is also a
function of its own, taking a seed where it plays random games, so that a property-testing
library can drive it (boardlab's tests use hypothesis).

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
    LOSS,
    ONGOING,
    Game,
    GameError,
    GameOptionError,
    GameOverError,
    IllegalMoveError,
    Kernel,
    MoveParseError,
    PositionParseError,
    State,
    transform_actions,
    transform_observations,
)

LINE_PLIES = 400
JUNK_MOVES = ("", "zz", "99999", "\x00")
JUNK_FIELDS = ("zz", "-1", "1.5", "9" * 12, "\x00", "")
"""What replaces a field of a real text in :func:`check_near_texts`."""
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
        moves = states[-1].legal_indices()
        _ensure(moves, f"{states[-1].to_text()!r}: an unfinished position has no legal move")
        states.append(states[-1].play_index(rng.choice(moves)))
    return states


def kernel_moves(state: State) -> list[int]:
    """The legal actions of ``state`` as its kernel lists them."""
    kernel = state.kernel
    buf = np.empty(kernel.num_actions, dtype=np.int64)
    n = kernel.gen_moves(kernel.ctx, np.int64(state.a), np.int64(state.b), buf)
    return list(buf[:n].tolist())


# --- play ---------------------------------------------------------------------------------------


def check_start(game: Game) -> None:
    """The first position is ongoing, with moves, at ply 0 with the first player to move."""
    start = game.initial()
    where = f"{start.to_text()!r}"
    _ensure(start.status == ONGOING and not start.is_over, f"{where}: the first position is already finished")
    _ensure(start.legal_indices(), f"{where}: the first position has no legal move")
    _ensure(
        start.ply == 0 and start.to_move == 0,
        f"{where}: the first position must be ply 0, first player to move",
    )


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
    _ensure(
        end.is_over or game.ply_cap is not None,
        f"{end.to_text()!r}: a random game ran {LINE_PLIES} plies without ending; the game has no ply cap",
    )


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
    """A random game's outcome names a winner or a draw, scores 1 in all, and is JSON; the game
    lasts no more plies than the game's bound (``max_plies``) where it names one."""
    end = random_line(game, seed)[-1]
    bound = game.max_plies
    _ensure(
        bound is None or (type(bound) is int and bound > 0), f"max_plies is {bound!r}, not a positive int"
    )
    _ensure(
        bound is None or end.ply <= bound,
        f"{end.to_text()!r}: a game reached ply {end.ply}, past max_plies {bound}",
    )
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
    _check_results_kept(kernel, line)
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


def _check_results_kept(kernel: Kernel, line: list[State]) -> None:
    # every position of the line, the finished last one included: the symmetries that keep
    # results keep the kernel's status
    for state in line:
        for sym in kernel.kept_symmetries:
            a, b = kernel.symmetry(kernel.ctx, np.int64(state.a), np.int64(state.b), sym)
            _ensure(
                kernel.status(kernel.ctx, a, b) == state.status,
                f"{state.to_text()!r}: symmetry {sym} changes the result",
            )


def check_symmetry_tables(game: Game) -> None:
    """The symmetry tables are permutations, symmetry 0 the identity; the symmetries are
    distinct, composing two gives a third, and ``sym_inverse`` undoes each."""
    kernel = game.kernel
    rows, cols = kernel.obs_shape[1:]
    _ensure(kernel.action_maps.shape == (kernel.num_symmetries, kernel.num_actions), "action_maps shape")
    _ensure(kernel.cell_maps.shape == (kernel.num_symmetries, rows * cols), "cell_maps shape")
    for sym in range(kernel.num_symmetries):
        _ensure(sorted(kernel.action_maps[sym]) == list(range(kernel.num_actions)), f"action_maps[{sym}]")
        _ensure(sorted(kernel.cell_maps[sym]) == list(range(rows * cols)), f"cell_maps[{sym}]")
    _ensure(list(kernel.action_maps[0]) == list(range(kernel.num_actions)), "symmetry 0 is the identity")
    _check_symmetry_group(kernel)


def _check_symmetry_group(kernel: Kernel) -> None:
    maps = kernel.action_maps
    rows = {tuple(row.tolist()) for row in maps}
    _ensure(len(rows) == len(maps), "two symmetries map the actions alike: action_maps repeats a row")
    identity = list(range(kernel.num_actions))
    for s, t in itertools.product(range(len(maps)), repeat=2):
        _ensure(
            tuple(maps[t][maps[s]].tolist()) in rows,
            f"symmetry {s} then {t} is none of the game's symmetries (action_maps)",
        )
    _ensure(
        len(kernel.sym_inverse) == len(maps),
        f"sym_inverse has {len(kernel.sym_inverse)} entries, not {len(maps)}",
    )
    for s in range(len(maps)):
        undo = maps[int(kernel.sym_inverse[s])]
        _ensure(list(undo[maps[s]]) == identity, f"sym_inverse[{s}] does not undo symmetry {s} (action_maps)")


# --- observations, hashing, text ----------------------------------------------------------------


def check_observations(game: Game, seed: int) -> None:
    """Observations have the declared shape and dtype, and show the mover's view; ``observe``
    writes every cell of its buffer (callers reuse buffers), and ``observation()`` gives a
    fresh array each time."""
    kernel = game.kernel
    for state in random_line(game, seed)[:30]:
        obs = state.observation()
        where = f"{state.to_text()!r}"
        _ensure(obs.dtype == np.float32 and obs.shape == kernel.obs_shape, f"{where}: observation shape")
        _ensure(np.isfinite(obs).all(), f"{where}: observation not finite")
        # the mover's view: equal state words give equal planes, whoever moves
        flipped = game.state(state.a, state.b, 1 - state.to_move, state.ply)
        _ensure(np.array_equal(flipped.observation(), obs), f"{where}: the observation depends on the colour")
        used = np.full(kernel.obs_shape, 7.0, dtype=np.float32)
        kernel.observe(kernel.ctx, np.int64(state.a), np.int64(state.b), used)
        _ensure(np.array_equal(used, obs), f"{where}: observe leaves cells of a used buffer unwritten")
        obs += 1.0
        _ensure(not np.array_equal(state.observation(), obs), f"{where}: observation() shares its array")


def check_observations_keep_the_game(game: Game, seeds: int = 20) -> None:
    """Positions with equal observations have the same status and as many legal moves, over
    ``seeds`` random games: a learner reads nothing else."""
    seen: dict[bytes, tuple[int, int, str]] = {}
    for state in (s for seed in range(seeds) for s in random_line(game, seed)):
        facts = (state.status, len(kernel_moves(state)), state.to_text())
        first = seen.setdefault(state.observation().tobytes(), facts)
        _ensure(
            first[:2] == facts[:2],
            f"{first[2]!r} and {facts[2]!r} have equal observations but differ in result or moves",
        )


def _read_back(what: str, read: Callable[[Any], Any], text: Any) -> Any:
    try:
        return read(text)
    except GameError as err:
        raise ConformanceError(f"{what} {text!r} does not read back: {type(err).__name__}: {err}") from err


def check_texts(game: Game, seed: int) -> None:
    """Position and move texts round-trip, ``move_of`` and ``action_of`` are inverse on the
    legal actions; equal positions hash equal."""
    for state in random_line(game, seed):
        where = f"{state.to_text()!r}"
        again = _read_back("the position text", game.parse_position, state.to_text())
        _ensure(
            again == state and again.status == state.status, f"{where}: the position text does not round-trip"
        )
        _ensure(again.position_hash() == state.position_hash(), f"{where}: equal positions, different hashes")
        _ensure(hash(again) == hash(state), f"{where}: equal states, different Python hashes")
        for action in state.legal_indices():
            move = game.move_of(action)
            _ensure(
                _read_back("move", game.action_of, move) == action,
                f"{where}: action_of(move_of({action})) is not {action} (move {move})",
            )
            _ensure(
                _read_back("move text", state.parse_move, str(move)) == move,
                f"{where}: move {move} does not round-trip",
            )


def check_hashes(game: Game, seeds: int = 20) -> None:
    """Different positions (state words) hash differently over ``seeds`` random games."""
    states = {s for seed in range(seeds) for s in random_line(game, seed)}
    by_words = {(s.a, s.b) for s in states}
    _ensure(len({s.position_hash() for s in states}) == len(by_words), "different positions share a hash")


def check_views(game: Game, seed: int = 3) -> None:
    """Terminal, text and JSON views exist for every position of a random game, the finished
    one included, and the terminal one shows the last move; a state's repr names the game and
    its position text, a notebook gets its board; the spec rebuilds the game."""
    line = random_line(game, seed)
    for before, state in zip([None, *line], line, strict=False):
        where = f"{state.to_text()!r}"
        last = None if before is None else _last_move(before, state)
        try:
            drawn = state.render(last_move=last), state.render(), str(state)
        except Exception as err:
            raise ConformanceError(
                f"{where}: drawing it (last move {last}) raised {type(err).__name__}: {err}"
            ) from err
        _ensure(all(isinstance(d, Text) for d in drawn[:2]) and drawn[2].strip(), f"{where}: no rendering")
    for state in line[::5]:
        view = state.to_json()
        _ensure(
            json.loads(json.dumps(view)) == view, f"{state.to_text()!r}: the JSON view does not round-trip"
        )
        _ensure(view["game"] == game.spec and view["text"] == state.to_text(), "the JSON view names its game")
        _ensure(
            repr(state) == f"<{game.spec} position {state.to_text()!r}>",
            f"{state.to_text()!r}: repr {repr(state)[:60]!r} does not give the game and the position text",
        )
        _ensure(state.to_text() in state._repr_html_(), f"{state.to_text()!r}: no board for notebooks")
    if game.name in GAMES and game_class(game.name) is type(game):  # else: no spec boardlab reads
        _ensure(parse_game(game.spec) == game, f"the spec {game.spec!r} does not rebuild the game")
    _ensure(game.title and game.evaluations and game.notation_help, "title, evaluations and notation help")
    _ensure(
        game.evaluations == game.kernel.evaluations,
        f"the game names evaluations {game.evaluations}, its kernel {game.kernel.evaluations}",
    )


def _last_move(before: State, after: State) -> Any:
    # the move that leads from ``before`` to ``after``, a position of the same random game
    return next(m for m in before.legal_moves() if before.play(m) == after)


def check_views_keep_the_board(game: Game, seeds: int = 20) -> None:
    """Different positions (state words) with the same side to move have different board
    texts, JSON views and grids, over ``seeds`` random games: the views show the whole board."""
    texts: dict[tuple[int, str], State] = {}
    views: dict[tuple[int, str], State] = {}
    grids: dict[tuple[int, str], State] = {}
    for state in (s for seed in range(seeds) for s in random_line(game, seed)):
        shown_as = [
            ("board text", texts, game.board_text(state)),
            ("JSON view", views, json.dumps(game.json_view(state), sort_keys=True)),
        ]
        grid = game.grid(state)
        if grid is not None:
            shown_as.append(("grid", grids, json.dumps(grid)))
        for name, seen, shown in shown_as:
            first = seen.setdefault((state.to_move, shown), state)
            _ensure(
                first.words == state.words,
                f"{first.to_text()!r} and {state.to_text()!r} have the same {name}",
            )


def check_grid(game: Game, seed: int) -> None:
    """A game that draws its board as a grid (``Game.grid``) does so at every position of a
    random game, with one shape and cells of -1, 0 or 1, names one or more cells on it for every
    legal move (``Game.move_cells``), with a piece of the mover on the last after the move, and,
    for the cells that won (``Game.winning_cells``), none but after a win, and then cells on it,
    one at least with a piece of the winner; a game without a grid names no cells."""
    line = random_line(game, seed)
    grids = [game.grid(state) for state in line]
    if grids[0] is None:
        _ensure(all(g is None for g in grids), "the grid is None at the start but not later")
        start = line[0]
        moves = [m for m in start.legal_moves() if game.move_cells(start, m)]
        _ensure(not moves, f"move cells of {moves[0] if moves else ''} without a grid")
        return
    height, width = len(grids[0]), len(grids[0][0]) if grids[0] else 0
    for state, rows in zip(line, grids, strict=True):
        where = f"{state.to_text()!r}"
        _ensure(
            isinstance(rows, list)
            and len(rows) == height
            and all(isinstance(row, list) and len(row) == width for row in rows)
            and width > 0,
            f"{where}: the grid is not {height} rows of {width} cells",
        )
        assert rows is not None  # for the type checker: the shape check above
        _ensure(
            all(type(v) is int and -1 <= v <= 1 for row in rows for v in row),
            f"{where}: grid cells must be the ints -1, 0 or 1",
        )
        moves = [] if state.is_over else state.legal_moves()
        for move in moves:
            _check_move_cells(game.move_cells(state, move), width, height, f"{where}, move {move}")
        for move in moves:
            _check_cells_fit_the_move(state, move, game.move_cells(state, move), rows)
        _check_winning_cells(state, rows, width, height)


def _check_cells_fit_the_move(
    state: State, move: Any, cells: tuple[tuple[int, int], ...], rows: list[list[int]]
) -> None:
    """The cells name what the move does: a piece of the mover rests on the last after it (the
    cell placed on, or a step's target), and a step's first cell holds no piece of the other
    side before it (which a cell with x and y swapped, or the wrong side's piece, would)."""
    where = f"{state.to_text()!r}, move {move}"
    x, y = cells[-1]
    after = state.game.grid(state.play(move))
    assert after is not None  # a game that draws one position draws all (checked above)
    _ensure(
        after[y][x] == state.to_move,
        f"{where}: the last of its cells {cells!r} holds no piece of the mover after it",
    )
    if len(cells) > 1:
        x0, y0 = cells[0]
        _ensure(
            rows[y0][x0] != 1 - state.to_move,
            f"{where}: the first of its cells {cells!r} holds a piece of the other side",
        )


def _check_winning_cells(state: State, rows: list[list[int]], width: int, height: int) -> None:
    where = f"{state.to_text()!r}"
    cells = state.game.winning_cells(state)
    winner = state.winner
    if winner is None or not cells:
        _ensure(cells == (), f"{where}: winning cells {cells!r} where nobody has won")
        return
    _check_move_cells(cells, width, height, f"{where}, the winning cells")
    _ensure(
        any(rows[y][x] == winner for x, y in cells),
        f"{where}: no winning cell {cells!r} holds a piece of the winner",
    )


def _check_move_cells(cells: Any, width: int, height: int, where: str) -> None:
    _ensure(isinstance(cells, tuple) and cells, f"{where}: no cells for a legal move")
    for cell in cells:
        _ensure(
            isinstance(cell, tuple)
            and len(cell) == 2
            and all(type(v) is int for v in cell)
            and 0 <= cell[0] < width
            and 0 <= cell[1] < height,
            f"{where}: {cell!r} is not a cell (x, y) of the {width}x{height} grid",
        )


# --- evaluations and the kernel's shortcuts -----------------------------------------------------


def check_evaluations(game: Game, seed: int) -> None:
    """Every evaluation gives a finite number in the unfinished positions of a random game,
    the same (in every eighth of them) in the images under the symmetries that keep results:
    the transposition table keeps one value for all of them."""
    kernel = game.kernel
    for ply, state in enumerate(random_line(game, seed)):
        if state.status != ONGOING:
            continue
        a, b = np.int64(state.a), np.int64(state.b)
        for eval_id, name in enumerate(kernel.evaluations):
            value = kernel.evaluate(kernel.ctx, a, b, eval_id)
            where = f"{state.to_text()!r}: evaluation {name!r}"
            _ensure(isinstance(value, float | np.floating) and np.isfinite(value), f"{where} gives {value!r}")
            for sym in kernel.kept_symmetries if ply % 8 == seed % 8 else ():
                image = kernel.evaluate(kernel.ctx, *kernel.symmetry(kernel.ctx, a, b, sym), eval_id)
                _ensure(
                    np.isclose(image, value, rtol=1e-9, atol=1e-9), f"{where} changes under symmetry {sym}"
                )


def check_kernel_shortcuts(game: Game, seed: int) -> None:
    """The kernel's optional ``count_moves`` counts the legal actions, and its ``may_win`` is
    True wherever a legal move wins at once."""
    kernel = game.kernel
    for state in random_line(game, seed):
        if state.status != ONGOING:
            continue
        a, b = np.int64(state.a), np.int64(state.b)
        moves = kernel_moves(state)
        where = f"{state.to_text()!r}"
        if kernel.count_moves is not None:
            count = kernel.count_moves(kernel.ctx, a, b)
            _ensure(count == len(moves), f"{where}: count_moves gives {count}, gen_moves {len(moves)}")
        if kernel.may_win is not None and not kernel.may_win(kernel.ctx, a, b):
            for action in moves:
                after = kernel.play(kernel.ctx, a, b, np.int64(action))
                _ensure(
                    kernel.status(kernel.ctx, *after) != LOSS,
                    f"{where}: may_win is False but action {action} wins at once",
                )


# --- bad input ----------------------------------------------------------------------------------


def check_move_text(game: Game, text: str, state: State | None = None) -> None:
    """Any move text is a legal move of ``state`` (by default the first position) or a game
    error."""
    state = game.initial() if state is None else state
    try:
        move = state.parse_move(text)
    except (MoveParseError, IllegalMoveError):
        return
    except Exception as err:
        raise ConformanceError(
            f"parse_move({text!r}) raised {type(err).__name__}, not MoveParseError: {err}"
        ) from err
    _ensure(move in state.legal_moves(), f"move text {text!r} parsed to an illegal move")


def check_position_text(game: Game, text: str) -> None:
    """Any position text is a position that round-trips or a PositionParseError."""
    try:
        state = game.parse_position(text)
    except PositionParseError:
        return
    except Exception as err:
        raise ConformanceError(
            f"parse_position({text!r}) raised {type(err).__name__}, not PositionParseError: {err}"
        ) from err
    again = _read_back("the position text", game.parse_position, state.to_text())
    _ensure(again == state, f"position text {text!r} does not round-trip")


def check_bad_moves(game: Game) -> None:
    """Junk, illegal (along a random game) and out-of-range moves raise the game's error
    classes; so do values that are not texts given as move texts."""
    state = game.initial()
    for junk in (*JUNK_MOVES, *NOT_TEXTS):
        _raises(MoveParseError, f"parse_move({junk!r})", state.parse_move, junk)
        _raises(GameError, f"play({junk!r})", state.play, junk)
    for position in random_line(game, seed=1)[:-1]:
        illegal = [a for a in range(game.kernel.num_actions) if a not in position.legal_indices()]
        for action in illegal[:3]:
            _raises(
                IllegalMoveError,
                f"play_index({action}) in {position.to_text()!r}",
                position.play_index,
                action,
            )
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


def _near_texts(text: str) -> list[str]:
    """``text`` with one character dropped or replaced by another of its own, one field
    (split on spaces) dropped or replaced by junk, or a field added."""
    alphabet = sorted(set(text))
    near = [text[:i] + text[i + 1 :] for i in range(len(text))]
    near += [text[:i] + c + text[i + 1 :] for i in range(len(text)) for c in alphabet if c != text[i]]
    fields = text.split()
    for i in range(len(fields)):
        near.append(" ".join(fields[:i] + fields[i + 1 :]))
        near += [" ".join([*fields[:i], junk, *fields[i + 1 :]]) for junk in JUNK_FIELDS]
    return [*near, *(f"{text} {junk}" for junk in JUNK_FIELDS)]


def check_near_texts(game: Game, seed: int) -> None:
    """Texts one edit away from real ones, of positions along a random game and of their legal
    moves, are positions that round-trip, legal moves or the game's errors; a move text with a
    NUL byte before or after it is not a move."""
    line = random_line(game, seed)
    for state in (line[0], line[len(line) // 2], line[-1]):
        for text in _near_texts(state.to_text()):
            check_position_text(game, text)
        for move in state.legal_moves():
            for text in _near_texts(str(move)):
                check_move_text(game, text, state)
            for text in (f"{move}\x00", f"\x00{move}"):
                _raises(GameError, f"parse_move({text!r})", state.parse_move, text)


def _junk_texts(rng: random.Random, count: int, longest: int) -> list[str]:
    alphabet = string.printable + "\x00éXO./-:"
    return ["".join(rng.choice(alphabet) for _ in range(rng.randrange(longest + 1))) for _ in range(count)]


# --- all of it ----------------------------------------------------------------------------------


def check_game(game: Game, games: int = 10, seed: int = 0) -> None:
    """Every check of the contract on ``game``, over ``games`` random games from ``seed``;
    ConformanceError naming the first broken promise."""
    seeds = [seed + i for i in range(games)]
    tables = _ctx_copy(game.kernel)
    check_start(game)
    check_symmetry_tables(game)
    for s in seeds:
        check_play(game, s)
        check_finished_positions(game, s)
        check_outcome(game, s)
        check_symmetries(game, s, pick=s * 7919)
        check_observations(game, s)
        check_texts(game, s)
        check_evaluations(game, s)
        check_kernel_shortcuts(game, s)
        check_grid(game, s)
    check_hashes(game)
    check_observations_keep_the_game(game)
    check_views(game)
    check_views_keep_the_board(game)
    check_near_texts(game, seed)
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
    check_ctx_unchanged(game, tables)


def _ctx_copy(kernel: Kernel) -> list[np.ndarray]:
    return [np.array(table, copy=True) for table in kernel.ctx]


def check_ctx_unchanged(game: Game, tables: list[np.ndarray]) -> None:
    """The kernel's ``ctx`` tables are as ``tables`` (a copy taken before playing): no kernel
    function writes to them."""
    now = _ctx_copy(game.kernel)
    changed = [
        i for i, (was, is_) in enumerate(zip(tables, now, strict=True)) if not np.array_equal(was, is_)
    ]
    _ensure(not changed, f"kernel functions wrote to the ctx tables {changed} while playing")


__all__ = [
    "ConformanceError",
    "check_bad_actions",
    "check_bad_moves",
    "check_bad_options",
    "check_bad_positions",
    "check_bad_symmetries",
    "check_ctx_unchanged",
    "check_evaluations",
    "check_finished_positions",
    "check_game",
    "check_grid",
    "check_hashes",
    "check_kernel_shortcuts",
    "check_move_text",
    "check_near_texts",
    "check_observations",
    "check_observations_keep_the_game",
    "check_outcome",
    "check_play",
    "check_position_text",
    "check_start",
    "check_symmetries",
    "check_symmetry_tables",
    "check_texts",
    "check_views",
    "check_views_keep_the_board",
    "kernel_moves",
    "random_line",
]
