"""Agents: the spec registry, and each agent's play checked against plain references."""

from __future__ import annotations

import random
import subprocess
import sys
import time

import numpy as np
import pytest

from boardlab.agents import AgentSpecError, list_agents, make_agent, parse_spec
from boardlab.agents.base import memory_of
from boardlab.agents.decision import Limit
from boardlab.agents.greedy import classify_moves
from boardlab.agents.hybrid import DEFAULT_CONTEMPT, HybridAgent
from boardlab.arena.schedule import player_name
from boardlab.games import parse_game
from boardlab.games.base import DRAW, ONGOING, Kernel, legal_mask
from boardlab.games.quixo import State
from boardlab.search.alphabeta import MATE_ZONE, WIN, SearchRunner
from boardlab.search.mcts import mcts_search
from boardlab.search.minimax import compiled_minimax


def random_position(seed: int, plies: int, size: int = 5) -> State:
    """A position reached by ``plies`` random moves (fewer if the game would end)."""
    rng = random.Random(seed)
    state = State.initial(size)
    while state.ply < plies:
        options = [m for m in state.legal_moves() if not state.play(m).is_over]
        if not options:
            break
        state = state.play(rng.choice(options))
    return state


def naive_negamax(
    state: State,
    depth: int,
    eval_id: int,
    path: tuple[tuple[int, int], ...],
    *,
    probe: bool = False,
) -> float:
    """Plain negamax without pruning or tables, with the search's scoring conventions.

    A finished position scores ``WIN - ply`` for the winner (ply counted from the root),
    a position repeating one on the path with the same side to move scores 0. With ``probe``,
    a leaf whose side to move has a move that wins at once scores that win, ``WIN - (ply + 1)``.
    """
    ply = len(path)
    me, opp = state.words
    kernel = state.kernel

    def evaluation() -> float:
        return float(kernel.evaluate(kernel.ctx, np.int64(me), np.int64(opp), eval_id))

    if ply > 0:
        if state.winner is not None:
            return WIN - ply if state.winner == state.to_move else -(WIN - ply)
        if any(p == (me, opp) for p in path[-2::-2]):
            return 0.0
    if ply == depth:
        if probe and any(state.play_index(m).winner == state.to_move for m in state.legal_indices()):
            return WIN - (ply + 1)
        return evaluation()
    return max(
        -naive_negamax(state.play_index(m), depth, eval_id, (*path, (me, opp)), probe=probe)
        for m in state.legal_indices()
    )


def test_every_registered_agent_builds_from_its_name_and_round_trips_its_spec():
    names = {cls.name for cls in list_agents()}
    assert {"random", "greedy", "minimax", "alphabeta", "mcts", "hybrid", "course"} <= names
    agent = make_agent("alphabeta:depth=3,eval=density", seed=1)
    assert agent.spec == "alphabeta:depth=3,eval=density"
    assert make_agent(agent.spec).settings == agent.settings
    assert make_agent("mcts:rollouts=5,c=2").spec == "mcts:c=2.0,rollouts=5"


@pytest.mark.parametrize(
    ("spec", "fragment"),
    [
        ("nosuch", "known agents"),
        ("alphabeta:depth=x", "depth must be a whole number"),
        ("alphabeta:depth=２", "depth must be a whole number"),
        ("alphabeta:time=nan", "time must be a finite number"),
        ("alphabeta:depth=99999999999999999999999", "depth must be"),
        ("alphabeta:width=3", "accepted: depth, time"),
        ("alphabeta:depth", "key=value"),
        ("mcts:iters=-5", "at least 0"),
        ("alphabeta:sym=maybe", "sym must be true or false"),
        ("alphabeta:depth=3,depth=4", "given twice"),
    ],
)
def test_bad_specs_are_refused_with_a_message_naming_what_is_accepted(spec, fragment):
    with pytest.raises(AgentSpecError, match=fragment):
        parse_spec(spec)


