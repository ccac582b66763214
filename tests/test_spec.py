"""Spec strings: values holding other specs in parentheses, read and written back."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from boardlab.core.spec import (
    SpecError,
    build_options,
    check_options,
    number_problem,
    option,
    spec_text,
    split_spec,
    with_article,
)


@dataclass(frozen=True)
class Outer:
    inner: str = option("", "a spec of its own")
    size: int = option(3, "a number", minimum=1, maximum=9)


@dataclass(frozen=True)
class Moving:
    kept: int = option(0, "an option still here")

    @classmethod
    def moved_option(cls, key: str, text: str) -> str | None:
        return f"{key}= is written elsewhere now ({text})" if key == "gone" else None


def test_a_value_in_parentheses_keeps_its_commas():
    name, texts = split_spec("hybrid:search=(alphabeta:eval=lines3,contempt=10),time=1")
    assert name == "hybrid"
    assert texts == {"search": "alphabeta:eval=lines3,contempt=10", "time": "1"}


def test_nested_parentheses_and_spaces():
    _, texts = split_spec("a: x = ( b:y=(c:z=1,w=2),v=3 ) , n=4 ")
    assert {key: text.strip() for key, text in texts.items()} == {"x": "b:y=(c:z=1,w=2),v=3", "n": "4"}
    assert split_spec("a:x=(p)(q)")[1] == {"x": "(p)(q)"}  # two groups, not one pair around all


@pytest.mark.parametrize(
    ("spec", "fragment"),
    [
        ("hybrid:search=(alphabeta:eval=lines3", "'(' is not closed"),
        ("hybrid:search=alphabeta:eval=lines3),time=1", "')' closes nothing"),
        ("hybrid:search=((x),time=1", "'(' is not closed"),
    ],
)
def test_unbalanced_parentheses_are_refused_in_one_line(spec, fragment):
    with pytest.raises(SpecError, match="unbalanced parentheses") as error:
        split_spec(spec)
    assert fragment in str(error.value) and "\n" not in str(error.value)


def test_a_moved_option_says_where_it_went():
    with pytest.raises(SpecError, match=r"gone= is written elsewhere now \(7\)"):
        build_options(Moving, "moving", {"gone": "7"})
    with pytest.raises(SpecError, match="unknown option 'other'; accepted: kept"):
        build_options(Moving, "moving", {"other": "7"})


def test_options_over_a_base_keep_the_base_where_not_given():
    base = Outer(inner="x", size=5)
    assert build_options(Outer, "outer", {"size": "2"}, base=base) == Outer(inner="x", size=2)
    assert build_options(Outer, "outer", {}) == Outer()


# specs nested a few levels: names and plain values from safe letters, values that are specs
_word = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789._-", min_size=1, max_size=8)


def _written(name: str, options: dict[str, str]) -> str:
    return name + ":" + ",".join(f"{k}=({v})" if "," in v else f"{k}={v}" for k, v in options.items())


def _spec(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    options = st.dictionaries(_word, st.one_of(_word, children), min_size=1, max_size=3)
    return st.builds(_written, _word, options)


nested_specs = st.recursive(_word, _spec, max_leaves=8)


@given(nested_specs, st.integers(1, 9))
def test_a_nested_spec_value_round_trips_through_spec_text(inner: str, size: int) -> None:
    settings = Outer(inner=inner, size=size)
    name, texts = split_spec(spec_text("outer", settings))
    assert name == "outer"
    assert build_options(Outer, "outer", texts) == settings


@dataclass(frozen=True)
class Timed:
    time: float = option(0.0, "seconds (0: no limit)", minimum=0, maximum=3600)


@pytest.mark.parametrize("text", ["1e-400", "0.5e-330", "-3e-999"])
def test_a_float_too_small_to_hold_is_refused_not_read_as_zero(text: str) -> None:
    with pytest.raises(SpecError, match="too small"):
        build_options(Timed, "timed", {"time": text})


@pytest.mark.parametrize(("text", "value"), [("0", 0.0), ("0e-400", 0.0), ("0.000", 0.0), ("1e-300", 1e-300)])
def test_zero_and_small_floats_are_read_as_written(text: str, value: float) -> None:
    assert build_options(Timed, "timed", {"time": text}).time == value


@dataclass(frozen=True)
class Ranged:
    count: int = option(3, "a count", minimum=1, maximum=9)
    rate: float = option(0.5, "a rate", minimum=0.0, maximum=1.0)
    big: int = option(0, "any whole number")
    flag: bool = option(False, "a flag")
    mode: str = option("fast", "a mode", choices=("fast", "slow"))
    text: str = option("", "free text")
    sizes: tuple[int, ...] = option((1, 2), "sizes")


_balanced = st.lists(
    st.sampled_from(["a", "b", ",", "=", ":", "()", "(a)", "(a,b)", "x(y)"]), max_size=5
).map("".join)
_ranged = st.builds(
    Ranged,
    count=st.integers(1, 9),
    rate=st.floats(0.0, 1.0),
    big=st.integers(-(2**63), 2**63 - 1),
    flag=st.booleans(),
    mode=st.sampled_from(["fast", "slow"]),
    text=_balanced,
    sizes=st.lists(st.integers(0, 10**6), min_size=1, max_size=4).map(tuple),
)


@given(_ranged)
@example(Ranged(text="(a)"))
@example(Ranged(text="()"))
@example(Ranged(text="(a)(b)"))
def test_options_of_every_kind_round_trip_through_spec_text(settings: Ranged) -> None:
    name, texts = split_spec(spec_text("ranged", settings))
    assert name == "ranged" and build_options(Ranged, "ranged", texts) == settings
    assert set(texts) == {key for key in vars(settings) if getattr(settings, key) != getattr(Ranged(), key)}


@given(st.integers(-20, 30))
def test_a_whole_number_is_accepted_exactly_within_its_range(count: int) -> None:
    if 1 <= count <= 9:
        assert build_options(Ranged, "ranged", {"count": str(count)}).count == count
    else:
        bound = "at least 1" if count < 1 else "at most 9"
        with pytest.raises(SpecError, match=f"ranged: count must be {bound}, got {count}"):
            build_options(Ranged, "ranged", {"count": str(count)})


@given(st.floats(-1.0, 2.0))
def test_a_number_is_accepted_exactly_within_its_range(rate: float) -> None:
    if 0.0 <= rate <= 1.0:
        assert build_options(Ranged, "ranged", {"rate": repr(rate)}).rate == rate
    else:
        bound = "at least 0," if rate < 0 else "at most 1,"
        with pytest.raises(SpecError, match=f"rate must be {bound}"):
            build_options(Ranged, "ranged", {"rate": repr(rate)})


def test_whole_numbers_beyond_64_bits_choices_and_booleans() -> None:
    for text in (str(2**63), str(-(2**63) - 1)):
        with pytest.raises(SpecError, match="big must be a whole number"):
            build_options(Ranged, "ranged", {"big": text})
    with pytest.raises(SpecError, match="mode=medium is not accepted; choose one of fast, slow"):
        build_options(Ranged, "ranged", {"mode": "medium"})
    for text in ("1", "TRUE", "yes", "On"):
        assert build_options(Ranged, "ranged", {"flag": text}).flag is True
    for text in ("0", "False", "no", "OFF"):
        assert build_options(Ranged, "ranged", {"flag": text}).flag is False
    with pytest.raises(SpecError, match="flag must be true or false"):
        build_options(Ranged, "ranged", {"flag": "2"})
    with pytest.raises(SpecError, match="option 'count' is given twice"):
        split_spec("ranged:count=2,count=3")
    for value in (True, 2.5, "3"):  # values read from a file come unparsed
        with pytest.raises(SpecError, match="count must be a whole number"):
            check_options(Ranged(count=value), "ranged")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        (1, None),
        (5, None),
        (0, "--n must be >= 1, got 0"),
        (6, "--n must be <= 5, got 6"),
        (5.5, "--n must be <= 5, got 5.5"),
        (float("nan"), "--n must be a finite number, got nan"),
        (None, None),
    ],
)
def test_a_command_line_number_is_checked_against_both_bounds(
    value: float | None, problem: str | None
) -> None:
    assert number_problem("--n", value, low=1, high=5) == problem


@dataclass(frozen=True)
class Listed:
    piles: tuple[int, ...] = option((1, 2), "numbers joined by '-'")
    mode: str = option("fast", "a choice", choices=("fast", "slow"))


@pytest.mark.parametrize(
    ("spec", "hint"),
    [
        # numbers after a comma: a list is joined by '-'
        (
            "nim:piles=3,4,5",
            "if it belongs to the value of piles (a comma starts a new option), "
            "a list of numbers is written piles=3-4-5",
        ),
        ("nim:piles=3,4,k=1", "a list of numbers is written piles=3-4"),
        # anything else: parentheses
        (
            "alphabeta:depth=5,fast",
            "if it belongs to the value of depth (a comma starts a new option), "
            "write depth=(5,fast): a value holding a comma goes in parentheses",
        ),
        # a key holding a line break is said on one line
        (
            "random:0\n0=,0",
            "if it belongs to the value of 0 0 (a comma starts a new option), write 0 0=(,0): "
            "a value holding a comma goes in parentheses",
        ),
    ],
)
def test_a_bare_word_after_an_option_says_how_to_write_its_value(spec: str, hint: str) -> None:
    with pytest.raises(SpecError) as refused:
        split_spec(spec)
    message = str(refused.value)
    assert message.startswith(f"{spec.partition(':')[0]}: option ") and "must be written key=value" in message
    assert message.endswith(hint) and "\n" not in message


@pytest.mark.parametrize("spec", ["quixo:,,", "nim:piles=3,", "nim:x"])
def test_a_bare_word_with_no_option_before_it_only_asks_for_key_value(spec: str) -> None:
    with pytest.raises(SpecError, match=r"must be written key=value$"):
        split_spec(spec)


@pytest.mark.parametrize("text", ["slow", "Slow", "SLOW"])
def test_a_choice_is_read_in_any_case_and_written_as_declared(text: str) -> None:
    settings = build_options(Listed, "listed", {"mode": text})
    assert settings.mode == "slow" and spec_text("listed", settings) == "listed:mode=slow"


def test_a_choice_that_is_not_one_still_lists_the_choices() -> None:
    with pytest.raises(SpecError, match="mode=quick is not accepted; choose one of fast, slow"):
        build_options(Listed, "listed", {"mode": "quick"})


@dataclass(frozen=True)
class CaseSensitive:
    mode: str = option("a", "choices differing only by case", choices=("a", "A"))


def test_choices_that_differ_only_by_case_are_kept_apart() -> None:
    assert build_options(CaseSensitive, "cs", {"mode": "A"}).mode == "A"
    assert build_options(CaseSensitive, "cs", {"mode": "a"}).mode == "a"


@pytest.mark.parametrize(
    ("word", "said"),
    [
        ("alphazero", "an alphazero"),
        ("evolve", "an evolve"),
        ("iterations", "an iterations"),
        ("int", "an int"),
        ("othello", "an othello"),
        ("'alphazero'", "an 'alphazero'"),
        ("unknown", "an unknown"),
        ("greedy", "a greedy"),
        ("qlearning", "a qlearning"),
        ("unit", "a unit"),
        ("user", "a user"),
        ("8x8", "an 8x8"),
        ("11x11", "an 11x11"),
        ("18x6", "an 18x6"),
        ("7x6", "a 7x6"),
        ("110", "a 110"),
    ],
)
def test_a_word_takes_the_article_it_is_said_with(word: str, said: str) -> None:
    assert with_article(word) == said


@pytest.mark.parametrize("spec", [5, None, ["quixo"], b"quixo"])
def test_a_spec_that_is_not_a_string_is_named_as_such(spec: object) -> None:
    with pytest.raises(
        SpecError, match=f"^a spec is a string, NAME or NAME:key=value,..., got {type(spec).__name__}$"
    ):
        split_spec(spec)  # type: ignore[arg-type]
    with pytest.raises(SpecError, match=r"^empty spec"):
        split_spec("  ")


@pytest.mark.parametrize("spec", ["outer:Size=4", "OUTER:SIZE=4", "Outer: size = 4"])
def test_option_keys_are_read_in_any_case_and_written_lowercase(spec: str) -> None:
    name, texts = split_spec(spec)
    settings = build_options(Outer, name, texts)
    assert settings.size == 4 and spec_text(name, settings) == "outer:size=4"


def test_an_option_given_twice_in_two_cases_is_refused() -> None:
    with pytest.raises(SpecError, match="option 'size' is given twice"):
        split_spec("outer:Size=4,size=5")
    with pytest.raises(SpecError, match="option 'size' is given twice"):
        build_options(Outer, "outer", {"Size": "4", "size": "5"})


@dataclass(frozen=True)
class Camel:
    maxDepth: int = option(1, "an option declared with a capital letter")


def test_an_option_declared_with_capitals_is_read_in_any_case_and_written_as_declared() -> None:
    name, texts = split_spec("camel:MAXDEPTH=3")
    settings = build_options(Camel, name, texts)
    assert settings.maxDepth == 3 and spec_text(name, settings) == "camel:maxDepth=3"
