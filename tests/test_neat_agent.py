"""The ``neat`` agent and ``boardlab train neat``: the numpy network against neat-python's own,
genomes and populations through JSON, model files refused when wrong, legal play, and a tiny
training run that resumes exactly."""

from __future__ import annotations

import json
import random
from pathlib import Path

import neat
import numpy as np
import pytest
from greedy_reference import greedy_classes, midgame_states
from typer.testing import CliRunner

from boardlab.agents import AgentSpecError, make_agent
from boardlab.agents.neat_player import Network, load_model, model_json, parse_model
from boardlab.games import parse_game
from boardlab.games.base import LOSS, ONGOING, WIN
from boardlab.models.table import ModelFileError
from boardlab.train import neat_quixo as nq
from boardlab.train.run import train
from boardlab.ui.cli import app

QUIXO = parse_game("quixo")
INPUTS = 50


def _mutated_population(seed: int, generations: int = 6) -> tuple[neat.Config, dict]:
    """A neat-python population grown by structural mutations only, with several activations."""
    params = nq.params_for(
        {"population": 12, "activations": "tanh+relu+sigmoid+gauss", "node_add": 0.6, "conn_add": 0.6}
    )
    config = nq.make_config(params, INPUTS)
    config.genome_config.activation_mutate_rate = 0.5
    random.seed(seed)
    population = neat.Population(config)
    genomes = population.population
    for _ in range(generations):
        for genome in genomes.values():
            genome.mutate(config.genome_config)
    return config, genomes


def test_numpy_network_equals_neat_python() -> None:
    config, genomes = _mutated_population(1)
    rng = np.random.default_rng(0)
    assert any(len(g.nodes) > 1 for g in genomes.values())
    for genome in genomes.values():
        for node in genome.nodes.values():  # training keeps responses at 1; a genome may not
            node.response = float(rng.uniform(0.5, 2.0))
        reference = neat.nn.FeedForwardNetwork.create(genome, config)
        mine = Network.from_genome(nq.genome_to_json(genome), INPUTS, 1)
        x = rng.normal(size=(6, INPUTS))
        expected = np.array([reference.activate(list(row)) for row in x])
        np.testing.assert_allclose(mine.evaluate(x), expected, rtol=1e-12, atol=1e-12)


def test_genome_json_round_trip() -> None:
    config, genomes = _mutated_population(2)
    for genome in genomes.values():
        data = json.loads(json.dumps(nq.genome_to_json(genome)))
        again = nq.genome_from_json(data, config)
        assert nq.genome_to_json(again) == nq.genome_to_json(genome)
        assert list(again.connections) == list(genome.connections)  # insertion order kept


def _model(tmp_path: Path, **changes: object) -> Path:
    _, genomes = _mutated_population(3, 2)
    data = model_json(QUIXO, nq.genome_to_json(next(iter(genomes.values()))))
    data.update(changes)
    path = tmp_path / "model.json"
    path.write_text(json.dumps(data))
    return path


def test_model_file_plays_and_never_chooses_an_illegal_move(tmp_path: Path) -> None:
    path = _model(tmp_path)
    agent = make_agent(f"neat:model={path}", seed=4, game=QUIXO)
    rng = random.Random(5)
    for _ in range(3):
        state = QUIXO.initial()
        while not state.is_over and state.ply < 60:
            move = agent.choose(state) if state.ply % 2 == 0 else rng.choice(state.legal_moves())
            assert state.is_legal(move)
            state = state.play(move)


def test_a_winning_move_is_taken(tmp_path: Path) -> None:
    agent = make_agent(f"neat:model={_model(tmp_path)}", seed=0, game=QUIXO)
    state = QUIXO.parse_position("XXXX./OOOO./...../...../..... X 8")
    after = state.play(agent.choose(state))
    assert after.winner == 0


def test_the_guard_never_hands_over_an_immediate_win(tmp_path: Path) -> None:
    from boardlab.agents.greedy import classify_moves

    agent = make_agent(f"neat:model={_model(tmp_path)},guard=on", seed=1, game=QUIXO)
    rng = random.Random(2)
    checked = 0
    for _ in range(4):
        state = QUIXO.initial()
        while not state.is_over and state.ply < 80:
            wins, safe, _ = classify_moves(QUIXO.kernel, state.a, state.b)
            move = agent.choose(state)
            action = state.move_index(move)
            if wins:
                assert action in wins
            elif safe:
                assert action in safe
                checked += 1
            state = state.play(move if state.ply % 2 == 0 else rng.choice(state.legal_moves()))
    assert checked > 20


