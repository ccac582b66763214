"""The evolved Nim player: genomes, fitness games, exhaustive judging, model files, resuming, the
nimga agent and `boardlab train ga`."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest
import typer
from typer.testing import CliRunner

from boardlab.agents.base import AgentSpecError, make_agent, register
from boardlab.agents.nim_genome import NimGenomeAgent, shipped_model
from boardlab.games import parse_game
from boardlab.games.base import LOSS, WIN
from boardlab.games.nim.theory import mover_wins
from boardlab.games.small_solver import Solution
from boardlab.models.nim_genome import GenomePolicy, gene_bounds, gene_names, load_model, optimal_genome
from boardlab.models.table import ModelFileError, ModelMismatchError
from boardlab.train.nim_ga import (
    Evolution,
    GAParams,
    GATrainingError,
    accuracy,
    all_positions,
    epoch_batch,
    params_for,
    parse_hyper,
    play_fitness_games,
    save_player,
)
from boardlab.train.run import train
from boardlab.ui.train import register as register_train

# the entry point lives in pyproject.toml; registering at run time keeps the tests independent of
# how the package was installed
register(NimGenomeAgent)

SMALL = [
    "nim:piles=7-7-7-7",
    "nim:piles=7-7-7-7,misere=false",
    "nim:piles=7-7-7-7,k=3",
    "nim:piles=7-7-7-7,k=3,misere=false",
]


def _random_genome(kind: str, rng: np.random.Generator) -> np.ndarray:
    low, high = gene_bounds(kind)
    return rng.uniform(low, high, len(gene_names(kind)))


def _solver_accuracy(kind: str, genome: np.ndarray, game) -> tuple[int, int, int]:
    """(positions, won, optimal) judged by the exhaustive solver alone."""
    solution = Solution(game.kernel)
    policy = GenomePolicy(kind, genome, game)
    words_a, words_b = all_positions(game)
    won = optimal = 0
    for a, b in zip(words_a.tolist(), words_b.tolist(), strict=True):
        if (a == 0 and b == 0) or solution.value((a, b)) != WIN:
            continue
        won += 1
        children = [
            game.kernel.play(game.kernel.ctx, np.int64(a), np.int64(b), x) for x in policy.best_actions(a, b)
        ]
        optimal += all(solution.value((int(x), int(y))) == LOSS for x, y in children)
    return len(words_a), won, optimal


# --- genomes and their moves ------------------------------------------------------------------


@pytest.mark.parametrize("spec", [*SMALL, "nim:piles=1-3-5-7", "nim:piles=9-9-9,k=4"])
def test_the_rules_genome_can_express_optimal_play(spec):
    game = parse_game(spec)
    result = accuracy("rules", optimal_genome("rules"), game)
    assert result.won > 0 and result.share == 1.0


def test_the_judge_agrees_with_the_exhaustive_solver():
    rng = np.random.default_rng(1)
    for spec in ("nim:piles=1-3-5-7", "nim:piles=3-4-5,k=2,misere=false"):
        game = parse_game(spec)
        for kind in ("target", "rules"):
            genome = _random_genome(kind, rng)
            judged = accuracy(kind, genome, game)
            assert (judged.positions, judged.won, judged.optimal) == _solver_accuracy(kind, genome, game)
    assert accuracy("target", optimal_genome("target"), parse_game("nim:misere=false")).share == 1.0
    assert accuracy("target", optimal_genome("target"), parse_game("nim")).share < 1.0  # misère is beyond it


@pytest.mark.parametrize("kind", ["target", "rules"])
def test_scores_cover_exactly_the_legal_moves(kind):
    rng = np.random.default_rng(2)
    for spec in ("nim", "nim:piles=2-9-4,k=3,misere=false", "nim:piles=5"):
        game = parse_game(spec)
        policy = GenomePolicy(kind, _random_genome(kind, rng), game)
        state = game.initial()
        while not state.is_over:
            actions, scores = policy.scores(state.a, state.b)
            assert sorted(actions.tolist()) == sorted(state.legal_indices())
            assert np.all(np.isfinite(scores))
            best = policy.best_actions(state.a, state.b)
            assert best and set(best) <= set(actions.tolist())
            state = state.play_index(random.Random(len(best)).choice(state.legal_indices()))


def test_optimal_genome_wins_every_winnable_fitness_game():
    games = [parse_game(s) for s in SMALL]
    batch = epoch_batch(games, GAParams(pool="optimal", games=30), seed=4, epoch=0)
    wins = play_fitness_games("rules", optimal_genome("rules")[None, :], batch)[0]
    expected = []
    for v, a, b, seat in zip(batch.variants, batch.starts_a, batch.starts_b, batch.seats, strict=True):
        game = games[v]
        piles = game.state(int(a), int(b), 0, 0).piles
        first_wins = mover_wins(piles, game.k, game.misere)
        expected.append(first_wins if seat == 0 else not first_wins)
    assert wins.tolist() == [int(e) for e in expected]


# --- evolution --------------------------------------------------------------------------------


def test_a_short_evolution_improves_fitness():
    game = parse_game("nim:misere=false")
    params = GAParams(genome="target", population=20, games=20, pool="both", starts="initial")
    run = Evolution.start([game], params, seed=0)
    first = run.history[0]
    while run.epoch < 8:
        run.step()
    share = [sum(r["fitness"]) / (len(r["fitness"]) * r["games"]) for r in (first, run.history[-1])]
    assert share[1] > share[0] + 0.2
    assert run.history[-1]["diversity"] < first["diversity"]
    assert accuracy("target", run.best, game).share > run.history[0]["accuracy"][game.spec]


def test_the_rules_genome_evolves_to_optimal_play():
    games = [parse_game(s) for s in SMALL[:2]]
    run = Evolution.start(games, GAParams(population=24, games=30), seed=1)
    while run.epoch < 12:
        run.step()
    assert all(accuracy("rules", run.best, g).share == 1.0 for g in games)


def test_bad_hyper_parameters_and_games_are_refused():
    with pytest.raises(GATrainingError, match="elitism"):
        params_for({"population": 4, "elitism": 4})
    with pytest.raises(GATrainingError, match="selection"):
        parse_hyper("selection=rank")
    with pytest.raises(GATrainingError, match=r"no hyper-parameter|unknown option"):
        parse_hyper("alpha=0.1")
    assert parse_hyper("genome=target,selection=roulette") == GAParams(genome="target", selection="roulette")
    with pytest.raises(GATrainingError, match="not a Nim game"):
        Evolution.start([parse_game("tictactoe")])


# --- files, resuming, the agent ---------------------------------------------------------------


@pytest.fixture(scope="module")
def small_run():
    run = Evolution.start(
        [parse_game("nim:piles=1-3-5-7,misere=false")], GAParams(population=8, games=6), seed=3
    )
    run.step()
    return run


def test_model_file_round_trip(tmp_path, small_run):
    path = small_run.save(tmp_path / "model.json")
    model = load_model(path)
    assert model.kind == "rules" and model.games == ("nim:misere=false",)  # 1-3-5-7 is the default
    assert np.array_equal(model.genome, small_run.best)
    resumed = Evolution.resume(path)
    assert np.array_equal(resumed.population, small_run.population)
    assert resumed.rng.bit_generator.state == small_run.rng.bit_generator.state
    assert resumed.history == small_run.history and resumed.params == small_run.params
    player = save_player(tmp_path / "player.json", small_run, [parse_game("nim:piles=1-3-5-7,misere=false")])
    small = load_model(player)
    assert np.array_equal(small.genome, small_run.best) and "state" not in small.header
    assert small.header["verified"][0]["positions"] == 2 * 4 * 6 * 8


def _broken(header: dict) -> list[tuple[dict | str, type[Exception], str]]:
    def edit(**changes):
        return {**header, **changes}

    genes = dict(header["player"]["genes"])
    renamed = {("normal.renamed" if k == "normal.zero_sum" else k): v for k, v in genes.items()}
    return [
        ("not json at all", ModelFileError, "not JSON"),
        (json.dumps(header)[:-40], ModelFileError, "not JSON"),
        (edit(format="boardlab-tabular"), ModelFileError, "format"),
        (edit(version=2), ModelMismatchError, "version 2"),
        (edit(game="tictactoe"), ModelMismatchError, "tictactoe"),
        (edit(games=["tictactoe"]), ModelMismatchError, "not a Nim game"),
        (edit(games=["nim:piles=x"]), ModelFileError, "cannot be read"),
        (edit(genome="neat"), ModelFileError, "unknown genome"),
        (edit(genes=header["genes"][:-1]), ModelMismatchError, "other genes"),
        (edit(player={**header["player"], "genes": renamed}), ModelFileError, "genes must be"),
        (
            edit(player={**header["player"], "genes": {**genes, "normal.zero_sum": 3.0}}),
            ModelFileError,
            "lie in",
        ),
        (
            edit(player={**header["player"], "genes": {**genes, "normal.zero_sum": float("nan")}}),
            ModelFileError,
            "finite",
        ),
    ]


def test_corrupt_and_mismatched_files_are_refused(tmp_path, small_run):
    header = small_run.header()
    for index, (content, error, message) in enumerate(_broken(header)):
        path = tmp_path / f"bad{index}.json"
        path.write_text(content if isinstance(content, str) else json.dumps(content))
        with pytest.raises(error, match=message):
            load_model(path)
        with pytest.raises(AgentSpecError, match=message):
            make_agent(f"nimga:model={path}", game=parse_game("nim:misere=false"))
    with pytest.raises(ModelFileError, match="does not exist"):
        load_model(tmp_path / "missing.json")
    bad_state = tmp_path / "state.json"
    bad_state.write_text(json.dumps({**header, "state": {**header["state"], "population": [[0.5]]}}))
    with pytest.raises(ModelFileError, match="shape"):
        Evolution.resume(bad_state)
    good = small_run.save(tmp_path / "good.json")
    with pytest.raises(ModelMismatchError, match="trains on"):
        Evolution.resume(good, [parse_game("nim")])


def test_resumed_run_equals_an_uninterrupted_one(tmp_path):
    games = [parse_game("nim:piles=2-3-4"), parse_game("nim:piles=2-3-4,misere=false")]
    params = GAParams(population=10, games=8, selection="roulette", pool="both")
    options = {"eval_every": 2, "eval_games": 6, "opponents": ["random", "optimal"]}
    straight = Evolution.start(games, params, seed=9)
    assert train(straight, 6, checkpoint=tmp_path / "a.json", **options)
    broken = Evolution.start(games, params, seed=9)
    stopped = train(
        broken, 6, checkpoint=tmp_path / "b.json", should_stop=lambda: broken.epoch >= 3, **options
    )
    assert not stopped and broken.epoch == 3
    resumed = Evolution.resume(tmp_path / "b.json", games)
    assert train(resumed, 6, checkpoint=tmp_path / "b.json", **options)
    a, b = (json.loads((tmp_path / n).read_text()) for n in ("a.json", "b.json"))
    a.pop("train_seconds"), b.pop("train_seconds")
    assert a == b


def test_agent_plays_legal_moves_from_a_file_and_refuses_other_conventions(tmp_path, small_run):
    path = small_run.save(tmp_path / "model.json")
    game = parse_game("nim:piles=4-6-8,misere=false")
    agent = make_agent(f"nimga:model={path}", seed=1, game=game)
    opponent = make_agent("random", seed=2, game=game)
    for first in (0, 1):
        state = game.initial()
        while not state.is_over:
            mover = agent if state.to_move == first else opponent
            state = state.play(mover.choose(state))  # play() refuses an illegal move
    with pytest.raises(AgentSpecError, match="misère"):
        make_agent(f"nimga:model={path}", game=parse_game("nim"))


# --- the shipped model ------------------------------------------------------------------------


def test_shipped_model_is_optimal_where_it_claims():
    path = shipped_model()
    assert path is not None
    model = load_model(path)
    claims = model.header["verified"]
    assert set(model.games) <= {c["game"] for c in claims}
    for claim in claims:
        assert claim["optimal"] == claim["won"] > 0
        game = parse_game(claim["game"])
        if claim["game"] in SMALL:  # the exhaustive solver as the judge
            assert _solver_accuracy(model.kind, model.genome, game) == (
                claim["positions"],
                claim["won"],
                claim["won"],
            )
        else:
            assert accuracy(model.kind, model.genome, game).to_json() == claim


def test_shipped_agent_wins_every_won_game_against_optimal():
    for spec in ("nim", "nim:misere=false", "nim:piles=3-5-7,k=3"):
        game = parse_game(spec)
        agent = make_agent("nimga", seed=0, game=game)
        agent.prepare(game)
        optimal = make_agent("optimal", seed=1, game=game)
        for index in range(20):
            state = game.initial()
            for _ in range(index % 3):  # a few random openings make the start won for the agent
                state = state.play_index(random.Random(index).choice(state.legal_indices()))
            if state.is_over or not mover_wins(state.piles, game.k, game.misere):
                continue
            agent_side = state.to_move
            while not state.is_over:
                state = state.play((agent if state.to_move == agent_side else optimal).choose(state))
            assert state.winner == agent_side


# --- the command line -------------------------------------------------------------------------


def _app() -> typer.Typer:
    app = typer.Typer()

    @app.callback()
    def main() -> None:
        """Test app."""

    register_train(app)
    return app


def _train(*args: str):
    return CliRunner().invoke(_app(), ["train", "ga", *args], terminal_width=200)


def test_cli_trains_plots_and_resumes(tmp_path):
    common = ["--game", "nim:piles=2-3-4;nim:piles=2-3-4,misere=false", "--seed", "5", "--eval-games", "4"]
    common += ["--hyper", "population=8,games=6,selection=roulette", "--eval-every", "2"]
    out = tmp_path / "run"
    result = _train("--epochs", "2", "--out", str(out), "--final-games", "10", *common)
    assert result.exit_code == 0, result.output
    for name in ("model.json", "summary.json", "learning_curve.png", "outcomes.png", "ga_wins.png"):
        assert (out / name).stat().st_size > 0
    for name in ("outcomes_by_starter.png", "end_turns.png", "ga_genomes.png", "ga_wins_vs_diversity.png"):
        assert (out / name).stat().st_size > 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["epochs"] == 2 and summary["final"]["optimal"]["games"] == 10
    result = _train("--epochs", "4", "--out", str(out), "--resume", "--final-games", "0", *common)
    assert result.exit_code == 0, result.output
    model = json.loads((out / "model.json").read_text())  # equality with a straight run: see above
    assert model["epoch"] == 4 and len(model["history"]) == 5
    assert sorted({r["epoch"] for r in model["curve"]}) == [0, 2, 4]
    assert make_agent(f"nimga:model={out / 'model.json'}", game=parse_game("nim")).name == "nimga"


def test_cli_bad_input_exits_2_with_one_line(tmp_path):
    existing = tmp_path / "existing"
    existing.mkdir()
    (existing / "model.json").write_text("junk")
    out = ["--out", str(tmp_path / "a")]
    cases = [
        ["--game", "tictactoe", *out],
        ["--game", "nim", *out, "--hyper", "population=1"],
        ["--game", "nim", *out, "--hyper", "selection=rank"],
        ["--game", "nim", *out, "--hyper", "junk"],
        ["--game", "nim", *out, "--epochs", "0"],
        ["--game", "nim", *out, "--alpha", "0.1"],
        ["--game", "nim", *out, "--episodes", "100"],
        ["--game", "nim;nim", *out],
        ["--game", "nim", *out, "--against", "nosuch"],
        ["--game", "nim"],
        ["--game", "nim", "--resume", *out],
        ["--game", "nim", "--out", str(existing)],
        ["--game", "nim", "--resume", "--out", str(existing)],
    ]
    for args in cases:
        result = _train(*args)
        assert result.exit_code == 2, (args, result.output)
        lines = [line for line in result.output.splitlines() if line.strip()]
        assert len(lines) == 1 and lines[0].startswith("Error:"), (args, result.output)
    result = CliRunner().invoke(_app(), ["train", "qlearning", "--epochs", "3", *out], terminal_width=200)
    assert result.exit_code == 2 and "--epochs" in result.output


def test_the_best_pick_draws_among_all_the_best_scores():
    from boardlab.train.nim_ga import _pick_best

    scores = np.array([1.0, 3.0, 2.0, 3.0, 3.0, 9.0])
    picks = [_pick_best(scores, 5, u) for u in (0.0, 0.34, 0.67, 0.999)]  # the sixth is not counted
    assert picks == [1, 3, 4, 4]
    assert _pick_best(np.array([-2.0, -1.0, -3.0]), 3, 0.5) == 1


def test_an_epoch_keeps_the_elites_and_mutates_on_the_scale_of_the_genes(monkeypatch):
    from boardlab.train import nim_ga

    run = Evolution.start([parse_game("nim:piles=1-3-5")], GAParams(population=8, games=4, elitism=3), seed=5)
    order = np.argsort(-run.fitness, kind="stable")[:3]
    elites = run.population[order].copy()
    seen = []
    real = nim_ga.gaussian_mutation

    def spy(children, sigma, rng, **kwargs):
        seen.append(sigma)
        return real(children, sigma, rng, **kwargs)

    monkeypatch.setattr(nim_ga, "gaussian_mutation", spy)
    run.step()
    assert np.array_equal(run.population[:3], elites)
    low, high = gene_bounds(run.kind)
    assert seen == [pytest.approx(run.params.sigma * (high - low))]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda h: h["state"]["population"][0].__setitem__(0, 1.5), "outside"),
        (lambda h: h["history"].pop(), "epoch count"),
    ],
)
def test_a_saved_population_out_of_range_or_a_short_history_is_refused(tmp_path, small_run, change, message):
    header = json.loads(json.dumps(small_run.header()))
    change(header)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(header))
    with pytest.raises(ModelFileError, match=message):
        Evolution.resume(path)