def test_an_evaluation_the_game_lacks_is_refused_when_the_game_is_known():
    with pytest.raises(AgentSpecError, match="choose one of tuned, lines2, lines3"):
        make_agent("alphabeta:eval=magic", game=State.initial().game)
    with pytest.raises(AgentSpecError, match="plays only quixo"):
        make_agent("course:player=x:Y", game=parse_game("tictactoe"))


@pytest.mark.parametrize("spec", ["random", "alphabeta:depth=1", "mcts:iters=10"])
@pytest.mark.parametrize("seed", [-1, "abc", 1.5, True, np.bool_(True)])
def test_a_seed_that_is_no_whole_number_from_zero_is_refused_by_every_agent(spec, seed):
    with pytest.raises(AgentSpecError, match="a seed is None or a whole number >= 0, got"):
        make_agent(spec, seed=seed)


def test_a_numpy_seed_is_a_seed():
    agent = make_agent("alphabeta:depth=1", seed=np.int64(5))
    assert agent.seed == 5 and type(agent.seed) is int


def test_the_game_an_agent_is_made_for_may_be_a_spec():
    assert make_agent("alphabeta:depth=2", game="quixo:size=4").spec == "alphabeta:depth=2"
    with pytest.raises(AgentSpecError, match="choose one of tuned, lines2, lines3"):
        make_agent("alphabeta:eval=magic", game="quixo")
    with pytest.raises(AgentSpecError, match="plays only quixo, not tictactoe"):
        make_agent("course:player=x:Y", game="tictactoe")
    with pytest.raises(AgentSpecError, match="game 'quixo:size=9': quixo: size=9 is not accepted"):
        make_agent("random", game="quixo:size=9")
    with pytest.raises(AgentSpecError, match="game is a Game or a game spec"):
        make_agent("random", game=5)


def test_random_agent_is_reproducible_from_its_seed():
    state = random_position(3, 6)
    first = [make_agent("random", seed=7).choose(state) for _ in range(3)]
    assert len(set(first)) == 1
    moves = {make_agent("random", seed=s).choose(state) for s in range(30)}
    assert len(moves) > 5
    assert moves <= set(state.legal_moves())


def _naive_classes(state: State) -> tuple[set[int], set[int], set[int]]:
    wins, safe, losing = set(), set(), set()
    for m in state.legal_indices():
        child = state.play_index(m)
        if child.winner == state.to_move:
            wins.add(m)
        elif child.winner is not None or any(
            child.play_index(r).winner == child.to_move for r in child.legal_indices()
        ):
            losing.add(m)
        else:
            safe.add(m)
    return wins, safe, losing


@pytest.mark.parametrize("seed", range(12))
def test_greedy_move_classes_match_a_plain_two_ply_scan(seed):
    state = random_position(seed, 14 + seed)
    wins, safe, losing = classify_moves(state.kernel, *state.words)
    assert (set(wins), set(safe), set(losing)) == _naive_classes(state)


@pytest.mark.parametrize(
    "spec", ["connect4", "tictactoe", "nim", "nim:piles=9-40-3,misere=false", "quixo:size=4"]
)
def test_greedy_move_classes_match_a_plain_two_ply_scan_in_every_game(spec):
    game = parse_game(spec)
    rng = random.Random(7)
    for _ in range(10):
        state = game.initial()
        for _ in range(rng.randrange(12)):
            if state.is_over:
                break
            state = state.play_index(rng.choice(state.legal_indices()))
        if state.is_over:
            continue
        wins, safe, losing = classify_moves(state.kernel, *state.words)
        assert (set(wins), set(safe), set(losing)) == _naive_classes(state), state
        assert sorted(wins + safe + losing) == sorted(state.legal_indices())


