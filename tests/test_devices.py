"""Flash cost models: the calibration reproduces Fig. 2 exactly and nothing else is tuned."""

import numpy as np
import pytest

from flashrepro.cache import simulate
from flashrepro.devices import CARDS, calibrate_card, io_time
from flashrepro.traces import synthetic


@pytest.mark.parametrize("card,reduction", [("samsung", 0.35), ("sandisk", 0.775)])
def test_fig2_reduction_is_reproduced(card, reduction):
    c = CARDS[card]
    t4k, t1m = c.bulk_write_time(64 * 2**20, [4096, 2**20])
    assert 1 - t1m / t4k == pytest.approx(reduction, abs=1e-12)
    assert 2**20 / c.write_time(256) == pytest.approx(10e6)  # class 10 at 1 MiB requests
    assert c.write_request_s > 0 and c.write_page_s > 0


def test_impossible_reduction_is_refused():
    with pytest.raises(ValueError, match="affine"):
        calibrate_card("x", 0.999)


def test_time_per_page_falls_monotonically_with_request_size():
    for c in CARDS.values():
        sizes = 2 ** np.arange(12, 23)
        per_byte = c.bulk_write_time(2**26, sizes) / 2**26
        assert np.all(np.diff(per_byte) < 0)


def test_io_time_sums_the_log():
    tr = synthetic.zipf(5000, 20000, 0.9, seed=3, write_fraction=0.5)
    res = simulate(tr, "bs_clock", 256, log_io=True)
    c = CARDS["sandisk"]
    t = io_time(res.io_log, c)
    w = res.io_log.op == 1
    manual = sum(c.write_request_s + c.write_page_s * n for n in res.io_log.n_pages[w])
    assert t["write_s"] == pytest.approx(manual)
    assert t["pages_written"] == res.counters["device_writes_eviction"]
    assert t["write_requests"] == res.counters["device_write_requests"]
    assert t["read_requests"] == res.counters["device_reads"]
