"""MCTS with pluggable evaluators: exact and scripted evaluators prove the batched plug, the
tree's bookkeeping is checked node by node, and the agent's decisions carry policy and value."""

from __future__ import annotations

import random
from functools import cache

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from boardlab.agents import AgentSpecError, make_agent
from boardlab.agents.decision import Limit
from boardlab.games import parse_game
from boardlab.games.base import ONGOING, Kernel
from boardlab.games.small_solver import Solution
from boardlab.search.gumbel import GumbelSearch, run_gumbel_together
from boardlab.search.mcts import (
    CLOCK_EVERY,
    PENDING,
    PUCT,
    UCT,
    EvaluatorError,
    Rollouts,
    Search,
    evaluate_together,
    mcts_search,
)

TTT = parse_game("tictactoe")
C4 = parse_game("connect4")
QUIXO = parse_game("quixo")


@cache
def ttt_solution() -> Solution:
    return Solution(TTT.kernel)


class ExactEvaluator:
    """Tic-Tac-Toe's perfect-play value of each position, uniform priors; counts its calls."""

    def __init__(self) -> None:
        self.batch_sizes: list[int] = []

    def value(self, a: int, b: int) -> float:
        return float(ttt_solution().value((int(a), int(b))))

    def evaluate(self, words: np.ndarray, legal: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        self.batch_sizes.append(len(words))
        return legal.astype(np.float64), np.array([self.value(a, b) for a, b in words])


class FixedEvaluator:
    """The same priors over the action space and the same value for every position."""

    def __init__(self, priors: np.ndarray, value: float = 0.0) -> None:
        self.priors, self.constant = priors, value

    def evaluate(self, words: np.ndarray, legal: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return np.tile(self.priors, (len(words), 1)), np.full(len(words), self.constant)


def random_state(game, seed: int, plies: int):  # type: ignore[no-untyped-def]
    """A position after up to ``plies`` random moves that leave the game going."""
    rng = random.Random(seed)
    state = game.initial()
    for _ in range(plies):
        options = [a for a in state.legal_indices() if not state.play_index(a).is_over]
        if not options:
            break
        state = state.play_index(rng.choice(options))
    return state


def exact_search(state, rule: str = PUCT, seed: int = 0, evaluator=None) -> Search:  # type: ignore[no-untyped-def]
    return Search(
        state.kernel,
        *state.words,
        evaluator or ExactEvaluator(),
        rule,
        c=1.5,
        rng=np.random.default_rng(seed),
        capacity=20_000,
    )


def check_tree(search: Search, value_of) -> None:  # type: ignore[no-untyped-def]
    """Every node's visits and value add up from its children and its own evaluations, with
    no virtual loss left over and no leaf left waiting; children are the legal moves, with
    priors summing to one."""
    tree, kernel = search.tree, search.kernel
    size = int(tree.size[0])
    assert search.simulations == tree.visits[0] == tree.visits[tree.children(0)].sum()
    assert not np.any(tree.n_children[:size] == PENDING)
    buf = np.empty(kernel.num_actions, np.int64)
    for node in range(size):
        rows = tree.children(node)
        child_visits = tree.visits[rows].sum()
        own = tree.visits[node] - child_visits
        if node == 0:
            assert own == 0  # the root's evaluation is no simulation
        elif tree.first_child[node] >= 0:
            assert own == 1  # a leaf is evaluated once, when it is expanded
        a, b = tree.me[node], tree.opp[node]
        expected = -value_of(a, b) * own - tree.value[rows].sum()
        assert tree.value[node] == pytest.approx(expected, abs=1e-9)
        if tree.first_child[node] >= 0:
            n = kernel.gen_moves(kernel.ctx, a, b, buf)
            assert sorted(tree.move[rows].tolist()) == sorted(buf[:n].tolist())
            assert tree.prior[rows].sum() == pytest.approx(1.0)


def test_puct_with_exact_values_keeps_the_game_value_with_few_simulations():
    solution = ttt_solution()
    checked = 0
    for seed in range(60):
        state = random_state(TTT, seed, seed % 7)
        if len(state.legal_indices()) < 2:
            continue
        search = exact_search(state, seed=seed)
        search.run(iterations=40, batch=1 + seed % 4)
        action, _ = search.best()
        assert solution.value(state.play_index(action)) == -solution.value(state), state
        checked += 1
    assert checked > 40


def test_priors_steer_visits_where_values_are_equal():
    # every position is worth a draw: PUCT then shares its visits in proportion to the priors
    priors = np.arange(1.0, 8.0)
    state = C4.initial()
    search = Search(state.kernel, *state.words, FixedEvaluator(priors), PUCT, c=1.5, capacity=50_000)
    search.run(iterations=350, batch=8)
    policy = search.policy()
    assert np.all(np.diff(policy) >= 0)
    np.testing.assert_allclose(policy, priors / priors.sum(), atol=0.02)


@given(
    seed=st.integers(0, 10_000),
    plies=st.integers(0, 6),
    batch=st.integers(1, 12),
    sims=st.integers(1, 150),
    rule=st.sampled_from([UCT, PUCT]),
)
def test_batched_cycles_leave_a_consistent_tree(seed, plies, batch, sims, rule):  # type: ignore[no-untyped-def]
    state = random_state(TTT, seed, plies)
    evaluator = ExactEvaluator()
    search = exact_search(state, rule, seed, evaluator)
    added = search.run(iterations=sims, batch=batch)
    assert added == search.simulations == sims
    assert max(evaluator.batch_sizes) <= batch
    check_tree(search, evaluator.value)


def test_illegal_actions_never_get_visits():
    state = random_state(QUIXO, 3, 10)
    legal = state.legal_mask()
    assert not legal.all()
    # nearly all the prior mass on illegal actions: the search keeps the legal ones' share
    priors = np.where(legal, 0.001, 1.0)
    search = Search(state.kernel, *state.words, FixedEvaluator(priors), PUCT, capacity=100_000)
    search.run(iterations=300, batch=8)
    policy = search.policy()
    assert policy[~legal].sum() == 0 and policy.sum() == pytest.approx(1.0)
    rows = search.tree.children(0)
    np.testing.assert_allclose(search.tree.prior[rows], 1.0 / legal.sum())


@pytest.mark.parametrize("rule", [UCT, PUCT])
def test_descents_below_the_root_are_the_plain_cycle(rule):
    # the Gumbel root's forced descents and the plain cycle are one compiled descent
    state = random_state(C4, 2, 4)
    evaluator = FixedEvaluator(np.linspace(1, 2, C4.kernel.num_actions), 0.25)
    plain, below = (exact_search(state, rule, 7, evaluator) for _ in range(2))
    root = np.zeros(1, np.int64)
    for limit in (1, 5, 8, 3, 8):
        leaves = plain.collect(limit)
        plain.complete(leaves, *evaluator.evaluate(leaves.words, leaves.legal))
        finished = below.simulations
        forced, gained = below.collect_below(root, np.array([limit]))
        finished = below.simulations - finished
        assert gained[0] == len(forced) + finished and len(forced) == len(leaves)
        below.complete(forced, *evaluator.evaluate(forced.words, forced.legal))
    assert plain.simulations == below.simulations
    size = int(plain.tree.size[0])
    for name in ("move", "visits", "value", "prior"):
        assert np.array_equal(getattr(plain.tree, name)[:size], getattr(below.tree, name)[:size])


@settings(max_examples=25)
@given(
    seed=st.integers(0, 10_000),
    plies=st.integers(0, 5),
    visits=st.lists(st.integers(0, 6), min_size=1, max_size=9),
)
def test_descents_forced_through_root_children_stay_below_them(seed, plies, visits):  # type: ignore[no-untyped-def]
    state = random_state(TTT, seed, plies)
    evaluator = ExactEvaluator()
    search = exact_search(state, PUCT, seed, evaluator)
    search.run(iterations=12, batch=3)
    tree = search.tree
    rows = tree.children(0)
    n = min(len(visits), rows.stop - rows.start)
    starts = np.arange(rows.start, rows.start + n, dtype=np.int64)
    counts = np.array(visits[:n], np.int64)
    before = tree.visits[starts].copy()
    leaves, gained = search.collect_below(starts, counts)
    assert np.all(gained <= counts)
    for node in leaves.nodes:  # each new leaf lies below one of the forced children
        while tree.parent[node] > 0:
            node = tree.parent[node]
        assert node in starts
    search.complete(leaves, *evaluator.evaluate(leaves.words, leaves.legal))
    assert np.array_equal(tree.visits[starts] - before, gained)
    check_tree(search, evaluator.value)


@pytest.mark.parametrize("rule", [UCT, PUCT])
def test_the_same_seed_gives_the_same_search(rule):
    state = random_state(C4, 1, 6)

    def grown(seed: int, evaluator) -> np.ndarray:  # type: ignore[no-untyped-def]
        search = Search(
            state.kernel, *state.words, evaluator, rule, rng=np.random.default_rng(seed), capacity=50_000
        )
        search.run(iterations=500, batch=4)
        size = int(search.tree.size[0])
        return np.concatenate([search.tree.visits[:size], search.tree.value[:size], search.tree.move[:size]])

    flat = FixedEvaluator(np.ones(C4.kernel.num_actions))
    for evaluator in (Rollouts(), flat):
        assert np.array_equal(grown(4, evaluator), grown(4, evaluator))
    assert not np.array_equal(grown(4, Rollouts()), grown(5, Rollouts()))


def test_searches_sharing_one_evaluator_call_grow_as_they_would_alone():
    states = [random_state(TTT, seed, 2 + seed) for seed in range(3)]
    together = [exact_search(state, seed=seed) for seed, state in enumerate(states)]
    alone = [exact_search(state, seed=seed) for seed, state in enumerate(states)]
    shared = ExactEvaluator()
    for _ in range(12):
        evaluate_together(together, shared, 4)
    assert len(shared.batch_sizes) == 12 and shared.batch_sizes[0] == 3  # the three roots
    for search in alone:
        own = ExactEvaluator()
        for _ in range(12):
            leaves = search.collect(4)
            if len(leaves):
                search.complete(leaves, *own.evaluate(leaves.words, leaves.legal))
    for a, b in zip(together, alone, strict=True):
        assert a.simulations == b.simulations > 12
        size = int(a.tree.size[0])
        assert size == b.tree.size[0]
        for name in ("move", "visits", "value", "prior"):
            assert np.array_equal(getattr(a.tree, name)[:size], getattr(b.tree, name)[:size])


@pytest.mark.parametrize("rule", [UCT, PUCT])
def test_compiled_rollouts_find_an_immediate_win(rule):
    # X to move has three in the bottom row with both ends open
    state = C4.initial()
    for column in (3, 0, 4, 0, 2, 6):
        state = state.play_index(column)
    wins = {a for a in state.legal_indices() if state.play_index(a).is_over}
    assert wins
    search = Search(
        state.kernel, *state.words, Rollouts(), rule, rng=np.random.default_rng(0), capacity=100_000
    )
    search.run(iterations=2000)
    assert search.best()[0] in wins
    assert search.simulations == search.tree.visits[0] == 2000


def test_a_malformed_answer_is_refused_with_one_line():
    state = TTT.initial()
    search = exact_search(state)
    leaves = search.collect(1)
    with pytest.raises(EvaluatorError, match="shape"):
        search.complete(leaves, np.ones((1, 3)), np.zeros(1))
    with pytest.raises(EvaluatorError, match=r"\[-1, 1\]"):
        search.complete(leaves, np.ones((1, 9)), np.array([1.5]))
    with pytest.raises(EvaluatorError, match="non-negative"):
        search.complete(leaves, -np.ones((1, 9)), np.zeros(1))
    with pytest.raises(ValueError, match="accepted: uct, puct"):
        Search(state.kernel, *state.words, Rollouts(), "ucb")
    finished = parse_game("tictactoe").initial()
    for action in (0, 3, 1, 4, 2):
        finished = finished.play_index(action)
    assert finished.status != ONGOING
    with pytest.raises(ValueError, match="finished position"):
        Search(finished.kernel, *finished.words, Rollouts())


class ObservingEvaluator(FixedEvaluator):
    """Uniform priors and a draw, from an evaluator that says which kernel it observes with."""

    def __init__(self, kernel: Kernel) -> None:
        super().__init__(np.ones(kernel.num_actions))
        self.kernel = kernel


def test_an_evaluator_built_for_another_kernel_is_refused():
    c4, ttt = C4.initial(), TTT.initial()
    with pytest.raises(EvaluatorError, match="built for the kernel tictactoe, not for connect4"):
        Search(C4.kernel, *c4.words, ObservingEvaluator(TTT.kernel), PUCT)
    with pytest.raises(EvaluatorError, match="built for the kernel connect4"):
        evaluate_together([exact_search(ttt)], ObservingEvaluator(C4.kernel), 4)
    with pytest.raises(EvaluatorError, match="built for the kernel connect4"):
        run_gumbel_together([GumbelSearch(TTT.kernel, *ttt.words, 4)], ObservingEvaluator(C4.kernel))
    search = Search(C4.kernel, *c4.words, ObservingEvaluator(C4.kernel), PUCT)
    assert search.run(iterations=8, batch=4) == 8


@pytest.mark.parametrize("c", [-1.0, float("nan"), float("inf")])
def test_a_bad_exploration_constant_is_refused(c: float) -> None:
    state = TTT.initial()
    with pytest.raises(ValueError, match="exploration constant c"):
        Search(state.kernel, *state.words, ExactEvaluator(), PUCT, c=c)


@pytest.mark.parametrize("batch", [0, -3, 1.5, True])
def test_a_bad_batch_is_refused(batch: object) -> None:
    search = exact_search(TTT.initial())
    with pytest.raises(ValueError, match="batch must be"):
        search.run(iterations=8, batch=batch)  # type: ignore[arg-type]
    assert search.simulations == 0


def test_the_agent_decides_with_policy_value_and_line():
    state = random_state(C4, 2, 8)
    agent = make_agent("mcts:iters=300", seed=5)
    decision = agent.act(state)
    assert decision.info is not None and decision.info.nodes == 300 and decision.info.engine == "mcts"
    assert decision.policy is not None and decision.policy.sum() == pytest.approx(1.0)
    assert decision.policy[~state.legal_mask()].sum() == 0
    assert decision.policy[state.move_index(decision.move)] == decision.policy.max()
    assert decision.value is not None and -1 <= decision.value <= 1
    assert decision.info.pv[0] == str(decision.move)
    line = state
    for move in decision.info.pv:  # the line is playable
        line = line.play(move)
    assert agent.act(state, Limit(iterations=50)).info.nodes == 50
    assert make_agent("mcts", seed=0).act(state).info.nodes == 1000
    assert make_agent("mcts:time=0.05", seed=0).act(state).info.nodes > 0
    # the same seed, the same decision
    again = make_agent("mcts:iters=300", seed=5).act(state)
    assert (again.move, again.value, again.info.pv) == (decision.move, decision.value, decision.info.pv)
    assert np.array_equal(again.policy, decision.policy)


def test_rollouts_stop_at_a_passed_deadline_and_play_all_without_one() -> None:
    """A leaf's value is the mean of all its rollouts without a deadline, and of the first
    CLOCK_EVERY (the first clock check) with one already passed."""
    state = parse_game("tictactoe").initial()
    value, _ = Rollouts.build(state.kernel)
    buf = np.empty(state.kernel.num_actions, dtype=np.int64)
    me, opp = (np.int64(w) for w in state.words)
    full = value(state.kernel.ctx, me, opp, buf, (9, 3 * CLOCK_EVERY + 1, 0.0))
    cut = value(state.kernel.ctx, me, opp, buf, (9, 3 * CLOCK_EVERY + 1, 1e-9))
    assert round(full * (3 * CLOCK_EVERY + 1)) == pytest.approx(full * (3 * CLOCK_EVERY + 1))
    assert round(cut * CLOCK_EVERY) == pytest.approx(cut * CLOCK_EVERY)


def test_rollouts_need_a_positive_cap_and_count() -> None:
    for bad in ({"cap": 0}, {"count": 0}, {"count": -2}):
        with pytest.raises(ValueError, match="positive cap and count"):
            Rollouts(**bad)
    with pytest.raises(AgentSpecError, match="rollouts"):
        make_agent("mcts:rollouts=0")


def test_a_search_without_a_budget_is_refused_and_adds_nothing() -> None:
    state = TTT.initial()
    search = Search(state.kernel, *state.words, Rollouts(), rng=np.random.default_rng(0), capacity=1000)
    with pytest.raises(ValueError, match="iterations or a time budget"):
        search.run()
    assert search.simulations == 0 and search.tree.visits[0] == 0
    with pytest.raises(ValueError, match="has not run"):
        search.best()


def test_runs_add_exactly_the_iterations_asked_and_their_time() -> None:
    state = random_state(C4, 3, 6)
    search = Search(
        state.kernel, *state.words, Rollouts(count=3), rng=np.random.default_rng(0), capacity=50_000
    )
    assert search.run(iterations=301) == 301
    assert search.run(seconds=0.02) > 0
    first = search.seconds
    assert first >= 0.02
    search.run(seconds=0.02)
    assert search.seconds >= first + 0.02  # the time of every run, not the last one's
    assert search.simulations == search.tree.visits[0]


def test_the_value_is_the_roots_mean_for_the_side_to_move() -> None:
    # X to move wins at once (the top row): most simulations go there, each a win for X
    state = TTT.initial()
    for action in (0, 3, 1, 4):
        state = state.play_index(action)
    result, _ = mcts_search(state.kernel, *state.words, 2000, 0.0, 1.4, 50, np.random.default_rng(0))
    assert result.move == 2 and result.value == 1.0
    decision = make_agent("mcts:iters=2000", seed=0).act(state)
    assert decision.value is not None and decision.value > 0.5


def test_equal_visits_are_broken_from_the_seed() -> None:
    state = TTT.initial()
    picks = set()
    for seed in range(20):
        search = Search(
            state.kernel, *state.words, Rollouts(), rng=np.random.default_rng(seed), capacity=1000
        )
        search.run(iterations=9)  # one visit to each root move
        assert sorted(search.tree.root_children()[1].tolist()) == [1] * 9
        picks.add(search.best()[0])
    assert len(picks) > 3


def test_the_principal_line_follows_visited_nodes_only() -> None:
    for seed in range(3):
        state = random_state(C4, seed, 6)
        rollouts = Search(
            state.kernel, *state.words, Rollouts(), rng=np.random.default_rng(seed), capacity=50_000
        )
        rollouts.run(iterations=40 + 7 * seed)
        batched = exact_search(random_state(TTT, seed, 2), seed=seed)  # expanded leaves: unvisited children
        batched.run(iterations=30 + 7 * seed, batch=4)
        for search in (rollouts, batched):
            tree, node = search.tree, 0
            line = search.principal_line()
            assert line
            for action in line:
                rows = tree.children(node)
                node = rows.start + int(np.flatnonzero(tree.move[rows] == action)[0])
                assert tree.visits[node] > 0
                assert tree.visits[node] == tree.visits[rows].max()


def test_a_malformed_number_of_values_or_a_non_finite_prior_is_refused() -> None:
    state = TTT.initial()
    search = exact_search(state)
    leaves = search.collect(1)
    with pytest.raises(EvaluatorError, match="1 values"):
        search.complete(leaves, np.ones((1, 9)), np.zeros(2))
    for bad in (np.nan, np.inf):
        with pytest.raises(EvaluatorError, match="finite"):
            search.complete(leaves, np.full((1, 9), bad), np.zeros(1))
    search.complete(leaves, np.ones((1, 9)), np.ones(1))  # a value of exactly 1 is accepted


def test_a_timed_search_grows_a_tree_past_the_root() -> None:
    state = random_state(C4, 1, 6)
    _, tree = mcts_search(state.kernel, *state.words, 0, 0.05, 1.4, 200, np.random.default_rng(0))
    # more than the root and its children: nodes below them were expanded
    assert (tree.first_child[1:] >= 0).sum() > 1
    _, small = mcts_search(
        state.kernel, *state.words, 20, 0.0, 1.4, 200, np.random.default_rng(0), capacity=500
    )
    assert len(small.visits) == 500


def test_the_mcts_agent_passes_on_its_options_and_reports_the_roots_value() -> None:
    state = random_state(C4, 2, 8)
    agent = make_agent("mcts:iters=200,c=2.5,rollout=7,rollouts=3", seed=4)
    search = agent.search(state)
    assert (search.c, search.evaluator.cap, search.evaluator.count, search.simulations) == (2.5, 7, 3, 200)
    decision = make_agent("mcts:iters=200,c=2.5,rollout=7,rollouts=3", seed=4).act(state)
    assert decision.value == search.value()
    assert decision.info is not None and decision.info.depth == len(decision.info.pv)