def test_greedy_takes_a_win_and_otherwise_blocks():
    # X has four in the top row; X to move wins by pushing a cube in at the row's end
    state = State.from_text("XXXX./OO.../O..../O..../..... X")
    agent = make_agent("greedy", seed=0)
    assert state.play(agent.choose(state)).winner == 0
    # the same board with O to move: O must not leave X the win
    defending = State.from_text("XXXX./OO.../O..../O..../..... O")
    _, safe, _ = classify_moves(defending.kernel, *defending.words)
    assert safe, "this position has safe moves"
    for seed in range(5):
        move = make_agent("greedy", seed=seed).choose(defending)
        assert defending.move_index(move) in safe


def test_greedy_picks_among_equal_moves_from_its_seed():
    state = State.initial(4)
    moves = [make_agent("greedy", seed=seed).choose(state) for seed in range(12)]
    assert len(set(moves)) > 3
    assert make_agent("greedy", seed=5).choose(state) == moves[5]


def test_a_move_that_ends_the_game_in_a_draw_is_safe():
    state = parse_game("tictactoe").parse_position("XOX/XOO/OX. X 8")
    wins, safe, losing = classify_moves(state.kernel, *state.words)
    assert (wins, safe, losing) == ([], state.legal_indices(), [])
    assert state.play_index(safe[0]).is_over and state.play_index(safe[0]).winner is None


@pytest.mark.parametrize("eval_name", ["winloss", "longest", "density", "lines3", "lines2"])
@pytest.mark.parametrize("symmetric", [True, False])
def test_alphabeta_root_value_equals_plain_negamax(eval_name, symmetric):
    kernel = State.initial().kernel
    eval_id = kernel.evaluations.index(eval_name)
    for seed in range(4):
        state = random_position(100 + seed, 10 + 3 * seed)
        runner = SearchRunner(kernel, eval_name, tt_log2=12, symmetric=symmetric)
        jitter = np.zeros(kernel.num_actions)
        for depth in (1, 2, 3):
            move, score, _, aborted = runner.search(*state.words, depth, jitter)
            assert not aborted
            expected = naive_negamax(state, depth, eval_id, ())
            assert score == pytest.approx(expected), (state.to_text(), depth)
            child_value = -naive_negamax(state.play_index(move), depth, eval_id, (state.words,))
            assert child_value == pytest.approx(expected)


