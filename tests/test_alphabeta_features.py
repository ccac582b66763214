"""Alpha-beta search features (PVS, aspiration windows, evaluation ordering, LMR, null move) against
plain search.

PVS, aspiration windows and move ordering must not change the value of a search that time
does not cut: each is compared with the plain search and with the naive negamax of
``test_agents``. Late-move reductions and the null move do change values, so they are checked
for legal moves, sane scores, proven results and for leaving the searches too shallow for
them exact.
"""

from __future__ import annotations

import numpy as np
import pytest
from test_agents import naive_negamax, random_position

from boardlab.agents import AgentSpecError, make_agent
from boardlab.agents.alphabeta import INF, MATE_ZONE, WIN, SearchRunner, _repeated, new_seen, seen_add
from boardlab.games import parse_game
from boardlab.games.quixo import State

FEATURES = {
    "plain": {},
    "pvs": {"pvs": True},
    "aspiration": {"aspiration": 3.0},
    "order": {"order_depth": 2},
    "all exact": {"pvs": True, "aspiration": 3.0, "order_depth": 2},
}


def _runner(state: State, eval_name: str = "lines2", **features: object) -> SearchRunner:
    return SearchRunner(state.kernel, eval_name, tt_log2=14, contempt=0.0, **features)  # type: ignore[arg-type]


@pytest.mark.parametrize("name", [n for n in FEATURES if n != "plain"])
def test_exact_features_keep_the_plain_search_value_at_fixed_depth(name):
    for seed in range(6):
        state = random_position(900 + seed, 6 + 5 * seed)
        plain = _runner(state).iterate(*state.words, 5, 0.0, np.random.default_rng(seed))
        featured = _runner(state, **FEATURES[name]).iterate(*state.words, 5, 0.0, np.random.default_rng(seed))
        assert featured.score == pytest.approx(plain.score), (state.to_text(), name)
        assert featured.depth == plain.depth == 5 or is_decided(plain.score)


def is_decided(score: float) -> bool:
    return abs(score) >= MATE_ZONE


@pytest.mark.parametrize("eval_name", ["lines3", "density"])
def test_exact_features_equal_plain_negamax(eval_name):
    kernel = State.initial().kernel
    eval_id = kernel.evaluations.index(eval_name)
    jitter = np.zeros(kernel.num_actions)
    for seed in range(2):
        state = random_position(950 + seed, 12 + 7 * seed)
        for depth in (2, 3):
            expected = naive_negamax(state, depth, eval_id, ())
            for features in FEATURES.values():
                runner = _runner(state, eval_name, **{k: v for k, v in features.items() if k != "aspiration"})
                move, score, _, aborted = runner.search(*state.words, depth, jitter)
                assert not aborted
                assert score == pytest.approx(expected), (state.to_text(), depth, features)
                child = -naive_negamax(state.play_index(move), depth, eval_id, (state.words,))
                assert child == pytest.approx(expected)


def test_root_window_bounds_the_value_from_the_right_side():
    state = random_position(31, 16)
    jitter = np.zeros(state.kernel.num_actions)
    exact = _runner(state).search(*state.words, 4, jitter)[1]
    for pvs in (False, True):
        _, inside, _, _ = _runner(state, pvs=pvs).search(
            *state.words, 4, jitter, window=(exact - 1, exact + 1)
        )
        assert inside == pytest.approx(exact)
        _, low, _, _ = _runner(state, pvs=pvs).search(*state.words, 4, jitter, window=(exact + 1, exact + 9))
        assert exact <= low <= exact + 1  # fail low: an upper bound, at least the true value
        _, high, _, _ = _runner(state, pvs=pvs).search(*state.words, 4, jitter, window=(exact - 9, exact - 1))
        assert exact - 1 <= high <= exact  # fail high: a lower bound
        _, full, _, _ = _runner(state, pvs=pvs).search(*state.words, 4, jitter, window=(-INF, INF))
        assert full == pytest.approx(exact)


@pytest.mark.parametrize("lmr", [1, 3])
def test_late_move_reductions_play_legal_moves_with_sane_scores(lmr):
    for seed in range(4):
        state = random_position(970 + seed, 8 + 6 * seed)
        exact = _runner(state).iterate(*state.words, 5, 0.0, np.random.default_rng(0))
        reduced = _runner(state, lmr=lmr, pvs=True).iterate(*state.words, 5, 0.0, np.random.default_rng(0))
        assert reduced.move in state.legal_indices()
        assert reduced.nodes <= exact.nodes
        # a reduced search finds the same proven results, and heuristic values of the same kind
        assert is_decided(reduced.score) == is_decided(exact.score) or reduced.depth < 5
        assert abs(reduced.score) < WIN
    # a win in one is found whatever is reduced
    state = State.from_text("XXXX./OO.../O..../O..../..... X")
    result = _runner(state, lmr=1, pvs=True).iterate(*state.words, 6, 0.0, np.random.default_rng(0))
    assert result.score == WIN - 1
    assert state.play_index(result.move).winner == 0


