"""The faster data paths against plain versions of the same computation, value for value.

* the PCMark05 models' request loops (Numba, drawing from the same Generator) against the Python loops;
* simulate()'s I/O log (one pass into columns, the log buffer kept between runs) against the strided
  copies and ``Units.pages``, and its device-time selections against masks recomputed per model.
"""

import dataclasses
import importlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from flashrepro import devices
from flashrepro.cache import contract as C
from flashrepro.cache import simulate
from flashrepro.devices import CARDS, CURVES, bandwidth, io_time
from flashrepro.traces import Op, Trace, synthetic
from flashrepro.traces.pcmark import BLOCK, MODELS, _layout, generate


# --- the PCMark05 models: plain Python loops beside the Numba ones --------------------------------------------
def _plain_generate(m, seed, n_requests=None):
    """generate() written plainly: the same draws, one Python call each."""
    rng = np.random.default_rng([seed, 2011])
    start, size = _layout(m, rng)
    if m.kind in ("loading", "startup", "scan"):
        order = np.arange(m.n_files)
        if m.kind != "scan":
            groups = np.array_split(order, max(1, m.n_files // m.files_per_group))
            order = np.concatenate([groups[g] for g in rng.permutation(len(groups))])
        sizes = np.array(m.seq_request_kib) * 1024 // BLOCK
        reads = []
        for f in order:
            pos, end = int(start[f]), int(start[f] + size[f])
            while pos < end:
                n = min(int(rng.choice(sizes)), end - pos)
                reads.append((pos, n))
                pos += n
        n = len(reads)
        n_w = int(round(n * m.write_share / (1 - m.write_share))) if m.write_share else 0
        log_base = int(start[-1] + size[-1]) + 4096
        w_pos = log_base + (rng.zipf(1.5, n_w) - 1) % m.log_blocks
        w_len = rng.integers(1, 3, n_w)
        is_w = np.zeros(n + n_w, bool)
        is_w[rng.choice(n + n_w, n_w, replace=False)] = True
        first, length = np.empty(n + n_w, np.int64), np.empty(n + n_w, np.int64)
        first[~is_w] = [r[0] for r in reads]
        length[~is_w] = [r[1] for r in reads]
        first[is_w], length[is_w] = w_pos, w_len
        writes_at = is_w
    else:
        p = 1.0 / np.arange(1, m.n_files + 1) ** m.zipf_s
        p /= p.sum()
        rank_to_file = rng.permutation(m.n_files)
        target = m.requests if n_requests is None else min(n_requests, m.requests)
        first_l, length_l, w_l = [], [], []
        while len(first_l) < target:
            f = rank_to_file[rng.choice(m.n_files, p=p)]
            pos = int(start[f] + rng.integers(0, size[f]))
            for _ in range(1 + int(rng.geometric(1 / m.run_requests))):
                n = int(rng.integers(1, 5))
                if pos + n > start[f] + size[f] or rng.random() > m.p_continue:
                    pos = int(start[f] + rng.integers(0, size[f]))
                    n = min(n, int(start[f] + size[f] - pos))
                first_l.append(pos)
                length_l.append(n)
                w_l.append(rng.random() < m.write_share)
                pos += n
        first, length, writes_at = np.array(first_l), np.array(length_l), np.array(w_l)
    if n_requests is not None:
        first, length, writes_at = first[:n_requests], length[:n_requests], writes_at[:n_requests]
    return first * BLOCK, length * BLOCK, np.where(writes_at, Op.WRITE, Op.READ).astype(np.int8)


@pytest.mark.parametrize("name,changes", [
    ("T1-general-usage", {"requests": 3000}), ("T1-general-usage", {"requests": 3000, "p_continue": 0.95,
                                                                   "zipf_s": 0.6, "run_requests": 40}),
    ("T2-application-loading", {"n_files": 300}), ("T2-application-loading", {"n_files": 200,
                                                                              "seq_request_kib": (64, 128)}),
    ("T3-xp-startup", {"n_files": 400}), ("T4-virus-scan", {"n_files": 300})])
@pytest.mark.parametrize("seed", [0, 5])
def test_pcmark_models_draw_what_the_python_loops_drew(name, changes, seed):
    m = dataclasses.replace(MODELS[name], **changes)
    for n in (None, 1000):
        tr = generate(m, seed, n_requests=n)
        off, size, op = _plain_generate(m, seed, n_requests=n)
        assert np.array_equal(tr.offset_bytes, off) and np.array_equal(tr.size_bytes, size)
        assert np.array_equal(tr.op, op)


# --- the I/O log ----------------------------------------------------------------------------------------------
POLICIES = ["lru", "clock_hbm", "seg_prefetch", "bs_clock", "lru_flush", "linux_readahead", "write_once"]


def _columns_by_copies(trace, policy, capacity, **kw):
    """The log's columns built the plain way (strided copies, Units.pages)."""
    from flashrepro.cache.registry import get_policy, make_params
    from flashrepro.cache.simulate import Simulator

    refs = trace.to_pages()
    p = make_params(policy)
    pol = get_policy(policy)
    halo = pol.kernel.unit_halo(p, refs.page_bytes)
    units, _ = refs.units(pol.kernel.unit_pages(p, refs.page_bytes), halo)
    sim = Simulator(policy, units, C.resolve_tiers(p, capacity), p, log_io=True, **kw)
    sim.log = C.new_log(0, True)[:0]  # its own log, grown from nothing
    events = pol.caps.flushes and refs.events is not None
    index = []
    for part, idx in refs.stream(units.unit_pages, events=events, halo=halo):
        sim.feed(part)
        index.append(idx)
    sim.finish()
    rows = sim.log_rows()
    pos = rows[:, 0]
    if events:
        idx = np.concatenate(index)
        ref = np.where(pos >= 0, idx[np.maximum(pos, 0)], -1)
        ev_num = np.cumsum(idx < 0) - 1
        ev_req = refs.events.req[np.maximum(ev_num[np.maximum(pos, 0)], 0)]
        req = np.where(ref >= 0, refs.req[np.maximum(ref, 0)], ev_req)
    else:
        ref, req = pos.copy(), refs.req[pos]
    return {"ref": ref, "req": req, "op": rows[:, 1].astype(np.int8), "cause": rows[:, 2].astype(np.int8),
            "first_page": units.pages(rows[:, 3]), "n_pages": rows[:, 4].copy(),
            "tier": rows[:, 5].astype(np.int8)}


def _file_trace(seed):
    rng = np.random.default_rng(seed)
    n = 3000
    op = rng.choice([Op.READ, Op.WRITE, Op.SYNC], n, p=[0.5, 0.45, 0.05]).astype(np.int8)
    file = rng.integers(0, 4, n).astype(np.int32)
    off = (file.astype(np.int64) << 32) + rng.integers(0, 400, n) * 4096
    return Trace(np.arange(n) * 0.01, op, off, np.where(op == Op.SYNC, 0, rng.integers(1, 4, n) * 4096),
                 name="files", file=file)


@pytest.mark.parametrize("policy", POLICIES)
def test_log_columns_equal_the_strided_copies(policy):
    for tr in (synthetic.zipf(3000, 20_000, 0.9, seed=1, write_fraction=0.3), _file_trace(2)):
        for cap in (50, 700):
            for flush in (False, True):
                res = simulate(tr, policy, cap, log_io=True, flush_at_end=flush)
                want = _columns_by_copies(tr, policy, cap, flush_at_end=flush)
                for name, a in want.items():
                    got = getattr(res.io_log, name)
                    assert got.dtype == a.dtype and np.array_equal(got, a), (policy, cap, flush, name)


def test_a_kept_log_buffer_never_leaks_into_a_result():
    """Runs one after another (each starting in the buffer the last one left) give what a run alone gives,
    and no result's column shares memory with the buffer the next run writes into."""
    tr = synthetic.zipf(5000, 30_000, 0.8, seed=3, write_fraction=0.4)
    first = simulate(tr, "lru", 64, log_io=True)
    runs = [simulate(tr, p, c, log_io=True) for p in ("clock", "lru", "cflru") for c in (64, 512)]
    again = simulate(tr, "lru", 64, log_io=True)
    for name in ("ref", "req", "op", "cause", "first_page", "n_pages", "tier"):
        assert np.array_equal(getattr(first.io_log, name), getattr(again.io_log, name))
    sim_module = importlib.import_module("flashrepro.cache.simulate")  # (the package exports the function)
    assert sim_module._spare_logs  # the last run left its buffer
    for spare in sim_module._spare_logs:
        for r in [first, again, *runs]:
            for name in ("ref", "req", "op", "cause", "first_page", "n_pages", "tier"):
                assert not np.shares_memory(getattr(r.io_log, name), spare)


def _io_time_by_masks(log, card):
    w = log.device & (log.op == 1)
    r = log.device & (log.op == 0)
    ws, rs = float(card.write_time(log.n_pages[w]).sum()), float(card.read_time(log.n_pages[r]).sum())
    return {"write_s": ws, "read_s": rs, "io_s": ws + rs, "write_requests": int(w.sum()),
            "pages_written": int(log.n_pages[w].sum()), "read_requests": int(r.sum())}


def _bandwidth_by_masks(log, trace, curve):
    size = log.n_pages * log.page_bytes
    rd, wr = log.device & (log.op == 0), log.device & (log.op == 1)
    read_s, write_s = float(curve.time(size[rd]).sum()), float(curve.time(size[wr]).sum())
    rb, wb = int(trace.size_bytes[trace.op == 0].sum()), int(trace.size_bytes[trace.op == 1].sum())
    return {"read_s": read_s, "write_s": write_s, "read_requests": int(rd.sum()), "write_requests": int(wr.sum()),
            "read_mb_s": rb / read_s / 1e6 if read_s else float("inf"),
            "all_mb_s": (rb + wb) / (read_s + write_s) / 1e6 if read_s + write_s else float("inf")}


@settings(max_examples=25, deadline=None)
@given(st.sampled_from(["lru", "clock_hbm", "clock_dnv", "bs_clock", "seg_cull_adaptive"]), st.integers(8, 400),
       st.integers(0, 10_000))
def test_device_time_is_the_sum_over_the_masked_rows(policy, capacity, seed):
    tr = synthetic.mixture(synthetic.Mixture(n_pages=4000, hot_pages=300), 3000, seed=seed)
    res = simulate(tr, policy, capacity, log_io=True, flush_at_end=True)
    for card in CARDS.values():
        assert io_time(res.io_log, card) == _io_time_by_masks(res.io_log, card)
    for curve in CURVES.values():
        assert bandwidth(res.io_log, tr, curve) == _bandwidth_by_masks(res.io_log, tr, curve)
    got = devices.device_time(res, tr)
    assert got["time_ssd_s"] == (_bandwidth_by_masks(res.io_log, tr, CURVES["U16-sqrt"])["read_s"]
                                 + _bandwidth_by_masks(res.io_log, tr, CURVES["U16-sqrt"])["write_s"])
    assert all(got[f"time_{n}_s"] == _io_time_by_masks(res.io_log, c)["io_s"] for n, c in CARDS.items())


@settings(max_examples=25, deadline=None)
@given(st.sampled_from(POLICIES), st.integers(8, 400), st.booleans(), st.integers(0, 10_000))
def test_a_device_log_holds_the_full_logs_device_pages(policy, capacity, flush, seed):
    """log_io="device" keeps what the full log's device_pages select, masked plainly from its columns, on a
    trace with syncs (events) and on one without; the counters and device_time are the same, to the bit."""
    tr = (_file_trace(seed) if seed % 2 else
          synthetic.mixture(synthetic.Mixture(n_pages=4000, hot_pages=300), 3000, seed=seed))
    full = simulate(tr, policy, capacity, log_io=True, flush_at_end=flush)
    dev = simulate(tr, policy, capacity, log_io="device", flush_at_end=flush)
    assert dev.counters == full.counters and dev.outcome is None
    log = full.io_log
    for op in (0, 1):
        got = dev.io_log.device_pages(op)
        want = log.n_pages[(log.cause != C.MIGRATION) & (log.op == op)]
        assert got.dtype == want.dtype and np.array_equal(got, want) and not got.flags.writeable
    assert dev.io_log.page_bytes == log.page_bytes
    assert devices.device_time(dev, tr) == devices.device_time(full, tr)


def test_a_device_log_refuses_what_it_did_not_keep():
    tr = synthetic.zipf(500, 3000, 0.9, seed=1, write_fraction=0.3)
    dev = simulate(tr, "lru", 50, log_io="device")
    with pytest.raises(AttributeError, match="log_io=True"):
        _ = dev.io_log.first_page
    with pytest.raises(ValueError, match="op must be"):
        dev.io_log.device_pages(2)
    with pytest.raises(ValueError, match="log_io must be"):
        simulate(tr, "lru", 50, log_io="columns")


def test_a_sweep_keeps_only_the_log_its_metrics_read():
    from flashrepro import sweep

    def whole(res, trace):
        return {"first": int(res.io_log.first_page[0])}

    assert sweep.log_for(()) is False
    assert sweep.log_for((devices.device_time,)) == "device"
    assert sweep.log_for((devices.device_time, whole)) is True
    tr = synthetic.zipf(500, 3000, 0.9, seed=1, write_fraction=0.3)
    a = sweep.run(["lru", "clock_hbm"], [tr], [40, 200], flush_at_end=True, metrics=(devices.device_time,))

    def device_time_of_the_whole_log(res, trace):  # the same metric, without the attribute: the whole log
        assert isinstance(res.io_log, type(full_log))
        return devices.device_time(res, trace)

    full_log = simulate(tr, "lru", 40, log_io=True).io_log
    assert sweep.log_for((device_time_of_the_whole_log,)) is True
    b = sweep.run(["lru", "clock_hbm"], [tr], [40, 200], flush_at_end=True, metrics=(device_time_of_the_whole_log,))
    assert not a.failures and not b.failures
    assert a.table.drop("seconds", "key").equals(b.table.drop("seconds", "key"))  # (the key names the metric)


# --- inverse-CDF draws (every Zipf model) ----------------------------------------------------------------------
@settings(max_examples=60, deadline=None)
@given(st.integers(1, 3000), st.floats(0, 2.5), st.integers(0, 2**32 - 1), st.booleans(),
       st.sampled_from([1.0, 3.0, 1e-3, 12345.678]))
def test_inverse_cdf_is_searchsorted(n_items, alpha, seed, holes, total):
    """Normalised or not (``total``), with repeated values, at the CDF's values and the guide's edges and just
    below them (where ``x * m / total`` may round up into the next bucket)."""
    from flashrepro.traces.synthetic import Guide, inverse_cdf

    rng = np.random.default_rng(seed)
    w = np.arange(1, n_items + 1, dtype=np.float64) ** -alpha
    if holes:  # items that are never drawn: repeated CDF values
        w[rng.random(n_items) < 0.3] = 0.0
        w[0] = max(w[0], 1.0)
    cdf = np.cumsum(w)
    cdf = cdf / cdf[-1] * total
    edges = Guide(cdf).edges
    u = np.concatenate([rng.random(2000) * total, cdf[:50], np.nextafter(cdf[:50], 0), np.arange(200) / 200 * total,
                        edges, np.nextafter(edges, 0), np.nextafter(edges, np.inf), [0.0]])
    u = u[(u >= 0) & (u < total)]
    want = np.minimum(np.searchsorted(cdf, u, side="right"), n_items - 1)
    assert np.array_equal(inverse_cdf(cdf, u), want)


# --- ranks and distinct pages by stable sorts ------------------------------------------------------------------
@settings(max_examples=60, deadline=None)
@given(st.integers(1, 4000), st.integers(0, 2**32 - 1), st.sampled_from([10, 1 << 20, 1 << 50]))
def test_ranks_and_distinct_pages_are_np_unique(n, seed, span):
    from flashrepro.traces.trace import dense_remap, sorted_unique

    rng = np.random.default_rng(seed)
    runs = np.concatenate([s + np.arange(k) for s, k in zip(rng.integers(0, span, n // 8 + 1),
                                                            rng.integers(1, 40, n // 8 + 1), strict=True)])
    page = np.concatenate([runs, rng.integers(0, span, n), runs[: n // 3]])  # ascending runs, repeats
    rank, uniq = dense_remap(page)
    u2, inv = np.unique(page, return_inverse=True)
    assert np.array_equal(uniq, u2) and np.array_equal(rank, inv) and rank.dtype == np.int64
    assert np.array_equal(sorted_unique(page), u2)
