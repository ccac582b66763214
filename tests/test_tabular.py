"""Tabular reinforcement learning: perfect Tic-Tac-Toe, model files, the agents, resuming, the CLI."""

from __future__ import annotations

import hashlib
import json
import zipfile
from pathlib import Path

import numpy as np
import pytest
import typer
from typer.testing import CliRunner

from boardlab.agents.base import AgentSpecError, make_agent, register
from boardlab.agents.tabular import MonteCarloAgent, QLearningAgent, shipped_model
from boardlab.games import parse_game
from boardlab.games.base import build_canonical
from boardlab.games.small_solver import Solution
from boardlab.models.table import (
    ModelFileError,
    ModelMismatchError,
    TableModel,
    ValueTable,
    load_model,
    read_header,
    save_model,
)
from boardlab.models.tabular import TabularPolicy
from boardlab.train.run import play_games, tally, train
from boardlab.train.tabular import (
    Trainer,
    TrainingError,
    params_for,
    perfect_play_report,
    small_solution,
)
from boardlab.ui.train import register as register_train

METHODS = ("qlearning", "mcrl")
EPISODES = 30_000

# the entry points live in pyproject.toml; registering at run time keeps the tests independent of
# how the package was installed
register(QLearningAgent)
register(MonteCarloAgent)


@pytest.fixture(scope="module")
def ttt():
    return parse_game("tictactoe")


@pytest.fixture(scope="module")
def solution(ttt):
    return Solution(ttt.kernel)


@pytest.fixture(scope="module")
def trained(ttt):
    """One full run of each method (30,000 episodes, seed 0)."""
    runs = {}
    for method in METHODS:
        trainer = Trainer.start(ttt, method, seed=0)
        trainer.train(EPISODES)
        runs[method] = trainer
    return runs


# --- learning ----------------------------------------------------------------------------------


@pytest.mark.parametrize("method", METHODS)
def test_learner_plays_perfectly_from_either_side(trained, solution, method):
    report = perfect_play_report(trained[method].policy(), solution)
    assert report.perfect, report.mistakes[:3]
    assert report.positions > 300  # every position reachable with the learner on either side


@pytest.mark.parametrize("method", METHODS)
def test_an_untrained_table_makes_mistakes(ttt, solution, method):
    report = perfect_play_report(Trainer.start(ttt, method, seed=0).policy(), solution)
    assert not report.perfect
    # a mistake is a move: an untrained table ties every move, so wrong positions hold several
    assert report.wrong_positions < len(report.mistakes)
    assert report.wrong_positions <= report.positions


@pytest.mark.parametrize("method", METHODS)
def test_learner_never_loses_to_perfect_or_random(trained, method):
    policy = trained[method].policy()
    assert tally(play_games(policy, "perfect", 40, seed=3))["losses"] == 0
    assert tally(play_games(policy, "random", 40, seed=4))["losses"] == 0


def test_learning_against_a_random_opponent_beats_it(ttt):
    trainer = Trainer.start(ttt, "qlearning", params_for("qlearning", {"opponent": "random"}), seed=2)
    trainer.train(5000)
    results = tally(play_games(trainer.policy(), "random", 100, seed=1))
    assert results["wins"] > 80 and results["losses"] < 5


def test_training_is_generic_over_games():
    nim = parse_game("nim:piles=2-3-4,misere=true")
    for method in METHODS:
        trainer = Trainer.start(nim, method, seed=0)
        trainer.train(5000)
        assert perfect_play_report(trainer.policy(), small_solution(nim)).perfect


def test_training_in_pieces_equals_one_run(ttt):
    whole = Trainer.start(ttt, "mcrl", seed=5)
    whole.train(3000)
    pieces = Trainer.start(ttt, "mcrl", seed=5)
    for count in (1, 999, 2000):
        pieces.train(count)
    assert_same_tables(whole.model.table, pieces.model.table)
    assert whole.rng[0] == pieces.rng[0]


