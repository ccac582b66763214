"""Writing files so that nothing is lost or half-written.

Every file boardlab writes (JSON, PNG, npz, tables, models) goes through :func:`atomic_write`:
the bytes go to a uniquely named temporary file in the target's folder, are flushed to disk,
and the temporary file is renamed over the target. A reader sees the old file or the new
one, never part of one, and two writers never share a temporary name. The temporary name
holds the writer's process id: a writer killed mid-write (``kill -9``) leaves its temporary
behind, and the next write of the same target on this machine removes it once that process
is gone.
"""

from __future__ import annotations

import contextlib
import functools
import io
import os
import tempfile
from collections.abc import Callable, Iterator, Sequence
from contextvars import ContextVar
from pathlib import Path
from typing import IO, Any


def tables_root() -> Path:
    """Where solved tables (Quixo's, the Connect Four book) go by default: ``$BOARDLAB_TABLES``
    or ``~/.cache/boardlab/tables``; never the installed package, which may be read-only."""
    root = os.environ.get("BOARDLAB_TABLES")
    return Path(root).expanduser() if root else Path.home() / ".cache" / "boardlab" / "tables"


def atomic_write(path: str | Path, write: Callable[[IO[bytes]], object]) -> Path:
    """Call ``write(handle)`` on a temporary binary file beside ``path``, then move it there."""
    target = Path(path)
    temporary = _written_temporary(target, write)
    try:
        os.replace(temporary, target)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    _sync_folder(target.parent)
    return target


def atomic_write_all(files: Sequence[tuple[str | Path, bytes]]) -> list[Path]:
    """Write the bytes of each ``(path, data)``, every one to its temporary file first and only
    then all moved into place, each move atomic: an error or an interrupt (Ctrl-C) while they
    are written leaves every path as it was, never some new files beside old ones. The paths,
    in order."""
    written: list[tuple[Path, Path]] = []
    try:
        for path, data in files:
            target = Path(path)
            written.append((_written_temporary(target, functools.partial(_write_bytes, data=data)), target))
        for temporary, target in written:
            os.replace(temporary, target)
    except BaseException:
        for temporary, _ in written:  # those already moved are gone from here
            temporary.unlink(missing_ok=True)
        raise
    for folder in dict.fromkeys(target.parent for _, target in written):
        _sync_folder(folder)
    return [target for _, target in written]


def _write_bytes(handle: IO[bytes], data: bytes) -> None:
    handle.write(data)


def _written_temporary(target: Path, write: Callable[[IO[bytes]], object]) -> Path:
    """A temporary file beside ``target`` holding what ``write(handle)`` wrote, flushed to disk
    (the folder made first; stale temporaries of ``target`` removed); removed again if writing
    fails."""
    target.parent.mkdir(parents=True, exist_ok=True)
    remove_stale_temporaries(target)
    prefix = f"{_temporary_prefix(target)}{os.getpid()}."
    descriptor, name = tempfile.mkstemp(prefix=prefix, suffix=TEMPORARY_SUFFIX, dir=target.parent)
    temporary = Path(name)
    try:
        os.fchmod(descriptor, _mode_for(target))
        with os.fdopen(descriptor, "wb") as handle:
            write(handle)
            handle.flush()
            os.fsync(handle.fileno())
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    return temporary


TEMPORARY_SUFFIX = ".tmp"


def _mode_for(target: Path) -> int:
    """The permissions of the file written at ``target``: those of the file it replaces, else
    what ``open`` gives a new file under the process's umask (``mkstemp`` alone gives 0600, so
    that a model or plot would be readable by its owner only)."""
    try:
        return target.stat().st_mode & 0o7777
    except OSError:
        return 0o666 & ~_umask()


def _umask() -> int:
    mask = os.umask(0o022)  # reading the umask means setting it: put it back at once
    os.umask(mask)
    return mask


def _temporary_prefix(target: Path) -> str:
    return f".{target.name}."


def remove_stale_temporaries(target: str | Path) -> list[Path]:
    """Remove the temporaries of ``target`` left by writers that are no longer running; the
    paths removed. Temporaries of live processes (a concurrent writer) are left alone."""
    target = Path(target)
    prefix = _temporary_prefix(target)
    removed: list[Path] = []
    try:
        candidates = [p for p in target.parent.iterdir() if p.name.startswith(prefix)]
    except OSError:
        return removed
    for candidate in candidates:
        writer = candidate.name[len(prefix) :].partition(".")[0]
        if candidate.name.endswith(TEMPORARY_SUFFIX) and writer.isdigit() and not _running(int(writer)):
            try:
                candidate.unlink()
            except OSError:
                continue
            removed.append(candidate)
    return removed


