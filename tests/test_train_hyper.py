"""Every trainer's hyper-parameters are range-checked like spec options: a value outside its
range, or one that leaves fitness undefined, is one ``Error:`` line and exit 2 before any work."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from reliability import count
from typer.testing import CliRunner

from boardlab.core.spec import OptionSpec, options_of
from boardlab.models import nim_genome
from boardlab.train import METHOD_MODULES, method, nim_ga, rules_es
from boardlab.train.settings import ES_OPPONENTS, GENOMES, POOLS, SETTINGS
from boardlab.ui.cli import app

KINDS = list(METHOD_MODULES)
NUMERIC = (int, float, tuple)


def _numeric_options(kind: str) -> list[OptionSpec]:
    return [o for o in options_of(method(kind).settings) if o.kind in NUMERIC and o.kind is not bool]


def _refused(args: list[str], out: Path, phrase: str = "") -> None:
    result = CliRunner().invoke(app, [*args, "--out", str(out)])
    assert result.exit_code == 2, (args, result.output)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), (args, result.stderr)
    assert phrase in lines[0], (args, lines[0])
    assert "Traceback" not in result.output
    assert not out.exists(), "refused after the run's folder was made"
    count("inputs tried")


@pytest.mark.parametrize("kind", KINDS)
def test_every_numeric_hyper_parameter_declares_its_range(kind: str) -> None:
    for option in _numeric_options(kind):
        assert option.info.minimum is not None and option.info.maximum is not None, (kind, option.name)
        assert option.info.minimum <= option.info.maximum, (kind, option.name)
        option.check(kind, option.default)  # the default is inside its own range


@st.composite
def _out_of_range(draw: st.DrawFn) -> tuple[str, str, str]:
    """A kind, one of its numeric hyper-parameters, and a value just outside its range."""
    kind = draw(st.sampled_from(KINDS))
    option = draw(st.sampled_from(_numeric_options(kind)))
    low = draw(st.booleans())
    bound = option.info.minimum if low else option.info.maximum
    assert bound is not None
    step = 1 if option.kind is int else draw(st.sampled_from([1e-3, 0.5, 1e6]))
    value = bound - step if low else bound + step
    return kind, option.name, str(int(value) if option.kind is int else value)


@settings(max_examples=40, deadline=None)
@given(case=_out_of_range())
def test_a_hyper_parameter_outside_its_range_is_refused_before_work(
    tmp_path_factory: pytest.TempPathFactory, case: tuple[str, str, str]
) -> None:
    kind, name, value = case
    out = tmp_path_factory.mktemp("run") / "out"
    _refused(["train", kind, "--hyper", f"{name}={value}"], out, name)


@pytest.mark.parametrize(
    ("kind", "hyper", "phrase"),
    [
        ("neat", "games=0", "games must be at least 1"),
        ("neat", "population=4,elitism=5", "elitism=5 must be at most population=4"),
        ("ga", "games=0", "games must be at least 1"),
        ("ga", "population=4,elitism=4", "elitism=4 must be smaller than population=4"),
        ("es", "games=1", "games must be at least 2"),
        ("es", "offspring=0", "offspring must be at least 1"),
        ("qlearning", "alpha=nan", "alpha"),
        ("mcrl", "gamma=1.5", "gamma must be at most 1"),
        ("neat", "activations=tanh+junk", "activation 'junk'"),
        ("neat", "activations=tanh+", "holds an empty name"),
        ("neat", "activations=tanh++relu", "holds an empty name"),
    ],
)
def test_values_that_leave_fitness_or_learning_undefined_are_refused(
    tmp_path: Path, kind: str, hyper: str, phrase: str
) -> None:
    _refused(["train", kind, "--hyper", hyper], tmp_path / "out", phrase)


@pytest.mark.parametrize(
    ("args", "phrase"),
    [
        (
            ["evalnet", "--game", "tictactoe"],
            "the default opponents (name others with --against) on tictactoe",
        ),
        (["evalnet", "--game", "tictactoe", "--against", "random"], "the default players (name others"),
        (
            ["evalnet", "--game", "tictactoe", "--against", "random", "--players", "alphabeta:eval=tuned"],
            "players:",
        ),
        (["evalnet", "--game", "quixo:size=3", "--also", "quixo:size=4"], "also: quixo:size=4 is not played"),
        (["alphazero", "--game", "tictactoe", "--also", "connect4"], "also: connect4 is not played"),
    ],
)
def test_players_opponents_and_also_games_that_do_not_fit_the_game_are_refused_before_work(
    tmp_path: Path, args: list[str], phrase: str
) -> None:
    _refused(["train", *args], tmp_path / "out", phrase)


@pytest.mark.parametrize("kind", KINDS)
def test_the_help_lists_the_settings_the_method_trains_with(kind: str) -> None:
    # the help reads the settings without loading the method: both must name the same class
    assert SETTINGS[kind] is method(kind).settings


def test_the_choices_in_the_settings_are_those_the_methods_accept() -> None:
    # the settings module repeats a few names of compiled modules so as not to load them
    assert tuple(nim_genome.GENOMES) == GENOMES
    assert tuple(rules_es.OPPONENT_KINDS) == ES_OPPONENTS
    for pool in POOLS.values():
        assert set(pool) <= set(nim_ga.OPPONENTS)
