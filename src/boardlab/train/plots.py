"""The plots of every training run, as PNG files written atomically: the shared ones, then each
method's own.

Every method (:func:`write_plots`):

- :func:`plot_learning_curve`: wins, draws and losses of the learner against each fixed
  opponent as training goes (its titles say what played: greedy play, search...), and (when
  the game is small enough to solve) the positions where its move gives away game-theoretic
  value (written only when the curve holds such records);
- :func:`plot_outcomes`: total wins, draws and losses against each opponent;
- :func:`plot_outcomes_by_starter`: the same split by who moved first;
- :func:`plot_end_turns`: wins and draws by the turn (ply) the game ended.

The GA over Nim genomes (:func:`write_ga_plots`), the ES over the rule player's weights
(:func:`write_es_plots`) and NEAT (:func:`write_neat_plots`) add plots of their populations.

Figures are drawn on matplotlib's Agg canvas (no pyplot), so plotting works headless.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from boardlab.agents import rules as rl
from boardlab.core.console import counted
from boardlab.core.files import agg_figure, atomic_savefig, fit_titles
from boardlab.models.nim_genome import gene_names

if TYPE_CHECKING:  # matplotlib loads when a plot is drawn, not when a trainer is imported
    from matplotlib.figure import Figure

OUTCOMES = ("wins", "draws", "losses")
COLOURS = {"wins": "#4c9a2a", "draws": "#9e9e9e", "losses": "#c0392b"}


def _integer_ticks(axis: Any) -> None:
    """Ticks at whole numbers only on ``axis`` (epochs, plies, generations)."""
    from matplotlib.ticker import MaxNLocator

    axis.set_major_locator(MaxNLocator(integer=True))


def _save(figure: Figure, path: Path) -> Path:
    """Write ``figure`` to ``path``, its titles wrapped to fit (:func:`fit_titles`)."""
    return atomic_savefig(fit_titles(figure), path)


def _played(record: Mapping[str, Any]) -> bool:
    """Whether a curve record counts games actually played: a record of no games (older NEAT
    checkpoints hold one per opponent for generation 0, before any champion) is no point."""
    return "wins" in record and record.get("games", 0) > 0


def _opponents(records: Sequence[dict[str, Any]]) -> list[str]:
    return list(dict.fromkeys(r["opponent"] for r in records if _played(r)))


def has_learning_curve(curve: Sequence[dict[str, Any]]) -> bool:
    """Whether ``curve`` holds something :func:`plot_learning_curve` draws: games against an
    opponent, or counts of the moves giving away value (evalnet's curve holds losses only)."""
    return any(_played(r) or "mistakes" in r for r in curve)


def plot_learning_curve(
    curve: Sequence[dict[str, Any]],
    path: Path,
    title: str,
    unit: str = "training episodes",
    player: str = "greedy play",
    played_on: str = "",
) -> Path:
    """Share of wins, draws and losses against each opponent over training (``unit`` counts the
    curve's ``episode`` field; one panel each), and a panel counting the learner's moves that
    give away value; ``player`` says what played (the run's ``curve_player``), ``played_on``
    on which game, for a run of several games (the run's ``played_on``)."""
    return _save(learning_curve_figure(curve, title, unit, player, played_on), path)


def learning_curve_figure(
    curve: Sequence[dict[str, Any]],
    title: str,
    unit: str = "training episodes",
    player: str = "greedy play",
    played_on: str = "",
) -> Figure:
    """The figure of :func:`plot_learning_curve`: the legends stand beside the panels, where
    they hide no point of the curves."""
    opponents = _opponents(curve)
    judged = sorted((r["episode"], r["mistakes"]) for r in curve if "mistakes" in r)
    panels = len(opponents) + (1 if judged else 0)
    figure = agg_figure(7.5, 2.4 * max(panels, 1) + 0.6)
    axes = np.atleast_1d(figure.subplots(max(panels, 1), 1, sharex=True))
    for ax, opponent in zip(axes, opponents, strict=False):
        rows = sorted(
            (r for r in curve if r.get("opponent") == opponent and _played(r)), key=lambda r: r["episode"]
        )
        episodes = [r["episode"] for r in rows]
        for outcome in OUTCOMES:
            share = [r[outcome] / max(r["games"], 1) for r in rows]
            ax.plot(episodes, share, marker="o", markersize=3, color=COLOURS[outcome], label=outcome)
        games = rows[-1]["games"] if rows else 0
        ax.set_ylim(-0.03, 1.03)
        ax.set_ylabel("share of games")
        ax.set_title(
            f"{player} against {opponent}{_on(played_on)} ({counted(games, 'game')} per point, both colours)",
            fontsize=10,
        )
        ax.grid(alpha=0.3)
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8)
    if judged:
        ax = axes[len(opponents)]
        ax.plot([e for e, _ in judged], [m for _, m in judged], marker="o", markersize=3, color="#6c3483")
        ax.set_ylabel("moves")
        ax.set_yscale("symlog", linthresh=1)
        ax.set_ylim(0, 2.0 * max(max(m for _, m in judged), 1))  # room above the highest point
        ax.set_title(
            f"{player}: moves that give away game-theoretic value (exact solver, both colours"
            f"{', every training game' if played_on else ''})",
            fontsize=10,
        )
        ax.grid(alpha=0.3)
    axes[-1].set_xlabel(unit)
    _integer_ticks(axes[-1].xaxis)
    figure.suptitle(title)
    return figure


