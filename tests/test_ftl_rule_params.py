"""Victim rules declare their own settings: a rule registered here, with a setting no other rule has, runs
through Policy and FTL with no change to flashrepro.ftl.device; the settings' checks, Policy's keywords and
the hook's bounds on the kernel's parameters."""

import functools
import inspect
import pickle

import numpy as np
import pytest
from numba import njit

from flashrepro import jitkit as jk
from flashrepro.ftl import FTL, POLICIES, VICTIM_RULES, Geometry, Policy, device
from flashrepro.ftl import _kernel as K
from flashrepro.ftl.victims import Param, fifo_threshold, register, unregister
from flashrepro.ftl.victims._registry import at_least

SKIP = 0  # the toy rule's slot of prm.rule


def _skip_pick_py(s, first):
    """The ``prm.rule[SKIP]``-th earliest-closed line with an invalid page (the last such line if there are fewer):
    with 0, FEMU's fifo."""
    L = s.prm[0].lines
    P = s.prm[0].pages
    left = s.prm[0].rule[SKIP]
    found = -1
    ln = jk.list_front(s.fifo, L)
    while ln != L:
        if s.valid[ln] < P:
            found = ln
            if left == 0:
                return ln
            left -= 1
        ln = jk.list_next(s.fifo, ln)
    return found


@functools.cache
def _skip_pick():
    """The toy rule's pick, compiled with the kernel's signature on first use (at import, every test worker paid
    for it while collecting the tests)."""
    return njit(K.VICTIM_SIG)(_skip_pick_py)


def _skip_configure(params, geometry, prm):
    prm.rule[SKIP] = params.toy_skip
    prm.stable_skip = params.toy_skip == 0  # FEMU's fifo is stable; the others need not be


@pytest.fixture
def toy_rule():
    """``toy-skip``, registered for one test: its setting ``toy_skip`` is known to no other rule."""
    register("toy-skip", _skip_pick(), "the toy_skip-th earliest-closed line with an invalid page",
             params=(Param("toy_skip", 0, at_least(0), "lines with an invalid page passed over"),),
             configure=_skip_configure)
    yield "toy-skip"
    unregister("toy-skip")


