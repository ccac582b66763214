"""Matches and tournaments: colours, attribution, replay, resume and parallel play."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import pytest
from forfeits import Raised

from boardlab.agents.base import AGENTS, Agent, make_agent, register
from boardlab.arena import (
    ArenaError,
    Store,
    TournamentConfig,
    build_schedule,
    match,
    play_game,
    play_opening,
    run_tournament,
    runner,
    summarize,
    tournament,
)
from boardlab.arena.play import GameRecord
from boardlab.arena.runner import named_files
from boardlab.arena.sprt import H1_ACCEPTED, Sprt, SprtTally
from boardlab.games import Outcome, Reason, new_game
from boardlab.interop.course import CoursePlayerAgent
from boardlab.play.pool import warm_up


class InterruptingAgent(Agent):
    """Plays at random; raises KeyboardInterrupt at the start of game ``games_left + 1``."""

    name = "test-interrupt"
    games_left: ClassVar[int | None] = None

    def new_game(self) -> None:
        cls = type(self)
        if cls.games_left is not None:
            if cls.games_left == 0:
                raise KeyboardInterrupt
            cls.games_left -= 1

    def choose(self, state: Any) -> Any:
        return self.rng.choice(state.legal_moves())


class FailingAgent(Agent):
    """Breaks on its first move."""

    name = "test-fail"

    def choose(self, state: Any) -> Any:
        raise RuntimeError("no move today")


@pytest.fixture(autouse=True)
def test_agents() -> Iterator[None]:
    for cls in (InterruptingAgent, FailingAgent):
        register(cls)
    yield
    InterruptingAgent.games_left = None
    for cls in (InterruptingAgent, FailingAgent):
        AGENTS.unregister(cls.name)


def _contents(records: Any) -> list[tuple[Any, ...]]:
    return [r.game_content() for r in records]


def test_colours_alternate_and_results_go_to_the_right_agent() -> None:
    run = match("greedy", "random", 8, seed=1, workers=1)
    assert run.complete and run.played == 8
    assert [r.first_spec for r in run.records] == ["greedy", "random"] * 4
    assert [r.first_player for r in run.records] == [0, 1] * 4
    wins = {0: 0, 1: 0}
    for record in run.records:
        final = new_game("quixo")
        for move in record.moves:
            final = final.play(move)
        assert final.is_over and final.outcome == record.outcome and final.winner == record.winner
        assert record.plies == len(record.moves)
        if record.winner is not None:
            winner_spec = record.first_spec if record.winner == 0 else record.second_spec
            assert winner_spec == ("greedy", "random")[record.winner_player]
            wins[record.winner_player] += 1
    summary = run.summary()
    assert summary.overall(0).wins == wins[0] and summary.overall(1).wins == wins[1]
    assert summary.as_first[0].games == summary.as_second[0].games == 4
    assert summary.overall(0).score >= 0.75  # greedy takes every win random leaves it
    assert summary.elo is not None and summary.elo.ratings[0] > summary.elo.ratings[1]


def test_openings_are_random_prefixes_shared_by_both_colours() -> None:
    run = match("random", "random", 6, seed=2, opening_plies=3, workers=1)
    for record in run.records:
        assert len(record.opening) == 3
        assert record.moves[:3] == record.opening
        assert len(record.move_times) == record.plies - 3
    openings = [r.opening for r in run.records]
    assert openings[0] == openings[1] and openings[2] == openings[3] and openings[4] == openings[5]
    assert len(set(openings)) == 3
    state, moves = play_opening("quixo", 3, 123)
    assert (state, moves) == play_opening("quixo", 3, 123) and not state.is_over


def test_same_seed_replays_the_same_games() -> None:
    first = tournament(["greedy", "random", "random"], 2, seed=7, workers=1)
    again = tournament(["greedy", "random", "random"], 2, seed=7, workers=1)
    other = tournament(["greedy", "random", "random"], 2, seed=8, workers=1)
    assert _contents(first.records) == _contents(again.records)
    assert [r.moves for r in first.records] != [r.moves for r in other.records]


def test_resume_after_a_partial_run(tmp_path: Path) -> None:
    config = TournamentConfig(("random", "greedy", "random"), 4, seed=3)
    db = tmp_path / "arena.sqlite"
    with Store(db) as store:
        part = run_tournament(config, store, workers=1, max_games=5)
    assert (part.played, len(part.records), part.complete) == (5, 5, False)
    with Store(db) as store:
        seen: list[int] = []
        rest = run_tournament(
            config, store, workers=1, on_start=lambda total, done: seen.extend((total, done))
        )
    assert seen == [12, 5]
    assert (rest.played, rest.already_stored, len(rest.records), rest.complete) == (7, 5, 12, True)
    assert [r.index for r in rest.records] == list(range(12))
    fresh = tournament(config.specs, 4, seed=3, workers=1)
    assert _contents(rest.records) == _contents(fresh.records)
    with Store(db) as store:
        again = run_tournament(config, store, workers=1)
        assert again.played == 0 and len(store.games(config.tournament_id)) == 12


def test_resume_after_an_interrupt(tmp_path: Path) -> None:
    db = tmp_path / "arena.sqlite"
    InterruptingAgent.games_left = 3
    stopped = match("test-interrupt", "random", 8, seed=5, store=db, workers=0)
    assert stopped.interrupted and stopped.played == 3 and len(stopped.records) == 3
    InterruptingAgent.games_left = None
    resumed = match("test-interrupt", "random", 8, seed=5, store=db, workers=0)
    assert not resumed.interrupted and resumed.played == 5 and resumed.complete
    fresh = match("test-interrupt", "random", 8, seed=5, workers=0)
    assert _contents(resumed.records) == _contents(fresh.records)


def test_more_games_extend_a_stored_tournament(tmp_path: Path) -> None:
    db = tmp_path / "arena.sqlite"
    match("random", "random", 4, seed=6, store=db, workers=1)
    longer = match("random", "random", 6, seed=6, store=db, workers=1)
    assert longer.already_stored == 4 and longer.played == 2 and len(longer.records) == 6
    shorter = match("random", "random", 3, seed=6, store=db, workers=1)  # the games beyond 3 are not its
    assert (shorter.already_stored, shorter.played, len(shorter.records), shorter.complete) == (3, 0, 3, True)


def test_parallel_workers_play_the_same_games() -> None:
    parallel = tournament(["greedy", "random", "random"], 4, seed=9, workers=2)
    serial = tournament(["greedy", "random", "random"], 4, seed=9, workers=1)
    assert parallel.complete and not parallel.interrupted
    assert _contents(parallel.records) == _contents(serial.records)


def test_a_failing_agent_forfeits_its_games() -> None:
    run = match("test-fail", "random", 2, opening_plies=0, workers=0)
    assert run.complete
    for record in run.records:
        loser = 0 if record.first_spec == "test-fail" else 1
        detail = Raised("raised RuntimeError: no move today", "test_arena_match.py", "choose")
        assert record.outcome == Outcome(1 - loser, Reason.FORFEIT, detail)
    assert run.summary().forfeits == (2, 0)


def test_a_worker_plays_the_same_games_as_this_process() -> None:
    good = build_schedule(TournamentConfig(("random", "greedy"), 2, opening_plies=1))
    with Store() as store:
        config = TournamentConfig(("random", "greedy"), 2, opening_plies=1)
        run = run_tournament(config, store, workers=1)
    assert _contents(run.records) == [play_game(task).game_content() for task in good]


def test_warming_a_worker_never_raises() -> None:
    warm_up("quixo:size=4", ("greedy", "test-fail", "nosuch"))
    warm_up("chess", ("random",))


@pytest.mark.parametrize(
    ("specs", "game", "message"),
    [
        (("random", "nosuch"), "quixo", "unknown agent"),
        (("random", "random:depth=3"), "quixo", "unknown option"),
        (("random", "greedy"), "chess", "unknown game"),
    ],
)
def test_bad_specs_fail_before_play(specs: tuple[str, str], game: str, message: str) -> None:
    with pytest.raises(ArenaError, match=message):
        match(*specs, 2, game=game, workers=1)


class NotebookPlayer:
    """A course player written in a notebook, not in a file."""

    def make_move(self, game: Any) -> Any:
        return (0, 0), 1


@pytest.mark.parametrize(
    ("agent", "advice"),
    [
        (NotebookPlayer, "put a course player in a file and name it: course:player=file.py:NotebookPlayer"),
        (NotebookPlayer(), "put a course player in a file and name it: course:player=file.py:NotebookPlayer"),
        (lambda: make_agent("greedy", 0), "give its spec, 'greedy'"),
        (lambda: FailingAgent, "give its spec, 'test-fail'"),
        (
            lambda: make_agent("course:player=course_standin:RandomPlayer", 0),
            "give its spec, 'course:player=",
        ),
        (
            lambda: CoursePlayerAgent(player=NotebookPlayer),
            "course:player=file.py:ClassName (docs/course.md)",
        ),
    ],
)
def test_an_agent_that_is_no_spec_is_refused_in_one_line(agent: Any, advice: str) -> None:
    if not isinstance(agent, type) and not hasattr(agent, "make_move"):
        agent = agent()  # built in the test, where the agents are registered
    starts = "the arena takes agent specs (strings), not "
    for run in (
        lambda: match(agent, "random", 2, workers=0),
        lambda: match("random", agent, 2, workers=0),
        lambda: tournament(["random", "greedy", agent], 1, workers=0),
    ):
        with pytest.raises(ArenaError) as caught:
            run()
        message = str(caught.value)
        assert message.startswith(starts) and advice in message and "\n" not in message, message
        assert "each game is played in a worker process, which builds its agents from their specs" in message


@pytest.mark.parametrize(("value", "what"), [(3, "an int object"), (1.5, "a float object")])
def test_a_value_that_is_no_spec_is_named_with_its_article(value: object, what: str) -> None:
    with pytest.raises(ArenaError, match=f"^the arena takes agent specs \\(strings\\), not {what}: "):
        match(value, "random", 2, workers=0)  # type: ignore[arg-type]


def test_one_string_for_the_list_of_specs_is_refused() -> None:
    with pytest.raises(ArenaError, match=r"^specs is a list of agent specs, got the one string 'random'$"):
        tournament("random", 1, workers=0)


def test_smaller_board_and_summary_counts() -> None:
    run = match("greedy", "random", 4, game="quixo:size=4", workers=1)
    summary = summarize(run.config.specs, run.records)
    assert summary.n_games == 4
    assert summary.first_player.games == 4
    assert summary.as_first[0] + summary.as_first[1] == summary.first_player
    assert repr(summary) == "<Summary of 4 games between greedy, random>"
    shown = summary._repr_html_()  # a notebook's view: the ratings table
    assert shown.startswith("<pre") and "Elo" in shown and "greedy" in shown and "random" in shown


@pytest.mark.timeout(120)
@pytest.mark.parametrize("workers", [0, 2])
def test_a_stop_hook_ends_the_run_with_the_games_in_flight_unstored(tmp_path: Path, workers: int) -> None:
    config = TournamentConfig(("random", "greedy"), 40, "tictactoe", seed=4)
    seen: list[int] = []
    with Store(tmp_path / "arena.sqlite") as store:
        run = run_tournament(
            config,
            store,
            workers=workers,
            on_game=lambda r: seen.append(r.index),
            stop=lambda: len(seen) >= 5,
        )
        assert run.stopped and run.played == 5 and not run.interrupted
        # the store holds exactly the games the hook saw: none of those still being played
        assert (
            sorted(seen)
            == [r.index for r in run.records]
            == [r.index for r in store.games(config.tournament_id)]
        )
        again = run_tournament(config, store, workers=workers, stop=lambda: True)
    assert again.stopped and (again.played, again.already_stored, len(again.records)) == (0, 5, 5)


@pytest.mark.timeout(120)
def test_a_match_with_an_sprt_stops_once_it_decides_and_resumes_from_the_store(tmp_path: Path) -> None:
    store = tmp_path / "arena.sqlite"
    tally = SprtTally(Sprt(0, 200))
    run = match("perfect", "random", 200, game="tictactoe", store=store, workers=0, sprt=tally)
    assert run.stopped and tally.decision(200) == H1_ACCEPTED
    assert tally.games == len(run.records) == run.played < 200
    assert tally.state() == Sprt(0, 200).pentanomial(tally.pair_scores())
    resumed = SprtTally(Sprt(0, 200))  # the stored games count: decided before any game
    again = match("perfect", "random", 200, game="tictactoe", store=store, workers=0, sprt=resumed)
    assert again.stopped and again.played == 0 and resumed.state() == tally.state()
    with pytest.raises(ArenaError, match="an SPRT tests a match of two agents, not 3"):
        tournament(["random", "greedy", "perfect"], 2, game="tictactoe", sprt=SprtTally(Sprt(0, 200)))


@pytest.mark.timeout(120)
def test_where_an_sprt_stops_does_not_depend_on_which_game_ends_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Games ending out of order (as with several workers) are stored and tested in schedule
    order: the test stops at the same game and the store holds a prefix of the schedule."""
    in_order = SprtTally(Sprt(0, 200))
    first = match("perfect", "random", 200, game="tictactoe", store=tmp_path / "a", workers=0, sprt=in_order)
    play_all = runner._play_all

    def reversed_in_threes(*args: Any) -> Iterator[GameRecord]:
        finished = list(play_all(*args))  # every game of the schedule, then handed back shuffled
        for start in range(0, len(finished), 3):
            yield from reversed(finished[start : start + 3])

    monkeypatch.setattr(runner, "_play_all", reversed_in_threes)
    shuffled = SprtTally(Sprt(0, 200))
    second = match("perfect", "random", 200, game="tictactoe", store=tmp_path / "b", workers=0, sprt=shuffled)
    assert second.stopped and shuffled.state() == in_order.state()
    assert [r.index for r in second.records] == list(range(len(second.records)))
    assert [r.game_content() for r in second.records] == [r.game_content() for r in first.records]
    assert list(runner.in_schedule_order(iter(second.records[::-1]), [2, 0, 1])) == [
        second.records[2],
        second.records[0],
        second.records[1],
    ]


def test_the_files_a_spec_names_are_found_in_its_options_nested_specs_included(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    for name in ("eng.py", "w.json", "pl.py"):
        (tmp_path / name).write_text("")
    assert named_files("engine:cmd=(python3 eng.py --depth 2)") == [Path("eng.py")]
    assert named_files("hybrid:search=(alphabeta:weights=w.json)") == [Path("w.json")]
    assert named_files("course:player=pl.py:Player") == [Path("pl.py")]
    assert named_files("alphabeta:weights=missing.json") == named_files("random") == []
