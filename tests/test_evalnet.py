"""The value network inside alpha-beta: file format, compiled forward pass, search, trainer."""

from __future__ import annotations

import itertools
import json
import struct
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from boardlab.agents.base import AgentSpecError, make_agent
from boardlab.agents.decision import Limit
from boardlab.games import parse_game
from boardlab.games.base import LOSS, ONGOING
from boardlab.games.base import WIN as WON
from boardlab.games.quixo.kernel import kernel as quixo_kernel
from boardlab.models.digest import DIGEST_KEY
from boardlab.models.evalnet import (
    EvalNet,
    EvalNetError,
    evalnet_from_bytes,
    forward_batch,
    load_evalnet,
    net_evaluation,
    safetensors_bytes,
    word_features,
)
from boardlab.models.table import ModelFileError
from boardlab.search.alphabeta import WIN, SearchRunner
from boardlab.train import evalnet as trainer
from boardlab.train.evalnet import EvalNetRun, EvalNetSettings

KERNEL = quixo_kernel(5)


def random_positions(count: int, seed: int, cells: int = 25) -> tuple[np.ndarray, np.ndarray]:
    """Random boards: each cell blank, the mover's or the opponent's."""
    owner = np.random.default_rng(seed).integers(0, 3, (count, cells))
    weights = 1 << np.arange(cells, dtype=np.int64)
    return (owner == 1) @ weights, (owner == 2) @ weights


def random_net(
    seed: int = 0, hidden: tuple[int, int] = (16, 8), scale: float = 100.0, base: str = ""
) -> EvalNet:
    model = trainer.torch_model(50, *hidden, seed)
    return EvalNet(
        "quixo", 5, ("official",), ("quixo5",), 25, scale=scale, base=base, **trainer.model_tensors(model)
    )


@pytest.fixture(scope="module")
def net_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return random_net(3).save(tmp_path_factory.mktemp("net") / "net.safetensors")


