"""AlphaZero's evaluation games in the run's arena store and its Elo curve: the store holds
exactly the evaluation games (replayable, counted as in the curve), the Elo is the fit of the
stored games, resume stores nothing twice, and the arena's readers open the store."""

from __future__ import annotations

import dataclasses
import json
import shutil
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_alphazero import TTT, tiny_params

from boardlab.arena.play import GameRecord, make_record
from boardlab.arena.ratings import pair_elo
from boardlab.arena.runner import run_tournament
from boardlab.arena.schedule import GAUNTLET, TournamentConfig, build_schedule
from boardlab.arena.store import Store
from boardlab.games import Outcome, Reason, parse_game
from boardlab.play.pool import timestamp
from boardlab.train.arena_games import (
    ARENA_FILE,
    elo_ratings,
    evaluation_config,
)

REPO = Path(__file__).resolve().parents[1]
VERSUS = 4


def eval_params(**overrides: object) -> Any:
    values: dict[str, object] = dict(games=12, eval_positions=20, versus_games=VERSUS, elo_every=2)
    values.update(overrides)
    return tiny_params(**values)


def train_run(folder: Path, steps: int, resume_after: int | None = None) -> Any:
    """A Tic-Tac-Toe run of ``steps`` iterations in ``folder`` (evaluation games at 0, 2, ...),
    saved and resumed from its checkpoint after ``resume_after`` iterations if given."""
    from boardlab.train.alphazero import AlphaZeroRun

    run = AlphaZeroRun.start(TTT, eval_params(), seed=11)
    run.save(folder / "checkpoint.safetensors")
    run.curve.extend(run.evaluate([], 0))
    for done in range(steps):
        if done == resume_after:
            run.save(folder / "checkpoint.safetensors")
            run.close()
            run = AlphaZeroRun.resume(folder / "checkpoint.safetensors", TTT)
        run.step(1)
    run.close()
    return run


@cache
def straight_run(folder: str) -> Any:
    return train_run(Path(folder), 3)


@pytest.fixture(scope="module")
def straight(tmp_path_factory: pytest.TempPathFactory) -> Any:
    return straight_run(str(tmp_path_factory.mktemp("az-arena") / "run"))


def stored(folder: Path) -> list[tuple[dict[str, Any], list[GameRecord]]]:
    with Store(folder / ARENA_FILE) as store:
        return [(t, store.games(t["id"])) for t in store.tournaments()]


def untimed(curve: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in r.items() if k != "hours"} for r in curve]


def test_the_store_holds_exactly_the_evaluation_games_as_counted_in_the_curve(straight: Any) -> None:
    folder = straight.folder
    opponents = straight.opponents
    assert opponents == ["random", "perfect"]
    tournaments = stored(folder)
    # evaluations every 2 iterations: 0 and 2 (iterations 1 and 3 play no games, keep no snapshot)
    assert [t["name"] for t, _ in tournaments] == ["alphazero iteration 0", "alphazero iteration 2"]
    assert sorted(p.name for p in (folder / "snapshots").iterdir()) == [
        "it000000.safetensors",
        "it000002.safetensors",
    ]
    for (tournament, records), at in zip(tournaments, (0, 2), strict=True):
        learner = f"alphazero:model=snapshots/it{at:06d}.safetensors,sims=8,proof=0"
        assert tournament["specs"] == [learner, *opponents]
        assert tournament["game"] == "tictactoe" and tournament["opening_plies"] == 0
        assert len(records) == tournament["games"] == VERSUS * len(opponents)
        assert tournament["pairing"] == GAUNTLET
        specs = tuple(tournament["specs"])
        config = TournamentConfig(specs, VERSUS, "tictactoe", tournament["seed"], 0, pairing=GAUNTLET)
        assert config.tournament_id == tournament["id"]
        # the learner against each opponent, colours alternating
        assert [r.index for r in records] == list(range(config.total_games))
        for opponent in opponents:
            mine = [r for r in records if opponent in (r.first_spec, r.second_spec)]
            assert all(learner in (r.first_spec, r.second_spec) for r in mine)
            assert sorted(r.first_spec == learner for r in mine) == [False] * 2 + [True] * 2
            curve = next(r for r in straight.curve if r["epoch"] == at and r["opponent"] == opponent)
            scores = [r.score_of(0) for r in mine]
            counts = {"wins": scores.count(1), "draws": scores.count(0.5), "losses": scores.count(0)}
            assert {k: curve[k] for k in counts} == counts and curve["games"] == VERSUS
    assert {r["epoch"] for r in straight.curve if r["opponent"] == "elo"} == {0, 2}
    assert {r["epoch"] for r in straight.curve if r["opponent"] == "solver"} == {0, 1, 2, 3}


