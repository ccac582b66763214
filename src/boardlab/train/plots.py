"""The plots of a training run, as PNG files written atomically.

- :func:`plot_learning_curve`: wins, draws and losses of greedy play against each fixed
  opponent as training goes, and (when the game is small enough to solve) the positions where
  the greedy move gives away game-theoretic value;
- :func:`plot_outcomes`: total wins, draws and losses against each opponent;
- :func:`plot_outcomes_by_starter`: the same split by who moved first;
- :func:`plot_end_turns`: wins and draws by the turn (ply) the game ended.

Figures are drawn on matplotlib's Agg canvas (no pyplot), so plotting works headless.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from boardlab.core.files import atomic_savefig

OUTCOMES = ("wins", "draws", "losses")
COLOURS = {"wins": "#4c9a2a", "draws": "#9e9e9e", "losses": "#c0392b"}


def _figure(width: float, height: float) -> Figure:
    figure = Figure(figsize=(width, height), dpi=110, layout="constrained")
    FigureCanvasAgg(figure)
    return figure


def _save(figure: Figure, path: Path) -> Path:
    return atomic_savefig(figure, path)


def _opponents(records: Sequence[dict[str, Any]]) -> list[str]:
    return list(dict.fromkeys(r["opponent"] for r in records if "wins" in r))


def plot_learning_curve(curve: Sequence[dict[str, Any]], path: Path, title: str) -> Path:
    """Share of wins, draws and losses against each opponent over training episodes (one
    panel each), and a panel counting the greedy moves that give away value."""
    opponents = _opponents(curve)
    judged = sorted((r["episode"], r["mistakes"]) for r in curve if "mistakes" in r)
    panels = len(opponents) + (1 if judged else 0)
    figure = _figure(7.5, 2.4 * max(panels, 1) + 0.6)
    axes = np.atleast_1d(figure.subplots(max(panels, 1), 1, sharex=True))
    for ax, opponent in zip(axes, opponents, strict=False):
        rows = sorted(
            (r for r in curve if r.get("opponent") == opponent and "wins" in r), key=lambda r: r["episode"]
        )
        episodes = [r["episode"] for r in rows]
        for outcome in OUTCOMES:
            share = [r[outcome] / max(r["games"], 1) for r in rows]
            ax.plot(episodes, share, marker="o", markersize=3, color=COLOURS[outcome], label=outcome)
        games = rows[-1]["games"] if rows else 0
        ax.set_ylim(-0.03, 1.03)
        ax.set_ylabel("share of games")
        ax.set_title(f"greedy play against {opponent} ({games} games per point, both colours)", fontsize=10)
        ax.grid(alpha=0.3)
        ax.legend(loc="center right", fontsize=8)
    if judged:
        ax = axes[len(opponents)]
        ax.plot([e for e, _ in judged], [m for _, m in judged], marker="o", markersize=3, color="#6c3483")
        ax.set_ylabel("greedy moves")
        ax.set_yscale("symlog", linthresh=1)
        ax.set_ylim(bottom=0)
        ax.set_title(
            "greedy moves that give away game-theoretic value (exact solver, both colours)", fontsize=10
        )
        ax.grid(alpha=0.3)
    axes[-1].set_xlabel("training episodes")
    figure.suptitle(title)
    return _save(figure, path)


def _counts(results: Sequence[Any], opponent: str, learner: int | None = None) -> list[int]:
    scores = [
        r.score for r in results if r.opponent == opponent and (learner is None or r.learner == learner)
    ]
    return [scores.count(1), scores.count(0), scores.count(-1)]


def _stacked_bars(ax: Any, labels: list[str], rows: list[list[int]]) -> None:
    counts = np.array(rows, dtype=float).reshape(len(rows), 3)
    left = np.zeros(len(labels))
    smallest_label = 0.04 * max(float(counts.sum(axis=1).max()), 1.0)
    for column, outcome in enumerate(OUTCOMES):
        ax.barh(range(len(labels)), counts[:, column], left=left, color=COLOURS[outcome], label=outcome)
        for i, value in enumerate(counts[:, column]):
            if value >= smallest_label:
                ax.text(left[i] + value / 2, i, f"{int(value)}", ha="center", va="center", fontsize=8)
        left += counts[:, column]
    ax.set_yticks(range(len(labels)), labels)
    ax.invert_yaxis()
    ax.set_xlabel("games")
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8)


def plot_outcomes(results: Sequence[Any], path: Path, title: str) -> Path:
    """Total wins, draws and losses of the learner against each opponent."""
    opponents = list(dict.fromkeys(r.opponent for r in results))
    figure = _figure(7.5, 1.4 + 0.5 * len(opponents))
    ax = figure.subplots()
    _stacked_bars(ax, [f"vs {o}" for o in opponents], [_counts(results, o) for o in opponents])
    ax.set_title(title)
    return _save(figure, path)


def plot_outcomes_by_starter(results: Sequence[Any], path: Path, title: str) -> Path:
    """Wins, draws and losses of the learner against each opponent, by who moved first."""
    opponents = list(dict.fromkeys(r.opponent for r in results))
    labels, rows = [], []
    for opponent in opponents:
        labels.append(f"vs {opponent}, learner first")
        rows.append(_counts(results, opponent, 0))
        labels.append(f"vs {opponent}, {opponent} first")
        rows.append(_counts(results, opponent, 1))
    figure = _figure(7.5, 1.4 + 0.45 * len(labels))
    ax = figure.subplots()
    _stacked_bars(ax, labels, rows)
    ax.set_title(title)
    return _save(figure, path)


def plot_end_turns(results: Sequence[Any], path: Path, title: str) -> Path:
    """For each opponent, how many games the learner won and drew, by the ply the game ended."""
    opponents = list(dict.fromkeys(r.opponent for r in results))
    figure = _figure(7.5, 2.4 * max(len(opponents), 1) + 0.6)
    axes = np.atleast_1d(figure.subplots(max(len(opponents), 1), 1))
    longest = max((r.plies for r in results), default=1)
    plies = np.arange(1, longest + 1)
    for ax, opponent in zip(axes, opponents, strict=False):
        games = [r for r in results if r.opponent == opponent]
        wins = np.array([sum(1 for r in games if r.score == 1 and r.plies == p) for p in plies])
        draws = np.array([sum(1 for r in games if r.score == 0 and r.plies == p) for p in plies])
        ax.bar(plies - 0.2, wins, width=0.4, color=COLOURS["wins"], label="wins")
        ax.bar(plies + 0.2, draws, width=0.4, color=COLOURS["draws"], label="draws")
        ax.set_title(f"against {opponent}: games ended at each ply ({len(games)} games)", fontsize=10)
        ax.set_ylabel("games")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.legend(loc="upper left", fontsize=8)
        ax.grid(alpha=0.3, axis="y")
    axes[-1].set_xlabel("ply the game ended (1 = first move)")
    figure.suptitle(title)
    return _save(figure, path)


PLOT_FILES = {
    "curve": "learning_curve.png",
    "outcomes": "outcomes.png",
    "by_starter": "outcomes_by_starter.png",
    "end_turns": "end_turns.png",
}
"""The file names :func:`write_plots` uses in the output folder."""


def write_plots(out: Path, curve: Sequence[dict[str, Any]], results: Sequence[Any], name: str) -> list[Path]:
    """Every plot of a run into ``out`` (``name`` heads the titles, e.g. "Q-learning on tictactoe")."""
    out = Path(out)
    paths = [plot_learning_curve(curve, out / PLOT_FILES["curve"], f"{name}: learning curve")]
    if results:
        games = len(results)
        paths.append(
            plot_outcomes(results, out / PLOT_FILES["outcomes"], f"{name}: outcomes of {games} games")
        )
        paths.append(
            plot_outcomes_by_starter(
                results, out / PLOT_FILES["by_starter"], f"{name}: outcomes by who started"
            )
        )
        paths.append(
            plot_end_turns(results, out / PLOT_FILES["end_turns"], f"{name}: wins and draws by end turn")
        )
    return paths


__all__ = [
    "PLOT_FILES",
    "plot_end_turns",
    "plot_learning_curve",
    "plot_outcomes",
    "plot_outcomes_by_starter",
    "write_plots",
]
