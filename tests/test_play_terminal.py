"""The terminal game loop and the ``play`` command, driven by scripted input."""

from __future__ import annotations

import io
import itertools
import os
import random
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterable
from typing import Any, ClassVar

import broken_players
import pytest
import typer
from rich.console import Console
from test_session import FakeClock
from typer.testing import CliRunner

from boardlab.agents.base import make_agent
from boardlab.agents.decision import Decision, SearchInfo
from boardlab.core.console import ply_count
from boardlab.games import new_game
from boardlab.games.base import Reason
from boardlab.games.quixo import Move, State, all_moves
from boardlab.play.clock import TimeControl
from boardlab.play.referee import AgentForfeit
from boardlab.ui import play as play_module
from boardlab.ui.play import register
from boardlab.ui.terminal import PlayResult, TerminalGame, clock_text


class Script:
    """An ``input_fn`` answering scripted lines, then end of input."""

    def __init__(self, lines: Iterable[str]) -> None:
        self.lines = iter(lines)
        self.prompts: list[str] = []

    def __call__(self, prompt: str) -> str:
        self.prompts.append(prompt)
        try:
            return next(self.lines)
        except StopIteration:
            raise EOFError from None


def play_script(
    lines: Iterable[str],
    human_side: int = 0,
    agent: str = "random",
    state: State | None = None,
    seed: int = 1,
) -> tuple[PlayResult, str, Script]:
    """Run a game from scripted lines; the result, the text written and the script."""
    console = Console(file=io.StringIO(), width=200, highlight=False)
    script = Script(lines)
    game = TerminalGame(
        state or new_game("quixo"), make_agent(agent, seed), human_side, console=console, input_fn=script
    )
    result = game.run()
    return result, console.file.getvalue(), script  # type: ignore[attr-defined]


def test_malformed_input_is_refused_and_the_prompt_comes_back() -> None:
    result, out, script = play_script(["zz", "c3c1", "a1b2", "", "quit"])
    assert "Refused: cannot read move 'zz'" in out
    assert "c3 is not on the border" in out
    assert "a1 can only be pushed in at a5 or e1" in out
    assert len(script.prompts) == 5
    assert result.outcome is None
    assert result.moves == ()


def test_taking_an_opponent_cube_is_refused() -> None:
    state = State.from_text("O..../...../..X../...../..... X 2")
    result, out, _ = play_script(["a1e1", "quit"], state=state)
    assert "Refused: move a1e1: the cube at a1 belongs to the opponent" in out
    assert result.moves == ()


def test_moves_lists_the_legal_moves() -> None:
    _, out, _ = play_script(["moves", "quit"])
    assert "44 legal moves: a1a5 a1e1" in out
    _, out, _ = play_script(["moves", "quit"], state=State.from_text("O..../...../..X../...../..... X 2"))
    assert "42 legal moves: b1b5" in out


def test_help_shows_notation_and_commands() -> None:
    _, out, _ = play_script(["help", "quit"])
    assert "a1e1 takes a1 and pushes it in at e1" in out
    for command in ("moves", "hint", "position", "undo", "resign", "help", "quit"):
        assert f"  {command}" in out


def test_undo_takes_back_the_move_and_the_reply() -> None:
    result, out, _ = play_script(["undo", "a1e1", "undo", "b1b5", "quit"])
    assert "Nothing to undo" in out
    assert "Took back a1e1 " in out
    assert result.moves[0] == "b1b5"
    assert len(result.moves) == 2


def test_undo_when_moving_second_keeps_the_agent_opening() -> None:
    result, _, _ = play_script(["undo", "quit"], human_side=1)
    assert len(result.moves) == 1
    first = result.final_state
    legal = str(first.legal_moves()[0])
    result, out, _ = play_script([legal, "undo", "quit"], human_side=1)
    assert "Took back " + legal in out
    assert len(result.moves) == 1
    assert result.final_state == first


def test_resign_gives_the_game_to_the_agent() -> None:
    result, out, _ = play_script(["a1e1", "resign"], human_side=0)
    assert result.outcome is not None and result.outcome.reason is Reason.RESIGNATION
    assert result.winner == 1
    assert not result.human_won
    assert "You resign after 2 moves: random (O) wins." in out


def test_end_of_input_leaves_cleanly() -> None:
    result, out, _ = play_script([])
    assert result.outcome is None
    assert "Game left unfinished after 0 moves." in out


@pytest.mark.parametrize(
    ("human_side", "game"),
    [(0, "quixo"), (1, "quixo"), (0, "quixo:size=4"), (0, "connect4"), (1, "tictactoe"), (1, "nim")],
)
def test_a_full_game_against_random(human_side: int, game: str) -> None:
    console = Console(file=io.StringIO(), width=200, highlight=False)
    rng = random.Random(human_side)
    terminal = TerminalGame(new_game(game), make_agent("random", 2), human_side, console=console)
    terminal.input_fn = lambda _prompt: str(rng.choice(terminal.state.legal_moves()))
    result = terminal.run()
    out = console.file.getvalue()  # type: ignore[attr-defined]
    assert result.final_state.is_over
    assert result.outcome is not None
    assert result.outcome.reason in (Reason.RULE, Reason.PLY_CAP)
    assert result.winner == result.final_state.winner
    assert len(result.moves) == result.final_state.ply
    last_line = out.strip().splitlines()[-1]
    if result.outcome.reason is Reason.RULE:
        detail = result.outcome.detail
        assert f"{'XO'[result.winner]} wins after {len(result.moves)} moves ({detail})" in last_line
        assert ("you win" in last_line) == result.human_won
    else:
        assert last_line.startswith("Draw")


