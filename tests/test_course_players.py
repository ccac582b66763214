"""Course players that break in the ways the course's students' players do: constructors that
hang, floods of prints, BaseException subclasses, fractional or mistyped moves, processes
started and left behind. Each is refused or forfeits with one line; play goes on."""

from __future__ import annotations

import inspect
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import broken_players
import numpy as np
import pytest
from course_standin import Move as StandinMove
from hypothesis import given, settings
from hypothesis import strategies as st
from reliability import count, session_members

from boardlab.agents.base import make_agent
from boardlab.arena import ArenaError, match, tournament
from boardlab.games import Reason
from boardlab.games.quixo import Push, State
from boardlab.interop import course
from boardlab.interop.course import (
    MAX_OUTPUT,
    CappedOutput,
    CourseInteropError,
    CourseMoveError,
    from_course_move,
    read_slide,
)
from boardlab.play.referee import AgentForfeit


def _forfeits(spec: str, workers: int) -> list[Any]:
    run = match(spec, "random", 2, game="quixo", opening_plies=0, workers=workers, move_timeout=20)
    assert run.complete and len(run.records) == 2
    for record in run.records:
        loser = record.second_spec if record.winner == 0 else record.first_spec
        assert record.outcome.reason is Reason.FORFEIT and loser == spec, record.outcome
    count("games checked", len(run.records))
    return run.records


@pytest.mark.parametrize("name", ["FractionalPlayer", "FloatSlidePlayer", "BaseExceptionPlayer"])
def test_a_mistyped_move_or_a_base_exception_forfeits_with_one_line(
    name: str, capfd: pytest.CaptureFixture[str]
) -> None:
    for workers in (0, 1):
        for record in _forfeits(broken_players.spec(name), workers):
            detail = record.outcome.detail
            assert broken_players.BROKEN[name] in detail and "\n" not in detail, detail
            assert len(record.moves) == 0 or record.moves[0] != "a1a5"  # never read as (0, 0)
    assert "Traceback" not in capfd.readouterr().err  # no worker printed one


def test_a_fractional_move_is_refused_never_truncated() -> None:
    agent = make_agent(broken_players.spec("FractionalPlayer"))
    with pytest.raises(CourseMoveError, match=r"answered \(\(0\.5, 0\), 1\), not a legal move"):
        agent.choose(State.initial())
    assert agent.refused_moves == 3


def test_a_base_exception_is_a_forfeit_in_this_process() -> None:
    agent = make_agent(broken_players.spec("BaseExceptionPlayer"))
    with pytest.raises(AgentForfeit, match="raised Boom: out of the blue"):
        agent.choose(State.initial())


WHOLE = st.one_of(st.integers(0, 4), st.integers(0, 4).map(np.int64), st.integers(0, 4).map(np.int8))
NOT_WHOLE = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.floats(0, 4).map(np.float64),
    st.booleans(),
    st.text(max_size=5),
    st.none(),
    st.just(np.bool_(True)),
)


@settings(max_examples=200, deadline=None)
@given(x=st.one_of(WHOLE, NOT_WHOLE), y=st.one_of(WHOLE, NOT_WHOLE), slide=st.one_of(WHOLE, NOT_WHOLE))
def test_only_whole_coordinates_and_a_move_member_or_0_to_3_are_read(x: Any, y: Any, slide: Any) -> None:
    whole = [isinstance(v, int | np.integer) and not isinstance(v, bool | np.bool_) for v in (x, y, slide)]
    try:
        move = from_course_move((x, y), slide)
    except CourseInteropError:  # mistyped, or well typed but no move (an inner cube, a push in place)
        count("inputs tried")
        return
    assert all(whole), (x, y, slide)
    assert (move.x, move.y, int(move.push)) == (int(x), int(y), int(slide))


def test_slides_are_a_move_member_or_a_whole_number() -> None:
    assert read_slide(StandinMove.LEFT) is Push.LEFT
    assert read_slide(np.int64(3)) is Push.RIGHT
    for bad in ("TOP", 1.0, 2.5, True, 4, -1, None, object()):
        with pytest.raises(CourseInteropError, match=r"expected Move\.TOP"):
            read_slide(bad)


