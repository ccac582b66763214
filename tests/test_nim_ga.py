"""The evolved Nim player: genomes, fitness games, exhaustive judging, model files, resuming, the
nimga agent and `boardlab train ga`."""

from __future__ import annotations

import functools
import json
import random
from functools import reduce
from operator import xor

import numpy as np
import pytest
import typer
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from boardlab.agents.base import AgentSpecError, make_agent, register
from boardlab.agents.nim_genome import NimGenomeAgent, shipped_model
from boardlab.games import parse_game
from boardlab.games.base import LOSS, WIN
from boardlab.games.nim.theory import mover_wins
from boardlab.games.small_solver import Solution
from boardlab.models.nim_genome import (
    FEATURES,
    GenomePolicy,
    gene_bounds,
    gene_names,
    load_model,
    optimal_genome,
)
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


def _naive_scores(kind: str, genome: np.ndarray, game, piles: list[int]) -> dict[int, float]:
    """Each legal move's score, straight from the genome's definition (module docstrings)."""
    top = (1 << game.max_pile.bit_length()) - 1
    weights = genome[len(FEATURES) :] if game.misere else genome[: len(FEATURES)]
    scores = {}
    for i, pile in enumerate(piles):
        for taken in range(1, min(pile, game.max_take) + 1):
            after = [*piles[:i], pile - taken, *piles[i + 1 :]]
            action = i * game.max_take + taken - 1
            plain_sum = reduce(xor, after, 0)
            if kind == "target":
                scores[action] = float(abs(plain_sum - genome[0] * top) <= genome[1] * top + 1e-9)
                continue
            reduced = [q % (game.k + 1) if game.k else q for q in after]
            ones = sum(q == 1 for q in reduced)
            small = all(q <= 1 for q in reduced)
            plain_small_odd = all(q <= 1 for q in after) and sum(q == 1 for q in after) % 2 == 1
            features = {
                "zero_sum": reduce(xor, reduced, 0) == 0,
                "all_small": small,
                "odd_ones": ones % 2 == 1,
                "small_and_odd": small and ones % 2 == 1,
                "raw_zero_sum": plain_sum == 0,
                "raw_small_and_odd": plain_small_odd,
                "big_piles": sum(q > 1 for q in after) / len(after),
                "empties_pile": after[i] == 0,
                "take_share": taken / pile,
                "nim_sum": reduce(xor, reduced, 0) / top,
            }
            scores[action] = sum(w * float(features[f]) for w, f in zip(weights, FEATURES, strict=True))
    return scores


_NAIVE_GAMES = (
    "nim:piles=1-3-5-7",
    "nim:piles=2-9-4,k=3,misere=false",
    "nim:piles=6-6,k=2",
    "nim:piles=5,misere=false",
)


@functools.cache
def _game(spec: str):
    return parse_game(spec)


@st.composite
def _positions(draw: st.DrawFn) -> tuple[str, list[int]]:
    spec = draw(st.sampled_from(_NAIVE_GAMES))
    piles = [draw(st.integers(0, s)) for s in _game(spec).piles]
    assume(any(piles))
    return spec, piles


@settings(max_examples=30, deadline=None)
@given(_positions(), st.sampled_from(["target", "rules"]), st.integers(0, 2**32 - 1))
def test_a_genome_scores_each_move_by_the_features_it_leaves(position, kind, seed):
    spec, piles = position
    game = _game(spec)
    low, high = gene_bounds(kind)
    genome = np.random.default_rng(seed).uniform(low, high, len(gene_names(kind)))
    state = game.from_piles(piles)
    policy = GenomePolicy(kind, genome, game)
    actions, scores = policy.scores(state.a, state.b)
    naive = _naive_scores(kind, genome, game, piles)
    assert dict(zip(actions.tolist(), scores.tolist(), strict=True)) == pytest.approx(naive, abs=1e-9)
    best = max(naive.values())
    gaps = [best - s for s in naive.values()]
    assume(all(g < 1e-12 or g > 1e-6 for g in gaps))  # no tie decided by rounding
    assert sorted(policy.best_actions(state.a, state.b)) == sorted(
        a for a, s in naive.items() if s >= best - 1e-9
    )


def test_a_genome_player_refuses_other_games_kinds_and_gene_counts():
    game = parse_game("nim")
    with pytest.raises(ValueError, match="plays nim, not tictactoe"):
        GenomePolicy("rules", optimal_genome("rules"), parse_game("tictactoe"))
    with pytest.raises(ValueError, match="unknown genome"):
        GenomePolicy("neat", optimal_genome("rules"), game)
    with pytest.raises(ValueError, match="has 20 genes"):
        GenomePolicy("rules", optimal_genome("target"), game)


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


