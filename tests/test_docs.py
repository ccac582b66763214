"""The documentation's examples keep working: README.md and docs/*.md, page by page.

- ``test_python_blocks[PAGE]`` runs every fenced ```` ```python ```` block of the page, in order,
  in one namespace (a later block may use what an earlier one made), in an empty scratch
  folder. A block is left out only where the line just before its fence (blank lines aside)
  is the marker ``<!-- not run: REASON -->``, REASON saying why a reader can run it but this
  test cannot (it trains for minutes, it needs the course's own template...); a left-out
  block is still compiled, so its syntax is checked.
- ``test_commands[PAGE]`` reads every ``boardlab COMMAND ...`` of the page (in shell blocks
  and in `inline code`, also written without ``boardlab`` as in `perft --size 4`) and checks
  that the command exists and has every ``--flag`` (and ``-n``) it is given (``boardlab
  --version``: boardlab's own options; ``boardlab COMMAND --help``: every command's); for
  ``boardlab train KIND`` the flags are train's own and those of KIND's settings. A line running a
  script (``.venv/bin/python benchmarks/strength.py --games 100``) names a file of the
  checkout whose source has each flag. The keys of ``--hyper key=value,...`` are KIND's
  hyper-parameters.
- ``test_flags[PAGE]``: every other ``--flag`` in the page's inline code is a flag of some
  ``boardlab`` command (train's kinds included) or of a script of the checkout, and every
  ``tests/``, ``benchmarks/``, ``examples/`` or ``scripts/`` path named there exists; the
  keys of a ``--hyper key=value,...`` there are hyper-parameters of some train kind.
- ``test_names[PAGE]``: every ``boardlab.x.y`` in the page's inline code imports (a module, or
  an attribute of one), every ``boardlab/...`` file named there is in ``src/``, and every
  ``BOARDLAB_...`` environment variable of the page is read by the package or its tests.
- ``test_links[PAGE]``: every relative link and image of the page names a file of the checkout,
  and its ``#anchor`` a heading there.
- ``test_agents_page_names_every_agent_and_option``: docs/agents.md has a row for each agent
  boardlab ships and writes each of its options as ``key=``.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import os
import re
import shlex
import sys
import types
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from boardlab.agents.base import AGENTS
from boardlab.games import GAMES

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
PAGE_IDS = [str(p.relative_to(ROOT)) for p in PAGES]

FENCE = re.compile(r"^\s*```\s*([\w+-]*)\s*$")
NOT_RUN = re.compile(r"^<!--\s*not run:\s*(\S.*?)\s*-->$")
INLINE = re.compile(r"`([^`\n]+)`")
FLAG = re.compile(r"(?<![\w-])(--[a-z][a-z0-9-]*|-[a-z])(?=$|[\s=\]|,;)])")
SCRIPT = re.compile(r"(?:^|\s)((?:benchmarks|examples|scripts)/[\w./-]+\.(?:py|sh))")
REPO_PATH = re.compile(r"^(?:tests|benchmarks|examples|scripts)/[\w./-]+$")
SHELLS = {"", "sh", "bash", "console", "shell"}
OTHER_TOOLS = {"pip", "git", "ray", "apt", "apt-get", "sudo", "twine", "pytest"}
"""Programs other than boardlab whose flags inline code may show (also as ``.venv/bin/pip``)."""


@dataclass(frozen=True)
class Block:
    """A fenced block of a page: its language, first line (1-based), text, and why it is not run."""

    lang: str
    line: int
    text: str
    not_run: str | None


@dataclass(frozen=True)
class Page:
    """A page split into its fenced blocks and its prose (everything outside them)."""

    blocks: tuple[Block, ...]
    prose: str


@functools.cache
def read_page(path: Path) -> Page:
    """The blocks and the prose of the page at ``path``."""
    lines = path.read_text(encoding="utf-8").splitlines()
    blocks: list[Block] = []
    prose: list[str] = []
    i = 0
    while i < len(lines):
        opening = FENCE.match(lines[i])
        if opening is None:
            prose.append(lines[i])
            i += 1
            continue
        end = next((j for j in range(i + 1, len(lines)) if FENCE.match(lines[j])), len(lines))
        before = [line.strip() for line in lines[:i] if line.strip()]
        marker = NOT_RUN.match(before[-1]) if before else None
        text = "\n".join(lines[i + 1 : end]) + "\n"
        blocks.append(Block(opening.group(1).lower(), i + 1, text, marker.group(1) if marker else None))
        i = end + 1
    return Page(tuple(blocks), "\n".join(prose))


def _inline_spans(page: Page) -> list[str]:
    return INLINE.findall(page.prose)


@contextlib.contextmanager
def _scratch(folder: Path) -> Iterator[None]:
    """Run in ``folder`` (the examples write results/, net.safetensors...)."""
    before = Path.cwd()
    os.chdir(folder)
    try:
        yield
    finally:
        os.chdir(before)


def _pages_with_python() -> list[Path]:
    return [p for p in PAGES if "```python" in p.read_text(encoding="utf-8")]


@pytest.mark.parametrize("path", _pages_with_python(), ids=lambda p: str(p.relative_to(ROOT)))
def test_python_blocks(path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocks = [b for b in read_page(path).blocks if b.lang == "python"]
    assert blocks, f"{path.name}: no Python block read"
    for registry in (AGENTS, GAMES):  # what a page registers is gone after it
        monkeypatch.setattr(registry, "_loaded", dict(registry._loaded))
    module = types.ModuleType(f"docs_{path.stem}")  # a module, as a reader's script is one
    monkeypatch.setitem(sys.modules, module.__name__, module)
    namespace: dict[str, Any] = module.__dict__
    with _scratch(tmp_path):
        for block in blocks:
            where = f"{path.relative_to(ROOT)}:{block.line}"
            code = compile(block.text, where, "exec", dont_inherit=True)  # not this file's futures
            if block.not_run is None:
                exec(code, namespace)


# --- commands and flags --------------------------------------------------------------------------


@functools.cache
def cli_flags() -> dict[str, frozenset[str]]:
    """Each ``boardlab`` command's flags; ``train KIND`` also under ``"train KIND"``, with the
    flags of KIND's settings; ``boardlab``'s own (``--version``) under ``""``."""
    from typer.main import get_command

    from boardlab.core.spec import options_of
    from boardlab.train import METHOD_MODULES, method
    from boardlab.ui.cli import app

    group = get_command(app)
    own = {"--help", *(o for param in group.params for o in param.opts if o.startswith("-"))}
    flags: dict[str, frozenset[str]] = {"": frozenset(own)}  # `boardlab --version`
    for name, command in group.commands.items():  # type: ignore[attr-defined]
        opts = {"--help"}
        for param in command.params:
            opts.update(o for o in (*param.opts, *param.secondary_opts) if o.startswith("-"))
        flags[name] = frozenset(opts)
    for kind in METHOD_MODULES:
        own = {"--" + o.name.replace("_", "-") for o in options_of(method(kind).settings)}
        flags[f"train {kind}"] = flags["train"] | own
    return flags


def _command_lines(page: Page) -> list[str]:
    """The command lines of the page's shell blocks (continuations joined, comments cut)."""
    lines: list[str] = []
    for block in page.blocks:
        if block.lang in SHELLS:
            joined = block.text.replace("\\\n", " ")
            lines += [re.sub(r"\s+#.*$", "", line).strip() for line in joined.splitlines()]
    return [line for line in lines if line]


