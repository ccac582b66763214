"""boardlab and OpenSpiel, both ways round.

**boardlab's games in OpenSpiel.** :func:`register_games` registers every boardlab game as an
OpenSpiel Python game named ``boardlab_<game>`` (``boardlab_quixo``, ``boardlab_connect4``,
``boardlab_tictactoe``, ``boardlab_nim``) whose parameters are the game's options, so
OpenSpiel's algorithms and bots run on them::

    import pyspiel
    from boardlab.interop.openspiel import register_games

    register_games()
    game = pyspiel.load_game("boardlab_quixo(size=4,rules=course)")
    bot = pyspiel.MCTSBot(game, pyspiel.RandomRolloutEvaluator(1, 0), 1.4, 500, 1000, False, 0, False)
    action = bot.step(game.new_initial_state())

A state's actions are boardlab's action numbers, its observation tensor the game's planes
from the observing player's view (see :mod:`boardlab.interop.views`), its returns +1/−1/0.
List-valued options (Nim's piles) are written as OpenSpiel writes lists: ``piles=3;4;5``.

**OpenSpiel's bots as a boardlab agent.** ``openspiel:bot=mcts,sims=1000`` (and
``bot=alphabeta``, ``bot=random``) plays any boardlab game: on the games both libraries have
(Connect Four 7x6, Tic-Tac-Toe, Nim without a move limit) OpenSpiel's own C++ game is set up
from the position by replaying moves that reach it (the stones, in an order that alternates
the colours; each pile's objects taken in one move), and actions are mapped between the two
numberings (the same for a column or a cell ``row * 3 + column``; Nim's pile-major against
OpenSpiel's take-major); elsewhere the bot runs on the registered Python game (MCTS then is
OpenSpiel's Python implementation: its C++ ``MCTSBot`` crashes on Python games). The bot's
answer is checked against boardlab's legal moves.

Needs the ``bridges`` extra: ``pip install 'boardlab[bridges]'``.
"""

from __future__ import annotations

import functools
import time
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from boardlab.agents.base import Agent, AgentSpecError
from boardlab.agents.decision import Decision, Limit, SearchInfo
from boardlab.core.spec import SpecError, format_value, option, options_of
from boardlab.games import available_games, game_class, parse_game
from boardlab.games.base import Game, GameError, State
from boardlab.interop.views import planes_for

try:
    import pyspiel
except ImportError as err:  # pragma: no cover - the extra is installed in CI
    raise ImportError(
        "the OpenSpiel bridge needs the bridges extra: pip install 'boardlab[bridges]'"
    ) from err

PREFIX = "boardlab_"
NATIVE_GAMES = {"connect4": "connect_four", "tictactoe": "tic_tac_toe", "nim": "nim"}
"""boardlab games OpenSpiel has in C++, with OpenSpiel's name: Connect Four 7x6 and
Tic-Tac-Toe, and Nim without a move limit (any piles, misère or normal play)."""

__all__ = [
    "NATIVE_GAMES",
    "PREFIX",
    "OpenSpielAgent",
    "OpenSpielBridgeError",
    "boardlab_game_of",
    "native_state",
    "register_games",
    "spiel_game",
    "spiel_parameters",
]


class OpenSpielBridgeError(GameError):
    """A position or game the bridge cannot carry over to OpenSpiel."""


# --- boardlab games as OpenSpiel Python games ------------------------------------------------


def _spiel_value(value: Any) -> Any:
    """An option value as an OpenSpiel parameter: lists joined by ``;`` as OpenSpiel writes
    them (its parser reads ``3-4-5`` as a broken number)."""
    return ";".join(str(v) for v in value) if isinstance(value, tuple) else value


def _parameter_defaults(cls: type[Game]) -> dict[str, Any]:
    """OpenSpiel parameters of a boardlab game class: each option's default."""
    return {spec.name: _spiel_value(spec.default) for spec in options_of(cls)}


