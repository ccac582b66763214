"""PNG plots of a tournament: score matrix, outcomes by starting side, game lengths, ratings;
and of a match's SPRT, its LLR between its bounds.

Figures are drawn on matplotlib's Agg canvas directly (no pyplot, no interactive backend),
so plotting works headless and leaves the caller's matplotlib state alone.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from boardlab.arena.sprt import SprtTally
from boardlab.arena.summary import PLOT_NAMES, Summary
from boardlab.core.console import counted
from boardlab.core.files import agg_figure, atomic_savefig, atomic_write_all, figure_bytes
from boardlab.core.spec import shortened_in_the_middle

OUTCOME_COLOURS = ("#4c9a2a", "#b0b0b0", "#c0392b")  # win, draw, loss
DARK_CELL = 0.3
"""Scores further than this from 50% colour their heatmap cell dark: its text is white."""
LENGTH_BAR_WIDTH = 0.8
"""The share of its length a bar of the game-length plot covers, one bar a length: the rest is
the gap that keeps neighbouring lengths apart."""
LABEL_CHARS = 36
"""Longest line of a player's label: longer specs wrap after their commas and colons, and a
piece longer than this on its own (a course player's path) is shortened in the middle."""


def plot_label(name: str) -> str:
    """A player's label: its spec, wrapped so that every option stays readable."""
    lines = [""]
    for piece in re.split(r"(?<=[,:])", name):
        if lines[-1] and len(lines[-1]) + len(piece) > LABEL_CHARS:
            lines.append("")
        lines[-1] += piece
    return "\n".join(shortened_in_the_middle(line, LABEL_CHARS) for line in lines)


def _label_lines(labels: list[str]) -> int:
    return max((label.count("\n") + 1 for label in labels), default=1)


def _save(figure: Figure, path: Path) -> Path:
    return atomic_savefig(figure, path)


def plot_score_matrix(summary: Summary, path: Path) -> Path:
    """Heatmap of the fraction of points each row player took from each column player."""
    return _save(score_matrix_figure(summary), path)


def score_matrix_figure(summary: Summary) -> Figure:
    """The figure of :func:`plot_score_matrix`: white text on its dark cells, black on light."""
    order = summary.ranking()
    scores = summary.score_matrix()[np.ix_(order, order)]
    names = [plot_label(summary.names[i]) for i in order]
    size = max(4.0, 1.0 + 0.9 * len(names))
    label_room = 0.08 * max(len(line) for name in names for line in name.split("\n"))  # inches
    figure = agg_figure(size + 1.5 + label_room, size + 0.6 * label_room)
    ax = figure.subplots()
    image = ax.imshow(np.ma.masked_invalid(scores), cmap="RdYlGn", vmin=0, vmax=1)
    ax.set_xticks(range(len(names)), names, rotation=35, ha="right")
    ax.set_yticks(range(len(names)), names)
    for row in range(len(names)):
        for col in range(len(names)):
            if not np.isnan(scores[row, col]):
                games = int(summary.games[order[row], order[col]])
                colour = "white" if abs(scores[row, col] - 0.5) > DARK_CELL else "black"
                text = f"{scores[row, col]:.0%}\n({games})"
                ax.text(col, row, text, ha="center", va="center", fontsize=8, color=colour)
    ax.set_title("Score of row player against column player")
    figure.colorbar(image, ax=ax, label="score")
    return figure


def plot_outcomes_by_side(summary: Summary, path: Path) -> Path:
    """Stacked bars of wins, draws and losses for each player moving first and moving second."""
    return _save(outcomes_figure(summary), path)


def outcomes_figure(summary: Summary) -> Figure:
    """The figure of :func:`plot_outcomes_by_side`. Every bar spans the whole width, so the
    legend goes below the axes, where it hides none of them."""
    labels, rows = [], []
    for i in summary.ranking():
        for side, outcomes in (("first", summary.as_first[i]), ("second", summary.as_second[i])):
            labels.append(f"{plot_label(summary.names[i])} ({side}, {_games(outcomes.games)})")
            rows.append((outcomes.wins, outcomes.draws, outcomes.losses))
    first = summary.first_player
    labels.append(f"all games, first player ({_games(first.games)})")
    rows.append((first.wins, first.draws, first.losses))
    counts = np.array(rows, dtype=float)
    fractions = counts / np.maximum(counts.sum(axis=1, keepdims=True), 1)
    figure = agg_figure(8, 1.2 + (0.15 + 0.2 * _label_lines(labels)) * len(labels))
    ax = figure.subplots()
    left = np.zeros(len(labels))
    for column, (name, colour) in enumerate(zip(("win", "draw", "loss"), OUTCOME_COLOURS, strict=True)):
        ax.barh(range(len(labels)), fractions[:, column], left=left, color=colour, label=name)
        left += fractions[:, column]
    ax.set_yticks(range(len(labels)), labels)
    ax.invert_yaxis()
    ax.set_xlim(0, 1)
    ax.set_xlabel("fraction of games")
    ax.set_title("Outcomes by starting side")
    figure.legend(loc="outside lower center", ncols=3, fontsize=8)
    return figure


def _games(count: int) -> str:
    return counted(count, "game")


def plot_game_lengths(summary: Summary, path: Path) -> Path:
    """Histogram of game lengths in plies."""
    return _save(game_lengths_figure(summary), path)


def game_lengths_figure(summary: Summary) -> Figure:
    """The figure of :func:`plot_game_lengths`: a tick on every length when they are few, and
    a bar of its own for each length (a gap between neighbours, so that two lengths with the
    same count never read as one wide block)."""
    plies = np.array(summary.plies, dtype=int)
    figure = agg_figure(7, 4)
    ax = figure.subplots()
    if plies.size:
        each_length = np.ptp(plies) < 60
        bins: list[float] | int = (
            (np.arange(plies.min(), plies.max() + 2) - 0.5).tolist() if each_length else 40
        )
        counts, _, _ = ax.hist(
            plies,
            bins=bins,
            color="#3b6ea5",
            edgecolor="white",
            linewidth=0.8,
            rwidth=LENGTH_BAR_WIDTH if each_length else None,
        )
        ax.set_ylim(0, 1.3 * float(np.max(counts)))  # room above the bars for the legend
        median = float(np.median(plies))
        ax.axvline(median, color="black", linestyle="--", label=f"median {median:g}")
        ax.legend(loc="upper right")
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    if plies.size and np.ptp(plies) < 15:  # too few lengths for the locator's whole numbers
        ax.set_xticks(range(int(plies.min()), int(plies.max()) + 1))
    else:
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("plies")
    ax.set_ylabel("games")
    ax.set_title(f"Game length ({_games(plies.size)})")
    return figure


def plot_ratings(summary: Summary, path: Path) -> Path:
    """Elo ratings with their intervals, best first."""
    return _save(ratings_figure(summary), path)


def ratings_figure(summary: Summary) -> Figure:
    """The figure of :func:`plot_ratings`."""
    labels = [plot_label(name) for name in summary.names]
    figure = agg_figure(7, 1.2 + (0.25 + 0.2 * _label_lines(labels)) * len(labels))
    ax = figure.subplots()
    if summary.elo is not None:
        order = summary.ranking()
        ratings = np.array([summary.elo.ratings[i] for i in order])
        lows, highs = zip(*(summary.elo.interval(i) for i in order), strict=True)
        errors = np.array([ratings - np.array(lows), np.array(highs) - ratings])
        ax.errorbar(ratings, range(len(order)), xerr=errors, fmt="o", capsize=4, color="#3b6ea5")
        ax.set_yticks(range(len(order)), [labels[i] for i in order])
        ax.invert_yaxis()
        ax.axvline(0, color="grey", linewidth=0.8)
    ax.set_xlabel(f"Elo (mean 0, {summary.elo.level:.0%} interval)" if summary.elo else "Elo")
    ax.set_title("Ratings")
    return figure


SPRT_NAME_CHARS = 80
"""Longest name of a player in an SPRT plot's title, a line each: longer ones are shortened in
the middle."""
SPRT_MARGIN = 0.8
"""Room above and below the LLR's extremes and bounds, for the bounds' labels."""


def plot_sprt(test: SprtTally, max_games: int, names: tuple[str, str], path: Path) -> Path:
    """The LLR of an SPRT over the games of its match, between its bounds (the decision is
    where it first leaves them)."""
    return _save(sprt_figure(test, max_games, names), path)


def sprt_figure(test: SprtTally, max_games: int, names: tuple[str, str]) -> Figure:
    """The figure of :func:`plot_sprt`."""
    state = test.state()
    figure = agg_figure(7, 4.4)
    ax = figure.subplots()
    path = test.llr_path()
    games = [0] + [n for n, _ in path]
    ax.plot(games, [0.0] + [llr for _, llr in path], color="#3b6ea5", linewidth=1.5, label="LLR")
    for bound, colour, text in (
        (state.upper, OUTCOME_COLOURS[0], "H1"),
        (state.lower, OUTCOME_COLOURS[2], "H0"),
    ):
        ax.axhline(bound, color=colour, linestyle="--", linewidth=1)
        ax.annotate(
            f"accept {text}",
            (0, bound),
            xytext=(4, 3 if bound > 0 else -12),
            textcoords="offset points",
            color=colour,
            fontsize=9,
        )
    values = [llr for _, llr in path]
    ax.set_ylim(min([state.lower, *values]) - SPRT_MARGIN, max([state.upper, *values]) + SPRT_MARGIN)
    ax.set_xlim(0, max(games[-1], 1))
    ax.set_xlabel(f"{test.sampling} test: games, in schedule order (at most {max_games:,})")
    ax.set_ylabel("log-likelihood ratio of H1 over H0\n(H1: A stronger)", fontsize=9)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    first, second = (shortened_in_the_middle(name, SPRT_NAME_CHARS) for name in names)
    sprt = test.sprt
    test_text = f"H0 Elo ≤ {sprt.elo0:g}, H1 Elo ≥ {sprt.elo1:g}, alpha {sprt.alpha:g}, beta {sprt.beta:g}"
    ax.set_title(f"SPRT: {test.decision(max_games)} ({test_text})\nA = {first}\nB = {second}", fontsize=9)
    return figure


def plot_images(summary: Summary) -> list[tuple[str, bytes]]:
    """Every plot of ``summary`` drawn as PNG in memory, with its file name (those of
    :data:`PLOT_NAMES`, in order): drawing, the slow part, is done before any file is written."""
    figures = (score_matrix_figure, outcomes_figure, game_lengths_figure, ratings_figure)
    return [(name, figure_bytes(draw(summary))) for draw, name in zip(figures, PLOT_NAMES, strict=True)]


def sprt_image(test: SprtTally, max_games: int, names: tuple[str, str]) -> bytes:
    """The plot of :func:`plot_sprt` drawn as PNG in memory."""
    return figure_bytes(sprt_figure(test, max_games, names))


def write_plots(summary: Summary, out_dir: str | Path) -> list[Path]:
    """Write every plot as PNG into ``out_dir`` (the names of :data:`PLOT_NAMES`) and return the
    paths: all drawn first, then written together (:func:`~boardlab.core.files.atomic_write_all`),
    so that an interrupt leaves the folder's plots all old or all new."""
    out = Path(out_dir)
    return atomic_write_all([(out / name, image) for name, image in plot_images(summary)])