def _running(pid: int) -> bool:
    """True if a process ``pid`` exists on this machine (one we may not signal counts too)."""
    try:
        os.kill(pid, 0)
    except PermissionError:
        return True
    except (ProcessLookupError, OverflowError):
        return False
    return True


def _sync_folder(folder: Path) -> None:
    # make the rename itself durable where the system allows opening a folder
    try:
        descriptor = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(descriptor)
    except OSError:
        pass
    finally:
        os.close(descriptor)


def atomic_write_bytes(path: str | Path, data: bytes) -> Path:
    """Write ``data`` to ``path`` atomically."""
    return atomic_write(path, lambda handle: handle.write(data))


def atomic_write_text(path: str | Path, text: str) -> Path:
    """Write ``text`` (UTF-8) to ``path`` atomically."""
    return atomic_write_bytes(path, text.encode("utf-8"))


def agg_figure(width: float, height: float, dpi: float = 110) -> Any:
    """A matplotlib ``Figure`` (constrained layout) on the Agg canvas, made without pyplot: a
    caller's backend (a notebook's) is left alone, and nothing is kept open once it is saved."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(width, height), dpi=dpi, layout="constrained")
    FigureCanvasAgg(figure)
    return figure


TITLE_MARGIN = 6.0
"""Pixels a title keeps from the figure's left and right edges."""


def _titles(figure: Any) -> list[Any]:
    """The title texts of ``figure``: its suptitle and every axes' titles (centre, left, right)."""
    texts = [getattr(figure, "_suptitle", None)]
    for ax in figure.axes:
        texts += [ax.title, getattr(ax, "_left_title", None), getattr(ax, "_right_title", None)]
    return [t for t in texts if t is not None and t.get_text()]


def _room(text: Any, width: float) -> float:
    """The pixels a title anchored where ``text`` is can span without leaving the figure."""
    anchor = text.get_transform().transform(text.get_position())[0]
    align = text.get_horizontalalignment()
    if align == "left":
        return width - anchor - TITLE_MARGIN
    if align == "right":
        return anchor - TITLE_MARGIN
    return 2 * min(anchor, width - anchor) - 2 * TITLE_MARGIN


def fit_titles(figure: Any, rounds: int = 5) -> Any:
    """Wrap every title of ``figure`` (its suptitle, its axes' titles) that runs past the
    figure's left or right edge onto more lines, at spaces where it can (``textwrap``), until
    it fits; returns ``figure``. A long run name in a title otherwise loses its ends: the
    constrained layout makes room above the axes for a title, not beside them."""
    import textwrap

    for _ in range(rounds):
        figure.draw_without_rendering()  # places the axes, hence their titles
        renderer = figure.canvas.get_renderer()
        width = figure.bbox.width
        changed = False
        for text in _titles(figure):
            box = text.get_window_extent(renderer)
            if box.x0 >= TITLE_MARGIN - 0.5 and box.x1 <= width - TITLE_MARGIN + 0.5:
                continue
            lines = text.get_text().splitlines()
            longest = max(len(line) for line in lines)
            chars = max(8, min(longest - 1, int(longest * _room(text, width) / max(box.width, 1.0))))
            text.set_text("\n".join(textwrap.fill(line, chars, break_on_hyphens=False) for line in lines))
            changed = True
        if not changed:
            break
    return figure


def figure_bytes(figure: Any, **options: Any) -> bytes:
    """A matplotlib figure drawn as PNG (or ``format=``) bytes, in memory."""
    buffer = io.BytesIO()
    figure.savefig(buffer, **{"format": "png", **options})
    return buffer.getvalue()


def atomic_savefig(figure: Any, path: str | Path, **options: Any) -> Path:
    """Save a matplotlib figure as PNG (or ``format=``) to ``path`` atomically."""
    return atomic_write_bytes(path, figure_bytes(figure, **options))


