"""The one game loop: moves, clocks, undo, resign, forfeits, repetition, ply cap and records."""

from __future__ import annotations

import functools
import json
import random
import time
from collections import Counter
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest
from forfeits import Raised
from hypothesis import given
from hypothesis import strategies as st

from boardlab.agents.base import Agent, make_agent
from boardlab.agents.decision import Decision, Limit, LimitError, SearchInfo
from boardlab.games import Outcome, Reason, new_game, parse_game
from boardlab.games.base import GameOverError, IllegalMoveError
from boardlab.play.referee import AgentForfeit, AgentProcess, is_legal, read_decision
from boardlab.play.session import Session, SessionError, SessionRecord, Turn, random_opening


class FakeClock:
    """A timer that moves only when an agent says it thought."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class Scripted(Agent):
    """Plays the first legal move, spending ``cost`` seconds of a fake clock, with a decision."""

    name = "test-scripted"

    def __init__(self, clock: FakeClock, cost: float = 1.0) -> None:
        super().__init__(seed=0)
        self.clock, self.cost, self.resets = clock, cost, 0

    def act(self, state: Any, limit: Limit | None = None) -> Decision:
        self.clock.now += self.cost
        move = state.legal_moves()[0]
        return Decision(move, value=0.5, info=SearchInfo(depth=3, nodes=7, pv=(str(move),)))

    def new_game(self) -> None:
        self.resets += 1


class Failing(Agent):
    """Fails in a chosen way on its move."""

    name = "test-failing"

    def __init__(self, how: str) -> None:
        super().__init__(seed=0)
        self.how = how

    def choose(self, state: Any) -> Any:
        if self.how == "raise":
            raise RuntimeError("broken on purpose")
        if self.how == "exit":
            raise SystemExit(7)
        if self.how == "illegal":
            legal = set(state.legal_indices())
            return state.game.move_of(next(a for a in range(state.kernel.num_actions) if a not in legal))
        if self.how == "sleep":
            time.sleep(0.1)
            return state.legal_moves()[0]
        return "not a move"


def random_moves(state: Any, rng: random.Random, plies: int) -> list[Any]:
    moves = []
    for _ in range(plies):
        if state.is_over:
            break
        move = rng.choice(state.legal_moves())
        moves.append(move)
        state = state.play(move)
    return moves


# --- moves, clocks and undo ------------------------------------------------------------------


def test_agents_and_people_alternate_and_clocks_count_the_agents_time() -> None:
    clock = FakeClock()
    session = Session(new_game("tictactoe"), (None, Scripted(clock, 2.5)), timer=clock)
    session.play("b2")
    turn = session.agent_move()
    assert isinstance(turn, Turn) and turn.mover == 1 and turn.seconds == 2.5
    assert turn.decision is not None and turn.decision.info is not None
    assert session.clocks == (0.0, 2.5)
    assert session.moves == ["b2", str(turn.move)] and session.state.ply == 2
    with pytest.raises(SessionError, match="played by a person"):
        session.agent_move()


def test_undo_restores_the_position_the_clocks_and_resets_the_agents() -> None:
    clock = FakeClock()
    agent = Scripted(clock, 1.0)
    session = Session(new_game("quixo"), (None, agent), timer=clock)
    session.play("a1e1")
    session.agent_move()
    before = (session.state, session.clocks, list(session.moves))
    session.play("b1b5")
    session.agent_move()
    assert session.clocks == (0.0, 2.0)
    taken = session.undo(side=0)
    assert [t.notation for t in taken][:1] == ["b1b5"] and len(taken) == 2
    assert (session.state, session.clocks, session.moves) == before
    assert agent.resets == 1
    session.undo()  # the agent's move alone
    assert session.state.ply == 1 and session.clocks == (0.0, 0.0)


def test_nothing_to_undo_is_refused() -> None:
    session = Session(new_game("nim"))
    with pytest.raises(SessionError, match="nothing to take back"):
        session.undo()
    session.play(session.state.legal_moves()[0])
    with pytest.raises(SessionError):
        session.undo(side=1)


def test_an_illegal_human_move_changes_nothing() -> None:
    session = Session(new_game("tictactoe"))
    session.play("a1")
    with pytest.raises(IllegalMoveError):
        session.play("a1")
    assert session.moves == ["a1"] and session.state.ply == 1


# --- arguments a session cannot take -----------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"limits": (-5, -5)}, r"limits\[0\] is None or a number of seconds > 0, got -5 \(int\)"),
        ({"limits": (None, 0)}, r"limits\[1\] is None or a number of seconds > 0, got 0 \(int\)"),
        ({"limits": (None, "x")}, r"limits\[1\] is None or a number of seconds > 0, got 'x'"),
        ({"limits": (None, float("inf"))}, r"limits\[1\] is None or a number of seconds > 0"),
        ({"limits": (True, None)}, r"limits\[0\]"),
        ({"limits": "ab"}, "two sides"),
        ({"repetitions": 2.5}, r"repetitions is None or a whole number >= 2, got 2.5 \(float\)"),
        ({"repetitions": "3"}, r"repetitions is None or a whole number >= 2, got '3' \(str\)"),
        ({"repetitions": 1}, "repetitions is None or a whole number >= 2"),
        (
            {"agents": ("random", None)},
            r"agents\[0\] is an agent \(make_agent\(spec\)\) or None, got 'random'",
        ),
        ({"agents": (None,)}, "two sides"),
        ({"agents": (None, SimpleNamespace(act="a1"))}, r"agents\[1\] is an agent"),  # an act to call
    ],
)
def test_a_session_refuses_bad_arguments_when_it_is_made(options: dict[str, Any], message: str) -> None:
    options = dict(options)
    agents = options.pop("agents", (None, None))
    with pytest.raises(SessionError, match=message):
        Session(new_game("tictactoe"), agents, **options)


def test_a_session_starts_from_a_position_only() -> None:
    for start in ("connect4", parse_game("connect4"), None):
        with pytest.raises(SessionError, match="start is a position such as new_game"):
            Session(start)
    session = Session(new_game("nim"), limits=(np.float64(0.5), 2), repetitions=np.int64(3))
    assert session.limits == (0.5, 2.0) and session.repetitions == 3


def test_bad_calls_are_refused_before_anything_changes() -> None:
    session = Session(new_game("connect4"), (None, Scripted(FakeClock())))
    for seconds in (-1.0, float("nan"), "1"):
        with pytest.raises(SessionError, match="seconds is None or a number of seconds >= 0"):
            session.play("4", seconds=seconds)  # type: ignore[arg-type]
    with pytest.raises(SessionError, match="decision is a Decision or None"):
        session.play("4", decision="4")  # type: ignore[arg-type]
    assert session.moves == [] and session.clocks == (0.0, 0.0)
    for colour in (5, -1, True, "0"):
        with pytest.raises(SessionError, match="colour is 0 \\(the first player\\) or 1"):
            session.resign(colour)  # type: ignore[arg-type]
        with pytest.raises(SessionError, match="colour is 0"):
            session.forfeit(colour, "nonsense")  # type: ignore[arg-type]
        with pytest.raises(SessionError, match="colour is 0"):
            session.seat(colour, lambda: pytest.fail("an agent built for no colour"))  # type: ignore[arg-type]
    assert session.agents == [None, session.agents[1]]
    session.play("4")
    with pytest.raises(SessionError, match="side is 0"):
        session.undo(2)
    with pytest.raises(LimitError, match="a limit is a Limit or None"):  # the caller's mistake: no forfeit
        session.agent_move(5)  # type: ignore[arg-type]
    with pytest.raises(LimitError):
        session.run(5)  # type: ignore[arg-type]
    assert not session.is_over and session.moves == ["4"]


def test_a_record_gives_a_time_and_a_decision_for_each_move() -> None:
    session = Session(new_game("tictactoe"))
    session.play("b2", seconds=1.5)
    session.play("a1")
    record = session.record()
    with pytest.raises(SessionError, match="2 moves, 1 times, 2 decisions"):
        SessionRecord(record.game, record.start, record.moves, (1.5,), record.decisions, None)
    with pytest.raises(SessionError, match="2 moves, 2 times, 1 decisions"):
        SessionRecord(record.game, record.start, record.moves, record.seconds, (None,), None)
    with pytest.raises(SessionError, match="the time of move 2 is None or a number of seconds >= 0"):
        SessionRecord(record.game, record.start, record.moves, (1.5, -2.0), record.decisions, None)
    text = record.to_json().replace('"seconds":[1.5,null]', '"seconds":[1.5]')
    with pytest.raises(
        SessionError, match="not a game record: a record has a time and a decision for each move"
    ):
        SessionRecord.from_json(text)
    with pytest.raises(SessionError, match="replay takes a SessionRecord"):
        Session.replay(record.to_json())  # type: ignore[arg-type]


# --- resign and forfeit ----------------------------------------------------------------------


@pytest.mark.parametrize("colour", [0, 1])
def test_resigning_gives_the_game_to_the_other_side(colour: int) -> None:
    session = Session(new_game("connect4"))
    session.play("4")
    assert session.resign(colour) == Outcome(1 - colour, Reason.RESIGNATION)
    assert session.is_over and session.outcome.winner == 1 - colour  # type: ignore[union-attr]
    with pytest.raises(GameOverError):
        session.play("4")
    with pytest.raises(SessionError, match="resignation"):
        session.undo()


@pytest.mark.parametrize(
    ("how", "detail"),
    [
        ("raise", "raised RuntimeError: broken on purpose"),
        ("exit", "called sys.exit(7)"),
        ("illegal", "not a legal move"),
        ("garbage", "answered the text 'not a move'; an agent returns a move object"),
    ],
)
def test_an_agent_that_fails_forfeits(how: str, detail: str) -> None:
    session = Session(new_game("tictactoe"), (None, Failing(how)))
    session.play("b2")
    assert session.agent_move() is None
    outcome = session.outcome
    assert outcome is not None and outcome.reason is Reason.FORFEIT and outcome.winner == 0
    assert detail in outcome.detail
    assert session.moves == ["b2"]


def test_a_forfeit_says_what_an_agent_raised_in_one_short_line() -> None:
    class Noisy(Agent):
        name = "test-noisy"

        def choose(self, state: Any) -> Any:
            raise ValueError("a traceback-like story\n\tof many lines " * 500)

    session = Session(new_game("nim"), (Noisy(), None))
    assert session.agent_move() is None
    detail = session.outcome.detail  # type: ignore[union-attr]
    assert detail.startswith("raised ValueError: a traceback-like story of many lines a traceback")
    assert "\n" not in detail and "\t" not in detail and len(detail) <= 210


def test_an_agent_answering_a_bare_move_instead_of_a_decision_forfeits() -> None:
    class Bare:
        spec = "bare"

        def act(self, state: Any, limit: Limit | None = None) -> Any:
            return state.legal_moves()[0]  # a legal move, but not the Decision a session asks for

    session = Session(new_game("tictactoe"), (Bare(), None))
    assert session.agent_move() is None
    assert session.outcome is not None and session.outcome.reason is Reason.FORFEIT
    assert session.outcome.winner == 1 and session.moves == []
    assert session.record().outcome == session.outcome


def test_no_agent_moves_once_the_game_is_over() -> None:
    clock = FakeClock()
    agent = Scripted(clock)
    session = Session(new_game("connect4"), (None, agent), timer=clock)
    session.play("4")
    assert session.agent_to_move()
    session.resign(1)
    assert not session.agent_to_move()
    with pytest.raises(GameOverError):
        session.agent_move()
    assert session.moves == ["4"] and clock.now == 0.0  # the agent was not even asked


def test_thinking_times_are_kept_to_the_microsecond() -> None:
    clock = FakeClock()
    session = Session(new_game("nim"), (Scripted(clock, 0.1234567), None), timer=clock)
    turn = session.agent_move()
    assert turn is not None and turn.seconds == 0.123457
    assert session.record().seconds == (0.123457,)


def test_a_scripted_agent_over_its_limit_forfeits_even_when_its_move_comes() -> None:
    clock = FakeClock()
    session = Session(
        new_game("tictactoe"), (Scripted(clock, 0.5), Scripted(clock, 3.0)), limits=(1.0, 2.0), timer=clock
    )
    outcome = session.run()
    assert outcome == Outcome(0, Reason.FORFEIT, "took 3.00 s, over its limit of 2 s per move")
    assert len(session.moves) == 1  # the overdue move is not played
    assert session.clocks == (0.5, 0.0)


def test_a_sleeping_agent_over_its_limit_forfeits_on_the_real_clock() -> None:
    session = Session(new_game("nim"), (Failing("sleep"), None), limits=(0.01, None))
    assert session.agent_move() is None
    assert "over its limit of 0.01 s per move" in session.outcome.detail  # type: ignore[union-attr]


def test_an_agent_that_cannot_start_forfeits_before_play() -> None:
    events: list[dict[str, Any]] = []
    session = Session(new_game("tictactoe"), report=events.append)
    assert session.seat(0, lambda: make_agent("random", 1)) is None
    outcome = session.seat(1, lambda: make_agent("no-such-agent"))
    assert outcome is not None and outcome.winner == 0 and outcome.reason is Reason.FORFEIT
    assert outcome.detail.startswith("failed to start: unknown agent 'no-such-agent'")
    assert events == [{"setup": 0}, {"setup": 1}]


def test_seating_an_agent_prepares_it_and_resets_its_memory() -> None:
    clock = FakeClock()
    agent = Scripted(clock)
    session = Session(new_game("tictactoe"), timer=clock)
    assert session.seat(1, lambda: agent) is None
    assert session.agents == [None, agent] and agent.resets == 1
    assert Session(new_game("tictactoe"), (agent, None)).prepare_agents() is None
    assert agent.resets == 2


class ForgetsBadly(Scripted):
    """Plays like Scripted, but its memory reset fails from the ``failing``-th one on."""

    name = "test-forgets-badly"

    def __init__(self, clock: FakeClock, failing: int) -> None:
        super().__init__(clock)
        self.failing = failing

    def new_game(self) -> None:
        super().new_game()
        if self.resets >= self.failing:
            raise RuntimeError("cannot forget")


def test_the_first_agent_that_cannot_start_forfeits_and_the_other_is_not_prepared() -> None:
    clock = FakeClock()
    second = Scripted(clock)
    session = Session(new_game("tictactoe"), (ForgetsBadly(clock, 1), second), timer=clock)
    outcome = session.prepare_agents()
    detail = Raised("failed to start: raised RuntimeError: cannot forget", "test_session.py", "new_game")
    assert outcome == Outcome(1, Reason.FORFEIT, detail)
    assert session.outcome == outcome and second.resets == 0


def test_an_agent_that_fails_to_reset_after_an_undo_forfeits() -> None:
    clock = FakeClock()
    session = Session(new_game("tictactoe"), (None, ForgetsBadly(clock, 2)), timer=clock)
    assert session.prepare_agents() is None
    session.play("b2")
    session.agent_move()
    session.undo()
    detail = Raised("raised RuntimeError: cannot forget", "test_session.py", "new_game")
    assert session.outcome == Outcome(0, Reason.FORFEIT, detail)


def test_an_ended_game_cannot_be_resigned_or_forfeited_again() -> None:
    session = Session(new_game("tictactoe"))
    session.play("b2")
    first = session.forfeit(1, "answered nonsense")
    for end in (lambda: session.resign(0), lambda: session.forfeit(0, "late"), lambda: session.resign(1)):
        with pytest.raises(GameOverError, match="the game is over"):
            end()
    assert session.outcome == first


def test_a_keyboard_interrupt_is_the_users_unless_caught() -> None:
    class Interrupted(Agent):
        name = "test-interrupted"

        def choose(self, state: Any) -> Any:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        Session(new_game("nim"), (Interrupted(), None)).agent_move()
    caught = Session(new_game("nim"), (Interrupted(), None), catch_interrupt=True)
    assert caught.agent_move() is None and "KeyboardInterrupt" in caught.outcome.detail  # type: ignore[union-attr]


def test_run_reports_whose_clock_runs() -> None:
    clock = FakeClock()
    events: list[dict[str, Any]] = []
    session = Session(
        new_game("nim:piles=1"), (Scripted(clock), Scripted(clock)), timer=clock, report=events.append
    )
    session.run()
    assert events[0] == {"turn": 0}
    assert [e["move"] for e in events[1:]] == session.moves
    assert [e["turn"] for e in events[1:]] == [*[1 - i % 2 for i in range(len(session.moves) - 1)], None]


# --- the game's own endings --------------------------------------------------------------------


def naive_key(state: Any) -> str:
    """The position without its ply: the cubes and the side to move."""
    return " ".join(state.to_text().split()[:2])


def play_seeking_repetitions(seed: int, repetitions: int) -> tuple[Session, Counter[str]]:
    """A 4x4 Quixo game whose moves go back to a position already met when they can (most of
    the time), played in a session counting repetitions; the naive count of each position."""
    rng = random.Random(seed)
    session = Session(parse_game("quixo:size=4,ply_cap=80").initial(), repetitions=repetitions)
    counts = Counter([naive_key(session.state)])
    while not session.is_over:
        assert max(counts.values()) < repetitions
        moves = session.state.legal_moves()
        back = [m for m in moves if naive_key(session.state.play(m)) in counts]
        session.play(rng.choice(back if back and rng.random() < 0.8 else moves))
        counts[naive_key(session.state)] += 1
    return session, counts


@given(seed=st.integers(0, 2**32 - 1), repetitions=st.integers(2, 4))
def test_a_repeated_position_ends_the_game_when_repetitions_are_counted(seed: int, repetitions: int) -> None:
    session, counts = play_seeking_repetitions(seed, repetitions)
    outcome = session.outcome
    assert outcome is not None
    if counts[naive_key(session.state)] >= repetitions and session.state.outcome is None:
        assert outcome == Outcome(None, Reason.REPETITION, f"a position met {repetitions} times")
    else:
        assert outcome == session.state.outcome  # a win on the board, or the ply cap


@pytest.mark.parametrize("repetitions", [2, 3, 4])
def test_games_that_seek_repetitions_do_end_by_them(repetitions: int) -> None:
    reasons = Counter(play_seeking_repetitions(seed, repetitions)[0].outcome.reason for seed in range(20))  # type: ignore[union-attr]
    assert reasons[Reason.REPETITION] >= 5, reasons


def test_a_move_taken_back_no_longer_counts_towards_a_repetition() -> None:
    session = Session(parse_game("quixo:size=4").initial(), repetitions=2)
    move = session.state.legal_moves()[0]
    for _ in range(3):  # the same position reached again after each take-back: met once only
        session.play(move)
        assert not session.is_over
        session.undo()
    session.play(move)
    assert not session.is_over and session.outcome is None


def test_the_position_a_session_starts_from_counts_towards_a_repetition() -> None:
    # both sides shift one of their own cubes away and back: the start is met again, twice in all
    opening = Session(parse_game("quixo:size=4").initial())
    opening.play("a1d1")
    opening.play("a4d4")
    start = opening.state
    session = Session(start, repetitions=2)
    for move in ["d1d4", "d3d1", "d4d1"]:
        session.play(move)
        assert not session.is_over
    session.play("d2d4")
    assert naive_key(session.state) == naive_key(start)
    assert session.outcome == Outcome(None, Reason.REPETITION, "a position met 2 times")


def test_repetitions_are_not_counted_unless_asked() -> None:
    session = Session(parse_game("quixo:size=3,ply_cap=40").initial())
    rng = random.Random(1)
    while not session.is_over:
        session.play(rng.choice(session.state.legal_moves()))
    assert session.outcome is not None and session.outcome.reason is not Reason.REPETITION


@given(seed=st.integers(0, 2**32 - 1), cap=st.integers(1, 30))
def test_the_ply_cap_ends_the_game_as_the_rules_say(seed: int, cap: int) -> None:
    rng = random.Random(seed)
    session = Session(parse_game(f"quixo:size=4,ply_cap={cap}").initial())
    while not session.is_over:
        session.play(rng.choice(session.state.legal_moves()))
    outcome = session.outcome
    assert outcome == session.state.outcome and len(session.moves) <= cap
    if outcome is not None and outcome.reason is Reason.PLY_CAP:
        assert len(session.moves) == cap and outcome.winner is None


@given(seed=st.integers(0, 2**32 - 1), plies=st.integers(0, 8))
def test_a_random_opening_is_a_replayable_prefix_that_leaves_the_game_open(seed: int, plies: int) -> None:
    state, moves = random_opening("tictactoe", plies, seed)  # from 5 plies on, many end the game
    again = new_game("tictactoe")
    for move in moves:
        again = again.play(again.parse_move(move))
    assert len(moves) == plies and state == again and not state.is_over
    assert random_opening("tictactoe", plies, seed) == (state, moves)


def test_no_opening_that_leaves_the_game_open_is_refused() -> None:
    with pytest.raises(SessionError, match="no opening of 9 random plies"):
        random_opening("tictactoe", 9, 0)


# --- undo against a naive model ----------------------------------------------------------------


@given(seed=st.integers(0, 2**32 - 1), game=st.sampled_from(["tictactoe", "connect4", "nim", "quixo:size=4"]))
def test_random_moves_and_undos_agree_with_replaying_the_moves(seed: int, game: str) -> None:
    rng = random.Random(seed)
    start = parse_game(game).initial()
    session = Session(start, repetitions=3)
    played: list[tuple[Any, float]] = []  # the naive model: moves and their times
    for _ in range(60):
        if session.turns and (session.is_over or rng.random() < 0.3):
            side = rng.choice([None, 0, 1])
            movers = [i for i, t in enumerate(session.turns) if side is None or t.mover == side]
            if not movers:
                with pytest.raises(SessionError):
                    session.undo(side)
                continue
            taken = session.undo(side)
            assert [m for m, _ in played[movers[-1] :]] == [t.move for t in taken]
            del played[movers[-1] :]
        elif not session.is_over:
            seconds = rng.choice([None, round(rng.random(), 3)])
            played.append((rng.choice(session.state.legal_moves()), seconds or 0.0))
            session.play(played[-1][0], seconds=seconds)
        state = start
        for move, _ in played:
            state = state.play(move)
        assert session.state == state and session.positions[-1] == state
        assert session.clocks == pytest.approx(
            (
                sum(s for i, (_, s) in enumerate(played) if i % 2 == 0),
                sum(s for i, (_, s) in enumerate(played) if i % 2),
            )
        )


# --- the record ----------------------------------------------------------------------------


def played_session(game: str, seed: int, ending: str) -> Session:
    clock = FakeClock()
    rng = random.Random(seed)
    session = Session(parse_game(game).initial(), (None, Scripted(clock, 0.25)), timer=clock)
    for move in random_moves(session.state, rng, 1):
        session.play(move)
    while not session.is_over and len(session.moves) < 12:
        if session.agent_to_move():
            session.agent_move()
        else:
            session.play(rng.choice(session.state.legal_moves()))
    if not session.is_over and ending == "resign":
        session.resign(session.to_move)
    elif not session.is_over and ending == "forfeit":
        session.forfeit(1, "answered nonsense")
    return session


@pytest.mark.parametrize("ending", ["open", "resign", "forfeit"])
@given(seed=st.integers(0, 2**32 - 1), game=st.sampled_from(["tictactoe", "connect4", "nim", "quixo"]))
def test_a_record_round_trips_through_json_and_replays(ending: str, seed: int, game: str) -> None:
    session = played_session(game, seed, ending)
    record = session.record()
    again = SessionRecord.from_json(record.to_json())
    assert again == record
    replayed = Session.replay(again)
    assert replayed.positions == session.positions
    assert replayed.outcome == session.outcome and replayed.clocks == session.clocks
    assert replayed.record().moves == record.moves and replayed.record().seconds == record.seconds
    for said, turn in zip(record.decisions, session.turns, strict=True):
        if turn.decision is None:
            assert said is None
        else:
            assert said is not None and said["value"] == 0.5 and "move" not in said  # the move is in moves
            assert said["info"]["depth"] == 3 and said["info"]["pv"] == [turn.notation]


def test_a_move_played_in_no_time_keeps_its_time_through_json() -> None:
    session = Session(new_game("nim"))
    session.play(session.state.legal_moves()[0], seconds=0.0)
    session.play(session.state.legal_moves()[0])
    again = SessionRecord.from_json(session.record().to_json())
    assert again.seconds == (0.0, None)  # no time at all is not "not timed"


@pytest.mark.parametrize("text", ["", "{}", '{"game": "quixo"}', "[1, 2]", "nonsense"])
def test_a_broken_record_is_refused_in_one_line(text: str) -> None:
    with pytest.raises(SessionError, match="not a game record"):
        SessionRecord.from_json(text)


# --- decisions across a process --------------------------------------------------------------


def test_a_decision_crosses_the_process_boundary_whole() -> None:
    state = new_game("tictactoe")
    policy = np.zeros(9)
    policy[4] = 1.0
    decision = Decision(
        state.legal_moves()[4], policy=policy, value=-0.5, info=SearchInfo(depth=2, nodes=9, pv=("b2", "a1"))
    )
    back = read_decision(decision.to_json(), state)
    assert back == decision and np.array_equal(back.policy, policy)  # type: ignore[arg-type]


@given(
    index=st.integers(0, 8),
    weights=st.lists(st.floats(0.0, 1.0), min_size=9, max_size=9),
    value=st.one_of(st.none(), st.sampled_from([-1.0, 0.0, 1.0]), st.floats(-1.0, 1.0)),
    depth=st.integers(0, 40),
)
def test_any_decision_crosses_the_process_boundary_whole(
    index: int, weights: list[float], value: float | None, depth: int
) -> None:
    state = new_game("tictactoe")
    policy = np.array(weights) / (sum(weights) or 1.0)
    info = SearchInfo(depth=depth, nodes=depth * 3, seconds=0.25, score=value, pv=("b2",) * min(depth, 3))
    decision = Decision(state.legal_moves()[index], policy=policy, value=value, info=info)
    back = read_decision(json.loads(json.dumps(decision.to_json())), state)
    assert back == decision and back.policy is not None
    assert np.allclose(back.policy, policy, rtol=0, atol=1e-6)


def test_an_agent_process_answers_the_decision_of_the_agent_within_the_callers_limit() -> None:
    state = new_game("tictactoe")
    here = make_agent("minimax:depth=1", 3).act(state, Limit(depth=2))
    with AgentProcess("tictactoe", "minimax:depth=1", 3, None) as remote:
        there = remote.act(state, Limit(depth=2))
        assert remote.choose(state) == make_agent("minimax:depth=1", 3).choose(state)
    assert there.move == here.move and there.info is not None and here.info is not None
    assert (there.info.depth, there.info.nodes, there.info.pv) == (
        here.info.depth,
        here.info.nodes,
        here.info.pv,
    )


def test_an_agent_process_forwards_new_game_so_the_agent_forgets_its_last_game() -> None:
    # alpha-beta keeps its transposition table through a game: the same position searched
    # again costs a few nodes; after new_game it costs what it cost the first time
    state = new_game("connect4")
    with AgentProcess("connect4", "alphabeta:depth=6", 0, None) as remote:
        first, again = remote.act(state), remote.act(state)
        remote.new_game()
        afresh = remote.act(state)
    assert first.info is not None and again.info is not None and afresh.info is not None
    assert again.info.nodes < first.info.nodes
    assert afresh.info.nodes == first.info.nodes


@pytest.mark.parametrize("seconds", [0.1, 0.2, 0.21, 0.39])
def test_an_agent_process_whose_move_comes_over_its_limit_forfeits(seconds: float) -> None:
    state = new_game("tictactoe")
    said = Decision(state.legal_moves()[0]).to_json()
    remote = AgentProcess.__new__(AgentProcess)  # its child's reply stood in for: a move and its time
    remote.spec, remote.limit, remote.failed = "random", 0.2, None
    remote._ask = lambda *_: {"decision": said, "seconds": seconds}  # type: ignore[method-assign]
    if seconds <= 0.2:
        assert remote.act(state).move == state.legal_moves()[0]
    else:
        with pytest.raises(AgentForfeit, match=f"took {seconds:.2f} s, over its limit of 0.2 s per move"):
            remote.act(state)
        assert remote.failed is not None and remote.failed.startswith("took")


@pytest.mark.parametrize(
    ("clock", "wait", "overdue"),
    [
        (None, 5.0, "no move within {limit:g} s (stopped)"),
        (9.0, 5.0, "no move within {limit:g} s (stopped)"),
        (0.3, 0.3, "no move with 0.30 s left (stopped)"),  # less on the clock than a move may take
    ],
)
def test_an_agent_process_waits_for_its_limit_or_what_is_left_on_its_clock_if_less(
    clock: float | None, wait: float, overdue: str
) -> None:
    state = new_game("tictactoe")
    said = Decision(state.legal_moves()[0]).to_json()
    asked: list[tuple[float | None, str]] = []

    def ask(request: Any, limit: float | None, overdue: str) -> dict[str, Any]:
        asked.append((limit, overdue))
        return {"decision": said, "seconds": 0.01}

    remote = AgentProcess.__new__(AgentProcess)  # its child's reply stood in for
    remote.spec, remote.limit, remote.failed = "random", 5.0, None
    remote._ask = ask  # type: ignore[method-assign]
    remote.act(state, Limit(clock=clock))
    assert asked == [(wait, overdue)]


def test_a_legality_check_that_fails_says_not_legal() -> None:
    assert not is_legal(None, "a1") and not is_legal("not a state", 3)
    assert is_legal(new_game("tictactoe"), new_game("tictactoe").legal_moves()[0])


def test_a_session_plays_an_agent_process_and_records_its_search() -> None:
    with AgentProcess("tictactoe", "minimax:depth=2", 0, 30.0) as remote:
        session = Session(new_game("tictactoe"), (remote, None), limits=(30.0, None))
        assert session.prepare_agents() is None
        turn = session.agent_move()
    assert turn is not None and turn.decision is not None and turn.decision.info is not None
    assert session.record().decisions[0]["info"]["depth"] == 2  # type: ignore[index]


def test_an_agent_process_is_warmed_up_so_its_first_move_is_timed_on_thinking_only() -> None:
    # reading the first position and generating moves compile the game's code (tenths of a
    # second in a fresh process): that belongs to the start-up, not to the first move's clock
    with AgentProcess("tictactoe", "random", 0, 0.25) as remote:
        session = Session(new_game("tictactoe"), (None, remote), limits=(None, 0.25))
        assert session.prepare_agents() is None
        session.play(session.state.legal_moves()[4])
        turn = session.agent_move()
        assert turn is not None and session.outcome is None, session.outcome


class CompilesOnce(Scripted):
    """Plays like Scripted, but compiles (10 s of the session's clock) once, in ``prepare`` or
    else at its first move."""

    name = "test-compiles-once"
    compiled = False

    def prepare(self, game: Any) -> None:
        self._compile()

    def act(self, state: Any, limit: Limit | None = None) -> Decision:
        self._compile()
        return super().act(state, limit)

    def _compile(self) -> None:
        if not self.compiled:
            self.clock.now += 10.0
            self.compiled = True


@pytest.mark.parametrize("timed", [True, False])
def test_run_on_limits_prepares_the_agents_first_and_charges_no_move_for_it(timed: bool) -> None:
    clock = FakeClock()
    agents = (CompilesOnce(clock), CompilesOnce(clock))
    limits = (2.0, 2.0) if timed else (None, None)
    session = Session(new_game("tictactoe"), agents, limits=limits, timer=clock)
    outcome = session.run()
    assert outcome.reason is Reason.RULE or outcome.reason is Reason.DRAW, outcome
    assert agents[0].resets == (1 if timed else 0)  # prepared (and reset) once, before the first move
    first_moves = [turn.seconds for turn in session.turns[:2]]
    assert first_moves == ([1.0, 1.0] if timed else [11.0, 11.0])  # untimed: nothing is lost by it


@pytest.mark.parametrize("debug", [True, False])
def test_boardlab_debug_shows_where_an_agent_raised(
    debug: bool, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    if debug:
        monkeypatch.setenv("BOARDLAB_DEBUG", "1")
    else:
        monkeypatch.delenv("BOARDLAB_DEBUG", raising=False)
    outcome = Session(new_game("tictactoe"), (Failing("raise"), None)).run()
    assert outcome.detail == Raised("raised RuntimeError: broken on purpose", "test_session.py", "choose")
    shown = capsys.readouterr().err
    if debug:
        assert "Traceback" in shown and "test_session.py" in shown and "in choose" in shown
    else:
        assert shown == ""


def test_a_failure_in_boardlab_s_own_code_names_no_place_and_one_in_an_agent_s_does() -> None:
    session = Session(new_game("tictactoe"))
    failed = session.seat(0, functools.partial(parse_game, "no-such-game"))  # boardlab's code alone
    assert failed is not None and failed.detail.startswith("failed to start: raised GameOptionError")
    assert "(at " not in failed.detail
    outcome = Session(new_game("tictactoe"), (Failing("exit"), None)).run()
    assert outcome.detail == Raised("called sys.exit(7)", "test_session.py", "choose")


def test_a_session_s_repr_says_the_game_the_moves_and_who_is_to_move_or_how_it_ended() -> None:
    session = Session(new_game("tictactoe"))
    assert repr(session) == "<Session of tictactoe: 0 moves, X to move>"
    for move in ("a1", "b1", "a2", "b2", "a3"):
        session.play(move)
    assert repr(session) == "<Session of tictactoe: 5 moves, X wins (three in a row)>"