def _boardlab_commands(page: Page) -> list[str]:
    """Every ``boardlab ...`` of the page, from ``boardlab``'s first argument on."""
    commands = [line.split("boardlab ", 1)[1] for line in _command_lines(page) if "boardlab " in line]
    names = set(cli_flags())
    for span in _inline_spans(page):
        if span.startswith("boardlab "):
            commands.append(span[len("boardlab ") :])
        elif span.split(" ", 1)[0] in names and " -" in span:  # `perft --size 4`, `train --out`
            commands.append(span)
    # `boardlab 1` is the engine protocol's first line (interop.md), not a command
    return [c for c in commands if not c.startswith(("serving", "[")) and not c.split(" ")[0].isdigit()]


def _words(command: str) -> list[str]:
    try:
        return shlex.split(command)
    except ValueError:
        return command.split()


def _problems_of_command(command: str) -> list[str]:
    words = _words(command)
    flags = cli_flags()
    if words and words[0].startswith("-"):  # `boardlab --version`: the group's own options
        return [f"boardlab {command}: boardlab has no {f}" for f in _flags_in(words) if f not in flags[""]]
    if words and words[0] == "COMMAND":  # `boardlab COMMAND --help`: every command has --help
        return [f"boardlab {command}: not every command has {f}" for f in _flags_in(words) if f != "--help"]
    if not words or words[0] not in flags:
        return [f"boardlab {command}: no command {words[0] if words else ''!r}"]
    name = words[0]
    if name == "train":
        kind = words[1] if len(words) > 1 else ""
        if f"train {kind}" in flags:
            name = f"train {kind}"
        elif kind and not kind.startswith("-") and kind not in ("KIND", "..."):
            return [f"boardlab {command}: train has no kind {kind!r}"]
        else:  # `train --out`, `train KIND --help`: train's own flags or any kind's
            known = frozenset().union(*(v for k, v in flags.items() if k.startswith("train")))
            return [f"boardlab {command}: no {f}" for f in _flags_in(words[1:]) if f not in known]
        problems = [f"boardlab {command}: {kind} has no {key}" for key in _hyper_keys(words, kind)]
    else:
        problems = []
    return problems + [
        f"boardlab {command}: {name} has no {f}" for f in _flags_in(words[1:]) if f not in flags[name]
    ]


