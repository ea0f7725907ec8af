"""The placement oracle (flashrepro.ftl.oracle): its tags, its two passes, and what it must do to GC."""

import numpy as np
import pytest
from test_ftl import skewed_writes

from flashrepro.ftl import FTL, ArrayStream, Geometry, run
from flashrepro.ftl import oracle as O
from flashrepro.traces.oltp import StatsTap, stream_stats


def test_tags_mark_each_pages_last_write_only():
    w = skewed_writes(7, 5000, 300)
    last = O.last_writes([w[:1234], w[1234:]], 400, prefill=350)
    for p in range(400):  # the last index in the stream, -1 for prefill-only pages, -2 for pages never written
        idx = np.flatnonzero(w == p)
        assert last[p] == (idx[-1] if len(idx) else (-1 if p < 350 else -2))
    tags = np.concatenate([O.final_write_kinds(w[:999], last), O.final_write_kinds(w[999:], last, pos=999)])
    want = [O.FINAL if not np.any(w[i + 1:] == w[i]) else 0 for i in range(len(w))]
    assert tags.tolist() == want
    t = O.FinalWrites(last)
    assert t.prefill(350).tolist() == [O.FINAL if last[p] == -1 else 0 for p in range(350)]
    assert np.concatenate([t(w[:100]), t(w[100:])]).tolist() == want
    # the statistics gathered for Figs. 1-2 carry the same last writes
    st = ArrayStream("s", w, 400, prefill=350)
    assert np.array_equal(stream_stats(st, chunk=777).last, last)


@pytest.mark.parametrize("trigger", ["reserve", "femu"])
def test_oracle_run_is_one_tagged_ftl_per_trigger(trigger):
    g = Geometry(16, 48, 600)
    w = np.concatenate([skewed_writes(3, 20000, 500), np.arange(500, 520)]).astype(np.int32)  # some pages freeze
    stream = ArrayStream("s", w, 600, prefill=600)
    r = O.run_oracle(stream, g, [trigger, "reserve"] if trigger == "femu" else [trigger], chunk=1001)
    f = FTL(g, O.ORACLE, trigger)
    last = O.last_writes([w], 600, 600)
    f.write(np.arange(600, dtype=np.int32), kinds=O.FinalWrites(last).prefill(600))
    f.reset_counters()
    f.write(w, kinds=O.final_write_kinds(w, last))
    row = r.slices.filter(trigger=trigger, slice=10).row(0, named=True)
    assert all(row[k] == v for k, v in f.counters.items())
    # frozen lines never lose a page, so GC never takes one: no copy out of the final frontier
    assert f.copies()[2].sum() == 0
    st = f.state
    cold = np.flatnonzero(st.kind == 2)
    assert len(cold) > 0 and np.all(st.valid[cold[st.status[cold] == 2]] == g.pages_per_line)
    # every page whose last write the oracle saw sits in a final line
    frozen = np.flatnonzero(last >= -1)
    assert np.all(st.kind[st.l2p[frozen] // g.pages_per_line] == 2)
    # with last known from another pass (the Figs. 1-2 statistics), the same run
    tap = StatsTap(stream)
    tap(w)
    r2 = O.run_oracle(stream, g, [trigger], last=tap.stats().last, chunk=4096)
    assert r2.slices.filter(trigger=trigger).equals(r.slices.filter(trigger=trigger))


def test_oracle_separation_beats_one_stream_when_pages_freeze():
    """On a stream where most pages are written once, between writes of a few hot pages, separating the
    final writes must copy far less than greedy on one stream (what the oracle is for)."""
    rng = np.random.default_rng(1)
    n_pages = 2000
    hot = rng.integers(0, 200, 30000)
    mixed = np.stack([hot[:1800], np.arange(200, n_pages)], axis=1).ravel()  # each frozen page between hot writes
    w = np.concatenate([np.arange(200), mixed, hot[1800:]]).astype(np.int32)
    g = Geometry.for_logical(n_pages, 16, 0.15)
    stream = ArrayStream("s", w, n_pages)
    o = O.run_oracle(stream, g, ["reserve"]).slices.filter(slice=10)
    greedy = run(stream, ["greedy"], g, progress=False).slices.filter(slice=10)

    def waf(d):
        r = d.row(0, named=True)
        return (r["host_writes"] + sum(v for k, v in r.items() if k.startswith("copy_"))) / r["host_writes"]

    assert waf(o) < waf(greedy) and waf(o) < 1.2


def test_per_policy_triggers_equal_separate_runs():
    g = Geometry(16, 48, 600)
    w = skewed_writes(5, 15000, 600)
    stream = ArrayStream("s", w, 600, prefill=600)
    both = run(stream, ["2r", "2r"], g, trigger=["femu", "reserve"], progress=False)
    for t in ("femu", "reserve"):
        one = run(stream, ["2r"], g, trigger=t, progress=False)
        assert both.slices.filter(trigger=t).drop("trigger").equals(one.slices)
        assert np.array_equal(both.erase_counts[f"2r@{t}"], one.erase_counts["2r"])
    with pytest.raises(ValueError, match="under one trigger"):
        run(stream, ["2r", "2r"], g, trigger=["femu", "femu"], progress=False)
    with pytest.raises(ValueError, match="kinds"):
        FTL(g, "greedy").write(np.arange(4, dtype=np.int32), kinds=np.array([0, 1, 3, 0], np.int8))


def test_the_oracle_family_runs_every_victim_rule_in_one_pass():
    g = Geometry(16, 48, 600)
    w = skewed_writes(6, 12000, 600)
    stream = ArrayStream("s", w, 600, prefill=600)
    pols = O.policies(threshold=0.3)
    assert [p.name for p in pols] == [f"oracle/{v}" for v in O.VICTIMS]
    assert pols[2].threshold == 0.3 and all(p.copy_dest == O.ORACLE.copy_dest for p in pols)
    r = O.run_oracle(stream, g, ["femu", "reserve"], policy=pols, chunk=999)
    assert r.slices.filter(slice=10).select("policy", "trigger").rows() == [
        (p.name, t) for t in ("femu", "reserve") for p in pols]
    for p in pols:  # each equals the oracle run alone
        one = O.run_oracle(stream, g, ["reserve"], policy=p)
        assert r.slices.filter(policy=p.name, trigger="reserve").equals(one.slices)
