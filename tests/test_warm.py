"""The warm-up compiles the kernels ahead of a run: every job runs, and each names a real policy, rule or step."""

import threading

import pytest

from flashrepro import warm
from flashrepro.cache import POLICIES
from flashrepro.ftl import VICTIM_RULES


def test_every_policy_has_a_job_and_the_ftl_one_first():
    jobs = warm.tasks()
    assert {n for k, n in jobs if k == "policy"} == set(POLICIES)
    assert jobs[0] == ("ftl", "") and [k for k, _ in jobs].count("ftl") == 1  # every rule: one import compiles all
    assert len(jobs) == len(set(jobs)) and {k for k, _ in jobs} == set(warm.KINDS)


def test_only_and_skip_split_the_jobs():
    jobs = warm.tasks()
    assert warm.tasks(only=["ftl"]) == [("ftl", "")]
    assert warm.tasks(skip=["ftl"]) == jobs[1:]
    assert warm.tasks(only=["policy", "readers"], skip=["readers"]) == [t for t in jobs if t[0] == "policy"]
    with pytest.raises(ValueError, match="no warm-up job kind 'gc'; the kinds are ftl, policy"):
        warm.tasks(only=["gc"])
    assert warm.stamp(only=["ftl"]).name.endswith("-only-ftl") and warm.stamp(skip=["ftl"]).name.endswith("-skip-ftl")


def test_the_ftl_job_runs_every_victim_rule(monkeypatch):
    from flashrepro.ftl import device

    seen = []
    real = device.FTL.__init__

    def init(self, geometry, policy, trigger, *a, **kw):
        seen.append((policy.victim, trigger))
        real(self, geometry, policy, trigger, *a, **kw)

    monkeypatch.setattr(device.FTL, "__init__", init)
    warm.run_task(("ftl", ""))
    assert set(seen) == {(r, t) for r in VICTIM_RULES for t in ("reserve", "femu")}


def test_jobs_run_and_report_their_time():
    for task in [("policy", "lru"), ("ftl", "greedy"), ("generators", "")]:
        done, seconds = warm.run_task(task)
        assert done == task and seconds >= 0


def test_a_failing_job_is_reported_not_raised(monkeypatch):
    monkeypatch.setattr(warm, "tasks", lambda only=(), skip=(): [("policy", "no-such-policy")])
    said = []
    warm.warm(1, log=said.append)
    assert any("no-such-policy" in m and "failed" in m for m in said) and said[-1].startswith("warm: 1 jobs")


def _quick(task):  # a job that compiles nothing (module level: the pool pickles it by name)
    return task, 0.0


def test_if_needed_runs_once_per_version_of_the_source(tmp_path, monkeypatch):
    from flashrepro.jitcache import PackageLocator

    monkeypatch.setattr(PackageLocator, "folder", tmp_path)
    monkeypatch.setattr(warm, "tasks", lambda only=(), skip=(): [("policy", "lru")])
    monkeypatch.setattr(warm, "run_task", _quick)
    said = []
    warm.warm(1, log=said.append, if_needed=True)  # no stamp yet: it runs, and leaves one
    assert said[-1].startswith("warm: 1 jobs") and warm.stamp().is_file() and warm.stamp().parent == tmp_path
    said.clear()
    warm.warm(1, log=said.append, if_needed=True)
    assert len(said) == 1 and said[0].startswith("warm: the kernels of this source are compiled")
    warm.warm(1, log=said.append)  # asked without --if-needed: it runs
    assert said[-1].startswith("warm: 1 jobs")