def test_bad_hyper_parameters_are_refused():
    with pytest.raises(TrainingError, match="alpha"):
        params_for("qlearning", {"alpha": 1.5})
    with pytest.raises(TrainingError, match="q_init"):
        params_for("mcrl", {"q_init": 0.5})
    with pytest.raises(TrainingError, match="accepted: qlearning, mcrl"):
        params_for("sarsa")


# --- the table and its files -------------------------------------------------------------------


def assert_same_tables(x: ValueTable, y: ValueTable) -> None:
    kx, vx = x.items()
    ky, vy = y.items()
    assert np.array_equal(kx, ky)
    assert np.array_equal(vx, vy)


def test_table_stores_grows_and_keeps_key_zero():
    table = ValueTable(3, fill=0.5)
    keys = [0, 1, -1, 2**62, *range(100, 5000, 7)]
    for i, key in enumerate(keys):
        table.set(key, [i, -i, 0.25])
    assert len(table) == len(keys)
    assert table.capacity >= 2 * len(keys)
    for i, key in enumerate(keys):
        assert table.get(key).tolist() == [i, -i, 0.25]
    assert table.get(99) is None
    table.get(1)[:] = 99.0  # a copy: the table is unchanged
    assert table.get(1).tolist() == [1, -1, 0.25]
    assert table.nbytes() == len(keys) * (8 + 3 * 4)  # a key and three float32 values each
    rebuilt = ValueTable.from_items(*table.items(), fill=0.5)
    assert_same_tables(table, rebuilt)
    assert rebuilt.get(0).tolist() == [0, 0, 0.25]


@pytest.mark.parametrize("method", METHODS)
def test_model_file_round_trip(tmp_path, trained, method):
    trainer = trained[method]
    path = trainer.save(tmp_path / "m.npz")
    model = load_model(path, game="tictactoe", method=method, num_actions=9)
    assert_same_tables(model.table, trainer.model.table)
    assert model.header["hyper"] == trainer.model.header["hyper"]
    assert model.episodes == EPISODES
    assert read_header(path)["method"] == method
    # the value of keys never seen is kept too
    keys, values = trainer.model.table.items()
    filled = TableModel(ValueTable.from_items(keys, values, fill=0.375), dict(trainer.model.header))
    assert load_model(save_model(tmp_path / "filled.npz", filled)).table.fill == 0.375
    assert not list(tmp_path.glob(".*tmp"))  # the temporary file is gone


def _rewrite(path: Path, target: Path, **changes) -> Path:
    with np.load(path, allow_pickle=False) as data:
        arrays = {name: data[name] for name in data.files}
    header = json.loads(str(arrays["header"]))
    for name, value in changes.items():
        if name in ("keys", "values"):
            arrays[name] = value
        else:
            header[name] = value
    arrays["header"] = np.array(json.dumps(header))
    np.savez(target, **arrays)
    return target