@functools.cache
def hyper_parameters() -> dict[str, frozenset[str]]:
    """The keys ``--hyper`` takes, by train kind ("" for those of every kind)."""
    from boardlab.core.spec import options_of
    from boardlab.train import METHOD_MODULES, method

    keys = {kind: frozenset(o.name for o in options_of(method(kind).settings)) for kind in METHOD_MODULES}
    return {**keys, "": frozenset().union(*keys.values())}


def _hyper_keys(words: list[str], kind: str) -> list[str]:
    """The keys of ``--hyper key=value,...`` among ``words`` that ``kind`` (or, for "", no
    kind) does not take."""
    unknown: list[str] = []
    for i, word in enumerate(words):
        value = word[len("--hyper=") :] if word.startswith("--hyper=") else None
        if word == "--hyper" and i + 1 < len(words):
            value = words[i + 1]
        if value is not None and "=" in value and "..." not in value:  # not `--hyper STR`, `key=value,...`
            keys = [pair.split("=", 1)[0] for pair in value.split(",") if "=" in pair]
            unknown += [k for k in keys if k not in hyper_parameters()[kind]]
    return unknown


def _flags_in(words: list[str]) -> list[str]:
    found: list[str] = []
    for word in words:
        match = FLAG.match(word.strip("[]"))
        if match:
            found.append(match.group(1))
    return found


def _script_problems(line: str) -> list[str]:
    """A line running a script of the checkout: the script exists and has each flag."""
    match = SCRIPT.search(line)
    if match is None:
        return []
    script = ROOT / match.group(1)
    if not script.is_file():
        return [f"{line}: no file {match.group(1)}"]
    source = script.read_text(encoding="utf-8")
    rest = line[match.end() :]
    return [f"{line}: {match.group(1)} has no {f}" for f in _flags_in(rest.split()) if f not in source]


@pytest.mark.parametrize("path", PAGES, ids=PAGE_IDS)
def test_commands(path: Path) -> None:
    page = read_page(path)
    problems: list[str] = []
    for command in _boardlab_commands(page):
        problems += _problems_of_command(command)
    for line in _command_lines(page) + _inline_spans(page):
        problems += _script_problems(line)
    assert not problems, "\n".join(problems)


@functools.cache
def every_flag() -> frozenset[str]:
    """The flags of every ``boardlab`` command and train kind, and those the checkout's scripts
    name (as a string in their source)."""
    flags = set().union(*cli_flags().values())
    for folder in ("benchmarks", "examples", "scripts"):
        for script in (ROOT / folder).glob("*.*"):
            flags.update(re.findall(r"[\"'](--[a-z][a-z0-9-]*)[\"']", script.read_text(encoding="utf-8")))
    return frozenset(flags)


@pytest.mark.parametrize("path", PAGES, ids=PAGE_IDS)
def test_flags(path: Path) -> None:
    page = read_page(path)
    problems: list[str] = []
    for span in _inline_spans(page):
        if REPO_PATH.match(span) and not (ROOT / span).exists():
            problems.append(f"`{span}`: no such file in the checkout")
        words = span.split()
        if words and Path(words[0]).name in OTHER_TOOLS:
            continue  # another program's flags, e.g. `pip wheel --no-deps .`
        for flag in _flags_in(words):
            if flag.startswith("--") and flag not in every_flag():
                problems.append(f"`{span}`: no command or script has {flag}")
        problems += [f"`{span}`: no train kind takes {key}" for key in _hyper_keys(span.split(), "")]
    assert not problems, "\n".join(problems)