def test_the_human_can_win() -> None:
    # X to move: e2 pushed back in at a2 completes row 2
    state = State.from_text("..O../XXXX./....O/O..../..... X 8")
    result, out, _ = play_script(["e2a2"], state=state)
    assert result.outcome is not None and result.outcome.reason is Reason.RULE
    assert result.human_won
    assert out.strip().endswith("X wins after 1 move (a complete line): you win.")


def test_the_board_shows_coordinates_and_the_last_move() -> None:
    state = State.initial().play("a1e1")
    text = state.render(Move.parse("a1e1"))
    assert text.plain.splitlines()[0].split() == list("abcde")
    assert text.plain.splitlines()[1].split() == ["1", ".", ".", ".", ".", "X"]
    styles = {str(span.style) for span in text.spans}
    assert "bold red underline reverse" in styles  # the cube pushed in at e1
    assert "dim underline" in styles  # the blanks of row 1 that slid


def test_a_won_board_underlines_the_winning_line_not_the_moved_one() -> None:
    # the cube from a1 goes in at a5: column a slides up, X's cube from a4 completes row 3
    move = Move.parse("a1a5")
    won = State.from_text("...../...../.XXXX/X...O/O.O.. X 10").play(move)
    text = won.render(move)
    lines = text.plain.splitlines()
    assert lines[3].split() == ["3", "X", "X", "X", "X", "X"] and won.winner == 0
    row_3 = sum(len(line) + 1 for line in lines[:3])
    underlined = {(span.start, span.end) for span in text.spans if "underline" in str(span.style)}
    assert underlined == {(row_3 + 4 + 2 * x, row_3 + 5 + 2 * x) for x in range(5)}


# --- the command ----------------------------------------------------------------------------


def cli_app() -> typer.Typer:
    """A fresh app with only the play command registered."""
    app = typer.Typer()

    @app.callback()
    def main() -> None:
        """Test app."""

    register(app)
    return app


def test_cli_plays_with_scripted_input() -> None:
    result = CliRunner().invoke(
        cli_app(), ["play", "--agent", "random", "--seed", "3"], input="zz\nmoves\na1e1\nundo\nresign\n"
    )
    assert result.exit_code == 0, result.output
    assert "Refused: cannot read move 'zz'" in result.output
    assert "44 legal moves" in result.output
    assert "Took back a1e1" in result.output
    assert "You resign after 0 moves: random (O) wins." in result.output


def test_cli_side_choice() -> None:
    runner = CliRunner()
    for args in (["--side", "o"], ["--human-second"], ["--side", "O", "--human-second"]):
        result = runner.invoke(cli_app(), ["play", "--agent", "random", *args], input="quit\n")
        assert result.exit_code == 0, result.output
        assert "you are O (second)" in result.output
        assert "random (X) plays" in result.output


def test_cli_end_of_input_exits_cleanly() -> None:
    result = CliRunner().invoke(cli_app(), ["play", "--agent", "random"], input="")
    assert result.exit_code == 0
    assert "Game left unfinished after 0 moves." in result.output


def test_cli_full_game() -> None:
    # every move shape, over and over: the ones taking an opponent's cube are refused
    lines = itertools.islice(itertools.cycle(str(m) for m in all_moves()), 44 * 250)
    result = CliRunner().invoke(
        cli_app(), ["play", "--agent", "random", "--seed", "4"], input="\n".join(lines) + "\n"
    )
    assert result.exit_code == 0, result.output
    last_line = result.output.strip().splitlines()[-1]
    assert "(a complete line): " in last_line or last_line.startswith("Draw")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--agent", "nope"], "unknown agent 'nope'"),
        (["--agent", "random:depth=3"], "unknown option 'depth'"),
        (["--game", "chess"], "unknown game 'chess'"),
        (["--game", "quixo:size=7"], "size=7 is not accepted; choose one of 3, 4, 5"),
        (["--side", "z"], "--side must be x or o"),
        (["--side", "x", "--human-second"], "contradicts"),
        (["--tc", "fast"], "--tc: a time control is BASE, BASE+INCREMENT or MOVES/BASE"),
        (["--tc", "0+1"], "--tc: a time control is BASE, BASE+INCREMENT or MOVES/BASE"),
        (
            ["--tc", ""],
            "--tc: a time control is BASE, BASE+INCREMENT or MOVES/BASE",
        ),  # not a game without a clock
        (["--tc", "60", "--move-timeout", "5"], "give either --tc (a game clock) or --move-timeout"),
        # perfect plays no whole 5x5 game, built tables or not; from an endgame it needs them built
        (["--agent", "perfect"], "tables cover endgames only (boards with at most one blank cube)"),
        (
            ["--agent", "perfect", "--position", "XXOOX/OOXXO/XXOOX/OOXXO/XXOO. X"],
            "run `boardlab solve quixo --size 5 --blanks 1`",
        ),
    ],
)
def test_cli_bad_arguments_exit_2_with_one_line(args: list[str], message: str) -> None:
    result = CliRunner().invoke(cli_app(), ["play", *args], input="quit\n")
    assert result.exit_code == 2
    assert message in result.output
    assert "Traceback" not in result.output
    assert len(result.output.strip().splitlines()) == 1


def _interrupt(prompt: str) -> str:
    raise KeyboardInterrupt


def test_ctrl_c_at_the_prompt_reaches_the_caller() -> None:
    console = Console(file=io.StringIO(), width=200, highlight=False)
    game = TerminalGame(new_game("tictactoe"), make_agent("random", 1), console=console, input_fn=_interrupt)
    with pytest.raises(KeyboardInterrupt):
        game.run()
    assert "Game left unfinished" not in console.file.getvalue()  # type: ignore[attr-defined]


def test_cli_ctrl_c_at_the_prompt_exits_130_with_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(Console, "input", lambda self, prompt="", **_: _interrupt(prompt))
    result = CliRunner().invoke(cli_app(), ["play", "--game", "tictactoe", "--agent", "random"])
    assert result.exit_code == 130, result.output
    assert result.output.rstrip().endswith("Interrupted.")
    assert "Game left unfinished" not in result.output
    assert "Traceback" not in result.output


