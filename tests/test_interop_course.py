"""The course-template doors: boardlab agents as course Players, course Players as agents."""

from __future__ import annotations

import enum
import random
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from course_standin import FirstLegalPlayer, Game, RandomPlayer
from course_standin import Move as StandinMove

from boardlab.agents.base import AgentSpecError, agent_class, make_agent
from boardlab.agents.greedy import classify_moves
from boardlab.games import parse_game
from boardlab.games.quixo import Move, Push, State
from boardlab.interop.course import (
    CourseAgentPlayer,
    CourseGameView,
    CourseInteropError,
    CourseMoveError,
    CoursePlayerAgent,
    as_course_player,
    course_check_winner,
    course_take_and_slide,
    from_course_move,
    read_board,
    state_from_course_game,
    to_course_move,
)
from boardlab.play.referee import AgentForfeit

STANDIN = Path(__file__).with_name("course_standin.py")

# X (player 0) to move; a2..d2 are X and e2 is blank. The only win: take e2 and push it
# back in at the left end of row 2 (a2), so the row slides right and fills with X.
ROW_WIN = [
    [-1, -1, 1, -1, -1],
    [0, 0, 0, 0, -1],
    [-1, -1, -1, -1, 1],
    [1, -1, -1, -1, -1],
    [-1, -1, -1, -1, -1],
]
# O (player 1) to move; c2..c5 are O and c1 is blank. The only win: take c1 and push it
# back in at the bottom of column c (c5), so the column slides up and fills with O.
COLUMN_WIN = [
    [-1, 0, -1, -1, -1],
    [0, -1, 1, -1, -1],
    [-1, -1, 1, -1, 0],
    [-1, -1, 1, -1, -1],
    [-1, -1, 1, -1, -1],
]


def standin_game(board: list[list[int]], player: int, blank_255: bool = False) -> Game:
    """A stand-in course game holding ``board`` (rows of -1/0/1) with ``player`` to move."""
    game = Game(blank_255=blank_255)
    for y, row in enumerate(board):
        for x, value in enumerate(row):
            game._board[y, x] = game.blank if value < 0 else value
    game.current_player_idx = player
    return game


def random_positions(count: int, seed: int) -> list[State]:
    """Positions met in random games, the game not yet over."""
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        state = State.initial()
        for _ in range(rng.randint(0, 40)):
            if state.is_over:
                break
            out.append(state)
            state = state.play(rng.choice(state.legal_moves()))
    return out[:count]


# --- reading the course's board and moves ---------------------------------------------------


def test_read_board_accepts_uint8_255_and_signed_minus_one() -> None:
    signed = np.array(ROW_WIN, dtype=np.int64)
    unsigned = np.where(signed < 0, 255, signed).astype(np.uint8)
    assert read_board(unsigned).tolist() == ROW_WIN
    assert read_board(signed).tolist() == ROW_WIN
    assert read_board(signed.astype(np.int8)).dtype == np.int8
    assert read_board(signed.astype(float)).tolist() == ROW_WIN


@pytest.mark.parametrize(
    ("board", "message"),
    [
        (np.full((5, 4), -1), "square"),
        (np.full((5, 5), 2), "holds 2"),
        (np.full((5, 5), "x"), "numbers"),
    ],
)
def test_read_board_refuses_what_it_cannot_read(board: np.ndarray, message: str) -> None:
    with pytest.raises(CourseInteropError, match=message):
        read_board(board)


def test_moves_convert_both_ways_with_the_same_coordinates() -> None:
    move = Move(4, 1, Push.LEFT)
    assert to_course_move(move) == ((4, 1), Push.LEFT)
    assert to_course_move(move, StandinMove) == ((4, 1), StandinMove.LEFT)
    assert from_course_move((4, 1), StandinMove.LEFT) == move
    assert from_course_move([np.int64(4), np.int64(1)], 2) == move
    assert str(move) == "e2a2"
    with pytest.raises(CourseInteropError, match="not a move"):
        from_course_move((2, 2), StandinMove.TOP)
    with pytest.raises(CourseInteropError, match="slide"):
        from_course_move((0, 1), "sideways")