def _on(game: str) -> str:
    """`` on GAME`` for a run's games played on one of its several games, else nothing."""
    return f" on {game}" if game else ""


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
    _integer_ticks(ax.xaxis)
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8)


def plot_outcomes(results: Sequence[Any], path: Path, title: str) -> Path:
    """Total wins, draws and losses of the learner against each opponent."""
    opponents = list(dict.fromkeys(r.opponent for r in results))
    figure = agg_figure(7.5, 1.4 + 0.5 * len(opponents))
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
    figure = agg_figure(7.5, 1.4 + 0.45 * len(labels))
    ax = figure.subplots()
    _stacked_bars(ax, labels, rows)
    ax.set_title(title)
    return _save(figure, path)


def plot_end_turns(results: Sequence[Any], path: Path, title: str) -> Path:
    """For each opponent, how many games the learner won and drew, by the ply the game ended."""
    opponents = list(dict.fromkeys(r.opponent for r in results))
    figure = agg_figure(7.5, 2.4 * max(len(opponents), 1) + 0.6)
    axes = np.atleast_1d(figure.subplots(max(len(opponents), 1), 1))
    longest = max((r.plies for r in results), default=1)
    plies = np.arange(1, longest + 1)
    for ax, opponent in zip(axes, opponents, strict=False):
        games = [r for r in results if r.opponent == opponent]
        wins = np.array([sum(1 for r in games if r.score == 1 and r.plies == p) for p in plies])
        draws = np.array([sum(1 for r in games if r.score == 0 and r.plies == p) for p in plies])
        ax.bar(plies - 0.2, wins, width=0.4, color=COLOURS["wins"], label="wins")
        ax.bar(plies + 0.2, draws, width=0.4, color=COLOURS["draws"], label="draws")
        ax.set_title(
            f"against {opponent}: games ended at each ply ({counted(len(games), 'game')})", fontsize=10
        )
        ax.set_ylabel("games")
        ax.set_ylim(0, max(1.0, ax.get_ylim()[1]))  # no negative games when none was won or drawn
        _integer_ticks(ax.xaxis)
        _integer_ticks(ax.yaxis)
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


def write_plots(
    out: Path,
    curve: Sequence[dict[str, Any]],
    results: Sequence[Any],
    name: str,
    unit: str = "training episodes",
    player: str = "greedy play",
    played_on: str = "",
) -> list[Path]:
    """The shared plots of a run into ``out`` (``name`` heads the titles, e.g. "Q-learning on
    tictactoe"; ``unit`` is what the curve's ``episode`` field counts, ``player`` what played its
    games, ``played_on`` the game they were played on for a run of several games): each only
    when it has something to draw (the learning curve: :func:`has_learning_curve`; the others:
    final games)."""
    out = Path(out)
    paths = []
    if has_learning_curve(curve):
        title = f"{name}: learning curve"
        paths.append(plot_learning_curve(curve, out / PLOT_FILES["curve"], title, unit, player, played_on))
    if results:
        on = _on(played_on)
        games = f"{counted(len(results), 'game')}{on}"
        paths.append(plot_outcomes(results, out / PLOT_FILES["outcomes"], f"{name}: outcomes of {games}"))
        paths.append(
            plot_outcomes_by_starter(
                results, out / PLOT_FILES["by_starter"], f"{name}: outcomes{on} by who started"
            )
        )
        paths.append(
            plot_end_turns(results, out / PLOT_FILES["end_turns"], f"{name}: wins and draws{on} by end turn")
        )
    return paths


