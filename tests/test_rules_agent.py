"""The evolved rule-based Quixo player: rule conditions against a naive reference, the bad rule,
model files, the (1+λ) ES (improvement, resuming, worker processes) and `boardlab train es`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import quixo_reference as ref
import typer
from greedy_reference import greedy_classes, midgame_states
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from boardlab.agents import make_agent
from boardlab.agents.base import AgentSpecError
from boardlab.agents.rules import (
    BAD_RULE,
    RULES,
    RulesAgent,
    load_model,
    model_header,
    save_model,
)
from boardlab.agents.rules_kernel import choose_move, pick_from_masks, rule_moves
from boardlab.games import parse_game
from boardlab.games.base import ONGOING
from boardlab.games.quixo import kernel as qk
from boardlab.models.table import ModelFileError, ModelMismatchError
from boardlab.play.pool import Workers
from boardlab.train.rules_es import (
    AGENT,
    ESRun,
    Opponent,
    game_seeds,
    params_for,
    parse_opponent,
    play_rule_games,
)
from boardlab.train.run import train
from boardlab.ui.train import register as register_train

# --- a naive reference of the rules --------------------------------------------------------------


def _board(n: int, me: int, opp: int) -> ref.Board:
    """The reference board of a position: the mover is X, the opponent O."""
    board = ref.empty_board(n)
    for y in range(n):
        for x in range(n):
            bit = 1 << (y * n + x)
            board[y][x] = ref.X if me & bit else (ref.O if opp & bit else ref.BLANK)
    return board


def _count(board: ref.Board, cells: tuple[tuple[int, int], ...], player: int) -> int:
    return sum(1 for x, y in cells if board[y][x] == player)


def naive_rule_moves(n: int, me: int, opp: int) -> dict[str, list[int]]:
    """Each rule's moves, straight from the rules' definitions, on lists of lists."""
    board = _board(n, me, opp)
    shapes = qk.move_list(n)
    lines = ref.lines(n)
    rows, columns = lines[:n], lines[n : 2 * n]
    threat = any(_count(board, line, ref.O) == n - 1 for line in lines)
    found: dict[str, list[int]] = {name: [] for name in RULES}
    for move in ref.legal_moves(board, ref.X):
        action = shapes.index(move)
        after = ref.play(board, ref.X, move)
        found["any"].append(action)
        if ref.has_line(after, ref.X) and not ref.has_line(after, ref.O):
            found["complete"].append(action)
        if threat and all(_count(after, line, ref.O) < n - 1 for line in lines):
            found["block"].append(action)
        for kind, group in (("row", rows), ("column", columns)):
            before = [_count(board, line, ref.X) for line in group]
            gained = [_count(after, line, ref.X) > b for line, b in zip(group, before, strict=True)]
            theirs = [_count(board, line, ref.O) for line in group]
            if any(g and b == 0 for g, b in zip(gained, before, strict=True)):
                found[f"empty_{kind}"].append(action)
            if any(g and b >= n - 2 for g, b in zip(gained, before, strict=True)):
                found[f"grow_{kind}"].append(action)
            if any(g and t >= n - 2 for g, t in zip(gained, theirs, strict=True)):
                found[f"contest_{kind}"].append(action)
    if found["block"]:
        found[BAD_RULE] = [a for a in found["any"] if a not in found["block"]]
    return {name: sorted(actions) for name, actions in found.items()}


@st.composite
def positions(draw: st.DrawFn) -> tuple[int, int, int]:
    """An unfinished position (size, mover's cubes, opponent's cubes), cells drawn at random."""
    n = draw(st.sampled_from([3, 4, 5]))
    cells = draw(st.lists(st.sampled_from([0, 0, 1, 2]), min_size=n * n, max_size=n * n))
    me = sum(1 << i for i, c in enumerate(cells) if c == 1)
    opp = sum(1 << i for i, c in enumerate(cells) if c == 2)
    kernel = qk.kernel(n)
    assume(kernel.status(kernel.ctx, np.int64(me), np.int64(opp)) == ONGOING)
    return n, me, opp


@settings(max_examples=80)
@given(positions())
def test_rule_moves_match_the_naive_reference(position: tuple[int, int, int]) -> None:
    n, me, opp = position
    assert rule_moves(qk.kernel(n), me, opp) == naive_rule_moves(n, me, opp)


def test_rule_moves_match_the_reference_along_random_games() -> None:
    rng = np.random.default_rng(3)
    for n in (3, 4, 5):
        kernel = qk.kernel(n)
        me, opp = np.int64(0), np.int64(0)
        for _ in range(60):
            if kernel.status(kernel.ctx, me, opp) != ONGOING:
                me, opp = np.int64(0), np.int64(0)
            assert rule_moves(kernel, int(me), int(opp)) == naive_rule_moves(n, int(me), int(opp))
            moves = rule_moves(kernel, int(me), int(opp))["any"]
            me, opp = kernel.play(kernel.ctx, me, opp, int(rng.choice(moves)))


def test_the_bad_rule_is_the_moves_that_leave_a_threat() -> None:
    game = parse_game("quixo")
    # O (the opponent of X, who moves) holds four of row 2; X can block it
    state = game.parse_position("X..../...../OOOO./...../..... X 8")
    found = rule_moves(game.kernel, state.a, state.b)
    assert found["block"] and found[BAD_RULE]
    assert sorted(found["block"] + found[BAD_RULE]) == found["any"]
    for action in found[BAD_RULE]:
        after = state.play_index(action)
        assert any(bin(after.a & int(line)).count("1") >= 4 for line in game.kernel.ctx[2])
    for action in found["block"]:
        after = state.play_index(action)
        assert all(bin(after.a & int(line)).count("1") < 4 for line in game.kernel.ctx[2])
    quiet = game.parse_position("X..../...../OOO../...../..... X 6")
    assert rule_moves(game.kernel, quiet.a, quiet.b)[BAD_RULE] == []


def test_the_roulette_plays_only_the_moves_of_weighted_active_rules() -> None:
    game = parse_game("quixo")
    kernel = game.kernel
    state = game.parse_position("XXXX./OO.../O..../...../..... X 8")
    found = rule_moves(kernel, state.a, state.b)
    moves = np.empty(kernel.num_actions, dtype=np.int64)
    masks = np.empty(kernel.num_actions, dtype=np.int64)

    def chosen(weights: np.ndarray) -> set[int]:
        return {
            int(choose_move(kernel.ctx, np.int64(state.a), np.int64(state.b), weights, u, v, moves, masks))
            for u in np.linspace(0, 0.999, 11)
            for v in np.linspace(0, 0.999, 97)
        }

    only_complete = np.zeros(len(RULES))
    only_complete[RULES.index("complete")] = 1.0
    assert found["complete"] and chosen(only_complete) == set(found["complete"])
    inactive = np.zeros(len(RULES))
    inactive[RULES.index("block")] = 1.0  # no threat here: every legal move, uniformly
    assert not found["block"] and chosen(inactive) == set(found["any"])
    both = only_complete.copy()
    both[RULES.index("grow_row")] = 1.0
    assert chosen(both) == set(found["complete"]) | set(found["grow_row"])


def test_the_roulette_draws_each_active_rule_in_proportion_to_its_weight() -> None:
    moves = np.array([100, 101, 102, 103], dtype=np.int64)
    masks = np.array([0b001, 0b010, 0b010, 0b011], dtype=np.int64)  # rules 0 and 1 are active
    weights = np.zeros(len(RULES))
    weights[:3] = [0.25, 0.5, 1.0]  # rule 2 is not active: its weight does not count
    draws = [int(pick_from_masks(weights, moves, masks, 4, u, 0.0)) for u in np.arange(0, 1, 1 / 300)]
    assert draws.count(100) == 100 and draws.count(101) == 200  # a third and two thirds
    by_move = [int(pick_from_masks(weights, moves, masks, 4, 0.9, v)) for v in np.arange(0, 1, 1 / 30)]
    assert [by_move.count(m) for m in (101, 102, 103)] == [10, 10, 10]  # rule 1's moves, evenly


# --- the agent and its model files -------------------------------------------------------------


def test_the_shipped_agent_plays_legal_moves() -> None:
    game = parse_game("quixo")
    agent = make_agent("rules", seed=3, game=game)
    agent.prepare(game)
    state = game.initial()
    while not state.is_over and state.ply < 60:
        move = agent.choose(state)
        assert move in state.legal_moves()
        state = state.play(move)
    assert RulesAgent.supports(game) and not RulesAgent.supports(parse_game("quixo:size=4"))
    assert not RulesAgent.supports(parse_game("tictactoe"))


def test_model_round_trip_and_refusals(tmp_path: Path) -> None:
    weights = np.linspace(0, 1, len(RULES))
    path = save_model(tmp_path / "m.json", 5, weights, note="x")
    model = load_model(path)
    assert model.size == 5 and np.array_equal(model.weights, weights) and model.header["note"] == "x"
    agent = make_agent(f"rules:model={path}", seed=0, game=parse_game("quixo"))
    assert agent.choose(parse_game("quixo").initial()) in parse_game("quixo").initial().legal_moves()

    good = json.loads(path.read_text())
    cases = {
        "junk": "not json {",
        "truncated": path.read_text()[:40],
        "format": json.dumps({**good, "format": "other"}),
        "version": json.dumps({**good, "version": 99}),
        "game": json.dumps({**good, "game": "connect4"}),
        "size": json.dumps({**good, "size": 7}),
        "rules": json.dumps({**good, "rules": ["a"]}),
        "range": json.dumps({**good, "weights": {**good["weights"], "any": 2.0}}),
        "nan": json.dumps({**good, "weights": {**good["weights"], "any": float("nan")}}),
        "missing": json.dumps({**good, "weights": {"any": 1.0}}),
        "negative": json.dumps({**good, "weights": {**good["weights"], "block": -0.5}}),
        "boolean": json.dumps({**good, "weights": {**good["weights"], "block": True}}),
        "order": json.dumps({**good, "weights": dict(reversed(good["weights"].items()))}),
    }
    for name, text in cases.items():
        bad = tmp_path / f"{name}.json"
        bad.write_text(text)
        with pytest.raises(ModelFileError):
            load_model(bad)
        with pytest.raises(AgentSpecError, match="rules: "):
            make_agent(f"rules:model={bad}", game=parse_game("quixo"))
    with pytest.raises(ModelMismatchError):
        load_model(tmp_path / "version.json")
    small = save_model(tmp_path / "small.json", 4, weights)
    with pytest.raises(AgentSpecError, match="4x4 board, not 5x5"):
        make_agent(f"rules:model={small}", game=parse_game("quixo"))
    assert make_agent(f"rules:model={small}", game=parse_game("quixo:size=4")).name == "rules"
    with pytest.raises(AgentSpecError, match="does not exist"):
        make_agent(f"rules:model={tmp_path / 'none.json'}", game=parse_game("quixo"))


def test_the_agent_refuses_other_games_and_a_model_of_the_wrong_length() -> None:
    with pytest.raises(AgentSpecError, match=r"^agent rules plays only quixo, not tictactoe$"):
        make_agent("rules", game=parse_game("tictactoe"))
    with pytest.raises(ValueError, match=f"a rules model has {len(RULES)} weights, got 3"):
        model_header(5, [0.5, 0.5, 0.5])


def test_the_agent_draws_its_rule_and_move_from_its_seed() -> None:
    state = parse_game("quixo").initial()
    moves = [make_agent("rules", seed=seed, game=state.game).choose(state) for seed in range(12)]
    assert len(set(moves)) > 3
    assert make_agent("rules", seed=7, game=state.game).choose(state) == moves[7]


# --- the ES --------------------------------------------------------------------------------------

TINY = {"offspring": 6, "games": 60, "workers": 1, "sigma": 0.3, "decay": 4, "patience": 50}


def _win_share(game, weights: np.ndarray, count: int = 1000) -> float:
    seeds, seats = game_seeds(99, 99, count)
    outcomes, _ = play_rule_games(game, weights, seeds, seats, parse_opponent("random", game))
    return float((outcomes == 1).mean())


def test_es_improves_fitness_on_a_tiny_run() -> None:
    game = parse_game("quixo")
    run = ESRun.start(game, params_for({**TINY, "games": 200}), seed=4)
    first = run.parent.copy()
    assert train(run, 8)
    assert run.epoch == 8 and len(run.history) == 9
    assert _win_share(game, run.parent) > _win_share(game, first) + 0.02
    assert any(r["accepted"] for r in run.history[1:])
    assert ((run.parent >= 0) & (run.parent <= 1)).all()


def _comparable(header: dict) -> dict:
    return {k: v for k, v in header.items() if k != "train_seconds"}


def test_a_resumed_run_gives_the_same_result(tmp_path: Path) -> None:
    game = parse_game("quixo")
    params = params_for(TINY)
    straight = ESRun.start(game, params, seed=4)
    train(straight, 5, checkpoint=tmp_path / "a.json")
    stops = iter([False, False, True])
    broken = ESRun.start(game, params, seed=4)
    assert not train(broken, 5, checkpoint=tmp_path / "b.json", should_stop=lambda: next(stops))
    assert broken.epoch == 2
    resumed = ESRun.resume(tmp_path / "b.json", game)
    assert train(resumed, 5, checkpoint=tmp_path / "b.json")
    assert _comparable(resumed.header()) == _comparable(straight.header())
    assert _comparable(json.loads((tmp_path / "b.json").read_text())) == _comparable(
        json.loads((tmp_path / "a.json").read_text())
    )
    with pytest.raises(ModelMismatchError):
        ESRun.resume(tmp_path / "b.json", parse_game("quixo:size=4"))


@pytest.mark.parametrize("spec", ["tictactoe", "nim"])
def test_a_checkpoint_of_another_game_is_refused(tmp_path: Path, spec: str) -> None:
    run = ESRun.start(parse_game("quixo"), params_for(TINY), seed=4)
    run.save(tmp_path / "run.json")
    header = json.loads((tmp_path / "run.json").read_text())
    (tmp_path / "run.json").write_text(json.dumps({**header, "game_spec": spec}))
    with pytest.raises(ModelFileError, match="cannot be resumed"):
        ESRun.resume(str(tmp_path / "run.json"))


def test_worker_processes_play_the_same_games() -> None:
    game = parse_game("quixo")
    weights = np.random.default_rng(0).random((3, len(RULES)))
    seeds, seats = game_seeds(1, 1, 40)
    opponent = parse_opponent("greedy", game)
    alone = play_rule_games(game, weights, seeds, seats, opponent)
    with Workers(2) as workers:
        shared = play_rule_games(game, weights, seeds, seats, opponent, workers)
    assert np.array_equal(alone[0], shared[0]) and np.array_equal(alone[1], shared[1])


def test_other_agents_are_played_through_their_api() -> None:
    game = parse_game("quixo")
    seeds, seats = game_seeds(0, 0, 6)
    weights = np.full(len(RULES), 0.5)
    first = play_rule_games(game, weights, seeds, seats, Opponent("random", AGENT))
    again = play_rule_games(game, weights, seeds, seats, Opponent("random", AGENT))
    assert np.array_equal(first[0], again[0]) and np.array_equal(first[1], again[1])
    assert set(first[0].ravel()) <= {-1, 0, 1} and (first[1] > 0).all()
    assert parse_opponent("alphabeta:depth=2", game) == Opponent("alphabeta:depth=2", AGENT, 2)


# --- the command line ----------------------------------------------------------------------------


def _app() -> typer.Typer:
    app = typer.Typer()

    @app.callback()
    def main() -> None:
        """Test app."""

    register_train(app)
    return app


def _train(*args: str):
    return CliRunner().invoke(_app(), ["train", "es", *args], terminal_width=200)


def test_cli_trains_and_writes_model_summary_and_plots(tmp_path: Path) -> None:
    out = tmp_path / "run"
    args = ["--game", "quixo", "--out", str(out), "--against", "random;greedy", "--eval-games", "4"]
    hyper = "offspring=2,games=10,workers=1"
    result = _train(*args, "--epochs", "2", "--hyper", hyper, "--final-games", "4")
    assert result.exit_code == 0, result.output
    for name in ("model.json", "summary.json", "es_fitness.png", "es_weights.png", "learning_curve.png"):
        assert (out / name).stat().st_size > 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["epochs"] == 2 and set(summary["weights"]) == set(RULES)
    assert summary["final"]["greedy"]["games"] == 4
    result = _train(*args, "--epochs", "3", "--resume", "--final-games", "0")
    assert result.exit_code == 0, result.output
    assert make_agent(f"rules:model={out / 'model.json'}", game=parse_game("quixo")).name == "rules"


def test_cli_says_the_run_stopped_when_its_patience_ran_out(tmp_path: Path) -> None:
    out = tmp_path / "run"
    args = ["--game", "quixo:size=3", "--out", str(out), "--eval-games", "0", "--final-games", "0"]
    result = _train(*args, "--epochs", "50", "--hyper", "offspring=1,games=2,workers=1,patience=1")
    assert result.exit_code == 0, result.output
    summary = json.loads((out / "summary.json").read_text())
    assert summary["stopped_by"] == "patience" and summary["epochs"] < 50
    assert (
        "Stopped before --epochs 50: this run stopped by itself after 1 epoch in a row without "
        "improvement (patience)" in " ".join(result.output.split())
    )
    finished = _train(*args, "--epochs", "60", "--hyper", "workers=1", "--resume")
    assert finished.exit_code == 0, finished.output
    assert "Stopped before" not in finished.output  # already said: the run holds a finished run
    assert "holds a run that stopped by itself" in " ".join(finished.output.split())


def test_the_weights_print_with_significant_digits() -> None:
    run = ESRun.start(parse_game("quixo:size=3"), params_for({"offspring": 1, "games": 2, "workers": 1}))
    run.parent = np.array([1e-4, 0.0123456, *([1.0] * (len(RULES) - 2))])
    (line,) = run.report_lines()
    assert line.startswith(f"Weights: {RULES[0]}=0.0001, {RULES[1]}=0.0123, {RULES[2]}=1,")


def test_cli_bad_input_exits_2_with_one_line(tmp_path: Path) -> None:
    existing = tmp_path / "existing"
    existing.mkdir()
    (existing / "model.json").write_text("junk")
    out = ["--out", str(tmp_path / "a")]
    cases = [
        ["--game", "tictactoe", *out],
        ["--game", "quixo", *out, "--hyper", "offspring=0"],
        ["--game", "quixo", *out, "--hyper", "opponent=mcts"],
        ["--game", "quixo", *out, "--hyper", "nosuch=1"],
        ["--game", "quixo", *out, "--hyper", "junk"],
        ["--game", "quixo", *out, "--epochs", "0"],
        ["--game", "quixo", *out, "--alpha", "0.1"],
        ["--game", "quixo", *out, "--against", "nosuch"],
        ["--game", "quixo:size=9", *out],
        ["--game", "quixo"],
        ["--game", "quixo", "--resume", *out],
        ["--game", "quixo", "--out", str(existing)],
        ["--game", "quixo", "--resume", "--out", str(existing)],
    ]
    for args in cases:
        result = _train(*args)
        assert result.exit_code == 2, (args, result.output)
        lines = [line for line in result.output.splitlines() if line.strip()]
        assert len(lines) == 1 and lines[0].startswith("Error:"), (args, result.output)


def test_sigma_decays_geometrically_from_the_first_epoch_with_children() -> None:
    from boardlab.train.rules_es import sigma_at

    geometric = params_for({"sigma": 1.0, "sigma_final": 0.01, "decay": 2})
    assert [sigma_at(geometric, e) for e in (1, 2, 3, 50)] == pytest.approx([1.0, 0.1, 0.01, 0.01])
    linear = params_for({"sigma": 0.5, "sigma_final": 0.0, "decay": 4})
    assert [sigma_at(linear, e) for e in (1, 3, 5, 9)] == pytest.approx([0.5, 0.25, 0.0, 0.0])


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(["log", "linear"]), st.floats(0.0, 4.0), st.integers(0, 2**32))
def test_mutated_weights_stay_in_the_unit_interval(scale: str, sigma: float, seed: int) -> None:
    from boardlab.train.rules_es import mutate

    rng = np.random.default_rng(seed)
    parent = rng.random(12)
    children = mutate(parent, params_for({"scale": scale, "offspring": 5}), sigma, rng)
    assert children.shape == (5, 12)
    assert np.all((children >= 0) & (children <= 1))


@pytest.mark.parametrize(
    ("confirm", "first", "again", "accepted"),
    [
        (False, [0.5, 0.2, 0.7, 0.4], None, True),  # the best child beats the parent
        (False, [0.5, 0.5, 0.3, 0.1], None, False),  # a tie keeps the parent
        (True, [0.5, 0.2, 0.7, 0.4], [0.6, 0.6], False),  # a tie on the second games keeps it too
        (True, [0.5, 0.2, 0.7, 0.4], [0.6, 0.8], True),
    ],
)
def test_the_best_child_replaces_the_parent_only_when_it_wins_more(
    monkeypatch: pytest.MonkeyPatch,
    confirm: bool,
    first: list[float],
    again: list[float] | None,
    accepted: bool,
) -> None:
    run = ESRun.start(
        parse_game("quixo"), params_for({**TINY, "games": 2, "offspring": 3, "confirm": confirm}), seed=1
    )
    parent = run.parent.copy()
    results = [np.array(first), np.array(again or [])]
    monkeypatch.setattr(run, "_fitness", lambda genomes, salt=0: (results.pop(0), np.zeros(len(genomes))))
    chosen: list[np.ndarray] = []
    real_mutate = __import__("boardlab.train.rules_es", fromlist=["mutate"]).mutate

    def mutate(*args: object) -> np.ndarray:
        chosen.append(real_mutate(*args))
        return chosen[-1]

    monkeypatch.setattr("boardlab.train.rules_es.mutate", mutate)
    run.stale, run.epoch = run.params.patience - 1, 2
    run.step()
    assert run.history[-1]["accepted"] is accepted
    decayed = run.params.sigma * (run.params.sigma_final / run.params.sigma) ** (2 / run.params.decay)
    assert run.history[-1]["sigma"] == pytest.approx(decayed, abs=1e-6)  # epoch 3: two epochs of decay
    assert run.done is not accepted  # a last stale epoch ends the run
    if accepted:
        assert np.array_equal(run.parent, chosen[0][1])  # the child of the best score: 0.7
        assert run.stale == 0
        # its fitness: the unbiased second measurement when there is one
        assert run.parent_fitness == (again[1] if again else first[2])
    else:
        assert np.array_equal(run.parent, parent) and run.stale == run.params.patience
        assert run.parent_fitness == first[0]  # re-measured on this epoch's games
    assert run.history[-1]["fitness"] == run.parent_fitness


def test_log_steps_scale_a_weight_and_linear_steps_add_to_it() -> None:
    from boardlab.train.rules_es import mutate

    parent = np.full(12, 1e-3)
    rng = np.random.default_rng(0)
    on_logs = mutate(parent, params_for({"scale": "log", "offspring": 5}), 0.1, rng)
    assert np.all((on_logs > 1e-4) & (on_logs < 1e-2)) and not np.all(on_logs == parent)
    added = mutate(parent, params_for({"scale": "linear", "offspring": 5}), 0.1, rng)
    assert np.mean(added > 1e-2) > 0.3  # a step of 0.1 moves a weight of 0.001 by 0.1, not by 25%


def test_the_alphabeta_fitness_opponent_searches_at_the_depth_asked() -> None:
    from boardlab.train.rules_es import training_opponent

    assert training_opponent(params_for({"opponent": "alphabeta", "depth": 3})) == Opponent(
        "alphabeta:depth=3", AGENT, 3
    )
    assert training_opponent(params_for({"opponent": "greedy"})).spec == "greedy"


def test_a_checkpoint_whose_weights_are_for_another_board_says_so(tmp_path: Path) -> None:
    run = ESRun.start(parse_game("quixo"), params_for({**TINY, "games": 2}), seed=4)
    header = json.loads(run.save(tmp_path / "run.json").read_text())
    (tmp_path / "run.json").write_text(json.dumps({**header, "game_spec": "quixo:size=4"}))
    with pytest.raises(ModelFileError, match="a 4x4 board, but its weights are for a 5x5 board"):
        ESRun.resume(tmp_path / "run.json")


def test_the_compiled_greedy_opponent_wins_at_once_else_plays_safe() -> None:
    from boardlab.train.rules_es import _greedy_move

    game = parse_game("quixo")
    size = game.kernel.num_actions
    moves, kinds, buffer = (np.empty(size, np.int64) for _ in range(3))
    seen = set()
    for state in midgame_states(game, 12, seed=3):
        wins, safe, rest = greedy_classes(state)
        wanted = wins or safe or rest
        for seed in range(3):
            np.random.seed(seed)
            move = _greedy_move(game.kernel.ctx, np.int64(state.a), np.int64(state.b), moves, kinds, buffer)
            assert int(move) in wanted
        seen.add("wins" if wins else ("safe" if safe else "rest"))
    assert {"wins", "safe"} <= seen


def test_agent_games_seat_the_rule_player_as_asked_and_score_its_result(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from boardlab.train import rules_es

    game = parse_game("quixo")
    seeds, seats = game_seeds(5, 5, 2)
    turns: list[tuple[int, int]] = []
    finals: list[Any] = []
    make = rules_es.make_agent

    class Spy:
        def __init__(self, agent: Any) -> None:
            self.agent, self.spec = agent, agent.spec

        def act(self, state: Any, limit: Any = None) -> Any:
            turns.append((len(finals), state.to_move))
            return self.agent.act(state, limit)

        def prepare(self, game: Any) -> None:
            self.agent.prepare(game)

        def new_game(self) -> None:
            self.agent.new_game()

    class Recorded(rules_es.Session):
        def run(self, *args: Any, **kwargs: Any) -> Any:
            outcome = super().run(*args, **kwargs)
            finals.append(self.state)
            return outcome

    monkeypatch.setattr(rules_es, "make_agent", lambda spec, **kwargs: Spy(make(spec, **kwargs)))
    monkeypatch.setattr(rules_es, "Session", Recorded)
    outcomes, plies = play_rule_games(game, np.full(len(RULES), 0.5), seeds, seats, Opponent("random", AGENT))
    assert len(finals) == len(seeds)
    for k, state in enumerate(finals):
        assert {to_move for g, to_move in turns if g == k} == {1 - seats[k]}  # the opponent's colour
        expected = 0 if state.winner is None else (1 if state.winner == seats[k] else -1)
        assert (outcomes[0, k], plies[0, k]) == (expected, state.ply)


def test_compiled_games_win_as_often_as_games_against_the_agent() -> None:
    # the compiled random opponent follows the agent's rule: about the same share of wins
    game = parse_game("quixo")
    seeds, seats = game_seeds(1, 1, 60)
    weights = np.full(len(RULES), 0.5)
    compiled, _ = play_rule_games(game, weights, seeds, seats, parse_opponent("random", game))
    agent, _ = play_rule_games(game, weights, seeds, seats, Opponent("random", AGENT))
    assert (agent == 1).mean() > 0.7 and abs((compiled == 1).mean() - (agent == 1).mean()) < 0.15


def test_compiled_games_end_as_draws_at_the_ply_cap_and_a_draw_is_no_win() -> None:
    game = parse_game("quixo:ply_cap=5")  # nobody can line up five cubes in five plies
    seeds, seats = game_seeds(2, 2, 6)
    assert seats.tolist() == [0, 1] * 3  # the rule player moves first in the even games
    outcomes, plies = play_rule_games(
        game, np.full(len(RULES), 0.5), seeds, seats, parse_opponent("random", game)
    )
    assert (plies == 5).all() and (outcomes == 0).all()
    assert ESRun.start(game, params_for({**TINY, "games": 4}), seed=0).parent_fitness == 0.0


def test_a_resumed_run_keeps_counting_its_stale_epochs(tmp_path: Path) -> None:
    run = ESRun.start(parse_game("quixo"), params_for({**TINY, "games": 2}), seed=4)
    run.stale = 3
    assert ESRun.resume(run.save(tmp_path / "run.json")).stale == 3  # patience is not reset
