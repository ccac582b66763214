"""AlphaZero: the network and its model file, the Gumbel root with known evaluators, the agent,
symmetry augmentation, and the trainer (loss falls, solver accuracy rises, resume is exact)."""

from __future__ import annotations

import ast
import itertools
import json
import shutil
import socket
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from boardlab.agents import make_agent
from boardlab.agents.base import AgentSpecError
from boardlab.agents.decision import Limit
from boardlab.games import GameOptionError, parse_game
from boardlab.games.base import ONGOING, WIN
from boardlab.games.small_solver import Solution
from boardlab.models.digest import DIGEST_KEY, digest_problem
from boardlab.models.network import (
    Network,
    NetworkFileError,
    NetworkMismatchError,
    NetworkShape,
    masked_softmax,
    read_network,
    save_network,
)
from boardlab.search.gumbel import GumbelSearch, GumbelSettings, run_gumbel_together
from boardlab.search.mcts import PUCT, EvaluatorError, Search

TTT = parse_game("tictactoe")
C4 = parse_game("connect4")
SRC = Path(__file__).resolve().parents[1] / "src" / "boardlab"


@cache
def ttt_solution() -> Solution:
    return Solution(TTT.kernel)


@cache
def tiny_model(tmp: str, game_spec: str = "tictactoe") -> Path:
    path = Path(tmp) / f"{game_spec.replace(':', '-')}.safetensors"
    save_network(path, Network.for_game(parse_game(game_spec), blocks=1, channels=8, seed=3))
    return path


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory: pytest.TempPathFactory) -> str:
    return str(tmp_path_factory.mktemp("az-models"))


# --- the network and its file -------------------------------------------------------------------


def test_network_masks_illegal_actions_and_values_in_range() -> None:
    net = Network.for_game(C4, blocks=1, channels=8, seed=1)
    state = C4.parse_position("4444442")  # column 4 full
    priors, values = net.evaluator(C4.kernel).evaluate(np.array([state.words]), state.legal_mask()[None])
    assert priors.shape == (1, 7) and priors[0, 3] == 0.0
    assert priors.sum() == pytest.approx(1.0) and -1 <= values[0] <= 1


def test_a_network_refuses_to_evaluate_another_games_positions() -> None:
    net = Network.for_game(TTT, blocks=1, channels=8, seed=1)
    with pytest.raises(EvaluatorError, match=r"network for tictactoe .* connect4-7x6-4"):
        net.evaluator(C4.kernel)
    state = C4.initial()
    with pytest.raises(EvaluatorError, match="built for the kernel tictactoe"):
        Search(C4.kernel, *state.words, net.evaluator(TTT.kernel), PUCT)


@pytest.mark.parametrize("spec", ["connect4", "quixo:size=4", "tictactoe"])
def test_every_inference_mode_gives_the_eager_answer_at_any_batch(spec: str) -> None:
    import torch

    from boardlab.models.network import INFERENCE_MODES

    game = parse_game(spec)
    net = Network.for_game(game, blocks=2, channels=8, seed=2)
    obs = np.random.default_rng(0).random((9, *game.kernel.obs_shape), dtype=np.float32)
    net.mode = "eager"
    logits_e, values_e = net.infer(obs)
    for mode in INFERENCE_MODES[1:]:
        net.mode = mode
        for n in (1, 9, 4):  # one session or trace serves every batch size
            logits, values = net.infer(obs[:n])
            assert logits.shape == logits_e[:n].shape and values.shape == (n,)
            assert np.allclose(logits, logits_e[:n], atol=1e-5)
            assert np.allclose(values, values_e[:n], atol=1e-5)
    # new weights: the compiled copies are dropped and rebuilt from them
    with torch.no_grad():
        for p in net.module.parameters():
            p.mul_(0.5)
    net.forget_compiled()
    net.mode = "eager"
    halved = net.infer(obs)
    net.mode = "onnx"
    assert np.allclose(net.infer(obs)[0], halved[0], atol=1e-5) and not np.allclose(halved[0], logits_e)


def test_onnx_is_the_default_inference_where_installed(tmp_path: Path) -> None:
    assert Network.for_game(C4, blocks=1, channels=8).mode == "onnx"
    path = save_network(tmp_path / "m.safetensors", Network.for_game(C4, blocks=1, channels=8))
    assert read_network(path, C4).network.mode == "onnx"  # what the agent and self-play load
    with pytest.raises(ValueError, match="one of eager, script, onnx"):
        Network(Network.for_game(C4, blocks=1, channels=8).shape, mode="jit")


def test_a_network_is_made_for_a_game_or_its_spec() -> None:
    by_spec = Network.for_game("connect4", blocks=1, channels=8, seed=1)
    assert by_spec.shape == Network.for_game(C4, blocks=1, channels=8, seed=1).shape
    assert by_spec.fits(C4) and NetworkShape.for_game("tictactoe").fits(TTT)
    with pytest.raises(TypeError, match=r"^a network is made for a Game or a game spec .*, got 5 \(int\)$"):
        Network.for_game(5)  # type: ignore[arg-type]
    with pytest.raises(GameOptionError, match="unknown game 'chess'"):
        Network.for_game("chess")


def test_masked_softmax_is_a_distribution_over_legal_actions() -> None:
    logits = np.array([[1.0, 50.0, -3.0], [0.0, 0.0, 0.0]])
    legal = np.array([[True, False, True], [False, False, False]])
    p = masked_softmax(logits, legal)
    assert p[0, 1] == 0 and p[0].sum() == pytest.approx(1) and p[1].sum() == 0


def test_model_file_round_trip(tmp_path: Path) -> None:
    net = Network.for_game(TTT, blocks=1, channels=8, seed=4)
    path = save_network(tmp_path / "m.safetensors", net, state={"iteration": 3})
    back = read_network(path, TTT)
    assert back.state == {"iteration": 3} and back.network.shape == net.shape
    obs = np.stack([TTT.initial().observation()])
    assert np.allclose(back.network.infer(obs)[0], net.infer(obs)[0], atol=1e-6)