# --- the GA over Nim genomes --------------------------------------------------------------------

GA_PLOT_FILES = {
    "wins": "ga_wins.png",
    "genomes": "ga_genomes.png",
    "wins_vs_diversity": "ga_wins_vs_diversity.png",
}
"""The GA's own plots."""

RUN_COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b")


def wins_share(record: Mapping[str, Any]) -> float:
    """The whole population's wins in an epoch, as a share of the games it played."""
    return sum(record["fitness"]) / max(1, len(record["fitness"]) * record["games"])


def plot_wins(runs: Mapping[str, Sequence[Mapping[str, Any]]], path: Path, title: str) -> Path:
    """Total wins of the population over epochs (and the best genome's), one line per run;
    a second panel with the best genome's optimal-move share when the runs were judged."""
    return _save(wins_figure(runs, title), path)


def wins_figure(runs: Mapping[str, Sequence[Mapping[str, Any]]], title: str) -> Figure:
    """The figure of :func:`plot_wins`: epochs are whole numbers on its axis."""
    judged = any("accuracy" in r for history in runs.values() for r in history)
    figure = agg_figure(10.5, 6.0 if judged else 3.6)
    axes = figure.subplots(2 if judged else 1, 1, sharex=True, squeeze=False)[:, 0]
    for colour, (label, history) in zip(itertools.cycle(RUN_COLOURS), runs.items()):
        epochs = [r["epoch"] for r in history]
        axes[0].plot(epochs, [wins_share(r) for r in history], color=colour, label=f"{label}: population")
        axes[0].plot(
            epochs,
            [max(r["fitness"]) / max(1, r["games"]) for r in history],
            color=colour,
            linestyle="--",
            label=f"{label}: best genome",
        )
        if all("reference" in r for r in history):
            axes[0].plot(
                epochs,
                [r["reference"] / max(1, r["games"]) for r in history],
                color=colour,
                linestyle=":",
                label=f"{label}: optimal player on the same games",
            )
        if judged:
            shares = [100 * float(np.mean(list(r["accuracy"].values()))) for r in history if "accuracy" in r]
            axes[1].plot([r["epoch"] for r in history if "accuracy" in r], shares, color=colour, label=label)
    games = next(iter(runs.values()))[-1]["games"] if runs else 0
    axes[0].set_ylabel("share of fitness games won")
    axes[0].set_ylim(-0.02, 1.02)
    axes[0].set_title(f"total wins over epochs ({games} fitness games per genome per epoch)", fontsize=10)
    axes[0].legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    axes[0].grid(alpha=0.3)
    if judged:
        axes[1].set_ylabel("optimal moves (%)")
        axes[1].set_title("best genome: won positions where every best move wins (exhaustive)", fontsize=10)
        axes[1].legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
        axes[1].grid(alpha=0.3)
    axes[-1].set_xlabel("epoch")
    _integer_ticks(axes[-1].xaxis)
    figure.suptitle(title)
    return figure