class _Failing:
    """An agent whose every move raises."""

    spec = "failing"

    def prepare(self, game: object) -> None:
        pass

    def new_game(self) -> None:
        pass

    def act(self, state: object, limit: object = None) -> object:
        raise RuntimeError("broken")


def test_an_agent_label_with_brackets_is_shown_as_written() -> None:
    console = Console(file=io.StringIO(), width=200, highlight=False)
    label = "course:player=/tmp/[red]x/p.py:P"
    game = TerminalGame(
        new_game("tictactoe"), _Failing(), console=console, input_fn=Script(["b2"]), agent_label=label
    )
    result = game.run()
    out = console.file.getvalue()  # type: ignore[attr-defined]
    assert result.outcome is not None and result.outcome.reason is Reason.FORFEIT
    assert f"O to move ({label})" in out


@pytest.mark.parametrize(
    ("game", "detail"),
    [
        ("nim:piles=1", "left the last object to the opponent"),
        ("nim:piles=1,misere=false", "took the last object"),
    ],
)
def test_a_nim_result_reads_as_a_sentence(game: str, detail: str) -> None:
    console = Console(file=io.StringIO(), width=200, highlight=False)
    game_view = TerminalGame(
        new_game(game), make_agent("random", 1), console=console, input_fn=Script(["1:1"])
    )
    result = game_view.run()
    winner = "XO"[result.winner or 0]
    who = "you win" if result.human_won else "random wins"
    last_line = console.file.getvalue().strip().splitlines()[-1]  # type: ignore[attr-defined]
    assert last_line == f"{winner} wins after 1 move ({detail}): {who}."