def test_course_rules_agree_with_the_engine_and_the_standin() -> None:
    for state in random_positions(60, seed=3):
        board = state.board()
        legal = set(state.legal_moves())
        for x, y in [(x, y) for x in range(5) for y in range(5)]:
            for slide in StandinMove:
                game = standin_game(board, state.to_move)
                accepted = game._Game__move((x, y), slide, state.to_move)
                mine = np.array(board, dtype=np.int8)
                assert course_take_and_slide(mine, (x, y), slide, state.to_move) == accepted
                move = Move(x, y, Push(slide.value))
                assert accepted == (move in legal)
                if accepted:
                    assert game.get_board().tolist() == state.play(move).board() == mine.tolist()


def test_course_check_winner_is_the_first_line_found() -> None:
    board = np.full((5, 5), -1, dtype=np.int8)
    board[:, 3] = 0
    board[4, :] = 1
    assert course_check_winner(board) == 1  # rows are scanned before columns
    assert standin_game(board.tolist(), 0).check_winner() == 1


def test_course_check_winner_agrees_with_the_templates_referee_on_every_line() -> None:
    rng = np.random.default_rng(7)
    lines = [(np.full(5, i), np.arange(5)) for i in range(5)] + [
        (np.arange(5), np.full(5, i)) for i in range(5)
    ]
    lines += [(np.arange(5), np.arange(5)), (np.arange(5), np.arange(4, -1, -1))]
    for trial in range(240):
        board = rng.integers(-1, 2, size=(5, 5)).astype(np.int8)
        ys, xs = lines[trial % len(lines)]
        board[ys, xs] = trial // len(lines) % 2
        assert course_check_winner(board) == standin_game(board.tolist(), 0).check_winner()
    anti = np.full((5, 5), -1, dtype=np.int8)
    anti[np.arange(5), np.arange(4, -1, -1)] = 1
    assert course_check_winner(anti) == 1


def test_read_board_takes_the_largest_value_of_any_unsigned_type_as_blank() -> None:
    signed = np.array(ROW_WIN, dtype=np.int64)
    for dtype in (np.uint16, np.uint32):
        unsigned = np.where(signed < 0, np.iinfo(dtype).max, signed).astype(dtype)
        assert read_board(unsigned).tolist() == ROW_WIN


@pytest.mark.parametrize(
    ("from_pos", "slide", "message"),
    [
        ((True, 1), 2, "whole numbers"),
        ((4, np.True_), 2, "whole numbers"),
        ((4, 1), 4, "slide"),
        ((4, 1), -1, "slide"),
        ((4, 1), True, "slide"),
    ],
)
def test_course_moves_refuse_bools_and_slides_out_of_range(
    from_pos: object, slide: object, message: str
) -> None:
    with pytest.raises(CourseInteropError, match=message):
        from_course_move(from_pos, slide)


def test_a_move_enum_is_matched_by_name_not_by_value() -> None:
    class Reordered(enum.Enum):  # the ends in another order than boardlab's
        LEFT = 0
        RIGHT = 1
        TOP = 2
        BOTTOM = 3

    for move in (
        Move(4, 1, Push.LEFT),
        Move(0, 1, Push.RIGHT),
        Move(2, 4, Push.TOP),
        Move(2, 0, Push.BOTTOM),
    ):
        (x, y), slide = to_course_move(move, Reordered)
        assert slide.name == move.push.name and from_course_move((x, y), slide) == move


# --- boardlab agent as a course Player ------------------------------------------------------


@pytest.mark.parametrize(
    ("board", "player", "answer"),
    [
        (ROW_WIN, 0, ((4, 1), StandinMove.LEFT)),
        (COLUMN_WIN, 1, ((2, 0), StandinMove.BOTTOM)),
    ],
)
@pytest.mark.parametrize("blank_255", [False, True])
def test_wrapped_greedy_finds_the_only_win_with_the_right_coordinates(
    board: list[list[int]], player: int, answer: tuple[tuple[int, int], StandinMove], blank_255: bool
) -> None:
    state = State.from_board(board, to_move=player)
    wins, _, _ = classify_moves(state.kernel, *state.words)
    assert [str(state.move_from_index(m)) for m in wins] == [str(from_course_move(*answer))]

    game = standin_game(board, player, blank_255=blank_255)
    course_player = as_course_player("greedy", seed=1, move_enum=StandinMove)
    assert course_player.make_move(game) == answer
    assert game._Game__move(*answer, player)
    assert game.check_winner() == player


