"""One registry style for games and agents: entry points, run-time registration, clear errors."""

from __future__ import annotations

import pytest

from boardlab.agents.base import AGENTS, AgentSpecError, agent_class, agent_names
from boardlab.core.registry import Registry


class Missing(LookupError):
    pass


def test_an_entry_registered_at_run_time_is_found_listed_and_forgotten() -> None:
    things: Registry[int] = Registry("thing", "boardlab.no-such-group", Missing)
    things.register("Seven", 7)
    assert things.get(" seven ") == 7 and things.names() == ["seven"] and "SEVEN" in things
    things.unregister("seven")
    assert things.names() == [] and "seven" not in things


def test_register_works_as_a_decorator() -> None:
    things: Registry[type] = Registry("thing", "boardlab.no-such-group", Missing)

    @things.register("box")
    class Box:
        pass

    assert things.get("box") is Box


def test_an_unknown_name_raises_the_registrys_error_listing_the_known_ones() -> None:
    things: Registry[int] = Registry("thing", "boardlab.no-such-group", Missing)
    things.register("one", 1)
    with pytest.raises(Missing, match="unknown thing 'two'; known things: one"):
        things.get("two")


def test_agents_come_from_the_installed_entry_points() -> None:
    assert {"alphabeta", "mcts", "hybrid", "random"} <= set(agent_names())
    assert agent_class("MCTS").name == "mcts"
    with pytest.raises(AgentSpecError, match="known agents: "):
        AGENTS.get("no-such-agent")


def test_games_come_from_the_installed_entry_points_and_name_their_exact_play() -> None:
    from boardlab.games import GAMES, GameOptionError, exact_providers, game_class

    assert {"quixo", "connect4", "tictactoe", "nim"} <= set(GAMES)
    assert game_class(" Nim ").name == "nim"
    assert [p.__name__ for p in exact_providers("nim:piles=1-2")] == ["NimSolverPlay", "NimRule"]
    with pytest.raises(GameOptionError, match="known games: "):
        game_class("chess")