@pytest.mark.parametrize(("fd", "stream"), [(0, "input"), (1, "output")])
def test_cli_with_a_standard_stream_closed_exits_2_with_one_line(fd: int, stream: str) -> None:
    command = [sys.executable, "-c", "from boardlab.ui.cli import main; main()", "play", "--game", "nim"]
    done = subprocess.run(
        command,
        input="quit\n" if fd else None,
        stdout=None if fd else subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        timeout=60,
        preexec_fn=lambda: os.close(fd),
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith(f"Error: standard {stream} is closed")
    assert len(done.stderr.splitlines()) == 1


# --- commands, prompts and endings, in tic-tac-toe ------------------------------------------


class _Scripted:
    """An in-process agent playing fixed moves; ``resets`` is how many memory resets it survives."""

    spec = "scripted"

    def __init__(self, moves: Iterable[str] = (), resets: int = 99, pause: float = 0.0) -> None:
        self.moves = iter(moves)
        self.resets = resets
        self.pause = pause

    def prepare(self, game: object) -> None:
        pass

    def new_game(self) -> None:
        if self.resets == 0:
            raise RuntimeError("cannot reset")
        self.resets -= 1

    def act(self, state: Any, limit: object = None) -> Decision:
        time.sleep(self.pause)
        wanted = next(self.moves)
        return Decision(next(m for m in state.legal_moves() if str(m) == wanted))


def ttt_script(
    lines: Iterable[str], agent: Any, human_side: int = 0, **options: Any
) -> tuple[PlayResult, str, Script]:
    """A tic-tac-toe game from scripted lines against ``agent``; the result, the text, the script."""
    console = Console(file=io.StringIO(), width=200, highlight=False)
    script = Script(lines)
    game = TerminalGame(new_game("tictactoe"), agent, human_side, console=console, input_fn=script, **options)
    return game.run(), console.file.getvalue(), script  # type: ignore[attr-defined]


def test_the_human_side_must_be_0_or_1() -> None:
    with pytest.raises(ValueError, match="human side must be 0"):
        TerminalGame(new_game("tictactoe"), _Scripted(), 2)


def test_commands_ignore_case_and_blanks_and_have_aliases() -> None:
    result, out, script = ttt_script(["HELP", "  ?  ", "   ", "Board", "Moves", "EXIT"], _Scripted())
    assert "Refused" not in out
    assert out.count("A move is the cell you mark") == 2
    assert out.count("X to move (you)") == 2  # the board shown at the turn, then again by `board`
    assert "9 legal moves: a1 b1 c1 a2 b2 c2 a3 b3 c3" in out
    assert len(script.prompts) == 6  # exit leaves: no prompt after it
    assert result.outcome is None


def test_the_prompt_counts_the_moves() -> None:
    _, _, script = ttt_script(["b2", "quit"], _Scripted(["a1"]))
    assert script.prompts == ["move 1, you are X > ", "move 3, you are X > "]
    _, _, script = ttt_script(["quit"], _Scripted(["a1"]), human_side=1)
    assert script.prompts == ["move 2, you are O > "]


def test_an_unreadable_move_points_to_help() -> None:
    _, out, _ = ttt_script(["zz", "quit"], _Scripted())
    assert "(type help for the commands)" in out


def test_a_move_with_blanks_around_it_is_played() -> None:
    result, _, _ = ttt_script([" b2 ", "quit"], _Scripted(["a1"]))
    assert result.moves == ("b2", "a1")


def test_input_that_is_not_text_is_refused_and_the_prompt_comes_back() -> None:
    lines = iter(["b2"])

    def undecodable(prompt: str) -> str:
        if not script.prompts:
            script.prompts.append(prompt)
            raise UnicodeDecodeError("utf-8", b"\xff", 0, 1, "invalid start byte")
        return script(prompt)

    script = Script(lines)
    console = Console(file=io.StringIO(), width=200, highlight=False)
    game = TerminalGame(new_game("tictactoe"), _Scripted(["a1"]), console=console, input_fn=undecodable)
    result = game.run()
    assert "Refused: the input is not readable text" in console.file.getvalue()  # type: ignore[attr-defined]
    assert result.moves == ("b2", "a1")


def test_the_last_two_moves_are_named_with_their_players() -> None:
    _, out, _ = ttt_script(["b2", "quit"], _Scripted(["a1"]))
    assert "last moves: b2 by you (X), a1 by scripted (O)" in out


def test_the_board_highlights_the_last_move() -> None:
    options: dict[str, Any] = {
        "width": 200,
        "highlight": False,
        "force_terminal": True,
        "color_system": "standard",
    }
    console = Console(file=io.StringIO(), **options)
    game = TerminalGame(new_game("tictactoe"), _Scripted(["a1"]), console=console, input_fn=Script(["b2"]))
    game.run()
    expected = Console(file=io.StringIO(), **options)
    expected.print(game.state.render(game.session.turns[-1].move))  # a1, the agent's reply
    assert expected.file.getvalue() in console.file.getvalue()  # type: ignore[attr-defined]


def test_resigning_when_second_gives_the_game_to_x() -> None:
    result, out, _ = ttt_script(["resign"], _Scripted(["b2"]), human_side=1)
    assert result.winner == 0
    assert "You resign after 1 move: scripted (X) wins." in out


def test_a_draw_is_told_with_its_reason_and_no_side_to_move() -> None:
    result, out, _ = ttt_script(["b2", "c1", "a2", "b1", "c3"], _Scripted(["a1", "a3", "c2", "b3"]))
    assert result.outcome is not None and result.winner is None
    lines = out.strip().splitlines()
    assert lines[-1] == f"Draw after 9 moves ({result.outcome.detail})."
    assert result.outcome.detail
    assert lines[-2] == "Moves: " + " ".join(result.moves)  # to review or replay
    assert lines[-3].startswith("last moves: ")  # the game is over: nobody is to move


def test_an_agent_failing_to_start_forfeits_before_any_prompt() -> None:
    result, out, script = ttt_script(["b2"], _Scripted(resets=0))
    assert result.outcome is not None and result.outcome.reason is Reason.FORFEIT
    assert result.human_won and result.moves == ()
    assert script.prompts == []
    assert len(out.strip().splitlines()) == 2  # the introduction and the result: no board
    reason = (
        r"failed to start: raised RuntimeError: cannot reset \(at test_play_terminal.py:\d+, in new_game\)"
    )
    assert re.search(rf"scripted forfeits after 0 moves \({reason}\): you win.", out), out


def test_an_agent_failing_to_reset_at_undo_forfeits() -> None:
    result, out, script = ttt_script(["b2", "undo", "quit"], _Scripted(["a1"], resets=1))
    assert result.outcome is not None and result.outcome.reason is Reason.FORFEIT
    assert result.human_won
    assert "Took back" not in out
    assert len(script.prompts) == 2  # the forfeit ends the game at once
    assert out.strip().splitlines()[-1].startswith("scripted forfeits after 0 moves")


def test_an_agent_over_its_move_timeout_forfeits() -> None:
    result, out, _ = ttt_script(["b2"], _Scripted(["a1"], pause=0.05), move_timeout=0.001)
    assert result.outcome is not None and result.outcome.reason is Reason.FORFEIT
    assert "over its limit of 0.001 s per move" in out


@pytest.mark.parametrize("seed", ["-1", str(2**63)])
def test_cli_a_seed_out_of_range_exits_2_with_one_line(seed: str) -> None:
    result = CliRunner().invoke(cli_app(), ["play", "--game", "tictactoe", "--seed", seed], input="quit\n")
    assert result.exit_code == 2
    assert result.output.strip() == f"Error: --seed must be in 0..2**63-1, got {seed}"


def test_cli_side_takes_blanks_around_the_symbol() -> None:
    result = CliRunner().invoke(cli_app(), ["play", "--game", "nim", "--side", " o "], input="quit\n")
    assert result.exit_code == 0, result.output
    assert "you are O (second)" in result.output


class _Unstartable:
    """Stands for the agent's process: records how it was asked to start, then fails to."""

    calls: ClassVar[list[tuple[Any, ...]]] = []

    def __init__(self, *args: Any) -> None:
        _Unstartable.calls.append(args)
        raise AgentForfeit("no interpreter")


def test_cli_starts_the_agent_with_its_game_seed_and_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(play_module, "AgentProcess", _Unstartable)
    _Unstartable.calls.clear()
    args = ["play", "--game", "tictactoe", "--seed", "7", "--move-timeout", "3"]
    result = CliRunner().invoke(cli_app(), args, input="quit\n")
    assert result.exit_code == 1
    assert result.output.strip() == "Error: the agent greedy cannot play: no interpreter"
    assert _Unstartable.calls == [("tictactoe", "greedy", 7, 3.0)]


def test_cli_an_agent_failing_to_build_exits_2_with_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: Any, **options: Any) -> None:
        raise RuntimeError("no weights")

    monkeypatch.setattr(play_module, "make_agent", broken)
    result = CliRunner().invoke(cli_app(), ["play", "--game", "nim"], input="quit\n")
    assert result.exit_code == 2
    assert result.output.strip() == "Error: cannot build the agent: RuntimeError: no weights"


def test_cli_a_bad_agent_spec_is_told_as_written() -> None:
    result = CliRunner().invoke(cli_app(), ["play", "--game", "nim", "--agent", "nope"], input="quit\n")
    assert result.exit_code == 2
    assert result.output.startswith("Error: unknown agent 'nope'")


# --- hints and the position's text ---------------------------------------------------------