def test_corrupt_and_mismatched_files_are_refused(tmp_path, trained):
    good = trained["qlearning"].save(tmp_path / "good.npz")
    header = read_header(good)
    (tmp_path / "text.npz").write_text("not a model")
    (tmp_path / "cut.npz").write_bytes(good.read_bytes()[:200])
    with zipfile.ZipFile(tmp_path / "other.npz", "w") as archive:
        archive.writestr("x.npy", b"junk")
    values = load_model(good).table.items()[1]
    corrupt = {
        "text.npz": tmp_path / "text.npz",
        "cut.npz": tmp_path / "cut.npz",
        "other.npz": tmp_path / "other.npz",
        "missing": tmp_path / "missing.npz",
        "shape": _rewrite(good, tmp_path / "shape.npz", values=values[:, :5]),
        "count": _rewrite(good, tmp_path / "count.npz", entries=header["entries"] + 1),
        "nan": _rewrite(good, tmp_path / "nan.npz", values=np.full_like(values, np.nan)),
        "format": _rewrite(good, tmp_path / "format.npz", format="something-else"),
    }
    for name, path in corrupt.items():
        with pytest.raises(ModelFileError):
            load_model(path)
        assert name
    mismatched = {
        "version": (_rewrite(good, tmp_path / "v.npz", version=99), {}),
        "game": (good, {"game": "nim"}),
        "method": (good, {"method": "mcrl"}),
        "actions": (good, {"num_actions": 44}),
    }
    for path, expect in mismatched.values():
        with pytest.raises(ModelMismatchError):
            load_model(path, **expect)


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("method", "sarsa"),
        ("num_actions", 0),
        ("episodes", -1),
        ("fill", "high"),
        ("hyper", {"gamma": "x"}),
        ("hyper", {"shaping": 3}),
        ("seed", -1),
        ("rng", 5),
        ("kernel", 5),
        ("width", 1),
        ("keys", "floats"),
        ("keys", "repeated"),
    ],
)
def test_a_header_field_out_of_range_is_refused(tmp_path, trained, field, value):
    good = trained["qlearning"].save(tmp_path / "good.npz")
    keys, values = load_model(good).table.items()
    changes = {field: value}
    if field == "width":  # a table one value wide, as the header says, for Q-learning's 9 actions
        changes["values"] = values[:, :1]
    elif field == "keys":
        changes["keys"] = keys.astype(float) if value == "floats" else np.r_[keys[:1], keys[:-1]]
    path = _rewrite(good, tmp_path / "bad.npz", **changes)
    with pytest.raises(ModelFileError, match=field if field != "hyper" else next(iter(value))):
        load_model(path)


# --- the agents --------------------------------------------------------------------------------


@pytest.mark.parametrize("method", METHODS)
def test_shipped_models_play_perfectly(ttt, solution, method):
    model = load_model(shipped_model("tictactoe", method), game="tictactoe", method=method)
    assert perfect_play_report(TabularPolicy(model, ttt), solution).perfect


@pytest.mark.parametrize("spec", METHODS)
def test_shipped_agents_play_legal_moves_and_never_lose(ttt, spec):
    assert shipped_model("tictactoe", spec) is not None
    assert shipped_model("tictactoe", spec).stat().st_size < 1_000_000
    agent = make_agent(spec, seed=1, game=ttt)
    agent.prepare(ttt)
    opponent = make_agent("random", seed=2, game=ttt)
    for game_index in range(20):
        state = ttt.initial()
        while not state.is_over:
            mover = agent if state.ply % 2 == game_index % 2 else opponent
            move = mover.choose(state)
            assert state.is_legal(move)
            state = state.play(move)
        assert state.winner != (1 - game_index % 2)  # the learner never loses


def test_agent_plays_a_trained_file_and_refuses_bad_ones(tmp_path, ttt, trained):
    path = trained["mcrl"].save(tmp_path / "mc.npz")
    agent = make_agent(f"mcrl:model={path}", seed=0, game=ttt)
    assert ttt.initial().is_legal(agent.choose(ttt.initial()))
    with pytest.raises(AgentSpecError, match="with the mcrl agent"):
        make_agent(f"qlearning:model={path}", game=ttt)
    with pytest.raises(AgentSpecError, match="trained on tictactoe"):
        make_agent(f"mcrl:model={path}", game=parse_game("nim"))
    with pytest.raises(AgentSpecError, match="no model is shipped"):
        make_agent("qlearning", game=parse_game("quixo"))
    with pytest.raises(AgentSpecError, match="does not exist"):
        make_agent(f"mcrl:model={tmp_path / 'none.npz'}", game=ttt)


def test_a_model_is_refused_for_a_variant_it_was_not_trained_on():
    quixo3 = shipped_model("quixo:size=3", "qlearning")
    with pytest.raises(AgentSpecError, match=r"trained on quixo:size=3, not quixo:size=3,ply_cap=20$"):
        make_agent(f"qlearning:model={quixo3}", game=parse_game("quixo:size=3,ply_cap=20"))
    assert QLearningAgent.supports(parse_game("quixo:size=3"))
    assert not QLearningAgent.supports(parse_game("quixo:size=3,ply_cap=20"))
    assert not MonteCarloAgent.supports(parse_game("nim"))


