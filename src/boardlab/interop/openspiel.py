"""boardlab and OpenSpiel, both ways round.

**boardlab's games in OpenSpiel.** :func:`register_games` registers every boardlab game as an
OpenSpiel Python game named ``boardlab_<game>`` (``boardlab_quixo``, ``boardlab_connect4``,
``boardlab_tictactoe``, ``boardlab_nim``) whose parameters are the game's options, so
OpenSpiel's algorithms and bots run on them::

    import numpy as np
    import pyspiel
    from open_spiel.python.algorithms import mcts
    from boardlab.interop.openspiel import register_games

    register_games()
    game = pyspiel.load_game("boardlab_quixo(size=4,rules=course)")
    rng = np.random.RandomState(0)
    bot = mcts.MCTSBot(game, 1.4, 200, mcts.RandomRolloutEvaluator(1, rng), random_state=rng)
    action = bot.step(game.new_initial_state())

(OpenSpiel's C++ ``MCTSBot`` crashes on Python games, its own ``python_tic_tac_toe`` too: use
its Python MCTS on them.)

A state's actions are boardlab's action numbers (``position.move_index(move)``), its boardlab
position is ``state.position``, its observation tensor the game's planes from the observing
player's view (see :mod:`boardlab.interop.views`), its returns +1/−1/0.
List-valued options (Nim's piles) are written as OpenSpiel writes lists: ``piles=3;4;5``.

**OpenSpiel's bots on boardlab positions.** :func:`run_bot` (behind the agent
``openspiel:bot=mcts,sims=1000`` of :mod:`boardlab.interop.openspiel_agent`; also
``bot=alphabeta``, ``bot=random``) decides any boardlab position: on the games both libraries have
(Connect Four 7x6, Tic-Tac-Toe, Nim without a move limit) OpenSpiel's own C++ game is set up
from the position by replaying moves that reach it (the stones, in an order that alternates
the colours; each pile's objects taken in one move), and actions are mapped between the two
numberings (the same for a column or a cell ``row * 3 + column``; Nim's pile-major against
OpenSpiel's take-major); elsewhere the bot runs on the registered Python game (MCTS then is
OpenSpiel's Python implementation). :func:`spiel_state_for` gives the state of a position:
on the registered Python game (boardlab's numbers, ``.position``) unless OpenSpiel's own game
is asked for with ``engine="native"`` (OpenSpiel's numbers, no ``.position``).

Needs the ``bridges`` extra: ``pip install 'boardlab[bridges]'``.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from boardlab.core.spec import format_value, options_of, shown_value, with_article
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
ENGINES = ("python", "native", "auto")
"""The games a boardlab position can be set up in: boardlab's rules registered in OpenSpiel,
OpenSpiel's own C++ game, or the C++ game where OpenSpiel has it."""
NATIVE_GAMES = {"connect4": "connect_four", "tictactoe": "tic_tac_toe", "nim": "nim"}
"""boardlab games OpenSpiel has in C++, with OpenSpiel's name: Connect Four 7x6 and
Tic-Tac-Toe, and Nim without a move limit (any piles, misère or normal play)."""
__all__ = [
    "ENGINES",
    "NATIVE_GAMES",
    "PREFIX",
    "BotAnswer",
    "NotAPositionError",
    "OpenSpielBridgeError",
    "boardlab_game_of",
    "from_native_action",
    "has_native",
    "native_game",
    "native_state",
    "register_games",
    "run_bot",
    "spiel_game",
    "spiel_parameters",
    "spiel_state_for",
    "to_native_action",
]


class OpenSpielBridgeError(GameError):
    """A position or game the bridge cannot carry over to OpenSpiel."""


class NotAPositionError(TypeError):
    """Something given where a boardlab position (a game's State) is expected: a string, a board."""


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


def has_native(game: Game) -> bool:
    """True when OpenSpiel has ``game`` (a boardlab Game) in C++ (see :data:`NATIVE_GAMES`)."""
    if game.name == "nim":
        return getattr(game, "k", None) == 0
    return game.name in NATIVE_GAMES and game == type(game)()


def max_game_length(game: Game) -> int:
    """An upper bound on the plies of a game of ``game`` (its ``max_plies``), which OpenSpiel
    asks for; OpenSpielBridgeError for a game that knows none."""
    if game.max_plies is None:
        raise OpenSpielBridgeError(
            f"{game.spec} names no bound on the length of its games (Game.max_plies), which OpenSpiel needs"
        )
    return int(game.max_plies)


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
            raise OpenSpielBridgeError(
                f"{with_article(position.game.spec)} position is not {with_article(self.boardlab.spec)} one"
            )
        return SpielState(self, position)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> PlanesObserver:
        """The observer of the game's planes (perfect information: every view sees the board)."""
        return PlanesObserver(self.boardlab, params)

    def __reduce__(self) -> tuple[Any, tuple[str, dict[str, Any]]]:
        # pickled as OpenSpiel pickles a game, by its name and parameters: the classes are made
        # by register_games, and unpickling registers them first (OpenSpiel's tools pickle games)
        return _load_registered, (self.short_name, self.get_parameters())