def test_the_course_move_enum_is_found_beside_the_game_class() -> None:
    game = standin_game(ROW_WIN, 0)
    assert as_course_player("greedy", seed=1).make_move(game) == ((4, 1), StandinMove.LEFT)
    view = CourseGameView(np.array(ROW_WIN), 0)
    assert as_course_player("greedy", seed=1).make_move(view) == ((4, 1), Push.LEFT)


@pytest.mark.parametrize("blank_255", [False, True])
@pytest.mark.parametrize("seed", range(4))
def test_wrapped_agents_play_whole_games_inside_the_course_loop(seed: int, blank_255: bool) -> None:
    game = Game(blank_255=blank_255)
    first = as_course_player("greedy", seed=seed)
    second = CourseAgentPlayer(make_agent("random", seed + 100), move_enum=StandinMove)
    winner = game.play(first, second, max_turns=400)
    assert game.refused == 0
    assert game.turns < 400
    assert winner in (0, 1)


def test_a_wrapped_agent_plays_the_course_random_player_to_the_end() -> None:
    game = Game()
    winner = game.play(RandomPlayer(seed=5), as_course_player("greedy", seed=5), max_turns=400)
    assert winner in (0, 1)


def test_a_new_course_game_resets_the_agent() -> None:
    agent = make_agent("random", 0)
    resets: list[int] = []
    agent.new_game = lambda: resets.append(1)  # type: ignore[method-assign]
    player = CourseAgentPlayer(agent)
    for _ in range(2):
        Game().play(player, as_course_player("random", seed=1), max_turns=400)
    assert len(resets) == 2


@pytest.mark.parametrize("seed", range(3))
def test_a_wrapped_agent_follows_the_course_game_move_by_move(seed: int) -> None:
    game = Game()
    first = as_course_player("greedy", seed=seed)
    second = as_course_player("random", seed=seed + 1)
    game.play(first, second, max_turns=400)
    # the course game counts no plies: each session counts from the first position it was shown
    for player, blanks, offset in ((first, 25, 0), (second, 24, 1)):
        session = player.session
        assert session is not None and session.start.blanks == blanks
        assert session.start.to_move == offset and session.start.ply == 0
        assert session.state.ply + offset in (game.turns - 1, game.turns)  # the last move may be the other's


def test_a_wrapped_agent_that_fails_says_so() -> None:
    agent = make_agent("random", 0)
    agent.act = lambda state, limit=None: 1 / 0  # type: ignore[method-assign]
    with pytest.raises(AgentForfeit, match="raised ZeroDivisionError"):
        CourseAgentPlayer(agent).make_move(Game())


def test_a_finished_course_position_is_refused() -> None:
    board = np.full((5, 5), -1)
    board[0, :] = 0
    with pytest.raises(CourseInteropError, match="complete line"):
        as_course_player("random", seed=0).make_move(CourseGameView(board, 1))


def test_state_from_course_game_refuses_a_bad_player() -> None:
    with pytest.raises(CourseInteropError, match="player 2"):
        state_from_course_game(CourseGameView(np.full((5, 5), -1), 2))


# --- course Player as a boardlab agent ------------------------------------------------------


def play_boardlab_game(first: object, second: object) -> State:
    """A whole game under boardlab's engine."""
    agents = (first, second)
    state = State.initial()
    for agent in agents:
        agent.new_game()  # type: ignore[attr-defined]
    while not state.is_over:
        state = state.play(agents[state.to_move].choose(state))  # type: ignore[attr-defined]
    return state


def test_the_course_agent_is_registered() -> None:
    assert agent_class("course") is CoursePlayerAgent