@pytest.mark.parametrize(
    ("changes", "game", "message"),
    [
        ({"format": "something"}, "quixo", "not a NEAT model"),
        ({"version": 99}, "quixo", "version 99"),
        ({"game": "connect4"}, "quixo", "trained on connect4"),
        ({}, "quixo:size=4", "board size"),
        ({"num_inputs": 32}, "quixo", "names a node"),
        ({"genome": {"nodes": [], "connections": []}}, "quixo", "output node"),
        ({"hyper": [1]}, "quixo", "'hyper' must be an object"),
        ({"num_outputs": 2}, "quixo", "expected 1 output"),
        ({"num_inputs": 0}, "quixo", "expected 1 output"),
        ({"hyper": {"guard": "no"}}, "quixo", "'guard' is true or false"),
    ],
)
def test_mismatched_models_are_refused(tmp_path: Path, changes: dict, game: str, message: str) -> None:
    path = _model(tmp_path, **changes)
    with pytest.raises(AgentSpecError, match=message):
        make_agent(f"neat:model={path}", seed=0, game=parse_game(game))


def test_corrupt_and_missing_files_are_refused(tmp_path: Path) -> None:
    path = _model(tmp_path)
    path.write_text(path.read_text()[:200])
    with pytest.raises(ModelFileError, match="damaged"):
        load_model(path)
    with pytest.raises(AgentSpecError, match="does not exist"):
        make_agent(f"neat:model={tmp_path / 'none.json'}", seed=0, game=QUIXO)
    data = json.loads(_model(tmp_path).read_text())
    data["genome"]["connections"][0]["weight"] = "heavy"
    with pytest.raises(ModelFileError, match="weight"):
        parse_model(data)


def test_the_shipped_model_plays_quixo_only() -> None:
    agent = make_agent("neat", seed=0, game=QUIXO)
    assert QUIXO.initial().is_legal(agent.choose(QUIXO.initial()))
    with pytest.raises(AgentSpecError):
        make_agent("neat", seed=0, game=parse_game("quixo:size=4"))
    with pytest.raises(AgentSpecError):
        make_agent("neat", seed=0, game=parse_game("tictactoe"))


TINY = "population=8,games=2,champion_games=1,pool=2,champion_every=1,workers=1,node_add=0.5"


def test_training_runs_and_resumes_exactly(tmp_path: Path) -> None:
    params = nq.parse_hyper(TINY)
    straight, split = tmp_path / "straight", tmp_path / "split"
    assert train(nq.Evolution.start(QUIXO, params, 7), 4, checkpoint=straight / nq.CHECKPOINT_FILE)
    assert train(nq.Evolution.start(QUIXO, params, 7), 2, checkpoint=split / nq.CHECKPOINT_FILE)
    random.seed(12345)  # as in a new process: resuming sets the draws of neat-python back itself
    resumed = nq.Evolution.resume(split / nq.CHECKPOINT_FILE, QUIXO)
    assert resumed.generation == 2
    assert train(resumed, 4, checkpoint=split / nq.CHECKPOINT_FILE)
    a = json.loads((straight / nq.CHECKPOINT_FILE).read_text())
    b = json.loads((split / nq.CHECKPOINT_FILE).read_text())
    assert a["population"] == b["population"]
    assert a["history"] == b["history"]
    assert len(a["pool"]) == 4
    agent = make_agent(f"neat:model={straight / nq.MODEL_FILE}", seed=0, game=QUIXO)
    assert QUIXO.initial().is_legal(agent.choose(QUIXO.initial()))


