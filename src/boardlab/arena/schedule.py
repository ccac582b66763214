"""The deterministic schedule of a tournament: who plays whom, with which colours, opening and seeds.

Everything about game ``i`` follows from the tournament's configuration and ``i`` alone, so
a tournament can be stopped, resumed, split over processes or replayed, and always gives
the same games for agents that are deterministic given their seed.

The pairs: every two players in a round robin; the first player with each of the others in
a gauntlet (the others do not meet). Order: round ``k`` holds one game of every pair; game
``i`` is round ``i // pairs``, pair ``i % pairs``. Within a pair, rounds ``2m`` and ``2m + 1``
share opening ``m`` with the colours swapped (the pair's first player moves first in even
rounds); every pair meets the same openings. Opening ``m`` is ``opening_plies`` random moves
drawn from a seed derived from the tournament seed and ``m``, or where the tournament has a
suite of openings, the suite's opening ``m`` (from its first again after its last); each agent's
seed is derived from the tournament seed, the game index and its colour.

Because a round's games do not depend on how many rounds are asked for, a longer run of the
same tournament extends a shorter one: the schedule for ``n`` games per pair is a prefix of
the one for ``n + 1``.
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass, field, fields
from itertools import combinations
from typing import Any

from boardlab.agents.base import AgentSpecError, parse_spec
from boardlab.core.spec import shorten, spec_text
from boardlab.games import GameError, parse_game
from boardlab.play.clock import TimeControl, TimeControlError

SCHEDULE_VERSION = 1
MAX_GAMES_PER_PAIR = 10**9
"""More games than anyone can play: a bigger count is refused as a typo."""
MAX_LISTED_GAMES = 10**6
MAX_OPENING_PLIES = 1000
MAX_PLAYERS = 1000
MAX_OPENINGS = 100_000
"""Most openings in a suite."""
ROUND_ROBIN = "round-robin"
GAUNTLET = "gauntlet"
PAIRINGS = (ROUND_ROBIN, GAUNTLET)
"""Who meets whom: every pair of players, or the first player and each of the others."""


def _shown(number: int) -> str:
    text = str(number)
    return text if len(text) <= 24 else f"{text[:10]}...({len(text)} digits)"


class ArenaError(ValueError):
    """Bad input to the arena: a tournament that cannot be scheduled or played."""


def player_name(spec: str) -> str:
    """The one text of an agent spec however it was written (``AlphaBeta: depth=3`` and
    ``alphabeta:depth=3``, options in any order, defaults written out or not), or the spec as it
    is when it names no known agent: one player across tournaments, and one tournament however
    its players were written."""
    try:
        return _canonical_spec(spec)
    except (AgentSpecError, TypeError, AttributeError):
        return spec


@functools.lru_cache(maxsize=4096)
def _canonical_spec(spec: str) -> str:
    # a spec naming no agent raises, and is not cached: an agent registered later is then known
    cls, settings = parse_spec(spec)
    return spec_text(cls.name, settings)


def derive_seed(seed: int, *labels: str | int) -> int:
    """A 63-bit seed derived from ``seed`` and labels (stable across runs and platforms)."""
    text = json.dumps([seed, *labels], separators=(",", ":"))
    digest = hashlib.blake2b(text.encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") >> 1


@dataclass(frozen=True)
class TournamentConfig:
    """What defines a tournament: the game, the players' agent specs, who meets whom, the seed
    and openings.

    ``games_per_pair`` says how many games each pair plays in this run; it is not part of the
    tournament's identity (see the module docstring), so raising it later adds games to the
    same stored tournament. ``game`` is kept as its game's canonical spec (``quixo:size=5``
    and ``Quixo`` are ``quixo``); ArenaError if it names no game. ``specs`` are kept as their
    canonical text (:func:`player_name`: ``MCTS: iters=50`` and ``mcts:c=1.4,iters=50`` are
    ``mcts:iters=50``), a spec naming no known agent as written (refused when played).
    ``pairing`` is one of :data:`PAIRINGS`: a round robin, or a gauntlet (the first spec
    against each of the others).
    ``openings`` is a suite of openings (each a tuple of moves in the game's notation, checked
    by :func:`boardlab.arena.runner.validate_config`) played in turn instead of random ones;
    with a suite, ``opening_plies`` says nothing and is kept 0. ``time_control`` (``"60+0.5"``,
    see :class:`~boardlab.play.clock.TimeControl`; empty: none) puts every game on a game clock,
    kept in its canonical form.
    """

    specs: tuple[str, ...]
    games_per_pair: int
    game: str = "quixo"
    seed: int = 0
    opening_plies: int = 2
    name: str = ""
    pairing: str = ROUND_ROBIN
    openings: tuple[tuple[str, ...], ...] = ()
    time_control: str = ""
    stored_id: str = field(default="", compare=False)
    """The key of this tournament in a store that an older version wrote with its specs or game
    spelt otherwise (:meth:`boardlab.arena.store.Store.register` finds it); empty: the key is
    computed (:attr:`tournament_id`)."""

    def __post_init__(self) -> None:
        # one text for one agent however it was written: one tournament, not one per spelling
        object.__setattr__(self, "specs", tuple(player_name(s.strip()) for s in self.specs))
        object.__setattr__(self, "openings", tuple(tuple(moves) for moves in self.openings))
        if self.openings:
            object.__setattr__(self, "opening_plies", 0)
        try:  # the game as one text however it was written (quixo:size=5 is quixo): one tournament
            object.__setattr__(self, "game", parse_game(self.game).spec)
        except GameError as err:
            raise ArenaError(str(err)) from None
        if self.time_control:
            try:  # one text for one clock (60.0+0 is 60)
                object.__setattr__(self, "time_control", str(TimeControl.parse(self.time_control)))
            except TimeControlError as err:
                raise ArenaError(str(err)) from None
        if len(self.specs) < 2:
            raise ArenaError(f"a tournament needs at least 2 agent specs, got {len(self.specs)}")
        if self.pairing not in PAIRINGS:
            raise ArenaError(
                f"pairing must be one of {', '.join(PAIRINGS)}, got {shorten(repr(self.pairing))}"
            )
        if len(self.specs) > MAX_PLAYERS:
            raise ArenaError(f"a tournament takes at most {MAX_PLAYERS} agent specs, got {len(self.specs)}")
        if not 1 <= self.games_per_pair <= MAX_GAMES_PER_PAIR:
            raise ArenaError(
                f"games per pair must be in 1..{MAX_GAMES_PER_PAIR}, got {_shown(self.games_per_pair)}"
            )
        if not 0 <= self.opening_plies <= MAX_OPENING_PLIES:
            raise ArenaError(
                f"opening plies must be in 0..{MAX_OPENING_PLIES}, got {_shown(self.opening_plies)}"
            )
        if not 0 <= self.seed < 2**63:
            raise ArenaError(f"seed must be in 0..2**63-1, got {_shown(self.seed)}")
        if len(self.openings) > MAX_OPENINGS:
            raise ArenaError(f"a suite takes at most {MAX_OPENINGS:,} openings, got {len(self.openings):,}")
        longest = max((len(moves) for moves in self.openings), default=0)
        if longest > MAX_OPENING_PLIES:
            raise ArenaError(f"an opening takes at most {MAX_OPENING_PLIES} moves, got {longest}")

    @functools.cached_property
    def tournament_id(self) -> str:
        """A key naming this tournament in the store (game, specs, seed, opening plies, and the
        pairing, openings and time control where they are not a round robin's, random and none:
        a round robin from random openings without a clock keeps the key it always had), or the
        :attr:`stored_id` it was found under in a store."""
        if self.stored_id:
            return self.stored_id
        identity: dict[str, object] = {
            "version": SCHEDULE_VERSION,
            "game": self.game,
            "specs": list(self.specs),
            "seed": self.seed,
            "opening_plies": self.opening_plies,
        }
        if self.pairing != ROUND_ROBIN:
            identity["pairing"] = self.pairing
        if self.openings:
            identity["openings"] = [list(moves) for moves in self.openings]
        if self.time_control:
            identity["time_control"] = self.time_control
        text = json.dumps(identity, sort_keys=True, separators=(",", ":"))
        return hashlib.blake2b(text.encode(), digest_size=8).hexdigest()

    @functools.cached_property
    def pairs(self) -> list[tuple[int, int]]:
        """The pairs of player indices, in schedule order."""
        if self.pairing == GAUNTLET:
            return [(0, other) for other in range(1, len(self.specs))]
        return list(combinations(range(len(self.specs)), 2))

    @property
    def total_games(self) -> int:
        """Number of games in this run's schedule."""
        return len(self.pairs) * self.games_per_pair

    @property
    def label(self) -> str:
        """The name if one was given, else the specs joined by ``vs`` (a gauntlet: ``A vs
        each of B, C``; see :func:`specs_label`)."""
        return self.name or specs_label(self.specs, self.pairing)


