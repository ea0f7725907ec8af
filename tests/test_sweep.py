"""The sweep runner (issue 15): the three executors give byte-identical tables, failures are reported with
their inputs, re-runs skip finished rows, a trace is loaded once per worker, and the command line."""

import json

import polars as pl
import pytest

from flashrepro import cli, sweep
from flashrepro.cache import prototype, simulate
from flashrepro.devices import device_time
from flashrepro.traces import catalog

POLICIES = {"lru": {}, "clock": {"insert_referenced": [False, True]}, "bs_clock": {"max_bulk_pages": [1, 16]}}
WORKLOADS = ["synthetic/zipf-0.9", "synthetic/mixture"]
CAPACITIES = [64, 512]


def _csv(res) -> str:
    return res.stable.write_csv()


@pytest.fixture(scope="module")
def local():
    return sweep.run(POLICIES, WORKLOADS, CAPACITIES, metrics=(device_time,), progress=False)


@pytest.fixture(scope="module")
def dask_client():
    distributed = pytest.importorskip("distributed")
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
    client = distributed.Client(cluster)
    yield client
    client.close()
    cluster.close()


def test_the_table_has_one_row_per_run_in_input_order(local):
    t = local.table
    assert not local.failures and local.skipped == 0
    assert t.height == len(WORKLOADS) * 5 * len(CAPACITIES)
    assert t.columns[:5] == ["workload", "policy", "params", "capacity_pages", "hit_ratio"]
    assert t.columns[-1] == "seconds" and "time_sandisk_s" in t.columns and "bulk_cleaned" in t.columns
    assert t["workload"].to_list()[:10] == ["synthetic/zipf-0.9"] * 10
    assert t["params"].to_list()[2:6] == ['{"insert_referenced":false}'] * 2 + ['{"insert_referenced":true}'] * 2
    # every row is what simulate() gives on its own
    tr = catalog.get("synthetic/mixture", scale="ci")
    row = t.filter((pl.col("workload") == "synthetic/mixture") & (pl.col("policy") == "bs_clock")
                   & (pl.col("params") == '{"max_bulk_pages":16}') & (pl.col("capacity_pages") == 512)).to_dicts()[0]
    direct = simulate(tr, "bs_clock", 512, max_bulk_pages=16).counters
    assert {k: row[k] for k in direct} == direct


def test_process_pool_gives_the_same_bytes(local):
    other = sweep.run(POLICIES, WORKLOADS, CAPACITIES, metrics=(device_time,), executor="process",
                      workers=2, progress=False)
    assert not other.failures
    assert _csv(other) == _csv(local)


def test_dask_local_cluster_gives_the_same_bytes_and_loads_each_trace_once_per_worker(local, dask_client):
    other = sweep.run(POLICIES, WORKLOADS, CAPACITIES, metrics=(device_time,), client=dask_client,
                      progress=False)
    assert not other.failures and other.executor == "dask"
    assert _csv(other) == _csv(local)
    loads = dask_client.run(lambda: dict(sweep.TRACE_LOADS))
    assert len(loads) == 2
    for per_worker in loads.values():  # 10 tasks over 2 traces: each worker parsed each trace at most once
        assert per_worker and max(per_worker.values()) == 1


def test_a_task_that_raises_is_reported_and_the_others_finish(dask_client):
    res = sweep.run(["lru", "clock"], ["synthetic/uniform", "no/such-workload"], [32], client=dask_client,
                    progress=False)
    assert res.table.height == 2 and set(res.table["workload"]) == {"synthetic/uniform"}
    assert len(res.failures) == 2
    f = res.failures[0]
    assert f.task["workload"] == "no/such-workload" and f.task["capacities"] == [32]
    assert "unknown workload" in f.error and "no/such-workload" in str(f)
    local = sweep.run(["lru"], ["no/such-workload", "synthetic/uniform"], [32], progress=False)
    assert len(local.failures) == 1 and local.table.height == 1


def test_a_rerun_skips_finished_rows(tmp_path, local):
    store = tmp_path / "sweep.parquet"
    first = sweep.run({"lru": {}}, WORKLOADS, CAPACITIES, metrics=(device_time,), store=store, progress=False)
    assert first.skipped == 0 and first.table.height == 4
    again = sweep.run(POLICIES, WORKLOADS, CAPACITIES, metrics=(device_time,), store=store, progress=False)
    assert again.skipped == 4
    assert _csv(again) == _csv(local)
    third = sweep.run(POLICIES, WORKLOADS, CAPACITIES, metrics=(device_time,), store=store, progress=False)
    assert third.skipped == local.table.height and _csv(third) == _csv(local)
    # another capacity is another row key
    assert sweep.run({"lru": {}}, WORKLOADS[:1], [65], store=store, progress=False).skipped == 0


def test_policy_grids_expand_in_order_and_reject_unknowns():
    assert sweep.expand_policies({"clock": {"insert_referenced": [True, False], "cache_reads": False}}) == [
        ("clock", {"insert_referenced": True, "cache_reads": False}),
        ("clock", {"insert_referenced": False, "cache_reads": False})]
    assert sweep.expand_policies(["lru", ("cflru", [{"window_fraction": 0.1}])]) == [
        ("lru", {}), ("cflru", {"window_fraction": 0.1})]
    with pytest.raises(ValueError, match="no parameter"):
        sweep.run({"lru": {"window": 3}}, WORKLOADS, [8], progress=False)
    with pytest.raises(ValueError, match="twice"):
        sweep.expand_policies(["lru", "lru"])
    with pytest.raises(ValueError, match="executor"):
        sweep.run(["lru"], WORKLOADS, [8], executor="mpi")


