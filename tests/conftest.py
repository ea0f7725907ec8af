import os
from pathlib import Path

import numpy as np
import pytest

from flashrepro.traces import Op, Trace

pytest_plugins = ["watchdog"]  # a test that hangs is stopped, with every thread's stack (tests/watchdog.py)

DATA = Path(__file__).parent / "data"

# The slowest test files (and nbval notebooks) of `make test`, slowest first: they are collected first, so
# pytest-xdist (--dist loadfile, which hands out whole files in collection order) starts them first and the
# workers end together, instead of one worker starting notebook 04's 30 s near the end while the other is done.
# A scheduling hint only: the order changes no test's outcome. A file not listed keeps its place after these.
SLOWEST_FIRST = ("04_2rpp.ipynb", "test_ftl_incremental.py", "test_ftl.py", "test_rerun.py", "test_clock_hbm.py",
                 "test_robustness_p4.py", "test_twor.py", "test_kernels.py", "test_site.py", "test_outputs_safety.py",
                 "03_clock_hbm.ipynb", "test_segment.py", "01_bs_clock.ipynb")


def pytest_collection_modifyitems(config, items):
    rank = {name: i for i, name in enumerate(SLOWEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))  # stable: the rest keep their order


def random_trace(seed: int, n: int = 3000, n_pages: int = 300, write_fraction: float = 0.4,
                 max_pages: int = 3) -> Trace:
    """Requests of 1..max_pages pages with a skewed page choice, some straddling page boundaries."""
    rng = np.random.default_rng(seed)
    hot = rng.random(n) < 0.5
    page = np.where(hot, rng.integers(0, max(n_pages // 10, 1), n), rng.integers(0, n_pages, n))
    inner = rng.integers(0, 8, n) * 512
    size = rng.integers(1, max_pages * 8 + 1, n) * 512
    op = np.where(rng.random(n) < write_fraction, Op.WRITE, Op.READ)
    return Trace(np.arange(n) * 1e-3, op, page * 4096 + inner, size, name=f"random-{seed}")


@pytest.fixture
def data_dir() -> Path:
    return DATA


@pytest.fixture
def isolated_interim(tmp_path, monkeypatch):
    """Point the parse cache at a temporary folder."""
    from flashrepro import paths

    monkeypatch.setattr(paths, "interim", tmp_path / "interim")
    return tmp_path / "interim"


def real_trace_dir() -> Path | None:
    for part in os.environ.get("FLASHREPRO_TRACE_DIRS", "").split(os.pathsep):
        if part and Path(part).is_dir():
            return Path(part)
    return None
