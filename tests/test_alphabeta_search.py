"""Alpha-beta beyond its root value (which ``test_agents`` checks against a naive negamax):
repetitions, the deepening share, helper threads, supplied leaf evaluations, and the options
it keeps and refuses."""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import replace

import numpy as np
import pytest
from numba import njit
from test_agents import random_position

from boardlab.agents import AgentSpecError, make_agent
from boardlab.agents.alphabeta import AlphaBetaAgent, AlphaBetaSettings, OwnEvaluationSettings
from boardlab.agents.base import AGENTS, register
from boardlab.core.spec import options_of
from boardlab.games import parse_game
from boardlab.games.quixo import State
from boardlab.search.alphabeta import (
    MATE_ZONE,
    WIN,
    SearchRunner,
    _repeated,
    compiled_search,
    new_seen,
    seen_add,
)
from boardlab.search.clock import now
from boardlab.ui.listing import agent_options


def _runner(state: State, eval_name: str = "lines2", **features: object) -> SearchRunner:
    return SearchRunner(state.kernel, eval_name, tt_log2=14, contempt=0.0, **features)  # type: ignore[arg-type]


def is_decided(score: float) -> bool:
    return abs(score) >= MATE_ZONE


def test_a_position_repeats_a_game_position_or_one_of_the_same_side_on_the_line():
    a, b, c = (np.int64(w) for w in (0b1, 0b10, 0b100))
    path_mes = np.array([a, b, a, c, a], dtype=np.int64)
    path_opps = np.array([b, a, b, a, b], dtype=np.int64)
    seen = new_seen()
    assert _repeated(seen, path_mes, path_opps, 4)  # plies 0 and 2 hold it, the same side to move
    assert not _repeated(seen, path_mes, path_opps, 3)  # (c, a) stood nowhere before
    assert not _repeated(seen, path_mes, path_opps, 1)  # (b, a) at ply 1 only
    seen_add(seen, c, a)  # once it is a position of the game
    assert _repeated(seen, path_mes, path_opps, 3)


@pytest.mark.parametrize(
    "option", ["pvs=1", "asp=5", "lmr=3", "order=2", "null=3", "rise=10", "tempo=-10.8", "repeat=eval"]
)
def test_search_features_that_lost_or_were_level_are_no_longer_options(option):
    # each lost or was level in its A/B test (BENCHMARKS.md) and was removed with its code
    with pytest.raises(AgentSpecError, match="unknown option"):
        make_agent(f"alphabeta:{option}")


def test_deepen_share_decides_whether_a_new_depth_starts():
    # depth 1 always runs; with a share of 0 no deeper iteration starts, with 1 all of them do
    state = random_position(5, 10)
    shallow = _runner(state, deepen=0.0).iterate(*state.words, 4, 60.0, np.random.default_rng(0))
    deep = _runner(state, deepen=1.0).iterate(*state.words, 4, 60.0, np.random.default_rng(0))
    assert (shallow.depth, deep.depth) == (1, 4)
    hybrid = make_agent("hybrid:search=(alphabeta:deepen=0.9)", seed=0, game=state.game)
    assert hybrid.searcher.runner(state.kernel).deepen == 0.9
    with pytest.raises(AgentSpecError, match="deepen"):
        make_agent("alphabeta:deepen=2")


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
    hybrid = make_agent("hybrid:search=(alphabeta:threads=4)", seed=0, game=game)
    assert len(hybrid.searcher.runner(game.kernel).helpers) == 3
    with pytest.raises(AgentSpecError, match="threads"):
        make_agent("alphabeta:threads=0")
    with pytest.raises(AgentSpecError, match="threads"):
        make_agent("hybrid:search=(alphabeta:threads=65)")


LINES3 = State.initial().kernel.evaluations.index("lines3")
_evaluate = State.initial().kernel.evaluate


@njit
def lines3_supplied(ctx, a, b, eval_id):  # type: ignore[no-untyped-def]
    return _evaluate(ctx, a, b, LINES3)  # the game's lines3, whatever id the search passes


@njit
def lines3_negated(ctx, a, b, eval_id):  # type: ignore[no-untyped-def]
    return -_evaluate(ctx, a, b, LINES3)


def test_a_supplied_evaluation_equal_to_a_named_one_gives_the_same_search():
    kernel = State.initial().kernel
    assert compiled_search(kernel, lines3_supplied) is compiled_search(kernel, lines3_supplied)
    assert compiled_search(kernel, lines3_supplied) is not compiled_search(kernel)
    for seed in range(4):
        state = random_position(600 + seed, 8 + 5 * seed)
        named = SearchRunner(kernel, "lines3", tt_log2=14, win_probe=True)
        supplied = SearchRunner(kernel, "", tt_log2=14, win_probe=True, evaluate=lines3_supplied)
        a = named.iterate(*state.words, 5, 0.0, np.random.default_rng(seed))
        b = supplied.iterate(*state.words, 5, 0.0, np.random.default_rng(seed))
        assert (b.move, b.score, b.depth, b.nodes) == (a.move, a.score, a.depth, a.nodes)
    # the same through the agent's Python API
    state = random_position(7, 14)
    by_name = make_agent("alphabeta:depth=4,eval=lines3", seed=2).act(state)
    by_function = AlphaBetaAgent(seed=2, evaluation=lines3_supplied, depth=4).act(state)
    assert by_function.move == by_name.move
    assert replace(by_function.info, seconds=0.0) == replace(by_name.info, seconds=0.0)