def test_equal_values_are_split_from_the_agent_s_seed(tmp_path, ttt):
    path = Trainer.start(ttt, "qlearning", seed=0).save(tmp_path / "untrained.npz")  # every move ties
    moves = [
        make_agent(f"qlearning:model={path}", seed=seed, game=ttt).choose(ttt.initial()) for seed in range(8)
    ]
    assert len(set(moves)) > 2
    assert make_agent(f"qlearning:model={path}", seed=3, game=ttt).choose(ttt.initial()) == moves[3]


# --- checkpoints and resuming ------------------------------------------------------------------


def test_interrupted_and_resumed_run_equals_an_uninterrupted_one(tmp_path, ttt):
    # stopped between two evaluations (compiled calls are at most 4,096 episodes)
    options = {"eval_every": 5000, "eval_games": 6, "opponents": ["random"]}
    solution = Solution(ttt.kernel)
    whole = Trainer.start(ttt, "qlearning", seed=9)
    whole.solution = solution
    assert train(whole, 12000, **options)

    path = tmp_path / "model.npz"
    first = Trainer.start(ttt, "qlearning", seed=9)
    first.solution = solution
    calls = iter(range(100))
    assert not train(first, 12000, checkpoint=path, should_stop=lambda: next(calls) >= 1, **options)
    assert read_header(path)["episodes"] == 4096
    resumed = Trainer.resume(path, ttt, "qlearning")
    resumed.solution = solution
    assert train(resumed, 12000, checkpoint=path, **options)
    assert any(r["opponent"] == "solver" for r in resumed.model.header["curve"])

    assert_same_tables(whole.model.table, resumed.model.table)
    assert whole.model.header["curve"] == resumed.model.header["curve"]
    assert whole.model.header["rng"] == resumed.model.header["rng"]
    assert_same_tables(load_model(path).table, whole.model.table)


# --- the command line --------------------------------------------------------------------------


def _app() -> typer.Typer:
    app = typer.Typer(pretty_exceptions_enable=False)

    @app.callback()
    def main() -> None:
        """Test app."""

    register_train(app)
    return app


def _train(*args: str):
    return CliRunner().invoke(_app(), ["train", *args], terminal_width=200)


def test_cli_trains_plots_and_resumes(tmp_path):
    quick = ["--eval-every", "1000", "--eval-games", "4", "--seed", "3"]
    out = tmp_path / "run"
    result = _train("mcrl", "--episodes", "1000", "--out", str(out), "--final-games", "10", *quick)
    assert result.exit_code == 0, result.output
    for name in (
        "model.npz",
        "summary.json",
        "learning_curve.png",
        "outcomes.png",
        "outcomes_by_starter.png",
        "end_turns.png",
    ):
        assert (out / name).stat().st_size > 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["episodes"] == 1000 and summary["final"]["perfect"]["games"] == 10

    result = _train("mcrl", "--episodes", "2000", "--out", str(out), "--resume", "--final-games", "0", *quick)
    assert result.exit_code == 0, result.output
    straight = tmp_path / "straight"
    assert (
        _train("mcrl", "--episodes", "2000", "--out", str(straight), "--final-games", "0", *quick).exit_code
        == 0
    )
    resumed, direct = load_model(out / "model.npz"), load_model(straight / "model.npz")
    assert_same_tables(resumed.table, direct.table)
    assert resumed.header["curve"] == direct.header["curve"]