@pytest.fixture(scope="module")
def base_net_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A network correcting tuned."""
    return random_net(4, base="tuned").save(tmp_path_factory.mktemp("net") / "base.safetensors")


# --- the forward pass --------------------------------------------------------------------------


def test_compiled_forward_equals_pytorch() -> None:
    torch = pytest.importorskip("torch")
    model = trainer.torch_model(50, 20, 5, seed=1)
    with torch.no_grad():  # push some units past the clips, so that both ends are exercised
        model.l1.bias.uniform_(-1.0, 1.5)
        model.l2.bias.uniform_(-1.0, 1.5)
    net = EvalNet("quixo", 5, ("official",), ("quixo5",), 25, **trainer.model_tensors(model))
    me, opp = random_positions(500, seed=2)
    with torch.no_grad():
        expected = model(torch.from_numpy(word_features(me, opp, 25))).numpy()
    compiled = forward_batch(*net.compiled(), me, opp)
    np.testing.assert_allclose(compiled, expected, atol=1e-5)
    np.testing.assert_allclose(net.logits(me, opp), expected, atol=1e-5)


def test_word_features_are_the_observation_planes() -> None:
    me, opp = random_positions(20, seed=4)
    out = np.zeros(KERNEL.obs_shape, dtype=np.float32)
    features = word_features(me, opp, 25)
    for i in range(len(me)):
        KERNEL.observe(KERNEL.ctx, np.int64(me[i]), np.int64(opp[i]), out)
        np.testing.assert_array_equal(out.reshape(-1), features[i])


# --- symmetry augmentation ---------------------------------------------------------------------


@given(st.integers(0, 2**32 - 1), st.integers(0, 7))
@settings(max_examples=60, deadline=None)
def test_symmetric_words_match_the_kernel(seed: int, sym: int) -> None:
    me, opp = random_positions(4, seed)
    mine = trainer.symmetric_words(KERNEL, me, sym)
    theirs = trainer.symmetric_words(KERNEL, opp, sym)
    for i in range(len(me)):
        a, b = KERNEL.symmetry(KERNEL.ctx, np.int64(me[i]), np.int64(opp[i]), sym)
        assert (mine[i], theirs[i]) == (a, b)


def test_augmentation_keeps_values_and_labels() -> None:
    me, opp = random_positions(30, seed=5)
    labels = np.linspace(0, 1, 30, dtype=np.float32)
    a, b, y = trainer.augmented(KERNEL, me, opp, labels)
    assert len(a) == 8 * 30 and np.array_equal(y, np.tile(labels, 8))
    # a symmetric image has the same tuned value (an evaluation blind to the board's orientation)
    tuned = trainer.evaluation_logits(KERNEL, a, b, 1.0).reshape(8, 30)
    np.testing.assert_allclose(tuned, np.tile(tuned[0], (8, 1)))


def test_targets_mix_result_and_search_score() -> None:
    result = np.array([1.0, 0.0, 0.5, 0.5, 1.0], dtype=np.float32)
    score = np.array([0.0, np.nan, 100.0, WIN - 3, -(WIN - 5)], dtype=np.float32)
    t = trainer.targets(result, score, distill=0.5, scale=100.0)
    np.testing.assert_allclose(t, [0.75, 0.0, 0.25 + 0.5 / (1 + np.exp(-1)), 0.75, 0.5], rtol=1e-6)


# --- the file format ---------------------------------------------------------------------------


def test_round_trip_and_safetensors_compatible(net_file: Path) -> None:
    net = load_evalnet(net_file)
    again = random_net(3)
    for name, array in again.tensors().items():
        np.testing.assert_array_equal(net.tensors()[name], array)
    assert net.kernels == ("quixo5",) and net.layers == (50, 16, 8, 1)
    safetensors_numpy = pytest.importorskip("safetensors.numpy")
    loaded = safetensors_numpy.load_file(str(net_file))
    np.testing.assert_array_equal(loaded["w1"], again.w1)


def test_the_file_holds_no_pickle(net_file: Path) -> None:
    data = net_file.read_bytes()
    (size,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8 : 8 + size])
    meta = json.loads(header["__metadata__"]["boardlab"])
    assert meta["game"] == "quixo" and meta["size"] == 5 and meta["layers"] == [50, 16, 8, 1]
    assert b"\x80\x04" not in data[:2]  # not a pickle stream


@pytest.mark.parametrize(
    "damage",
    ["truncated", "empty", "header", "flipped", "extra", "metadata", "shape", "nan", "dtype"],
)
def test_damaged_files_are_refused(net_file: Path, damage: str) -> None:
    data = net_file.read_bytes()
    net = random_net(3)
    meta = {"boardlab": json.dumps(net.metadata())}
    tensors = net.tensors()
    if damage == "truncated":
        data = data[:-7]
    elif damage == "empty":
        data = b""
    elif damage == "header":
        data = struct.pack("<Q", 10**9) + data[8:]
    elif damage == "flipped":
        data = data[:20] + bytes([data[20] ^ 0x55]) + data[21:]
    elif damage == "extra":
        data = data + b"\0\0\0\0"
    elif damage == "metadata":
        data = safetensors_bytes(tensors, {"boardlab": "{not json"})
    elif damage == "shape":
        tensors["w2"] = tensors["w2"][:, :4]
        data = safetensors_bytes(tensors, meta)
    elif damage == "nan":
        tensors["b1"][0] = np.nan
        data = safetensors_bytes(tensors, meta)
    elif damage == "dtype":
        data = data.replace(b'"F32"', b'"F64"', 1)
    with pytest.raises(EvalNetError):
        evalnet_from_bytes(data, "net.safetensors")


def test_a_weight_overwritten_with_a_finite_value_is_refused_by_the_checksum(net_file: Path) -> None:
    data = net_file.read_bytes()
    (size,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8 : 8 + size])
    at = 8 + size + header["b1"]["data_offsets"][0]
    damaged = data[:at] + np.float32(0.125).tobytes() + data[at + 4 :]
    with pytest.raises(EvalNetError, match="do not match the checksum in its metadata"):
        evalnet_from_bytes(damaged, "net.safetensors")
    del header["__metadata__"][DIGEST_KEY]  # a file written before the checksum: read as before
    text = json.dumps(header).encode()
    unchecked = struct.pack("<Q", len(text)) + text + data[8 + size :]
    np.testing.assert_array_equal(evalnet_from_bytes(unchecked, "old.safetensors").b1, random_net(3).b1)


def test_wrong_board_and_missing_files_are_refused_in_one_line(net_file: Path, tmp_path: Path) -> None:
    with pytest.raises(AgentSpecError, match="not quixo4"):
        make_agent(f"alphabeta:depth=1,eval=net:{net_file}", game=parse_game("quixo:size=4"))
    with pytest.raises(AgentSpecError, match="does not exist"):
        make_agent(f"alphabeta:depth=1,eval=net:{tmp_path / 'none.safetensors'}", game=parse_game("quixo"))
    (tmp_path / "bad.safetensors").write_bytes(b"\x08" + b"\0" * 7 + b"garbage!")
    with pytest.raises(AgentSpecError) as error:
        make_agent(f"alphabeta:depth=1,eval=net:{tmp_path / 'bad.safetensors'}", game=parse_game("quixo"))
    assert "\n" not in str(error.value)
    with pytest.raises(AgentSpecError, match="no network is shipped"):
        make_agent("alphabeta:depth=1,eval=net", game=parse_game("tictactoe"))
    with pytest.raises(AgentSpecError, match="no network file after 'net:'"):  # not the shipped one
        make_agent("alphabeta:depth=1,eval=net:", game=parse_game("quixo"))


# --- the search ----------------------------------------------------------------------------------


def naive_negamax(
    net: EvalNet, me: int, opp: int, depth: int, ply: int, path: list[tuple[int, int]]
) -> float:
    """Plain negamax with the network's numpy forward at the leaves and the search's scores
    for finished and repeated positions (draws at contempt 0)."""
    if ply > 0:
        state = KERNEL.status(KERNEL.ctx, np.int64(me), np.int64(opp))
        if state != ONGOING:
            return float(state * (WIN - ply))
        if (me, opp) in path[-3::-2]:
            return 0.0
    if depth == 0:
        return float(net.logits(np.array([me]), np.array([opp]), KERNEL)[0]) * net.scale
    moves = np.empty(KERNEL.num_actions, dtype=np.int64)
    best = -np.inf
    for m in moves[: KERNEL.gen_moves(KERNEL.ctx, np.int64(me), np.int64(opp), moves)]:
        a, b = KERNEL.play(KERNEL.ctx, np.int64(me), np.int64(opp), m)
        best = max(best, -naive_negamax(net, int(a), int(b), depth - 1, ply + 1, [*path, (me, opp)]))
    return best


def child_values(net: EvalNet, me: int, opp: int, depth: int) -> dict[int, float]:
    moves = np.empty(KERNEL.num_actions, dtype=np.int64)
    values = {}
    for m in moves[: KERNEL.gen_moves(KERNEL.ctx, np.int64(me), np.int64(opp), moves)]:
        a, b = KERNEL.play(KERNEL.ctx, np.int64(me), np.int64(opp), m)
        values[int(m)] = -naive_negamax(net, int(a), int(b), depth - 1, 1, [(me, opp)])
    return values


@pytest.mark.parametrize(("depth", "kind"), [(1, "net"), (2, "net"), (2, "base")])
def test_alphabeta_with_the_net_agrees_with_naive_negamax(
    net_file: Path, base_net_file: Path, depth: int, kind: str
) -> None:
    net = load_evalnet(net_file if kind == "net" else base_net_file)
    assert net.base == ("tuned" if kind == "base" else "")
    runner = SearchRunner(KERNEL, net.base, ctx=net.search_ctx(KERNEL), evaluate=net_evaluation(KERNEL, net))
    me_all, opp_all = random_positions(40, seed=7)
    checked = 0
    for me, opp in zip(me_all, opp_all, strict=True):
        me, opp = int(me), int(opp)
        if KERNEL.status(KERNEL.ctx, np.int64(me), np.int64(opp)) != ONGOING or checked == 4:
            continue
        runner.reset()
        move, score, _, aborted = runner.search(me, opp, depth, np.zeros(KERNEL.num_actions))
        values = child_values(net, me, opp, depth)
        assert not aborted and move in values  # a legal move
        assert score == pytest.approx(max(values.values()), abs=1e-3)
        assert values[move] == pytest.approx(max(values.values()), abs=1e-3)
        checked += 1
    assert checked == 4


def test_agents_play_legal_moves_with_the_net(net_file: Path) -> None:
    game = parse_game("quixo")
    for spec in (
        f"alphabeta:depth=2,eval=net:{net_file}",
        f"alphabeta:time=0.05,threads=2,eval=net:{net_file}",
        f"hybrid:time=0.05,search=(alphabeta:eval=net:{net_file})",
    ):
        agent = make_agent(spec, seed=1, game=game)
        agent.prepare(game)
        state = game.initial()
        for _ in range(6):
            decision = agent.act(state)
            assert decision.move in state.legal_moves()
            state = state.play(decision.move)


# --- the trainer ---------------------------------------------------------------------------------


def fake_shards(folder: Path, shards: int, games_per_shard: int, seed: int) -> None:
    """Shards of random positions labelled by a rule the network can learn (more own cubes wins)."""
    rng = np.random.default_rng(seed)
    for index in range(shards):
        count = 40 * games_per_shard
        me, opp = random_positions(count, seed * 100 + index)
        lead = np.bitwise_count(me).astype(int) - np.bitwise_count(opp).astype(int)
        result = np.where(lead > 0, 1.0, np.where(lead < 0, 0.0, 0.5)).astype(np.float32)
        score = np.where(rng.random(count) < 0.5, lead * 50.0, np.nan).astype(np.float32)
        game = index * games_per_shard + np.arange(count) // 40
        trainer.write_shard(
            trainer.shard_path(folder, index),
            {"me": me, "opp": opp, "result": result, "score": score, "game": game},
            "quixo",
        )


def new_run(folder: Path, anneal: int = 0, **changes: Any) -> EvalNetRun:
    params = EvalNetSettings(
        games=20,
        shard_games=10,
        data=str(folder),
        hidden1=8,
        hidden2=4,
        batch=256,
        lr=0.01,
        anneal=anneal,
        threads=1,
        **changes,
    )
    return EvalNetRun.start(parse_game("quixo"), params, seed=0)


@pytest.mark.parametrize("anneal", [0, 3])
def test_training_lowers_the_loss_and_resumes_exactly(tmp_path: Path, anneal: int) -> None:
    fake_shards(tmp_path / "data", shards=2, games_per_shard=10, seed=1)
    run = new_run(tmp_path / "data", anneal)
    run.save(tmp_path / "a" / "checkpoint.npz")
    run.step()
    first = run.held_out()["held_out_target_loss"]
    for _ in range(3):
        run.step()
    assert run.held_out()["held_out_target_loss"] < first - 0.02
    assert run.evaluate([], 0)[0]["epoch"] == 4
    run.curve.extend(run.evaluate([], 0))
    results, against_targets = run.report_lines()
    assert "games' results" in results and "tuned" in results  # the game's default evaluation beside it
    assert against_targets.endswith(
        f"(search labels, distill 0.5): network {run.curve[-1]['held_out_target_loss']:.4f}"
    )
    # stopped after two epochs and resumed: the same weights as the run without a stop
    other = new_run(tmp_path / "data", anneal)
    other.step()
    other.step()
    saved = other.save(tmp_path / "b" / "checkpoint.npz")
    resumed = EvalNetRun.resume(saved, parse_game("quixo"))
    resumed.step()
    resumed.step()
    for name, array in run.weights.items():  # type: ignore[union-attr]
        np.testing.assert_allclose(resumed.weights[name], array, atol=1e-6)  # type: ignore[index]
    # the network file written beside the checkpoint plays in the search
    net = load_evalnet(tmp_path / "b" / trainer.MODEL_FILE)
    assert net.kernels == ("quixo5",)
    with np.load(saved, allow_pickle=False) as data:  # nothing pickled in the checkpoint
        assert "header" in data.files


def test_the_annealed_learning_rate_falls_on_a_half_cosine() -> None:
    params = EvalNetSettings(lr=0.01, anneal=10)
    floor = 0.01 / trainer.ANNEAL_FLOOR
    assert trainer.annealed_lr(params, 0.0) == pytest.approx(0.01)
    assert trainer.annealed_lr(params, 5.0) == pytest.approx((0.01 + floor) / 2)
    rates = [trainer.annealed_lr(params, e / 4) for e in range(41)]
    assert all(a > b for a, b in itertools.pairwise(rates))  # falling all the way
    assert trainer.annealed_lr(params, 10.0) == pytest.approx(floor)
    assert trainer.annealed_lr(params, 25.0) == pytest.approx(floor)  # and staying at the floor
    assert trainer.annealed_lr(EvalNetSettings(lr=0.01), 7.5) == 0.01  # anneal 0: constant


def test_resume_refuses_a_damaged_checkpoint(tmp_path: Path) -> None:
    from boardlab.models.table import ModelFileError

    path = tmp_path / "checkpoint.npz"
    path.write_bytes(b"PK\x03\x04 not really")
    with pytest.raises(ModelFileError):
        EvalNetRun.resume(path)


def _damage(header: dict[str, Any], arrays: dict[str, np.ndarray], damage: str) -> None:
    if damage in ("hidden1", "batch", "lr", "labels"):
        header["hyper"][damage] = {"hidden1": 0, "batch": 0, "lr": -1.0, "labels": "zzz"}[damage]
    elif damage in ("epoch", "adam_steps", "seed"):
        header[damage] = -1
    elif damage == "w1 shape":
        arrays["w_w1"] = arrays["w_w1"][1:]
    elif damage == "b1 not finite":
        arrays["w_b1"] = np.full_like(arrays["w_b1"], np.nan)
    elif damage == "w2 missing":
        del arrays["w_w2"]
    elif damage == "moment shape":
        arrays["a_m0"] = arrays["a_m0"][:, :3]
    elif damage == "negative moment":
        arrays["a_v1"] = np.full_like(arrays["a_v1"], -1.0)
    elif damage == "moments without weights":
        for name in [name for name in arrays if name.startswith("w_")]:
            del arrays[name]


@pytest.mark.parametrize(
    "damage",
    [
        *("hidden1", "batch", "lr", "labels", "epoch", "adam_steps", "seed"),
        *("w1 shape", "b1 not finite", "w2 missing", "moment shape", "negative moment"),
        *("moments without weights", "another game"),
    ],
)
def test_resume_refuses_settings_and_weights_that_do_not_fit(tmp_path: Path, damage: str) -> None:
    """Out-of-range settings, negative counters and weights or moments of another shape are
    refused by --resume in one line, not met as a crash in the first epoch."""
    from boardlab.train import method
    from boardlab.train.run import resume_run

    fake_shards(tmp_path / "data", shards=2, games_per_shard=10, seed=1)
    run = new_run(tmp_path / "data")
    run.step()
    saved = run.save(tmp_path / "run" / "checkpoint.npz")
    with np.load(saved, allow_pickle=False) as data:
        arrays = {name: data[name] for name in data.files}
    header = json.loads(str(arrays["header"]))
    _damage(header, arrays, damage)
    arrays["header"] = np.array(json.dumps(header))
    with saved.open("wb") as handle:
        np.savez(handle, **arrays)
    game = parse_game("quixo:size=4" if damage == "another game" else "quixo")
    with pytest.raises(ModelFileError, match="checkpoint"):
        resume_run(method("evalnet"), saved, game).close()


def test_data_shards_hold_whole_games() -> None:
    task = trainer.ShardTask("quixo:size=4", ("alphabeta:depth=1,eval=tuned",), 6, 2, 4, 40, seed=3)
    arrays = trainer.play_shard(task)
    assert set(np.unique(arrays["game"])) == {6, 7}
    assert set(np.unique(arrays["result"])) <= {0.0, 0.5, 1.0}
    assert len({len(a) for a in arrays.values()}) == 1
    assert np.all(arrays["me"] & arrays["opp"] == 0)
    assert np.isfinite(arrays["score"]).any()
    again = trainer.play_shard(task)
    np.testing.assert_array_equal(again["me"], arrays["me"])  # seeded: a resumed run replays it


def test_a_shard_of_depth_limited_players_is_the_same_whoever_plays_it() -> None:
    """The seed fixes the pairs, the openings and the players' random choices; with players
    limited by depth (not time) that is the whole shard, as training.md says."""
    players = ("alphabeta:depth=1,eval=tuned", "alphabeta:depth=1,eval=patterns,contempt=20")
    task = trainer.ShardTask("quixo:size=4", players, 0, 4, 6, 30, seed=11)
    first, second = trainer.play_shard(task), trainer.play_shard(task)
    assert first.keys() == second.keys()
    for name in first:
        np.testing.assert_array_equal(first[name], second[name])


def _wins_now(kernel: Any, me: int, opp: int) -> bool:
    """Whether the side to move has a move that wins at once."""
    actions = np.empty(kernel.num_actions, dtype=np.int64)
    a, b = np.int64(me), np.int64(opp)
    n = kernel.gen_moves(kernel.ctx, a, b, actions)
    return any(
        kernel.status(kernel.ctx, *kernel.play(kernel.ctx, a, b, actions[i])) == LOSS for i in range(n)
    )


def test_shard_results_belong_to_the_mover_and_games_stop_at_the_ply_cap() -> None:
    task = trainer.ShardTask("quixo:size=4", ("alphabeta:depth=1,eval=tuned",), 0, 12, 8, 16, seed=5)
    arrays = trainer.play_shard(task)
    kernel = parse_game("quixo:size=4").kernel
    outcomes = set()
    for number in range(12):
        results = arrays["result"][arrays["game"] == number]
        assert 1 <= len(results) <= 16  # a random opening never ends a game; the cap does
        # the sides move in turn: a won game alternates 1 and 0, a game cut at the cap is 0.5
        assert np.all(results[1:] + results[:-1] == 1.0), results
        outcomes.add(float(results[0]))
    assert 0.5 in outcomes and len(outcomes) > 1
    winning_now = 0
    for me, opp, result in zip(arrays["me"], arrays["opp"], arrays["result"], strict=True):
        if _wins_now(kernel, int(me), int(opp)):
            assert result == 1.0  # alpha-beta takes a win at once: the mover won the game
            winning_now += 1
    assert winning_now > 0
    # the shortest opening the settings allow: two random plies
    shortest = trainer.play_shard(trainer.ShardTask("quixo:size=4", task.players, 0, 1, 2, 10, seed=1))
    assert len(shortest["me"]) > 0


class _HalfSolved:
    """Tables that reach the positions whose side to move has an even number of cubes: each a
    win for the mover."""

    def covers(self, state: Any) -> bool:
        return int(state.words[0]).bit_count() % 2 == 0

    def position_value(self, state: Any) -> Any:
        return type("Value", (), {"value": WON})()


def test_table_labels_fall_back_to_the_result_where_the_tables_do_not_reach(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    game = parse_game("quixo:size=3")
    monkeypatch.setattr(trainer, "solved_tables", lambda game: _HalfSolved())
    me, opp = random_positions(200, 9, cells=9)
    scores = trainer.exact_scores(game, me, opp)
    reached = np.bitwise_count(me) % 2 == 0
    assert np.all(scores[reached] == trainer.EXACT_SCORE[WON]) and np.isnan(scores[~reached]).all()
    result = np.full(len(me), 0.25, dtype=np.float32)
    np.testing.assert_array_equal(trainer.targets(result, scores, 1.0, 100.0), np.where(reached, 1.0, 0.25))


def test_the_shipped_network_plays_both_rulebooks() -> None:
    from boardlab.models.evalnet import net_for

    for spec in ("quixo", "quixo:rules=course"):
        game = parse_game(spec)
        net = net_for(game.kernel)
        assert net.layers[0] == 50 and game.kernel.name in net.kernels
        agent = make_agent("alphabeta:depth=2,eval=net", seed=0, game=game)
        state = game.initial()
        assert agent.act(state).move in state.legal_moves()


def test_settings_are_checked() -> None:
    from boardlab.train.run import TrainingError, checked_settings

    with pytest.raises(TrainingError, match="players"):
        checked_settings(EvalNetSettings, "evalnet", {"players": "nonsense:x=1"})
    with pytest.raises(TrainingError, match="also"):
        checked_settings(EvalNetSettings, "evalnet", {"also": "quixo:size=9"})
    with pytest.raises(TrainingError, match="base"):
        EvalNetRun.start(parse_game("quixo"), EvalNetSettings(base="nothing"), 0)
    run = EvalNetRun.start(parse_game("quixo"), EvalNetSettings(also="quixo:rules=course"), 0)
    run.weights = trainer.model_tensors(trainer.torch_model(50, 32, 8, 0))
    assert run.net().kernels == ("quixo5", "quixo5-course")
    assert run.net().rules == ("official", "course")


def _scores(spec: str, game_spec: str, plies: int = 8) -> list[float]:
    """Depth-3 scores of ``spec`` along one seeded random game."""
    game = parse_game(game_spec)
    agent = make_agent(spec, seed=0, game=game)
    rng = np.random.default_rng(7)
    state, scores = game.initial(), []
    for _ in range(plies):
        scores.append(agent.analyse(state).score)
        moves = state.legal_moves()
        state = state.play(moves[rng.integers(len(moves))])
    return scores


@pytest.mark.parametrize("game_spec", ["quixo", "quixo:rules=course"])
def test_eval_best_is_the_shipped_network_where_one_is_shipped(game_spec: str) -> None:
    best = _scores("alphabeta:depth=3,eval=best", game_spec)
    assert best == _scores("alphabeta:depth=3,eval=net", game_spec)
    assert best != _scores("alphabeta:depth=3", game_spec)  # not the game's first (tuned)


@pytest.mark.parametrize("game_spec", ["quixo:size=4", "connect4"])
def test_eval_best_is_the_game_s_first_evaluation_elsewhere(game_spec: str) -> None:
    assert _scores("alphabeta:depth=3,eval=best", game_spec) == _scores("alphabeta:depth=3", game_spec)


def test_eval_best_leaves_fitted_weights_and_python_evaluations_to_the_game_s_own() -> None:
    from boardlab.agents.alphabeta import BEST, chosen_evaluation

    assert chosen_evaluation(BEST, KERNEL, weights="w.json") == ""
    assert chosen_evaluation(BEST, KERNEL, custom=True) == ""
    assert chosen_evaluation(BEST, KERNEL) == "net"
    assert chosen_evaluation("lines3", KERNEL) == "lines3"


def test_the_default_hybrid_searches_with_the_shipped_network() -> None:
    game = parse_game("quixo")
    hybrid = make_agent("hybrid", seed=0, game=game)
    net = make_agent("alphabeta:eval=net,contempt=20", seed=0, game=game)
    tuned = make_agent("alphabeta:contempt=20", seed=0, game=game)
    state = game.initial().play(game.initial().legal_moves()[3])
    searched = hybrid.searcher.analyse(state, Limit(depth=3)).score
    assert searched == net.analyse(state, Limit(depth=3)).score != tuned.analyse(state, Limit(depth=3)).score


# --- labels from the solved tables --------------------------------------------------------------


def test_table_labels_are_the_perfect_play_values() -> None:
    from boardlab.games.quixo.solver import solve_in_memory

    game = parse_game("quixo:size=3")
    me, opp = random_positions(3_000, 7, cells=9)
    scores = trainer.exact_scores(game, me, opp)
    tables = solve_in_memory(3)
    expected = [tables.value(int(a), int(b))[0] for a, b in zip(me, opp, strict=True)]
    assert scores.tolist() == [trainer.EXACT_SCORE[v] for v in expected]
    assert {1.0, 0.0} <= set(trainer.targets(np.full(len(me), 0.5), scores, 1.0, 100.0).tolist())


def test_a_run_with_table_labels_trains_on_the_exact_values(tmp_path: Path) -> None:
    game = parse_game("quixo:size=3")
    me, opp = random_positions(400, 8, cells=9)
    neutral = np.full(len(me), 0.5, dtype=np.float32)
    arrays = {"me": me, "opp": opp, "result": neutral, "score": np.full(len(me), np.nan, np.float32)}
    arrays["game"] = np.arange(len(me)) // 10
    trainer.write_shard(trainer.shard_path(tmp_path, 0), arrays, game.spec)
    params = EvalNetSettings(games=40, shard_games=40, data=str(tmp_path), labels="tables", distill=1.0)
    data = EvalNetRun.start(game, params, seed=0).dataset()
    held = np.arange(len(me)) // 10 % trainer.HELD_OUT_EVERY == 0
    exact = trainer.exact_scores(game, me[held], opp[held])
    np.testing.assert_array_equal(data["held_target"], np.where(exact > 0, 1.0, 0.0))
    plain = EvalNetRun.start(game, EvalNetSettings(games=40, shard_games=40, data=str(tmp_path)), 0)
    np.testing.assert_array_equal(plain.dataset()["held_target"], neutral[held])  # the results


def test_table_labels_need_solved_tables() -> None:
    with pytest.raises(trainer.EvalNetTrainingError, match="labels=tables needs solved tables of tictactoe"):
        EvalNetRun.start(parse_game("tictactoe"), EvalNetSettings(labels="tables"), 0)


def _train(*args: str) -> tuple[int, list[str]]:
    from typer.testing import CliRunner

    from boardlab.ui.cli import app

    command = ["train", "evalnet", "--epochs", "1", "--players", "alphabeta:depth=1", *args]
    result = CliRunner().invoke(app, [*command, "--workers", "1", "--final-games", "0"])
    return result.exit_code, [line for line in result.output.splitlines() if line.strip()]


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("data", ["afile", "binary", "afile/below"])
def test_a_data_path_that_is_no_folder_is_refused_before_anything_is_written(
    tmp_path: Path, data: str
) -> None:
    (tmp_path / "afile").write_text("text\n")
    (tmp_path / "binary").write_bytes(bytes(range(256)))
    finished = tmp_path / "done"  # a finished run, started over with --force
    finished.mkdir()
    for name in ("checkpoint.npz", "evalnet.safetensors", "summary.json"):
        (finished / name).write_bytes(name.encode())
    for out, more in ((tmp_path / "new", ()), (finished, ("--force",))):
        code, lines = _train(
            "--out", str(out), "--data", str(tmp_path / data), "--games", "2", "--shard-games", "1", *more
        )
        assert code == 2 and len(lines) == 1 and lines[0].startswith("Error: --data"), lines
        assert "expected a folder" in lines[0] or "is a file, not a folder" in lines[0]
    assert not (tmp_path / "new").exists()
    assert _files(finished) == {
        n: n.encode() for n in ("checkpoint.npz", "evalnet.safetensors", "summary.json")
    }


def test_training_without_pytorch_is_refused_before_any_work(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "torch", None)  # as where the torch extra is not installed
    code, lines = _train("--out", str(tmp_path / "run"), "--games", "2", "--shard-games", "1")
    assert code == 2 and lines == ["Error: train evalnet needs PyTorch: pip install 'boardlab[torch]'"]
    assert not (tmp_path / "run").exists()


def test_a_resumed_run_whose_data_folder_is_a_file_is_refused_before_work(tmp_path: Path) -> None:
    (tmp_path / "afile").write_text("text\n")
    settings = EvalNetSettings(
        games=2, shard_games=1, players="alphabeta:depth=1", data=str(tmp_path / "afile")
    )
    EvalNetRun.start(parse_game("quixo"), settings, 0).save(tmp_path / "run" / trainer.CHECKPOINT_FILE)
    before = _files(tmp_path / "run")
    code, lines = _train("--out", str(tmp_path / "run"), "--resume")
    assert code == 2 and len(lines) == 1 and "afile: it is a file; expected a folder" in lines[0], lines
    assert _files(tmp_path / "run") == before


def test_shards_name_their_game_and_another_game_s_shards_are_refused_before_work(tmp_path: Path) -> None:
    fake_shards(tmp_path / "d5", shards=2, games_per_shard=10, seed=1)  # 5x5 Quixo, named
    assert str(load_npz_arrays(trainer.shard_path(tmp_path / "d5", 0))[trainer.GAME_ARRAY]) == "quixo"
    args = ["--game", "quixo:size=4", "--games", "20", "--shard-games", "10"]
    code, lines = _train("--out", str(tmp_path / "a"), "--data", str(tmp_path / "d5"), *args)
    assert code == 2 and len(lines) == 1 and "holds games of quixo, not quixo:size=4" in lines[0], lines
    assert not (tmp_path / "a" / trainer.CHECKPOINT_FILE).exists()
    # a finished 5x5 run started over on 4x4 with --force: its data/ is of the other game
    run = tmp_path / "b"
    fake_shards(run / "data", shards=2, games_per_shard=10, seed=1)
    (run / trainer.CHECKPOINT_FILE).write_bytes(b"old")
    code, lines = _train("--out", str(run), "--force", *args)
    assert code == 2 and len(lines) == 1 and "holds games of quixo, not quixo:size=4" in lines[0], lines
    assert (run / trainer.CHECKPOINT_FILE).read_bytes() == b"old"


def test_shards_that_do_not_name_their_game_are_checked_by_their_cells(tmp_path: Path) -> None:
    fake_shards(tmp_path / "named", shards=1, games_per_shard=10, seed=1)
    arrays = load_npz_arrays(trainer.shard_path(tmp_path / "named", 0))
    del arrays[trainer.GAME_ARRAY]
    (tmp_path / "old").mkdir()
    np.savez_compressed(trainer.shard_path(tmp_path / "old", 0), **arrays)  # as written before
    assert trainer.data_problem(tmp_path / "old", 1, parse_game("quixo")) is None
    assert len(trainer.read_shards(tmp_path / "old", 1, parse_game("quixo"))["me"]) == len(arrays["me"])
    problem = trainer.data_problem(tmp_path / "old", 1, parse_game("quixo:size=4"))
    assert problem is not None and "not on the board of quixo:size=4" in problem
    with pytest.raises(ModelFileError, match="not on the board of quixo:size=4"):
        trainer.read_shards(tmp_path / "old", 1, parse_game("quixo:size=4"))


def load_npz_arrays(path: Path) -> dict[str, np.ndarray]:
    with np.load(path, allow_pickle=False) as data:
        return {name: data[name] for name in data.files}


@pytest.mark.parametrize("damage", ["version", "layers", "values"])
def test_other_versions_wrong_layers_and_non_text_metadata_are_refused(damage: str) -> None:
    net = random_net(3)
    meta = net.metadata()
    metadata: dict[str, Any] = {}
    if damage == "version":
        meta["version"] = meta["version"] + 1
    elif damage == "layers":
        meta["layers"] = [50, 16, 4, 1]
    metadata["boardlab"] = json.dumps(meta)
    data = safetensors_bytes(net.tensors(), metadata)
    if damage == "values":  # a metadata value that is not a text: written by hand
        (size,) = struct.unpack("<Q", data[:8])
        header = json.loads(data[8 : 8 + size])
        header["__metadata__"]["extra"] = 5
        text = json.dumps(header).encode()
        data = struct.pack("<Q", len(text)) + text + data[8 + size :]
    with pytest.raises(
        EvalNetError, match={"version": "version", "layers": "layers", "values": "strings"}[damage]
    ):
        evalnet_from_bytes(data, "net.safetensors")


def _naive_log_loss(logits: np.ndarray, target: np.ndarray) -> float:
    p = 1 / (1 + np.exp(-logits))
    return float(-np.mean(target * np.log(p) + (1 - target) * np.log(1 - p)))


def _tuned_logits(me: np.ndarray, opp: np.ndarray) -> np.ndarray:
    """Quixo's tuned evaluation of each position, as a logit."""
    tuned = KERNEL.evaluations.index("tuned")
    values = [
        KERNEL.evaluate(KERNEL.ctx, np.int64(a), np.int64(b), tuned) for a, b in zip(me, opp, strict=True)
    ]
    return np.array(values) / 100.0