class _Adviser:
    """An adviser that counts its starts, preparations and questions; ``fail`` makes it raise."""

    def __init__(self, spec: str = "perfect", fail: bool = False) -> None:
        self.agent = make_agent(spec, 0)
        self.spec = spec
        self.fail = fail
        self.prepared: list[Any] = []
        self.asked: list[str] = []
        self.closed = 0

    def prepare(self, game: Any) -> None:
        self.prepared.append(game)
        self.agent.prepare(game)

    def new_game(self) -> None:
        self.agent.new_game()

    def act(self, state: Any, limit: Any = None) -> Decision:
        self.asked.append(state.to_text())
        if self.fail:
            raise AgentForfeit("ran out of patience")
        return self.agent.act(state, limit)

    def close(self) -> None:
        self.closed += 1


def _advised(
    lines: list[str], adviser: _Adviser | None, human_side: int = 0
) -> tuple[PlayResult, str, list[int]]:
    """A tic-tac-toe game against ``random`` with ``adviser`` started on the first hint."""
    starts: list[int] = []

    def start() -> _Adviser:
        assert adviser is not None
        starts.append(1)
        return adviser

    result, out, _ = ttt_script(
        lines, make_agent("random", 2), human_side, adviser=start if adviser else None
    )
    return result, out, starts


def test_a_hint_is_a_move_perfect_play_keeps_the_value_with() -> None:
    from boardlab.games import exact_play

    adviser = _Adviser("perfect")
    result, out, starts = _advised(["b2", "hint", "hint", "quit"], adviser)
    assert starts == [1] and len(adviser.prepared) == 1  # started once, at the first hint
    assert adviser.closed == 1  # and closed when the game ended
    hints = [line for line in out.splitlines() if line.startswith("hint: ")]
    state = result.final_state
    assert len(hints) == 2 and adviser.asked == [state.to_text(), state.to_text()]
    exact = exact_play(state.game)
    value = exact.position_value(state)
    said = "a draw" if value.value == 0 else f"a {value.name} for X in {ply_count(value.depth)}"
    for hint in hints:  # perfect draws among its best moves: each keeps the value
        assert exact.position_value(state.play(hint.split()[1])).value == -value.value
        assert hint.endswith(f"(perfect, {said})")
    assert result.moves[0] == "b2" and len(result.moves) == 2  # hints play nothing


def test_a_search_s_hint_shows_its_evaluation_depth_and_line() -> None:
    adviser = _Adviser("alphabeta:depth=3")
    _, out, _ = _advised(["hint", "quit"], adviser)
    hint = next(line for line in out.splitlines() if line.startswith("hint: "))
    move = hint.split()[1]
    assert "(alphabeta:depth=3, evaluation " in hint and ", depth 3, line " + move in hint


class _FallingBack(_Adviser):
    """``perfect`` whose answer came from its search (as on Connect Four's early plies)."""

    def act(self, state: Any, limit: Any = None) -> Decision:
        move = super().act(state, limit).move
        return Decision(move, info=SearchInfo(depth=4, score=12.5, engine="alphabeta"))


def test_a_hint_says_which_part_of_the_adviser_decided_where_it_is_not_the_adviser_itself() -> None:
    _, out, _ = _advised(["hint", "quit"], _FallingBack("perfect"))
    hint = next(line for line in out.splitlines() if line.startswith("hint: "))
    assert "(perfect, decided by its alphabeta, evaluation +12.50 for X, depth 4)" in hint
    _, out, _ = _advised(["hint", "quit"], _Adviser("alphabeta:depth=2"))
    assert "decided by" not in out  # alpha-beta's own search: nothing to add


def test_a_failing_adviser_is_stopped_and_the_next_hint_starts_another() -> None:
    adviser = _Adviser(fail=True)
    result, out, starts = _advised(["hint", "hint", "b2", "quit"], adviser)
    assert out.count("No hint: the adviser failed (ran out of patience).") == 2
    assert starts == [1, 1] and len(adviser.asked) == 2 and adviser.closed == 2
    assert result.moves[0] == "b2"  # the game went on


def test_without_an_adviser_a_hint_says_so() -> None:
    result, out, _ = _advised(["hint", "b2", "quit"], None)
    assert "No hint: no adviser in this game." in out and result.moves[0] == "b2"


def test_position_prints_the_text_analyze_reads() -> None:
    result, out, _ = ttt_script(["b2", "position", "quit"], make_agent("random", 5))
    state = result.final_state
    assert state.to_text() in out.splitlines()
    assert state.game.parse_position(state.to_text()) == state


def test_cli_hints_come_from_the_named_adviser_in_its_process() -> None:
    result = CliRunner().invoke(
        cli_app(), ["play", "--game", "tictactoe", "--hints", "perfect"], input="b2\nhint\nquit\n"
    )
    assert result.exit_code == 0, result.output
    said = r"(a draw|a (win|loss) for X in \d+ plies?)"  # exact words: a win or loss with its distance
    assert re.search(rf"hint: [abc][123]  \(perfect, {said}\)", result.output), result.output


def test_cli_a_bad_adviser_is_one_line_and_exit_2() -> None:
    result = CliRunner().invoke(cli_app(), ["play", "--game", "nim", "--hints", "nope"], input="quit\n")
    assert result.exit_code == 2
    assert result.output.strip().splitlines() == [result.output.strip()]
    assert result.output.startswith("Error: --hints: unknown agent 'nope'")


def test_cli_plays_on_from_a_position_and_moves() -> None:
    # 3x3 Quixo, O to move at ply 5: the human (O) completes the anti-diagonal at once
    args = ["play", "--position", "X.O.O.X.. O 5", "--side", "o", "--agent", "random"]
    result = CliRunner().invoke(cli_app(), args, input="b3a3\n")
    assert result.exit_code == 0, result.output
    assert "Quixo 3x3: you are O (second)" in result.output and "move 6, you are O >" in result.output
    assert result.output.strip().splitlines()[-1] == "O wins after 1 move (a complete line): you win."
    assert result.output.strip().splitlines()[-2] == "Moves: b3a3 (from X.O.O.X.. O 5)"
    moved = CliRunner().invoke(
        cli_app(), ["play", "--game", "tictactoe", "--moves", "a1 b2"], input="position\nquit\n"
    )
    assert moved.exit_code == 0, moved.output
    assert moved.output.splitlines()[-2].endswith("> X../.O./... X 2")


