"""A deliberately naive Quixo solver, to cross-check the retrograde one.

Plain Python on the rules of ``quixo_reference`` (boards as tuples of cells, no bit tricks,
no ranking): every position of the chosen set is listed, and rounds of value iteration run
until nothing changes. Round r settles exactly the positions whose perfect-play depth is r:

- a position is won in r if a move leads to a position lost in r - 1 (known after round r - 1);
- it is lost in r if every move leads to a won position, the slowest won in r - 1.

Positions are seen by the side to move: cell value 0 is "mine", 1 the opponent's, -1 blank.
Values: +1 win, -1 loss, 0 draw (never settled); depths are plies to the end. Under the
course rules a board with lines of both colours goes to the owner of the first full line
the course referee finds (rows from the top, columns from the left, the two diagonals).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable

import quixo_reference as ref

Cells = tuple[int, ...]
Result = tuple[int, int]  # (value, depth)


def board_of(cells: Cells, n: int) -> list[list[int]]:
    """Rows of the cells (row 0 on top)."""
    return [list(cells[y * n : (y + 1) * n]) for y in range(n)]


def cells_of(board: list[list[int]]) -> Cells:
    """The cells row by row."""
    return tuple(v for row in board for v in row)


def swap_sides(cells: Cells) -> Cells:
    """The same board seen by the other player."""
    return tuple(v if v < 0 else 1 - v for v in cells)


def children(cells: Cells, n: int) -> list[Cells]:
    """The positions after each legal move, seen by the side to move next (one per move)."""
    board = board_of(cells, n)
    return [swap_sides(cells_of(ref.play(board, 0, move))) for move in ref.legal_moves(board, 0)]


def first_line_owner(board: list[list[int]], n: int) -> int | None:
    """The owner of the first full line in the course referee's order, None if none."""
    lines = [[(x, y) for x in range(n)] for y in range(n)]
    lines += [[(x, y) for y in range(n)] for x in range(n)]
    lines += [[(i, i) for i in range(n)], [(n - 1 - i, i) for i in range(n)]]
    for line in lines:
        owners = {board[y][x] for x, y in line}
        if len(owners) == 1 and owners != {-1}:
            return owners.pop()
    return None


def terminal(cells: Cells, n: int, rulebook: str = "official") -> int | None:
    """+1 if the side to move has won, -1 if it has lost, None if the game goes on."""
    board = board_of(cells, n)
    if rulebook == "course":
        owner = first_line_owner(board, n)
        return None if owner is None else (1 if owner == 0 else -1)
    if ref.has_line(board, 0):
        return 1
    if ref.has_line(board, 1):
        return -1
    return None


def class_positions(n: int, mine: int, theirs: int) -> Iterable[Cells]:
    """Every position with ``mine`` cubes of the side to move and ``theirs`` of the opponent."""
    size = n * n
    for mine_cells in itertools.combinations(range(size), mine):
        rest = [c for c in range(size) if c not in mine_cells]
        for their_cells in itertools.combinations(rest, theirs):
            cells = [-1] * size
            for c in mine_cells:
                cells[c] = 0
            for c in their_cells:
                cells[c] = 1
            yield tuple(cells)


def solve_positions(
    positions: Iterable[Cells],
    n: int,
    outside: Callable[[Cells], Result] | None = None,
    rulebook: str = "official",
) -> dict[Cells, Result]:
    """Solve a set of positions closed under moves except for ``outside`` ones.

    ``outside(cells)`` gives ``(value, depth)`` of a child that is not in the set.
    """
    todo = list(positions)
    inside = set(todo)
    result: dict[Cells, Result] = {}
    links: dict[Cells, list[Cells]] = {}
    for cells in todo:
        end = terminal(cells, n, rulebook)
        if end is not None:
            result[cells] = (end, 0)
        else:
            links[cells] = children(cells, n)
    known_outside: dict[Cells, Result] = {}
    for kids in links.values():
        for kid in kids:
            if kid not in inside and kid not in known_outside:
                if outside is None:
                    raise ValueError("the positions are not closed under moves")
                known_outside[kid] = outside(kid)
    open_positions = list(links)
    depth = 0
    while open_positions:
        depth += 1
        settled: dict[Cells, Result] = {}
        for cells in open_positions:
            best_loss = None
            all_won = True
            slowest = 0
            for kid in links[cells]:
                value = result.get(kid) or known_outside.get(kid)
                if value is None or value[0] == 0:
                    all_won = False
                    continue
                if value[0] < 0 and value[1] + 1 <= depth:
                    best_loss = value[1] + 1 if best_loss is None else min(best_loss, value[1] + 1)
                if value[0] > 0:
                    slowest = max(slowest, value[1] + 1)
                else:
                    all_won = False
            if best_loss == depth:
                settled[cells] = (1, depth)
            elif all_won and slowest == depth:
                settled[cells] = (-1, depth)
        result.update(settled)
        open_positions = [c for c in open_positions if c not in result]
        pending_outside = any(v[1] >= depth for v in known_outside.values() if v[0] != 0)
        if not settled and not pending_outside:
            break
    for cells in open_positions:
        result[cells] = (0, 0)
    return result


def solve_board(n: int, rulebook: str = "official") -> dict[Cells, Result]:
    """Every position of an n x n board (3^(n*n) of them; meant for n = 3)."""
    everything = [tuple(c) for c in itertools.product((-1, 0, 1), repeat=n * n)]
    return solve_positions(everything, n, rulebook=rulebook)


def solve_class_pair(
    n: int, mine: int, theirs: int, outside: Callable[[Cells], Result], rulebook: str = "official"
) -> dict[Cells, Result]:
    """Classes ``(mine, theirs)`` and ``(theirs, mine)``, the fuller classes given by ``outside``."""
    positions = list(class_positions(n, mine, theirs))
    if mine != theirs:
        positions += list(class_positions(n, theirs, mine))
    return solve_positions(positions, n, outside, rulebook)
