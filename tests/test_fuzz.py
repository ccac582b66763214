"""Fuzzing what a user types: every CLI command and option, every game's text parsers, every agent spec.

Everything is discovered from the registries (the typer app's commands and their parameters,
``boardlab.games.GAMES``, ``agent_names()``), so commands, games and agents added later are
fuzzed too. The generated inputs are invalid by construction (numbers that are not numbers,
out of every range, non-ASCII digits, control characters, very long values, impossible paths),
so each must end with exit code 2 and a one-line ``Error:`` message and no traceback, before
any work starts; the cheap options given alongside (one game, tiny sizes) only bound the cost
of a bug that lets one through. ``BOARDLAB_FUZZ_EXAMPLES`` sets the examples per test
(default 20) for the longer runs quoted in the README.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
import typer
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from reliability import count
from typer.testing import CliRunner

from boardlab.agents.base import AgentSpecError, agent_class, agent_names, make_agent
from boardlab.core.spec import SpecError, one_line, options_of
from boardlab.games import GAMES, GameError, parse_game
from boardlab.ui.cli import app

EXAMPLES = int(os.environ.get("BOARDLAB_FUZZ_EXAMPLES", "20"))
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
MAX_MESSAGE = 600

# --- junk, by the type of what it is given to --------------------------------------------------

FULL_WIDTH = str.maketrans("0123456789", "０１２３４５６７８９")
ARABIC_INDIC = str.maketrans("0123456789", "٠١٢٣٤٥٦٧٨٩")
CONTROL = "\x00\x01\x07\x08\x1b\x7f\udcff"  # \udcff: an undecodable byte of argv

non_ascii_digits = st.integers(0, 10**6).flatmap(
    lambda n: st.sampled_from([str(n).translate(FULL_WIDTH), str(n).translate(ARABIC_INDIC), f"{n}²"])
)
non_numbers = st.sampled_from(
    ["nan", "NaN", "-nan", "inf", "-inf", "Infinity", "1e309", "-1e309", "", " ", "0x10", "1,5", "½", "--"]
)
long_text = st.integers(300, 20_000).flatmap(
    lambda n: st.sampled_from(["9" * n, "x" * n, "a:b=" * (n // 4), "é" * n, "-" * n])
)
control_text = st.tuples(st.text(max_size=8), st.sampled_from(CONTROL), st.text(max_size=8)).map("".join)
"""Text holding a control character or an undecodable byte: no option value takes it."""
JUNK_INT = st.one_of(
    st.integers(max_value=-1).map(str),
    st.integers(min_value=2**63).map(str),
    non_numbers,
    non_ascii_digits,
    long_text,
    st.floats(allow_nan=False, allow_infinity=False).filter(lambda x: not x.is_integer()).map(repr),
)
JUNK_FLOAT = st.one_of(
    non_numbers,
    non_ascii_digits,
    long_text,
    st.floats(min_value=1e30, max_value=1e300).flatmap(lambda x: st.sampled_from([repr(x), repr(-x)])),
)
JUNK_TEXT = st.one_of(long_text, control_text)
FLOAT_BOUND = 1e6
"""No float option of an agent or game accepts a value beyond this, either way."""
huge_floats = st.one_of(
    st.floats(min_value=10 * FLOAT_BOUND, max_value=1.7e308).flatmap(
        lambda x: st.sampled_from([repr(x), repr(-x)])
    ),
    st.sampled_from(["1e308", "-1e308", "1e300", "9" * 39]),
)
"""Finite numbers beyond every float option's declared range (which the test below checks exists)."""


def junk_paths(tmp: Path) -> st.SearchStrategy[str]:
    a_file = tmp / "a-file"
    a_file.write_text("")
    return st.one_of(
        st.sampled_from(["", "\x00", f"{a_file}/below", str(a_file / "x" / "y.sqlite"), "\udcff" * 300]),
        st.integers(256, 5000).map(lambda n: str(tmp / ("n" * n))),
        control_text.map(lambda t: str(tmp / f"x{t}\x00")),
    )