class SpielState(pyspiel.State):
    """An OpenSpiel state over an immutable boardlab position (``position``).

    A state made from a position past the start (:meth:`SpielGame.state_of`) knows its ply but
    not the moves that reached it: ``history()`` holds only the actions applied since, while
    ``move_number()`` counts from the position's ply.
    """

    def __init__(self, game: SpielGame, position: State) -> None:
        super().__init__(game)
        self.position = position
        self.plies_before = int(position.ply)  # played before this state was made: not in history()

    def move_number(self) -> int:
        """The position's ply: the plies before this state was made and the actions since."""
        return self.plies_before + int(super().move_number())

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


def register_games() -> tuple[str, ...]:
    """Register with OpenSpiel every available boardlab game it does not know yet (a game added
    to boardlab later is registered at the next call); the names of all of them."""
    names = []
    for name in available_games():
        short_name = PREFIX + name
        if short_name not in pyspiel.registered_names():
            cls = game_class(name)
            game_class_for = type(f"Spiel_{name}", (SpielGame,), {"short_name": short_name})
            pyspiel.register_game(_game_type(name, cls), game_class_for)
        names.append(short_name)
    return tuple(names)


def _load_registered(short_name: str, params: dict[str, Any]) -> Any:
    """The registered game ``short_name`` with ``params`` (what a pickled game is read back as)."""
    register_games()
    return pyspiel.load_game(short_name, params)


def spiel_game(game: Game | str) -> Any:
    """The registered OpenSpiel Python game of a boardlab game (a Game or a spec)."""
    return _loaded(parse_game(game))


@functools.cache
def _loaded(game: Game) -> Any:
    register_games()
    return pyspiel.load_game(PREFIX + game.name, spiel_parameters(game))


