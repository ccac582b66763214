"""One run protocol for every training method, and the pieces every method shares.

A training method is a class answering :class:`TrainingRun` (``tabular.Trainer``,
``nim_ga.Evolution``, ``rules_es.ESRun``, ``neat_quixo.Evolution``): its hyper-parameters are
one frozen settings dataclass whose fields are :func:`boardlab.core.spec.option` s (declared
once: the command line derives its flags from them), and it knows how to

- ``start`` a fresh run and ``resume`` a saved one (classmethods, described by its
  :class:`Method`);
- ``step``: one epoch, or one chunk of episodes;
- ``save``: the whole run, atomically, as JSON or npz (never pickle);
- ``evaluate``: a learning-curve point against fixed opponents;
- ``final_games``, ``summary``, ``plots``: what the end of a run reports.

:func:`train` runs any of them: evaluation points every ``eval_every`` units, a checkpoint at
each of them (and after every step, or every ``checkpoint_seconds``), and a stop between two
steps that saves first, so that resuming gives the same result as an uninterrupted run.
``boardlab train`` (:mod:`boardlab.ui.train`) adds the progress bar, the signals, the final
games, ``summary.json`` and the plots of :mod:`boardlab.train.plots`.

Games against fixed opponents are played here, once for every method: :func:`play_games` (a
policy against an agent spec, in this process) and :func:`play_matches` (such games shared out
among the worker processes of one :class:`Workers` pool).
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import math
import random
import time
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Protocol, TypeVar

import numpy as np

from boardlab.agents.base import make_agent
from boardlab.agents.decision import Decision, Limit
from boardlab.core.inputs import InputFileError, check_fields, short_reason
from boardlab.core.processes import Termination, raise_if_stopping
from boardlab.core.spec import SpecError, build_options, check_options, options_of, split_spec
from boardlab.games import parse_game
from boardlab.games.base import State
from boardlab.models.errors import ModelFileError
from boardlab.play.pool import Workers
from boardlab.play.session import Session

S = TypeVar("S")

SUMMARY_FILE = "summary.json"
RUN_FILES = (
    SUMMARY_FILE,
    "model.npz",
    "model.json",
    "model.safetensors",
    "checkpoint.json",
    "checkpoint.npz",
    "checkpoint.safetensors",
    "evalnet.safetensors",
)
"""The files that tell a folder holds a run of some kind (every method's checkpoint and model)."""


class TrainingError(ValueError):
    """Bad training input: a hyper-parameter out of range, a game the method cannot learn, a
    saved run that cannot be continued with what was asked."""


class CheckpointWriteError(Exception):
    """A checkpoint could not be written (disk full, folder removed or made read-only): the
    run stopped there, and the checkpoint written before, if any, is left whole (writes are
    atomic) to resume from. ``kept``: the progress that checkpoint holds, None if none."""

    def __init__(self, path: Path, cause: OSError, kept: int | None) -> None:
        super().__init__(f"cannot write {path}: {cause.strerror or cause}")
        self.path, self.kept = path, kept


# --- settings ----------------------------------------------------------------------------------


def checked_settings(
    cls: type[S],
    owner: str,
    values: Mapping[str, Any] | None = None,
    error: type[TrainingError] = TrainingError,
) -> S:
    """``cls`` with ``values`` (the others default), every option checked against its declared
    range, then the settings' own ``problem()`` (a rule across fields) if it has one; ``error``
    naming what is wrong otherwise."""
    known = [o.name for o in options_of(cls)]
    values = dict(values or {})
    for key in values:
        if key not in known:
            raise error(f"{owner} has no hyper-parameter {key!r}; accepted: {', '.join(sorted(known))}")
    try:
        settings = cls(**values)
        check_options(settings, owner)
    except SpecError as problem:
        raise error(str(problem)) from None
    except TypeError as problem:
        raise error(f"{owner}: bad hyper-parameters ({problem})") from None
    complaint = getattr(settings, "problem", lambda: None)()
    if complaint:
        raise error(f"{owner}: {complaint}")
    return settings


def settings_from_texts(
    cls: type[S], owner: str, texts: Mapping[str, str], error: type[TrainingError] = TrainingError
) -> S:
    """:func:`checked_settings` from option texts (``{"alpha": "0.2"}``), each parsed strictly."""
    try:
        built = build_options(cls, owner, texts)
    except SpecError as problem:
        raise error(str(problem)) from None
    return checked_settings(cls, owner, dataclasses.asdict(built), error)  # type: ignore[call-overload]


def parse_hyper(cls: type[S], owner: str, text: str, error: type[TrainingError] = TrainingError) -> S:
    """Settings from ``key=value,...`` (e.g. ``genome=target,selection=roulette``)."""
    try:
        _, texts = split_spec(f"{owner}:{text or ''}")
    except SpecError as problem:
        raise error(str(problem)) from None
    return settings_from_texts(cls, owner, texts, error)


def changed_settings(given: Any, stored: Any, free: Sequence[str] = ()) -> list[str]:
    """The names of the settings of ``given`` that differ from ``stored`` (but the ``free`` ones)."""
    kept = dataclasses.asdict(stored)
    return [n for n, v in dataclasses.asdict(given).items() if kept[n] != v and n not in free]


def resumed_settings(
    saved: S,
    given: S,
    named: Collection[str],
    free: Sequence[str] = (),
    follows: Sequence[tuple[str, str]] = (),
) -> S:
    """The settings a resumed run trains on: ``saved``, but the ``free`` settings ``named`` on
    the command line, which take their value in ``given`` (the command's settings, the others
    at their defaults). A free setting that follows another (``follows``: pairs of the setting
    and the one it follows) and is not named itself takes its value in ``given`` too where the
    one it follows is named: it belongs to that one's saved value, not the new one (a cluster's
    address to the Ray backend: ``--backend local`` drops it)."""
    changes = {name: getattr(given, name) for name in free if name in named}
    for name, leader in follows:
        if leader in named and name in free:
            changes[name] = getattr(given, name)
    return dataclasses.replace(saved, **changes) if changes else saved  # type: ignore[type-var]


# --- the protocol ------------------------------------------------------------------------------


class TrainingRun(Protocol):
    """A training run in progress, whatever the method (see the module docstring)."""

    curve_key: ClassVar[str]
    """The field of a curve record that holds the run's progress (``episode`` or ``epoch``)."""
    curve_unit: ClassVar[str]
    """What the learning curve's ``episode`` field counts, for the plot's axis."""
    checkpoint_seconds: ClassVar[float]
    """Seconds between two checkpoints when no evaluation point comes first (0: every step)."""
    params: Any

    @property
    def seed(self) -> int:
        """The run's seed."""
        ...

    @property
    def curve(self) -> list[dict[str, Any]]:
        """The learning-curve records so far (the run appends to this list)."""
        ...

    @property
    def progress(self) -> int:
        """Episodes or epochs done."""
        ...

    @property
    def finished(self) -> bool:
        """True when the method has stopped by itself (e.g. the ES's patience ran out)."""
        ...

    @property
    def finished_reason(self) -> str:
        """Why a :attr:`finished` run stopped by itself, that nothing more trains, and what would
        let it train on, in words that follow "a run that" (empty when it has not stopped)."""
        ...

    @property
    def title(self) -> str:
        """The run in a few words, for tables and plots."""
        ...

    @property
    def curve_player(self) -> str:
        """What plays the learning curve's games, for the plot's titles (``greedy play``,
        ``search with 32 simulations``)."""
        ...

    @property
    def played_on(self) -> str:
        """The game (spec) the curve's and the final games are played on, for a run that trains
        on several games (the GA's first); empty for a run of one game, which its title names."""
        ...

    def prepare(self) -> None:
        """Slow set-up the evaluation needs (e.g. solving a small game), done before training."""

    def step(self, limit: int) -> None:
        """Train one step: one epoch, or a chunk of at most ``limit`` episodes."""

    def evaluate(self, opponents: Sequence[str], games: int) -> list[dict[str, Any]]:
        """The records of a learning-curve point at the current progress (not yet in ``curve``)."""
        ...

    def end_records(self) -> list[dict[str, Any]]:
        """Learning-curve records that the last point lacks when the training ends (its count
        reached or the run finished by itself), done now: none for most methods; AlphaZero's
        evaluation games of its last iteration when they were not due at its step. Asked at
        every end, so it gives nothing for what the curve holds already."""
        ...

    def save(self, path: Path) -> Path:
        """Write the whole run to ``path`` atomically."""
        ...

    def final_games(self, opponents: Sequence[str], games: int) -> list[GameResult]:
        """``games`` games of the trained player against each opponent, after training."""
        ...

    def summary(self) -> dict[str, Any]:
        """The run's record in ``summary.json``."""
        ...

    def report_lines(self) -> list[str]:
        """Lines the command prints below the table of final games."""
        ...

    def plots(self, out: Path) -> list[Path]:
        """The method's own plots, beside the shared ones."""
        ...

    def status(self) -> str:
        """A short text for the progress bar."""
        ...

    def clock_share(self) -> float | None:
        """For a run bound by its own clock (AlphaZero's ``--hours``), the share of that time
        used; None for a run bound only by its count of episodes or epochs."""
        ...

    def close(self) -> None:
        """Stop the run's worker processes, if any."""


class RunDefaults:
    """What a method has nothing to say about, said once: it never stops by itself, needs no
    preparation, adds no report lines or plots and has no workers to stop."""

    @property
    def finished(self) -> bool:
        """False: the run trains as long as it is asked to."""
        return False

    @property
    def finished_reason(self) -> str:
        """Empty: the run never stops by itself."""
        return ""

    @property
    def curve_player(self) -> str:
        """``greedy play``: the learner's best move by its own values (the tabular learners)."""
        return "greedy play"

    @property
    def played_on(self) -> str:
        """Empty: the run trains on one game, and its games are played on it."""
        return ""

    def prepare(self) -> None:
        """Nothing to prepare."""

    def clock_share(self) -> float | None:
        """None: the run is bound by its count alone."""
        return None

    def end_records(self) -> list[dict[str, Any]]:
        """None: the last point is whole."""
        return []

    def report_lines(self) -> list[str]:
        """No lines beyond the table of final games."""
        return []

    def plots(self, out: Path) -> list[Path]:
        """No plots beyond the shared ones."""
        return []

    def close(self) -> None:
        """No worker processes to stop."""


@dataclass(frozen=True)
class Method:
    """What ``boardlab train KIND`` needs to know about a method beyond its run class."""

    name: str
    settings: type[Any]
    start: Callable[[Any, Any, int], TrainingRun]
    """``start(games, settings, seed)``: a fresh run."""
    resume: Callable[[Path, Any], TrainingRun]
    """``resume(checkpoint, games)``: the run saved there; ModelFileError when it cannot be."""
    unit: str = "episodes"
    """What ``--episodes`` / ``--epochs`` counts: ``episodes`` or ``epochs``."""
    default_total: int = 30_000
    default_game: str = "tictactoe"
    checkpoint_file: str = "model.json"
    model_file: str = "model.json"
    games: Callable[[str], Any] = parse_game
    """The training game(s) of a ``--game`` text; TrainingError or GameOptionError when refused."""
    default_against: Callable[[Any], Sequence[str]] = lambda game: ("random",)
    free: tuple[str, ...] = ()
    """Settings a resumed run may change: they do not change what it computes (``workers``)."""
    follows: tuple[tuple[str, str], ...] = ()
    """Free settings that belong to another, as ``(setting, other)`` pairs: where a resumed run
    is given the other, the setting is the command line's (its default when not given), never
    the saved one (see :func:`resumed_settings`)."""
    max_seed: int = 2**63 - 1
    error: type[TrainingError] = TrainingError
    check: Callable[[Any, Any], None] = lambda game, settings: None
    """``check(game, settings)``: TrainingError when the settings do not fit the game, before any
    folder is made or work done."""
    check_run: Callable[[Any, Path], None] = lambda run, out: None
    """``check_run(run, out)``: TrainingError when the run, fresh or resumed, cannot work in the
    folder ``out`` (e.g. a data folder of its own that is a file, or holds another game's data),
    before any work."""
    not_applied: tuple[tuple[str, str], ...] = ()
    """The command's own options (by name: ``eval_games``) that do nothing for this method,
    each with why: given, they are refused in one line rather than ignored."""
    saved_game: Callable[[Path], str] = lambda path: ""
    """``saved_game(checkpoint)``: the ``--game`` text of the run saved there (``;``-separated
    specs for several games), read from the file alone, so that ``--resume`` needs no
    ``--game``; empty when the method cannot tell. Any error means the file cannot tell (the
    resume then says what is wrong with it)."""


def resume_run(method: Method, path: Path, games: Any) -> TrainingRun:
    """The run saved at ``path`` (``method.resume``), its learning curve checked too, since the
    driver reads it to know which points are done; ModelFileError naming the file when the
    checkpoint cannot be resumed, whatever part of it is wrong."""
    try:
        run = method.resume(path, games)
        check_curve(run.curve, f"checkpoint {path}", run.curve_key)
    except ModelFileError:
        raise
    except InputFileError as error:
        raise ModelFileError(str(error)) from None
    except (KeyError, TypeError, ValueError, AttributeError, IndexError, OverflowError) as error:
        # a field of the wrong type met while rebuilding the run: the file is damaged
        raise ModelFileError(f"checkpoint {path} cannot be resumed ({short_reason(error)})") from None
    return run


def check_state(
    header: Any, path: Path | str, required: Mapping[str, str], optional: Mapping[str, str] | None = None
) -> None:
    """ModelFileError unless a checkpoint's JSON object has these fields of these kinds (see
    :func:`boardlab.core.inputs.check_fields`) and a seed of at least 0: checked before a run
    is rebuilt from it, so that a damaged field is named rather than met later."""
    try:
        check_fields(header, f"checkpoint {path}", required, optional)
    except InputFileError as error:
        raise ModelFileError(str(error)) from None
    if header.get("seed", 0) < 0:
        raise ModelFileError(f"checkpoint {path}: 'seed' must be at least 0")


SAVED_RUN_FIELDS = {
    "seed": "int",
    "epoch": "int",
    "history": "list",
    "curve": "list",
    "state": "dict",
    "hyper": "dict",
}
"""What :func:`check_state` requires of a model file that carries its run (the GA's, the ES's)."""
SAVED_RUN_OPTIONAL = {"train_seconds": "number", "training_games": "int"}
"""What such a file may also hold."""


def rng_state(rng: np.random.Generator) -> dict[str, Any]:
    """The state of ``rng`` as plain JSON values, for a checkpoint (see :func:`restored_rng`)."""
    return json.loads(json.dumps(rng.bit_generator.state))


def restored_rng(state: Any) -> np.random.Generator:
    """A PCG64 generator in the ``state`` that :func:`rng_state` saved."""
    rng = np.random.Generator(np.random.PCG64())
    rng.bit_generator.state = state
    return rng


def random_open_position(state: State, plies: int, rng: random.Random) -> State:
    """``state`` after ``plies`` uniformly random moves, each drawn among those that leave the
    game open (fewer where every move would end it): a varied start for data games."""
    for _ in range(plies):
        moves = [i for i in state.legal_indices() if not state.play_index(i).is_over]
        if not moves:
            break
        state = state.play_index(rng.choice(moves))
    return state


def check_history(
    history: Any,
    path: Path | str,
    fields: Mapping[str, str],
    optional: Mapping[str, str] | None = None,
    sizes: Mapping[str, int] | None = None,
    what: str = "history record",
) -> None:
    """ModelFileError unless a checkpoint's per-epoch ``history`` (what the plots, the summary
    and the progress bar read) is a list of JSON objects with these fields: the kinds of
    :func:`boardlab.core.inputs.check_fields`, and ``numbers`` (a list of finite numbers, of
    the length in ``sizes`` if named there), ``number?`` (a finite number or null) and
    ``counts`` (an object of whole numbers keyed by whole numbers, e.g. species sizes).
    Checked when the run is resumed, so that a damaged record is named then, not met by the
    plots at the end of the training. ``what`` names a record in the messages."""
    special = ("numbers", "number?", "counts")
    kinds = {**(optional or {}), **fields}
    plain = {name: kind for name, kind in fields.items() if kind not in special}
    plain_optional = {name: kind for name, kind in (optional or {}).items() if kind not in special}
    if not isinstance(history, list):
        raise ModelFileError(f"checkpoint {path}: the history must be a list")
    for index, record in enumerate(history):
        where = f"checkpoint {path}: {what} {index}"
        try:
            check_fields(record, where, plain, plain_optional)
            for name in fields:
                if name not in record:
                    raise InputFileError(f"{where} lacks {name!r}")
        except InputFileError as error:
            raise ModelFileError(str(error)) from None
        for name, kind in kinds.items():
            if name in record and kind in special and not _fits(record[name], kind, (sizes or {}).get(name)):
                raise ModelFileError(f"{where}: {name!r} is not {_SPECIAL_WORDS[kind]}")


_SPECIAL_WORDS = {
    "numbers": "a list of finite numbers of the right length",
    "number?": "a finite number or null",
    "counts": "an object of whole numbers keyed by whole numbers",
}


def plain_number(value: Any) -> bool:
    """True for a finite float or a whole number within 64 bits (not a bool): what numpy and
    the plots read as a number (a larger whole number becomes an object array)."""
    if isinstance(value, float):
        return math.isfinite(value)
    return isinstance(value, int) and not isinstance(value, bool) and abs(value) < 2**63


def _fits(value: Any, kind: str, size: int | None) -> bool:
    if kind == "number?":
        return value is None or plain_number(value)
    if kind == "counts":
        return isinstance(value, dict) and all(
            k.isascii() and k.isdigit() and isinstance(v, int) and not isinstance(v, bool)
            for k, v in value.items()
        )
    return (
        isinstance(value, list)
        and all(plain_number(v) for v in value)
        and (len(value) == size if size is not None else len(value) > 0)
    )


def check_curve(curve: Any, where: str, key: str) -> None:
    """InputFileError unless ``curve`` is a list of learning-curve records: objects whose ``key``
    (``episode`` or ``epoch``) is a whole number of at least 0 and whose numbers are finite; a
    record of games (``wins``) or of mistakes (``mistakes``), which the shared plots read, holds
    its opponent, its ``episode`` and its counts as whole numbers of at least 0."""
    if not isinstance(curve, list):
        raise InputFileError(f"{where}: the learning curve must be a list")
    for record in curve:
        check_fields(record, f"{where}: a learning-curve record", {key: "int"}, {"opponent": "str"})
        counts = [name for name in ("wins", "mistakes") if name in record]
        if counts:
            required = {"episode": "int", "opponent": "str", **dict.fromkeys(counts, "int")}
            if "wins" in record:
                required |= dict.fromkeys(("draws", "losses", "games"), "int")
            check_fields(record, f"{where}: a learning-curve record", required)
            counts = [name for name, kind in required.items() if kind == "int"]
        for name in {key, *counts}:
            if record[name] < 0:
                raise InputFileError(f"{where}: a learning-curve record has a negative {name}")
        for name, value in record.items():
            if isinstance(value, float) and not math.isfinite(value):
                raise InputFileError(f"{where}: a learning-curve record's {name!r} is not finite")


# --- the driver --------------------------------------------------------------------------------


def train(
    run: TrainingRun,
    total: int,
    *,
    eval_every: int = 0,
    eval_games: int = 0,
    opponents: Sequence[str] = (),
    checkpoint: Path | None = None,
    on_step: Callable[[TrainingRun], None] | None = None,
    should_stop: Callable[[], bool] | None = None,
    stop: Termination | None = None,
) -> bool:
    """Train ``run`` until ``total`` episodes or epochs in all (or until it finishes by itself),
    adding a learning-curve point at the start of a fresh run, every ``eval_every`` units and at
    the end (with what the run adds to its last point, ``run.end_records()``), and saving to
    ``checkpoint`` after each point and after every step (or every ``run.checkpoint_seconds``).
    Returns True when done, False when the run was stopped: by
    ``should_stop`` or ``stop`` (a :func:`~boardlab.core.processes.stop_requests` flag) between
    two steps, the checkpoint saved first. CheckpointWriteError when a checkpoint cannot be
    written: the run stops there, with the last checkpoint written left whole.

    With ``stop``, a signal also ends at once the work that can be redone from the checkpoint:
    an evaluation or the end's records (a resumed run does them again) and, for a run that saves after
    every step, the step in flight; a run that saves less often finishes its step and saves it.
    """
    evaluated = {int(r[run.curve_key]) for r in run.curve}
    saved = run.progress if run.progress > 0 else None  # a resumed run starts from its checkpoint
    requested = should_stop or (lambda: stop is not None and stop.requested)

    def droppable() -> contextlib.AbstractContextManager[None]:
        return stop.interruptible() if stop is not None else contextlib.nullcontext()

    def evaluate() -> None:
        if run.progress not in evaluated:
            with droppable():
                points = run.evaluate(opponents if eval_games > 0 else (), eval_games)
            run.curve.extend(points)
            evaluated.add(run.progress)

    def save() -> float:
        nonlocal saved
        if checkpoint is not None:
            try:
                run.save(checkpoint)
            except OSError as error:
                raise CheckpointWriteError(checkpoint, error, saved) from error
            saved = run.progress
        return time.monotonic()

    def report() -> None:
        if on_step is not None:
            on_step(run)

    def due(progress: int) -> bool:
        return progress == 0 or (eval_every > 0 and progress % eval_every == 0)

    try:
        last_save = time.monotonic()
        if due(run.progress) and run.progress not in evaluated:  # fresh, or stopped in its evaluation
            last_save = save()
            evaluate()
            last_save = save()
        report()
        while run.progress < total and not run.finished:
            if requested():
                save()
                return False
            limit = total - run.progress
            if eval_every > 0:
                limit = min(limit, eval_every - run.progress % eval_every)
            with droppable() if run.checkpoint_seconds == 0 else contextlib.nullcontext():
                run.step(limit)
            if due(run.progress):
                save()  # first: a signal may end the evaluation
                evaluate()
                last_save = save()
            elif time.monotonic() - last_save >= run.checkpoint_seconds:
                last_save = save()
            report()
        if run.progress not in evaluated:
            save()
            evaluate()
        save()  # first: a signal may end what the last point adds, which a resumed run adds again
        with droppable():
            closing = run.end_records()
        if closing:
            run.curve.extend(closing)
            save()
        report()
    except KeyboardInterrupt:
        if stop is None:
            raise
        return False  # the checkpoint holds every step that finished
    return not requested()


def game_specs(text: str) -> tuple[str, ...]:
    """The game specs of a ``;``-separated setting (``also`` of the network trainers)."""
    return tuple(spec.strip() for spec in text.split(";") if spec.strip())


def game_specs_problem(name: str, text: str) -> str | None:
    """Why the ``;``-separated game specs ``text`` of setting ``name`` are bad, or None."""
    for spec in game_specs(text):
        try:
            parse_game(spec)
        except ValueError as error:
            return f"{name}: {error}"
    return None


def check_same_board(game: Any, specs: Sequence[str]) -> None:
    """TrainingError when one of the game ``specs`` (``also``) is not played on ``game``'s board
    (other observation planes or actions, which a network of ``game`` cannot read)."""
    kernel = game.kernel
    for spec in specs:
        other = parse_game(spec).kernel
        if (other.obs_shape, other.num_actions) != (kernel.obs_shape, kernel.num_actions):
            raise TrainingError(
                f"also: {spec} is not played on the board of {game.spec}, which the network reads"
            )


# --- games against fixed opponents -------------------------------------------------------------


class Policy(Protocol):
    """A trained player: a legal action of the position ``(a, b)``, random choices from ``rng``."""

    def choose_action(self, a: int, b: int, rng: random.Random) -> int: ...


@dataclass(frozen=True)
class GameResult:
    """One evaluation game: the opponent's spec, the learner's colour, the winner's colour
    (None for a draw) and the plies played."""

    opponent: str
    learner: int
    winner: int | None
    plies: int

    @property
    def score(self) -> int:
        """+1 learner won, 0 draw, -1 learner lost."""
        return 0 if self.winner is None else (1 if self.winner == self.learner else -1)


class PolicyPlayer:
    """A trained policy seated in a :class:`~boardlab.play.session.Session`: it answers ``act``
    with the policy's choice, its random choices drawn from ``rng``."""

    spec = "learner"

    def __init__(self, policy: Policy, rng: random.Random) -> None:
        self.policy = policy
        self.rng = rng

    def act(self, state: Any, limit: Limit | None = None) -> Decision:
        return Decision(state.move_from_index(self.policy.choose_action(state.a, state.b, self.rng)))

    def prepare(self, game: Any) -> None:
        """Nothing to prepare: a policy is ready when built."""

    def new_game(self) -> None:
        """Nothing to forget: a policy keeps no memory of a game."""


def play_games(policy: Any, opponent: str, games: int, seed: int, opening: int = 0) -> list[GameResult]:
    """``games`` games of ``policy`` (on its ``game``) against the agent ``opponent`` (a spec),
    the learner moving first in the even-numbered games, the first ``opening`` plies of each
    game random (so that two deterministic players do not replay one game); every random choice
    comes from ``seed``. Each game is played by a :class:`~boardlab.play.session.Session`."""
    game = policy.game
    rng = random.Random(seed)
    agent = make_agent(opponent, seed=rng.getrandbits(63), game=game)
    learner_player = PolicyPlayer(policy, rng)
    results = []
    for index in range(games):
        raise_if_stopping()  # a stop that landed in a compile stops here
        learner = index % 2
        agent.new_game()
        state = game.initial()
        while state.ply < opening and not state.is_over:
            state = state.play_index(rng.choice(state.legal_indices()))
        seats = (learner_player, agent) if learner == 0 else (agent, learner_player)
        session = Session(state, seats)
        outcome = session.run()
        results.append(GameResult(opponent, learner, outcome.winner, session.state.ply))
    return results


def tally(results: Sequence[GameResult]) -> dict[str, int]:
    """``wins``, ``draws``, ``losses`` and ``games`` of the learner in ``results``."""
    scores = [r.score for r in results]
    return {
        "wins": scores.count(1),
        "draws": scores.count(0),
        "losses": scores.count(-1),
        "games": len(scores),
    }


def tallies(results: Sequence[GameResult], opponents: Sequence[str]) -> dict[str, dict[str, int]]:
    """:func:`tally` of the games against each opponent."""
    return {o: tally([r for r in results if r.opponent == o]) for o in opponents}


def curve_point(
    policy: Any, opponents: Sequence[str], games: int, seed: int, at: Mapping[str, int], opening: int = 0
) -> list[dict[str, Any]]:
    """Curve records: the wins, draws and losses of ``policy`` in ``games`` games against each
    opponent, seeded by ``seed`` and the opponent's place (a resumed run draws the same games),
    each record stamped with ``at`` (e.g. ``{"episode": 5000}``)."""
    return [
        {**at, "opponent": opponent, **tally(play_games(policy, opponent, games, seed * 31 + index, opening))}
        for index, opponent in enumerate(opponents)
    ]


def final_results(policy: Any, opponents: Sequence[str], games: int, seed: int) -> list[GameResult]:
    """The final games of ``policy`` against each opponent (their seeds drawn from ``seed``)."""
    results = []
    for index, opponent in enumerate(opponents):
        results.extend(play_games(policy, opponent, games, seed * 7919 + 104_729 + index))
    return results


@dataclass(frozen=True)
class Match:
    """Games of a policy against a fixed agent, to be played in a worker process: ``player``
    (a module-level function, so that it travels to the worker) builds the policy from
    ``recipe`` on the game ``game`` (a spec)."""

    player: Callable[[Any, Any], Any]
    recipe: Any
    game: str
    opponent: str
    games: int
    seed: int
    opening: int = 0


def play_match(match: Match) -> list[GameResult]:
    """The games of ``match`` (:func:`play_games` of the policy it builds)."""
    policy = match.player(parse_game(match.game), match.recipe)
    return play_games(policy, match.opponent, match.games, match.seed, match.opening)


# --- the worker pool ---------------------------------------------------------------------------


def play_matches(workers: Workers, matches: Sequence[Match]) -> list[GameResult]:
    """The games of every match, the matches shared out among the workers, in order."""
    return [r for part in workers.map(play_match, matches) for r in part]


__all__ = [
    "RUN_FILES",
    "SAVED_RUN_FIELDS",
    "SAVED_RUN_OPTIONAL",
    "SUMMARY_FILE",
    "CheckpointWriteError",
    "GameResult",
    "Match",
    "Method",
    "Policy",
    "PolicyPlayer",
    "RunDefaults",
    "TrainingError",
    "TrainingRun",
    "changed_settings",
    "check_curve",
    "check_history",
    "check_state",
    "checked_settings",
    "curve_point",
    "final_results",
    "parse_hyper",
    "plain_number",
    "play_games",
    "play_match",
    "play_matches",
    "random_open_position",
    "restored_rng",
    "resume_run",
    "rng_state",
    "settings_from_texts",
    "tallies",
    "tally",
    "train",
]