def specs_label(specs: tuple[str, ...] | list[str], pairing: str = ROUND_ROBIN) -> str:
    """What a tournament of ``specs`` without a name is called: the specs joined by ``vs``
    (a gauntlet: ``A vs each of B, C``)."""
    if pairing == GAUNTLET:
        return f"{specs[0]} vs each of {', '.join(specs[1:])}"
    return " vs ".join(specs)


@dataclass(frozen=True)
class GameSeating:
    """Which game of a tournament it is, who plays it in which colour with which seed, and its
    opening's number: what a :class:`GameTask` and the record of its game
    (:class:`boardlab.arena.play.GameRecord`) both hold."""

    tournament_id: str
    index: int
    game: str
    first_player: int
    second_player: int
    first_spec: str
    second_spec: str
    first_seed: int
    second_seed: int
    opening_index: int

    def seating(self) -> dict[str, Any]:
        """The fields of :class:`GameSeating` by name (what a game's record copies from its task)."""
        return {f.name: getattr(self, f.name) for f in fields(GameSeating)}


@dataclass(frozen=True)
class GameTask(GameSeating):
    """Everything needed to play game ``index`` of a tournament, as plain values."""

    opening_seed: int
    opening_plies: int
    opening: tuple[str, ...] = ()
    """The opening's moves where the tournament has a suite (else drawn from ``opening_seed``)."""
    time_control: str = ""
    """The game clock of both sides (``"60+0.5"``), or empty: none."""

    def to_json(self) -> str:
        """The task as JSON (what crosses to a worker process)."""
        return json.dumps(self.__dict__, separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str) -> GameTask:
        """Read a task written by :meth:`to_json`."""
        data = json.loads(text)
        return cls(**{**data, "opening": tuple(data.get("opening", ()))})