def test_cli_bad_input_exits_2_with_one_line(tmp_path):
    existing = tmp_path / "existing"
    existing.mkdir()
    (existing / "model.npz").write_text("junk")
    cases = [
        ["sarsa", "--out", str(tmp_path / "a")],
        [],
        ["qlearning"],
        ["qlearning", "--game", "chess", "--out", str(tmp_path / "a")],
        ["qlearning", "--alpha", "2", "--out", str(tmp_path / "a")],
        ["qlearning", "--alpha", "x", "--out", str(tmp_path / "a")],
        ["mcrl", "--q-init", "0.5", "--out", str(tmp_path / "a")],
        ["qlearning", "--opponent", "perfect", "--out", str(tmp_path / "a")],
        ["qlearning", "--episodes", "0", "--out", str(tmp_path / "a")],
        ["qlearning", "--episodes", "many", "--out", str(tmp_path / "a")],
        ["qlearning", "--against", "nosuch", "--out", str(tmp_path / "a")],
        ["qlearning", "--resume", "--out", str(tmp_path / "a")],
        ["qlearning", "--out", str(existing)],
        ["qlearning", "--resume", "--out", str(existing)],
        ["qlearning", "--shaping", "fullest", "--out", str(tmp_path / "a")],
        ["mcrl", "--shaping-weight", "-1", "--out", str(tmp_path / "a")],
    ]
    for args in cases:
        result = _train(*args)
        assert result.exit_code == 2, (args, result.output)
        lines = [line for line in result.output.splitlines() if line.strip()]
        assert len(lines) == 1 and lines[0].startswith("Error:"), (args, result.output)
        assert "Traceback" not in result.output


# --- reward shaping ----------------------------------------------------------------------------


def _digest(trainer: Trainer) -> str:
    keys, values = trainer.model.table.items()
    return hashlib.sha256(keys.tobytes() + values.tobytes()).hexdigest()[:16]


# tables of 3,000 episodes (seed 0, default hyper-parameters) before shaping existed
UNSHAPED_DIGESTS = {"qlearning": "5293fc258341e452", "mcrl": "18ed3e141aa41ad6"}


@pytest.mark.parametrize("method", METHODS)
def test_shaping_off_leaves_the_tables_bit_identical(ttt, method):
    plain = Trainer.start(ttt, method, seed=0)
    plain.train(3000)
    assert _digest(plain) == UNSHAPED_DIGESTS[method]
    weightless = Trainer.start(ttt, method, params_for(method, {"shaping": "lines", "shaping_weight": 0}))
    weightless.train(3000)
    assert _digest(weightless) == UNSHAPED_DIGESTS[method]
    shaped = Trainer.start(ttt, method, params_for(method, {"shaping": "lines", "shaping_weight": 0.01}))
    shaped.train(3000)
    assert _digest(shaped) != UNSHAPED_DIGESTS[method]


def _forced_line():
    """Nim with one pile of 4, one object per move, the last taker wins: a forced game of four
    plies whose positions alternate between lost (even pile) and won (odd pile) for the mover."""
    game = parse_game("nim:piles=4,k=1,misere=false")
    states = [game.initial()]
    while not states[-1].is_over:
        states.append(states[-1].play_index(states[-1].legal_indices()[0]))
    return game, states


def _table_value(trainer: Trainer, state) -> float:
    key, _ = build_canonical(state.kernel)(state.kernel.ctx, np.int64(state.a), np.int64(state.b))
    return float(trainer.model.table.get(int(key))[0])


SHAPED = {"alpha": 0.5, "gamma": 0.9, "opening": 0, "shaping": "nimsum", "shaping_weight": 0.5}


def test_shaped_q_learning_matches_a_hand_computation():
    game, states = _forced_line()
    alpha, gamma, w = SHAPED["alpha"], SHAPED["gamma"], SHAPED["shaping_weight"]
    phi = [w * (1.0 if s.ply % 2 else -1.0) for s in states[:4]] + [0.0]  # nimsum: +-1, 0 at the end
    trainer = Trainer.start(game, "qlearning", params_for("qlearning", {**SHAPED, "q_init": 0.0}))
    q = [0.0] * 4
    for _ in range(2):
        trainer.train(1)
        # each side's move is judged when it is to move again: r + gamma * Phi(s'') - Phi(s) + gamma max Q
        for t in (0, 1):
            q[t] += alpha * (gamma * phi[t + 2] - phi[t] + gamma * q[t + 2] - q[t])
        # the last move of each side ends the game: +1 for the winner (the second player), -1 for the other
        q[2] += alpha * (-1.0 - phi[2] - q[2])
        q[3] += alpha * (1.0 - phi[3] - q[3])
        learned = [_table_value(trainer, s) for s in states[:4]]
        assert learned == pytest.approx(q, abs=1e-6)
    assert q == pytest.approx([-0.075, 0.075, -0.375, 0.375])