def plot_genomes(runs: Mapping[str, Sequence[Mapping[str, Any]]], kind: str, path: Path, title: str) -> Path:
    """The population's genomes over epochs, one column per run: every genome's genes (``target``)
    or a heat map of the population's mean weight of each gene (``rules``); and its diversity."""
    names = gene_names(kind)
    columns = max(1, len(runs))
    if kind == "target":
        figure = agg_figure(max(6.8, 4.2 * columns + 0.8), 7.2)
        axes = figure.subplots(3, columns, sharex=True, squeeze=False)
    else:
        figure = agg_figure(5.2 * columns + 1.6, 9.0)
        axes = figure.subplots(2, columns, sharex="col", squeeze=False, gridspec_kw={"height_ratios": [4, 1]})
    for column, (colour, (label, history)) in enumerate(zip(itertools.cycle(RUN_COLOURS), runs.items())):
        epochs = np.array([r["epoch"] for r in history])
        if kind == "target":
            for row, name in enumerate(names):
                ax = axes[row, column]
                for record in history:
                    values = [g[row] for g in record.get("population", [])]
                    ax.scatter([record["epoch"]] * len(values), values, s=6, alpha=0.25, color=colour, lw=0)
                ax.plot(epochs, [r["genes"]["mean"][row] for r in history], color="black", lw=1, label="mean")
                ax.set_ylim(-0.03, 1.03)
                ax.set_ylabel(name)
                ax.grid(alpha=0.3)
                if row == 0:
                    ax.set_title(f"{label}: every genome, every epoch", fontsize=10)
                    ax.legend(fontsize=8, loc="upper right")
        else:
            ax = axes[0, column]
            means = np.array([r["genes"]["mean"] for r in history]).T
            image = ax.imshow(
                means,
                aspect="auto",
                cmap="coolwarm",
                vmin=-1,
                vmax=1,
                interpolation="nearest",
                extent=(epochs[0] - 0.5, epochs[-1] + 0.5, len(names) - 0.5, -0.5),
            )
            ax.set_yticks(range(len(names)), names if column == 0 else [""] * len(names), fontsize=7)
            ax.set_title(f"{label}: population mean of each weight", fontsize=10)
            if column == columns - 1:
                figure.colorbar(image, ax=ax, fraction=0.04, label="weight")
        ax = axes[-1, column]
        ax.plot(epochs, [r["diversity"] for r in history], color=colour)
        ax.set_ylabel("diversity")
        ax.set_xlabel("epoch")
        _integer_ticks(ax.xaxis)
        ax.set_ylim(bottom=0)
        ax.grid(alpha=0.3)
    figure.suptitle(f"{title}\n(diversity: mean distance between genomes / the largest possible)")
    return _save(figure, path)


def plot_wins_vs_diversity(runs: Mapping[str, Sequence[Mapping[str, Any]]], path: Path, title: str) -> Path:
    """Total wins of the population against its diversity, one point per epoch (lighter early,
    darker late), one marker per run."""
    figure = agg_figure(7.0, 4.6)
    ax = figure.subplots()
    markers = itertools.cycle("os^Dv")
    for colour, marker, (label, history) in zip(itertools.cycle(RUN_COLOURS), markers, runs.items()):
        x = [r["diversity"] for r in history]
        y = [wins_share(r) for r in history]
        ax.plot(x, y, color=colour, alpha=0.3, lw=0.8)
        shade = np.linspace(0.25, 1.0, len(history))
        ax.scatter(x, y, c=[(*_rgb(colour), s) for s in shade], marker=marker, s=22, label=label, lw=0)
    ax.set_xlabel("diversity (mean distance between genomes over the largest possible)")
    ax.set_ylabel("share of fitness games won (population)")
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlim(left=0)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, title="one point per epoch, darker = later", title_fontsize=8)
    ax.set_title(title)
    return _save(figure, path)


def _rgb(colour: str) -> tuple[float, float, float]:
    return tuple(int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5))  # type: ignore[return-value]


def write_ga_plots(
    out: Path, runs: Mapping[str, Sequence[Mapping[str, Any]]], kind: str, title: str
) -> list[Path]:
    """The three GA plots of ``runs`` (label -> history) into ``out``."""
    out = Path(out)
    return [
        plot_wins(runs, out / GA_PLOT_FILES["wins"], f"{title}: wins"),
        plot_genomes(runs, kind, out / GA_PLOT_FILES["genomes"], f"{title}: genomes"),
        plot_wins_vs_diversity(
            runs, out / GA_PLOT_FILES["wins_vs_diversity"], f"{title}: wins against diversity"
        ),
    ]


# --- the ES over the rule player's weights ------------------------------------------------------


ES_PARENT = "parent (scored again on each epoch's fresh games)"
ES_REPLACED = "child replaces the parent (the best of λ; often lower on fresh games)"


def plot_es_fitness(history: Sequence[Mapping[str, Any]], path: Path, title: str) -> Path:
    """The parent's fitness (re-measured each epoch), the best and mean child's, and σ."""
    return _save(es_fitness_figure(history, title), path)