def test_a_part_is_done_once_its_own_stamp_or_the_whole_one_is_there(tmp_path, monkeypatch):
    from flashrepro.jitcache import PackageLocator

    monkeypatch.setattr(PackageLocator, "folder", tmp_path)
    monkeypatch.setattr(warm, "tasks", lambda only=(), skip=(): [("policy", "lru")])
    monkeypatch.setattr(warm, "run_task", _quick)
    said = []
    warm.warm(1, log=said.append, if_needed=True, skip=["ftl"])  # runs, leaves the part's stamp only
    assert said[-1].startswith("warm: 1 jobs") and warm.stamp(skip=["ftl"]).is_file() and not warm.stamp().is_file()
    warm.warm(1, log=said.append, if_needed=True, skip=["ftl"])
    assert said[-1].startswith("warm: the kernels of this source are compiled")
    warm.warm(1, log=said.append, if_needed=True, only=["ftl"])  # the other part: runs; the two cover the whole
    assert said[-1].startswith("warm: 1 jobs") and warm.stamp(only=["ftl"]).is_file() and warm.stamp().is_file()
    warm.warm(1, log=said.append, if_needed=True)
    assert said[-1].startswith("warm: the kernels of this source are compiled")
    for f in tmp_path.iterdir():
        f.unlink()
    warm.warm(1, log=said.append, if_needed=True)  # the whole: runs once, then covers every part
    assert said[-1].startswith("warm: 1 jobs") and warm.stamp().is_file()
    warm.warm(1, log=said.append, if_needed=True, only=["ftl"])
    assert said[-1].startswith("warm: the kernels of this source are compiled")
    warm.warm(1, log=said.append, if_needed=True, only=["policy"])  # any part, once the whole is done
    assert said[-1].startswith("warm: the kernels of this source are compiled")


def test_the_command_line_refuses_an_unknown_kind(capsys):
    with pytest.raises(SystemExit) as e:
        warm.main(["--only", "gc", "--if-needed"])
    assert e.value.code == 2 and "invalid choice: 'gc'" in capsys.readouterr().err


def test_a_run_with_a_failed_job_leaves_no_stamp(tmp_path, monkeypatch):
    from flashrepro.jitcache import PackageLocator

    monkeypatch.setattr(PackageLocator, "folder", tmp_path)
    monkeypatch.setattr(warm, "tasks", lambda only=(), skip=(): [("policy", "no-such-policy")])
    said = []
    warm.warm(1, log=said.append, if_needed=True)
    assert not warm.stamp().is_file() and any("failed" in m for m in said)


_HELD = threading.Lock()  # held by a thread of the test's process while the pool starts its children


def _lock_free(task):  # a job: can this child take the lock? (a forked child copies it held, and waits forever)
    if not _HELD.acquire(timeout=2):
        raise RuntimeError("the child inherited a lock held by a thread of its parent")
    return task, 0.0


def test_the_jobs_run_in_fresh_processes_not_forked_copies(monkeypatch):
    """The pool starts its children fresh (spawn): a forked child of a process with other threads running (a test
    worker's, polars', Numba's) inherits the locks they hold at that moment, and can wait forever on one, as a
    forked warm-up child did in a test run that CI stopped after 90 minutes."""
    monkeypatch.setattr(warm, "tasks", lambda only=(), skip=(): [("policy", "lru")])
    monkeypatch.setattr(warm, "run_task", _lock_free)
    taken, release = threading.Event(), threading.Event()

    def hold():
        with _HELD:
            taken.set()
            release.wait(30)

    holder = threading.Thread(target=hold)
    holder.start()
    try:
        assert taken.wait(10)
        said = []
        warm.warm(1, log=said.append)
    finally:
        release.set()
        holder.join()
    assert said == [said[-1]] and said[-1].startswith("warm: 1 jobs"), said


def test_an_edit_to_the_warm_up_compiles_no_kernel_again():
    """This module runs kernels but has none: the kernels' source hash must not cover it (it did while it
    imported Numba for its version, and every edit to it recompiled the package)."""
    from pathlib import Path

    from flashrepro.jitcache import kernel_sources

    assert Path(warm.__file__).resolve() not in {p.resolve() for p in kernel_sources()}