def test_a_different_supplied_evaluation_changes_the_search():
    kernel = State.initial().kernel
    changed = 0
    for seed in range(4):
        state = random_position(700 + seed, 8 + 5 * seed)
        jitter = np.zeros(kernel.num_actions)
        runner = SearchRunner(kernel, "", tt_log2=12, evaluate=lines3_negated)
        _, score, _, _ = runner.search(*state.words, 1, jitter)
        # one ply: the best child by the supplied evaluation, seen from the root side
        children = [state.play_index(m) for m in state.legal_indices()]
        expected = max(
            float(kernel.evaluate(kernel.ctx, *map(np.int64, child.words), LINES3)) for child in children
        )
        assert score == pytest.approx(expected)
        plain = SearchRunner(kernel, "lines3", tt_log2=12).search(*state.words, 1, jitter)[1]
        changed += plain != pytest.approx(score)
    assert changed > 0


def test_course_rules_share_no_table_entry_between_positions_of_different_results():
    # Under the course rules a push completing lines of both colours goes to the first line in
    # the scan order, which a top-bottom mirror reverses: a table shared across all eight
    # symmetries once proved this mirror image lost after searching the position itself.
    position = State.from_text("OXOOO/OXXO./XOOOO/XXXXO/XOOX. X", rules="course")
    mirror = position.transform(5)
    kernel = position.kernel
    jitter = np.zeros(kernel.num_actions)
    shared = SearchRunner(kernel, "lines3", tt_log2=14, win_probe=True)
    shared.search(*position.words, 3, jitter)
    after_the_position = shared.search(*mirror.words, 3, jitter)[1]
    alone = SearchRunner(kernel, "lines3", tt_log2=14, win_probe=True, symmetric=False)
    assert after_the_position == alone.search(*mirror.words, 3, jitter)[1]
    assert not is_decided(after_the_position)


def test_the_compiled_clock_keeps_time_with_perf_counter() -> None:
    now()  # compiled before it is timed
    readings = []
    for _ in range(4):
        before = time.perf_counter()
        reading = now()
        after = time.perf_counter()
        assert before - 1e-3 <= reading <= after + 1e-3
        readings.append(reading)
        time.sleep(0.01)
    assert readings == sorted(readings) and readings[-1] - readings[0] >= 0.025


def _fresh(state: State) -> SearchRunner:
    return SearchRunner(state.kernel, "lines3", tt_log2=14)