@pytest.mark.parametrize(
    "spec",
    [
        "course:player=course_standin:RandomPlayer",
        "course:player=course_standin.RandomPlayer",
        f"course:player={STANDIN}:RandomPlayer",
        "course:player=course_standin:FirstLegalPlayer",
    ],
)
@pytest.mark.parametrize("student_first", [True, False])
def test_student_players_play_whole_games_under_boardlab(spec: str, student_first: bool) -> None:
    student = make_agent(spec, seed=7)
    opponent = make_agent("random", seed=8)
    final = play_boardlab_game(student, opponent) if student_first else play_boardlab_game(opponent, student)
    assert final.is_over


def test_the_student_answer_maps_to_the_matching_boardlab_move() -> None:
    agent = CoursePlayerAgent(player=FirstLegalPlayer)
    # scanning from (0, 0): TOP is refused for the top-left corner, BOTTOM is its first move
    assert agent.choose(State.initial()) == Move.parse("a1a5")
    state = State.from_board(ROW_WIN, to_move=0)
    assert agent.choose(state) == Move(0, 0, Push.BOTTOM)


def test_refused_moves_are_asked_again_then_give_up() -> None:
    agent = make_agent("course:player=course_standin:RandomPlayer,attempts=10000", seed=1)
    state = State.from_text("OOOO./OX..O/....O/O...O/.OOOO X 26")  # three free cubes
    move = agent.choose(state)
    # replay the player's random stream: every proposal before the accepted one was refused
    shadow, legal, refused = RandomPlayer(seed=1), set(state.legal_moves()), 0
    while (candidate := _shadow_move(shadow)) not in legal:
        refused += 1
    assert move == candidate
    assert agent.refused_moves == refused > 0
    stubborn = make_agent("course:player=course_standin:StubbornPlayer,attempts=5")
    with pytest.raises(CourseMoveError, match="5 attempts"):
        stubborn.choose(State.initial())
    assert stubborn.refused_moves == 5


def _shadow_move(player: RandomPlayer) -> Move | None:
    from_pos, slide = player.make_move(None)  # type: ignore[arg-type]
    try:
        return from_course_move(from_pos, slide)
    except CourseInteropError:
        return None


def test_a_player_instance_is_accepted() -> None:
    agent = CoursePlayerAgent(seed=0, player=RandomPlayer(seed=3))
    assert agent.choose(State.initial()) in State.initial().legal_moves()


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("course", "say which player"),
        ("course:player=no_such_module_here:Player", "cannot import 'no_such_module_here'"),
        ("course:player=course_standin:NoSuchPlayer", "no class 'NoSuchPlayer'; its classes with make_move"),
        ("course:player=course_standin:random", "no make_move"),
        ("course:player=nodots", "cannot read player"),
        ("course:player=missing/file.py:Player", r"^course: no such file 'missing/file.py' \(in .+\)$"),
        ("course:player=course_standin:Player", "building Player failed"),
    ],
)
def test_bad_player_paths_give_clear_errors(spec: str, message: str) -> None:
    with pytest.raises(AgentSpecError, match=message):
        make_agent(spec)


def test_a_seeded_student_replays_the_same_game() -> None:
    games = []
    for _ in range(2):
        student = make_agent("course:player=course_standin:RandomPlayer", seed=11)
        final = play_boardlab_game(student, make_agent("random", seed=12))
        games.append(final.to_text())
    assert games[0] == games[1]


# --- the course rulebook --------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(40))
def test_course_rules_agree_with_the_templates_referee_after_every_move(seed: int) -> None:
    rng = random.Random(seed)
    referee = Game()
    state = State.initial(rules="course")
    while not state.is_over:
        move = rng.choice(state.legal_moves())
        (x, y), slide = to_course_move(move, StandinMove)
        assert referee._Game__move((x, y), slide, state.to_move)  # type: ignore[attr-defined]
        state = state.play(move)
        assert state.board() == read_board(referee.get_board()).tolist()
        expected = referee.check_winner()
        assert (state.winner if state.is_over else -1) == expected


