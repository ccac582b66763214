"""A plain, slow Quixo written straight from the rules, to cross-check the engine.

The board is a list of rows (row 0 on top); ``board[y][x]`` is the cube at column ``x``,
row ``y``: ``BLANK`` (-1), ``X`` (0, moves first) or ``O`` (1). A move ``(x, y, push)``
takes the border cube at ``(x, y)``, which must be blank or the mover's, and pushes it
back in at the end ``push`` of its row or column (``TOP``, ``BOTTOM``, ``LEFT`` or
``RIGHT``), never at the end where it was taken; the cube then shows the mover's symbol.

After a move the mover's opponent wins if it has a full line (row, column or diagonal),
even if the mover completed one too; otherwise the mover wins with a full line of its own.
"""

from __future__ import annotations

from functools import cache

BLANK, X, O = -1, 0, 1  # noqa: E741
TOP, BOTTOM, LEFT, RIGHT = 0, 1, 2, 3
SIZES = (3, 4, 5)

Board = list[list[int]]
RefMove = tuple[int, int, int]


def empty_board(n: int) -> Board:
    """An n x n board of blank cubes."""
    if n not in SIZES:
        raise ValueError(f"size must be one of {SIZES}, got {n}")
    return [[BLANK] * n for _ in range(n)]


def copy_board(board: Board) -> Board:
    """An independent copy of ``board``."""
    return [list(row) for row in board]


def on_border(n: int, x: int, y: int) -> bool:
    """True if ``(x, y)`` is on the outer ring of an n x n board."""
    return x in (0, n - 1) or y in (0, n - 1)


def push_ends(n: int, x: int, y: int) -> list[int]:
    """The ends where a cube taken at border cell ``(x, y)`` may be pushed back in.

    The four ends of its row and column are candidates; the one it was taken from is not.
    """
    ends = []
    if y != 0:
        ends.append(TOP)
    if y != n - 1:
        ends.append(BOTTOM)
    if x != 0:
        ends.append(LEFT)
    if x != n - 1:
        ends.append(RIGHT)
    return ends


@cache
def border_cells(n: int) -> tuple[tuple[int, int], ...]:
    """The cells ``(x, y)`` of the outer ring, row by row."""
    return tuple((x, y) for y in range(n) for x in range(n) if on_border(n, x, y))


def legal_moves(board: Board, player: int) -> list[RefMove]:
    """Every move the rules allow ``player``, ignoring whether the game is already over."""
    n = len(board)
    moves = []
    for x, y in border_cells(n):
        if board[y][x] != 1 - player:
            moves.extend((x, y, end) for end in push_ends(n, x, y))
    return moves


def is_legal(board: Board, player: int, move: RefMove) -> bool:
    """True if ``move`` is allowed for ``player`` on ``board``."""
    n = len(board)
    x, y, end = move
    return (
        0 <= x < n
        and 0 <= y < n
        and on_border(n, x, y)
        and board[y][x] != 1 - player
        and end in push_ends(n, x, y)
    )


def play(board: Board, player: int, move: RefMove) -> Board:
    """The board after ``player`` plays ``move``; raises ValueError for an illegal move."""
    if not is_legal(board, player, move):
        raise ValueError(f"illegal move {move} for player {player}")
    n = len(board)
    x, y, end = move
    after = copy_board(board)
    if end == TOP:
        for row in range(y, 0, -1):
            after[row][x] = after[row - 1][x]
        after[0][x] = player
    elif end == BOTTOM:
        for row in range(y, n - 1):
            after[row][x] = after[row + 1][x]
        after[n - 1][x] = player
    elif end == LEFT:
        for col in range(x, 0, -1):
            after[y][col] = after[y][col - 1]
        after[y][0] = player
    else:
        for col in range(x, n - 1):
            after[y][col] = after[y][col + 1]
        after[y][n - 1] = player
    return after


@cache
def lines(n: int) -> tuple[tuple[tuple[int, int], ...], ...]:
    """The cells ``(x, y)`` of every row, column and both diagonals."""
    rows = [tuple((x, y) for x in range(n)) for y in range(n)]
    cols = [tuple((x, y) for y in range(n)) for x in range(n)]
    diagonal = tuple((i, i) for i in range(n))
    anti_diagonal = tuple((n - 1 - i, i) for i in range(n))
    return (*rows, *cols, diagonal, anti_diagonal)


def has_line(board: Board, player: int) -> bool:
    """True if ``player`` owns every cube of some row, column or diagonal."""
    return any(all(board[y][x] == player for x, y in line) for line in lines(len(board)))


def winner(board: Board, mover: int) -> int | None:
    """The winner just after ``mover`` moved, or None if the game goes on."""
    opponent = 1 - mover
    if has_line(board, opponent):
        return opponent
    if has_line(board, mover):
        return mover
    return None


def is_finished(board: Board) -> bool:
    """True if either side has a full line (the game ended on the previous move)."""
    return has_line(board, X) or has_line(board, O)


def perft(board: Board, player: int, depth: int) -> int:
    """Leaves of the game tree ``depth`` moves deep, ``player`` to move.

    A finished game is a leaf and is not expanded. One move from the horizon every child
    is a leaf, finished or not, so the children are counted rather than played.
    """
    if depth == 0 or is_finished(board):
        return 1
    moves = legal_moves(board, player)
    if depth == 1:
        return len(moves)
    return sum(perft(play(board, player, move), 1 - player, depth - 1) for move in moves)


def rotate(board: Board) -> Board:
    """The board turned a quarter turn clockwise."""
    n = len(board)
    return [[board[n - 1 - col][row] for col in range(n)] for row in range(n)]


def mirror(board: Board) -> Board:
    """The board reflected left to right."""
    return [list(reversed(row)) for row in board]


def symmetric_images(board: Board) -> list[Board]:
    """The board under the 8 symmetries of the square (rotations, then reflections)."""
    images = []
    current = copy_board(board)
    for _ in range(4):
        images.append(current)
        images.append(mirror(current))
        current = rotate(current)
    return images


def are_symmetric(first: Board, second: Board) -> bool:
    """True if some rotation or reflection maps ``first`` onto ``second``."""
    return any(image == second for image in symmetric_images(first))