def _writes(seed, n, logical):
    rng = np.random.default_rng(seed)
    hot = rng.random(n) < 0.8
    return np.where(hot, rng.integers(0, logical // 10, n), rng.integers(0, logical, n)).astype(np.int32)


def _victims(policy, trigger, seed=0):
    g = Geometry(16, 40, 16 * 40 * 3 // 4)
    ftl = FTL(g, policy, trigger)
    log = np.zeros(20000, np.int32)
    ftl.write(np.concatenate([np.arange(g.logical_pages, dtype=np.int32), _writes(seed, 6000, g.logical_pages)]),
              None, log)
    ftl.check()
    return log[:int(ftl.state.sc[0].nlog_v)].tolist(), ftl.counters


@pytest.mark.parametrize("trigger", ["reserve", "femu"])
def test_a_rule_registered_here_runs_with_its_own_setting(toy_rule, trigger):
    """With toy_skip 0 the toy rule is FEMU's fifo, victim by victim; with 2 it takes other victims; the
    setting reaches the kernel through the rule's hook alone."""
    base = Policy("toy", toy_rule)
    assert base.toy_skip == 0 and base.params == ()
    skip2 = base.with_(toy_skip=2)
    assert skip2.toy_skip == 2 and skip2 == Policy("toy", toy_rule, toy_skip=2)
    assert skip2.describe()["toy_skip"] == 2
    fifo = POLICIES["fifo"].with_(stop="valid")
    assert _victims(base.with_(stop="valid"), trigger) == _victims(fifo, trigger)
    assert _victims(skip2, trigger)[0] != _victims(base, trigger)[0]
    assert FTL(Geometry(16, 40, 480), skip2, trigger).prm.rule[SKIP] == 2
    with pytest.raises(ValueError, match="toy_skip must be an integer >= 0, got -1"):
        base.with_(toy_skip=-1)


def test_the_toy_rule_and_its_setting_leave_with_it(toy_rule):
    unregister(toy_rule)
    with pytest.raises(TypeError, match="unexpected keyword argument 'toy_skip'"):
        Policy("toy", "fifo", toy_skip=1)
    with pytest.raises(AttributeError):
        _ = POLICIES["fifo"].toy_skip
    register(toy_rule, _skip_pick(), "again", params=(Param("toy_skip", 0, at_least(0)),), configure=_skip_configure)


def test_device_has_no_branch_on_a_rule_name():
    src = inspect.getsource(device.FTL)
    assert not any(f'"{name}"' in src or f"'{name}'" in src for name in VICTIM_RULES)
    assert "victim ==" not in inspect.getsource(device) and "victim in" not in inspect.getsource(device)


def test_a_hook_may_write_only_its_block_and_the_settable_slots():
    def bad(params, geometry, prm):
        prm.stop = 7

    register("toy-bad", _skip_pick(), "writes the stop rule", params=(Param("toy_bad", 0),), configure=bad)
    try:
        with pytest.raises(RuntimeError, match="configure wrote prm.stop,? outside"):
            FTL(Geometry(16, 40, 480), Policy("bad", "toy-bad"))
    finally:
        unregister("toy-bad")


def test_registration_refuses_clashing_settings():
    with pytest.raises(ValueError, match="one of Policy's own keywords"):
        register("toy-x", _skip_pick(), "", params=(Param("stop", 0),), configure=_skip_configure)
    with pytest.raises(ValueError, match="another rule's"):
        register("toy-x", _skip_pick(), "", params=(Param("threshold", 0.5),), configure=_skip_configure)
    with pytest.raises(ValueError, match="no configure hook"):
        register("toy-x", _skip_pick(), "", params=(Param("toy_x", 0),))
    with pytest.raises(ValueError, match="toy_x must be an integer >= 0, got -1"):
        register("toy-x", _skip_pick(), "", params=(Param("toy_x", -1, at_least(0)),), configure=_skip_configure)
    assert "toy-x" not in VICTIM_RULES


def test_policy_keywords_and_settings_as_before():
    p = POLICIES["2r++"]
    assert (p.threshold, p.strict_threshold, p.recent_fraction, p.fallback, p.cursor) == (0.4, True, 0.2,
                                                                                         "least-valid", "wrap")
    assert POLICIES["greedy"].threshold == 0.4 and POLICIES["greedy"].d == 4  # any rule's setting, any policy
    assert POLICIES["2r"].with_(threshold=0.4) == POLICIES["2r"]  # a default given is no change
    q = p.with_(threshold=0.3, fallback="global", name="q")
    assert (q.threshold, q.fallback, q.strict_threshold, q.name) == (0.3, "global", True, "q")
    assert pickle.loads(pickle.dumps(q)) == q and hash(q) == hash(p.with_(fallback="global", threshold=0.3, name="q"))
    assert list(POLICIES["2r"].describe())[-5:] == ["threshold", "strict_threshold", "recent_fraction", "fallback",
                                                    "cursor"]
    assert list(POLICIES["d-choice"].describe())[-2:] == ["d", "seed"]
    for bad, match in ((dict(threshold=1.5), "threshold must be in \\[0, 1\\], got 1.5"),
                       (dict(recent_fraction=1), "recent_fraction must be in \\[0, 1\\), got 1"),
                       (dict(fallback="lru"), "fallback must be one of \\['least-valid', 'fifo', 'global'\\]"),
                       (dict(d=0), "d must be an integer >= 1, got 0"), (dict(max_victims=-1), "max_victims")):
        with pytest.raises(ValueError, match=match):
            p.with_(**bad)
    with pytest.raises(TypeError, match="unexpected keyword argument 'treshold'"):
        p.with_(treshold=0.3)


def test_fifo_thresholds_settings_fill_its_own_slots():
    f = FTL(Geometry(16, 40, 480), POLICIES["2r++"].with_(fallback="fifo", recent_fraction=0.25, cursor="resume"))
    ft = fifo_threshold
    assert (f.prm.rule[ft.RECENT], f.prm.rule[ft.FALLBACK]) == (10, ft.FIFO)
    assert (f.prm.cursor_resume, f.prm.stable_skip) == (1, 0)
    assert f.prm.limit == 6  # strictly under 0.4 x 16
    assert FTL(Geometry(16, 40, 480), "greedy").prm.limit == -1