def spiel_parameters(game: Game) -> dict[str, Any]:
    """The OpenSpiel parameters of a boardlab game's options."""
    return {spec.name: _spiel_value(getattr(game, spec.name)) for spec in options_of(type(game))}


def boardlab_game_of(name: str, params: dict[str, Any]) -> Game:
    """The boardlab Game of an OpenSpiel game name (``boardlab_nim``) and its parameters."""
    base = name.removeprefix(PREFIX)
    texts = [f"{key}={format_value(value).replace(';', '-')}" for key, value in sorted(params.items())]
    return parse_game(f"{base}:{','.join(texts)}" if texts else base)


def max_game_length(game: Game) -> int:
    """An upper bound on the plies of a game of ``game``, which OpenSpiel asks for."""
    if game.ply_cap is not None:
        return int(game.ply_cap)
    if hasattr(game, "piles"):  # Nim: every move takes at least one object
        return max(1, sum(game.piles))
    # a board game without a cap: every move fills one cell of the board
    _, rows, columns = game.kernel.obs_shape
    return rows * columns


def _game_type(name: str, cls: type[Game]) -> Any:
    return pyspiel.GameType(
        short_name=PREFIX + name,
        long_name=f"boardlab {cls.display_name or name}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.DETERMINISTIC,
        information=pyspiel.GameType.Information.PERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=2,
        min_num_players=2,
        provides_information_state_string=True,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=_parameter_defaults(cls),
    )


def _game_info(game: Game) -> Any:
    return pyspiel.GameInfo(
        num_distinct_actions=game.kernel.num_actions,
        max_chance_outcomes=0,
        num_players=2,
        min_utility=-1.0,
        max_utility=1.0,
        utility_sum=0.0,
        max_game_length=max_game_length(game),
    )


class SpielGame(pyspiel.Game):
    """A boardlab game seen by OpenSpiel (one class per registered game, see :func:`register_games`)."""

    short_name: ClassVar[str] = ""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = dict(params or {})
        self.boardlab = boardlab_game_of(self.short_name, params)
        super().__init__(
            _game_type(self.short_name.removeprefix(PREFIX), type(self.boardlab)),
            _game_info(self.boardlab),
            params,
        )

    def new_initial_state(self) -> SpielState:
        """The starting position."""
        return SpielState(self, self.boardlab.initial())

    def state_of(self, position: State) -> SpielState:
        """An OpenSpiel state holding a boardlab position of this game."""
        if position.game != self.boardlab:
            raise OpenSpielBridgeError(f"a {position.game.spec} position is not a {self.boardlab.spec} one")
        return SpielState(self, position)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> PlanesObserver:
        """The observer of the game's planes (perfect information: every view sees the board)."""
        return PlanesObserver(self.boardlab, params)


class SpielState(pyspiel.State):
    """An OpenSpiel state over an immutable boardlab position (``position``)."""

    def __init__(self, game: SpielGame, position: State) -> None:
        super().__init__(game)
        self.position = position

    def current_player(self) -> int:
        return int(pyspiel.PlayerId.TERMINAL) if self.position.is_over else self.position.to_move

    def _legal_actions(self, player: int) -> list[int]:
        return sorted(self.position.legal_indices())

    def _apply_action(self, action: int) -> None:
        self.position = self.position.play_index(int(action))

    def _action_to_string(self, player: int, action: int) -> str:
        return str(self.position.game.move_of(int(action)))

    def is_terminal(self) -> bool:
        return self.position.is_over

    def returns(self) -> list[float]:
        outcome = self.position.outcome
        if outcome is None or outcome.winner is None:
            return [0.0, 0.0]
        return [1.0, -1.0] if outcome.winner == 0 else [-1.0, 1.0]

    def __str__(self) -> str:
        return self.position.to_text()