def test_stored_games_replay_to_their_recorded_outcome(straight: Any) -> None:
    for _, records in stored(straight.folder):
        for record in records:
            state = parse_game(record.game).initial()
            for move in record.moves:
                assert not state.is_over
                state = state.play(state.parse_move(move))
            assert state.outcome == record.outcome
            assert record.plies == len(record.moves) == len(record.move_times)
            assert record.opening == () and all(t >= 0 for t in record.move_times)


def test_each_elo_point_is_the_fit_of_the_games_stored_by_then(straight: Any) -> None:
    last = [r for r in straight.curve if r["opponent"] == "elo"][-1]
    with Store(straight.folder / ARENA_FILE) as store:
        ratings = elo_ratings(store, "tictactoe", "random", [last["learner"], "random", "perfect"])
    assert ratings[last["learner"]].to_json() == pytest.approx(
        [last["elo"], last["elo_low"], last["elo_high"]]
    )
    assert last["anchor"] == "random" and last["opponents_elo"]["random"] == [0.0, 0.0, 0.0]
    assert last["elo_low"] < last["elo"] < last["elo_high"]
    assert last["opponents_elo"]["perfect"] == pytest.approx(ratings["perfect"].to_json())


def fake_games(store: Store, config: TournamentConfig, scores: list[float]) -> None:
    """Store the learner's games of ``config`` with the learner's ``scores`` (1, 0.5, 0)."""
    store.register_tournament(config)
    for task, score in zip(build_schedule(config), scores, strict=False):
        learner_colour = 0 if task.first_player == 0 else 1
        winner = None if score == 0.5 else (learner_colour if score == 1 else 1 - learner_colour)
        outcome = Outcome(winner, Reason.DRAW if winner is None else Reason.RULE, "")
        store.add_game(make_record(task, [], [], outcome, timestamp()))


def test_a_learner_that_beats_random_every_game_rates_above_it() -> None:
    with Store() as store:
        config = evaluation_config("tictactoe", "learner", ["random"], 10, 1, "sweep")
        fake_games(store, config, [1.0] * 10)
        ratings = elo_ratings(store, "tictactoe", "random", ["learner", "random"])
    assert ratings["random"].elo == 0
    assert ratings["learner"].elo > 0 and ratings["learner"].low > 0  # the prior keeps it finite


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 8), st.integers(0, 8), st.integers(0, 8))
def test_two_player_elo_is_the_pairwise_fit(wins: int, draws: int, losses: int) -> None:
    if wins + draws + losses == 0:
        return
    with Store() as store:
        scores = [1.0] * wins + [0.5] * draws + [0.0] * losses
        config = evaluation_config("tictactoe", "learner", ["random"], len(scores), 2, "pair")
        fake_games(store, config, scores)
        rating = elo_ratings(store, "tictactoe", "random", ["learner"])["learner"]
    assert rating.to_json() == pytest.approx(list(pair_elo(wins, draws, losses)), abs=1e-6)
    assert np.sign(rating.elo) == np.sign(wins - losses)