def test_a_node_limit_reports_the_last_finished_depth() -> None:
    state = random_position(31, 12)
    totals = [_fresh(state).iterate(*state.words, d, 0.0, np.random.default_rng(0)).nodes for d in (1, 2, 3)]
    assert totals[0] < totals[1] < totals[2]
    for limit, depth in ((totals[1] + 1, 2), ((totals[1] + totals[2]) // 2, 2), (totals[2], 3)):
        result = _fresh(state).iterate(*state.words, 6, 0.0, np.random.default_rng(0), node_limit=limit)
        assert result.depth == depth, limit
        assert result.move in state.legal_indices()


def _trap_facts(state: State) -> tuple[int, int, bool]:
    """Nodes of depths 1-3 and 1-4, and whether the depth-3 choice is proven lost at depth 4
    while the position is not."""
    three = _fresh(state).iterate(*state.words, 3, 0.0, np.random.default_rng(0))
    four = _fresh(state).iterate(*state.words, 4, 0.0, np.random.default_rng(0))
    child = state.play_index(three.move)
    _, reply, _, _ = _fresh(child).search(*child.words, 3, np.zeros(state.kernel.num_actions))
    lost = reply >= MATE_ZONE and abs(four.score) < MATE_ZONE and abs(three.score) < MATE_ZONE
    return three.nodes, four.nodes, lost


def test_a_cut_off_depth_never_reports_a_loss_the_position_does_not_have() -> None:
    state = random_position(219, 29)  # found by a scan of random positions
    three, four, lost = _trap_facts(state)
    assert lost
    for limit in np.linspace(three + 1, four - 1, 25).astype(int):
        result = _fresh(state).iterate(*state.words, 4, 0.0, np.random.default_rng(0), node_limit=int(limit))
        assert result.score > -MATE_ZONE, limit


def test_positions_of_an_earlier_game_do_not_count_as_repetitions() -> None:
    # draws are worth much to this agent: a child taken for a repetition would be its best move
    def draw_seeker() -> AlphaBetaAgent:
        return AlphaBetaAgent(seed=0, depth=1, contempt=-10000, tt=10)

    parent = random_position(41, 12)
    child = parent.play_index(parent.legal_indices()[0])
    fresh = draw_seeker().analyse(parent)
    assert fresh.score < 10000 - 1e-6
    # the child met in a later ply of one game, then the parent asked for without new_game()
    agent = draw_seeker()
    agent.analyse(child)
    assert agent.analyse(parent).score == fresh.score
    # the parent asked for twice, with new_game() in between: its child is not the game's either
    agent = draw_seeker()
    agent.analyse(parent)
    agent.new_game()
    assert agent.analyse(parent).score == fresh.score
    # the same position asked again, at its ply: the answer is the same (not the child of the
    # first answer taken for a repetition)
    agent.analyse(parent)
    assert agent.analyse(parent).score == fresh.score
    # the position met again later in the game (four plies on): the move played from it the
    # first time leads to a position of the game, a repetition
    again = parent.game.state(parent.a, parent.b, parent.to_move, parent.ply + 4)
    assert agent.analyse(again).score == pytest.approx(10000)


@pytest.mark.parametrize(
    ("spec", "game"), [("alphabeta:depth=4", "connect4"), ("alphabeta:depth=3", "quixo")]
)
def test_asking_the_same_position_again_gives_the_same_answer(spec: str, game: str) -> None:
    rng = np.random.default_rng(5)
    agent = make_agent(spec, seed=1, game=parse_game(game))
    for _ in range(6):
        state = parse_game(game).initial()
        for _ in range(int(rng.integers(4, 16))):
            moves = [m for m in state.legal_indices() if not state.play_index(m).is_over]
            state = state.play_index(int(rng.choice(moves)))
        answers = {(str(d.move), d.info.score) for d in (agent.act(state) for _ in range(3))}
        assert len(answers) == 1, (state, answers)


# --- an alpha-beta of one's own evaluation ---------------------------------------------------------


class OwnLines(AlphaBetaAgent):
    """An alpha-beta subclass valuing its leaves by a Python evaluation, set on the class."""

    name = "ownlines"
    leaf_evaluation = lines3_supplied


class PassedLines(AlphaBetaAgent):
    """The same, its evaluation passed to the constructor."""

    name = "passedlines"

    def __init__(self, seed=None, settings=None, **options):  # type: ignore[no-untyped-def]
        super().__init__(seed, settings, evaluation=lines3_supplied, **options)


@pytest.fixture
def own_agents() -> Iterator[None]:
    for cls in (OwnLines, PassedLines):
        register(cls)
    yield
    for cls in (OwnLines, PassedLines):
        AGENTS.unregister(cls.name)


def test_an_alphabeta_of_its_own_evaluation_has_no_eval_or_weights_option(own_agents: None) -> None:
    assert OwnLines.Settings is OwnEvaluationSettings and AlphaBetaAgent.Settings is AlphaBetaSettings
    names = [o.name for o in options_of(OwnLines.Settings)]
    assert "eval" not in names and "weights" not in names and {"depth", "time", "contempt"} <= set(names)
    table = agent_options("ownlines")
    assert table.columns[0].header == "option"
    shown = list(table.columns[0].cells)
    assert "eval" not in shown and "weights" not in shown and "depth" in shown
    for option in ("eval=net", "eval=lines3", "eval=tuned", "weights=w.json", "eval=best"):
        with pytest.raises(
            AgentSpecError, match=r"^ownlines: unknown option '(eval|weights)'; accepted: depth"
        ):
            make_agent(f"ownlines:depth=2,{option}")


@pytest.mark.parametrize(
    ("options", "refused"),
    [
        ("eval=net", "eval=net"),
        ("eval=lines3", "eval=lines3"),
        ("eval=tuned", "eval=tuned"),
        ("weights=w.json", "weights=w.json"),
        ("eval=lines3,weights=w.json", "eval=lines3 and weights=w.json"),
    ],
)
def test_an_evaluation_passed_in_python_refuses_eval_and_weights(
    own_agents: None, options: str, refused: str
) -> None:
    with pytest.raises(AgentSpecError) as raised:
        make_agent(f"passedlines:{options}")
    assert str(raised.value) == (
        f"passedlines: {refused} cannot be used: its leaves are valued by its own Python evaluation "
        "(eval= and weights= choose among the game's evaluations)"
    )
    with pytest.raises(AgentSpecError, match="eval=lines3 cannot be used"):
        AlphaBetaAgent(evaluation=lines3_supplied, eval="lines3")


def test_an_alphabeta_of_its_own_evaluation_searches_with_it_and_names_itself(own_agents: None) -> None:
    state = random_position(7, 14)
    by_name = make_agent("alphabeta:depth=4,eval=lines3", seed=2).act(state)
    for spec in ("ownlines:depth=4", "passedlines:depth=4", "passedlines:depth=4,eval=best"):
        decision = make_agent(spec, seed=2, game="quixo").act(state)
        assert decision.move == by_name.move and decision.info is not None
        assert decision.info.engine == spec.split(":")[0] and decision.info.score == by_name.info.score
    assert by_name.info is not None and by_name.info.engine == "alphabeta"
