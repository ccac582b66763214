"""The tournament schedule: deterministic, balanced, colours alternating, openings paired."""

from __future__ import annotations

import hashlib
import json
from collections import Counter

import pytest

from boardlab.arena.schedule import (
    GAUNTLET,
    MAX_GAMES_PER_PAIR,
    MAX_LISTED_GAMES,
    MAX_OPENING_PLIES,
    MAX_PLAYERS,
    ArenaError,
    TournamentConfig,
    build_schedule,
    derive_seed,
    game_task,
)


def test_schedule_is_a_function_of_the_config() -> None:
    config = TournamentConfig(("random", "greedy", "random"), 6, seed=11)
    assert build_schedule(config) == build_schedule(
        TournamentConfig(("random", "greedy", "random"), 6, seed=11)
    )
    other = build_schedule(TournamentConfig(("random", "greedy", "random"), 6, seed=12))
    assert [t.opening_seed for t in other] != [t.opening_seed for t in build_schedule(config)]
    assert [t.first_seed for t in other] != [t.first_seed for t in build_schedule(config)]


def test_round_robin_balances_pairs_and_colours() -> None:
    config = TournamentConfig(("a", "b", "c", "d"), 6)
    tasks = build_schedule(config)
    assert len(tasks) == 6 * 6 == config.total_games
    assert [t.index for t in tasks] == list(range(len(tasks)))
    pairs = Counter(frozenset((t.first_player, t.second_player)) for t in tasks)
    assert set(pairs.values()) == {6} and len(pairs) == 6
    firsts = Counter((t.first_player, t.second_player) for t in tasks)
    assert set(firsts.values()) == {3} and len(firsts) == 12
    for t in tasks:
        assert t.first_spec == config.specs[t.first_player]
        assert t.second_spec == config.specs[t.second_player]


def test_a_gauntlet_pairs_the_first_player_with_each_other_one_only() -> None:
    config = TournamentConfig(("a", "b", "c", "d"), 6, pairing=GAUNTLET)
    tasks = build_schedule(config)
    assert len(tasks) == 3 * 6 == config.total_games
    pairs = Counter(frozenset((t.first_player, t.second_player)) for t in tasks)
    assert pairs == {frozenset((0, other)): 6 for other in (1, 2, 3)}
    firsts = Counter((t.first_player, t.second_player) for t in tasks)
    assert set(firsts.values()) == {3} and len(firsts) == 6
    openings = {
        other: [t.opening_seed for t in tasks if other in (t.first_player, t.second_player)]
        for other in (1, 2, 3)
    }
    assert openings[1] == openings[2] == openings[3]  # every opponent meets the same openings
    assert config.label == "a vs each of b, c, d"


def test_a_round_robin_keeps_its_stored_key_and_a_gauntlet_has_its_own() -> None:
    config = TournamentConfig(("random", "greedy", "mcts"), 4, game="tictactoe", seed=3, opening_plies=1)
    identity = {
        "version": 1,
        "game": "tictactoe",
        "specs": ["random", "greedy", "mcts"],
        "seed": 3,
        "opening_plies": 1,
    }
    text = json.dumps(identity, sort_keys=True, separators=(",", ":"))
    assert config.tournament_id == hashlib.blake2b(text.encode(), digest_size=8).hexdigest()
    gauntlet = TournamentConfig(config.specs, 4, game="tictactoe", seed=3, opening_plies=1, pairing=GAUNTLET)
    assert gauntlet.tournament_id != config.tournament_id
    two = TournamentConfig(("random", "greedy"), 4)
    assert TournamentConfig(("random", "greedy"), 4, pairing=GAUNTLET).pairs == two.pairs


def test_match_colours_alternate_and_each_opening_is_played_both_ways() -> None:
    tasks = build_schedule(TournamentConfig(("greedy", "random"), 10, seed=3))
    assert [t.first_player for t in tasks] == [0, 1] * 5
    assert [t.opening_index for t in tasks] == [0, 0, 1, 1, 2, 2, 3, 3, 4, 4]
    for even, odd in zip(tasks[::2], tasks[1::2], strict=True):
        assert even.opening_seed == odd.opening_seed
        assert (even.first_player, even.second_player) == (odd.second_player, odd.first_player)
    assert len({t.opening_seed for t in tasks}) == 5
    seeds = [s for t in tasks for s in (t.first_seed, t.second_seed)]
    assert len(set(seeds)) == len(seeds)


