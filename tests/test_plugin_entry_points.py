"""Game and agent entry points of other packages that cannot be loaded, and names that are not.

A broken entry point (its module missing or failing to import, its class absent or of the wrong
kind) concerns its own name only: the listings leave it out with one warning line naming it, its
package and what failed; using it by name is refused on one line saying the same; nothing else
breaks, and importing boardlab loads no game. Each plugin here is a dist-info folder and a module
written into the test's own folder, put on the path.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from example_packages import EXAMPLES, run_boardlab

from boardlab.agents import list_agents, make_agent
from boardlab.agents.base import Agent, AgentSpecError
from boardlab.agents.greedy import GreedyAgent
from boardlab.agents.perfect import PerfectAgent
from boardlab.core.registry import Registry
from boardlab.games import GameOptionError, available_games, parse_game

REPOSITORY = Path(__file__).resolve().parents[1]


def write_plugin(site: Path, package: str, entry_points: str, modules: dict[str, str]) -> Path:
    """``site`` holding the distribution ``package`` (its dist-info with ``entry_points``, an
    entry_points.txt text) and the Python ``modules`` (name -> source); ``site`` returned."""
    info = site / f"{package.replace('-', '_')}-0.1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {package}\nVersion: 0.1.0\n")
    (info / "entry_points.txt").write_text(entry_points)
    for name, source in modules.items():
        (site / f"{name}.py").write_text(source)
    return site


@pytest.fixture
def on_path(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[Path], None]]:
    """Puts a plugin folder first on this process's path (and its modules out of it afterwards)."""
    before = set(sys.modules)

    def put(site: Path) -> None:
        monkeypatch.syspath_prepend(str(site))

    yield put
    for name in set(sys.modules) - before:
        if name.startswith("brokenplug"):
            del sys.modules[name]


def environment(site: Path) -> dict[str, str]:
    """The environment of a boardlab command run with ``site`` on its path."""
    path = os.pathsep.join(p for p in (str(site), os.environ.get("PYTHONPATH", "")) if p)
    return {**os.environ, "PYTHONPATH": path, "COLUMNS": "200"}


# --- games ---------------------------------------------------------------------------------------


def test_a_game_whose_class_is_missing_is_left_out_of_the_list_with_one_warning(
    tmp_path: Path, on_path: Callable[[Path], None], capsys: pytest.CaptureFixture[str]
) -> None:
    site = write_plugin(
        tmp_path, "brokenplug-a", "[boardlab.games]\nhexa = brokenplug_a:Hexx\n", {"brokenplug_a": "X = 1\n"}
    )
    on_path(site)
    assert available_games() == ["connect4", "nim", "quixo", "tictactoe"]
    available_games()
    warning = capsys.readouterr().err.strip().splitlines()
    assert warning == [
        "warning: game 'hexa' from package brokenplug-a (entry point brokenplug_a:Hexx) could not be "
        "loaded: module 'brokenplug_a' has no attribute 'Hexx'; left out"
    ]
    assert "nim" in PerfectAgent.games  # the agents that list games read every game: unaffected


@pytest.mark.parametrize(
    ("name", "target", "module", "why"),
    [
        ("hexb1", "brokenplug_b1:Hex", "X = 1\n", "module 'brokenplug_b1' has no attribute 'Hex'"),
        ("hexb2", "brokenplug_gone:Hex", "X = 1\n", "No module named 'brokenplug_gone'"),
        ("hexb3", "brokenplug_b3:X", "X = 1\n", "brokenplug_b3:X is 1, not a subclass of Game"),
        ("hexb4", "brokenplug_b4:Hex", "raise RuntimeError('no board')\n", "RuntimeError: no board"),
    ],
)
def test_a_game_that_does_not_load_is_refused_by_name_on_one_line(
    tmp_path: Path, on_path: Callable[[Path], None], name: str, target: str, module: str, why: str
) -> None:
    modules = {target.split(":")[0]: module} if "gone" not in target else {}
    site = write_plugin(tmp_path, "brokenplug-b", f"[boardlab.games]\n{name} = {target}\n", modules)
    on_path(site)
    expected = f"game '{name}' from package brokenplug-b (entry point {target}) could not be loaded: {why}"
    with pytest.raises(GameOptionError) as raised:
        parse_game(f"{name}:size=3")
    assert str(raised.value) == expected
    assert parse_game("tictactoe").name == "tictactoe"