@pytest.mark.parametrize("features", [{"lmr": 1}, {"null_move": 3}])
def test_reductions_and_the_null_move_leave_a_depth_three_search_exact(features):
    # both act only below the root at nodes with 3 plies left: a depth-3 search has none
    state = random_position(41, 14)
    eval_id = state.kernel.evaluations.index("lines2")
    jitter = np.zeros(state.kernel.num_actions)
    _, score, _, _ = _runner(state, **features).search(*state.words, 3, jitter)
    assert score == pytest.approx(naive_negamax(state, 3, eval_id, ()))


@pytest.mark.parametrize("null_move", [2, 3])
def test_null_move_saves_nodes_and_keeps_proven_results(null_move):
    saved = 0
    for seed in range(5):
        state = random_position(980 + seed, 6 + 7 * seed)
        exact = _runner(state, "tuned").iterate(*state.words, 6, 0.0, np.random.default_rng(0))
        pruned = _runner(state, "tuned", null_move=null_move).iterate(
            *state.words, 6, 0.0, np.random.default_rng(0)
        )
        assert pruned.move in state.legal_indices()
        assert abs(pruned.score) < WIN
        # a pass never stands in for a proof: a proven result is proven by real moves
        assert is_decided(pruned.score) == is_decided(exact.score)
        saved += pruned.nodes < exact.nodes
    assert saved >= 4


def test_null_move_still_sees_the_threat_a_pass_would_allow():
    # O (to move) stands far better by the evaluation, but X threatens to complete the top
    # row: a pass would lose at once, so it is refuted, and O must find one of its 7 blocks
    state = State.from_text("XXXX./O.O.O/.O.O./O.O.O/.O.O. O")
    for null_move in (0, 2, 3):
        result = _runner(state, "tuned", null_move=null_move).iterate(
            *state.words, 6, 0.0, np.random.default_rng(0)
        )
        after = state.play_index(result.move)
        assert not any(after.play_index(m).winner == 0 for m in after.legal_indices()), null_move


def test_a_line_through_a_pass_compares_only_the_positions_after_it():
    a, b, c = (np.int64(w) for w in (0b1, 0b10, 0b100))
    seen = new_seen()
    seen_add(seen, a, b)  # a game position
    path_mes = np.array([a, b, a, c, a], dtype=np.int64)
    path_opps = np.array([b, a, b, a, b], dtype=np.int64)
    assert _repeated(seen, path_mes, path_opps, 4, np.int64(-1))  # no pass: plies 0 and 2 count
    assert _repeated(seen, path_mes, path_opps, 4, np.int64(2))  # a pass at ply 2: ply 2 counts
    assert not _repeated(seen, path_mes, path_opps, 4, np.int64(3))  # nor the game, after a pass
    assert not _repeated(seen, path_mes, path_opps, 4, np.int64(4))


def test_feature_options_are_read_and_checked():
    game = parse_game("quixo")
    agent = make_agent("alphabeta:time=0.05,pvs=1,asp=10,lmr=3,order=2", seed=0, game=game)
    runner = agent.runner(game.kernel)
    assert (runner.pvs, runner.aspiration, runner.lmr, runner.order_depth) == (True, 10.0, 3, 2)
    state = random_position(5, 10)
    assert agent.choose(state) in state.legal_moves()
    with pytest.raises(AgentSpecError, match="lmr"):
        make_agent("alphabeta:lmr=-1")
    with pytest.raises(AgentSpecError, match="asp"):
        make_agent("alphabeta:asp=-5")
    with pytest.raises(AgentSpecError, match="null"):
        make_agent("alphabeta:null=9")
    hybrid = make_agent("hybrid:null=3", seed=0, game=game)
    assert hybrid.searcher.runner(game.kernel).null_move == 3


def test_deepen_share_decides_whether_a_new_depth_starts():
    # depth 1 always runs; with a share of 0 no deeper iteration starts, with 1 all of them do
    state = random_position(5, 10)
    shallow = _runner(state, deepen=0.0).iterate(*state.words, 4, 60.0, np.random.default_rng(0))
    deep = _runner(state, deepen=1.0).iterate(*state.words, 4, 60.0, np.random.default_rng(0))
    assert (shallow.depth, deep.depth) == (1, 4)
    hybrid = make_agent("hybrid:deepen=0.9,tempo=3", seed=0, game=state.game)
    runner = hybrid.searcher.runner(state.kernel)
    assert (runner.deepen, runner.tempo) == (0.9, 3.0)
    with pytest.raises(AgentSpecError, match="deepen"):
        make_agent("alphabeta:deepen=2")