# --- game clocks -----------------------------------------------------------------------------


class _TimedScript(Script):
    """A Script whose person thinks ``seconds`` of the timer before each line: (seconds, line)."""

    def __init__(self, timer: FakeClock, lines: Iterable[tuple[float, str]]) -> None:
        self.timed = iter(lines)
        self.timer = timer
        super().__init__(())

    def __call__(self, prompt: str) -> str:
        self.prompts.append(prompt)
        try:
            seconds, line = next(self.timed)
        except StopIteration:
            raise EOFError from None
        self.timer.now += seconds
        return line


class _OnTheClock(_Scripted):
    """A scripted agent that thinks ``costs`` seconds of the timer in turn and keeps its limits."""

    def __init__(self, timer: FakeClock, moves: Iterable[str], *costs: float) -> None:
        super().__init__(moves)
        self.timer, self.costs, self.limits = timer, costs, []

    def act(self, state: Any, limit: Any = None) -> Decision:
        self.limits.append(limit)
        self.timer.now += self.costs[len(self.limits) - 1]
        return super().act(state, limit)


def clocked(
    lines: Iterable[tuple[float, str]],
    moves: Iterable[str],
    *costs: float,
    control: str = "60+1",
    human_side: int = 0,
    adviser: Any = None,
) -> tuple[PlayResult, str, _TimedScript, TerminalGame, _OnTheClock]:
    """A tic-tac-toe game on a clock against a scripted agent, the person moving first unless
    ``human_side`` is 1."""
    timer = FakeClock()
    timer.now = 100.0  # a reading such as a monotonic clock gives, not 0
    agent = _OnTheClock(timer, moves, *costs)
    console = Console(file=io.StringIO(), width=200, highlight=False)
    script = _TimedScript(timer, lines)
    game = TerminalGame(
        new_game("tictactoe"),
        agent,
        human_side,
        console=console,
        input_fn=script,
        time_control=TimeControl.parse(control),
        timer=timer,
        adviser=adviser(timer) if adviser is not None else None,
    )
    result = game.run()
    return result, console.file.getvalue(), script, game, agent  # type: ignore[attr-defined]


def test_a_clock_reads_minutes_seconds_and_tenths_cut_as_chess_clocks_show_them() -> None:
    assert [clock_text(s) for s in (60, 58.3, 58.26, 1.95, 0.7, 0.09, 0.0, -2.0, 754.5)] == [
        "1:00.0",
        "0:58.3",
        "0:58.2",
        "0:01.9",  # never more than is left
        "0:00.7",
        "0:00.0",
        "0:00.0",
        "0:00.0",
        "12:34.5",
    ]


def test_both_clocks_are_shown_and_the_persons_thinking_is_charged_commands_included() -> None:
    lines = [(2.0, "help"), (1.5, "b2"), (10.0, "quit")]
    result, out, script, game, agent = clocked(lines, ["a1"], 4.0)
    assert "clock 60+1: X 1:00.0  O 1:00.0" in out
    assert script.prompts == [
        "move 1, you are X, 1:00.0 left > ",
        "move 1, you are X, 0:58.0 left > ",  # the person's clock ran while help was read
        "move 3, you are X, 0:57.5 left > ",  # 60 - 3.5 + 1
    ]
    assert "clock 60+1: X 0:57.5  O 0:57.0" in out  # the agent's 4 s charged to its clock
    assert [turn.seconds for turn in game.session.turns] == [3.5, 4.0]
    assert result.moves == ("b2", "a1") and result.outcome is None
    # the agent plays on its clock: told what is left and the increment, no time of its own
    assert [(limit.clock, limit.increment, limit.time) for limit in agent.limits] == [(60.0, 1.0, None)]


def test_on_a_clock_of_periods_the_moves_each_clock_must_last_are_shown_and_the_base_comes_back() -> None:
    lines = [(2.0, "b2"), (1.0, "a3"), (10.0, "quit")]
    _, out, script, _, agent = clocked(lines, ["a1", "c1"], 4.0, 1.0, control="2/30")
    assert "clock 2/30: X 0:30.0 for 2 moves  O 0:30.0 for 2 moves" in out
    assert script.prompts == [
        "move 1, you are X, 0:30.0 left for 2 moves > ",
        "move 3, you are X, 0:28.0 left for 1 move > ",
        "move 5, you are X, 0:57.0 left for 2 moves > ",  # 30 - 3, and 30 more after 2 moves
    ]
    assert "clock 2/30: X 0:57.0 for 2 moves  O 0:55.0 for 2 moves" in out
    assert [limit.moves_to_go for limit in agent.limits] == [2, 1]


def test_each_clock_of_periods_shows_its_own_moves_to_go_and_undo_takes_a_period_back() -> None:
    lines = [(2.0, "b2"), (1.0, "a3"), (0.5, "undo"), (10.0, "quit")]
    _, out, script, _, agent = clocked(lines, ["a1", "c3", "c1"], 1.0, 1.0, 1.0, control="2/30", human_side=1)
    assert "clock 2/30: X 0:29.0 for 1 move  O 0:30.0 for 2 moves" in out  # the agent moved first
    assert script.prompts == [
        "move 2, you are O, 0:30.0 left for 2 moves > ",
        "move 4, you are O, 0:28.0 left for 1 move > ",
        "move 6, you are O, 0:57.0 left for 2 moves > ",  # 30 - 3, and 30 more after 2 moves
        "move 4, you are O, 0:28.0 left for 1 move > ",  # a3 taken back: the period not ended
    ]
    assert "clock 2/30: X 0:58.0 for 2 moves  O 0:28.0 for 1 move" in out
    assert [limit.moves_to_go for limit in agent.limits] == [2, 1, 2]