def es_fitness_figure(history: Sequence[Mapping[str, Any]], title: str) -> Figure:
    """The figure of :func:`plot_es_fitness`: its legend stands below the axes, where it hides
    no line. Each epoch scores the parent again on that epoch's fresh games, so right after a
    replacement the parent's point often lies below the child's point that replaced it (the
    best of λ scores is lucky, a second measurement is not): the legend says so."""
    figure = agg_figure(8.5, 4.6)
    ax = figure.subplots()
    epochs = [r["epoch"] for r in history]
    ax.plot(
        epochs, [r["parent_fitness"] for r in history], color="#1f77b4", marker="o", ms=3, label=ES_PARENT
    )
    later = [r for r in history if r["best_child"] is not None]
    ax.plot(
        [r["epoch"] for r in later],
        [r["best_child"] for r in later],
        color="#2ca02c",
        lw=1,
        label="best child",
    )
    ax.plot(
        [r["epoch"] for r in later],
        [r["mean_child"] for r in later],
        color="#9e9e9e",
        lw=1,
        ls="--",
        label="mean child",
    )
    accepted = [r for r in later if r["accepted"]]
    ax.scatter(
        [r["epoch"] for r in accepted], [r["best_child"] for r in accepted], color="#d62728", s=18, zorder=3,
        label=ES_REPLACED,
    )  # fmt: skip
    ax.set_xlabel("epoch")
    ax.set_ylabel(f"share of {history[-1]['games']} fitness games won")
    ax.grid(alpha=0.3)
    sigma_ax = ax.twinx()
    sigma_ax.plot([r["epoch"] for r in later], [r["sigma"] for r in later], color="#ff7f0e", lw=1, alpha=0.7)
    sigma_ax.set_ylabel("σ (mutation step)", color="#ff7f0e")
    sigma_ax.set_ylim(bottom=0)
    _integer_ticks(ax.xaxis)
    figure.legend(*ax.get_legend_handles_labels(), loc="outside lower center", ncols=2, fontsize=8)
    ax.set_title(title)
    return figure


def plot_weights(history: Sequence[Mapping[str, Any]], path: Path, title: str, log_floor: float) -> Path:
    """The parent's weight of every rule over the epochs, on a linear and a log scale down to
    ``10**log_floor`` (the bad rule drawn thick and red)."""
    figure = agg_figure(9.5, 7.4)
    axes = figure.subplots(2, 1, sharex=True)
    epochs = [r["epoch"] for r in history]
    weights = np.array([r["weights"] for r in history])
    colours = [c for c in _palette() if c != "#d62728"]
    for ax in axes:
        for index, name in enumerate(rl.RULES):
            if name == rl.BAD_RULE:
                ax.plot(epochs, weights[:, index], color="#d62728", lw=2.5, label=f"{name} (the bad rule)")
            else:
                style = "-" if index < 5 else "--"
                colour = colours[index % len(colours)]
                ax.plot(epochs, weights[:, index], color=colour, lw=1.3, ls=style, label=name)
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("weight in the roulette")
    axes[0].set_ylim(-0.03, 1.03)
    axes[0].legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    axes[0].set_title(title)
    axes[1].set_yscale("log")
    axes[1].set_ylim(10.0**log_floor / 2, 1.5)
    axes[1].set_ylabel("weight (log scale)")
    axes[1].set_xlabel("epoch")
    _integer_ticks(axes[1].xaxis)
    return _save(figure, path)


def _palette() -> list[str]:
    return [
        "#1f77b4",
        "#ff7f0e",
        "#2ca02c",
        "#9467bd",
        "#8c564b",
        "#e377c2",
        "#17becf",
        "#bcbd22",
        "#7f7f7f",
        "#000000",
    ]


ES_PLOT_FILES = {"fitness": "es_fitness.png", "weights": "es_weights.png"}
"""The ES's own plots."""


def write_es_plots(
    out: Path, history: Sequence[Mapping[str, Any]], title: str, log_floor: float
) -> list[Path]:
    """The fitness and weight plots of a run into ``out``."""
    out = Path(out)
    return [
        plot_es_fitness(history, out / ES_PLOT_FILES["fitness"], f"{title}: fitness"),
        plot_weights(history, out / ES_PLOT_FILES["weights"], f"{title}: weights", log_floor),
    ]