def test_shaped_monte_carlo_matches_a_hand_computation():
    game, states = _forced_line()
    alpha, gamma, w = SHAPED["alpha"], SHAPED["gamma"], SHAPED["shaping_weight"]
    phi = [w * (1.0 if s.ply % 2 else -1.0) for s in states[:4]] + [0.0]
    reward = [0.0, 0.0, 0.0, 1.0]  # the fourth ply takes the last object and wins
    # the shaped reward of ply t for its mover; the next position belongs to the other side
    shaped = [reward[t] - gamma * phi[t + 1] - phi[t] for t in range(4)]
    expected = [alpha * sum((-gamma) ** k * shaped[t + k] for k in range(4 - t)) for t in range(4)]
    trainer = Trainer.start(game, "mcrl", params_for("mcrl", SHAPED))
    trainer.train(1)
    assert [_table_value(trainer, s) for s in states[:4]] == pytest.approx(expected, abs=1e-6)
    assert expected == pytest.approx([-0.1145, 0.155, -0.2, 0.25])


def test_monte_carlo_policy_adds_the_potential_back(tmp_path, ttt):
    params = params_for("mcrl", {"shaping": "lines", "shaping_weight": 0.05})
    path = Trainer.start(ttt, "mcrl", params).save(tmp_path / "shaped.npz")
    policy = TabularPolicy(load_model(path), ttt)  # an empty table: only the potential speaks
    actions, scores = policy.scores(*ttt.initial_words())
    kernel = ttt.kernel
    for action, score in zip(actions.tolist(), scores.tolist(), strict=True):
        x, y = kernel.play(kernel.ctx, np.int64(0), np.int64(0), action)
        assert score == pytest.approx(-params.gamma * 0.05 * kernel.evaluate(kernel.ctx, x, y, 0))
    assert policy.best_actions(*ttt.initial_words()) == [4]  # the centre sits on most lines


def test_unknown_shaping_is_refused(ttt):
    with pytest.raises(TrainingError, match="accepted: none, lines"):
        Trainer.start(ttt, "qlearning", params_for("qlearning", {"shaping": "fullest"}))
    with pytest.raises(TrainingError, match="shaping_weight"):
        params_for("mcrl", {"shaping_weight": -1})


def test_quixo_fullest_evaluation():
    quixo = parse_game("quixo:size=3")
    kernel = quixo.kernel
    me = 0b000_000_011  # two cubes of the top row
    opp = 0b100_000_000  # one corner
    assert kernel.evaluate(kernel.ctx, np.int64(me), np.int64(opp), quixo.evaluations.index("fullest")) == (
        pytest.approx(1 / 3)
    )
    assert kernel.evaluate(kernel.ctx, np.int64(opp), np.int64(me), quixo.evaluations.index("fullest")) == (
        pytest.approx(-1 / 3)
    )


class _QuixoTablesAsSolution:
    """The Quixo 3x3 tables seen as the exact solution :func:`perfect_play_report` expects."""

    def __init__(self) -> None:
        from boardlab.games.quixo.exact import tables_for

        self.tables = tables_for(3)

    def value(self, words: tuple[int, int]) -> int:
        return int(self.tables.value(*words)[0])


