"""A pytest plugin (loaded by conftest.py): a test that runs past ``FLASHREPRO_TEST_TIMEOUT`` seconds (default
300, far longer than any test takes; 0 switches it off) is stopped, and the run says where it was.

Python's faulthandler watches each test from a C thread: at the limit it writes every thread's stack and ends
the process, which works even inside a compiled kernel or a blocking call, where no Python signal handler runs.
Under pytest-xdist a worker's stderr reaches no terminal, so each worker writes to its own file in a folder the
controller made, and the controller prints what is there at the end of the run; xdist reports the worker as
crashed on that test (the Makefile runs it with ``--max-worker-restart=0``, so the run then ends). In a run
without xdist the stacks go straight to stderr (without the test's name: pytest's own lines, still buffered, are
lost with the process). Without this, a hung test held CI until its 90-minute limit and
left no trace of which test it was."""

import faulthandler
import os
import shutil
import tempfile
from pathlib import Path

import pytest

FOLDER = "FLASHREPRO_TEST_HANGS"  # the environment variable naming the folder, set by the controller


def _limit() -> float:
    return float(os.environ.get("FLASHREPRO_TEST_TIMEOUT", "300"))


def pytest_configure(config):
    if _limit() <= 0:
        return
    worker = getattr(config, "workerinput", None)
    if worker is None and config.getoption("numprocesses", None):  # xdist's controller: a folder for its workers
        config._hang_folder = Path(tempfile.mkdtemp(prefix="flashrepro-hangs-"))
        os.environ[FOLDER] = str(config._hang_folder)
    elif worker is None:  # a run without xdist
        config._hang_file = open(os.dup(2), "w")  # noqa: SIM115  (stderr as it is before pytest captures it)
        config._hang_direct = True
    elif FOLDER in os.environ:  # a worker (of a controller that made the folder: one that loaded this plugin)
        config._hang_file = open(Path(os.environ[FOLDER]) / f"{worker['workerid']}.txt", "w")  # noqa: SIM115


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    out = getattr(item.config, "_hang_file", None)
    if out is None:
        yield
        return
    direct = getattr(item.config, "_hang_direct", False)
    if not direct:  # say which test, first: the stacks alone name only functions
        out.write(f"{item.nodeid} ran past {_limit():g} s (FLASHREPRO_TEST_TIMEOUT); every thread's stack:\n")
        out.flush()
    faulthandler.dump_traceback_later(_limit(), exit=True, file=out)
    try:
        yield
    finally:
        faulthandler.cancel_dump_traceback_later()
        if not direct:
            out.seek(0)
            out.truncate()


def pytest_terminal_summary(terminalreporter, config):
    folder = getattr(config, "_hang_folder", None)
    if folder is None:
        return
    for f in sorted(folder.glob("*.txt")):
        text = f.read_text(errors="replace")
        if text.strip():
            terminalreporter.section(f"a test that hung, on worker {f.stem}", sep="=", red=True)
            terminalreporter.write(text)


def pytest_unconfigure(config):
    folder = getattr(config, "_hang_folder", None)
    if folder is not None:
        shutil.rmtree(folder, ignore_errors=True)
        os.environ.pop(FOLDER, None)