def test_held_out_losses_are_the_saved_networks_on_the_held_out_games_results(tmp_path: Path) -> None:
    fake_shards(tmp_path / "data", shards=2, games_per_shard=10, seed=1)
    run = new_run(tmp_path / "data", base="tuned", distill=0.25)
    run.step()
    run.save(tmp_path / "run" / trainer.CHECKPOINT_FILE)
    net = load_evalnet(tmp_path / "run" / trainer.MODEL_FILE)
    assert net.base == "tuned" and net.trained["distill"] == 0.25
    raw = trainer.read_shards(tmp_path / "data", 2, parse_game("quixo"))
    held = raw["game"] % trainer.HELD_OUT_EVERY == 0
    me, opp, result = raw["me"][held], raw["opp"][held], raw["result"][held]
    losses = run.held_out()
    assert losses["held_out_log_loss"] == pytest.approx(
        _naive_log_loss(net.logits(me, opp, KERNEL), result), abs=1e-5
    )
    assert losses["baseline_log_loss"] == pytest.approx(
        _naive_log_loss(_tuned_logits(me, opp), result), abs=1e-6
    )
    run.curve.extend(run.evaluate([], 0))
    network, tuned = (f"{losses[name]:.4f}" for name in ("held_out_log_loss", "baseline_log_loss"))
    assert f"results: network {network}, tuned {tuned}" in run.report_lines()[0]
    # the other games are trained on, under the board's 8 symmetries
    assert len(run.dataset()["y"]) == 8 * np.count_nonzero(~held)