class PlanesObserver:
    """OpenSpiel's observer protocol over the game's planes from the observing player's view."""

    def __init__(self, game: Game, params: Any = None) -> None:
        if params:
            raise OpenSpielBridgeError(f"observation parameters are not supported, got {params}")
        shape = game.kernel.obs_shape
        self.tensor = np.zeros(int(np.prod(shape)), np.float32)
        self.dict = {"observation": self.tensor.reshape(shape)}

    def set_from(self, state: SpielState, player: int) -> None:
        self.dict["observation"][:] = planes_for(state.position, player)

    def string_from(self, state: SpielState, player: int) -> str:
        return state.position.to_text()


@functools.cache
def register_games() -> tuple[str, ...]:
    """Register every available boardlab game with OpenSpiel (once per process); their names."""
    names = []
    for name in available_games():
        short_name = PREFIX + name
        if short_name not in pyspiel.registered_names():
            cls = game_class(name)
            game_class_for = type(f"Spiel_{name}", (SpielGame,), {"short_name": short_name})
            pyspiel.register_game(_game_type(name, cls), game_class_for)
        names.append(short_name)
    return tuple(names)


def spiel_game(game: Game | str) -> Any:
    """The registered OpenSpiel Python game of a boardlab game (a Game or a spec)."""
    return _loaded(parse_game(game))


@functools.cache
def _loaded(game: Game) -> Any:
    register_games()
    return pyspiel.load_game(PREFIX + game.name, spiel_parameters(game))


# --- boardlab positions in OpenSpiel's own games ----------------------------------------------


def has_native(game: Game) -> bool:
    """True when OpenSpiel has ``game`` in C++ (see :data:`NATIVE_GAMES`)."""
    if game.name == "nim":
        return getattr(game, "k", None) == 0
    return game.name in NATIVE_GAMES and game == type(game)()


@functools.cache
def native_game(game: Game) -> Any:
    """OpenSpiel's C++ game of a boardlab game that has one."""
    if not has_native(game):
        raise OpenSpielBridgeError(f"OpenSpiel has no C++ game for {game.spec}")
    if game.name == "nim":
        piles = ";".join(str(p) for p in game.piles)  # type: ignore[attr-defined]
        return pyspiel.load_game("nim", {"pile_sizes": piles, "is_misere": bool(game.misere)})  # type: ignore[attr-defined]
    return pyspiel.load_game(NATIVE_GAMES[game.name])


def to_native_action(game: Game, action: int) -> int:
    """OpenSpiel's number of a boardlab action (Nim: boardlab counts pile-major, OpenSpiel
    take-major; the board games number columns and cells alike)."""
    if game.name != "nim":
        return int(action)
    pile, taken = divmod(int(action), game.max_take)  # type: ignore[attr-defined]
    return taken * len(game.piles) + pile  # type: ignore[attr-defined]


def from_native_action(game: Game, action: int) -> int:
    """boardlab's number of an OpenSpiel action (the inverse of :func:`to_native_action`)."""
    if game.name != "nim":
        return int(action)
    taken, pile = divmod(int(action), len(game.piles))  # type: ignore[attr-defined]
    return pile * game.max_take + taken  # type: ignore[attr-defined]


def native_state(position: State) -> Any:
    """OpenSpiel's C++ state of a position of a game it has, reached by replaying moves: the
    stones of a board, or each pile's objects taken in one move. In Nim only the piles
    matter, so OpenSpiel's player to move may differ from boardlab's colour there."""
    game = position.game
    view = game.json_view(position)
    if game.name == "tictactoe":
        moves = _tictactoe_moves(view["cells"])
    elif game.name == "connect4":
        moves = _connect4_moves(view["board"])
    else:
        moves = _nim_moves(view["start"], view["piles"])
    state = native_game(game).new_initial_state()
    for action in moves:
        state.apply_action(action)
    if game.name != "nim" and state.current_player() != position.to_move:
        raise OpenSpielBridgeError(f"the position {position.to_text()} does not replay in OpenSpiel")
    return state


def _nim_moves(start: list[int], piles: list[int]) -> list[int]:
    """OpenSpiel's actions taking each pile from its start to its size (take-major numbers)."""
    return [(s - p - 1) * len(start) + i for i, (s, p) in enumerate(zip(start, piles, strict=True)) if s > p]