# --- boardlab positions in OpenSpiel's own games ----------------------------------------------


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
    matter, so OpenSpiel's player to move may differ from boardlab's colour there.
    OpenSpielBridgeError for a game OpenSpiel lacks and for a finished position (replayed moves
    could end the game early)."""
    game = position.game
    spiel = native_game(game)  # OpenSpielBridgeError first for a game OpenSpiel lacks
    if position.is_over:
        raise OpenSpielBridgeError(
            f"the game is over in {position.to_text()}: OpenSpiel's own game is set up only from a "
            "position still in play (its Python game, engine=python, takes any)"
        )
    view = game.json_view(position)
    if game.name == "tictactoe":
        moves = _tictactoe_moves(view["cells"])
    elif game.name == "connect4":
        moves = _connect4_moves(view["board"])
    else:
        moves = _nim_moves(view["start"], view["piles"])
    state = spiel.new_initial_state()
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


# --- OpenSpiel's bots on boardlab positions -------------------------------------------------


def spiel_state_for(position: State, engine: str = "python") -> Any:
    """The OpenSpiel state of a boardlab position.

    ``engine="python"`` (the default): a state of boardlab's rules registered as an OpenSpiel
    Python game (:class:`SpielState`), whose actions are boardlab's action numbers
    (``position.move_index(move)``) and which carries the boardlab position as ``.position``.
    It takes any position, a finished one too.

    ``engine="native"``: OpenSpiel's own C++ game (Connect Four 7x6, Tic-Tac-Toe, Nim with
    ``k=0``), a plain ``pyspiel.State`` with **OpenSpiel's action numbers** and no ``.position``.
    They differ from boardlab's in Nim (take-major against pile-major): convert with
    :func:`to_native_action` and :func:`from_native_action`. ``engine="auto"``: native where
    OpenSpiel has the game and the position is still in play, else Python (for code that
    converts the actions itself, as :func:`run_bot` does). OpenSpielBridgeError for another
    engine, a game OpenSpiel lacks under ``native``, or a finished position under ``native``.

    A boardlab position does not carry the moves that reached it. On the Python game the state
    starts at the position: ``move_number()`` is the position's ply and ``history()`` holds only
    the actions applied since. OpenSpiel's own games are set up by replaying moves that reach the
    position (see :func:`native_state`): ``history()`` is that order, which need not be the
    game's, and in Nim, where each pile's objects are taken in one move, ``move_number()`` counts
    those moves rather than the position's ply.
    """
    if not isinstance(position, State):
        hint = (
            " (read a position's text with parse_game(SPEC).parse_position(text))"
            if isinstance(position, str)
            else ""
        )
        raise NotAPositionError(
            f"spiel_state_for takes a boardlab State, a position such as new_game('nim'), "
            f"not {shown_value(position, 30)}{hint}"
        )
    if engine not in ENGINES:
        raise OpenSpielBridgeError(
            f"engine must be one of {', '.join(ENGINES)}, got {shown_value(engine, 30)}"
        )
    if engine == "native" or (engine == "auto" and has_native(position.game) and not position.is_over):
        return native_state(position)
    return spiel_game(position.game).state_of(position)


@dataclass(frozen=True)
class BotAnswer:
    """A bot's answer in boardlab's numbering: the action, the policy over the action space
    (MCTS: visit shares), the value for the side to move, the simulations run (None where the
    bot does not count them: alpha-beta, random) and the depth searched in plies (alpha-beta's
    horizon; 0 where the bot has none)."""

    action: int
    policy: np.ndarray | None = None
    value: float | None = None
    nodes: int | None = None
    depth: int = 0


def run_bot(
    position: State,
    bot: str,
    *,
    engine: str = "auto",
    simulations: int = 1000,
    c: float = 1.4,
    rollouts: int = 1,
    depth: int | None = None,
    seed: int = 0,
) -> BotAnswer:
    """OpenSpiel's ``bot`` (``mcts``, ``alphabeta`` or ``random``) deciding ``position``."""
    spiel_state = spiel_state_for(position, engine)
    if bot == "mcts":
        answer = _mcts(spiel_state, simulations, c, rollouts, seed)
    elif bot == "alphabeta":
        answer = _alphabeta(spiel_state, depth)
    elif bot == "random":
        answer = BotAnswer(int(np.random.default_rng(seed).choice(spiel_state.legal_actions())))
    else:
        raise OpenSpielBridgeError(f"unknown OpenSpiel bot {bot!r}; expected mcts, alphabeta or random")
    if isinstance(spiel_state, SpielState):
        return answer
    game = position.game
    policy = answer.policy
    if policy is not None:
        policy = policy[[to_native_action(game, a) for a in range(game.kernel.num_actions)]]
    return BotAnswer(
        from_native_action(game, answer.action), policy, answer.value, answer.nodes, answer.depth
    )


def _mcts(spiel_state: Any, simulations: int, c: float, rollouts: int, seed: int) -> BotAnswer:
    game = spiel_state.get_game()
    if isinstance(spiel_state, SpielState):
        # OpenSpiel's C++ MCTSBot crashes on Python games (its own python_tic_tac_toe too),
        # so Python games get OpenSpiel's Python MCTS: the same UCT with random rollouts
        from open_spiel.python.algorithms import mcts

        evaluator = mcts.RandomRolloutEvaluator(rollouts, np.random.RandomState(seed))
        random_state = np.random.RandomState(seed)
        bot = mcts.MCTSBot(game, c, simulations, evaluator, solve=False, random_state=random_state)
    else:
        evaluator = pyspiel.RandomRolloutEvaluator(rollouts, seed)
        bot = pyspiel.MCTSBot(game, evaluator, c, simulations, 1000, False, seed, False)
    root = bot.mcts_search(spiel_state)
    policy = np.zeros(game.num_distinct_actions(), dtype=np.float64)
    for child in root.children:
        policy[child.action] = child.explore_count
    if policy.sum() > 0:
        policy /= policy.sum()
    best = root.best_child()
    value = None
    if best.explore_count > 0:
        # a node holds the results of the player who moved into it: the side to move here
        value = float(np.clip(best.total_reward / best.explore_count, -1, 1))
        if best.player != spiel_state.current_player():
            value = -value
    return BotAnswer(int(best.action), policy, value, int(root.explore_count))


def _alphabeta(spiel_state: Any, depth: int | None) -> BotAnswer:
    from open_spiel.python.algorithms import minimax

    game = spiel_state.get_game()
    horizon = depth or game.max_game_length()
    # at the depth cut a position counts as a draw: OpenSpiel's search has no evaluation
    value, action = minimax.alpha_beta_search(
        game,
        state=spiel_state.clone(),
        value_function=lambda _state: 0.0,
        maximum_depth=horizon,
        maximizing_player_id=spiel_state.current_player(),
    )
    return BotAnswer(int(action), None, float(np.clip(value, -1, 1)), depth=horizon)