def test_longer_run_extends_a_shorter_one() -> None:
    short = TournamentConfig(("random", "greedy", "random"), 4, seed=5)
    long = TournamentConfig(("random", "greedy", "random"), 9, seed=5, name="other label")
    assert short.tournament_id == long.tournament_id
    assert build_schedule(long)[: short.total_games] == build_schedule(short)
    assert game_task(short, 20) == build_schedule(long)[20]


def test_identity_depends_on_what_defines_the_games() -> None:
    base = TournamentConfig(("random", "greedy"), 4)
    assert base.tournament_id != TournamentConfig(("greedy", "random"), 4).tournament_id
    assert base.tournament_id != TournamentConfig(("random", "greedy"), 4, seed=1).tournament_id
    assert base.tournament_id != TournamentConfig(("random", "greedy"), 4, opening_plies=3).tournament_id
    assert base.tournament_id != TournamentConfig(("random", "greedy"), 4, game="quixo:size=4").tournament_id


def test_task_json_round_trip() -> None:
    task = build_schedule(TournamentConfig(("random", "greedy"), 2, seed=9))[1]
    assert type(task).from_json(task.to_json()) == task


def test_derive_seed_is_stable_and_63_bit() -> None:
    assert derive_seed(0, "agent", 1, 0) == derive_seed(0, "agent", 1, 0)
    seeds = {derive_seed(7, "agent", i, side) for i in range(200) for side in (0, 1)}
    assert len(seeds) == 400
    assert all(0 <= s < 2**63 for s in seeds)


@pytest.mark.parametrize(
    ("specs", "games", "plies", "seed", "message"),
    [
        (("random",), 2, 2, 0, "at least 2 agent specs"),
        (("random", "greedy"), 0, 2, 0, "games per pair"),
        (("random", "greedy"), 2, -1, 0, "opening plies"),
        (("random", "greedy"), 2, 2, -5, "seed"),
        (("random", "greedy"), 2, 2, 2**63, "seed"),
        (("random", "greedy"), MAX_GAMES_PER_PAIR + 1, 2, 0, "games per pair"),
        (("random", "greedy"), 2, MAX_OPENING_PLIES + 1, 0, "opening plies"),
        (("random",) * (MAX_PLAYERS + 1), 2, 2, 0, "at most"),
    ],
)
def test_bad_configs_are_rejected(
    specs: tuple[str, ...], games: int, plies: int, seed: int, message: str
) -> None:
    with pytest.raises(ArenaError, match=message):
        TournamentConfig(specs, games, opening_plies=plies, seed=seed)


@pytest.mark.parametrize("pairing", ["swiss", "Gauntlet", "", None])
def test_an_unknown_pairing_is_refused(pairing: object) -> None:
    with pytest.raises(ArenaError, match="pairing must be one of round-robin, gauntlet"):
        TournamentConfig(("random", "greedy"), 2, pairing=pairing)  # type: ignore[arg-type]


def test_a_game_written_another_way_is_the_same_tournament() -> None:
    base = TournamentConfig(("random", "greedy"), 4, game="quixo")
    for spelling in ("quixo:size=5", "Quixo", " quixo ", "quixo:rules=official,size=5"):
        other = TournamentConfig(("random", "greedy"), 4, game=spelling)
        assert other.game == "quixo" and other.tournament_id == base.tournament_id
    assert (
        TournamentConfig(("random", "greedy"), 4, game="quixo:rules=course").tournament_id
        != base.tournament_id
    )
    with pytest.raises(ArenaError, match="chess"):
        TournamentConfig(("random", "greedy"), 4, game="chess")


def test_the_largest_accepted_values_are_accepted() -> None:
    config = TournamentConfig(
        ("random",) * MAX_PLAYERS, MAX_GAMES_PER_PAIR, opening_plies=MAX_OPENING_PLIES, seed=2**63 - 1
    )
    assert config.seed == 2**63 - 1


def test_a_schedule_too_long_to_list_is_refused() -> None:
    config = TournamentConfig(("random", "greedy"), MAX_LISTED_GAMES + 1, game="tictactoe")
    with pytest.raises(ArenaError, match="too long to list"):
        build_schedule(config)
    assert len(build_schedule(TournamentConfig(("random", "greedy"), 3, game="tictactoe"))) == 3


def test_a_named_gauntlet_is_labelled_by_its_name() -> None:
    config = TournamentConfig(("a", "b", "c"), 2, pairing=GAUNTLET, name="champion")
    assert config.label == "champion"
