import os
from pathlib import Path

import numpy as np
import pytest

from flashrepro.traces import Op, Trace

DATA = Path(__file__).parent / "data"


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