def test_a_python_prototype_runs_through_the_sweep(local):
    res = sweep.run([prototype.PyLRU], WORKLOADS, CAPACITIES, progress=False)
    try:
        mine = res.stable.drop("policy")
        want = local.stable.filter(pl.col("policy") == "lru").select(mine.columns)
        assert mine.write_csv() == want.write_csv()
    finally:
        from flashrepro.cache.registry import unregister
        unregister("py_lru")


def test_cli_help_and_run(tmp_path, capsys):
    with pytest.raises(SystemExit) as e:
        cli.main(["sweep", "--help"])
    assert e.value.code == 0
    assert "--scheduler" in capsys.readouterr().out
    out, csv = tmp_path / "s.parquet", tmp_path / "s.csv"
    args = ["sweep", "--policy", "lru", "--policy", "clock:insert_referenced=true,false", "--workload",
            "synthetic/uniform", "--capacity", "16", "64", "--out", str(out), "--csv", str(csv)]
    assert cli.main(args) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["rows"] == 6 and summary["failures"] == 0
    table = pl.read_csv(csv)
    assert table["params"].to_list()[2] == '{"insert_referenced":true}' and "seconds" not in table.columns
    assert cli.main(args) == 0 and json.loads(capsys.readouterr().out)["skipped"] == 6
    assert cli.main(["sweep", "--policy", "nope", "--workload", "synthetic/uniform", "--capacity", "8"]) == 2


def _store_rows(path) -> pl.DataFrame:
    return pl.read_parquet(path).drop("seconds")


def test_the_store_holds_its_rows_in_input_order_whatever_the_completion_order(tmp_path, monkeypatch):
    """Rows are appended as tasks finish; the file is then rewritten in input order (issue 26, item 5)."""
    in_order = sweep.run(POLICIES, WORKLOADS, CAPACITIES, store=tmp_path / "a.parquet", progress=False)
    execute = sweep._execute

    def backwards(tasks, *args, **kw):  # tasks finish last first
        yield from reversed(list(execute(tasks, *args, **kw)))

    monkeypatch.setattr(sweep, "_execute", backwards)
    reversed_ = sweep.run(POLICIES, WORKLOADS, CAPACITIES, store=tmp_path / "b.parquet", progress=False)
    assert _csv(reversed_) == _csv(in_order)
    a, b = _store_rows(tmp_path / "a.parquet"), _store_rows(tmp_path / "b.parquet")
    assert a.columns == b.columns and a.equals(b)
    assert a.drop("key").equals(in_order.stable)
    # a resumed run leaves the file an uninterrupted one leaves: a store with half the rows, then the rest
    half = sweep.run({"lru": {}, "bs_clock": {"max_bulk_pages": 1}}, WORKLOADS[::-1], CAPACITIES,
                     store=tmp_path / "c.parquet", progress=False)
    assert half.table.height == 8
    resumed = sweep.run(POLICIES, WORKLOADS, CAPACITIES, store=tmp_path / "c.parquet", progress=False)
    assert resumed.skipped == 8 and _store_rows(tmp_path / "c.parquet").equals(a)
    # rows of another run that this one did not ask for stay, before this run's rows
    other = sweep.run({"lru": {}}, WORKLOADS[:1], [65], store=tmp_path / "c.parquet", progress=False)
    assert other.skipped == 0
    c = _store_rows(tmp_path / "c.parquet")
    assert c.height == a.height + 1 and c.tail(1)["capacity_pages"].to_list() == [65]
    assert c.head(a.height).equals(a)


def test_the_store_is_the_same_for_every_executor(tmp_path, dask_client):
    stores = {}
    for executor in ("local", "process", "dask"):
        stores[executor] = tmp_path / f"{executor}.parquet"
        res = sweep.run(POLICIES, WORKLOADS, CAPACITIES, metrics=(device_time,), store=stores[executor],
                        progress=False, workers=2, **({"client": dask_client} if executor == "dask" else
                                                      {"executor": executor}))
        assert not res.failures and res.executor == executor
    local = _store_rows(stores["local"])
    assert local.height == len(WORKLOADS) * 5 * len(CAPACITIES)
    for executor in ("process", "dask"):
        other = _store_rows(stores[executor])
        assert other.columns == local.columns and other.equals(local), executor


PROTOTYPE_FILE = '''
from flashrepro.cache.prototype import PyLRU


class FileLRU(PyLRU):
    """The package's Python LRU under another name, from a file the Dask workers run."""
    name = "file_lru_dask"
'''


def test_a_policy_file_runs_on_dask_workers_and_a_trace_file_is_read_there(tmp_path, dask_client, data_dir):
    """The workers (separate processes that never imported the file) run it before the task; the trace file
    goes as a path, read whole on the worker. The prototype is LRU: the kernel's counters."""
    from flashrepro.cache import POLICIES, prototype
    from flashrepro.cache.registry import unregister

    f = tmp_path / "mine.py"
    f.write_text(PROTOTYPE_FILE)
    trace = sweep.TraceFile.of(data_dir / "golden_trace.spc")
    try:
        res = sweep.run(["file_lru_dask", "lru"], [trace], [16, 64], client=dask_client, progress=False,
                        policy_files=[f])
    finally:
        if "file_lru_dask" in POLICIES:
            unregister("file_lru_dask")
        prototype._FILES.pop(str(f.resolve()), None)
    assert not res.failures and res.executor == "dask"
    mine = res.table.filter(pl.col("policy") == "file_lru_dask").drop("policy", "seconds", "key", "params")
    kernel = res.table.filter(pl.col("policy") == "lru").drop("policy", "seconds", "key", "params")
    assert mine.height == 2 and mine.select(kernel.columns).equals(kernel)
