"""Reviewing a game move by move against perfect play: where was a win thrown, a draw lost?

:func:`review_game` replays a game's moves from its first position and asks the game's exact
play (the oracle's judge, :func:`boardlab.arena.oracle.judge_for`) about every position it
covers: the value the mover had, the value the move played kept, the best moves, and a
verdict (:class:`Verdict`). Values hold under the game's ply cap, as the oracle judges them.
Positions the judge does not cover (5x5 Quixo before its endgame tables), and those before
``from_ply`` (Connect Four's early positions take the solver minutes), are passed over and said
so; each side's :class:`~boardlab.arena.oracle.Tally` counts the judged moves.

    review = review_game(start, ("a1e1", "e5a5"), judge_for("quixo:size=4"))
    [move.verdict for move in review.moves], review.tallies[0].accuracy
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from boardlab.arena.oracle import OracleError, Tally, action_index, judge_move, judged_values
from boardlab.arena.play import GameRecord
from boardlab.games import WIN, ExactPlay, GameError
from boardlab.games.exact import VALUE_NAMES, MoveValue


class Verdict(enum.Enum):
    """What a move did to the value of its position, for its mover."""

    BEST = "best"
    """As good as the best move: the value kept, the fastest win or the slowest loss too."""
    KEPT = "keeps the value"
    """The value kept, by a slower win or a faster loss than the best."""
    THREW_WIN = "throws the win"
    """A won position left drawn or lost."""
    LOST_DRAW = "loses the draw"
    """A drawn position left lost."""
    UNJUDGED = "not judged"
    """A position the judge does not cover, or one before ``from_ply``."""


@dataclass(frozen=True)
class ReviewedMove:
    """One move of a reviewed game.

    ``value`` is what the position was worth to the mover with perfect play (WIN, DRAW or
    LOSS; None where not judged), ``played`` what the move played kept and ``plies`` how many
    plies to the end it leads to with perfect play (that move included; None where the judge
    does not know), ``best`` every move as good as the best one, ``why`` the reason a move
    was not judged.
    """

    ply: int
    mover: int
    move: str
    verdict: Verdict
    value: int | None = None
    played: int | None = None
    plies: int | None = None
    best: tuple[str, ...] = ()
    why: str = ""

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict (values as words)."""
        return {
            "ply": self.ply,
            "mover": self.mover,
            "move": self.move,
            "verdict": self.verdict.value,
            "value": None if self.value is None else VALUE_NAMES[self.value],
            "played": None if self.played is None else VALUE_NAMES[self.played],
            "plies": self.plies,
            "best": list(self.best),
            "why": self.why,
        }


@dataclass
class Review:
    """A reviewed game: its moves in order, each side's tally of judged moves, the last position."""

    moves: list[ReviewedMove]
    final: Any
    tallies: tuple[Tally, Tally] = field(default_factory=lambda: (Tally(), Tally()))

    def to_json(self, start: Any) -> dict[str, Any]:
        """A JSON-ready dict of the review of a game from ``start``: the game, its first
        position, every move reviewed, and each side's tally (first mover first)."""
        return {
            "game": start.game.spec,
            "start": start.to_text(),
            "moves": [move.to_json() for move in self.moves],
            "sides": [tally.to_json() for tally in self.tallies],
        }

    @property
    def mistakes(self) -> list[ReviewedMove]:
        """The moves that threw a win or lost a draw, in order."""
        return [m for m in self.moves if m.verdict in (Verdict.THREW_WIN, Verdict.LOST_DRAW)]


ARENA_OPENING = "the arena's opening"
"""Why an arena game's first moves are not judged: the arena chose them (random plies or a
suite's opening), not the players."""

Progressed = Callable[[int, int], None]
"""Told ``(done, total)`` as work goes."""


def review_game(
    start: Any,
    moves: Sequence[str],
    judge: ExactPlay,
    from_ply: int = 0,
    progress: Progressed | None = None,
    opening: int = 0,
) -> Review:
    """Replay ``moves`` (in the game's notation) from ``start`` and judge each one (see the
    module notes) but the first ``opening`` (an arena game's opening, random or from a suite);
    ``progress(done, total)`` after each move. OracleError naming the move for one that cannot
    be played."""
    review = Review([], start)
    state = start
    for number, text in enumerate(moves, 1):
        if state.is_over:
            raise OracleError(f"move {number} ({text}) comes after the end of the game")
        try:
            after = state.play(text)
        except (GameError, ValueError) as err:
            raise OracleError(f"move {number}: {err}") from None
        if number <= opening:  # chosen by the arena, not by the player
            reviewed, tally = unjudged_move(state, text, ARENA_OPENING), None
        else:
            reviewed, tally = review_move(state, text, judge, from_ply)
        review.moves.append(reviewed)
        if tally is not None:
            review.tallies[reviewed.mover].add(tally)
        state = after
        if progress is not None:
            progress(number, len(moves))
    review.final = state
    return review


@dataclass(frozen=True)
class StoredMistake:
    """A thrown win or a lost draw in a stored game: the game's index, the player and the move."""

    game: int
    player: str
    move: ReviewedMove

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {"game": self.game, "player": self.player, **self.move.to_json()}


@dataclass
class TournamentReview:
    """Stored games reviewed: each player's (spec's) tally and games, and every mistake."""

    players: dict[str, Tally] = field(default_factory=dict)
    games: dict[str, int] = field(default_factory=dict)
    mistakes: list[StoredMistake] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {
            "players": [
                {"player": spec, "games": self.games[spec], **tally.to_json()}
                for spec, tally in self.players.items()
            ],
            "mistakes": [mistake.to_json() for mistake in self.mistakes],
        }