def path_problem(path: str | Path, *, folder: bool) -> str | None:
    """Why ``path`` cannot be used to write a file (``folder=False``) or a folder of files
    (``folder=True``), or None if it looks usable: checked before any work starts.

    Refused: an empty path (which command-line parsers turn into ``.``), a NUL character, a
    name the file system cannot hold (too long, not encodable), a path through an existing
    file, a folder where a file is expected and the reverse, and a place this user cannot
    write to.
    """
    text = str(path)
    if text in ("", "."):
        return "an empty path (or '.') is not accepted; name a file or folder, e.g. ./results"
    if "\x00" in text:
        return "a path cannot contain a NUL character"
    try:
        encoded = os.fsencode(text)
    except UnicodeError:
        return "the path holds characters the file system cannot encode"
    if len(encoded) > 4000:
        return f"the path is {len(encoded)} bytes long; the file system takes at most 4000"
    target = Path(text)
    ancestor = _existing_ancestor(target)
    try:
        name_max = os.pathconf(ancestor if ancestor.is_dir() else ancestor.parent, "PC_NAME_MAX")
    except (OSError, ValueError):
        name_max = 255
    for part in target.parts:
        if len(os.fsencode(part)) > name_max:
            return f"a name in the path is longer than {name_max} bytes"
    if ancestor != target and not ancestor.is_dir():
        return f"{ancestor} is a file, not a folder"
    if ancestor == target:
        if folder and not target.is_dir():
            return "it is a file; expected a folder"
        if not folder and target.is_dir():
            return "it is a folder; expected a file"
    writable = ancestor if ancestor.is_dir() else ancestor.parent
    if not os.access(writable, os.W_OK | os.X_OK):
        return f"cannot write in {writable}"
    return None


def output_problem(path: str | Path, *, folder: bool) -> str | None:
    """:func:`path_problem`, then the folder that will receive the output (``path`` itself, or
    its parent for a file) created and proven writable by writing and removing a probe file
    there; why not, or None. Every command that writes calls this before any work starts, so a
    read-only place (a read-only mount, a folder of another user) is refused at once rather
    than after hours of work; permission bits alone do not tell, for root writes anywhere but
    on a read-only file system."""
    problem = path_problem(path, folder=folder)
    if problem is not None:
        return problem
    target = Path(path)
    place = target if folder else target.parent
    try:
        make_folders(place)
        descriptor, probe = tempfile.mkstemp(prefix=".boardlab-probe.", suffix=TEMPORARY_SUFFIX, dir=place)
        os.close(descriptor)
        os.unlink(probe)
    except OSError as error:
        return f"cannot write in {place}: {error.strerror or error}"
    return None


def _existing_ancestor(path: Path) -> Path:
    """``path`` itself if it exists, else its nearest existing parent."""
    for candidate in (path, *path.absolute().parents):
        try:
            if candidate.exists() or candidate.is_symlink():
                return candidate
        except OSError:  # a name too long to look up
            continue
    return Path("/")


_CREATED: ContextVar[list[Path] | None] = ContextVar("boardlab_created_folders", default=None)
"""The folders :func:`make_folders` created inside the innermost :func:`removed_if_refused`."""


def make_folders(place: str | Path) -> None:
    """``place`` and its missing parents created (``mkdir -p``), each folder created noted for
    :func:`removed_if_refused`; OSError as from :meth:`Path.mkdir`."""
    place = Path(place).absolute()
    missing = []
    for candidate in (place, *place.parents):
        if candidate.is_dir():
            break
        missing.append(candidate)
    place.mkdir(parents=True, exist_ok=True)
    created = _CREATED.get()
    if created is not None:
        created.extend(reversed(missing))  # outermost first


@contextlib.contextmanager
def removed_if_refused(refused: Callable[[BaseException], bool] = lambda error: True) -> Iterator[None]:
    """Remove the folders created (by :func:`make_folders`, :func:`output_problem`) inside this
    block when it ends with an exception ``refused`` accepts (a command refused before any
    work), innermost first and each only if still empty: a refused command leaves no empty
    output folder behind, and never removes a folder that existed before or holds a file."""
    created: list[Path] = []
    token = _CREATED.set(created)
    try:
        yield
    except BaseException as error:
        if refused(error):
            for folder in reversed(created):
                with contextlib.suppress(OSError):  # a folder that is not empty stays
                    folder.rmdir()
            created.clear()
        raise
    finally:
        _CREATED.reset(token)
        outer = _CREATED.get()
        if outer is not None:
            outer.extend(created)  # an enclosing block removes them if it is refused