def test_a_player_that_prints_without_end_is_capped(capfd: pytest.CaptureFixture[str]) -> None:
    spec = broken_players.spec("ChattyPlayer")
    agent = make_agent(spec)
    agent.choose(State.initial())
    assert agent.output.kept == MAX_OUTPUT and agent.output.dropped >= 126_000_000 - MAX_OUTPUT
    run = match(spec, "random", 2, game="quixo:ply_cap=4", opening_plies=0, workers=1)
    assert run.complete and all(r.outcome.reason is not Reason.FORFEIT for r in run.records)
    out, err = capfd.readouterr()
    assert len(out) + len(err) < 100_000  # hidden by default: nothing of the 126 MB a move
    shown = make_agent(broken_players.spec("ChattyPlayer", output="show"))
    shown.choose(State.initial())
    err = capfd.readouterr().err
    assert f"cut at {MAX_OUTPUT:,} characters" in err and MAX_OUTPUT < len(err) < MAX_OUTPUT + 200
    count("inputs tried", 2)


def test_capped_output_keeps_the_head_and_counts_the_rest() -> None:
    sink = CappedOutput(limit=10)
    for piece in ("hello ", "world", "!" * 100):
        assert sink.write(piece) == len(piece)
    assert sink.text == "hello worl" and sink.kept == 10 and sink.dropped == 101


@pytest.mark.parametrize("name", list(broken_players.BROKEN_ON_BUILD))
def test_a_constructor_that_hangs_is_refused_under_the_import_limit(name: str) -> None:
    spec = broken_players.spec(name, import_timeout=0.5)
    tic = time.monotonic()
    with pytest.raises(ArenaError, match=broken_players.BROKEN_ON_BUILD[name]) as caught:
        tournament(["random", spec], 1, workers=1)
    assert time.monotonic() - tic < 30
    assert "took over 0.5 s" in str(caught.value) and "\n" not in str(caught.value)
    count("inputs tried")


RECORDING_HELPER_PLAYER = """import subprocess
import sys
from pathlib import Path


class Player:
    def __init__(self):
        helper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"])
        Path(__file__).with_suffix(".pid").write_text(str(helper.pid))

    def make_move(self, game):
        raise RuntimeError("only built")
"""


def _running(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2] != "Z"


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc (Linux)")
def test_a_helper_the_constructor_starts_ends_even_when_the_checking_child_is_gone_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The checking child exits as soon as it has reported; on a loaded machine it can be gone,
    and reaped, before the check ends its group. The group lives on in the helper it started."""
    player = tmp_path / "recording_player.py"
    player.write_text(RECORDING_HELPER_PLAYER)
    report = course._import_report

    def report_then_let_the_child_go(
        conn: Any, name: str, timeout: float, process: Any, build: str | None
    ) -> str:
        failure = report(conn, name, timeout, process, build)
        process.join(30)  # exited and reaped by its parent
        return failure

    monkeypatch.setattr(course, "_import_report", report_then_let_the_child_go)
    course.check_import(str(player), build="Player")
    helper = int(player.with_suffix(".pid").read_text())
    gone = time.monotonic() + 10
    while _running(helper) and time.monotonic() < gone:
        time.sleep(0.05)
    alive = _running(helper)
    if alive:
        os.kill(helper, signal.SIGKILL)
    assert not alive, "the helper the constructor started outlived the check"


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc (Linux)")
def test_processes_a_constructor_starts_are_ended_with_the_check(tmp_path: Path) -> None:
    spec = broken_players.spec("SpawningConstructorPlayer", import_timeout=1)
    args = ["match", "random", spec, "-n", "2", "-j", "1", "--db", str(tmp_path / "a.sqlite")]
    command = [
        sys.executable,
        "-c",
        "from boardlab.ui.cli import main; main()",
        *args,
        "--out",
        str(tmp_path),
    ]
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True
    )
    try:
        _, stderr = process.communicate(timeout=90)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.communicate()
    time.sleep(0.3)
    left = session_members(process.pid)
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    assert not left, f"processes left behind: {left}"
    lines = stderr.strip().splitlines()
    assert process.returncode == 2 and len(lines) == 1, stderr
    assert "building SpawningConstructorPlayer took over 1 s" in lines[0]
    count("processes checked")


class _Answers:
    """A course player answering ``answer`` every time."""

    def __init__(self, answer: Any) -> None:
        self.answer = answer

    def make_move(self, game: Any) -> Any:
        return self.answer


def _refusal(answer: Any, state: State | None = None, attempts: int = 1) -> str:
    """The forfeit's detail of a player that keeps answering ``answer`` in ``state``."""
    agent = course.CoursePlayerAgent(player=_Answers(answer), attempts=attempts)
    with pytest.raises(CourseMoveError) as caught:
        agent.choose(state or State.initial())
    return caught.value.detail