def test_a_network_correcting_an_evaluation_learns_only_the_correction(tmp_path: Path) -> None:
    """Targets that are the base evaluation's own win probabilities: the network learns to add
    nothing, so that the held-out loss is that of the base alone."""
    me, opp = random_positions(800, seed=3)
    tuned = _tuned_logits(me, opp)
    for index in range(2):
        part = slice(400 * index, 400 * (index + 1))
        arrays = {
            "me": me[part],
            "opp": opp[part],
            "result": np.full(400, 0.5, np.float32),
            "score": (100 * tuned[part]).astype(np.float32),
            "game": 10 * index + np.arange(400) // 40,
        }
        trainer.write_shard(trainer.shard_path(tmp_path, index), arrays, "quixo")
    run = new_run(tmp_path, base="tuned", distill=1.0)
    for _ in range(3):
        run.step()
    data = run.dataset()
    assert run.adam_steps == 3 * -(-len(data["y"]) // 256)  # Adam counts its steps across epochs
    floor = _naive_log_loss(np.log(data["held_target"] / (1 - data["held_target"])), data["held_target"])
    assert run.held_out()["held_out_target_loss"] < floor + 0.01


def test_the_shards_hold_the_games_asked_for_once_each(tmp_path: Path) -> None:
    params = EvalNetSettings(games=25, shard_games=10, data=str(tmp_path))
    run = EvalNetRun.start(parse_game("tictactoe"), params, seed=0)
    tasks = [run._shard_task(index) for index in range(params.shards)]
    numbers = [n for task in tasks for n in range(task.first_game, task.first_game + task.games)]
    assert numbers == list(range(25))


def test_shards_past_a_missing_one_are_checked_and_a_ragged_shard_is_refused(tmp_path: Path) -> None:
    fake_shards(tmp_path / "named", shards=1, games_per_shard=10, seed=1)
    arrays = load_npz_arrays(trainer.shard_path(tmp_path / "named", 0))
    del arrays[trainer.GAME_ARRAY]
    folder = tmp_path / "old"
    folder.mkdir()
    overlapping = {**arrays, "opp": arrays["opp"] | arrays["me"]}  # cells of both sides
    np.savez_compressed(trainer.shard_path(folder, 1), **overlapping)  # shard 0 not played yet
    problem = trainer.data_problem(folder, 2, parse_game("quixo"))
    assert problem is not None and "not on the board of quixo" in problem
    np.savez_compressed(trainer.shard_path(folder, 0), **{**arrays, "score": arrays["score"][:-1]})
    with pytest.raises(ModelFileError, match="differ in length"):
        trainer.read_shards(folder, 1, parse_game("quixo"))
