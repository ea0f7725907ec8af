"""The incremental victim rules (issue 22) against the rules that walk every closed line on each pick
(``scan_rules_ftl.py``): the same victims, write by write, on streams and geometries far larger than the
plain-Python reference of ``test_ftl.py`` covers, plus properties of the structures they read (the age
lists, slots and the cost-benefit watch) that hypothesis draws."""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scan_rules_ftl import scan_rule

from flashrepro.ftl import FTL, POLICIES, TRIGGERS, GCTrigger, Geometry
from flashrepro.ftl import _kernel as K


def skewed(seed, n, logical, hot=0.05, hot_share=0.7):
    """A hot set, a uniform rest, and runs of sequential writes (which close lines with many valid pages and
    fill whole lines that later empty: empty lines, lines under any threshold, full lines at the FIFO's
    front)."""
    rng = np.random.default_rng(seed)
    n_hot = max(1, int(logical * hot))
    w = np.where(rng.random(n) < hot_share, rng.integers(0, n_hot, n), rng.integers(0, logical, n))
    for start in rng.integers(0, n - 500, max(1, n // 5000)):
        first = rng.integers(0, logical - 400)
        w[start:start + 400] = np.arange(first, first + 400)
    return w.astype(np.int32)


TRIGGERS_ = [TRIGGERS["reserve"], TRIGGERS["femu"],
             TRIGGERS["femu"].with_(name="femu-choosy", background_min_invalid=0.6),
             GCTrigger("reserve+background", background_free=0.3, background_min_invalid=0.3)]
POLICIES_ = [POLICIES["cost-benefit"], POLICIES["cost-benefit"].with_(copy_dest=(2, 2, 2), stop="invalid"),
             POLICIES["cost-benefit"].with_(stop="valid", select="interleaved"),
             POLICIES["fifo"], POLICIES["fifo"].with_(stop="valid", max_victims=3),
             POLICIES["2r"], POLICIES["2r++"], POLICIES["2r"].with_(fallback="fifo"),
             POLICIES["2r++"].with_(fallback="global", cursor="resume", threshold=0.2),
             POLICIES["2r"].with_(recent_fraction=0.0, cursor="resume", threshold=0.6),
             POLICIES["2r++"].with_(select="interleaved", threshold=0.7), POLICIES["2r"].with_(threshold=0.0)]
# P small and L large (many lines per valid count, slots compacted often); P large (long age lists to walk,
# a long watch horizon); a geometry where a few writes per line close and reopen lines fast
GEOMETRIES_ = [Geometry(16, 160, 16 * 160 * 4 // 5), Geometry(256, 40, 256 * 40 * 3 // 4), Geometry(64, 64, 3000)]


def run_pair(policy, trigger, g, w, chunks=7):
    """The policy's incremental rule and its scan twin on the same writes, in chunks; both FTLs."""
    new, old = FTL(g, policy, trigger), FTL(g, policy, trigger)
    old._pick = scan_rule(policy.victim)
    logs = []
    for f in (new, old):
        victims = np.zeros(len(w), np.int32)
        copies = np.zeros(len(w), np.int32)
        f.write(np.arange(g.logical_pages, dtype=np.int32))
        pos = 0
        for part in np.array_split(w, chunks):
            f.write(part, copies[pos:pos + len(part)], victims)
            pos += len(part)
        logs.append((victims[:min(len(w), int(f.state.sc[0].nlog_v))].tolist(), copies.tolist()))
    return new, old, logs


@pytest.mark.parametrize("g", GEOMETRIES_, ids=lambda g: f"P{g.pages_per_line}-L{g.n_lines}")
@pytest.mark.parametrize("trigger", TRIGGERS_, ids=lambda t: t.name)
@pytest.mark.parametrize("policy", POLICIES_, ids=lambda p: f"{p.victim}-{p.stop}-{p.fallback}-{p.threshold}-"
                         f"{p.select}-{p.cursor}-{p.recent_fraction}-{p.copy_dest}")
def test_incremental_rule_chooses_as_the_scan(policy, trigger, g):
    if trigger.forced_free is not None and int(trigger.forced_free * g.n_lines) < 1:
        pytest.skip("FEMU's forced threshold keeps no line on this geometry")
    w = skewed(g.n_lines, 20 * g.logical_pages, g.logical_pages)
    new, old, (a, b) = run_pair(policy, trigger, g, w)
    new.check()
    assert a == b
    assert new.counters == old.counters
    assert np.array_equal(new.state.erase_count, old.state.erase_count)
    assert np.array_equal(new.state.l2p, old.state.l2p)
    assert new.counters["gc_passes"] > 200


def test_the_comparison_reaches_every_case():
    """Over the cases above, 2R's scans took lines under the threshold, fell back (each way) and fell back
    globally, and cost-benefit took empty lines, skipped background passes on a watch and re-chose."""
    seen = dict.fromkeys(["fallbacks", "global_fallbacks", "skipped_background_gc"], 0)
    g = GEOMETRIES_[0]
    w = skewed(g.n_lines, 60_000, g.logical_pages)
    for policy in POLICIES_:
        for trigger in TRIGGERS_:
            f = FTL(g, policy, trigger)
            f.write(np.arange(g.logical_pages, dtype=np.int32))
            f.write(w)
            for k in seen:
                seen[k] += f.counters[k]
    assert all(v > 0 for v in seen.values()), seen


def _score(s, P, ln, now):
    v = int(s.valid[ln])
    return Fraction(10**30) if v == 0 else Fraction((now - int(s.close_time[ln])) * (P - v), 2 * v)


def _best(s, P, now, candidates):
    return max(candidates, key=lambda ln: (_score(s, P, ln, now), -int(s.close_seq[ln])))


@settings(max_examples=60, deadline=None)
@given(P=st.integers(4, 40), L=st.integers(24, 60), fill=st.floats(0.5, 0.8), seed=st.integers(0, 2**16),
       n=st.integers(200, 6000), choosy=st.floats(0.05, 0.8))
def test_cost_benefit_watch_holds_while_it_says_so(P, L, fill, seed, n, choosy):
    """Whenever cost-benefit's watch is on, its line is the best now and stays the best until the watch's
    end unless a line changes; and no closed line beyond its valid count's threshold (``watch[v]``) could
    overtake it before then, whatever it lost since (the leads of lines with fewer valid pages only grow,
    of the others only shrink, so the two ends of the window decide)."""
    g = Geometry(P, L, max(1, min(int(P * L * fill), (L - 6) * P)))
    f = FTL(g, "cost-benefit", TRIGGERS["femu"].with_(background_min_invalid=choosy))
    w = np.random.default_rng(seed).integers(0, g.logical_pages, n).astype(np.int32)
    for part in np.array_split(w, 5):
        f.write(part)
        f.check()
        s = f.state
        now = int(s.sc[0].clock)
        if not s.sc[0].watch_ok or now >= s.sc[0].watch_until:
            continue
        b = int(s.sc[0].watch_line)
        watch = K.unpack_order(s)["watch"]
        closed = np.flatnonzero(s.status == K.CLOSED)
        cands = [int(x) for x in closed if s.valid[x] < P]
        until = int(s.sc[0].watch_until)
        assert _best(s, P, now, cands) == b
        assert _best(s, P, until - 1, cands) == b
        for x in closed:
            for v in range(int(s.valid[x]) + 1):  # x with any count it could drop to, keeping its close time
                if x == b or v == P or s.close_time[x] <= watch[v]:
                    continue
                for t in (now, until - 1):
                    sx = Fraction(10**30) if v == 0 else Fraction((t - int(s.close_time[x])) * (P - v), 2 * v)
                    sb = _score(s, P, b, t)
                    assert sx < sb or (sx == sb and s.close_seq[x] > s.close_seq[b]), (x, v, t)


@settings(max_examples=60, deadline=None)
@given(P=st.integers(2, 24), L=st.integers(20, 48), fill=st.floats(0.3, 0.85), seed=st.integers(0, 2**16),
       n=st.integers(0, 5000), policy=st.sampled_from(POLICIES_), trigger=st.sampled_from(TRIGGERS_),
       cuts=st.integers(1, 9))
def test_structures_are_exact_after_every_chunk(P, L, fill, seed, n, policy, trigger, cuts):
    """The age lists, slots and their bitsets (``FTL.check``) after chunks of any size, small devices whose
    slots are renumbered often, and the scan twin choosing the same victims."""
    g = Geometry(P, L, max(1, min(int(P * L * fill), (L - 6) * P)))
    w = np.random.default_rng(seed).integers(0, g.logical_pages, n).astype(np.int32)
    new, old = FTL(g, policy, trigger), FTL(g, policy, trigger)
    old._pick = scan_rule(policy.victim)
    logs = [np.zeros(4 * n + 8, np.int32) for _ in range(2)]
    for part in np.array_split(w, cuts):
        for f, log in zip((new, old), logs, strict=True):
            f.write(part, log_victims=log)
        new.check()
    assert new.counters == old.counters and np.array_equal(logs[0], logs[1])


@pytest.mark.parametrize("trigger", [TRIGGERS["reserve"], TRIGGERS["femu"]], ids=lambda t: t.name)
@pytest.mark.parametrize("policy", [POLICIES["cost-benefit"], POLICIES["2r"]], ids=lambda p: p.name)
def test_age_rows_exact_over_many_words(policy, trigger):
    """More than 2048 lines: a row's bitset has more than 64 words (4096 slots), so finding a row's next
    earliest-closed line crosses every level of the bitset (sync_ages searches it in place); the rows checked
    after every chunk, and the scan twin choosing the same victims."""
    # 8000 slots: most of the time a row has lines on both sides of slot 4096, where the bitset's second level
    # starts its second word; 48 sparse rows: a row's next line can lie words away. Short lines keep the writes
    # (and the checks' work) down: the GC passes count lines, not pages
    g = Geometry(48, 4000, 48 * 4000 * 3 // 4)
    # FEMU's trigger collects about twice as often, and its scan twin scans every line on every background ask:
    # half the writes give it as many passes as the reserve rule's
    passes = 2 if trigger.name == "femu" else 4
    w = skewed(3, passes * g.logical_pages, g.logical_pages, hot=0.02, hot_share=0.8)
    new, old = FTL(g, policy, trigger), FTL(g, policy, trigger)
    old._pick = scan_rule(policy.victim)
    logs = [np.zeros(len(w), np.int32) for _ in range(2)]
    for f in (new, old):
        f.write(np.arange(g.logical_pages, dtype=np.int32))
    for part in np.array_split(w, 9):
        for f, log in zip((new, old), logs, strict=True):
            f.write(part, log_victims=log)
        new.check()
    assert new.counters == old.counters and np.array_equal(logs[0], logs[1])
    assert new.counters["gc_passes"] > 3 * g.n_lines  # slots renumbered several times