def test_cli_trains_writes_plots_and_resumes(tmp_path: Path) -> None:
    out = tmp_path / "run"
    base = ["train", "neat", "--out", str(out), "--hyper", TINY]  # the game: quixo by default
    base += ["--eval-games", "0", "--final-games", "0", "--against", "random"]
    result = CliRunner().invoke(app, [*base, "--epochs", "1"])
    assert result.exit_code == 0, result.output
    for name in (
        "model.json",
        "checkpoint.json",
        "summary.json",
        "fitness.png",
        "species.png",
    ):
        assert (out / name).is_file()
    assert not (out / "learning_curve.png").exists()  # --eval-games 0: no curve games to draw
    assert json.loads((out / "checkpoint.json").read_text())["curve"] == []  # --eval-games 0
    again = CliRunner().invoke(app, [*base, "--epochs", "1"])
    assert again.exit_code == 2 and "--resume" in again.output
    resumed = CliRunner().invoke(app, [*base, "--epochs", "2", "--resume"])
    assert resumed.exit_code == 0, resumed.output
    assert json.loads((out / "summary.json").read_text())["generations"] == 2


def _grown(config: neat.Config, generations: int, seed: int = 3) -> dict:
    """neat-python's population after ``generations`` generations of a fixed fitness (the sum
    of the weights), as genome key: connection weights."""
    random.seed(seed)
    population = neat.Population(config)

    def fitness(genomes: list, _: neat.Config) -> None:
        for _, genome in genomes:
            genome.fitness = sum(c.weight for c in genome.connections.values())

    population.run(fitness, generations)
    return {k: sorted(c.weight for c in g.connections.values()) for k, g in population.population.items()}


def _neat_python_config(params: nq.NeatParams, tmp_path: Path) -> neat.Config:
    """neat-python's own classes, reading the configuration the model file keeps."""
    path = tmp_path / "neat.ini"
    path.write_text(nq.config_text(params, INPUTS))
    classes = (neat.DefaultGenome, neat.DefaultReproduction, neat.DefaultSpeciesSet, neat.DefaultStagnation)
    return neat.Config(*classes, str(path))


def test_where_every_species_fits_the_population_evolves_as_in_neat_python(tmp_path: Path) -> None:
    params = nq.params_for({"population": 20, "compatibility": 1.5})
    ours = _grown(nq.make_config(params, INPUTS), 4)
    assert ours == _grown(_neat_python_config(params, tmp_path), 4)


@pytest.mark.parametrize("hyper", [{"compatibility": 0.01}, {"compatibility": 0.5, "elitism": 3}])
def test_more_species_than_the_population_can_hold_drop_the_least_fit(tmp_path: Path, hyper: dict) -> None:
    """neat-python refuses to breed them (a RuntimeError); the run keeps its population size."""
    params = nq.params_for({"population": 6, **hyper})
    with pytest.raises(RuntimeError, match="Configuration conflict"):
        _grown(_neat_python_config(params, tmp_path), 3)
    config = nq.make_config(params, INPUTS)
    random.seed(3)
    population = neat.Population(config)
    for _ in range(3):
        fitness = {key: float(key) for key in population.population}  # the younger, the fitter
        for key, genome in population.population.items():
            genome.fitness = fitness[key]
        population.species.speciate(config, population.population, population.generation)
        assert len(population.species.species) > 6 // max(2, params.elitism)  # more than fit
        fittest = max(
            population.species.species.values(), key=lambda s: max(m.fitness for m in s.members.values())
        )
        kept = population.reproduction.reproduce(config, population.species, 6, population.generation)
        assert len(kept) == 6
        assert fittest.key in population.species.species  # the least fit species went first
        assert len(population.species.species) <= 6 // max(2, params.elitism)
        population.population = kept
        population.generation += 1


@pytest.mark.timeout(300)
@pytest.mark.parametrize("hyper", ["compatibility=0.01", "survival=0.01,compatibility=0.3"])
def test_a_run_with_many_small_species_trains_and_resumes_as_an_uninterrupted_one(
    tmp_path: Path, hyper: str
) -> None:
    params = nq.parse_hyper(f"population=6,games=1,champion_games=0,workers=1,{hyper}")
    straight, split = tmp_path / "straight", tmp_path / "split"
    assert train(nq.Evolution.start(QUIXO, params, 0), 4, checkpoint=straight / nq.CHECKPOINT_FILE)
    assert train(nq.Evolution.start(QUIXO, params, 0), 1, checkpoint=split / nq.CHECKPOINT_FILE)
    assert train(
        nq.Evolution.resume(split / nq.CHECKPOINT_FILE, QUIXO), 4, checkpoint=split / nq.CHECKPOINT_FILE
    )
    a = json.loads((straight / nq.CHECKPOINT_FILE).read_text())
    b = json.loads((split / nq.CHECKPOINT_FILE).read_text())
    assert a["history"] == b["history"] and len(a["history"]) == 4
    assert all(sum(h["species"].values()) == 6 for h in a["history"])