@pytest.mark.timeout(120)
def test_the_commands_list_and_play_other_games_and_refuse_the_broken_one_by_name(tmp_path: Path) -> None:
    site = write_plugin(
        tmp_path, "brokenplug-c", "[boardlab.games]\nhexo = brokenplug_c:Hexx\n", {"brokenplug_c": "X = 1\n"}
    )
    env = environment(site)
    listing = run_boardlab(env, "games", cwd=tmp_path)
    assert listing.returncode == 0 and "tictactoe" in listing.stdout and "hexo" not in listing.stdout
    assert listing.stderr.strip().splitlines() == [
        "warning: game 'hexo' from package brokenplug-c (entry point brokenplug_c:Hexx) could not be "
        "loaded: module 'brokenplug_c' has no attribute 'Hexx'; left out"
    ]
    played = run_boardlab(env, "match", "perfect", "random", "--game", "tictactoe", "-n", "2", cwd=tmp_path)
    assert played.returncode == 0 and "hexo" not in played.stderr, played.stderr  # no word of it
    refused = run_boardlab(env, "match", "random", "random", "--game", "hexo", cwd=tmp_path)
    assert refused.returncode == 2 and refused.stdout == ""
    assert refused.stderr.strip().splitlines() == [
        "Error: game 'hexo' from package brokenplug-c (entry point brokenplug_c:Hexx) could not be "
        "loaded: module 'brokenplug_c' has no attribute 'Hexx'"
    ]


@pytest.mark.timeout(120)
def test_importing_boardlab_and_its_agents_loads_no_game(tmp_path: Path) -> None:
    """A game package whose import fails breaks nothing that does not use it: importing the
    command line and the agents (the perfect agent's list of games included) loads no game."""
    site = write_plugin(
        tmp_path,
        "brokenplug-d",
        "[boardlab.games]\nhexd = brokenplug_d:Hex\n",
        {"brokenplug_d": "raise SystemExit('imported')\n"},
    )
    code = "import boardlab.ui.cli, boardlab.agents.perfect, boardlab.games; print('imported nothing')"
    done = subprocess.run(
        [sys.executable, "-c", code], env=environment(site), capture_output=True, text=True, timeout=100
    )
    assert (done.returncode, done.stdout.strip()) == (0, "imported nothing"), done.stderr


# --- agents ----------------------------------------------------------------------------------------


def test_an_agent_that_does_not_load_is_left_out_of_the_list_and_refused_by_name(
    tmp_path: Path, on_path: Callable[[Path], None], capsys: pytest.CaptureFixture[str]
) -> None:
    site = write_plugin(
        tmp_path,
        "brokenplug-e",
        "[boardlab.agents]\nflat = brokenplug_e:Flat\nnotagent = brokenplug_e:X\n",
        {"brokenplug_e": "X = 1\n"},
    )
    on_path(site)
    names = [cls.name for cls in list_agents()]
    assert "random" in names and "flat" not in names and "notagent" not in names
    assert capsys.readouterr().err.strip().splitlines() == [
        "warning: agent 'flat' from package brokenplug-e (entry point brokenplug_e:Flat) could not be "
        "loaded: module 'brokenplug_e' has no attribute 'Flat'; left out",
        "warning: agent 'notagent' from package brokenplug-e (entry point brokenplug_e:X) could not be "
        "loaded: brokenplug_e:X is 1, not a subclass of Agent; left out",
    ]
    with pytest.raises(
        AgentSpecError, match=r"^agent 'flat' from package brokenplug-e .*no attribute 'Flat'$"
    ):
        make_agent("flat:depth=2", game="tictactoe")
    assert make_agent("random", game="tictactoe").name == "random"


# --- names that are not registered -----------------------------------------------------------------


def test_an_unknown_game_says_how_a_game_of_another_package_is_found() -> None:
    with pytest.raises(GameOptionError) as raised:
        parse_game("hexq")
    message = str(raised.value)
    assert message.startswith("unknown game 'hexq'; known games: connect4, nim, quixo, tictactoe")
    assert "found once that package is installed (pip install -e ./mygame; docs/games.md" in message


@pytest.mark.parametrize(
    ("spec", "error"), [("boardlab_hex:Hex", GameOptionError), ("mypkg.agents:Flat", AgentSpecError)]
)
def test_a_module_class_path_is_refused_as_not_a_registered_name(spec: str, error: type[Exception]) -> None:
    with pytest.raises(error) as raised:
        parse_game(spec) if error is GameOptionError else make_agent(spec)
    message = str(raised.value)
    assert message.startswith(f"{spec!r} reads as a module:Class path, but a")
    assert "is named by its registered name" in message and "pyproject.toml" in message
    assert "\n" not in message and "key=value" not in message


def test_an_option_without_a_value_in_a_known_game_is_still_an_option_error() -> None:
    with pytest.raises(GameOptionError, match="option 'Size' must be written key=value"):
        parse_game("quixo:Size")


# --- boardlab's own suite with a game of another package installed --------------------------------


