"""The AlphaZero agent: PUCT tree search guided by a policy-value network.

``alphazero:model=PATH,sims=N`` (or ``time=SECONDS``) searches each move with the batched
MCTS of :mod:`boardlab.search.mcts`, the network (:mod:`boardlab.models.network`) giving the
priors and the values of the leaves, ``batch`` leaves per network call. ``alphazero`` alone
plays the model shipped in the package for the state's game. ``sims=1`` plays the network's
raw policy (the most likely legal move). The decision carries the visit shares as its policy,
the search's value and the most visited line.

Before the network is asked, an alpha-beta search of ``proof`` plies looks for a forced win,
and the move the tree search picks is checked by one of ``proof - 1`` plies for a forced loss
(then the next most visited move is tried): a short win whose move the network's policy
ranks low is one the tree search may never visit, and alpha-beta proves such lines in a
fraction of the time. ``proof=0`` leaves the move to the network search alone.

``temperature=T`` draws the move in the game's first ``temp_plies`` plies with probability of
its visits to the power ``1/T`` (the move drawn is checked for a forced loss as the best one
is), for varied play; 0 plays the most visited move.

While it searches, the process's PyTorch runs on ``threads`` threads (default 1).

A model made for another game or another board size is refused with one line, when the agent
is made for a game or at its first move. PyTorch is the optional ``torch`` extra.
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from boardlab.agents.alphabeta import AlphaBetaAgent, AlphaBetaSettings
from boardlab.agents.base import Agent, AgentSpecError
from boardlab.agents.decision import Decision, Limit, SearchInfo, call_limit
from boardlab.agents.mcts import tree_budget, tree_decision
from boardlab.agents.models import ModelCache, model_file, shipped_model_file
from boardlab.core.spec import option
from boardlab.models.network import (
    Network,
    NetworkFileError,
    TorchMissingError,
    read_header,
    read_network,
    require_torch,
)

if TYPE_CHECKING:
    from boardlab.search.alphabeta import SearchResult
    from boardlab.search.mcts import Search

# The searches are compiled (numba): they are imported where they run, so that naming and
# listing the agents loads no compiler.

DEFAULT_SIMULATIONS = 400  # when neither the call nor the spec sets a budget
PROOF_TABLE = 18  # log2 of the proof search's transposition table
PROOF_SHARE = 0.25  # of a time limit, the most the search for a forced win may take
CHECK_SHARE = 0.1  # of a time limit, kept for the checks of the move after the search
MIN_SEARCH_SHARE = 0.5  # of a time limit, left to the network search whatever the proof took
MODEL_FILE = "model.safetensors"


@dataclass(frozen=True)
class AlphaZeroSettings:
    """Options of the AlphaZero agent."""

    model: str = option("", "network file from `boardlab train alphazero` (default: the shipped model)")
    sims: int = option(0, "simulations per move (0: use the time budget)", minimum=0, maximum=10**8)
    time: float = option(
        0.0, "seconds per move (0: no limit; 400 simulations if both are 0)", minimum=0, maximum=3600
    )
    c: float = option(1.5, "PUCT exploration constant", minimum=0, maximum=100)
    fpu: float = option(-0.2, "value of an unvisited move, in [-1, 1]", minimum=-1, maximum=1)
    batch: int = option(8, "leaves per network call", minimum=1, maximum=4096)
    proof: int = option(
        6,
        "plies of alpha-beta looking for a forced win before the network search, and for a forced "
        "loss after the move chosen (0: none)",
        minimum=0,
        maximum=12,
    )
    temperature: float = option(
        0.0,
        "play a move drawn with probability of its visits to the power 1/temperature in the "
        "first temp_plies plies (0: the most visited; 1: in proportion to the visits)",
        minimum=0,
        maximum=100,
    )
    temp_plies: int = option(
        30, "plies from the start of the game in which temperature draws the move", minimum=0, maximum=10**6
    )
    threads: int = option(
        1,
        "PyTorch threads of the process while it searches (more: slower at small batches and "
        "when other processes share the cores)",
        minimum=1,
        maximum=256,
    )


def shipped_model_name(game_spec: str) -> str:
    """The file name of the network shipped for a game spec, e.g. ``alphazero-connect4.safetensors``."""
    slug = game_spec.replace(":", "-").replace(",", "-").replace("=", "")
    return f"alphazero-{slug}.safetensors"


def shipped_model(game_spec: str) -> Path | None:
    """The network shipped in the package for this game, or None: the one trained on it, else
    one that declares it in its ``also`` (e.g. the official-rules Quixo network for the course
    rulebook)."""
    own = shipped_model_file(shipped_model_name(game_spec))
    if own is not None:
        return own
    for path in sorted(_shipped_folder().glob("alphazero-*.safetensors")):
        try:
            shape, _ = read_header(path)
        except NetworkFileError:
            continue
        if game_spec in shape.also:
            return path
    return None


def _shipped_folder() -> Path:
    return Path(str(resources.files("boardlab.models")))


_NETWORKS: ModelCache[Network] = ModelCache(lambda path: read_network(path).network)


def _use_threads(threads: int) -> None:
    """Set PyTorch's intra-op threads (a process-wide setting) to ``threads``: at the agent's
    batches of 8 one thread searched 4 times as many simulations per second as two with the
    other core busy (2-core machine), and a match runs one agent per core."""
    torch = require_torch()
    if torch.get_num_threads() != threads:
        torch.set_num_threads(threads)


class AlphaZeroAgent(Agent):
    """PUCT search over a policy-value network (see the module docstring)."""

    name = "alphazero"
    summary = "PUCT search guided by a policy-value network (boardlab train alphazero)"
    Settings: ClassVar[type] = AlphaZeroSettings
    settings: AlphaZeroSettings

    def __init__(self, seed: int | None = None, settings: Any = None, **options: Any) -> None:
        super().__init__(seed, settings, **options)
        self.np_rng = np.random.default_rng(seed)
        self._networks: dict[str, Network] = {}
        self.prover = AlphaBetaAgent(seed=seed, settings=AlphaBetaSettings(tt=PROOF_TABLE, contempt=0.0))

    @classmethod
    def default_limit(cls, settings: Any) -> Limit:
        return Limit.from_options(time=settings.time, iterations=settings.sims)

    @classmethod
    def supports(cls, game: Any) -> bool:
        return shipped_model(game.spec) is not None

    @classmethod
    def model_path(cls, settings: Any, game: Any) -> Path:
        """The network file these settings play ``game`` with; AgentSpecError when there is none."""
        command = f"boardlab train alphazero --game {game.spec}"
        return model_file(
            cls.name, settings.model, shipped_model(game.spec), command, MODEL_FILE, what=game.spec
        )

    @classmethod
    def check_game(cls, settings: Any, game: Any) -> None:
        path = cls.model_path(settings, game)
        try:
            shape, _ = read_header(path)
        except NetworkFileError as error:
            raise AgentSpecError(f"{cls.name}: {error}") from None
        if not shape.fits(game):
            raise AgentSpecError(f"{cls.name}: {path} is a network for {shape.game}, not {game.spec}")
        cls._load(path)

    @classmethod
    def _load(cls, path: Path) -> Network:
        try:
            return _NETWORKS.get(path)
        except (NetworkFileError, TorchMissingError) as error:
            raise AgentSpecError(f"{cls.name}: {error}") from None

    def network(self, game: Any) -> Network:
        """The network for ``game``, read and checked once."""
        if game.spec not in self._networks:
            self.check_game(self.settings, game)
            self._networks[game.spec] = self._load(self.model_path(self.settings, game))
        return self._networks[game.spec]

    def prepare(self, game: Any) -> None:
        if self.settings.proof:
            self.prover.prepare(game)
        self.act(game.initial(), Limit(iterations=2))

    def search(self, state: Any, limit: Limit | None = None) -> Search:
        """The PUCT tree grown from ``state`` within ``limit`` (over the default limit)."""
        from boardlab.search.mcts import PUCT, Search, default_capacity

        iterations, seconds = tree_budget(limit, self.limit, state, DEFAULT_SIMULATIONS)
        s = self.settings
        evaluator = self.network(state.game).evaluator(state.kernel)
        _use_threads(s.threads)
        me, opp = state.words
        capacity = default_capacity(state.kernel, iterations, seconds / 20)
        search = Search(state.kernel, me, opp, evaluator, PUCT, s.c, s.fpu, self.np_rng, capacity)
        search.run(iterations, seconds, batch=s.batch)
        return search

    def proved(self, state: Any, depth: int, seconds: float = 0.0) -> SearchResult:
        """``depth`` plies of alpha-beta from ``state``, or as many as ``seconds`` allow (0: no
        limit; no positions of the game remembered: a forced line needs no history)."""
        me, opp = state.words
        return self.prover.runner(state.kernel).iterate(me, opp, depth, seconds, self.np_rng)

    def forced_win(self, state: Any, seconds: float = 0.0) -> Decision | None:
        """The move of a win that ``proof`` plies of alpha-beta prove (as many plies as
        ``seconds`` allow; 0: no limit), else None."""
        from boardlab.search.alphabeta import proven_value

        if not self.settings.proof:
            return None
        result = self.proved(state, self.settings.proof, seconds)
        if proven_value(result.score) != 1:
            return None
        policy = np.zeros(state.kernel.num_actions)
        policy[result.move] = 1.0
        info = SearchInfo(
            depth=result.depth, nodes=result.nodes, seconds=result.seconds, score=result.score, engine="proof"
        )
        return Decision(state.move_from_index(result.move), policy=policy, value=1.0, info=info)

    def loses(self, state: Any, action: int, deadline: float | None = None) -> bool:
        """Whether ``proof - 1`` plies of alpha-beta (as many as there is time for until
        ``deadline``, a ``time.perf_counter()`` reading) prove the opponent wins after ``action``."""
        after = state.play_index(action)
        if after.is_over:
            return after.winner is not None and after.winner != state.to_move
        if self.settings.proof < 2:
            return False
        from boardlab.search.alphabeta import proven_value

        seconds = 0.0 if deadline is None else max(deadline - time.perf_counter(), 1e-4)
        return proven_value(self.proved(after, self.settings.proof - 1, seconds).score) == 1

    def drawn(self, state: Any, search: Search) -> int | None:
        """A root action drawn with probability of its visits to the power ``1/temperature``, in
        the game's first ``temp_plies`` plies; None when the settings draw no move there."""
        s = self.settings
        if s.temperature <= 0 or state.ply >= s.temp_plies:
            return None
        moves, visits, _ = search.tree.root_children()
        # visits over the most visited first: visits ** (1 / T) stays finite for small T
        weights = (visits / max(int(visits.max()), 1)) ** (1.0 / s.temperature)
        if weights.sum() <= 0:
            return None
        return int(moves[self.np_rng.choice(len(moves), p=weights / weights.sum())])

    def choose_safe(self, state: Any, search: Search, deadline: float | None = None) -> int:
        """The move drawn by ``temperature`` or else the search's best, unless it is proven to
        lose; then the most visited one that is not (the best action if every one is, or once
        ``deadline`` has passed)."""
        best = self.drawn(state, search)
        if best is None:
            best, _ = search.best()
        if not self.settings.proof or not self.loses(state, best, deadline):
            return best
        moves, visits, _ = search.tree.root_children()
        for k in np.argsort(-visits, kind="stable"):
            if deadline is not None and time.perf_counter() >= deadline:
                break
            if moves[k] != best and not self.loses(state, int(moves[k]), deadline):
                return int(moves[k])
        return best

    def act(self, state: Any, limit: Limit | None = None) -> Decision:
        """The move within ``limit`` over the agent's default; a time limit covers the proof
        search too."""
        start = time.perf_counter()
        budget = call_limit(limit, self.limit, state)
        won = self.forced_win(state, 0.0 if budget.time is None else PROOF_SHARE * budget.time)
        if won is not None:
            return won
        deadline = None
        if budget.time is not None:
            deadline = start + budget.time
            left = budget.time - (time.perf_counter() - start) - CHECK_SHARE * budget.time
            budget = dataclasses.replace(budget, time=max(left, MIN_SEARCH_SHARE * budget.time))
        search = self.search(state, budget)
        action = self.choose_safe(state, search, deadline)
        return tree_decision(state, search, action, "alphazero")


__all__ = ["AlphaZeroAgent", "AlphaZeroSettings", "shipped_model", "shipped_model_name"]