def test_the_learning_curve_starts_at_the_first_champion_not_at_a_point_of_no_games(tmp_path: Path) -> None:
    run = nq.Evolution.start(QUIXO, nq.parse_hyper(TINY), 0)
    try:
        assert run.evaluate(["random"], 4) == []  # generation 0: no champion has played
        assert train(run, 2, eval_every=1, eval_games=2, opponents=["random"])
    finally:
        run.close()
    assert [(p["episode"], p["games"]) for p in run.curve] == [(1, 2), (2, 2)]


@pytest.mark.timeout(300)
def test_a_population_whose_species_all_stagnate_is_drawn_again_and_the_run_says_so(tmp_path: Path) -> None:
    hyper = "population=6,games=1,champion_games=0,workers=1,species_elitism=0,stagnation=1"
    run = nq.Evolution.start(QUIXO, nq.parse_hyper(hyper), 0)
    try:
        assert train(run, 4, checkpoint=tmp_path / nq.CHECKPOINT_FILE)
    finally:
        run.close()
    assert run.extinctions == [2, 4] and run.summary()["extinctions"] == 2
    (line,) = run.report_lines()
    assert line.startswith("Every species was removed as stagnant after generations 2, 4: neat-python drew")
    assert nq.Evolution.resume(tmp_path / nq.CHECKPOINT_FILE).extinctions == [2, 4]
    calm = nq.Evolution.start(QUIXO, nq.parse_hyper(TINY), 0)
    assert calm.report_lines() == [] and calm.summary()["extinctions"] == 0


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--game", "connect4"], "not Quixo"),
        (["--hyper", "population=2"], "population must be at least 4"),
        (["--hyper", "colour=red"], "unknown option"),
        (["--hyper", "activations=tanh+wobble"], "wobble"),
        (["--epochs", "many"], "--epochs"),
        (["--resume"], "nothing to resume"),
        (["--alpha", "0.1"], "--alpha"),
    ],
)
def test_cli_bad_input_exits_2_with_one_line(tmp_path: Path, arguments: list[str], message: str) -> None:
    command = ["train", "neat", "--game", "quixo", "--out", str(tmp_path / "x"), *arguments]
    result = CliRunner().invoke(app, command)
    assert result.exit_code == 2
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and message in lines[0], result.output


def _node(key: int, activation: str = "identity", bias: float = 0.0) -> dict:
    return {"id": key, "bias": bias, "response": 1.0, "activation": activation, "aggregation": "sum"}


def _link(a: int, b: int, weight: float = 1.0) -> dict:
    return {"from": a, "to": b, "weight": weight, "enabled": True, "innovation": 0}


def test_a_long_chain_of_nodes_is_read_and_evaluated(tmp_path: Path) -> None:
    # each layer holds one node: the model is read in time linear in its size, not quadratic
    n = 20_000
    nodes = [_node(k) for k in range(n + 1)]
    links = [_link(-1, n, 2.0)] + [_link(k, k - 1) for k in range(1, n + 1)]
    genome = {"key": 1, "fitness": 0.0, "nodes": nodes, "connections": links}
    path = tmp_path / "chain.json"
    path.write_text(json.dumps(model_json(QUIXO, genome)))
    network = load_model(path).network()
    assert len(network.layers) == n + 1
    x = np.random.default_rng(0).normal(size=(3, INPUTS))
    np.testing.assert_allclose(network.evaluate(x)[:, 0], 2.0 * x[:, 0])