def _tictactoe_moves(cells: list[list[int]]) -> list[int]:
    """X's and O's cells, alternately (any order reaches the position: lines never vanish, so
    no earlier position of the order had one)."""
    flat = [value for row in cells for value in row]
    xs = [i for i, value in enumerate(flat) if value == 0]
    os_ = [i for i, value in enumerate(flat) if value == 1]
    return [cell for pair in zip(xs, [*os_, None], strict=False) for cell in pair if cell is not None]


def _connect4_moves(rows: list[list[int]]) -> list[int]:
    """An order of columns that drops the stones of a Connect Four board (rows top first)
    alternately X, O, ...: a depth-first search over the stones each column has left."""
    columns = [[row[c] for row in reversed(rows) if row[c] != -1] for c in range(len(rows[0]))]
    total = sum(len(column) for column in columns)
    failed: set[tuple[int, ...]] = set()
    order: list[int] = []

    def extend(heights: list[int]) -> bool:
        if len(order) == total:
            return True
        key = tuple(heights)
        if key in failed:
            return False
        colour = len(order) % 2
        for c, column in enumerate(columns):
            if heights[c] < len(column) and column[heights[c]] == colour:
                heights[c] += 1
                order.append(c)
                if extend(heights):
                    return True
                order.pop()
                heights[c] -= 1
        failed.add(key)
        return False

    if not extend([0] * len(columns)):
        raise OpenSpielBridgeError("no order of moves reaches this Connect Four board")
    return order


# --- OpenSpiel's bots as a boardlab agent -----------------------------------------------------

BOTS = ("mcts", "alphabeta", "random")
ENGINES = ("auto", "native", "python")


@dataclass(frozen=True)
class OpenSpielSettings:
    """Options of the OpenSpiel agent."""

    bot: str = option(
        "mcts", "OpenSpiel's bot: mcts (UCT, random rollouts), alphabeta or random", choices=BOTS
    )
    sims: int = option(1000, "MCTS simulations per move", minimum=1, maximum=10**8)
    c: float = option(1.4, "MCTS exploration constant (UCT)", minimum=0, maximum=100)
    rollouts: int = option(1, "random rollouts per MCTS leaf", minimum=1, maximum=10**4)
    depth: int = option(
        5, "alpha-beta depth in plies (0: to the end of the game, for small games)", minimum=0, maximum=100
    )
    engine: str = option(
        "auto",
        "the game the bot plays: native (OpenSpiel's C++ game), python (boardlab's rules "
        "registered in OpenSpiel) or auto (native where OpenSpiel has the game)",
        choices=ENGINES,
    )


