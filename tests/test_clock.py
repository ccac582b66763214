"""Game clocks: time controls, how an agent shares its clock out, losing on time in a session,
in the arena's workers (a hung agent stopped at its clock) and from the command line."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import broken_players
import napping_player
import numpy as np
import pytest
import typer
from forfeits import Raised
from hypothesis import given
from hypothesis import strategies as st
from records import game_record
from test_session import FakeClock
from typer.testing import CliRunner

from boardlab.agents.base import Agent, make_agent
from boardlab.agents.decision import (
    MOVE_OVERHEAD,
    MOVES_TO_GO,
    Decision,
    Limit,
    LimitError,
    call_limit,
    clock_share,
    moves_left,
)
from boardlab.arena.report import forfeit_lines
from boardlab.arena.runner import match, run_tournament
from boardlab.arena.schedule import ArenaError, TournamentConfig, build_schedule
from boardlab.arena.store import Store
from boardlab.games import Outcome, Reason, new_game
from boardlab.games.base import GameOverError
from boardlab.play.clock import (
    MAX_PERIOD_MOVES,
    MOVE_RESERVE,
    ClockTooShortError,
    TimeControl,
    TimeControlError,
    reading_text,
)
from boardlab.play.referee import AgentForfeit
from boardlab.play.session import Session, SessionError
from boardlab.ui import arena as arena_cli
from scripts import load_script

SECONDS = st.floats(min_value=0.0, max_value=1e5, allow_nan=False)


# --- time controls -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "base", "increment", "shown"),
    [
        ("60", 60, 0, "60"),
        (" 60+0.5 ", 60, 0.5, "60+0.5"),
        ("1.5+0", 1.5, 0, "1.5"),
        ("2e1+1", 20, 1, "20+1"),
        ("40/60", 60, 0, "40/60"),
        (" 10/2.5+0.1", 2.5, 0.1, "10/2.5+0.1"),
        ("007/60+0", 60, 0, "7/60"),
        ("1/60", 60, 0, "1/60"),  # a minute more after every move: not a minute for the game
        (f"{MAX_PERIOD_MOVES}/60", 60, 0, f"{MAX_PERIOD_MOVES}/60"),
    ],
)
def test_a_time_control_reads_moves_base_and_increment(
    text: str, base: float, increment: float, shown: str
) -> None:
    control = TimeControl.parse(text)
    assert (control.base, control.increment, str(control)) == (base, increment, shown)
    assert control.moves == (int(text.partition("/")[0]) if "/" in text else 0)


@given(
    st.floats(min_value=MOVE_RESERVE, max_value=1e5),
    st.floats(min_value=0, max_value=1e5),
    st.integers(0, MAX_PERIOD_MOVES),
)
def test_a_time_control_written_reads_back_the_same(base: float, increment: float, moves: int) -> None:
    control = TimeControl(base, increment, moves)
    assert TimeControl.parse(str(control)) == control


@pytest.mark.parametrize(
    "text",
    [
        *("", "0", "-5", "60+", "+1", "60+-1", "nan", "inf+1", "60+x", "1e9", "a minute"),
        *("0/60", "/60", "-1/60", "1.5/60", "40/", "40/0", "x/60", "1/2/60", "10001/60", "4 0/60"),
        *("+40/60", "4_0/60"),
    ],
)
def test_a_bad_time_control_is_refused_in_one_line(text: str) -> None:
    with pytest.raises(TimeControlError, match="BASE, BASE\\+INCREMENT or MOVES/BASE") as caught:
        TimeControl.parse(text)
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize(
    ("text", "least"),
    [("0.001", "0.05"), ("0.049+1", "0.05+1"), ("40/0.01", "40/0.05"), ("1e-9", "0.05")],
)
def test_a_base_below_what_each_move_keeps_back_is_refused_naming_the_least_that_works(
    text: str, least: str
) -> None:
    with pytest.raises(ClockTooShortError) as caught:
        TimeControl.parse(text)
    said = str(caught.value)
    assert "\n" not in said and said.endswith(f"the least that works is {least}")
    assert f"less than the {MOVE_RESERVE:g} s every move keeps back" in said
    assert MOVE_RESERVE == MOVE_OVERHEAD  # what an agent's share of its clock leaves
    assert str(TimeControl.parse(least)) == least  # and that is taken


def test_a_loss_on_a_short_clock_is_told_in_milliseconds() -> None:
    assert [reading_text(s) for s in (4.5, 0.3, 0.1, 0.0999, 0.0013, 0.0)] == [
        "4.50 s",
        "0.30 s",
        "0.10 s",
        "99.9 ms",
        "1.3 ms",
        "0.0 ms",
    ]
    assert reading_text(7.0, 1) == "7.0 s"
    timer = FakeClock()
    session = Session(
        new_game("connect4"),
        (Clocked(timer, 0.001, 0.001), Clocked(timer, 0.0013, 0.0513)),
        time_control=TimeControl(0.05),
        timer=timer,
    )
    outcome = session.run()
    assert (outcome.winner, outcome.reason) == (0, Reason.TIME)
    assert outcome.detail == "took 51.3 ms with 48.7 ms left"


@pytest.mark.parametrize("moves", [-1, 1.5, True, "40", MAX_PERIOD_MOVES + 1])
def test_a_time_control_refuses_moves_that_are_no_count_of_moves(moves: Any) -> None:
    with pytest.raises(TimeControlError, match="moves per period are 0 to"):
        TimeControl(60, 0, moves)


@pytest.mark.parametrize(
    "limit", [{"clock": 0}, {"clock": -1.0}, {"clock": float("inf")}, {"increment": -0.5}, {"clock": True}]
)
def test_a_limit_refuses_a_clock_that_is_no_time(limit: dict[str, Any]) -> None:
    with pytest.raises(LimitError, match="seconds"):
        Limit(**limit)


@pytest.mark.parametrize("moves_to_go", [0, -3, 2.0, True])
def test_a_limit_refuses_moves_to_go_that_are_no_count(moves_to_go: Any) -> None:
    with pytest.raises(LimitError, match="moves_to_go limit is a positive whole number"):
        Limit(clock=10, moves_to_go=moves_to_go)


def test_a_time_control_takes_numpy_numbers_and_keeps_them_as_pythons() -> None:
    control = TimeControl(np.float64(60), np.int16(1), np.int64(40))
    assert control == TimeControl(60, 1, 40)
    assert json.dumps(vars(control)) == '{"base": 60.0, "increment": 1.0, "moves": 40}'


def test_a_clock_of_periods_gains_its_base_after_each_period_and_says_what_it_must_last() -> None:
    control = TimeControl(60, 1, 3)
    assert [control.left([2.0] * made) for made in range(7)] == [60, 59, 58, 117, 116, 115, 174]
    assert [control.moves_to_go(made) for made in range(7)] == [3, 2, 1, 3, 2, 1, 3]
    assert TimeControl(60, 1).moves_to_go(5) is None
    assert TimeControl(60, 1).left([2.0] * 6) == 60 - 6


# --- sharing a clock out ------------------------------------------------------------------------


@given(SECONDS, SECONDS, st.integers(1, 100))
def test_a_share_never_spends_the_clock_to_its_overhead(clock: float, increment: float, moves: int) -> None:
    share = clock_share(clock, increment, moves)
    assert share >= 0.001
    if clock >= MOVE_OVERHEAD + 0.001:
        assert clock - share >= MOVE_OVERHEAD - 1e-9
    if moves > 1 and clock > MOVE_OVERHEAD + 0.002:
        assert share <= (clock - MOVE_OVERHEAD) / 2 + 1e-9


@given(st.floats(MOVE_OVERHEAD, 1000.0), st.floats(0.0, 10.0), st.integers(1, 40), st.integers(1, 90))
def test_thinking_each_share_of_a_period_in_full_never_empties_the_clock(
    base: float, increment: float, moves: int, plies: int
) -> None:
    control, spent = TimeControl(base, increment, moves), []
    state = new_game("quixo").initial()
    for _ in range(plies):
        limit = Limit(
            clock=control.left(spent), increment=increment, moves_to_go=control.moves_to_go(len(spent))
        )
        spent.append(limit.for_position(state).time)
        assert control.left(spent[:-1]) - spent[-1] > 0
        if len(spent) % moves == 0:  # the period's last move may use its clock to the overhead
            assert control.left(spent[:-1]) - spent[-1] <= MOVE_OVERHEAD + 1e-9


@given(st.floats(MOVE_OVERHEAD, 1000.0), st.floats(0.0, 10.0), st.integers(1, 45))
def test_thinking_each_share_in_full_never_empties_the_clock(
    base: float, increment: float, plies: int
) -> None:
    clock = base
    for ply in range(plies):  # a millisecond on an empty clock: 45 of them fit in its overhead
        clock += increment - clock_share(clock, increment, max(1, MOVES_TO_GO - ply % MOVES_TO_GO))
        assert clock > 0


def test_a_share_is_the_clock_over_the_moves_left_and_most_of_the_increment() -> None:
    assert clock_share(20.05, 0.0, 20) == pytest.approx(1.0)
    assert clock_share(20.05, 1.0, 20) == pytest.approx(1.8)
    assert clock_share(1.05, 0.0, 1) == pytest.approx(1.0)  # the last move may take what is left
    assert clock_share(1.05, 5.0, 2) == pytest.approx(0.5)  # never more than half before it


@pytest.mark.parametrize(
    ("game", "moves", "left"),
    [
        ("connect4", [], MOVES_TO_GO),
        ("connect4", ["4"] * 6 + ["3"] * 6 + ["5"] * 6, 12),
        ("tictactoe", [], 5),
    ],
)
def test_the_moves_left_follow_the_games_bound_on_its_length(game: str, moves: list[str], left: int) -> None:
    state = new_game(game)
    for move in moves:
        state = state.play(move)
    assert moves_left(state) == left


def test_a_tictactoe_last_move_gets_the_whole_clock() -> None:
    state = new_game("tictactoe")
    for move in ("b2", "a1", "c3", "a3", "a2", "c1", "b1", "b3"):
        state = state.play(move)
    assert moves_left(state) == 1


def test_a_clock_replaces_the_agents_own_time_and_a_time_given_with_it_caps_it() -> None:
    state = new_game("connect4")
    default = Limit(time=5.0, depth=7)
    decided = call_limit(Limit(clock=20.05), default, state)
    assert decided.time == pytest.approx(1.0)  # the clock is turned into a time
    assert decided == Limit(time=decided.time, depth=7)
    assert call_limit(Limit(clock=20.05, time=0.25), default, state).time == 0.25
    assert call_limit(Limit(depth=3), default, state) == Limit(time=5.0, depth=3)
    with pytest.raises(LimitError, match="needs the position"):
        call_limit(Limit(clock=1.0), default)


def test_a_clock_is_shared_over_the_moves_to_go_or_the_fewer_moves_the_game_has_left() -> None:
    limit = Limit(clock=4.05, increment=1.0, moves_to_go=4, depth=7)
    decided = limit.for_position(new_game("connect4"))
    assert decided.time == pytest.approx(4.0 / 4 + 0.8 * 1.0)
    assert replace(decided, time=None) == Limit(depth=7)  # the clock is spent: nothing of it is left over
    assert replace(limit, moves_to_go=1).for_position(new_game("connect4")).time == pytest.approx(4.0)
    last = new_game("tictactoe")
    for move in ("b2", "a1", "c3", "a3", "a2", "c1", "b1", "b3"):
        last = last.play(move)
    # the period has 40 moves to go, but the game ends with this one: the whole clock is the move's
    assert replace(limit, moves_to_go=40).for_position(last).time == pytest.approx(4.0)


# --- a session on a clock ----------------------------------------------------------------------


class Clocked(Agent):
    """Plays the first legal move after thinking ``costs`` seconds of a fake clock in turn, and
    keeps each limit it was given."""

    name = "test-clocked"

    def __init__(self, clock: FakeClock, *costs: float) -> None:
        super().__init__(seed=0)
        self.clock, self.costs, self.limits = clock, costs, []

    def act(self, state: Any, limit: Limit | None = None) -> Decision:
        self.limits.append(limit)
        self.clock.now += self.costs[len(self.limits) - 1]
        return Decision(state.legal_moves()[0])


def test_each_move_is_charged_to_its_side_and_the_increment_added() -> None:
    timer = FakeClock()
    first, second = Clocked(timer, 1.0, 2.0, 0.5), Clocked(timer, 3.0, 1.0)
    events: list[dict[str, Any]] = []
    session = Session(
        new_game("tictactoe"),
        (first, second),
        time_control=TimeControl(10, 0.5),
        timer=timer,
        report=events.append,
    )
    assert (session.clock_left(0), session.clock_left(1)) == (10, 10)
    for _ in range(4):
        session.agent_move()
    assert (session.clock_left(0), session.clock_left(1)) == (10 + 1 - 3, 10 + 1 - 4)
    assert [limit.clock for limit in first.limits] == [10, 9.5]
    assert [limit.clock for limit in second.limits] == [10, 7.5]
    assert {limit.increment for limit in first.limits + second.limits} == {0.5}
    assert [e["left"] for e in events if "move" in e] == [10, 9.5, 7.5, 8.0]
    session.undo()
    assert session.clock_left(1) == 10 + 0.5 - 3


def test_a_session_on_a_clock_of_periods_tells_each_agent_the_moves_to_go_and_adds_the_base() -> None:
    timer = FakeClock()
    first, second = Clocked(timer, 1.0, 2.0, 0.5), Clocked(timer, 3.0, 1.0)
    session = Session(new_game("tictactoe"), (first, second), time_control=TimeControl(10, 0, 2), timer=timer)
    for _ in range(4):
        session.agent_move()
    assert [limit.moves_to_go for limit in first.limits] == [2, 1]
    assert [limit.clock for limit in first.limits] == [10, 9]
    assert (session.clock_left(0), session.clock_left(1)) == (10 + 10 - 3, 10 + 10 - 4)
    session.agent_move()
    assert (first.limits[-1].moves_to_go, first.limits[-1].clock) == (2, 17)
    session.undo()
    assert session.clock_left(0) == 17


def test_a_clock_of_periods_counts_the_moves_charged_to_it_from_where_the_session_began() -> None:
    timer = FakeClock()
    resumed = new_game("connect4").play("4").play("4")  # a game taken up at its third ply
    first, second = Clocked(timer, 1.0, 2.0, 0.5), Clocked(timer, 3.0, 1.0)
    session = Session(resumed, (first, second), time_control=TimeControl(10, 1, 2), timer=timer)
    session.play("4")  # given untimed, as an opening's move: charged to no clock
    assert (session.clock_left(0), session.moves_to_go(0)) == (10, 2)
    for _ in range(4):
        session.agent_move(Limit(depth=3))  # the caller's limit goes with the clock
    told = [(limit.clock, limit.moves_to_go) for limit in second.limits + first.limits]
    assert told == [(10, 2), (8, 1), (10, 2), (10, 1)]  # the first side's untimed move not counted
    assert {(limit.depth, limit.increment) for limit in second.limits + first.limits} == {(3, 1.0)}
    # each side's second move ended its period: the base again, and an increment after each move
    left = [(session.clock_left(colour), session.moves_to_go(colour)) for colour in (0, 1)]
    assert left == [(10 + 10 + 2 - 3, 2), (10 + 10 + 2 - 4, 2)]
    session.undo()  # back across the end of the first side's period
    assert (session.clock_left(0), session.moves_to_go(0)) == (10, 1)
    session.agent_move()
    assert first.limits[-1] == Limit(clock=10, increment=1.0, moves_to_go=1)
    with pytest.raises(SessionError, match="colour is 0"):
        session.moves_to_go(5)


def test_thinking_past_the_clock_loses_on_time_and_plays_nothing() -> None:
    timer = FakeClock()
    session = Session(
        new_game("connect4"),
        (Clocked(timer, 2.0, 2.0), Clocked(timer, 1.0, 4.5)),
        time_control=TimeControl(5),
        timer=timer,
    )
    outcome = session.run()
    assert (outcome.winner, outcome.reason) == (0, Reason.TIME)
    assert outcome.detail == "took 4.50 s with 4.00 s left"
    assert len(session.moves) == 3
    assert outcome.text() == "X wins (on time: took 4.50 s with 4.00 s left)"
    with pytest.raises(SessionError, match="nothing can be taken back"):
        session.undo()
    again = Session.replay(session.record(), time_control=TimeControl(5))
    assert again.outcome == outcome


def test_a_side_whose_clock_is_empty_at_its_turn_loses_without_being_asked() -> None:
    timer = FakeClock()
    agent = Clocked(timer)
    session = Session(new_game("tictactoe"), (None, agent), time_control=TimeControl(1), timer=timer)
    session.play("b2", seconds=0.2)
    session.play("a1", seconds=1.5)  # a move played for the agent's side, over its clock
    session.play("c3", seconds=0.2)
    assert session.agent_move() is None and agent.limits == []
    assert session.outcome is not None and session.outcome.reason is Reason.TIME
    assert session.outcome.winner == 0 and "empty" in session.outcome.detail


class StoppedAtItsClock(Agent):
    """Thinks ``cost`` seconds of a fake clock, then fails as a host that stopped it says so
    (or raises ``error``, as an agent played in the same process does)."""

    name = "test-stopped"

    def __init__(self, clock: FakeClock, cost: float, error: Exception | None = None) -> None:
        super().__init__(seed=0)
        self.clock, self.cost, self.error = clock, cost, error

    def act(self, state: Any, limit: Limit | None = None) -> Decision:
        self.clock.now += self.cost
        raise self.error or AgentForfeit("no move (stopped)")


@pytest.mark.parametrize(
    ("cost", "reason"), [(2.5, Reason.TIME), (1.5, Reason.FORFEIT), (2.0, Reason.FORFEIT)]
)
def test_an_agent_failing_after_its_clock_ran_out_loses_on_time(cost: float, reason: Reason) -> None:
    # its host (a process or a worker pool waiting out the clock) stops a hung agent by failing
    # it; one that fails with its whole clock used but not past it was not stopped by the clock
    timer = FakeClock()
    agent = StoppedAtItsClock(timer, cost)
    session = Session(new_game("tictactoe"), (agent, None), time_control=TimeControl(2), timer=timer)
    assert session.agent_move() is None
    assert session.outcome == Outcome(1, reason, "no move (stopped)")


@pytest.mark.parametrize(("cost", "reason"), [(2.5, Reason.TIME), (1.5, Reason.FORFEIT)])
def test_an_agent_raising_after_its_clock_ran_out_loses_on_time(cost: float, reason: Reason) -> None:
    timer = FakeClock()
    agent = StoppedAtItsClock(timer, cost, RuntimeError("out of ideas"))
    session = Session(new_game("tictactoe"), (agent, None), time_control=TimeControl(2), timer=timer)
    assert session.agent_move() is None
    assert session.outcome == Outcome(
        1, reason, Raised("raised RuntimeError: out of ideas", "test_clock.py", "act")
    )


def test_a_person_whose_clock_ran_out_is_told_so_by_the_interface() -> None:
    session = Session(new_game("tictactoe"), time_control=TimeControl(3))
    session.play("b2", seconds=3.5)
    assert session.clock_left(0) == -0.5  # charged: the session does not judge a person's move
    outcome = session.lose_on_time(0, "3.5 s on a 3 s clock")
    assert (outcome.winner, outcome.reason, session.is_over) == (1, Reason.TIME, True)
    with pytest.raises(GameOverError):
        session.lose_on_time(1, "again")
    with pytest.raises(SessionError, match="colour is 0"):
        Session(new_game("nim")).lose_on_time(2, "no such side")


def test_a_session_refuses_a_time_control_that_is_not_one() -> None:
    with pytest.raises(SessionError, match="TimeControl"):
        Session(new_game("nim"), time_control="60+1")  # type: ignore[arg-type]


def test_real_agents_on_a_short_clock_share_it_and_finish_in_time() -> None:
    state = new_game("connect4")
    agents = [make_agent(spec, seed=1, game=state.game) for spec in ("alphabeta", "mcts")]
    for agent in agents:
        agent.prepare(state.game)
    session = Session(state, agents, time_control=TimeControl(1.0, 0.02))
    outcome = session.run()
    assert outcome.reason is not Reason.TIME
    assert all(left is not None and left > 0 for left in map(session.clock_left, (0, 1)))
    assert max(turn.seconds or 0.0 for turn in session.turns) < 0.6


# --- the arena ---------------------------------------------------------------------------------


def test_a_time_control_is_part_of_a_tournaments_identity_in_its_one_form() -> None:
    plain = TournamentConfig(("greedy", "random"), 2, "nim")
    clocked = TournamentConfig(("greedy", "random"), 2, "nim", time_control="60.0+0")
    assert clocked.time_control == "60" and clocked.tournament_id != plain.tournament_id
    assert (
        TournamentConfig(("greedy", "random"), 2, "nim", time_control="60").tournament_id
        == clocked.tournament_id
    )
    assert {task.time_control for task in build_schedule(clocked)} == {"60"}
    assert {task.time_control for task in build_schedule(plain)} == {""}
    periods = TournamentConfig(("greedy", "random"), 2, "nim", time_control="040/60.0+0")
    assert periods.time_control == "40/60" and periods.tournament_id != clocked.tournament_id
    assert (
        TournamentConfig(("greedy", "random"), 2, "nim", time_control="40/60").tournament_id
        == periods.tournament_id
    )
    with pytest.raises(ArenaError, match="BASE, BASE\\+INCREMENT or MOVES/BASE"):
        TournamentConfig(("greedy", "random"), 2, "nim", time_control="soon")


def _clocked_match(store: Store, spec: str, control: str, workers: int) -> Any:
    config = TournamentConfig((spec, "random"), 2, "quixo", time_control=control, opening_plies=0)
    return run_tournament(config, store, workers=workers)


def test_an_agent_slower_than_its_clock_loses_on_time_in_the_store(tmp_path: Path) -> None:
    with Store(tmp_path / "a.sqlite") as store:
        run = _clocked_match(store, napping_player.spec(), "0.4", workers=0)
        listed = store.tournaments()
    assert [r.outcome.reason for r in run.records] == [Reason.TIME, Reason.TIME]
    assert {r.winner for r in run.records} == {1, 0}  # the napper lost with either colour
    assert [t["time_control"] for t in listed] == ["0.4"]
    lines = forfeit_lines(run.records, run.config.specs, on_time=True)
    assert lines[0] == "2 games lost on time:" and "loses on time after" in lines[1]
    assert forfeit_lines(run.records, run.config.specs) == []
    use = _clock_use_script().collect(str(tmp_path / "a.sqlite"), None)
    napper, other = use[f"{napping_player.spec()} (0.4)"], use["random (0.4)"]
    assert (napper.games, napper.lost_on_time, other.lost_on_time) == (2, 2, 0)
    assert napper.lowest > 0 and napper.moves * napping_player.NAP_SECONDS <= napper.seconds
    assert max(other.shares) < 0.25  # random answers at once: its clock is hardly used


def _clock_use_script() -> Any:
    return load_script("benchmarks/clock_use.py")


def test_the_clock_replay_counts_the_increments_each_side_earned() -> None:
    script = _clock_use_script()
    moves = ("a1e1", "b1b5", "e5e1", "b5b1")
    record = game_record(
        "quixo", moves, Outcome(None, Reason.PLY_CAP), opening=moves[:1], move_times=(1.0, 2.0, 3.0)
    )
    assert list(script.sides(record)) == [(0, [2.0]), (1, [1.0, 3.0])]
    assert script.replay_clock(TimeControl(10, 1), [1.0, 3.0]) == (4 / 12, 7.0)
    assert script.replay_clock(TimeControl(10, 0, 2), [4.0, 5.0, 10.0]) == (19 / 20, 1.0)
    assert script.replay_clock(TimeControl(10, 0, 2), []) == (0.0, 10)
    # a side whose last move ended a period had the first period's base and its increments
    assert script.replay_clock(TimeControl(10, 1, 2), [4.0, 5.0]) == (9 / 12, 2.0)


def test_a_hung_agent_is_stopped_at_its_clock_and_loses_on_time(tmp_path: Path) -> None:
    hung = f"course:player={broken_players.PATH}:HangingPlayer"
    with Store(tmp_path / "a.sqlite") as store:
        config = TournamentConfig((hung, "random"), 1, "quixo", time_control="0.3", opening_plies=0)
        run = run_tournament(config, store, workers=1)
    (record,) = run.records
    assert (record.winner, record.outcome.reason) == (1, Reason.TIME)
    assert record.outcome.detail == "no move with 0.30 s left (stopped)"


@pytest.mark.timeout(60)
def test_a_hung_agent_on_a_clock_of_periods_is_stopped_at_what_its_clock_has_left(tmp_path: Path) -> None:
    late = f"course:player={broken_players.PATH}:LateHangingPlayer"
    with Store(tmp_path / "a.sqlite") as store:
        config = TournamentConfig((late, "random"), 1, "quixo", time_control="2/0.3", opening_plies=0)
        run = run_tournament(config, store, workers=1)
    (record,) = run.records
    assert (record.winner, record.outcome.reason, record.plies) == (1, Reason.TIME, 4)
    stopped = re.fullmatch(r"no move with (\d+\.\d\d) s left \(stopped\)", record.outcome.detail)
    assert stopped is not None, record.outcome.detail
    # its two quick moves ended a period: it was waited for the base again, not its first
    assert 0.3 < float(stopped[1]) <= 0.6


def _cli(*args: str) -> tuple[int, str]:
    app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)
    arena_cli.register(app)
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.stdout + result.stderr


def test_the_cli_plays_a_clocked_match_and_refuses_bad_clocks(tmp_path: Path) -> None:
    db = tmp_path / "a.sqlite"
    common = ["--game", "tictactoe", "-n", "2", "--db", str(db), "--out", str(tmp_path / "out"), "-j", "1"]
    code, output = _cli("match", "greedy", "random", "--tc", "5+0.1", *common)
    assert code == 0, output
    assert "Ratings (greedy vs random, clock 5+0.1)" in output
    code, output = _cli("tournaments", str(db), "--json")
    assert [t["time_control"] for t in json.loads(output)] == ["5+0.1"]
    for extra, said in (
        (["--tc", "fast"], "a time control is BASE, BASE+INCREMENT or MOVES/BASE"),
        (["--tc", "5", "--move-timeout", "3"], "give either --tc (a game clock) or --move-timeout"),
        (["--tc", "0.001"], "the least that works is 0.05"),
    ):
        code, output = _cli("match", "greedy", "random", *extra, *common)
        assert code == 2 and said in output


def test_a_tournament_on_a_clock_of_periods_is_stored_and_listed_in_its_one_form(tmp_path: Path) -> None:
    db = tmp_path / "a.sqlite"
    common = ["--game", "tictactoe", "-n", "2", "--db", str(db), "--out", str(tmp_path / "out"), "-j", "1"]
    code, output = _cli("match", "greedy", "random", "--tc", "2/5+0", *common)
    assert code == 0 and "Ratings (greedy vs random, clock 2/5)" in output, output
    code, output = _cli("match", "greedy", "random", "--tc", "2/5", *common)
    assert code == 0 and "0 new games, 2 stored" in output, output  # the same tournament, resumed
    code, output = _cli("tournaments", str(db), "--json")
    assert [(t["time_control"], t["games"]) for t in json.loads(output)] == [("2/5", 2)]
    code, output = _cli("tournaments", str(db))
    assert code == 0 and " 2/5 " in output


def test_the_python_match_plays_on_a_clock_and_refuses_a_move_timeout_beside_it() -> None:
    run = match("greedy", "random", 2, game="tictactoe", workers=0, time_control="2+0.5")
    assert run.config.time_control == "2+0.5"
    assert all(record.outcome.reason is not Reason.TIME for record in run.records)
    with pytest.raises(ArenaError, match="takes no move timeout"):
        match("greedy", "random", 2, game="tictactoe", workers=0, time_control="2", move_timeout=5)
