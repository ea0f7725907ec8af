"""tests/watchdog.py: a test that hangs is stopped at FLASHREPRO_TEST_TIMEOUT, and the run shows where it was."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).parent
# plugins the two runs do not need, whose imports (Jupyter's, for nbval) would be most of their time
NO_PLUGINS = [f"-pno:{p}" for p in ("cacheprovider", "nbval", "anyio", "hypothesispytest")]


@pytest.fixture
def hanging(tmp_path):
    (tmp_path / "conftest.py").write_text('pytest_plugins = ["watchdog"]\n')
    (tmp_path / "test_h.py").write_text("import time\n\n\ndef test_fine():\n    pass\n\n\n"
                                         "def test_stuck():\n    time.sleep(600)\n")
    return tmp_path


def _pytest(folder, *args):
    (folder / "tmp").mkdir(exist_ok=True)
    env = {**os.environ, "FLASHREPRO_TEST_TIMEOUT": "1", "TMPDIR": str(folder / "tmp"),
           "PYTHONPATH": os.pathsep.join([str(HERE), os.environ.get("PYTHONPATH", "")])}
    # if the watchdog did not stop the test, this run would take 600 s: subprocess's timeout fails the test first
    return subprocess.run([sys.executable, "-m", "pytest", "-q", *NO_PLUGINS, *args, "test_h.py"],
                          cwd=folder, env=env, capture_output=True, text=True, timeout=120)


def test_under_xdist_the_worker_ends_and_the_run_prints_its_stacks(hanging):
    p = _pytest(hanging, "-n", "1", "--max-worker-restart=0")
    assert p.returncode == 1, p.stdout + p.stderr
    assert "worker 'gw0' crashed while running 'test_h.py::test_stuck'" in p.stdout
    said = p.stdout.split("a test that hung, on worker gw0", 1)[1]
    assert said.splitlines()[1] == "test_h.py::test_stuck ran past 1 s (FLASHREPRO_TEST_TIMEOUT); every thread's stack:"
    assert 'test_h.py", line 9 in test_stuck' in said and "1 failed, 1 passed" in p.stdout
    assert list((hanging / "tmp").glob("flashrepro-hangs-*")) == []  # the controller removed its folder


def test_without_xdist_the_stacks_go_to_stderr(hanging):
    p = _pytest(hanging)
    assert p.returncode == 1
    assert p.stderr.startswith("Timeout (0:00:01)!") and 'test_h.py", line 9 in test_stuck' in p.stderr
