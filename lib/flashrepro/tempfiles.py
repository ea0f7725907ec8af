"""Temporaries next to outputs, and nothing left behind by a killed run.

Every table, figure and executed notebook is written to a hidden temporary next to its target and renamed
onto it only when complete (:func:`atomic_path`). The temporary's name carries the writer's process id,
``.<target name>.pid<pid>.<random><suffix>``, so a later run can tell a stale temporary (its writer is gone:
killed, or the machine rebooted) from one being written right now by a concurrent run (``make -j``), and
:func:`sweep` removes only the stale ones. Temporaries of the older, pid-less pattern (earlier versions:
``.<target name>.<8 random characters><suffix>``) are removed once they are older than ``OLD_AFTER_S``.

An exception or Ctrl-C (``KeyboardInterrupt``) removes the temporary on the way out (``finally``);
:func:`terminate_as_exit` turns SIGTERM into ``SystemExit`` (:class:`Terminated`) so that a ``kill`` does the
same. Only SIGKILL or a power cut can leave one behind, and the next run sweeps it.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import shutil
import signal
import time
from collections.abc import Iterator
from pathlib import Path

OLD_AFTER_S = 600.0
_OURS = re.compile(r"^\.(?P<name>.+)\.pid(?P<pid>\d+)\.[A-Za-z0-9_]{8}(?P<suffix>\.[^./]+)?$")
_OLD = re.compile(r"^\.(?P<name>.+?)\.[a-z0-9_]{8}(?P<suffix>\.[^./]+)$")


def temp_name(target: str | os.PathLike, suffix: str = "") -> Path:
    """A new name for a temporary next to ``target``: ``.<name>.pid<this process>.<8 random characters><suffix>``
    (:func:`sweep`'s pattern). Nothing is created: a caller creates it inside the ``try`` whose ``finally``
    removes it, so that no interrupt can land between its creation and its clean-up (``mkstemp`` and
    ``mkdtemp`` return after they create: a Ctrl-C in between left the temporary behind). Removing the
    name in that ``finally`` is safe even when creating it failed: no other live process has this pid."""
    target = Path(target)
    return target.parent / f".{target.name}.pid{os.getpid()}.{secrets.token_hex(4)}{suffix}"


@contextlib.contextmanager
def atomic_path(target: str | os.PathLike) -> Iterator[Path]:
    """Yield a temporary path next to ``target`` (named after this process); rename it onto ``target`` only
    on success, remove it on any failure or interrupt."""
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp_path = temp_name(target, target.suffix)
    try:
        with open(tmp_path, "xb"):
            pass
        yield tmp_path  # made by open(), so the result has the usual umask-based mode
        os.replace(tmp_path, target)
    finally:
        with contextlib.suppress(FileNotFoundError):
            tmp_path.unlink()


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's live process
        return True
    return True


def is_stale(path: Path, now: float | None = None) -> bool:
    """Whether ``path`` is a temporary of this package whose writer is gone."""
    m = _OURS.match(path.name)
    if m:
        return (m["suffix"] or "") == Path(m["name"]).suffix and not _alive(int(m["pid"]))
    m = _OLD.match(path.name)
    if m and m["name"].endswith(m["suffix"]):
        try:
            age = (now or time.time()) - path.stat().st_mtime
        except FileNotFoundError:
            return False
        return age > OLD_AFTER_S
    return False


def sweep(*folders: str | os.PathLike, recursive: bool = False) -> list[Path]:
    """Remove the stale temporaries (:func:`is_stale`: files, and the parse cache's temporary folders)
    directly in each folder (or below it, with ``recursive``); the paths removed."""
    removed = []
    now = time.time()
    for folder in folders:
        folder = Path(folder)
        if not folder.is_dir():
            continue
        for p in folder.rglob(".*") if recursive else folder.glob(".*"):
            if p.is_symlink() or not is_stale(p, now):
                continue
            if p.is_file():
                with contextlib.suppress(FileNotFoundError):
                    p.unlink()
                    removed.append(p)
            elif p.is_dir():  # a parse-cache entry being written (traces/store.py)
                shutil.rmtree(p, ignore_errors=True)
                removed.append(p)
    return removed


class Terminated(SystemExit):
    """Raised in the main thread when the process receives SIGTERM (code 143, 128 + the signal's number), so
    ``finally`` blocks run as they do for Ctrl-C; a command line can tell it from any other ``SystemExit``."""


def _raise_terminated(signum, frame):
    raise Terminated(128 + signum)


def terminate_as_exit() -> None:
    """Make SIGTERM raise :class:`Terminated` (a ``SystemExit(143)``) in the main thread, so ``finally`` blocks
    (and :func:`atomic_path`) clean up on a ``kill`` as they do on Ctrl-C. Does nothing outside the main thread
    or where a handler other than the default is already installed."""
    with contextlib.suppress(ValueError):  # not the main thread
        if signal.getsignal(signal.SIGTERM) in (signal.SIG_DFL, None):
            signal.signal(signal.SIGTERM, _raise_terminated)


@contextlib.contextmanager
def terminating_as_exit() -> Iterator[None]:
    """:func:`terminate_as_exit` for the duration of a block (a command run in-process, e.g. from a test),
    then the handler that was there before."""
    try:
        before = signal.getsignal(signal.SIGTERM)
        terminate_as_exit()
    except ValueError:  # not the main thread: signals are not ours to handle
        yield
        return
    try:
        yield
    finally:
        with contextlib.suppress(ValueError, TypeError):
            signal.signal(signal.SIGTERM, before if before is not None else signal.SIG_DFL)


@contextlib.contextmanager
def scratch(path: str | os.PathLike) -> Iterator[Path]:
    """A scratch file (e.g. a replay image) that is removed when the block ends, however it ends."""
    path = Path(path)
    try:
        yield path
    finally:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
