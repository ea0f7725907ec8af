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


def test_ssd_read_curves_meet_fig4s_two_facts():
    from flashrepro.devices import CURVES

    for curve in (c for c in CURVES.values() if not c.bus_mb_s):
        t = curve.time(np.array([4, 8, 16, 64, 256]) * 1024)
        assert t[0] == t[1] == curve.t0_s  # flat up to the operating unit
        assert t[4] / t[3] == pytest.approx(2.0)  # 4x the size from 64 to 256 KiB: 2x the time
    s, a = CURVES["U16-sqrt"], CURVES["U16-affine"]
    assert s.time(32 * 1024) != a.time(32 * 1024)  # the two shapes differ between the facts


def test_a_bus_floor_binds_only_where_the_bytes_take_longer():
    from flashrepro.devices import CURVES, ReadCurve

    bus = CURVES["U16-sqrt-bus300"]
    assert bus.time(16 * 1024) == CURVES["U16-sqrt"].time(16 * 1024)  # 55 us on the bus < t0 = 100 us
    assert bus.time(256 * 1024) == pytest.approx(256 * 1024 / 300e6)  # 874 us > 4 t0
    # the floor consistent with Fig. 4's second fact: t0 >= 256 KiB / 4 / 300 MB/s, and then it never binds
    t0 = 256 * 1024 / 4 / 300e6
    ok = ReadCurve("x", 16, "sqrt", t0_s=t0, bus_mb_s=300.0)
    sizes = np.array([4, 16, 64, 128, 256]) * 1024
    assert np.allclose(ok.time(sizes), ReadCurve("y", 16, "sqrt", t0_s=t0).time(sizes))


def test_bandwidth_counts_requested_bytes_over_device_time():
    from flashrepro.cache import simulate
    from flashrepro.devices import CURVES, bandwidth
    from flashrepro.traces import Trace

    # two 4 KiB reads of the same page: one device read, one hit
    tr = Trace([0, 1], [0, 0], [0, 0], [4096, 4096])
    res = simulate(tr, "lru", 4, log_io=True)
    bw = bandwidth(res.io_log, tr, CURVES["U16-sqrt"])
    assert bw["read_requests"] == 1 and bw["read_s"] == pytest.approx(100e-6)
    assert bw["read_mb_s"] == pytest.approx(8192 / 100e-6 / 1e6)