def _resolve(dotted: str) -> object:
    """The module or attribute that ``boardlab.x.y`` names (ImportError, AttributeError if none)."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        module_name = ".".join(parts[:cut])
        try:
            found: object = importlib.import_module(module_name)
        except ModuleNotFoundError as error:
            if error.name is not None and module_name.startswith(error.name):
                continue  # not a module: an attribute of a shorter one
            raise
        for attribute in parts[cut:]:
            found = getattr(found, attribute)
        return found
    raise ImportError(dotted)


@pytest.mark.parametrize("path", PAGES, ids=PAGE_IDS)
def test_names(path: Path) -> None:
    """Every ``boardlab.x.y`` in the page's inline code can be imported, and every
    ``boardlab/...`` file named there is in the package."""
    problems: list[str] = []
    for span in _inline_spans(read_page(path)):
        for dotted in re.findall(r"\bboardlab(?:\.\w+)+", span):
            try:
                _resolve(dotted)
            except (ImportError, AttributeError) as error:
                problems.append(f"`{span}`: {dotted} is not there ({error})")
        for file in re.findall(r"(?:^|\s)(boardlab/[\w./-]+\.\w+)", span):
            if not (ROOT / "src" / file).exists():
                problems.append(f"`{span}`: no file src/{file}")
    for variable in sorted(set(re.findall(r"\bBOARDLAB_[A-Z0-9_]+", path.read_text(encoding="utf-8")))):
        if variable not in environment_variables():
            problems.append(f"{variable}: neither boardlab nor its tests read it")
    assert not problems, "\n".join(problems)


@functools.cache
def environment_variables() -> frozenset[str]:
    """The ``BOARDLAB_...`` names that the package's and the tests' sources mention."""
    names: set[str] = set()
    for folder in ("src", "tests"):
        for source in (ROOT / folder).rglob("*.py"):
            if source.name != "test_docs.py":
                names.update(re.findall(r"\bBOARDLAB_[A-Z0-9_]+", source.read_text(encoding="utf-8")))
    return frozenset(names)


# --- links ---------------------------------------------------------------------------------------

LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$")


def _slug(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces as hyphens."""
    text = re.sub(r"[^\w\- ]", "", heading.replace("`", "").strip().lower())
    return text.replace(" ", "-")


@functools.cache
def anchors(path: Path) -> frozenset[str]:
    """The anchors of a Markdown file's headings (those inside fenced blocks are no headings)."""
    page = read_page(path)
    return frozenset(_slug(m.group(1)) for line in page.prose.splitlines() if (m := HEADING.match(line)))


@pytest.mark.parametrize("path", PAGES, ids=PAGE_IDS)
def test_links(path: Path) -> None:
    """Every relative link of the page (and image) names a file of the checkout, and its
    ``#anchor`` a heading of that file."""
    problems: list[str] = []
    for target in LINK.findall(read_page(path).prose):
        if re.match(r"^[a-z]+:", target):  # https:, mailto:
            continue
        file, _, anchor = target.partition("#")
        linked = (path.parent / file).resolve() if file else path
        if not linked.exists():
            problems.append(f"{target}: no such file")
        elif anchor and linked.suffix == ".md" and anchor not in anchors(linked):
            problems.append(f"{target}: no heading #{anchor} in {linked.name}")
    assert not problems, "\n".join(problems)


def test_agents_page_names_every_agent_and_option() -> None:
    import dataclasses

    page = (ROOT / "docs" / "agents.md").read_text()
    rows = [line for line in page.splitlines() if line.startswith("| `")]
    missing = []
    for name in AGENTS.names():
        agent = AGENTS.get(name)
        if not agent.__module__.startswith("boardlab."):
            continue  # an installed package's agent: its own docs
        if not any(f"`{name}`" in row.split("|")[1] for row in rows):
            missing.append(f"no row for {name}")
        settings = getattr(agent, "Settings", None)
        for field in dataclasses.fields(settings) if settings else ():
            if not re.search(rf"(?<![\w-]){field.name}=", page):
                missing.append(f"{name}'s option {field.name}=")
    assert not missing, "docs/agents.md: " + "; ".join(missing)