def _replayed_win(game, kind, genome, a, b, seat, opponent, draws) -> int:
    """One fitness game replayed in Python: the genome plays a best move drawn among the ties,
    ``optimal`` a move that leaves a lost position (theory), else any; ``random`` any move."""
    policy = GenomePolicy(kind, genome, game)
    state = game.state(int(a), int(b), 0, 0)
    while not state.is_over:
        actions, scores = policy.scores(state.a, state.b)
        u = draws[state.ply]
        if state.ply % 2 == seat:
            choices = actions[scores == scores.max()]
        elif opponent == 1:  # optimal
            winning = [
                x for x in actions if not mover_wins(state.play_index(int(x)).piles, game.k, game.misere)
            ]
            choices = np.array(winning or actions)
        else:
            choices = actions
        state = state.play_index(int(choices[min(int(u * len(choices)), len(choices) - 1)]))
    return int(state.winner == seat)


def test_random_starts_lie_within_the_starting_piles_and_leave_something_to_play():
    game = parse_game("nim:piles=1-2,misere=false")
    batch = epoch_batch([game], GAParams(pool="both", games=40), seed=0, epoch=0)
    starts = {
        tuple(game.state(int(a), int(b), 0, 0).piles)
        for a, b in zip(batch.starts_a, batch.starts_b, strict=True)
    }
    assert starts == {(0, 1), (0, 2), (1, 0), (1, 1), (1, 2)}  # every start but the empty one
    initial = epoch_batch([game], GAParams(starts="initial", games=4), seed=0, epoch=0)
    assert set(initial.starts_a.tolist()) == {game.initial().a} and len(initial) == 4
    again, later = (epoch_batch([game], GAParams(pool="both", games=40), 0, e) for e in (0, 1))
    assert np.array_equal(again.draws, batch.draws) and np.array_equal(again.starts_a, batch.starts_a)
    assert not np.array_equal(later.draws, batch.draws)  # fresh games every epoch


def test_the_mistakes_are_the_won_positions_where_a_best_move_gives_the_win_away():
    from boardlab.train.nim_ga import mistakes

    game, genome = parse_game("nim:piles=2-3-4"), optimal_genome("target")  # misère is beyond it
    found = mistakes("target", genome, game, limit=1000)
    judged = accuracy("target", genome, game)
    assert len(found) == judged.won - judged.optimal > 3
    for text in found:
        state = game.parse_position(text)
        policy = GenomePolicy("target", genome, game)
        assert mover_wins(state.piles, 0, True)
        assert any(
            mover_wins(state.play_index(a).piles, 0, True) for a in policy.best_actions(state.a, state.b)
        )
    assert mistakes("target", genome, game, limit=3) == found[:3]
    assert mistakes("rules", optimal_genome("rules"), game) == []


def test_a_game_without_won_positions_is_judged_all_right():
    judged = accuracy("rules", optimal_genome("rules"), parse_game("nim:piles=1"))  # misère: lost
    assert (judged.positions, judged.won, judged.share) == (2, 0, 1.0)


@pytest.mark.parametrize("kind", ["target", "rules"])
def test_fitness_games_are_the_games_a_python_replay_plays(kind):
    games = [parse_game("nim:piles=2-3-4"), parse_game("nim:piles=3-2-4,k=2,misere=false")]
    batch = epoch_batch(games, GAParams(pool="both", games=6), seed=3, epoch=1)
    assert sorted(set(batch.opponents.tolist())) == [0, 1] and set(batch.seats.tolist()) == {0, 1}
    genomes = np.stack([_random_genome(kind, np.random.default_rng(n)) for n in range(3)])
    wins = play_fitness_games(kind, genomes, batch)
    for i, genome in enumerate(genomes):
        expected = [
            _replayed_win(games[v], kind, genome, a, b, seat, opponent, draws)
            for v, a, b, seat, opponent, draws in zip(
                batch.variants,
                batch.starts_a,
                batch.starts_b,
                batch.seats,
                batch.opponents,
                batch.draws,
                strict=True,
            )
        ]
        assert wins[i].tolist() == expected


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
    with pytest.raises(GATrainingError, match="at least one Nim game"):
        Evolution.start([])


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
    other = save_player(tmp_path / "other.json", small_run, [parse_game("nim:piles=2-2")])
    assert [claim["game"] for claim in load_model(other).header["verified"]] == ["nim:piles=2-2"]