def test_tempo_is_added_to_every_leaf_evaluation():
    # at even depth every leaf has the root side to move, at odd depth the other side: the
    # tempo, added to the value for the side to move at a leaf, moves the root value up or down
    state = random_position(8, 12)
    jitter = np.zeros(state.kernel.num_actions)
    for depth, sign in ((1, -1), (2, 1)):
        _, plain, _, _ = _runner(state).search(*state.words, depth, jitter)
        _, tempo, _, _ = _runner(state, tempo=7.5).search(*state.words, depth, jitter)
        assert tempo == pytest.approx(plain + sign * 7.5)


def test_features_are_generic_over_games():
    for spec in ("connect4", "tictactoe"):
        game = parse_game(spec)
        state = game.initial()
        plain = SearchRunner(game.kernel, "", tt_log2=12).iterate(
            *state.words, 4, 0.0, np.random.default_rng(0)
        )
        featured = SearchRunner(game.kernel, "", tt_log2=12, pvs=True, aspiration=2.0, order_depth=2).iterate(
            *state.words, 4, 0.0, np.random.default_rng(0)
        )
        assert featured.score == pytest.approx(plain.score)


def test_repeated_positions_scored_by_their_evaluation_match_naive_negamax():
    # a full board: every move shifts cubes, so two moves can bring a position back
    state = State.from_text("XOXOO/OOXXO/XXXXO/XOOOO/XOOOX X")
    eval_id = state.kernel.evaluations.index("tuned")
    jitter = np.zeros(state.kernel.num_actions)
    differs = 0
    for start in [state, *(state.play_index(m) for m in state.legal_indices()[:6])]:
        if start.is_over:
            continue
        runner = SearchRunner(start.kernel, "tuned", tt_log2=12, contempt=0.0, repeat_eval=True)
        _, score, _, _ = runner.search(*start.words, 3, jitter)
        expected = naive_negamax(start, 3, eval_id, (), repeat_eval=True)
        assert score == pytest.approx(expected), start.to_text()
        differs += expected != pytest.approx(naive_negamax(start, 3, eval_id, ()))
    assert differs > 0  # repetitions within three plies did change some values
    agent = make_agent("alphabeta:repeat=eval", game=parse_game("quixo"))
    assert agent.runner(state.kernel).repeat_eval


def test_helper_threads_search_beside_the_main_one_and_stop_with_it():
    import threading

    threads_before = threading.active_count()
    for seed in range(3):
        state = random_position(990 + seed, 8 + 6 * seed)
        alone = _runner(state, "tuned").iterate(*state.words, 6, 0.0, np.random.default_rng(0))
        shared = _runner(state, "tuned", threads=3).iterate(*state.words, 6, 0.0, np.random.default_rng(0))
        assert shared.move in state.legal_indices()
        assert shared.depth == alone.depth
        assert is_decided(shared.score) == is_decided(alone.score)
        assert threading.active_count() == threads_before  # no helper left running
    # a win in one is found however the threads race, and within a time limit too
    state = State.from_text("XXXX./OO.../O..../O..../..... X")
    for seconds in (0.0, 0.5):
        result = _runner(state, threads=2).iterate(*state.words, 8, seconds, np.random.default_rng(0))
        assert result.score == WIN - 1


def test_helper_threads_add_their_nodes_and_hand_over_their_errors():
    state = random_position(7, 14)
    runner = _runner(state, "tuned", threads=2)
    counted = runner.iterate(*state.words, 5, 0.0, np.random.default_rng(0)).nodes
    main_only = _runner(state, "tuned").iterate(*state.words, 5, 0.0, np.random.default_rng(0)).nodes
    assert counted > 0 and counted != main_only

    class Broken(SearchRunner):
        def _search(self, ordering, *args):  # type: ignore[no-untyped-def]
            if ordering[0] is not self.history:
                raise RuntimeError("helper failed")
            return super()._search(ordering, *args)

    broken = Broken(state.kernel, "tuned", tt_log2=14, threads=2)
    with pytest.raises(RuntimeError, match="helper failed"):
        broken.iterate(*state.words, 4, 0.0, np.random.default_rng(0))
    assert broken.stop[0] == 0  # ready for the next search


def test_threads_option_is_read_and_checked():
    game = parse_game("quixo")
    agent = make_agent("alphabeta:time=0.05,threads=2", seed=0, game=game)
    assert len(agent.runner(game.kernel).helpers) == 1
    state = random_position(5, 10)
    assert agent.choose(state) in state.legal_moves()
    hybrid = make_agent("hybrid:threads=4", seed=0, game=game)
    assert len(hybrid.searcher.runner(game.kernel).helpers) == 3
    with pytest.raises(AgentSpecError, match="threads"):
        make_agent("alphabeta:threads=0")
    with pytest.raises(AgentSpecError, match="threads"):
        make_agent("hybrid:threads=65")