def test_alphabeta_cut_off_search_reports_an_exactly_scored_finished_root_move():
    state = random_position(7, 14)
    kernel = state.kernel
    eval_id = kernel.evaluations.index("lines3")
    jitter = np.zeros(kernel.num_actions)
    full = SearchRunner(kernel, "lines3", tt_log2=12).search(*state.words, 3, jitter)
    runner = SearchRunner(kernel, "lines3", tt_log2=12)
    move, score, nodes, aborted = runner.search(*state.words, 3, jitter, node_limit=full[2] // 2)
    assert aborted and nodes == full[2] // 2 + 1
    assert move in state.legal_indices()
    assert score == pytest.approx(-naive_negamax(state.play_index(move), 3, eval_id, (state.words,)))
    assert score <= full[1] + 1e-9


def test_alphabeta_stops_at_the_deadline():
    state = random_position(8, 14)
    runner = SearchRunner(state.kernel, "lines3")
    jitter = np.zeros(state.kernel.num_actions)
    *_, nodes, aborted = runner.search(*state.words, 9, jitter, deadline=time.perf_counter() - 1)
    assert aborted and nodes == 1024


def test_alphabeta_wins_soonest_and_loses_latest():
    # X to move can win at once (complete the top row)
    state = State.from_text("XXXX./OO.../O..../O..../..... X")
    agent = make_agent("alphabeta:depth=4", seed=0)
    move = agent.choose(state)
    assert state.play(move).winner == 0
    assert agent.last.score == WIN - 1


def lost_position() -> State:
    """A position whose side to move is proven lost within three plies."""
    kernel = State.initial().kernel
    for seed in range(500):
        state = random_position(seed, 12 + seed % 20)
        runner = SearchRunner(kernel, "lines3", tt_log2=12)
        _, score, _, _ = runner.search(*state.words, 3, np.zeros(kernel.num_actions))
        if score <= -MATE_ZONE:
            return state
    raise AssertionError("no lost position found")


def test_alphabeta_time_budget_returns_a_legal_move_and_deepens():
    state = random_position(9, 12)
    agent = make_agent("alphabeta:time=5,depth=3", seed=1)  # the time, not the depth, is ample
    move = agent.choose(state)
    assert move in state.legal_moves()
    assert agent.last.depth == 3


def test_alphabeta_breaks_ties_from_its_seed():
    state = State.initial()
    moves = {make_agent("alphabeta:depth=1,eval=winloss", seed=s).choose(state) for s in range(20)}
    assert len(moves) > 3


def test_mcts_finds_an_immediate_win_and_is_reproducible():
    state = State.from_text("XXXX./OO.../O..../O..../..... X")
    agent = make_agent("mcts:iters=2000", seed=3)
    move = agent.choose(state)
    assert state.play(move).winner == 0
    middle = random_position(4, 12)
    a = make_agent("mcts:iters=500", seed=11).choose(middle)
    b = make_agent("mcts:iters=500", seed=11).choose(middle)
    assert a == b


def test_mcts_visits_add_up_and_capped_rollouts_are_draws():
    # four plies in, nobody can complete a line of five within the tree's reach and a
    # one-ply rollout: every simulation is capped, so every value is exactly a draw
    state = random_position(5, 4)
    rng = np.random.default_rng(0)
    result, tree = mcts_search(state.kernel, *state.words, 300, 0.0, 1.4, 1, rng)
    moves, visits, means = tree.root_children()
    assert result.iterations == 300
    assert visits.sum() == tree.visits[0] == 300
    assert np.all(means == 0.0)
    # with uncapped rollouts some games are won and lost
    _, tree = mcts_search(state.kernel, *state.words, 300, 0.0, 1.4, 200, rng)
    assert np.any(tree.root_children()[2] != 0.0)
    assert set(moves.tolist()) == set(state.legal_indices())


def test_hybrid_hands_lost_positions_to_mcts():
    agent = make_agent("hybrid:time=0.2,search=(alphabeta:depth=3)", seed=0)
    hopeful = random_position(1, 6)
    agent.choose(hopeful)  # first, so that compiling the search does not eat the lost position's time
    assert agent.last_engine == "alphabeta"
    doomed = lost_position()
    assert agent.choose(doomed) in doomed.legal_moves()
    assert agent.last_engine == "mcts"


def test_hybrid_keeps_alphabeta_on_a_full_board_by_default():
    state = next(s for s in (random_position(seed, 60) for seed in range(100)) if s.blanks == 0)
    agent = make_agent("hybrid:time=0.1,tables=false", seed=0)  # the search, not the endgame tables
    agent.choose(state)
    assert agent.last_engine == "alphabeta"


def test_hybrid_gives_alphabeta_its_share_of_the_time_and_its_options():
    agent = make_agent("hybrid:time=0.4,share=0.5,search=(alphabeta:probe=false,contempt=30)", seed=0)
    searcher = agent.searcher.settings
    assert (searcher.time, searcher.probe, searcher.contempt) == (0.2, False, 30.0)
    assert make_agent("hybrid", seed=0).searcher.settings.contempt == DEFAULT_CONTEMPT > 0
    with pytest.raises(AgentSpecError, match="share"):
        make_agent("hybrid:share=1.0")


def test_hybrid_reads_its_alphabeta_as_a_sub_spec_over_its_own_defaults():
    agent = make_agent("hybrid:search=(alphabeta:eval=lines3,depth=3),time=0.5", seed=0)
    searcher = agent.searcher.settings
    # the hybrid's defaults (contempt 20, the probe on) stay where the sub-spec says nothing
    assert (searcher.eval, searcher.depth, searcher.contempt, searcher.probe) == ("lines3", 3, 20.0, True)
    assert agent.spec == "hybrid:time=0.5,search=(alphabeta:depth=3,eval=lines3)"  # options in order
    assert make_agent(agent.spec).settings == agent.settings
    assert make_agent("hybrid:search=(alphabeta:contempt=0)").searcher.settings.contempt == 0.0


@pytest.mark.parametrize(
    ("spellings", "canonical"),
    [
        (
            ["hybrid:search=(alphabeta:Eval=lines3)", "Hybrid:Search=(AlphaBeta: eval=lines3 )"],
            "hybrid:search=alphabeta:eval=lines3",
        ),
        (
            [
                "hybrid:search=(alphabeta:contempt=10,DEPTH=3)",
                "hybrid:search=(alphabeta:depth=3,contempt=10.0)",
            ],
            "hybrid:search=(alphabeta:depth=3,contempt=10.0)",
        ),
        # the hybrid's own defaults for its alpha-beta, written out or not, are the plain hybrid
        (["hybrid:search=(alphabeta:contempt=20,eval=best)", "hybrid:search=alphabeta", "hybrid"], "hybrid"),
    ],
)
def test_hybrid_writes_its_search_spec_in_canonical_form_so_spellings_are_one_player(
    spellings: list[str], canonical: str
) -> None:
    for spelling in spellings:
        assert make_agent(spelling).spec == canonical
        assert player_name(spelling) == canonical
    # the canonical spec reads back as the same settings and writes itself again
    again = make_agent(canonical)
    assert again.spec == canonical and again.settings == make_agent(spellings[0]).settings
    assert again.searcher.settings == make_agent(spellings[-1]).searcher.settings


@pytest.mark.parametrize(
    ("spec", "fragment"),
    [
        ("hybrid:eval=lines3", r"write hybrid:search=\(alphabeta:eval=lines3\)"),
        ("hybrid:contempt=10", r"write hybrid:search=\(alphabeta:contempt=10\)"),
        ("hybrid:depth=3", r"write hybrid:search=\(alphabeta:depth=3\)"),
        ("hybrid:null=3", "unknown option 'null'"),
        ("hybrid:search=(mcts:iters=5)", "takes an alphabeta spec"),
        ("hybrid:search=(alphabeta:time=2)", "time times share"),
        ("hybrid:search=(alphabeta:pvs=1)", "unknown option 'pvs'"),
        ("hybrid:search=(alphabeta:eval=lines3", "unbalanced parentheses"),
    ],
)
def test_hybrid_refuses_old_and_bad_options_in_one_line(spec, fragment):
    with pytest.raises(AgentSpecError, match=fragment) as error:
        make_agent(spec)
    assert "\n" not in str(error.value)


@pytest.mark.parametrize("contempt", [0.0, 50.0])
def test_alphabeta_scores_game_repetitions_as_draws_valued_at_minus_contempt(contempt):
    state = random_position(21, 14)
    kernel = state.kernel
    eval_id = kernel.evaluations.index("lines3")
    runner = SearchRunner(kernel, "lines3", tt_log2=12, contempt=contempt)
    jitter = np.zeros(kernel.num_actions)
    best, _, _, _ = runner.search(*state.words, 1, jitter)
    child = state.play_index(best)
    runner.remember(*child.words)
    runner.table[:] = 0
    _, score, _, _ = runner.search(*state.words, 1, jitter)
    expected = max(
        -contempt
        if state.play_index(m).words == child.words
        else -float(kernel.evaluate(kernel.ctx, *map(np.int64, state.play_index(m).words), eval_id))
        for m in state.legal_indices()
    )
    assert score == pytest.approx(expected)


FIRST_MOVE_COMPILES = """
import sys
from numba.core.dispatcher import Dispatcher
from boardlab.agents import make_agent
from boardlab.agents.decision import Limit
from boardlab.games import parse_game

compiled = []
original = Dispatcher._compile_for_args
def counting(self, *args, **kws):
    compiled.append(self.py_func.__qualname__)
    return original(self, *args, **kws)

for pair in sys.argv[1:]:
    spec, game_spec = pair.split("@")
    game = parse_game(game_spec)
    agent = make_agent(spec, seed=1, game=game)
    agent.prepare(game)
    Dispatcher._compile_for_args = counting
    agent.act(game.initial(), Limit(time=0.05))
    Dispatcher._compile_for_args = original
    print(spec, game_spec, *compiled)
    compiled.clear()
"""


def test_prepare_compiles_everything_the_first_move_calls():
    """The first move's clock must not pay for a compile (nor for loading one from the cache)."""
    # the hybrid's alpha-beta is the same; perfect hands an unsolved Connect Four move to alpha-beta
    # (it comes before alphabeta@connect4, whose preparing would compile the search for it)
    pairs = ["perfect@connect4", "alphabeta@connect4", "alphabeta@quixo", "perfect@quixo:size=3"]
    done = subprocess.run(
        [sys.executable, "-c", FIRST_MOVE_COMPILES, *pairs], capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == len(pairs)
    assert [line for line in lines if len(line.split()) > 2] == []


def test_perfect_spreads_its_policy_evenly_over_the_best_moves_and_picks_one_from_its_seed():
    state = parse_game("tictactoe").initial()  # every first move draws
    decisions = [make_agent("perfect", seed=seed, game=state.game).act(state) for seed in range(12)]
    for decision in decisions:
        assert decision.policy is not None and decision.value == 0.0
        assert decision.policy.tolist() == pytest.approx([1 / 9] * 9)
    assert len({decision.move for decision in decisions}) > 3
    assert make_agent("perfect", seed=4, game=state.game).act(state).move == decisions[4].move


def test_perfect_values_a_win_past_the_ply_cap_as_a_draw():
    """O wins in 3 plies without a cap; with the cap 2 plies away every move draws."""
    capped = parse_game("quixo:size=3,ply_cap=7").parse_position("X..O.O..X O 5")
    free = parse_game("quixo:size=3").parse_position("X..O.O..X O 5")
    assert make_agent("perfect", seed=0, game=free.game).act(free).value == 1.0
    assert make_agent("perfect", seed=0, game=capped.game).act(capped).value == 0.0


@pytest.mark.parametrize(
    ("spec", "engine"),
    [
        ("minimax:depth=2", "minimax"),
        ("alphabeta:depth=2", "alphabeta"),
        ("mcts:iters=20", "mcts"),
        ("perfect", "exact"),
    ],
)
def test_a_searching_agent_names_its_engine(spec: str, engine: str) -> None:
    state = parse_game("tictactoe").initial()
    decision = make_agent(spec, seed=0, game=state.game).act(state)
    assert decision.info is not None and decision.info.engine == engine


def plain_negamax(kernel: Kernel, a: int, b: int, depth: int, ply: int, eval_id: int) -> tuple[float, int]:
    """The value of (a, b) for its side to move and the positions visited, by plain recursion."""
    ctx = kernel.ctx
    status = int(kernel.status(ctx, np.int64(a), np.int64(b)))
    if status == DRAW:
        return 0.0, 1
    if status != ONGOING:
        return status * (WIN - ply), 1
    if depth == 0:
        return float(kernel.evaluate(ctx, np.int64(a), np.int64(b), eval_id)), 1
    best, nodes = -np.inf, 1
    for move in np.flatnonzero(legal_mask(kernel, a, b)):
        child = kernel.play(ctx, np.int64(a), np.int64(b), np.int64(move))
        value, visited = plain_negamax(kernel, int(child[0]), int(child[1]), depth - 1, ply + 1, eval_id)
        best, nodes = max(best, -value), nodes + visited
    return best, nodes


@pytest.mark.parametrize(
    ("game_spec", "plies", "depth"), [("tictactoe", 3, 6), ("connect4", 6, 3), ("quixo", 8, 2)]
)
def test_minimax_root_values_and_node_count_equal_plain_negamax(
    game_spec: str, plies: int, depth: int
) -> None:
    game = parse_game(game_spec)
    kernel = game.kernel
    rng = np.random.default_rng(plies)
    for _ in range(3):
        state = game.initial()
        for _ in range(plies):
            state = state.play_index(int(rng.choice(state.legal_indices())))
        if state.is_over:
            continue
        a, b = state.words
        for eval_id in range(len(kernel.evaluations)):
            values, moves, nodes = compiled_minimax(kernel)(
                kernel.ctx, np.int64(a), np.int64(b), depth, eval_id
            )
            assert sorted(moves.tolist()) == sorted(state.legal_indices())
            total = 1
            for move, value in zip(moves.tolist(), values.tolist(), strict=True):
                child = state.play_index(move)
                expected, visited = plain_negamax(kernel, *child.words, depth - 1, 1, eval_id)
                assert value == pytest.approx(-expected), (state, move)
                total += visited
            assert nodes == total
        values, moves, nodes = compiled_minimax(kernel)(kernel.ctx, np.int64(a), np.int64(b), depth, 0)
        result = make_agent(f"minimax:depth={depth}", seed=0).analyse(state)
        assert (result.score, result.nodes) == (values.max(), nodes)
        assert values[moves.tolist().index(result.move)] == values.max()


def test_minimax_breaks_ties_from_its_seed() -> None:
    state = parse_game("tictactoe").initial().play_index(4)  # X in the centre: the corners tie
    moves = {make_agent("minimax:depth=2", seed=seed).choose(state) for seed in range(16)}
    assert len(moves) > 1


def test_declared_memory_is_the_table_the_search_allocates() -> None:
    game = parse_game("connect4")
    for spec in ("alphabeta:tt=12", "hybrid:search=(alphabeta:tt=11)", "alphabeta:tt=10,threads=2"):
        agent = make_agent(spec, seed=0, game=game)
        searcher = agent.searcher if isinstance(agent, HybridAgent) else agent
        assert memory_of(spec, game) == searcher.runner(game.kernel).table.nbytes


def test_a_calls_time_limit_overrides_the_hybrids_own() -> None:
    state = random_position(3, 8)
    agent = make_agent("hybrid:time=600,tables=false", seed=0, game=state.game)
    decision = agent.act(state, Limit(time=0.05))
    assert decision.info is not None and decision.info.seconds < 30


def test_every_shipped_agent_and_game_option_is_one_lowercase_name() -> None:
    """Option keys are read whatever their case: that holds only while no two options of one
    agent or game differ by case alone, and the specs written back are lowercase."""
    from boardlab.core.spec import options_of
    from boardlab.games import GAMES, game_class

    owners = [cls.Settings for cls in list_agents()] + [game_class(name) for name in GAMES.available()]
    for owner in owners:
        names = [o.name for o in options_of(owner)]
        assert names == [n.lower() for n in names], owner


@pytest.mark.parametrize(
    ("spec", "canonical"),
    [
        ("AlphaBeta:Depth=2,EVAL=lines3", "alphabeta:depth=2,eval=lines3"),
        ("MCTS:Iters=50,C=2", "mcts:iters=50,c=2.0"),
        ("Hybrid:Share=0.5,TIME=0.5", "hybrid:time=0.5,share=0.5"),
    ],
)
def test_option_keys_are_read_in_any_case_and_the_spec_is_written_lowercase(
    spec: str, canonical: str
) -> None:
    agent = make_agent(spec, seed=0)
    assert agent.spec == canonical and make_agent(canonical, seed=0).spec == canonical


def test_game_option_keys_are_read_in_any_case_too() -> None:
    assert parse_game("Quixo:Size=4,RULES=course").spec == parse_game("quixo:size=4,rules=course").spec
    assert parse_game("Nim:Piles=1-2").spec == "nim:piles=1-2"


def test_a_hybrids_search_time_is_refused_in_any_case() -> None:
    with pytest.raises(AgentSpecError, match="its alpha-beta's time is hybrid's time times share"):
        make_agent("hybrid:search=(alphabeta:Time=1)")