def test_sparse_layers_equal_dense_ones(monkeypatch: pytest.MonkeyPatch) -> None:
    # a wide layer fed by few links is kept as links; the values must be those of the matrix
    rng = np.random.default_rng(1)
    hidden = list(range(1, 301))
    nodes = [_node(0, "tanh")] + [_node(k, "sigmoid", float(rng.normal())) for k in hidden]
    # two links into each hidden node: the sparse sums must add both
    links = [_link(-int(rng.integers(1, INPUTS + 1)), k, float(rng.normal())) for k in hidden for _ in "ab"]
    links += [_link(k, 0, float(rng.normal())) for k in hidden] + [_link(-1, 0, 0.5), _link(-1, 0, 0.25)]
    genome = {"key": 1, "fitness": 0.0, "nodes": nodes, "connections": links}
    sparse = Network.from_genome(genome, INPUTS, 1)
    assert any(layer.sparse is not None for layer in sparse.layers)
    monkeypatch.setattr("boardlab.agents.neat_player.DENSE_FACTOR", 10**9)
    dense = Network.from_genome(genome, INPUTS, 1)
    assert all(layer.sparse is None for layer in dense.layers)
    x = rng.normal(size=(5, INPUTS))
    np.testing.assert_allclose(sparse.evaluate(x), dense.evaluate(x), rtol=1e-12, atol=1e-12)
    # and those of a node-by-node reckoning with neat-python's activations
    act = neat.activations.ActivationFunctionSet().functions
    for row, got in zip(x, sparse.evaluate(x)[:, 0], strict=True):
        value = {-i - 1: v for i, v in enumerate(row)}
        total = dict.fromkeys(hidden, 0.0) | {0: 0.0}
        for link in links[: 2 * len(hidden)]:
            total[link["to"]] += link["weight"] * value[link["from"]]
        for node in nodes[1:]:
            value[node["id"]] = act["sigmoid"](node["bias"] + total[node["id"]])
        for link in links[2 * len(hidden) :]:
            total[0] += link["weight"] * value[link["from"]]
        assert got == pytest.approx(act["tanh"](total[0]), abs=1e-12)


def test_every_activation_is_neat_pythons() -> None:
    from boardlab.agents.neat_player import ACTIVATIONS

    theirs = neat.activations.ActivationFunctionSet().functions
    points = np.linspace(-4.0, 4.0, 81)
    for name, function in ACTIVATIONS.items():
        expected = [theirs[name](float(z)) for z in points]
        np.testing.assert_allclose(function(points), expected, rtol=1e-12, atol=1e-12, err_msg=name)


def _counting_model(tmp_path: Path, weight: float) -> Path:
    """A model whose network values a position by the cubes of the side to move minus the
    opponent's, times ``weight`` (0: every position alike)."""
    genome = {
        "nodes": [_node(0)],
        "connections": [_link(-i - 1, 0, weight if i < 25 else -weight) for i in range(INPUTS)],
    }
    path = tmp_path / f"count{weight}.json"
    path.write_text(json.dumps(model_json(QUIXO, genome, {"hyper": {"guard": False}})))
    return path


def test_the_agent_plays_the_move_the_network_values_least_for_the_opponent(tmp_path: Path) -> None:
    """Against a network that counts cubes, the agent keeps the largest lead in cubes; a move
    that ends the game is scored by its result whatever the network says: a win first, a loss
    never (even when the network sees every position alike)."""
    counting, blind = (
        make_agent(f"neat:model={_counting_model(tmp_path, weight)},guard=off", game=QUIXO).policy(QUIXO)
        for weight in (1.0, 0.0)
    )
    k = QUIXO.kernel
    rng, ties = random.Random(6), random.Random(7)
    losing_seen = 0
    for _ in range(2):
        state = QUIXO.initial()
        while not state.is_over:
            # each move's position, from the opponent's view, and its status for the opponent
            after = {i: k.play(k.ctx, np.int64(state.a), np.int64(state.b), i) for i in state.legal_indices()}
            status = {i: k.status(k.ctx, *words) for i, words in after.items()}
            wins = [i for i, s in status.items() if s == LOSS]
            losses = [i for i, s in status.items() if s == WIN]
            lead = {i: int(mine).bit_count() - int(theirs).bit_count() for i, (theirs, mine) in after.items()}
            ongoing = [i for i, s in status.items() if s == ONGOING]
            choice = counting.choose_action(state.a, state.b, ties)
            if wins:
                assert choice in wins
            else:
                assert choice in ongoing and lead[choice] == max(lead[i] for i in ongoing), state.to_text()
            if ongoing:
                assert blind.choose_action(state.a, state.b, ties) in (wins or ongoing)
                losing_seen += bool(losses)
            state = state.play_index(rng.choice(state.legal_indices()))
    assert losing_seen > 0


