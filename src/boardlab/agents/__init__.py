"""Agents, generic over games: build them from spec strings with :func:`make_agent`."""

from boardlab.agents.base import (
    Agent,
    AgentSpecError,
    NotAStateError,
    agent_class,
    list_agents,
    make_agent,
    parse_spec,
)
from boardlab.agents.decision import Decision, Limit, SearchInfo

__all__ = [
    "Agent",
    "AgentSpecError",
    "Decision",
    "Limit",
    "NotAStateError",
    "SearchInfo",
    "agent_class",
    "list_agents",
    "make_agent",
    "parse_spec",
]