def game_task(config: TournamentConfig, index: int) -> GameTask:
    """The task of game ``index`` (any non-negative index; rounds continue past this run)."""
    pairs = config.pairs
    round_, pair = divmod(index, len(pairs))
    a, b = pairs[pair]
    first, second = (a, b) if round_ % 2 == 0 else (b, a)
    opening_index = round_ // 2
    suite = config.openings
    opening = suite[opening_index % len(suite)] if suite else ()
    return GameTask(
        tournament_id=config.tournament_id,
        index=index,
        game=config.game,
        first_player=first,
        second_player=second,
        first_spec=config.specs[first],
        second_spec=config.specs[second],
        first_seed=derive_seed(config.seed, "agent", index, 0),
        second_seed=derive_seed(config.seed, "agent", index, 1),
        opening_index=opening_index,
        opening_seed=derive_seed(config.seed, "opening", opening_index),
        opening_plies=len(opening) if suite else config.opening_plies,
        opening=opening,
        time_control=config.time_control,
    )


def iter_schedule(config: TournamentConfig) -> Iterator[GameTask]:
    """Every game of this run, in schedule order, made one at a time (no memory for its length)."""
    return (game_task(config, i) for i in range(config.total_games))


def build_schedule(config: TournamentConfig) -> list[GameTask]:
    """Every game of this run, in schedule order, as a list (for small schedules)."""
    if config.total_games > MAX_LISTED_GAMES:
        raise ArenaError(
            f"a schedule of {config.total_games} games is too long to list; read it with iter_schedule"
        )
    return list(iter_schedule(config))