# --- NEAT ---------------------------------------------------------------------------------------


NEAT_PLOT_FILES = {"fitness": "fitness.png", "species": "species.png"}
"""The NEAT plots."""


def plot_neat_fitness(history: Sequence[Mapping[str, Any]], path: Path, title: str) -> Path:
    """Best and mean fitness over generations, with the champion's size."""
    return _save(neat_fitness_figure(history, title), path)


def neat_fitness_figure(history: Sequence[Mapping[str, Any]], title: str) -> Figure:
    """The figure of :func:`plot_neat_fitness`: its legend stands below the axes, where it
    hides no line, and generations and connections are whole numbers on the axes."""
    figure = agg_figure(7.5, 4.6)
    ax = figure.subplots()
    generations = [h["generation"] + 1 for h in history]
    ax.plot(generations, [h["best"] for h in history], color="#1f77b4", label="best")
    ax.plot(generations, [h["mean"] for h in history], color="#ff7f0e", label="mean")
    ax.set_xlabel("generation")
    ax.set_ylabel("fitness (mean game score: win ≈ 1, draw ½, loss ≈ 0)")
    ax.set_ylim(0, 1.02)
    ax.grid(alpha=0.3)
    size = ax.twinx()
    connections = [h["connections"] for h in history]
    size.plot(generations, connections, color="#7f7f7f", lw=0.8, ls=":", label="champion's connections")
    size.set_ylabel("champion's enabled connections (dotted)")
    for axis in (ax.xaxis, size.yaxis):
        _integer_ticks(axis)
    handles, labels = ax.get_legend_handles_labels()
    more_handles, more_labels = size.get_legend_handles_labels()
    figure.legend(
        handles + more_handles, labels + more_labels, loc="outside lower center", ncols=3, fontsize=8
    )
    ax.set_title(title)
    return figure


def plot_species(history: Sequence[Mapping[str, Any]], path: Path, title: str) -> Path:
    """Members of each species over generations (stacked)."""
    return _save(species_figure(history, title), path)


def species_figure(history: Sequence[Mapping[str, Any]], title: str) -> Figure:
    """The figure of :func:`plot_species`: the stack fills the axes, so its legend stands
    beside them."""
    figure = agg_figure(7.5, 4.2)
    ax = figure.subplots()
    generations = [h["generation"] + 1 for h in history]
    keys = sorted({k for h in history for k in h["species"]}, key=int)
    sizes = np.array([[h["species"].get(k, 0) for h in history] for k in keys]) if keys else np.zeros((0, 0))
    if len(keys):
        from matplotlib import color_sequences

        palette = color_sequences["tab20"]
        colours = [palette[i % len(palette)] for i in range(len(keys))]
        ax.stackplot(generations, sizes, labels=[f"species {k}" for k in keys], colors=colours)
    ax.set_xlabel("generation")
    ax.set_ylabel("genomes")
    ax.set_title(f"{title} ({len(keys)} species in all)")
    if len(keys) <= 12:
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=7)
    for axis in (ax.xaxis, ax.yaxis):
        _integer_ticks(axis)
    ax.margins(x=0)
    return figure


def write_neat_plots(out: Path, history: Sequence[Mapping[str, Any]], name: str) -> list[Path]:
    """Fitness and species over the generations of a NEAT run."""
    out = Path(out)
    return [
        plot_neat_fitness(history, out / NEAT_PLOT_FILES["fitness"], f"{name}: fitness over generations"),
        plot_species(history, out / NEAT_PLOT_FILES["species"], f"{name}: species sizes"),
    ]


__all__ = [
    "ES_PLOT_FILES",
    "GA_PLOT_FILES",
    "NEAT_PLOT_FILES",
    "PLOT_FILES",
    "es_fitness_figure",
    "has_learning_curve",
    "learning_curve_figure",
    "neat_fitness_figure",
    "plot_end_turns",
    "plot_learning_curve",
    "plot_outcomes",
    "plot_outcomes_by_starter",
    "species_figure",
    "wins_figure",
    "wins_share",
    "write_es_plots",
    "write_ga_plots",
    "write_neat_plots",
    "write_plots",
]