def test_an_illegal_answer_is_said_as_answered_not_raised() -> None:
    assert _refusal(((2, 2), 0)).startswith("_Answers answered no legal move in 1 attempt; last: answered")
    assert " in 3 attempts; " in _refusal(((2, 2), 0), attempts=3)
    # a forfeit in its own words: the arena's record does not say the player raised anything
    run = match(broken_players.spec("GarbagePlayer"), "random", 1, game="quixo", opening_plies=0, workers=0)
    detail = run.records[0].outcome.detail
    assert detail.startswith("GarbagePlayer answered no legal move in 3 attempts") and "raised" not in detail


@pytest.mark.parametrize("answer", [[0, 0, 1], None, 3, ((0, 0), 1, 2), "garbage"])
def test_an_answer_that_is_no_pair_says_what_was_expected(answer: Any) -> None:
    assert _refusal(answer).endswith("not a legal move (expected ((x, y), Move))")


def test_an_answer_legal_with_x_and_y_swapped_asks_whether_they_were() -> None:
    hint = "x is the column and y the row: did you swap them?"
    # (0, 2) pushed in from the left is no move; (2, 0) pushed in from the left is legal
    assert _refusal(((0, 2), 2)).endswith(f"{hint} (2, 0) LEFT is legal")
    # O's cube at (0, 2), a blank at (2, 0): X took the cell the wrong way round
    state = State.from_text("...../...../O.X../...../..... X 2")
    assert _refusal(((0, 2), 0), state).endswith(f"{hint} (2, 0) can be taken")
    for inner_or_corner in (((2, 2), 0), ((0, 0), 0)):
        assert hint not in _refusal(inner_or_corner)
    both_taken = State.from_text("..O../...../O.X../...../..... X 4")  # O's cubes at (2, 0) and (0, 2)
    assert hint not in _refusal(((0, 2), 0), both_taken)


def test_the_advice_of_a_refusal_is_kept_whole_in_the_stored_record() -> None:
    spec = broken_players.spec("SwappedPlayer", attempts=1)
    for workers in (0, 1):
        run = match(spec, "random", 1, game="quixo:size=3", opening_plies=0, workers=workers, move_timeout=20)
        detail = run.records[0].outcome.detail
        assert run.records[0].outcome.reason is Reason.FORFEIT, detail
        assert "take a border cube and push it back in at another end of its row or column" in detail
        assert detail.endswith(
            "(2, 0) LEFT is legal (the board is 3x3: read its size from game.get_board(), do not assume 5x5)"
        )


def test_a_player_assuming_5x5_is_told_to_read_the_boards_size() -> None:
    agent = make_agent(broken_players.spec("FiveByFivePlayer"))
    assert agent.choose(State.initial()) in State.initial().legal_moves()
    with pytest.raises(AgentForfeit) as caught:
        agent.choose(State.initial(size=3))
    line = inspect.getsourcelines(broken_players.FiveByFivePlayer.make_move)[1] + 1  # its first line
    assert caught.value.detail == (
        "raised IndexError: index 4 is out of bounds for axis 0 with size 3 "
        f"(at broken_players.py:{line}, in make_move) "  # where in the player's own code
        "(the board is 3x3: read its size from game.get_board(), do not assume 5x5)"
    )