class OpenSpielAgent(Agent):
    """OpenSpiel's bots (MCTS, alpha-beta, random) playing boardlab games through the bridge.

    Limits: MCTS honours ``Limit.iterations`` (simulations) and alpha-beta ``Limit.depth``;
    OpenSpiel's bots have no clock, so a time limit is not honoured.
    """

    name = "openspiel"
    summary = "OpenSpiel's bots (MCTS, alpha-beta, random) through the OpenSpiel bridge"
    Settings: ClassVar[type] = OpenSpielSettings
    settings: OpenSpielSettings

    def __init__(self, seed: int | None = None, settings: Any = None, **options: Any) -> None:
        super().__init__(seed, settings, **options)
        self.np_rng = np.random.default_rng(seed)

    @classmethod
    def check_game(cls, settings: Any, game: Any) -> None:
        super().check_game(settings, game)
        if settings.engine == "native" and not has_native(game):
            raise AgentSpecError(
                f"openspiel: engine=native plays only {', '.join(NATIVE_GAMES)} with default options, "
                f"not {game.spec}; use engine=auto or engine=python"
            )

    @classmethod
    def default_limit(cls, settings: Any) -> Limit:
        return Limit.from_options(iterations=settings.sims, depth=settings.depth)

    def prepare(self, game: Any) -> None:
        self._spiel_of(game.initial())

    def _spiel_of(self, position: State) -> Any:
        """The OpenSpiel state the bot searches: C++ where it can, else the Python game."""
        engine = self.settings.engine
        if engine == "native" or (engine == "auto" and has_native(position.game)):
            return native_state(position)
        try:
            return spiel_game(position.game).state_of(position)
        except (SpecError, pyspiel.SpielError) as err:
            raise OpenSpielBridgeError(f"OpenSpiel cannot load {position.game.spec}: {err}") from None

    def act(self, state: Any, limit: Limit | None = None) -> Decision:
        budget = (limit or Limit()).over(self.limit)
        spiel_state = self._spiel_of(state)
        game = state.game
        native = not isinstance(spiel_state, SpielState)
        start = time.perf_counter()
        bot = self.settings.bot
        if bot == "mcts":
            action, policy, value, nodes = self._mcts(spiel_state, budget.iterations or self.settings.sims)
        elif bot == "alphabeta":
            action, value, nodes = self._alphabeta(spiel_state, budget.depth)
            policy = None
        else:
            action = int(self.np_rng.choice(spiel_state.legal_actions()))
            policy, value, nodes = None, None, 0
        if native:
            action = from_native_action(game, action)
            if policy is not None:
                policy = policy[[to_native_action(game, a) for a in range(game.kernel.num_actions)]]
        if action not in state.legal_indices():
            raise OpenSpielBridgeError(
                f"OpenSpiel's {bot} answered action {action}, not legal in {state.to_text()}"
            )
        info = SearchInfo(
            nodes=nodes,
            seconds=time.perf_counter() - start,
            score=value,
            pv=(str(state.move_from_index(action)),),
            engine=f"openspiel-{bot}",
        )
        return Decision(state.move_from_index(action), policy=policy, value=value, info=info)

    def _mcts(self, spiel_state: Any, simulations: int) -> tuple[int, np.ndarray, float | None, int]:
        s = self.settings
        seed = int(self.np_rng.integers(2**31))
        game = spiel_state.get_game()
        if isinstance(spiel_state, SpielState):
            # OpenSpiel's C++ MCTSBot crashes on Python games (its own python_tic_tac_toe too),
            # so Python games get OpenSpiel's Python MCTS: the same UCT with random rollouts
            from open_spiel.python.algorithms import mcts

            rollouts = mcts.RandomRolloutEvaluator(s.rollouts, np.random.RandomState(seed))
            random_state = np.random.RandomState(seed)
            bot = mcts.MCTSBot(game, s.c, simulations, rollouts, solve=False, random_state=random_state)
        else:
            evaluator = pyspiel.RandomRolloutEvaluator(s.rollouts, seed)
            bot = pyspiel.MCTSBot(game, evaluator, s.c, simulations, 1000, False, seed, False)
        root = bot.mcts_search(spiel_state)
        num_actions = spiel_state.get_game().num_distinct_actions()
        policy = np.zeros(num_actions, dtype=np.float64)
        for child in root.children:
            policy[child.action] = child.explore_count
        total = policy.sum()
        if total > 0:
            policy /= total
        best = root.best_child()
        value = None
        if best.explore_count > 0:
            player = spiel_state.current_player()
            # OpenSpiel's nodes hold the reward of the player who moved into them
            value = float(np.clip(best.total_reward / best.explore_count, -1, 1))
            if best.player != player:
                value = -value
        return int(best.action), policy, value, int(root.explore_count)

    def _alphabeta(self, spiel_state: Any, depth: int | None) -> tuple[int, float, int]:
        from open_spiel.python.algorithms import minimax

        game = spiel_state.get_game()
        player = spiel_state.current_player()
        # at the depth cut a position counts as a draw: OpenSpiel's search has no evaluation
        value, action = minimax.alpha_beta_search(
            game,
            state=spiel_state.clone(),
            value_function=lambda _state: 0.0,
            maximum_depth=depth or game.max_game_length(),
            maximizing_player_id=player,
        )
        return int(action), float(np.clip(value, -1, 1)), 0