def test_resume_continues_exactly_and_stores_no_game_twice(tmp_path: Path, straight: Any) -> None:
    from boardlab.train.alphazero import AlphaZeroRun

    resumed = train_run(tmp_path / "b", 3, resume_after=1)
    resumed.save(resumed.folder / "checkpoint.safetensors")
    assert untimed(resumed.curve) == untimed(straight.curve)
    contents = [
        [[g.game_content() for g in games] for _, games in stored(f)]
        for f in (straight.folder, resumed.folder)
    ]
    assert contents[0] == contents[1]
    # a run killed after storing iteration 4's games but before its checkpoint redoes iteration 4:
    # the store keeps each game once, and the curve is what it would have been
    again = AlphaZeroRun.resume(resumed.folder / "checkpoint.safetensors", TTT)
    again.step(1)
    again.close()
    once = stored(resumed.folder)
    redo = AlphaZeroRun.resume(resumed.folder / "checkpoint.safetensors", TTT)
    redo.step(1)
    redo.close()
    twice = stored(resumed.folder)
    assert [len(g) for _, g in twice] == [len(g) for _, g in once] == [VERSUS * 2] * 3
    assert untimed(redo.curve) == untimed(again.curve)


def test_the_arena_readers_open_the_runs_store(
    straight: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from boardlab.arena.report import print_report
    from boardlab.arena.summary import summarize
    from boardlab.core.console import make_console
    from boardlab.ui.web.replay import Replays

    folder = tmp_path / "copy"
    shutil.copytree(straight.folder, folder)  # the store travels with its folder
    replays = Replays(folder / ARENA_FILE)
    tournament = replays.tournaments()[-1]
    games = replays.games(tournament["id"])
    assert len(games) == VERSUS * 2
    shown = replays.game(tournament["id"], games[-1]["index"])
    assert len(shown["positions"]) == len(shown["moves"]) + 1
    # the tables of a gauntlet: the opponents never met
    with Store(folder / ARENA_FILE) as store:
        records = store.games(tournament["id"])
    summary = summarize(tournament["specs"], records)
    assert summary.games[1, 2] == 0 and np.isnan(summary.score_matrix()[1, 2])
    console = make_console(width=200, record=True)
    print_report(summary, console, tournament["name"], records)
    assert "snapshots/it000002.safetensors" in console.export_text()
    # from the run's folder the learner's spec plays: the same tournament run again is complete,
    # and one more game a pair plays only those
    monkeypatch.chdir(folder)
    specs, seed = tuple(tournament["specs"]), tournament["seed"]
    config = TournamentConfig(specs, VERSUS, "tictactoe", seed, 0, pairing=GAUNTLET)
    with Store(ARENA_FILE) as store:
        done = run_tournament(config, store, workers=0)
        assert done.already_stored == VERSUS * 2 and done.played == 0 and done.complete
        more = run_tournament(dataclasses.replace(config, games_per_pair=VERSUS + 1), store, workers=0)
    assert more.already_stored == VERSUS * 2 and more.played == 2 and more.complete


def test_the_elo_plot_is_drawn(straight: Any, tmp_path: Path) -> None:
    from boardlab.train.alphazero import plot_training

    paths = plot_training(straight.state, tmp_path, straight.title)
    assert tmp_path / "alphazero_elo.png" in paths and (tmp_path / "alphazero_elo.png").stat().st_size > 0


def checkpoint_from_before_the_arena_store(folder: Path) -> tuple[Path, int]:
    """The committed Connect Four checkpoint written as a run from before the arena store wrote
    it (no ``elo_every`` or ``also`` setting, no Elo records), and its iteration."""
    from boardlab.models.network import save_network
    from boardlab.train.alphazero import AlphaZeroRun, optimizer_tensors

    source = REPO / "checkpoints" / "alphazero-connect4" / "checkpoint.safetensors"
    run = AlphaZeroRun.resume(source, parse_game("connect4"))
    state = json.loads(json.dumps(run.state))
    for added in ("elo_every", "also"):
        del state["hyper"][added]
    state["curve"] = [r for r in state["curve"] if r["opponent"] != "elo"]
    path = folder / "checkpoint.safetensors"
    return save_network(path, run.network, optimizer_tensors(run.optimizer), state), run.progress


def test_a_checkpoint_of_before_the_arena_store_resumes(tmp_path: Path) -> None:
    from boardlab.train.alphazero import AlphaZeroParams, AlphaZeroRun

    path, at = checkpoint_from_before_the_arena_store(tmp_path)
    run = AlphaZeroRun.resume(path, parse_game("connect4"))
    assert run.progress == at and run.params.elo_every == AlphaZeroParams().elo_every
    assert run.state["hyper"]["elo_every"] == run.params.elo_every
    assert run.opponents == ["random", "mcts:iters=400"]
    assert not any(r["opponent"] == "elo" for r in run.curve)
    later = range(at + 1, at + 11)
    assert [a for a in later if run.games_due(a)] == [a for a in later if a % run.params.elo_every == 0]
    run.state["train_seconds"] = run.params.hours * 3600  # the hours spent: the last iteration plays
    assert run.finished and all(run.games_due(a) for a in later)
    # the command resumes it, and may set how often it plays evaluation games
    from boardlab.ui.train import plan_command

    options = dict(out=tmp_path, game="connect4", episodes=None, epochs=None, resume=True, force=False)
    options |= dict(seed=None, eval_every=None, eval_games=None, final_games="0", against="", hyper=None)
    for flags, every in (([], 5), (["--elo-every", "10"], 10)):
        plan = plan_command("alphazero", options, flags)
        assert plan.run.progress == at and plan.run.params.elo_every == every


def test_final_games_are_played_by_the_agent_on_the_saved_model(straight: Any) -> None:
    results = straight.final_games(["random"], 2)
    assert [(r.opponent, r.learner) for r in results] == [("random", 0), ("random", 1)]
    assert all(r.plies >= 5 for r in results)


def test_a_damaged_store_stops_the_resumed_command_on_one_line_before_any_work(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from boardlab.train.alphazero import AlphaZeroRun
    from boardlab.ui.cli import app

    run = AlphaZeroRun.start(TTT, eval_params(), seed=1)
    run.save(tmp_path / "checkpoint.safetensors")
    (tmp_path / ARENA_FILE).write_bytes(b"SQLite format 3\0" + b"\x01" * 200)
    result = CliRunner().invoke(app, ["train", "alphazero", "--out", str(tmp_path), "--resume"])
    assert result.exit_code == 2, result.output
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and ARENA_FILE in lines[0] and "move it away" in lines[0]
    assert AlphaZeroRun.resume(tmp_path / "checkpoint.safetensors", TTT).progress == 0
    assert not (tmp_path / "replay").exists()


def test_hours_spent_in_an_evaluation_still_give_the_last_iteration_its_games(tmp_path: Path) -> None:
    """The run's last iteration plays evaluation games even when its hours run out while the
    evaluation judges moves (after the check of whether games are due)."""
    from boardlab.train.alphazero import AlphaZeroRun

    run = AlphaZeroRun.start(TTT, eval_params(elo_every=5, versus_games=1, eval_positions=5), seed=3)
    run.save(tmp_path / "checkpoint.safetensors")
    run.opponents = ["random"]
    judged = run.evaluation

    def judged_until_the_hours_are_spent(at: int) -> list[dict[str, Any]]:
        records = judged(at)
        run.state["train_seconds"] = run.params.hours * 3600  # the evaluation took the last of them
        return records

    run.evaluation = judged_until_the_hours_are_spent  # type: ignore[method-assign]
    try:
        run.step(1)
    finally:
        run.close()
    assert run.finished and run.progress == 1
    assert [t["name"] for t, _ in stored(tmp_path)] == ["alphazero iteration 1"]
    assert {r["epoch"] for r in run.curve if r["opponent"] in ("random", "elo")} == {1}


def snapshots(folder: Path) -> list[str]:
    return sorted(path.name for path in (folder / "snapshots").iterdir())


@pytest.mark.timeout(300)
def test_a_run_that_reaches_its_epochs_rates_and_keeps_its_last_iteration_once(tmp_path: Path) -> None:
    """Reaching the count of iterations ends a run as its hours do: the last iteration plays
    its evaluation games (and keeps its snapshot) between two ``elo_every``, so that the last Elo
    is that of the saved model; a resumed run plays no iteration twice."""
    from boardlab.train.alphazero import AlphaZeroRun
    from boardlab.train.run import train

    checkpoint = tmp_path / "checkpoint.safetensors"
    run = AlphaZeroRun.start(TTT, eval_params(elo_every=5, versus_games=1, eval_positions=5), seed=3)
    try:
        assert train(run, 2, checkpoint=checkpoint)
    finally:
        run.close()
    assert [t["name"] for t, _ in stored(tmp_path)] == ["alphazero iteration 0", "alphazero iteration 2"]
    assert snapshots(tmp_path) == ["it000000.safetensors", "it000002.safetensors"]
    assert any(line.startswith("Elo of iteration 2:") for line in run.report_lines())
    assert "elo" in run.summary()["last_evaluation"]
    games = [[g.game_content() for g in found] for _, found in stored(tmp_path)]
    for total, evaluated in ((2, [0, 2]), (3, [0, 2, 3])):
        resumed = AlphaZeroRun.resume(checkpoint, TTT)
        try:
            assert train(resumed, total, checkpoint=checkpoint)
        finally:
            resumed.close()
        assert [t["name"] for t, _ in stored(tmp_path)] == [f"alphazero iteration {n}" for n in evaluated]
        assert sorted({r["epoch"] for r in resumed.curve if r["opponent"] == "elo"}) == evaluated
        assert len([r for r in resumed.curve if "score" in r]) == 2 * len(evaluated)  # two opponents
    assert [[g.game_content() for g in found] for _, found in stored(tmp_path)][:2] == games


def test_a_run_resumed_at_its_epochs_plays_the_games_its_last_iteration_lacks(tmp_path: Path) -> None:
    """A run stopped after an iteration that played no games, resumed with that iteration as its
    end, plays them then (once), as the end of an unbroken run does."""
    from boardlab.train.alphazero import AlphaZeroRun
    from boardlab.train.run import train

    checkpoint = tmp_path / "checkpoint.safetensors"
    run = AlphaZeroRun.start(TTT, eval_params(elo_every=5, versus_games=1, eval_positions=5), seed=3)
    run.save(checkpoint)
    try:
        run.step(1)  # iteration 1: its evaluation judges moves, no games due
    finally:
        run.close()
    run.save(checkpoint)
    assert not any("score" in r for r in run.curve) and not (tmp_path / "snapshots").exists()
    for _ in range(2):
        resumed = AlphaZeroRun.resume(checkpoint, TTT)
        try:
            assert train(resumed, 1, checkpoint=checkpoint)
        finally:
            resumed.close()
        assert [t["name"] for t, _ in stored(tmp_path)] == ["alphazero iteration 1"]
        assert [r["epoch"] for r in resumed.curve if "score" in r] == [1, 1]
    assert snapshots(tmp_path) == ["it000001.safetensors"]
    assert AlphaZeroRun.resume(checkpoint, TTT).curve == resumed.curve


def test_the_training_plots_leave_the_caller_s_matplotlib_backend_alone(tmp_path: Path) -> None:
    import matplotlib

    from boardlab.train.alphazero import plot_training

    elo = {"elo": 10.0, "elo_low": -40.0, "elo_high": 60.0, "anchor": "random"}
    elo |= {"opponent": "elo", "hours": 0.1, "opponents_elo": {"random": (0.0, 0.0, 0.0)}}
    state = {"history": [{"hours": h, "policy_loss": 2.0 - h, "value_loss": 0.5} for h in (0.05, 0.1)]}
    state["curve"] = [elo]
    before = matplotlib.get_backend()
    try:
        matplotlib.use("svg")  # e.g. a notebook's backend: plotting must not switch it to Agg
        paths = plot_training(state, tmp_path, "test")
        assert matplotlib.get_backend() == "svg"
    finally:
        matplotlib.use(before)
    assert [p.name for p in paths] == ["alphazero_losses.png", "alphazero_elo.png"]