def test_a_genome_whose_links_form_a_cycle_is_refused() -> None:
    genome = {"nodes": [_node(0), _node(1)], "connections": [_link(-1, 1), _link(1, 0), _link(0, 1)]}
    with pytest.raises(ModelFileError, match="cycle"):
        parse_model(model_json(QUIXO, genome))


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        ("negative id", "negative or repeated"),
        ("repeated id", "negative or repeated"),
        ("activation", "activation 'swish' is not one of"),
        ("aggregation", "aggregation must be one of"),
        ("into a missing node", "names a node"),
        ("from past the inputs", "names a node"),
        ("enabled", "enabled must be true or false"),
    ],
)
def test_a_genome_the_network_cannot_be_built_from_is_refused(damage: str, message: str) -> None:
    nodes = [_node(0), _node(1, "relu")]
    links = [_link(-INPUTS, 1), _link(1, 0), _link(-1, 0)]  # the first and last inputs
    assert parse_model(model_json(QUIXO, {"nodes": nodes, "connections": links})).network()
    if damage in ("negative id", "repeated id"):
        nodes.append(_node(-1 if damage == "negative id" else 1))
    elif damage in ("activation", "aggregation"):
        nodes[1][damage] = {"activation": "swish", "aggregation": "max"}[damage]
    elif damage == "enabled":
        links[0]["enabled"] = "yes"
    else:
        links.append(_link(-INPUTS - 1, 0) if damage == "from past the inputs" else _link(1, 7))
    with pytest.raises(ModelFileError, match=message):
        parse_model(model_json(QUIXO, {"nodes": nodes, "connections": links}))


@pytest.mark.parametrize(
    ("hyper", "guarded"), [({"guard": True}, True), ({"guard": False}, False), ({}, False)]
)
def test_guard_model_plays_as_the_model_was_trained(tmp_path: Path, hyper: dict, guarded: bool) -> None:
    path = tmp_path / "model.json"
    path.write_text(json.dumps(model_json(QUIXO, {"nodes": [_node(0)], "connections": []}, {"hyper": hyper})))
    assert make_agent(f"neat:model={path}", game=QUIXO).policy(QUIXO).guard is guarded
    assert make_agent(f"neat:model={path},guard=on", game=QUIXO).policy(QUIXO).guard
    assert not make_agent(f"neat:model={path},guard=off", game=QUIXO).policy(QUIXO).guard


def test_every_hyper_parameter_reaches_neat_python() -> None:
    params = nq.params_for(
        {
            "population": 9,
            "hidden": 3,
            "initial": "partial",
            "activations": "relu+tanh",
            "compatibility": 2.5,
            "conn_add": 0.21,
            "conn_delete": 0.12,
            "node_add": 0.33,
            "node_delete": 0.04,
            "weight_rate": 0.65,
            "weight_power": 0.35,
            "elitism": 3,
            "survival": 0.3,
            "stagnation": 7,
            "species_elitism": 1,
        }
    )
    config = nq.make_config(params, INPUTS)
    genome = config.genome_config
    assert config.pop_size == 9 and genome.num_inputs == INPUTS and genome.num_hidden == 3
    assert (genome.initial_connection, genome.connection_fraction) == ("partial_direct", 0.5)
    assert genome.activation_default == "relu" and genome.activation_options == ["relu", "tanh"]
    assert (genome.conn_add_prob, genome.conn_delete_prob) == (0.21, 0.12)
    assert (genome.node_add_prob, genome.node_delete_prob) == (0.33, 0.04)
    assert (genome.weight_mutate_rate, genome.weight_mutate_power) == (0.65, 0.35)
    assert config.species_set_config.compatibility_threshold == 2.5
    assert (config.stagnation_config.max_stagnation, config.stagnation_config.species_elitism) == (7, 1)
    assert (config.reproduction_config.elitism, config.reproduction_config.survival_threshold) == (3, 0.3)