def review_games(
    start: Any,
    records: Sequence[GameRecord],
    judge: ExactPlay,
    from_ply: int = 0,
    progress: Progressed | None = None,
) -> TournamentReview:
    """Review stored games played from ``start`` (see :func:`review_game`; their arena openings
    are not judged): each player's moves counted under its spec, whichever colour it played;
    ``progress(done, total)`` after each game."""
    reviewed = TournamentReview()
    for number, record in enumerate(records, 1):
        review = review_game(start, record.moves, judge, from_ply, opening=len(record.opening))
        specs = (record.first_spec, record.second_spec)
        for spec in dict.fromkeys(specs):  # a spec that played itself counts its game once
            reviewed.games[spec] = reviewed.games.get(spec, 0) + 1
        for side, spec in enumerate(specs):
            reviewed.players.setdefault(spec, Tally()).add(review.tallies[side])
        reviewed.mistakes += [StoredMistake(record.index, specs[m.mover], m) for m in review.mistakes]
        if progress is not None:
            progress(number, len(records))
    return reviewed


def review_move(
    state: Any, move: str, judge: ExactPlay, from_ply: int = 0
) -> tuple[ReviewedMove, Tally | None]:
    """The review of ``move`` (a legal move, in the game's notation) played in ``state``, and
    its tally (None where not judged: a position the judge does not cover, or one before
    ``from_ply``). :func:`review_game` judges each move of a game with it; the web page's
    review asks it one move at a time."""
    mover, ply, action = int(state.to_move), int(state.ply), action_index(state, move)
    shown = str(state.move_from_index(action))
    reason = f"before ply {from_ply}" if ply < from_ply else judge.uncovered(state)
    if reason is not None:
        return unjudged_move(state, move, reason), None
    values = judged_values(judge, state)
    chosen = next(v for v in values if v.action == action)
    reviewed = ReviewedMove(
        ply,
        mover,
        shown,
        _verdict(values, chosen),
        value=max(v.value for v in values),
        played=chosen.value,
        plies=chosen.depth,
        best=_best_moves(state, values),
    )
    return reviewed, judge_move(values, action)


def unjudged_move(state: Any, move: str, why: str) -> ReviewedMove:
    """``move`` (a legal move of ``state``, in the game's notation) not judged, because ``why``."""
    shown = str(state.move_from_index(action_index(state, move)))
    return ReviewedMove(int(state.ply), int(state.to_move), shown, Verdict.UNJUDGED, why=why)


@dataclass(frozen=True)
class ReviewRow:
    """Moves a review's table shows in one row: a judged move alone, or consecutive moves not
    judged, with one reason for them all (``why``)."""

    moves: tuple[ReviewedMove, ...]
    why: str = ""


def review_rows(start: Any, moves: Sequence[ReviewedMove], judge: ExactPlay) -> list[ReviewRow]:
    """The moves of a game reviewed from ``start`` in rows: each judged move alone, and
    consecutive moves not judged together where their reason is the same or of one kind the
    judge says at once (5x5 Quixo's boards with more blank cubes than its tables hold, each
    with its own count: ``boards of 12 to 20 blank cubes: ...``, see
    :meth:`~boardlab.games.ExactPlay.uncovered_run`)."""
    rows: list[ReviewRow] = []
    run: list[tuple[ReviewedMove, Any]] = []  # the moves not judged since the last row, with their positions

    def close_run() -> None:
        if run:
            why = _run_reason(run, judge) or run[0][0].why
            rows.append(ReviewRow(tuple(move for move, _ in run), why))
            run.clear()

    state = start
    for move in moves:
        if move.verdict is not Verdict.UNJUDGED:
            close_run()
            rows.append(ReviewRow((move,)))
        else:
            # a move goes with the one before it: reasons of one kind hold for a whole run
            if run and _run_reason([run[-1], (move, state)], judge) is None:
                close_run()
            run.append((move, state))
        state = state.play(move.move)
    close_run()
    return rows


def _run_reason(run: Sequence[tuple[ReviewedMove, Any]], judge: ExactPlay) -> str | None:
    """One reason for moves not judged (each with its position): the one they all give, else
    the judge's for them all where each is the judge's own reason (not ``--from-ply``'s, say)
    and the judge says them at once; None where they do not go together."""
    whys = {move.why for move, _ in run}
    from_judge = all(move.why == judge.uncovered(state) for move, state in run)
    if from_judge and (together := judge.uncovered_run([state for _, state in run])) is not None:
        return together
    return whys.pop() if len(whys) == 1 else None


def _verdict(values: Sequence[MoveValue], chosen: MoveValue) -> Verdict:
    best_value = max(v.value for v in values)
    if chosen.rank == max(v.rank for v in values):
        return Verdict.BEST
    if chosen.value == best_value:
        return Verdict.KEPT
    return Verdict.THREW_WIN if best_value == WIN else Verdict.LOST_DRAW


def _best_moves(state: Any, values: Sequence[MoveValue]) -> tuple[str, ...]:
    top = max(v.rank for v in values)
    return tuple(str(state.move_from_index(v.action)) for v in values if v.rank == top)


__all__ = [
    "ARENA_OPENING",
    "Progressed",
    "Review",
    "ReviewRow",
    "ReviewedMove",
    "StoredMistake",
    "TournamentReview",
    "Verdict",
    "review_game",
    "review_games",
    "review_move",
    "review_rows",
    "unjudged_move",
]