def _broken(header: dict) -> list[tuple[dict | str, type[Exception], str]]:
    def edit(**changes):
        return {**header, **changes}

    genes = dict(header["player"]["genes"])
    renamed = {("normal.renamed" if k == "normal.zero_sum" else k): v for k, v in genes.items()}
    return [
        ("not json at all", ModelFileError, r"not JSON: Expecting value at line 1, column 1\)"),
        (
            '{"format": "boardlab-',
            ModelFileError,
            r"not JSON: Unterminated string starting at line 1, column 12\)",
        ),
        (json.dumps(header)[:-40], ModelFileError, "not JSON"),
        (edit(format="boardlab-tabular"), ModelFileError, "format"),
        (edit(version=2), ModelMismatchError, "version 2"),
        (edit(method="es"), ModelMismatchError, "not ga"),
        (edit(game="tictactoe"), ModelMismatchError, "tictactoe"),
        (edit(games=["tictactoe"]), ModelMismatchError, "not a Nim game"),
        (edit(games=["nim:piles=x"]), ModelFileError, "cannot be read"),
        (edit(games=[]), ModelFileError, "no valid list of training games"),
        (edit(genome="neat"), ModelFileError, "unknown genome"),
        (edit(genes=header["genes"][:-1]), ModelMismatchError, "other genes"),
        (edit(player={**header["player"], "genes": renamed}), ModelFileError, "genes must be"),
        ({k: v for k, v in header.items() if k != "player"}, ModelFileError, "has no 'player'"),
        (edit(player=[1, 2]), ModelFileError, "has a damaged 'player'"),
        (edit(player={"epoch": 1}), ModelFileError, "the 'player' has no 'genes'"),
        # the genes in another order would give each weight to another feature
        (
            edit(player={**header["player"], "genes": dict(reversed(genes.items()))}),
            ModelFileError,
            "genes must be",
        ),
        (
            edit(player={**header["player"], "genes": {**genes, "misere.nim_sum": -1.5}}),
            ModelFileError,
            "lie in",
        ),
        (
            edit(player={**header["player"], "genes": {**genes, "normal.zero_sum": True}}),
            ModelFileError,
            "finite numbers",
        ),
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
    bad_state.write_text(json.dumps({**header, "hyper": {**header["hyper"], "genome": "target"}}))
    with pytest.raises(ModelFileError, match="hyper-parameters name genome target, the file rules"):
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
    judged = [r for r in a["curve"] if r["opponent"] == "solver"]  # 2-3-4 is small enough to judge
    assert [r["epoch"] for r in judged] == [0, 2, 4, 6]
    assert [r["mistakes"] for r in judged] == [a["history"][r["epoch"]]["mistakes"] for r in judged]


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


@pytest.mark.parametrize("text", ["1-3-5-6", "1-3-5-7", "1-1-0-0", "2-2-4-7"])
def test_the_optimal_opponent_plays_a_winning_move_or_else_any_move(text):
    from boardlab.train.nim_ga import _optimal_pick

    game = parse_game("nim")
    state = game.parse_position(text)
    actions = np.array(state.legal_indices(), dtype=np.int64)
    picks = {
        int(actions[_optimal_pick(game.kernel.ctx, state.a, state.b, actions, len(actions), u)])
        for u in np.linspace(0, 1, 200, endpoint=False)
    }
    winning = {a for a in actions.tolist() if not mover_wins(state.play_index(a).piles, 0, True)}
    assert picks == (winning or set(actions.tolist()))  # every winning move, else every move


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


@pytest.mark.parametrize("selection", ["tournament", "roulette"])
def test_an_epoch_draws_mothers_and_fathers_by_the_selection_asked(monkeypatch, selection):
    from boardlab.train import nim_ga

    params = GAParams(population=6, games=2, elitism=1, selection=selection, tournament_size=4, pool="both")
    run = Evolution.start([parse_game("nim:piles=1-2-3")], params, seed=2)
    calls = []
    real = dict(nim_ga.SELECTIONS)

    def spy(name):
        def select(fitness, k, rng, **options):
            calls.append((name, k, options))
            return real[name](fitness, k, rng, **options)

        return select

    monkeypatch.setattr(nim_ga, "SELECTIONS", {name: spy(name) for name in real})
    run.step()
    options = {"size": 4} if selection == "tournament" else {}
    assert calls == [(selection, 5, options)] * 2  # mothers, then fathers: five children
    record = run.history[-1]
    assert record["games"] == 4 and max(record["fitness"]) <= 4  # 2 games against each of 2 opponents
    batch = epoch_batch(run.games, params, run.seed, run.epoch)
    wins = play_fitness_games(run.kind, run.population, batch)
    assert record["by_opponent"] == {
        name: int(wins[:, batch.opponents == code].sum()) for name, code in (("random", 0), ("optimal", 1))
    }
    assert record["mistakes"] == len(nim_ga.mistakes(run.kind, run.best, run.games[0], limit=10**6))
    assert run.summary()["final_wins"]["best"] == max(record["fitness"]) / 4
    assert run.training_games == record["training_games"] == 2 * 6 * 4  # two epochs of 6 genomes


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda h: h["state"]["population"][0].__setitem__(0, 1.5), "outside"),
        (lambda h: h["history"].pop(), "epoch count"),
        (lambda h: h["history"].append(h["history"][-1]), "epoch count"),
        (
            lambda h: h["history"][0]["fitness"].pop(),
            "'fitness' is not a list of finite numbers of the right length",
        ),
    ],
)
def test_a_saved_population_out_of_range_or_a_short_history_is_refused(tmp_path, small_run, change, message):
    header = json.loads(json.dumps(small_run.header()))
    change(header)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(header))
    with pytest.raises(ModelFileError, match=message):
        Evolution.resume(path)