@pytest.mark.timeout(240)
def test_boardlabs_conformance_suite_collects_with_another_packages_game_installed(tmp_path: Path) -> None:
    """Hexapawn registered by its entry point (as `pip install ./examples/hexapawn` does) is the
    example's to check (tests/test_plugin_game.py): boardlab's suite covers its own games."""
    site = write_plugin(
        tmp_path, "boardlab-hexapawn", "[boardlab.games]\nhexapawn = boardlab_hexapawn:Hexapawn\n", {}
    )
    env = environment(site)
    env["PYTHONPATH"] = os.pathsep.join((env["PYTHONPATH"], str(EXAMPLES / "hexapawn")))
    command = [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider"]
    done = subprocess.run(
        [*command, "-o", "addopts=", "tests/test_conformance.py"],
        env=env,
        cwd=REPOSITORY,
        capture_output=True,
        text=True,
        timeout=200,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "test_check_game_passes[tictactoe]" in done.stdout and "hexapawn" not in done.stdout


# --- names that disagree or clash ------------------------------------------------------------------

AGENT_MODULE = """
from boardlab.agents.base import Agent


def agent(called):
    class Named(Agent):
        name = called

        def choose(self, state):
            return state.legal_moves()[0]

    return Named


Misnamed = agent("othername")
Greedy = agent("greedy")
Mine = agent("mine")
"""


def test_an_entry_point_named_otherwise_than_its_agent_is_refused_and_listed_with_one_warning(
    tmp_path: Path, on_path: Callable[[Path], None], capsys: pytest.CaptureFixture[str]
) -> None:
    site = write_plugin(
        tmp_path,
        "brokenplug-f",
        "[boardlab.agents]\nmisnamed = brokenplug_f:Misnamed\n",
        {"brokenplug_f": AGENT_MODULE},
    )
    on_path(site)
    why = (
        "agent 'misnamed' from package brokenplug-f (entry point brokenplug_f:Misnamed) could not be "
        "loaded: brokenplug_f:Misnamed calls itself 'othername', not 'misnamed'; an entry point's name "
        "must be its agent's name"
    )
    names = [cls.name for cls in list_agents()]
    assert "othername" not in names and "misnamed" not in names and "random" in names
    assert capsys.readouterr().err.strip().splitlines() == [f"warning: {why}; left out"]
    with pytest.raises(AgentSpecError) as raised:
        make_agent("misnamed", game="tictactoe")
    assert str(raised.value) == why


def test_a_package_taking_a_shipped_agents_name_is_ignored_with_one_warning(
    tmp_path: Path, on_path: Callable[[Path], None], capsys: pytest.CaptureFixture[str]
) -> None:
    site = write_plugin(
        tmp_path,
        "brokenplug-g",
        "[boardlab.agents]\ngreedy = brokenplug_g:Greedy\n",
        {"brokenplug_g": AGENT_MODULE},
    )
    on_path(site)
    agents = Registry("agent", "boardlab.agents", AgentSpecError, base=Agent)  # nothing loaded yet
    assert agents.get("greedy") is GreedyAgent and agents.get("Greedy") is GreedyAgent
    assert "greedy" in agents.available()
    assert capsys.readouterr().err.strip().splitlines() == [
        "warning: agent 'greedy' of package brokenplug-g (entry point brokenplug_g:Greedy) is ignored: "
        "boardlab's own agent has that name; rename the entry point"
    ]


def test_a_name_two_packages_register_is_refused_naming_both(
    tmp_path: Path, on_path: Callable[[Path], None], capsys: pytest.CaptureFixture[str]
) -> None:
    for package in ("brokenplug-h", "brokenplug-i"):
        write_plugin(tmp_path, package, "[boardlab.agents]\nmine = brokenplug_h:Mine\n", {})
    (tmp_path / "brokenplug_h.py").write_text(AGENT_MODULE)
    on_path(tmp_path)
    why = (
        "agent 'mine' is registered by package brokenplug-h (entry point brokenplug_h:Mine) and package "
        "brokenplug-i (entry point brokenplug_h:Mine); neither is used, so that the name means one "
        "agent: uninstall one or rename its entry point"
    )
    with pytest.raises(AgentSpecError) as raised:
        make_agent("MINE:")
    assert str(raised.value) == why
    names = [cls.name for cls in list_agents()]
    assert "mine" not in names and "random" in names
    assert capsys.readouterr().err.strip().splitlines() == [f"warning: {why}; left out"]


@pytest.mark.timeout(120)
def test_the_commands_refuse_a_misnamed_agent_and_play_the_rest(tmp_path: Path) -> None:
    site = write_plugin(
        tmp_path,
        "brokenplug-j",
        "[boardlab.agents]\nmisnamed = brokenplug_j:Misnamed\nmine = brokenplug_j:Mine\n"
        "greedy = brokenplug_j:Greedy\n",
        {"brokenplug_j": AGENT_MODULE},
    )
    env = environment(site)
    listing = run_boardlab(env, "agents", cwd=tmp_path)
    assert listing.returncode == 0 and "mine" in listing.stdout and "othername" not in listing.stdout
    assert [line.split(" is ignored")[0].split(" could ")[0] for line in listing.stderr.splitlines()] == [
        "warning: agent 'greedy' of package brokenplug-j (entry point brokenplug_j:Greedy)",
        "warning: agent 'misnamed' from package brokenplug-j (entry point brokenplug_j:Misnamed)",
    ]
    refused = run_boardlab(env, "match", "misnamed", "random", "--game", "tictactoe", cwd=tmp_path)
    assert refused.returncode == 2 and "calls itself 'othername', not 'misnamed'" in refused.stderr
    played = run_boardlab(env, "match", "mine", "random", "--game", "tictactoe", "-n", "2", cwd=tmp_path)
    assert played.returncode == 0, played.stderr
