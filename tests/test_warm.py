"""The warm-up compiles the kernels ahead of a run: every job runs, and each names a real policy, rule or step."""

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
