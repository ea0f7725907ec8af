"""Paper 2's PCMark05 stand-in models: seeded, and their read shares are the published ones."""

import dataclasses

import numpy as np
import pytest

from flashrepro.traces import Op
from flashrepro.traces.pcmark import MODELS, generate, repeated


@pytest.mark.parametrize("name,share", [("T2-application-loading", 0.83), ("T3-xp-startup", 0.90),
                                        ("T4-virus-scan", 1.0)])
def test_read_shares_are_the_calibration_targets(name, share):
    tr = generate(MODELS[name], seed=3)
    assert np.mean(tr.op == Op.READ) == pytest.approx(share, abs=0.002)


def test_models_are_seeded_and_sequential_reads_cover_each_file_once():
    m = dataclasses.replace(MODELS["T4-virus-scan"], n_files=50)
    a, b = generate(m, 1), generate(m, 1)
    assert np.array_equal(a.offset_bytes, b.offset_bytes) and not np.array_equal(a.offset_bytes,
                                                                                   generate(m, 2).offset_bytes)
    pages = a.to_pages().page
    assert len(np.unique(pages)) == len(pages)  # every block read exactly once
    assert np.all(a.size_bytes <= 64 * 1024)


def test_large_requests_and_repetition():
    m = dataclasses.replace(MODELS["T2-application-loading"], n_files=40, seq_request_kib=(64, 128))
    tr = generate(m, 0)
    reads = tr.size_bytes[tr.op == Op.READ]
    assert reads.max() <= 128 * 1024 and np.median(reads) >= 64 * 1024
    x3 = repeated(tr, 3)
    assert len(x3) == 3 * len(tr) and np.all(np.diff(x3.time_s) > 0)
    assert np.array_equal(x3.offset_bytes[len(tr):2 * len(tr)], tr.offset_bytes)
