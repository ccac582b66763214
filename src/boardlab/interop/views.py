"""What the reinforcement-learning bridges show of a position: the observation planes from
either player's view, and a picture of the board as an RGB array.

Every boardlab game gives its observation planes from the mover's view. Two-plane games
(Quixo, Connect Four, Tic-Tac-Toe) hold the mover's pieces then the opponent's, so the
waiting player's view is the same planes in the other order; one-plane games (Nim) are
impartial and look the same to both players. The picture is drawn from the planes and the
side to move alone, so it serves every game without naming one.
"""

from __future__ import annotations

import numpy as np

from boardlab.games.base import State

CELL_PIXELS = 24
BORDER_PIXELS = 2
BACKGROUND = (235, 235, 225)
GRID = (60, 60, 60)
PLAYER_COLOURS = ((200, 40, 40), (40, 90, 200))
"""X (the first player) red, O blue."""
FILLED = (40, 40, 40)
"""A marked cell of a one-plane (impartial) game, e.g. an object of a Nim pile."""


def planes_for(state: State, colour: int) -> np.ndarray:
    """The observation planes of ``state`` from the view of player ``colour`` (0 or 1)."""
    planes = state.observation()
    if colour == state.to_move or planes.shape[0] == 1:
        return planes
    return np.ascontiguousarray(planes[::-1])


def rgb_picture(state: State) -> np.ndarray:
    """The board as an ``(height, width, 3)`` uint8 image: a grid of cells, each coloured by
    the player whose piece is on it (one-plane games: dark where a plane is set)."""
    planes = state.observation()
    _, rows, columns = planes.shape
    step = CELL_PIXELS + BORDER_PIXELS
    image = np.empty((rows * step + BORDER_PIXELS, columns * step + BORDER_PIXELS, 3), dtype=np.uint8)
    image[:] = GRID
    for row in range(rows):
        for column in range(columns):
            top, left = BORDER_PIXELS + row * step, BORDER_PIXELS + column * step
            colour = _cell_colour(planes, state, row, column)
            image[top : top + CELL_PIXELS, left : left + CELL_PIXELS] = colour
    return image


def _cell_colour(planes: np.ndarray, state: State, row: int, column: int) -> tuple[int, int, int]:
    if planes.shape[0] == 1:
        return FILLED if planes[0, row, column] > 0 else BACKGROUND
    for plane in range(2):
        if planes[plane, row, column] > 0:
            # plane 0 holds the mover's pieces, plane 1 the opponent's
            owner = state.to_move if plane == 0 else 1 - state.to_move
            return PLAYER_COLOURS[owner]
    return BACKGROUND


__all__ = ["planes_for", "rgb_picture"]