def test_shipped_quixo_3x3_models():
    quixo = parse_game("quixo:size=3")
    for method in METHODS:
        path = shipped_model("quixo:size=3", method)
        assert path is not None and path.stat().st_size < 1_000_000
        agent = make_agent(method, seed=0, game=quixo)  # found without model=
        assert quixo.initial().is_legal(agent.choose(quixo.initial()))
    model = load_model(shipped_model("quixo:size=3", "mcrl"), game="quixo:size=3", method="mcrl")
    report = perfect_play_report(TabularPolicy(model, quixo), _QuixoTablesAsSolution())
    assert report.perfect and report.positions > 3000


PLAIN = {"alpha": 0.5, "gamma": 0.9, "opening": 0, "shaping": "none"}


def test_plain_q_learning_matches_a_hand_computation():
    game, states = _forced_line()
    trainer = Trainer.start(game, "qlearning", params_for("qlearning", {**PLAIN, "q_init": 0.0}))
    trainer.train(2)
    # episode 1: only the last moves learn (-1 for the loser, +1 for the winner); episode 2: the
    # first moves take gamma times the value of the position their side meets next
    learned = [_table_value(trainer, s) for s in states[:4]]
    assert learned == pytest.approx([-0.225, 0.225, -0.75, 0.75], abs=1e-6)


def test_plain_monte_carlo_matches_a_hand_computation():
    game, states = _forced_line()
    trainer = Trainer.start(game, "mcrl", params_for("mcrl", PLAIN))
    trainer.train(1)
    # the fourth ply wins: each position learns alpha times +-gamma**k, from its mover's side
    learned = [_table_value(trainer, s) for s in states[:4]]
    assert learned == pytest.approx([-0.3645, 0.405, -0.45, 0.5], abs=1e-6)


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("opponent", ["self", "random"])
def test_the_training_counters_follow_the_winner_and_the_learners_seat(method, opponent):
    game, _ = _forced_line()  # the second player always wins
    trainer = Trainer.start(game, method, params_for(method, {**PLAIN, "opponent": opponent}))
    trainer.train(4)
    learner = [4, 0, 0] if opponent == "self" else [2, 0, 2]  # against random: seats alternate
    assert trainer.stats.tolist() == [0, 0, 4, *learner]


def test_the_exploration_rate_falls_linearly_to_its_end():
    from boardlab.train.tabular import _epsilon

    game, _ = _forced_line()
    values = {"epsilon": 0.9, "epsilon_end": 0.1, "epsilon_decay": 100}
    trainer = Trainer.start(game, "qlearning", params_for("qlearning", values))
    expected = {0: 0.9, 25: 0.7, 50: 0.5, 99: 0.108, 100: 0.1, 10**6: 0.1}
    for episode, rate in expected.items():
        assert trainer.epsilon(episode) == pytest.approx(rate)
        assert _epsilon(episode, 0.9, 0.1, 100.0) == pytest.approx(rate)  # the compiled schedule
    assert _epsilon(0, 0.9, 0.1, 0.0) == pytest.approx(0.1)


TIMED_COMPILE_CHECK = """
import time
import boardlab.models.table as table
import boardlab.train.tabular as tabular
from boardlab.games import parse_game

compiled_at_start = []


class Clock:
    def perf_counter(self):
        compiled_at_start.append(len(table._rehash.signatures))
        return time.perf_counter()


tabular.time = Clock()
run = tabular.Trainer.start(parse_game("tictactoe"), "qlearning", tabular.QLearningParams(), 0)
run.train(200)
print(compiled_at_start[0])
"""


@pytest.mark.timeout(300)
def test_the_training_clock_starts_after_everything_it_runs_is_compiled() -> None:
    """The first chunk of a process grows the table: its rehash compiles before the clock starts
    (it was timed as training: 3 s reported for 30,000 Tic-Tac-Toe episodes that take 0.04 s)."""
    import os
    import subprocess
    import sys

    src = str(Path(__file__).resolve().parents[1] / "src")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([src, os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run(
        [sys.executable, "-c", TIMED_COMPILE_CHECK], capture_output=True, text=True, env=env, timeout=280
    )
    assert done.returncode == 0, done.stderr
    assert int(done.stdout.split()[-1]) >= 1  # the table's rehash was compiled (or loaded) by then