JUNK_BY_TYPE = {"int": JUNK_INT, "float": JUNK_FLOAT, "str": JUNK_TEXT}

# --- the commands ------------------------------------------------------------------------------


@pytest.fixture(autouse=True)
def _in_a_scratch_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Run from a scratch folder: an input accepted by mistake writes its files there."""
    monkeypatch.chdir(tmp_path)


ROOT = typer.main.get_command(app)


def _commands(group: Any = ROOT, path: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], Any]]:
    found = []
    for name, command in sorted(getattr(group, "commands", {}).items()):
        if getattr(command, "commands", None) is not None:
            found += _commands(command, (*path, name))
        else:
            found.append(((*path, name), command))
    return found


COMMANDS = _commands()

POSITIONAL_BASE = {"spec_a": "random", "spec_b": "random", "specs": ["random", "random"]}
"""Valid values of required arguments, so that the fuzzed value is what gets checked."""


def cheap_options(command: str, tmp: Path) -> list[str]:
    """Options that keep a command small in case a junk value were ever accepted."""
    folder = str(tmp / "out")
    return {
        "match": ["--games=1", "--game=tictactoe", "-j", "1", f"--db={tmp / 'a.sqlite'}", f"--out={folder}"],
        "tournament": [
            "-n",
            "1",
            "--game=tictactoe",
            "-j",
            "1",
            f"--db={tmp / 'a.sqlite'}",
            f"--out={folder}",
        ],
        "play": ["--game=tictactoe"],
        "train": ["--game=tictactoe", "--episodes=10", f"--out={folder}"],
        "setcover": ["--points=5", "--sets=5", "--no-milp"],
        "blackbox": ["--max-calls=10", "--loci=10", f"--out={folder}"],
        "solve": ["--size=3", f"--dir={folder}"],
        "analyze": [f"--dir={folder}"],
        "perft": ["--depth=1"],
    }.get(command, [])


def _params(command: Any) -> list[Any]:
    return [p for p in command.params if p.name != "help"]


def _invocation(path: tuple[str, ...], command: Any, fuzzed: Any, value: str, tmp: Path) -> list[str]:
    """The args of ``command`` with ``value`` for the parameter ``fuzzed``, the rest cheap/valid."""
    options = cheap_options(path[-1], tmp)
    positionals: list[str] = []
    for param in _params(command):
        if param.param_type_name != "argument":
            continue
        if param is fuzzed:
            positionals.append(value)
        elif param.name in POSITIONAL_BASE:
            base = POSITIONAL_BASE[param.name]
            positionals += base if isinstance(base, list) else [base]
    if fuzzed is not None and fuzzed.param_type_name == "option":
        options.append(f"{fuzzed.opts[0]}={value}")
    return [*path, *options, "--", *positionals]


CASES = [(path, command, param) for path, command in COMMANDS for param in _params(command)]


def _param_id(case: tuple[Any, ...]) -> str:
    path, _, param = case
    return f"{' '.join(path)}:{param.name}"


def _check_refused(args: list[str], result: Any) -> None:
    shown = " ".join(a[:40] for a in args)
    assert result.exit_code == 2, f"{shown}: exit {result.exit_code}\n{result.output[-2000:]}"
    assert "Traceback" not in result.output, shown
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), f"{shown}: {result.stderr[:2000]!r}"
    assert len(lines[0]) <= MAX_MESSAGE, f"{shown}: a message of {len(lines[0])} characters"


def test_every_command_is_fuzzed() -> None:
    names = {path[-1] for path, _ in COMMANDS}
    assert {"match", "tournament", "play", "perft", "agents", "games"} <= names
    assert len(CASES) >= 40


@pytest.mark.parametrize("case", CASES, ids=_param_id)
def test_junk_for_any_option_is_a_one_line_error(case: tuple[Any, ...], tmp_path: Path) -> None:
    path, command, param = case
    if getattr(param, "is_flag", False):
        values: st.SearchStrategy[str] = st.one_of(JUNK_TEXT, JUNK_INT)
    else:
        kind = param.bare_type()
        values = junk_paths(tmp_path) if kind == "Path" else JUNK_BY_TYPE.get(kind, JUNK_TEXT)

    @FUZZ
    @given(value=values)
    def run(value: str) -> None:
        args = _invocation(path, command, param, value, tmp_path)
        if getattr(param, "is_flag", False):
            args = [*path, *cheap_options(path[-1], tmp_path), f"{param.opts[0]}={value}"]
        result = CliRunner().invoke(app, args, input="quit\n")
        count("inputs tried")
        _check_refused(args, result)

    run()


@pytest.mark.parametrize(("path", "command"), COMMANDS, ids=[" ".join(p) for p, _ in COMMANDS])
def test_unknown_options_and_extra_arguments_are_one_line_errors(
    path: tuple[str, ...], command: Any, tmp_path: Path
) -> None:
    @FUZZ
    @given(
        extra=st.one_of(
            st.text(alphabet="abcdefghijklmnopqrstuvwxyz-", min_size=1, max_size=30).map(
                lambda t: f"--zz{t}"
            ),
            st.just("-Z"),
        )
    )
    def run(extra: str) -> None:
        args = [*path, extra]
        result = CliRunner().invoke(app, args, input="quit\n")
        count("inputs tried")
        _check_refused(args, result)

    run()


# --- the games' text parsers -------------------------------------------------------------------


def _sample_texts(game: Any) -> tuple[list[str], list[str]]:
    """Position texts and move notations met in a few random games."""
    import random

    rng = random.Random(0)
    positions, moves = [], []
    for _ in range(3):
        state = game.initial()
        while not state.is_over and state.ply < 30:
            positions.append(state.to_text())
            move = rng.choice(state.legal_moves())
            moves.append(str(move))
            state = state.play(move)
        positions.append(state.to_text())
    return positions, moves


def _mutations(samples: list[str]) -> st.SearchStrategy[str]:
    """Valid texts with characters inserted, deleted or replaced, and random text."""

    def mutate(text: str, edits: list[tuple[int, int, str]]) -> str:
        for kind, where, char in edits:
            i = where % (len(text) + 1)
            if kind == 0:
                text = text[:i] + char + text[i:]
            elif kind == 1:
                text = text[:i] + text[i + 1 :]
            else:
                text = text[:i] + char + text[i + 1 :]
        return text

    edit = st.tuples(st.integers(0, 2), st.integers(0, 10_000), st.characters())
    return st.one_of(
        st.builds(mutate, st.sampled_from(samples), st.lists(edit, min_size=1, max_size=4)),
        st.text(max_size=60),
        long_text,
        st.sampled_from(samples).map(lambda t: t.translate(FULL_WIDTH)),
    )


def _check_message(message: str) -> None:
    """One line, and short once pasted values are shortened as the CLI shows them."""
    assert message and "\n" not in message, repr(message[:500])
    assert len(one_line(message)) <= MAX_MESSAGE, repr(message[:500])


def _check_game_error(err: BaseException) -> None:
    assert isinstance(err, GameError), f"{type(err).__name__}: {err}"
    _check_message(str(err))


@pytest.mark.parametrize("name", sorted(GAMES))
def test_game_text_parsers_accept_or_refuse_cleanly(name: str) -> None:
    game = parse_game(name)
    positions, moves = _sample_texts(game)
    states = [game.parse_position(text) for text in positions[:: max(1, len(positions) // 5)]]

    @FUZZ
    @given(position=_mutations(positions), move=_mutations(moves), at=st.sampled_from(states))
    def run(position: str, move: str, at: Any) -> None:
        count("inputs tried", 3)
        try:
            state = game.parse_position(position)
        except Exception as err:
            _check_game_error(err)
        else:  # accepted: it must mean what it says
            assert game.parse_position(state.to_text()) == state
        try:
            game.parse_action(move)
        except Exception as err:
            _check_game_error(err)
        try:
            at.parse_move(move)
        except Exception as err:
            _check_game_error(err)

    run()


@pytest.mark.parametrize("name", sorted(GAMES))
def test_game_specs_accept_or_refuse_cleanly(name: str) -> None:
    @FUZZ
    @given(
        options=st.one_of(st.text(max_size=40), long_text, control_text, _option_junk(type(parse_game(name))))
    )
    def run(options: str) -> None:
        count("inputs tried")
        try:
            parse_game(f"{name}:{options}")
        except Exception as err:
            _check_game_error(err)

    run()


# --- agent specs -------------------------------------------------------------------------------


def _option_junk(settings: type) -> st.SearchStrategy[str]:
    """``key=value`` with a declared option and a value no option of its type accepts."""
    spec_options = options_of(settings)
    if not spec_options:
        return st.just("nosuchoption=1")
    junk = {
        "int": st.one_of(st.integers(min_value=2**63).map(str), non_numbers, non_ascii_digits, long_text),
        "float": st.one_of(
            st.sampled_from(["nan", "inf", "-inf", "1e309", "NaN", ""]), non_ascii_digits, huge_floats
        ),
        "bool": st.sampled_from(["maybe", "", "２", "yes please"]),
    }
    return st.sampled_from(spec_options).flatmap(
        lambda o: junk.get(o.type_name, st.one_of(control_text, long_text)).map(lambda v: f"{o.name}={v}")
    )


def _numeric_options_without_a_range() -> list[str]:
    """``owner.option`` of every int, float or int-list option of an agent or game lacking a finite
    minimum and maximum (floats: within ±FLOAT_BOUND; a fixed list of choices bounds an option too)."""
    owners = [(name, agent_class(name).Settings) for name in agent_names()]
    owners += [(name, type(parse_game(name))) for name in sorted(GAMES)]
    missing = []
    for owner, settings_class in owners:
        for spec_option in options_of(settings_class):
            if spec_option.type_name not in ("int", "float", "ints") or spec_option.info.choices:
                continue
            bounds = (spec_option.info.minimum, spec_option.info.maximum)
            limit = FLOAT_BOUND if spec_option.type_name == "float" else float(2**63)
            if any(bound is None or not -limit <= bound <= limit for bound in bounds):
                missing.append(f"{owner}.{spec_option.name}")
    return missing


def test_every_numeric_option_has_a_finite_range() -> None:
    assert _numeric_options_without_a_range() == []


def _a_game_for(cls: type) -> Any:
    for name in sorted(GAMES):
        game = parse_game(name)
        if cls.supports(game):
            return game
    return None


def _check_spec_error(err: BaseException) -> None:
    assert isinstance(err, AgentSpecError | SpecError), f"{type(err).__name__}: {err}"
    _check_message(str(err))


@pytest.mark.parametrize("name", agent_names())
def test_agent_specs_with_junk_options_are_refused_cleanly(name: str) -> None:
    cls = agent_class(name)
    game = _a_game_for(cls)

    @FUZZ
    @given(options=_option_junk(cls.Settings))
    def run(options: str) -> None:
        count("inputs tried")
        with pytest.raises(Exception) as caught:
            make_agent(f"{name}:{options}", 0, game=game)
        _check_spec_error(caught.value)

    run()


@pytest.mark.parametrize("name", agent_names())
def test_agent_spec_syntax_junk_is_refused_cleanly(name: str) -> None:
    cls = agent_class(name)
    game = _a_game_for(cls)
    syntax = st.text(alphabet=",=: \t\n-+.0123456789eabcdxyz", max_size=30)

    @FUZZ
    @given(rest=st.one_of(syntax, control_text))
    def run(rest: str) -> None:
        count("inputs tried")
        try:
            make_agent(f"{name}:{rest}", 0, game=game)
        except Exception as err:
            _check_spec_error(err)

    run()