def test_truncated_corrupt_and_foreign_files_are_refused(tmp_path: Path, model_dir: str) -> None:
    data = tiny_model(model_dir).read_bytes()
    for cut in (0, 5, 40, len(data) // 2, len(data) - 1):
        (tmp_path / "cut.safetensors").write_bytes(data[:cut])
        with pytest.raises(NetworkFileError):
            read_network(tmp_path / "cut.safetensors", TTT)
    flipped = bytearray(data)
    flipped[12] ^= 0xFF  # inside the JSON header
    (tmp_path / "bad.safetensors").write_bytes(bytes(flipped))
    with pytest.raises(NetworkFileError):
        read_network(tmp_path / "bad.safetensors", TTT)
    (tmp_path / "pickle.safetensors").write_bytes(b"\x80\x04\x95" + b"\0" * 64)
    with pytest.raises(NetworkFileError):
        read_network(tmp_path / "pickle.safetensors")
    with pytest.raises(NetworkMismatchError, match="not connect4"):
        read_network(tiny_model(model_dir), C4)
    with pytest.raises(NetworkMismatchError, match="not connect4:width=8"):
        read_network(tiny_model(model_dir, "connect4"), parse_game("connect4:width=8"))


def _overwrite_a_weight(data: bytes, value: float) -> bytes:
    """``data`` with the first float32 weight overwritten by ``value`` (finite: only a checksum
    tells it from a trained weight)."""
    size = int.from_bytes(data[:8], "little")
    header = json.loads(data[8 : 8 + size])
    name = next(k for k, v in header.items() if k != "__metadata__" and v["dtype"] == "F32")
    at = 8 + size + header[name]["data_offsets"][0]
    return data[:at] + np.float32(value).tobytes() + data[at + 4 :]


def test_a_weight_overwritten_with_a_finite_value_is_refused_by_the_checksum(
    tmp_path: Path, model_dir: str
) -> None:
    data = tiny_model(model_dir).read_bytes()
    (tmp_path / "bad.safetensors").write_bytes(_overwrite_a_weight(data, 0.25))
    with pytest.raises(NetworkFileError, match="do not match the checksum in its metadata"):
        read_network(tmp_path / "bad.safetensors", TTT)
    with pytest.raises(AgentSpecError, match="checksum"):
        make_agent(f"alphazero:model={tmp_path / 'bad.safetensors'}", game=TTT)


def test_a_network_file_without_a_checksum_is_still_read(tmp_path: Path, model_dir: str) -> None:
    """Files written before the checksum existed carry none: they load as before."""
    from safetensors.torch import load, save

    data = tiny_model(model_dir).read_bytes()
    metadata = json.loads(data[8 : 8 + int.from_bytes(data[:8], "little")])["__metadata__"]
    assert digest_problem(data) is None and DIGEST_KEY in metadata
    del metadata[DIGEST_KEY]
    (tmp_path / "old.safetensors").write_bytes(save(load(data), metadata=metadata))
    old = read_network(tmp_path / "old.safetensors", TTT).network
    obs = np.stack([TTT.initial().observation()])
    assert np.array_equal(old.infer(obs)[0], read_network(tiny_model(model_dir), TTT).network.infer(obs)[0])


@pytest.mark.parametrize("game", ["tictactoe", "connect4", "quixo"])
def test_the_shipped_networks_carry_their_checksum_and_pass_it(game: str) -> None:
    from boardlab.models.evalnet import shipped_path
    from boardlab.models.network import read_header

    path = SRC / "models" / f"alphazero-{game}.safetensors"
    data = path.read_bytes()
    metadata = json.loads(data[8 : 8 + int.from_bytes(data[:8], "little")])["__metadata__"]
    assert len(metadata[DIGEST_KEY]) == 64 and digest_problem(data) is None
    assert read_network(path, parse_game(game)).network.shape == read_header(path)[0]
    evalnet = shipped_path(parse_game("quixo").kernel).read_bytes()
    assert DIGEST_KEY in json.loads(evalnet[8 : 8 + int.from_bytes(evalnet[:8], "little")])["__metadata__"]
    assert digest_problem(evalnet) is None


def test_an_evaluation_network_and_an_alphazero_network_are_each_named_for_what_they_are() -> None:
    from boardlab.models.evalnet import shipped_path

    quixo = parse_game("quixo")
    evalnet = shipped_path(quixo.kernel)
    with pytest.raises(AgentSpecError) as refused:
        make_agent(f"alphazero:model={evalnet}", seed=0, game=quixo)
    assert str(refused.value) == (
        f"alphazero: {evalnet} is an evaluation network (alphabeta:eval=net:), not an AlphaZero "
        "network (train one with boardlab train alphazero)"
    )
    alphazero = SRC / "models" / "alphazero-quixo.safetensors"
    with pytest.raises(AgentSpecError) as refused:
        make_agent(f"alphabeta:depth=1,eval=net:{alphazero}", seed=0, game=quixo)
    assert str(refused.value).endswith(
        f"{alphazero} is an AlphaZero network, not an evaluation network (train one with boardlab "
        "train evalnet)"
    )


def test_weights_that_do_not_fit_the_metadata_are_refused(tmp_path: Path, model_dir: str) -> None:
    from safetensors.torch import load, save

    data = tiny_model(model_dir).read_bytes()
    header = json.loads(data[8 : 8 + int.from_bytes(data[:8], "little")])
    tensors = load(data)
    tensors.pop(next(iter(tensors)))
    metadata = {k: v for k, v in header["__metadata__"].items() if k != DIGEST_KEY}  # written by hand
    (tmp_path / "short.safetensors").write_bytes(save(tensors, metadata=metadata))
    with pytest.raises(NetworkFileError, match="do not fit"):
        read_network(tmp_path / "short.safetensors", TTT)


def test_nothing_is_loaded_with_pickle() -> None:
    for name in ("models/network.py", "agents/alphazero.py", "train/alphazero.py", "search/gumbel.py"):
        tree = ast.parse((SRC / name).read_text())
        calls = {ast.unparse(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call)}
        assert not any("pickle" in c or c.endswith("torch.load") for c in calls), name
        for node in ast.walk(tree):
            if isinstance(node, ast.keyword) and node.arg == "allow_pickle":
                assert ast.unparse(node.value) == "False"


# --- the agent ---------------------------------------------------------------------------------


def test_agent_plays_legal_moves_with_policy_and_value(model_dir: str) -> None:
    agent = make_agent(f"alphazero:model={tiny_model(model_dir)},sims=24", seed=1, game=TTT)
    state = TTT.initial()
    while not state.is_over:
        decision = agent.act(state)
        assert state.is_legal(decision.move)
        assert decision.policy is not None and decision.policy.sum() == pytest.approx(1)
        assert decision.policy[~state.legal_mask()].sum() == 0
        assert decision.value is not None and -1 <= decision.value <= 1
        assert decision.info is not None and decision.info.nodes == 24
        state = state.play(decision.move)


def test_agent_takes_a_win_in_one_with_search(model_dir: str) -> None:
    agent = make_agent(f"alphazero:model={tiny_model(model_dir)},sims=200", seed=0, game=TTT)
    state = TTT.parse_position("XX.OO....")  # X to move wins at c3... the top row
    decision = agent.act(state)
    assert state.play(decision.move).status != ONGOING


def test_the_search_values_the_position_for_the_side_to_move(model_dir: str) -> None:
    agent = make_agent(f"alphazero:model={tiny_model(model_dir)},sims=200,proof=0", seed=0, game=TTT)
    decision = agent.act(TTT.parse_position("XX.OO...."))  # X to move wins at once
    assert decision.value is not None and decision.value > 0.5


def test_without_a_budget_the_agent_searches_400_simulations(model_dir: str) -> None:
    decision = make_agent(f"alphazero:model={tiny_model(model_dir)}", seed=0, game=TTT).act(TTT.initial())
    assert decision.info is not None and decision.info.nodes == 400


def test_the_agent_searches_from_its_seed(model_dir: str) -> None:
    spec = f"alphazero:model={tiny_model(model_dir)},sims=16,proof=0"
    moves = [make_agent(spec, seed=seed, game=TTT).act(TTT.initial()).move for seed in range(6)]
    assert len(set(moves)) > 1
    assert [make_agent(spec, seed=seed, game=TTT).act(TTT.initial()).move for seed in range(6)] == moves


def test_a_proved_win_is_the_whole_policy_and_values_one(model_dir: str) -> None:
    agent = make_agent(f"alphazero:model={tiny_model(model_dir)},sims=4,proof=3", seed=0, game=TTT)
    decision = agent.act(TTT.parse_position("XX.OO...."))
    assert decision.info is not None and decision.info.engine == "proof" and decision.value == 1.0
    assert decision.policy is not None and decision.policy.tolist() == [0, 0, 1, 0, 0, 0, 0, 0, 0]
    assert str(decision.move) == "c1"


def test_a_move_that_completes_the_opponent_s_line_loses_and_one_that_wins_does_not() -> None:
    state = parse_game("quixo:size=3").parse_position("O.X.XXOXO O 7")
    agent = make_agent("alphazero:proof=0", seed=0)
    assert state.play_index(1).winner == 0 and agent.loses(state, 1)  # X (player 0) wins
    assert state.play_index(2).winner == 1 and not agent.loses(state, 2)


def test_agent_refuses_a_model_of_another_game(model_dir: str) -> None:
    with pytest.raises(AgentSpecError, match="network for tictactoe, not connect4"):
        make_agent(f"alphazero:model={tiny_model(model_dir)}", game=C4)
    with pytest.raises(AgentSpecError, match="does not exist"):
        make_agent("alphazero:model=/nonexistent/m.safetensors", game=TTT)


def test_a_network_declared_fit_for_the_other_rulebook_plays_it(tmp_path: Path) -> None:
    """``also`` lets a Quixo network play the course rulebook (same board); another board, or a
    game it does not declare, is still refused; the trainer writes ``also`` into the files."""
    from boardlab.train.alphazero import AlphaZeroRun

    official, course = parse_game("quixo:size=4"), parse_game("quixo:size=4,rules=course")
    plain = tmp_path / "plain.safetensors"
    save_network(plain, Network.for_game(official, blocks=1, channels=8, seed=3))
    with pytest.raises(AgentSpecError, match="not quixo:size=4,rules=course"):
        make_agent(f"alphazero:model={plain}", game=course)
    run = AlphaZeroRun.start(official, tiny_params(also="quixo:size=4,rules=course"), seed=1)
    run.save(tmp_path / "run" / "checkpoint.safetensors")
    model = tmp_path / "run" / "model.safetensors"
    resumed = AlphaZeroRun.resume(tmp_path / "run" / "checkpoint.safetensors", official)
    assert resumed.params.also == "quixo:size=4,rules=course"  # the stored settings name it
    for path in (tmp_path / "run" / "checkpoint.safetensors", model):
        assert read_network(path, course).network.shape.also == ("quixo:size=4,rules=course",)
    agent = make_agent(f"alphazero:model={model},sims=16", seed=0, game=course)
    state = course.initial()
    assert state.move_index(agent.act(state).move) in state.legal_indices()
    with pytest.raises(NetworkMismatchError, match="not quixo"):
        read_network(tmp_path / "run" / "model.safetensors", parse_game("quixo"))
    from boardlab.train.alphazero import AlphaZeroParams
    from boardlab.train.run import TrainingError, checked_settings

    with pytest.raises(TrainingError, match="also"):
        checked_settings(AlphaZeroParams, "alphazero", {"also": "quixo:size=9"})


def test_shipped_quixo_network_plays_both_rulebooks_and_beats_random() -> None:
    """``alphazero`` alone on 5x5 Quixo plays the shipped network, under either rulebook (the
    course rulebook through the network's ``also``), and wins every game against random."""
    from boardlab.agents.alphazero import shipped_model
    from boardlab.play.session import Session

    official, course = parse_game("quixo"), parse_game("quixo:rules=course")
    assert shipped_model("quixo") == shipped_model("quixo:rules=course") is not None
    assert shipped_model("quixo:size=4") is None
    for index, game in enumerate((official, course, official, course)):
        seats = [make_agent("alphazero:sims=32", seed=index, game=game), make_agent("random", seed=index)]
        if index % 2:
            seats.reverse()
        session = Session(game.initial(), seats)
        outcome = session.run()
        assert outcome.winner == index % 2, f"game {index} on {game.spec}: {outcome}"


def test_agent_searches_on_its_own_number_of_threads(model_dir: str) -> None:
    import torch

    before = torch.get_num_threads()
    try:
        torch.set_num_threads(2)
        make_agent(f"alphazero:model={tiny_model(model_dir)},sims=4", seed=0, game=TTT).act(TTT.initial())
        assert torch.get_num_threads() == 1  # the default: one thread per searching process
        make_agent(f"alphazero:model={tiny_model(model_dir)},sims=4,threads=2", game=TTT).act(TTT.initial())
        assert torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(before)


def test_agent_raw_policy_is_the_networks_best_move(model_dir: str) -> None:
    path = tiny_model(model_dir)
    agent = make_agent(f"alphazero:model={path},sims=1", seed=0, game=TTT)
    net = read_network(path, TTT).network
    state = TTT.parse_position("X...O....")
    logits, _ = net.infer(state.observation()[None])
    best = int(np.argmax(masked_softmax(logits, state.legal_mask()[None])[0]))
    assert state.move_index(agent.act(state, Limit(iterations=1)).move) == best


def ttt_positions(count: int, seed: int) -> list[Any]:
    """``count`` Tic-Tac-Toe positions, still going, from random games."""
    rng = np.random.default_rng(seed)
    found: list[Any] = []
    while len(found) < count:
        state = TTT.initial()
        while not state.is_over and len(found) < count:
            found.append(state)
            state = state.play_index(int(rng.choice(state.legal_indices())))
    return found


def test_the_proof_search_makes_an_untrained_network_play_perfectly(model_dir: str) -> None:
    # nine plies of alpha-beta see to the end of Tic-Tac-Toe: each move keeps the value, with
    # a network that knows nothing and a search of 4 simulations; without it, it does not
    solution = ttt_solution()
    spec = f"alphazero:model={tiny_model(model_dir)},sims=4"
    proved = make_agent(f"{spec},proof=9", seed=0, game=TTT)
    plain = make_agent(f"{spec},proof=0", seed=0, game=TTT)
    plain_kept = []
    for state in ttt_positions(150, seed=2):
        value = solution.value(state)
        decision = proved.act(state)
        assert -solution.value(state.play(decision.move)) == value, state
        assert (decision.value == 1.0) == (value == 1) and (decision.info.engine == "proof") == (value == 1)
        plain_kept.append(-solution.value(state.play(plain.act(state).move)) == value)
    assert not all(plain_kept)


def test_the_proof_search_stays_out_of_the_way_of_the_network(model_dir: str) -> None:
    # a position where nothing is forced within the proof's plies: the network's move stands
    spec = f"alphazero:model={tiny_model(model_dir)},sims=1"
    state = TTT.parse_position("X...O....")
    proved, plain = (make_agent(f"{spec},proof={p}", seed=0, game=TTT).act(state) for p in (3, 0))
    assert (proved.move, proved.value, proved.info.engine) == (plain.move, plain.value, "alphazero")


def test_a_time_limit_covers_the_proof_searches(model_dir: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # the forced-win search gets a quarter of the time and the check of the move chosen what is
    # left: unlimited, their 6 and 5 plies took 0.07 and 0.02 s a move on 5x5 Quixo, twice a
    # 0.1 s limit; without a time limit they search their plies in full
    agent = make_agent(f"alphazero:model={tiny_model(model_dir)},proof=5", seed=0, game=TTT)
    asked: list[float] = []
    searched = agent.proved

    def proved(state: Any, depth: int, seconds: float = 0.0) -> Any:
        asked.append(seconds)
        return searched(state, depth, seconds)

    monkeypatch.setattr(agent, "proved", proved)
    state = TTT.parse_position("X...O....")  # nothing forced: the tree search's move is checked
    agent.act(state, Limit(time=0.2))
    assert len(asked) == 2 and 0 < asked[0] <= 0.05 and 0 < asked[1] <= 0.2
    asked.clear()
    agent.act(state, Limit(iterations=8))
    assert asked == [0.0, 0.0]


# --- the Gumbel root with known evaluators ----------------------------------------------------


class UniformEvaluator:
    """Uniform priors, value 0 everywhere."""

    def evaluate(self, words: np.ndarray, legal: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return legal.astype(float), np.zeros(len(words))


class ExactEvaluator:
    """Tic-Tac-Toe's perfect-play value, uniform priors."""

    def evaluate(self, words: np.ndarray, legal: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        sol = ttt_solution()
        return legal.astype(float), np.array([float(sol.value((int(a), int(b)))) for a, b in words])


def gumbel(
    position: str, sims: int, evaluator: object, considered: int = 16, noise: bool = False
) -> GumbelSearch:
    state = TTT.parse_position(position)
    search = GumbelSearch(
        TTT.kernel,
        state.a,
        state.b,
        sims,
        GumbelSettings(considered=considered),
        np.random.default_rng(0),
        noise,
    )
    run_gumbel_together([search], evaluator)  # type: ignore[arg-type]
    return search


def test_sequential_halving_visits_with_equal_values() -> None:
    # 9 actions considered, ceil(log2 9) = 4 phases: 9 -> 5 -> 3 -> 2 actions kept;
    # 36 simulations: 1 visit each in phase 1, then the last phases spend what is left
    search = gumbel(".........", 36, UniformEvaluator())
    visits = search.visit_counts()
    assert visits.sum() == 36
    # 9 x 1, then 5 x 1, then 3 x 3 (36 // (4 * 3)), then the 13 left to the 2 kept: 7 and 6;
    # equal scores keep the first actions (a stable order)
    assert visits.tolist() == [12, 11, 5, 2, 2, 1, 1, 1, 1]
    assert search.considered == [0, 1]
    # every q equal: sigma adds nothing, and the target is the prior (uniform)
    assert np.allclose(search.improved_policy(), np.full(9, 1 / 9))


def test_sequential_halving_schedule_with_two_phases() -> None:
    # 4 legal moves, 16 simulations: phase 1 gives 16 // (2 * 4) = 2 visits to each,
    # phase 2 spends the other 8 on the 2 kept (4 each): 2, 2, 6, 6
    search = gumbel("XOXOX....", 16, UniformEvaluator(), noise=False)
    assert sorted(search.visit_counts()[search.legal].tolist()) == [2, 2, 6, 6]


def test_gumbel_finds_the_win_and_its_target_favours_it() -> None:
    # X to move: the top right corner wins at once; the others lose or draw
    search = gumbel("XX.OO....", 16, ExactEvaluator())
    assert search.best() == 2
    target = search.improved_policy()
    assert int(np.argmax(target)) == 2 and target[2] > 0.5
    assert search.value() == 1.0


def test_completed_q_uses_the_mixed_value_for_unvisited_actions() -> None:
    # with 2 considered actions, 7 legal moves are never visited: their completed q is the
    # root value mixed with the prior-weighted q of the visited ones
    search = gumbel("XX.OO....", 4, ExactEvaluator(), considered=2)
    visits = search.visit_counts()
    q = search.completed_q()
    visited = visits > 0
    assert visited.sum() == 2
    root = search.root_value
    mean_q = q[visited].mean()  # uniform priors
    mixed = (root + visits.sum() * mean_q) / (1 + visits.sum())
    assert np.allclose(q[search.legal & ~visited], mixed)


class SkewedExactEvaluator:
    """Tic-Tac-Toe's perfect-play value, priors growing with the action index."""

    def evaluate(self, words: np.ndarray, legal: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        _, values = ExactEvaluator().evaluate(words, legal)
        return legal * np.arange(1.0, legal.shape[1] + 1), values


@pytest.mark.parametrize("seed", range(6))
def test_the_policy_target_and_the_choice_follow_the_paper(seed: int) -> None:
    # recompute Gumbel AlphaZero's formulas from what the search reports, priors not uniform
    state = TTT.parse_position("X...O.X.. O 3")
    settings = GumbelSettings(considered=4)
    search = GumbelSearch(TTT.kernel, state.a, state.b, 12, settings, np.random.default_rng(seed))
    run_gumbel_together([search], SkewedExactEvaluator())  # type: ignore[arg-type]
    legal = search.legal
    logits = np.where(legal, np.log(np.arange(1.0, 10.0)), -np.inf)
    priors = np.where(legal, np.exp(logits), 0.0) / np.exp(logits[legal]).sum()
    visits, q = search.visit_counts(), search.q_values()
    visited = visits > 0
    mean_q = (priors[visited] * q[visited]).sum() / priors[visited].sum()
    mixed = (search.root_value + visits.sum() * mean_q) / (1 + visits.sum())
    completed = np.where(visited, q, np.where(legal, mixed, 0.0))
    np.testing.assert_allclose(search.completed_q(), completed)
    low, high = completed[legal].min(), completed[legal].max()
    assert high > low
    sigma = (settings.c_visit + visits.max()) * settings.c_scale * (completed - low) / (high - low)
    z = np.exp(np.where(legal, logits + sigma, -np.inf) - (logits + sigma)[legal].max())
    np.testing.assert_allclose(search.improved_policy(), z / z.sum())
    scores = {a: search.gumbel[a] + logits[a] + sigma[a] for a in search.considered}
    assert search.best() == max(search.considered, key=scores.__getitem__)


class SkewedUniformEvaluator:
    """Value 0 everywhere, priors growing with the action index."""

    def evaluate(self, words: np.ndarray, legal: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return legal * np.arange(1.0, legal.shape[1] + 1), np.zeros(len(words))


def test_with_equal_values_the_gumbel_noise_and_the_prior_choose() -> None:
    # every q is 0 (no visit reaches the end of a game): sigma adds nothing, and the action
    # played is the one of largest g + logit, which the noise makes another than the likeliest
    logits = np.log(np.arange(1.0, 10.0))
    chosen = []
    for seed in range(8):
        rng = np.random.default_rng(seed)
        search = GumbelSearch(TTT.kernel, 0, 0, 8, GumbelSettings(considered=4), rng)
        run_gumbel_together([search], SkewedUniformEvaluator())  # type: ignore[arg-type]
        assert not search.q_values().any()
        top = np.argsort(-(search.gumbel + logits), kind="stable")
        assert search.best() == int(top[0])
        chosen.append(search.best())
    assert len(set(chosen)) > 1


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 10_000), st.integers(1, 40))
def test_gumbel_spends_its_budget_on_random_positions(seed: int, sims: int) -> None:
    rng = np.random.default_rng(seed)
    state = TTT.initial()
    for _ in range(int(rng.integers(0, 6))):
        if state.is_over:
            break
        state = state.play_index(int(rng.choice(state.legal_indices())))
    if state.is_over:
        return
    search = GumbelSearch(TTT.kernel, state.a, state.b, sims, GumbelSettings(), rng, noise=True)
    run_gumbel_together([search], ExactEvaluator())  # type: ignore[arg-type]
    legal = state.legal_mask()
    target = search.improved_policy()
    assert target.sum() == pytest.approx(1) and target[~legal].sum() == 0
    assert legal[search.best()]
    n_legal = int(legal.sum())
    if min(sims, n_legal) > 1:  # one action considered needs no visit
        assert search.visit_counts().sum() >= min(sims, n_legal)
    # never throws a won position away when the value is exact and every move gets a visit
    if n_legal <= sims and ttt_solution().value(state.words) == WIN:
        after = state.play_index(search.best())
        assert after.status != ONGOING or ttt_solution().value(after.words) != WIN


class HashEvaluator:
    """Priors and values that differ from position to position, a fixed function of the words."""

    def evaluate(self, words: np.ndarray, legal: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        actions = np.arange(legal.shape[1])
        mixed = (words[:, :1] % 1009) * 31 + (words[:, 1:] % 997) * 17 + actions * 7919
        values = ((words[:, 0] * 3 + words[:, 1] * 5) % 201 - 100) / 100.0
        return np.where(legal, mixed % 1000 / 1000 + 0.01, 0.0), values


def c4_gumbel_searches(seed: int, sims: int) -> list[GumbelSearch]:
    rng = np.random.default_rng(seed)
    searches = []
    for plies in (0, 3, 6):
        state = C4.initial()
        for _ in range(plies):
            state = state.play_index(int(rng.choice(state.legal_indices())))
        own = np.random.default_rng(seed + plies)
        searches.append(GumbelSearch(C4.kernel, state.a, state.b, sims, GumbelSettings(considered=4), own))
    return searches


def outcome(search: GumbelSearch) -> tuple[object, ...]:
    size = int(search.search.tree.size[0])
    return (
        search.visit_counts().tolist(),
        search.improved_policy().tolist(),
        search.best(),
        search.value(),
        search.search.tree.visits[:size].tolist(),
    )


@pytest.mark.parametrize("sims", [5, 40])
def test_gumbel_searches_are_the_same_again_and_alone_as_together(sims: int) -> None:
    together = c4_gumbel_searches(11, sims)
    run_gumbel_together(together, HashEvaluator())
    again = c4_gumbel_searches(11, sims)
    run_gumbel_together(again, HashEvaluator())
    alone = c4_gumbel_searches(11, sims)
    for search in alone:
        run_gumbel_together([search], HashEvaluator())
    for a, b, c in zip(together, again, alone, strict=True):
        assert a.used >= sims and outcome(a) == outcome(b) == outcome(c)
    other = c4_gumbel_searches(12, sims)  # another seed, other Gumbel noise
    run_gumbel_together(other, HashEvaluator())
    assert [outcome(s) for s in other] != [outcome(s) for s in together]


# --- symmetry augmentation -------------------------------------------------------------------


@settings(max_examples=20, deadline=None)
@given(st.sampled_from(["tictactoe", "connect4"]), st.integers(0, 10_000))
def test_augmentation_moves_planes_and_policies_with_the_actions(spec: str, seed: int) -> None:
    from boardlab.train.alphazero import augment

    game = parse_game(spec)
    kernel = game.kernel
    rng = np.random.default_rng(seed)
    state = game.initial()
    for _ in range(int(rng.integers(0, 8))):
        if state.is_over:
            break
        state = state.play_index(int(rng.choice(state.legal_indices())))
    if state.is_over:
        return
    policy = rng.random(kernel.num_actions) * state.legal_mask()
    syms = np.arange(kernel.num_symmetries)
    n = len(syms)
    obs, (policies, masks) = augment(
        kernel,
        np.repeat(state.observation()[None], n, 0),
        [np.tile(policy, (n, 1)), np.tile(state.legal_mask(), (n, 1))],
        syms,
    )
    for s in syms:
        image = state.transform(int(s))
        assert np.array_equal(obs[s], image.observation())
        assert np.array_equal(masks[s], image.legal_mask())
        # the probability of an action moves to the action's image
        for action in state.legal_indices():
            assert policies[s, kernel.action_maps[s, action]] == policy[action]


# --- the trainer ---------------------------------------------------------------------------------


def tiny_params(**overrides: object) -> object:
    from boardlab.train.alphazero import AlphaZeroParams

    values = dict(
        blocks=1,
        channels=16,
        games=24,
        parallel=12,
        sims=12,
        fast_sims=4,
        full_share=0.5,
        reuse=12.0,
        lr=0.005,
        versus_games=0,
        eval_sims=8,
        eval_positions=150,
        workers=1,
        hours=1.0,
    )
    values.update(overrides)
    return AlphaZeroParams(**values)  # type: ignore[arg-type]


def weights_of(run: object) -> dict[str, np.ndarray]:
    from boardlab.train.alphazero import optimizer_tensors

    net = {k: v.numpy().copy() for k, v in run.network.weights().items()}  # type: ignore[attr-defined]
    opt = {"opt." + k: v.numpy().copy() for k, v in optimizer_tensors(run.optimizer).items()}  # type: ignore[attr-defined]
    return net | opt


def test_short_tictactoe_run_lowers_the_loss_and_raises_solver_accuracy(tmp_path: Path) -> None:
    from boardlab.train.alphazero import AlphaZeroRun, read_shard

    run = AlphaZeroRun.start(TTT, tiny_params(), seed=5)
    run.save(tmp_path / "checkpoint.safetensors")
    first = run.evaluate([], 0)
    run.step(1)
    shard = read_shard(next((tmp_path / "replay").glob("it000000-*.npz")), 9)
    before = fixed_loss(run, shard)
    for _ in range(3):
        run.step(1)
    after = fixed_loss(run, shard)
    last = [r for r in run.curve if r["opponent"] == "solver"][-1]
    assert after < before
    assert last["raw_accuracy"] > first[0]["raw_accuracy"]
    assert run.progress == 4 and len(run.state["history"]) == 4
    assert 0 < run.clock_share() < 1 and not run.finished  # the bar fills with the hours used


def test_the_solver_accuracy_line_of_the_summary_reads_plainly() -> None:
    from boardlab.train.alphazero import AlphaZeroRun

    run = AlphaZeroRun.start(TTT, tiny_params(), seed=5)
    run.prepare()  # judges every reachable position
    accuracy = {"raw_accuracy": 0.9, "search_accuracy": 0.95, "raw_judged": 4520, "search_judged": 150}
    run.curve.append(
        {"epoch": 1, "episode": 1, "opponent": "solver", "hours": 0.1, "positions": 4520} | accuracy
    )
    assert run.report_lines()[0] == (
        "Moves keeping the perfect-play value: raw policy 90.0%, with 8 simulations 95.0%; judged on 4,520 "
        "positions: every reachable position (search: a sample)."
    )  # a thousands separator, and no parentheses within parentheses


def fixed_loss(run: object, data: dict[str, np.ndarray]) -> float:
    """Policy cross-entropy + value squared error of the network on fixed positions."""
    from boardlab.games.base import observe_batch

    net = run.network  # type: ignore[attr-defined]
    logits, values = net.infer(observe_batch(TTT.kernel, data["words"]))
    p = masked_softmax(logits, data["legal"])
    cross = -(data["policy"] * np.log(np.maximum(p, 1e-12))).sum(1)
    return float(
        (cross * data["full"]).sum() / max(data["full"].sum(), 1) + ((values - data["value"]) ** 2).mean()
    )


def test_resume_continues_exactly(tmp_path: Path) -> None:
    from boardlab.train.alphazero import AlphaZeroRun

    params = tiny_params(games=12, eval_positions=20)
    straight = AlphaZeroRun.start(TTT, params, seed=9)
    straight.save(tmp_path / "a" / "checkpoint.safetensors")
    straight.step(1)
    straight.step(1)

    first = AlphaZeroRun.start(TTT, params, seed=9)
    first.save(tmp_path / "b" / "checkpoint.safetensors")
    first.step(1)
    first.save(tmp_path / "b" / "checkpoint.safetensors")
    resumed = AlphaZeroRun.resume(tmp_path / "b" / "checkpoint.safetensors", TTT)
    resumed.step(1)

    a, b = weights_of(straight), weights_of(resumed)
    assert a.keys() == b.keys()
    assert all(np.array_equal(a[k], b[k]) for k in a)
    untimed = [
        [{k: v for k, v in r.items() if k != "hours"} for r in run.curve] for run in (straight, resumed)
    ]
    assert untimed[0] == untimed[1]
    assert [h["policy_loss"] for h in straight.state["history"]] == [
        h["policy_loss"] for h in resumed.state["history"]
    ]


def test_a_resumed_run_trains_on_with_a_lower_learning_rate(tmp_path: Path) -> None:
    from boardlab.train.alphazero import AlphaZeroRun
    from boardlab.ui.train import plan_command

    params = tiny_params(games=12, eval_positions=20)
    straight = AlphaZeroRun.start(TTT, params, seed=9)
    straight.save(tmp_path / "a" / "checkpoint.safetensors")
    straight.step(1)
    straight.save(tmp_path / "a" / "checkpoint.safetensors")
    shutil.copytree(tmp_path / "a", tmp_path / "b")
    straight.step(1)
    options = dict(out=tmp_path / "b", game="tictactoe", episodes=None, epochs=None, resume=True, force=False)
    options |= dict(seed=None, eval_every=None, eval_games=None, final_games="0", against="", hyper=None)
    dropped = plan_command("alphazero", options, ["--lr", str(params.lr / 10)]).run
    assert dropped.params.lr == params.lr / 10 and dropped.progress == 1
    dropped.step(1)  # type: ignore[attr-defined]
    assert [h["lr"] for h in dropped.state["history"]] == [params.lr, params.lr / 10]  # type: ignore[attr-defined]
    assert all(group["lr"] == params.lr / 10 for group in dropped.optimizer.param_groups)  # type: ignore[attr-defined]
    a, b = weights_of(straight), weights_of(dropped)
    assert any(not np.array_equal(a[k], b[k]) for k in a)  # the same data, a smaller step


def _address_where_nothing_answers() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"127.0.0.1:{sock.getsockname()[1]}"


def _resume_options(out: Path) -> dict[str, Any]:
    options = dict(out=out, game="tictactoe", episodes=None, epochs=None, resume=True, force=False)
    options |= dict(seed=None, eval_every=None, eval_games=None, final_games="0", against="", hyper=None)
    return options


@pytest.mark.timeout(120)
def test_a_run_saved_on_a_cluster_resumes_where_the_command_line_says(tmp_path: Path) -> None:
    """The backend and address given to a resumed run win over the saved ones; a plain resume
    keeps the saved cluster, and when it does not answer the error says how to run elsewhere."""
    from boardlab.train.alphazero import AlphaZeroRun
    from boardlab.ui.train import UsageProblem, plan_command

    gone = _address_where_nothing_answers()
    saved = AlphaZeroRun.start(TTT, tiny_params(backend="ray", address=gone), seed=2)
    saved.save(tmp_path / "checkpoint.safetensors")
    options = _resume_options(tmp_path)
    with pytest.raises(UsageProblem, match=f"no Ray cluster answers at {gone}") as plain:
        plan_command("alphazero", options, [])
    assert "--backend local" in str(plain.value)
    other = _address_where_nothing_answers()
    with pytest.raises(UsageProblem, match=f"no Ray cluster answers at {other}") as moved:
        plan_command("alphazero", options, ["--address", other])  # the saved ray backend, elsewhere
    assert gone not in str(moved.value)
    here = plan_command("alphazero", options, ["--backend", "local"]).run
    try:
        assert (here.params.backend, here.params.address) == ("local", "")
        here.save(tmp_path / "checkpoint.safetensors")
    finally:
        here.close()
    again = plan_command("alphazero", options, []).run  # the backend it was last resumed with
    again.close()
    assert (again.params.backend, again.params.address) == ("local", "")


def test_a_backend_given_to_a_resumed_run_takes_its_own_address() -> None:
    from boardlab.train import method
    from boardlab.train.run import resumed_settings

    az = method("alphazero")
    saved = tiny_params(backend="ray", address="10.0.0.1:6379", workers=3)

    def resumed(**given: object) -> tuple[str, str, int]:
        params = resumed_settings(saved, tiny_params(**given), given, az.free, az.follows)
        return params.backend, params.address, params.workers  # type: ignore[attr-defined]

    assert resumed() == ("ray", "10.0.0.1:6379", 3)
    assert resumed(backend="local") == ("local", "", 3)
    assert resumed(backend="ray") == ("ray", "", 3)  # a local Ray instance, as on a fresh run
    assert resumed(address="10.0.0.2:6379") == ("ray", "10.0.0.2:6379", 3)
    assert resumed(backend="ray", address="10.0.0.2:6379", workers=1) == ("ray", "10.0.0.2:6379", 1)


def test_resume_refuses_a_plain_model_and_another_game(tmp_path: Path, model_dir: str) -> None:
    from boardlab.models.table import ModelFileError
    from boardlab.train.alphazero import AlphaZeroRun

    with pytest.raises(ModelFileError, match="not a training checkpoint"):
        AlphaZeroRun.resume(tiny_model(model_dir), TTT)
    with pytest.raises(ModelFileError, match="not connect4"):
        AlphaZeroRun.resume(tiny_model(model_dir), C4)


@pytest.mark.parametrize(
    ("field", "bad"),
    [
        ("iteration", "x"),  # the driver reads it as the progress
        ("seed", None),
        ("train_seconds", []),
        ("games", -1),
        ("history", [{"epoch": 1, "hours": 0.1, "policy_loss": 1.0}]),  # the losses plot reads value_loss
        ("curve", [{"epoch": 1, "episode": 0, "opponent": "elo", "hours": 0.1}]),  # the Elo plot reads elo
        ("curve", [{"epoch": 1, "episode": 0, "hours": 0.1, "raw_accuracy": 0.5}]),  # no opponent
    ],
)
def test_resume_refuses_a_checkpoint_whose_state_is_damaged(tmp_path: Path, field: str, bad: Any) -> None:
    """The counters, history and curve of the saved state are checked when the run is resumed,
    so that a damaged field is one line, not a crash in the progress bar or the plots."""
    from boardlab.models.table import ModelFileError
    from boardlab.train import method
    from boardlab.train.alphazero import AlphaZeroRun
    from boardlab.train.run import resume_run

    run = AlphaZeroRun.start(TTT, tiny_params(), seed=0)
    run.state[field] = bad
    path = run.save(tmp_path / "checkpoint.safetensors")
    with pytest.raises(ModelFileError, match="checkpoint"):
        resume_run(method("alphazero"), path, TTT).close()


def test_cli_refuses_a_damaged_checkpoint_on_one_line(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from boardlab.ui.cli import app

    (tmp_path / "checkpoint.safetensors").write_bytes(b"\x10\0\0\0\0\0\0\0{not json")
    result = CliRunner().invoke(app, ["train", "alphazero", "--out", str(tmp_path), "--resume"])
    assert result.exit_code == 2
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and "checkpoint.safetensors is truncated or not a safetensors file" in lines[0]


def test_without_the_benchmark_sets_connect4_judges_positions_of_random_games(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from boardlab.games.connect4.solver import Solver
    from boardlab.train.alphazero import judged_positions

    monkeypatch.setenv("BOARDLAB_CONNECT4_DATA", str(tmp_path / "missing"))
    judged = judged_positions(C4, 8, 0)
    assert judged is not None and 1 <= len(judged) <= 8
    assert judged.source.startswith("random games") and str(tmp_path / "missing") in judged.source
    assert "BOARDLAB_CONNECT4_DATA" in judged.source  # how to point an installed package at them
    solver = Solver(7, 6)
    for (a, b), sign in zip(judged.words, judged.signs, strict=True):
        state = C4.state(int(a), int(b), 0, 0)
        assert not state.is_over
        assert solver.solve(state, weak=True) == sign


def test_connect4_positions_are_judged_like_the_solvers_analysis() -> None:
    from boardlab.games.connect4.solver import Solver, benchmark_sets_folder
    from boardlab.train.alphazero import judged_positions

    if not benchmark_sets_folder().is_dir():
        pytest.fail(f"the Connect Four benchmark sets are missing: {benchmark_sets_folder()}")
    judged = judged_positions(C4, 6, 0)  # two positions of each set
    assert judged is not None and len(judged) == 6
    solver = Solver(7, 6)
    for index in (2, 3):  # Middle-Easy: solved at once
        a, b = judged.words[index]
        state = C4.state(int(a), int(b), 0, 0)
        scores = solver.analyze(state)
        best = np.sign(max(s for s in scores if s is not None))
        for action in state.legal_indices():
            assert judged.judge(index, action) == (np.sign(scores[action]) == best)


def test_agent_refuses_a_truncated_model_on_one_line(tmp_path: Path, model_dir: str) -> None:
    data = tiny_model(model_dir).read_bytes()
    (tmp_path / "cut.safetensors").write_bytes(data[: len(data) - 100])
    with pytest.raises(AgentSpecError) as caught:
        make_agent(f"alphazero:model={tmp_path / 'cut.safetensors'}", game=TTT)
    assert "\n" not in str(caught.value) and "cut.safetensors" in str(caught.value)


def selfplay_games_of(full_share: float, seed: int) -> tuple[list[dict[str, np.ndarray]], int]:
    """Tic-tac-toe self-play games of a tiny network, split into games (each starts on the empty
    board), and the number of positions the network evaluated."""
    from boardlab.train.alphazero import selfplay_games

    evaluator = Network.for_game(TTT, blocks=1, channels=8, seed=seed).evaluator(TTT.kernel)
    data = selfplay_games(TTT, evaluator, tiny_params(full_share=full_share), seed, 6)
    a0, b0 = TTT.initial_words()
    starts = [int(i) for i in np.flatnonzero((data["words"][:, 0] == a0) & (data["words"][:, 1] == b0))]
    assert starts[0] == 0 and len(starts) == 6
    bounds = [*starts, len(data["value"])]
    games = [{k: v[s:e] for k, v in data.items()} for s, e in itertools.pairwise(bounds)]
    return games, evaluator.positions


@pytest.mark.parametrize("seed", [0, 1])
def test_selfplay_values_are_the_final_result_from_each_movers_side(seed: int) -> None:
    games, _ = selfplay_games_of(0.5, seed)
    for game in games:
        values, plies = game["value"], len(game["value"])
        # the last mover of tic-tac-toe wins, or fills the board for a draw
        assert values[-1] == 1.0 or (values[-1] == 0.0 and plies == 9)
        assert np.array_equal(values[:-1], -values[1:])
        assert np.all(game["policy"][~game["legal"]] == 0)
        assert np.allclose(game["policy"].sum(1), 1.0, atol=1e-5)


@pytest.mark.parametrize("share", [0.0, 1.0])
def test_playout_cap_randomisation_marks_and_limits_the_fast_searches(share: float) -> None:
    games, evaluated = selfplay_games_of(share, 3)
    full = np.concatenate([g["full"] for g in games])
    assert np.all(full == (share == 1.0))
    params = tiny_params()
    budget = params.sims if share == 1.0 else params.fast_sims  # type: ignore[attr-defined]
    assert evaluated <= len(full) * (budget + 1)
    if share == 0.0:
        assert evaluated < len(full) * (params.sims)  # type: ignore[attr-defined]


def test_the_replay_window_holds_the_last_window_iterations(tmp_path: Path) -> None:
    from boardlab.train.alphazero import AlphaZeroRun, write_shard

    run = AlphaZeroRun.start(TTT, tiny_params(window=3), seed=0)
    run.attach(tmp_path)
    for it in range(6):
        for chunk in range(2):
            n = 1 + chunk
            write_shard(
                tmp_path / "replay" / f"it{it:06d}-{chunk:04d}.npz",
                {
                    "words": np.zeros((n, 2), np.int64),
                    "legal": np.ones((n, 9), np.bool_),
                    "policy": np.full((n, 9), 1 / 9, np.float32),
                    "value": np.full(n, it, np.float32),
                    "full": np.ones(n, np.bool_),
                },
            )
    assert sorted(set(run.window(4)["value"].tolist())) == [2.0, 3.0, 4.0]
    assert run.window(4)["value"].tolist() == [2.0] * 3 + [3.0] * 3 + [4.0] * 3
    assert sorted(set(run.window(1)["value"].tolist())) == [0.0, 1.0]


def test_replay_keeps_only_the_shards_of_the_window(tmp_path: Path) -> None:
    """Shards older than the window are deleted once an iteration's shards are written; a run
    resumed at any iteration trains on the same window, so it still continues exactly."""
    from boardlab.train.alphazero import AlphaZeroRun

    params = tiny_params(window=2, games=4, parallel=2, eval_positions=0)
    straight = AlphaZeroRun.start(TTT, params, seed=4)
    straight.save(tmp_path / "a" / "checkpoint.safetensors")
    for _ in range(3):
        straight.step(1)
    kept = sorted(p.name for p in (tmp_path / "a" / "replay").iterdir())
    assert kept == [f"it{it:06d}-{chunk:04d}.npz" for it in (1, 2) for chunk in (0, 1)]
    stopped = AlphaZeroRun.start(TTT, params, seed=4)
    stopped.save(tmp_path / "b" / "checkpoint.safetensors")
    for _ in range(2):
        stopped.step(1)
    stopped.save(tmp_path / "b" / "checkpoint.safetensors")
    resumed = AlphaZeroRun.resume(tmp_path / "b" / "checkpoint.safetensors", TTT)
    resumed.step(1)
    a, b = weights_of(straight), weights_of(resumed)
    assert all(np.array_equal(a[k], b[k]) for k in a)
    assert sorted(p.name for p in (tmp_path / "b" / "replay").iterdir()) == kept


@pytest.mark.parametrize(
    ("key", "shape"), [("policy", (3, 8)), ("legal", (3, 10)), ("words", (3,)), ("full", (2,))]
)
def test_a_replay_shard_with_a_column_of_the_wrong_shape_is_refused(
    tmp_path: Path, key: str, shape: tuple[int, ...]
) -> None:
    from boardlab.models.table import ModelFileError
    from boardlab.train.alphazero import read_shard, write_shard

    data = {
        "words": np.zeros((3, 2), np.int64),
        "legal": np.ones((3, 9), np.bool_),
        "policy": np.zeros((3, 9), np.float32),
        "value": np.zeros(3, np.float32),
        "full": np.ones(3, np.bool_),
    }
    data[key] = np.zeros(shape, data[key].dtype)
    path = write_shard(tmp_path / "shard.npz", data)
    with pytest.raises(ModelFileError, match=key):
        read_shard(path, 9)


@pytest.mark.parametrize("damage", ["nan", "shape", "version"])
def test_weights_that_are_not_finite_or_misshapen_and_other_versions_are_refused(
    tmp_path: Path, model_dir: str, damage: str
) -> None:
    import torch
    from safetensors.torch import load, save

    data = tiny_model(model_dir).read_bytes()
    metadata = json.loads(data[8 : 8 + int.from_bytes(data[:8], "little")])["__metadata__"]
    metadata.pop(DIGEST_KEY)  # a file written by hand, without the checksum: the checks go on
    tensors = load(data)
    name = next(k for k, v in tensors.items() if v.is_floating_point() and v.dim() >= 2)
    if damage == "nan":
        tensors[name] = tensors[name].clone()
        tensors[name].view(-1)[0] = float("nan")
    elif damage == "shape":
        tensors[name] = torch.zeros((*tensors[name].shape[:-1], tensors[name].shape[-1] + 1))
    else:
        meta = json.loads(metadata["boardlab"])
        metadata["boardlab"] = json.dumps({**meta, "version": meta["version"] + 1})
    (tmp_path / "bad.safetensors").write_bytes(save(tensors, metadata=metadata))
    message = {"nan": "not finite", "shape": "has shape", "version": "version"}[damage]
    with pytest.raises(NetworkFileError, match=message):
        read_network(tmp_path / "bad.safetensors", TTT)


def test_self_play_stops_at_the_ply_cap_with_a_draw(monkeypatch: pytest.MonkeyPatch) -> None:
    from boardlab.train import alphazero

    monkeypatch.setattr(alphazero, "max_plies", lambda game: 3)  # no tic-tac-toe game is over so soon
    games, _ = selfplay_games_of(0.5, 2)
    assert all(len(g["value"]) == 3 and not g["value"].any() for g in games)


@pytest.mark.parametrize("full", [False, True])
def test_only_the_fully_searched_positions_train_the_policy(tmp_path: Path, full: bool) -> None:
    from boardlab.train.alphazero import AlphaZeroRun, write_shard

    run = AlphaZeroRun.start(TTT, tiny_params(window=1), seed=0)
    run.attach(tmp_path)
    a0, b0 = TTT.initial_words()
    n = 8
    write_shard(
        tmp_path / "replay" / "it000000-0000.npz",
        {
            "words": np.tile(np.array([a0, b0], np.int64), (n, 1)),
            "legal": np.ones((n, 9), np.bool_),
            "policy": np.full((n, 9), 1 / 9, np.float32),
            "value": np.zeros(n, np.float32),
            "full": np.full(n, full, np.bool_),
        },
    )
    losses = run.train_iteration(0, n)
    assert (losses["policy_loss"] > 0) == full


# --- temperature -----------------------------------------------------------------------------------


class _Visits:
    """A finished search whose root children are ``visits`` (moves 0, 1, ...)."""

    def __init__(self, visits: list[int]) -> None:
        self.tree = self
        self.visits = np.array(visits)

    def root_children(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        return np.arange(len(self.visits)), self.visits, np.zeros(len(self.visits))


@pytest.mark.parametrize(("temperature", "share"), [(1.0, 0.75), (0.5, 0.9)])
def test_temperature_draws_moves_by_their_visits_to_the_power_one_over_it(
    temperature: float, share: float
) -> None:
    agent = make_agent(f"alphazero:temperature={temperature}", seed=5)
    draws = [agent.drawn(TTT.initial(), _Visits([0, 1, 3])) for _ in range(4000)]
    assert 0 not in draws  # a move never visited is never drawn
    assert draws.count(2) / len(draws) == pytest.approx(share, abs=0.02)


def test_temperature_draws_only_in_the_first_temp_plies() -> None:
    agent = make_agent("alphazero:temperature=1,temp_plies=2", seed=0)
    assert agent.drawn(TTT.parse_position("X...O...."), _Visits([1, 1])) is None  # ply 2
    assert agent.drawn(TTT.parse_position("X........"), _Visits([1, 1])) is not None
    assert make_agent("alphazero", seed=0).drawn(TTT.initial(), _Visits([1, 1])) is None


def test_a_drawn_move_that_loses_at_once_is_not_played(model_dir: str) -> None:
    # O to move must block c1; at a temperature of 100 the draw is near uniform, and the check
    # for a forced loss turns every other move down (without it, the draw plays them)
    state = TTT.parse_position("XX.O.....")
    spec = f"alphazero:model={tiny_model(model_dir)},sims=32,temperature=100"
    checked = {str(make_agent(f"{spec},proof=3", seed=s, game=TTT).act(state).move) for s in range(12)}
    unchecked = {str(make_agent(f"{spec},proof=0", seed=s, game=TTT).act(state).move) for s in range(12)}
    assert checked == {"c1"}
    assert len(unchecked) > 2