def test_the_two_rulebooks_differ_when_a_move_completes_both_colours() -> None:
    # complete rows of both colours, the first in the referee's scan order being O's
    both = "OOOOO/XXXXX/...../...../....."
    assert State.from_text(both + " X 10").winner == 0  # official: the side to move's line
    course = parse_game("quixo:rules=course").parse_position(both + " X 10")
    assert course.winner == 1  # course: the first complete line in the scan order


def test_a_wrong_move_enum_is_refused_when_wrapping() -> None:
    for wrong in (Push, Move, int):
        with pytest.raises(CourseInteropError, match="move_enum"):
            as_course_player("random", move_enum=wrong)  # type: ignore[arg-type]
    player = as_course_player("random", move_enum=StandinMove)
    assert player.rules == "course"
    assert Game().play(player, RandomPlayer(seed=1)) in (0, 1)


def test_a_seed_with_an_agent_is_refused_not_ignored() -> None:
    agent = make_agent("random", 3)
    with pytest.raises(AgentSpecError, match="seed=5 is for an agent spec"):
        as_course_player(agent, seed=5)
    assert as_course_player(agent).agent is agent


@pytest.fixture
def player_in_cwd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``my_player.py`` (the stand-in's players) in the current folder, which is not on ``sys.path``."""
    (tmp_path / "my_player.py").write_text(STANDIN.read_text())
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", ".", str(tmp_path))])
    return tmp_path


@pytest.mark.timeout(120)
@pytest.mark.parametrize(
    ("player", "message"),
    [
        # a file with no class: the class must be named, and the file's classes are offered
        (
            "my_player.py",
            r"^course: player 'my_player\.py' names a file but no class; write "
            r"player=my_player\.py:ClassName with one of its classes that have make_move\(game\): "
            r"RandomPlayer, FirstLegalPlayer",
        ),
        # a file that is not there: where it was looked for
        ("sub/my_player.py", r"^course: no such file 'sub/my_player\.py' \(in .+\)$"),
        ("other.py:RandomPlayer", r"^course: no such file 'other\.py' \(in .+\)$"),
        # a wrong class name: the classes there that could be meant
        (
            "my_player.py:Nope",
            r"^course: 'my_player\.py' has no class 'Nope'; its classes with make_move\(game\): "
            r"RandomPlayer, FirstLegalPlayer",
        ),
        # a module name for a file of the current folder, which is not on sys.path
        (
            "my_player:RandomPlayer",
            r"^course: cannot import 'my_player' \(no module of that name on sys\.path\); the file "
            r"my_player\.py of the current folder is written player=my_player\.py:RandomPlayer$",
        ),
    ],
)
def test_a_player_named_wrongly_is_told_how_to_write_it(
    player_in_cwd: Path, player: str, message: str
) -> None:
    with pytest.raises(AgentSpecError, match=message):
        make_agent(f"course:player={player}")


DEEP_PLAYER = """class Deep:
    def __init__(self, depth, seed=None, *, width):
        self.depth, self.width = depth, width

    def make_move(self, game):
        return (0, 0), 1
"""


def test_a_constructor_needing_arguments_is_told_the_next_step(tmp_path: Path) -> None:
    player = tmp_path / "args.py"
    player.write_text(DEEP_PLAYER)
    advice = (
        "; boardlab builds Deep with no arguments (seed= only, if it takes one): give depth, width a "
        "default in __init__, or name a subclass that sets them (its __init__ calling "
        "super().__init__(depth=..., width=...))"
    )
    with pytest.raises(AgentSpecError) as checked:  # checked in a child process
        make_agent(f"course:player={player}:Deep")
    assert str(checked.value).startswith("course: building Deep failed: TypeError: Deep.__init__() missing")
    assert str(checked.value).endswith(advice)
    namespace: dict[str, Any] = {}
    exec(DEEP_PLAYER, namespace)
    with pytest.raises(AgentSpecError) as built:  # built in this process
        CoursePlayerAgent(player=namespace["Deep"])
    assert str(built.value).endswith(advice)
    with pytest.raises(AgentSpecError) as abstract:  # no argument missing: no such advice
        make_agent("course:player=course_standin:Player")
    assert "boardlab builds" not in str(abstract.value)