def test_a_person_past_their_clock_loses_on_time_and_the_move_is_not_played() -> None:
    result, out, _, game, _ = clocked([(3.0, "b2"), (5.0, "moves"), (2.5, "c3")], ["a1"], 1.0, control="10")
    assert result.outcome is not None and result.outcome.reason is Reason.TIME
    assert result.winner == 1 and result.moves == ("b2", "a1")  # c3 came too late
    assert game.session.clock_left(0) == 7.0  # the late move's time was not charged either
    assert out.strip().splitlines()[-1] == (
        "You lose on time after 2 moves (took 7.5 s with 7.0 s left): scripted (O) wins."
    )


def test_an_agent_past_its_clock_loses_on_time() -> None:
    result, out, _, _, _ = clocked([(1.0, "b2")], ["a1"], 61.5)
    assert result.outcome is not None and result.outcome.reason is Reason.TIME and result.human_won
    assert out.strip().splitlines()[-1] == (
        "scripted loses on time after 1 move (took 61.50 s with 60.00 s left): you win."
    )
    assert out.count("clock 60+1:") == 1  # shown at the person's turn, not under the final board


def test_a_move_with_exactly_the_time_left_is_in_time() -> None:
    result, _, script, game, _ = clocked([(10.0, "b2"), (0.0, "quit")], ["a1"], 1.0, control="10")
    assert result.moves == ("b2", "a1") and result.outcome is None  # left by quit, not lost on time
    assert game.session.clock_left(0) == 0.0 and script.prompts[-1] == "move 3, you are X, 0:00.0 left > "


@pytest.mark.parametrize("command", ["undo", "resign", "quit"])
def test_a_command_typed_past_the_clock_loses_on_time_too(command: str) -> None:
    # an undo after the flag fell would give the time back; a resignation or a quit would hide the loss
    result, out, _, game, _ = clocked([(3.0, "b2"), (7.5, command)], ["a1"], 1.0, control="10")
    assert result.outcome is not None and result.outcome.reason is Reason.TIME and result.winner == 1
    assert result.moves == ("b2", "a1") and game.session.clock_left(0) == 7.0
    last = out.strip().splitlines()[-1]
    assert last.startswith("You lose on time after 2 moves (took 7.5 s with 7.0 s left)"), last


def test_the_board_shown_during_the_persons_turn_shows_their_clock_running() -> None:
    _, out, _, _, _ = clocked([(2.0, "board"), (0.5, "quit")], [], control="60+1")
    assert "clock 60+1: X 1:00.0  O 1:00.0" in out  # at the prompt
    assert "clock 60+1: X 0:58.0  O 1:00.0" in out  # two seconds later


def test_undo_gives_the_time_of_the_moves_taken_back_and_starts_the_turn_again() -> None:
    lines = [(3.0, "b2"), (4.0, "undo"), (1.0, "c3")]
    result, out, script, game, _ = clocked(lines, ["a1", "b2"], 2.0, 2.5)
    assert script.prompts[:3] == [
        "move 1, you are X, 1:00.0 left > ",
        "move 3, you are X, 0:58.0 left > ",
        "move 1, you are X, 1:00.0 left > ",  # both moves and the time since taken back
    ]
    assert result.moves[:2] == ("c3", "b2") and [t.seconds for t in game.session.turns] == [1.0, 2.5]
    assert out.count("clock 60+1: X 1:00.0  O 1:00.0") == 2


def test_without_a_clock_nothing_is_shown_or_charged() -> None:
    _, out, script = ttt_script(["b2", "quit"], _Scripted(["a1"]))
    assert "clock" not in out and script.prompts[0] == "move 1, you are X > "


@pytest.mark.timeout(120)
def test_cli_a_hung_agent_on_a_clock_is_stopped_there_and_loses_on_time() -> None:
    hung = f"course:player={broken_players.PATH}:HangingPlayer"
    args = ["play", "--game", "quixo", "--agent", hung, "--side", "o", "--tc", "0.5"]
    result = CliRunner().invoke(cli_app(), args, input="quit\n")
    assert result.exit_code == 0, result.output
    last = " ".join(result.output.split()[-16:])
    assert last.endswith("loses on time after 0 moves (no move with 0.50 s left (stopped)): you win."), last


