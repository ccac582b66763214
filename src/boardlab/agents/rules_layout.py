"""The rule vocabulary of the ``rules`` agent, in plain Python: the rule-action pairs in the
order of a model's weights, and each one's bit in the compiled rules' masks.

Shared by the agent (:mod:`boardlab.agents.rules`) and its compiled rules
(:mod:`boardlab.agents.rules_kernel`), so that naming and listing the agents loads no compiler.
"""

from __future__ import annotations

RULES = (
    "empty_row",
    "empty_column",
    "complete",
    "block",
    "grow_row",
    "grow_column",
    "contest_row",
    "contest_column",
    "leave_threat",
    "any",
)
(
    EMPTY_ROW,
    EMPTY_COLUMN,
    COMPLETE,
    BLOCK,
    GROW_ROW,
    GROW_COLUMN,
    CONTEST_ROW,
    CONTEST_COLUMN,
    LEAVE_THREAT,
    ANY,
) = range(len(RULES))
NUM_RULES = len(RULES)
BAD_RULE = "leave_threat"