@pytest.mark.parametrize(
    ("winner", "seat", "plies", "score"),
    [
        (None, 0, 30, 0.5),
        (0, 0, 50, 0.9),
        (1, 0, 50, 0.1),
        (1, 1, 20, 0.96),
        (0, 1, 400, 0.2),
        (1, 1, 250, 0.8),
    ],
)
def test_a_fitness_game_scores_a_quick_win_high_and_a_long_loss_above_a_quick_one(
    winner: int | None, seat: int, plies: int, score: float
) -> None:
    assert nq.game_score(winner, seat, plies, 0.2) == pytest.approx(score)


def _recording(players: nq.Players, calls: list[str], name: str) -> nq.Chooser:
    def choose(a: int, b: int, rng: random.Random) -> int:
        calls.append(name)
        return players.random(a, b, rng)

    return choose


def test_a_fitness_game_opens_at_random_then_alternates_and_reports_the_winner() -> None:
    game = QUIXO
    players = nq.Players(game)
    for seed in range(4):
        calls: list[str] = []
        first, second = _recording(players, calls, "first"), _recording(players, calls, "second")
        winner, plies = players.play(first, second, 2, random.Random(seed))
        assert calls == [("first", "second")[ply % 2] for ply in range(2, plies)]
        state, rng = game.initial(), random.Random(seed)  # the same draws, played on states
        while not state.is_over and state.ply < (game.ply_cap or 10**9):
            state = state.play_index(players.random(state.a, state.b, rng))
        assert (winner, plies) == (state.winner if state.is_over else None, state.ply)


def test_a_fitness_game_is_a_draw_at_the_ply_cap() -> None:
    players = nq.Players(parse_game("quixo:ply_cap=3"))
    assert players.play(players.random, players.random, 0, random.Random(0)) == (None, 3)


def test_the_fitness_games_play_random_greedy_then_each_champion_seats_alternating(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    players = nq._players("quixo")
    learner = object()
    opponents: list[tuple[str, int]] = []
    champions = ({"name": "a"}, {"name": "b"})

    def network(genome: dict, guard: bool) -> object:
        return learner if genome.get("name") is None else genome["name"]

    def play(first: object, second: object, opening: int, rng: random.Random) -> tuple[int | None, int]:
        seat = 0 if first is learner else 1
        other = second if seat == 0 else first
        opponents.append((getattr(other, "__name__", other), seat))
        return seat, 10  # the learner always wins in 10 plies

    monkeypatch.setattr(players, "network", network)
    monkeypatch.setattr(players, "play", play)
    task = nq.FitnessTask("quixo", {}, champions, 3, 2, 0, 0.2, True, 1)
    scores = nq.fitness_games(task)
    assert [o for o, _ in opponents] == ["random"] * 3 + ["greedy"] * 3 + ["a", "a", "b", "b"]
    assert [s for _, s in opponents] == [i % 2 for i in range(10)]
    assert scores == [pytest.approx(0.98)] * 10


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [("pool", [{"junk": 1}], "champion 1 of the pool"), ("champion", {"nodes": []}, "the champion")],
)
def test_a_checkpoint_with_a_damaged_champion_is_refused_when_resumed(
    tmp_path: Path, field: str, value: object, message: str
) -> None:
    # the next generation plays the pool: a damaged genome there must not wait to crash the run
    run = nq.Evolution.start(QUIXO, nq.parse_hyper("population=4,workers=1"), 1)
    path = run.save(tmp_path / nq.CHECKPOINT_FILE)
    path.write_text(json.dumps({**json.loads(path.read_text()), field: value}))
    with pytest.raises(ModelFileError, match=message):
        nq.Evolution.resume(path, QUIXO)


def test_the_greedy_fitness_opponent_wins_at_once_else_plays_safe() -> None:
    players, kinds_seen = nq.Players(QUIXO), set()
    for state in midgame_states(QUIXO, 6, seed=3):
        wins, safe, rest = greedy_classes(state)
        wanted = wins or safe or rest
        assert all(players.greedy(state.a, state.b, random.Random(s)) in wanted for s in range(3))
        kinds_seen.add("wins" if wins else ("safe" if safe else "rest"))
    assert {"wins", "safe"} <= kinds_seen