def test_cli_on_a_clock_starts_the_agent_without_a_limit_per_move(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(play_module, "AgentProcess", _Unstartable)
    _Unstartable.calls.clear()
    args = ["play", "--game", "tictactoe", "--seed", "7", "--tc", "30+0.5"]
    result = CliRunner().invoke(cli_app(), args, input="quit\n")
    assert result.exit_code == 1 and _Unstartable.calls == [("tictactoe", "greedy", 7, None)]


class _Stdin(io.StringIO):
    """A standard input that says whether it is a terminal."""

    def __init__(self, tty: bool) -> None:
        super().__init__("")
        self.tty = tty

    def isatty(self) -> bool:
        return self.tty


@pytest.mark.parametrize("tty", [True, False])
def test_keys_typed_before_the_prompt_are_dropped_on_a_terminal_only(
    monkeypatch: pytest.MonkeyPatch, tty: bool
) -> None:
    import termios

    flushed: list[tuple[Any, int]] = []
    monkeypatch.setattr(termios, "tcflush", lambda stream, queue: flushed.append((stream, queue)))
    stdin = _Stdin(tty)
    monkeypatch.setattr(sys, "stdin", stdin)
    _, _, script = play_script(["moves", "quit"])
    assert len(script.prompts) == 2
    assert flushed == ([(stdin, termios.TCIFLUSH)] * 2 if tty else [])


def test_ctrl_c_mid_game_prints_the_moves_played_before_it_passes_on() -> None:
    console = Console(file=io.StringIO(), width=200, highlight=False)
    lines = iter(["b2"])

    def input_fn(prompt: str) -> str:
        try:
            return next(lines)
        except StopIteration:
            raise KeyboardInterrupt from None

    game = TerminalGame(new_game("tictactoe"), make_agent("random", 1), console=console, input_fn=input_fn)
    with pytest.raises(KeyboardInterrupt):
        game.run()
    out = console.file.getvalue()  # type: ignore[attr-defined]
    assert out.count("Moves: b2 ") == 1, out
    assert "Game left unfinished" not in out


@pytest.mark.timeout(120)
@pytest.mark.parametrize(
    ("signal_number", "code", "said"),
    [(signal.SIGINT, 130, "Interrupted."), (signal.SIGTERM, 143, "Terminated.")],
)
def test_cli_a_signal_mid_game_prints_the_moves_then_the_one_line(
    signal_number: int, code: int, said: str
) -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "boardlab", "play", "--game", "tictactoe", "--agent", "random"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write("b2\n")
    process.stdin.flush()
    seen = ""
    while "move 3," not in seen:  # the agent has answered: the second prompt is shown
        char = process.stdout.read(1)
        assert char, seen
        seen += char
    process.send_signal(signal_number)
    rest = process.stdout.read()
    process.wait(timeout=60)
    assert process.returncode == code, seen + rest
    assert re.search(r"Moves: b2 [a-c][1-3]\n", rest), rest
    assert rest.rstrip().endswith(said), rest


class _TimedAdviser(_Adviser):
    """A perfect adviser whose preparation (a compile) and each answer take seconds of ``timer``."""

    def __init__(self, timer: FakeClock, prepare: float, answer: float) -> None:
        super().__init__("perfect")
        self.timer, self.preparing, self.answering = timer, prepare, answer

    def prepare(self, game: Any) -> None:
        self.timer.now += self.preparing
        super().prepare(game)

    def act(self, state: Any, limit: Any = None) -> Decision:
        self.timer.now += self.answering
        return super().act(state, limit)


def test_on_a_clock_the_advisers_start_up_is_not_charged_to_the_person_its_answer_is() -> None:
    def adviser(timer: FakeClock) -> Callable[[], _TimedAdviser]:
        def start() -> _TimedAdviser:
            timer.now += 2.5  # its process starting
            return _TimedAdviser(timer, prepare=4.0, answer=1.0)

        return start

    lines = [(2.0, "hint"), (1.5, "hint"), (0.5, "b2"), (10.0, "quit")]
    _, out, script, game, _ = clocked(lines, ["a1"], 4.0, adviser=adviser)
    assert out.count("hint: ") == 2
    assert script.prompts[1] == "move 1, you are X, 0:57.0 left > "  # 2 s typing and a 1 s answer
    assert game.session.turns[0].seconds == 2.0 + 1.0 + 1.5 + 1.0 + 0.5


def test_cli_a_nim_position_of_other_piles_suggests_the_game_of_those_piles() -> None:
    result = CliRunner().invoke(cli_app(), ["play", "--game", "nim", "--position", "3-4-5"])
    assert result.exit_code == 2
    assert (
        "this game has 4 piles, got [3, 4, 5] (a game of these piles: --game nim:piles=3-4-5)"
        in result.output
    )
    args = ["play", "--game", "nim:k=2,misere=false", "--position", "3-4-5"]
    other_rules = CliRunner().invoke(cli_app(), args)
    assert "(a game of these piles: --game nim:piles=3-4-5,k=2,misere=false)" in other_rules.output


def test_cli_from_a_position_with_the_agent_to_move_the_intro_says_it_moves_first() -> None:
    args = ["play", "--game", "quixo:size=3", "--position", "X.O.O.X.. O 5"]
    result = CliRunner().invoke(cli_app(), args, input="quit\n", env={"COLUMNS": "200"})
    assert "you are X (first), greedy is O; greedy (O) moves first, --side o to play O." in result.output
    chosen = CliRunner().invoke(cli_app(), [*args, "--side", "x"], input="quit\n", env={"COLUMNS": "200"})
    assert "greedy is O; greedy (O) moves first. Type help" in chosen.output
    mine = CliRunner().invoke(cli_app(), [*args, "--side", "o"], input="quit\n", env={"COLUMNS": "200"})
    assert "you are O (second), greedy is X. Type help" in mine.output


@pytest.mark.timeout(120)
def test_cli_on_a_terminal_the_up_arrow_recalls_the_move_typed_before() -> None:
    import pty
    import select

    primary, secondary = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "boardlab", "play", "--game", "connect4", "--agent", "random", "--seed", "1"],
        stdin=secondary,
        stdout=secondary,
        stderr=secondary,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    os.close(secondary)
    seen = b""

    def read_until(text: bytes) -> None:
        nonlocal seen
        while text not in seen:
            ready, _, _ = select.select([primary], [], [], 60)
            assert ready, seen[-400:]
            seen += os.read(primary, 4096)

    try:
        read_until(b"move 1,")
        os.write(primary, b"4\r")
        read_until(b"move 3,")
        os.write(primary, b"\x1b[A\r")  # the up arrow, then Enter: the "4" typed before, again
        read_until(b"move 5,")
        os.write(primary, b"quit\r")
        read_until(b"Game left unfinished")
    finally:
        process.wait(timeout=60)
        os.close(primary)
    assert re.search(rb"Moves: \S*4\S* [1-7] \S*4\S* [1-7]", seen), seen[-400:]
