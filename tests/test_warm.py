"""The warm-up compiles the kernels ahead of a run: every job runs, and each names a real policy, rule or step."""

import threading

from flashrepro import warm
from flashrepro.cache import POLICIES
from flashrepro.ftl import VICTIM_RULES


def test_every_policy_and_victim_rule_has_a_job():
    jobs = warm.tasks()
    assert {n for k, n in jobs if k == "policy"} == set(POLICIES)
    assert {n for k, n in jobs if k == "ftl"} == set(VICTIM_RULES)
    assert len(jobs) == len(set(jobs))


def test_jobs_run_and_report_their_time():
    for task in [("policy", "lru"), ("ftl", "greedy"), ("generators", "")]:
        done, seconds = warm.run_task(task)
        assert done == task and seconds >= 0


def test_a_failing_job_is_reported_not_raised(monkeypatch):
    monkeypatch.setattr(warm, "tasks", lambda: [("policy", "no-such-policy")])
    said = []
    warm.warm(1, log=said.append)
    assert any("no-such-policy" in m and "failed" in m for m in said) and said[-1].startswith("warm: 1 jobs")


def _quick(task):  # a job that compiles nothing (module level: the pool pickles it by name)
    return task, 0.0


def test_if_needed_runs_once_per_version_of_the_source(tmp_path, monkeypatch):
    from flashrepro.jitcache import PackageLocator

    monkeypatch.setattr(PackageLocator, "folder", tmp_path)
    monkeypatch.setattr(warm, "tasks", lambda: [("policy", "lru")])
    monkeypatch.setattr(warm, "run_task", _quick)
    said = []
    warm.warm(1, log=said.append, if_needed=True)  # no stamp yet: it runs, and leaves one
    assert said[-1].startswith("warm: 1 jobs") and warm.stamp().is_file() and warm.stamp().parent == tmp_path
    said.clear()
    warm.warm(1, log=said.append, if_needed=True)
    assert len(said) == 1 and said[0].startswith("warm: the kernels of this source are compiled")
    warm.warm(1, log=said.append)  # asked without --if-needed: it runs
    assert said[-1].startswith("warm: 1 jobs")


def test_a_run_with_a_failed_job_leaves_no_stamp(tmp_path, monkeypatch):
    from flashrepro.jitcache import PackageLocator

    monkeypatch.setattr(PackageLocator, "folder", tmp_path)
    monkeypatch.setattr(warm, "tasks", lambda: [("policy", "no-such-policy")])
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
    monkeypatch.setattr(warm, "tasks", lambda: [("policy", "lru")])
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
