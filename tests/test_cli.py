"""The command line: JSON outputs and errors that list the valid names."""

import json

import pytest

from flashrepro.cache import policy_names
from flashrepro.cli import main
from flashrepro.traces import format_names


def run(capsys, *args):
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_simulate_prints_counters(capsys, data_dir):
    code, out, _ = run(capsys, "simulate", "--json", "--policy", "lru", "--trace",
                       str(data_dir / "formats/sample.diskmon.txt"),
                       "--capacity-pages", "4", "--flush-at-end")
    assert code == 0
    d = json.loads(out)
    for key in ("references", "hits", "misses", "hit_ratio", "device_reads", "device_writes",
                "device_write_requests"):
        assert key in d
    # 16 KiB at sector 6194591 straddles 5 pages, 4 KiB at sector 100 two, 512 B at sector 7 one
    assert d["references"] == 8 and d["device_writes"] == 6  # the 5 + 1 written pages, all flushed


def test_simulate_with_param(capsys, data_dir):
    code, out, _ = run(capsys, "simulate", "--json", "--policy", "clock", "--trace",
                       str(data_dir / "formats/sample.spc"),
                       "--format", "spc", "--capacity-pages", "2", "--param", "insert_referenced=true")
    assert code == 0 and json.loads(out)["params"] == {"insert_referenced": True, "cache_reads": True}


@pytest.mark.parametrize("args,msg", [
    # every name, in order (a listing that adds a policy or a format still passes; one that drops one does not)
    (["--policy", "nope"], lambda: "registered policies: " + ", ".join(sorted(policy_names())) + "\n"),
    (["--policy", "lru", "--format", "nope"], lambda: "known formats: " + ", ".join(sorted(format_names())) + "\n"),
    (["--policy", "clock", "--param", "bogus=1"], "no listed policy takes it; policy 'clock' takes cache_reads, "
                                                  "insert_referenced"),
    (["--policy", "clock", "--param", "insert_referenced=maybe"], "not a boolean"),
])
def test_simulate_errors(capsys, data_dir, args, msg):
    code, _, err = run(capsys, "simulate", "--json", "--trace", str(data_dir / "formats/sample.spc"),
                       "--capacity-pages", "2",
                       *args)
    assert code == 2 and (msg() if callable(msg) else msg) in err


def test_listings(capsys):
    assert json.loads(run(capsys, "policies")[1]).keys() >= {"lru", "clock"}
    assert "diskmon" in json.loads(run(capsys, "formats")[1])
    assert "synthetic/zipf-0.9" in json.loads(run(capsys, "workloads")[1])


def test_ftl_policies(capsys):
    code, out, _ = run(capsys, "ftl-policies")
    d = json.loads(out)
    assert code == 0
    assert list(d["policies"]) == ["greedy", "2r", "2r++", "cost-benefit", "fifo", "random", "d-choice"]
    for p in d["policies"].values():
        assert p["victim_rule"] and p["description"] and p["stop"] in ("one", "valid", "invalid")
        assert len(p["copy_dest"]) == 3
    assert d["policies"]["2r++"]["victim"] == "fifo_threshold" and d["policies"]["2r++"]["copy_dest"] == [1, 2, 2]
    assert d["policies"]["2r"]["stop"] == "valid" and d["policies"]["d-choice"]["d"] == 4
    assert d["gc_triggers"]["femu"]["forced_free"] == 0.05 and d["gc_triggers"]["femu"]["background_free"] == 0.25
    assert d["gc_triggers"]["reserve"]["reserve_lines"] == 1


def test_trace_info(capsys, data_dir):
    code, out, _ = run(capsys, "trace-info", str(data_dir / "formats/sample.diskmon.txt"))
    d = json.loads(out)
    assert code == 0 and (d["reads"], d["writes"], d["page_references"]) == (1, 2, 8)


def test_missing_file(capsys):
    code, _, err = run(capsys, "trace-info", "/nonexistent/trace.txt")
    assert code == 2 and "no trace file" in err


def test_replay_command(capsys, data_dir, tmp_path):
    """A replay onto a file (O_DIRECT: each request a device I/O) of the golden trace's first 500 requests (all
    6,000 are 13,350 I/Os, 3 s on this disk), folded into 1 MiB; then the target holds data and is refused."""
    trace = tmp_path / "head.spc"
    trace.write_text("".join((data_dir / "golden_trace.spc").read_text().splitlines(keepends=True)[:500]))
    target, mib = tmp_path / "card.img", 1
    args = ["replay", "--policy", "bs_clock", "--trace", str(trace), "--capacity-pages", "64", "--target",
            str(target), "--max-mib", str(mib)]
    code, out, err = run(capsys, *args)
    assert code == 0, err
    d = json.loads(out)
    assert d["replay"]["requests"] == d["device_read_requests"] + d["device_write_requests"]
    assert d["replay"]["folded"]  # the trace spans more than --max-mib: the bound below is the fold's
    assert set(d["model"]) == {"samsung", "sandisk"} and target.stat().st_size <= mib * 2**20
    code, _, err = run(capsys, *args)  # the target now holds data
    assert code == 2 and "pass --allow-existing to overwrite it" in err


def test_simulate_a_segment_policy_with_its_parameter(data_dir, isolated_interim, capsys):
    code = main(["simulate", "--json", "--policy", "seg_cull_adaptive", "--param", "segment_kib=32", "--trace",
                 str(data_dir / "formats" / "sample.spc"), "--capacity-pages", "64"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["params"]["segment_kib"] == 32 and "prefetch_hits" in out


@pytest.mark.parametrize("mib,msg", [("inf", "positive finite"), ("nan", "positive finite"), ("-1", "positive finite"),
                                     ("0", "positive finite"), ("1e300", "beyond what a file offset")])
def test_replay_refuses_bad_bounds(capsys, data_dir, tmp_path, mib, msg):
    code, out, err = run(capsys, "replay", "--policy", "lru", "--trace", str(data_dir / "golden_trace.spc"),
                         "--capacity-pages", "64", "--target", str(tmp_path / "t.img"), "--max-mib", mib)
    assert code == 2 and out == "" and msg in err and "Traceback" not in err
    assert list(tmp_path.iterdir()) == []


def test_replay_on_a_full_file_system(capsys, data_dir, tmp_path, monkeypatch):
    """ENOSPC: an error line on stderr, no JSON on stdout, exit code 2, and the target is gone."""
    import errno
    import os

    def full(*a):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "pwrite", full)
    code, out, err = run(capsys, "replay", "--policy", "lru", "--trace", str(data_dir / "golden_trace.spc"),
                         "--capacity-pages", "64", "--target", str(tmp_path / "t.img"), "--max-mib", "8",
                         "--buffered")
    assert code == 2 and out == "" and "no space left" in err and err.startswith("flashrepro replay: error:")
    assert list(tmp_path.iterdir()) == []


def test_replay_refuses_a_dangling_symlink(capsys, data_dir, tmp_path):
    (tmp_path / "t.img").symlink_to(tmp_path / "elsewhere.img")
    code, out, err = run(capsys, "replay", "--policy", "lru", "--trace", str(data_dir / "golden_trace.spc"),
                         "--capacity-pages", "64", "--target", str(tmp_path / "t.img"), "--max-mib", "8")
    assert code == 2 and out == "" and "dangling symbolic link" in err
    assert not (tmp_path / "elsewhere.img").exists()


def test_simulate_a_simple_csv_with_columns(capsys, tmp_path, isolated_interim):
    """Issue 12, section 5: --format csv --columns maps the columns onto the csv reader's layout."""
    path = tmp_path / "a.csv"
    path.write_text("time,op,offset,size\n0.0,W,0,4096\n0.1,R,0,4096\n0.2,R,8192,8192\n")
    base = ["simulate", "--json", "--policy", "lru", "--trace", str(path), "--format", "csv", "--capacity-pages", "10"]
    code, out, err = run(capsys, *base, "--columns", "time=0,op=1,offset=2,size=3", "--skip-header")
    assert code == 0, err
    d = json.loads(out)
    assert (d["references"], d["hits"], d["write_references"]) == (4, 1, 1)
    code, out, err = run(capsys, *base, "--columns", "time=time,op=op,offset=offset,size=size", "--header")
    assert code == 0 and json.loads(out)["references"] == 4
    for cols, msg in [("time=0,op=1,offset=2", "must give size"), ("op=1,offset=2,size=3,colour=4", "unknown field"),
                      ("op=x,offset=2,size=3", "need --header"), ("op=1,op=1,offset=2,size=3", "given twice")]:
        code, out, err = run(capsys, *base, "--columns", cols)
        assert code == 2 and out == "" and msg in err, (cols, err)
    code, out, err = run(capsys, *base, "--columns", "op=1,offset=2,size=3")  # the header line is not data
    assert code == 2 and out == "" and "a.csv:1: " in err and "time,op,offset,size" in err  # the header line, named


def test_simulate_quiet_flag(capsys, data_dir):
    code, out, err = run(capsys, "simulate", "--json", "--policy", "lru", "--trace", str(data_dir / "golden_trace.spc"),
                         "--capacity-pages", "64", "--quiet")
    assert code == 0 and json.loads(out)["references"] > 0 and err == ""


# --- replay: the SQLite replay's settings for an android-sql app folder --------------------------------------
def _replay_sql(capsys, data_dir, tmp_path, *extra, name="t.img"):
    return run(capsys, "replay", "--policy", "write_once", "--trace", str(data_dir / "formats" / "android_sql_tiny"),
               "--format", "android-sql", "--capacity-pages", "8", "--target", str(tmp_path / name), "--max-mib", "4",
               *extra)


def test_replay_takes_the_sqlite_settings(capsys, data_dir, tmp_path, isolated_interim):
    code, out, err = _replay_sql(capsys, data_dir, tmp_path, name="a.img")
    assert code == 0, err
    base = json.loads(out)
    assert base["sql_replay"]["settings"]["synchronous"] == "full" and base["sql_replay"]["statements"] == 12
    code, out, err = _replay_sql(capsys, data_dir, tmp_path, "--synchronous", "NORMAL", "--sql-page-size", "1024",
                                 "--sql-cache-pages", "50", "--journal-mode", "truncate", "--span-s", "60",
                                 name="b.img")
    assert code == 0, err
    d = json.loads(out)
    s = d["sql_replay"]
    assert (s["settings"]["synchronous"], s["settings"]["page_size"], s["settings"]["cache_pages"],
            s["settings"]["journal_mode"], s["settings"]["span_s"]) == ("normal", 1024, 50, "truncate", 60.0)
    assert s["pragmas"] == {"journal_mode": "truncate", "synchronous": "1", "cache_size": "50", "page_size": "1024"}
    assert d["syncs"] < base["syncs"]  # NORMAL syncs less often than FULL


@pytest.mark.parametrize("args,msg", [
    (["--journal-mode", "wal"], "rollback modes delete, truncate, persist"),
    (["--synchronous", "extra"], "synchronous must be one of full, normal, off"),
    (["--sql-page-size", "1000"], "power of two from 512 to 65536"),
    (["--sql-page-size", "131072"], "power of two from 512 to 65536"),
    (["--sql-cache-pages", "0"], "positive whole number of pages"),
    (["--span-s", "nan"], "positive finite number"),
    (["--span-s", "-5"], "positive finite number"),
    (["--statements", "other"], "threads, benchset"),
    (["--journal-identity", "inode"], "'generation'"),
])
def test_replay_refuses_bad_sqlite_settings(capsys, data_dir, tmp_path, isolated_interim, args, msg):
    code, out, err = _replay_sql(capsys, data_dir, tmp_path, *args)
    assert code == 2 and out == "" and msg in err and "Traceback" not in err
    assert list(tmp_path.iterdir()) == [] and not (isolated_interim / "replays").exists()  # nothing replayed


def test_replay_sqlite_settings_need_an_app_folder(capsys, data_dir, tmp_path):
    for fmt in ([], ["--format", "spc"]):
        code, out, err = run(capsys, "replay", "--policy", "lru", "--trace", str(data_dir / "golden_trace.spc"),
                             *fmt, "--capacity-pages", "8", "--target", str(tmp_path / "t.img"), "--max-mib", "4",
                             "--synchronous", "normal", "--span-s", "10")
        assert code == 2 and out == "" and "--synchronous, --span-s" in err and "android-sql" in err
    with pytest.raises(SystemExit):  # argparse: not a boolean
        main(["replay", "--policy", "lru", "--trace", "x", "--capacity-pages", "8", "--target", "t", "--max-mib", "4",
              "--merge-writes", "maybe"])
    assert "expected true or false" in capsys.readouterr().err


# --- issue 24: flags, one-line errors, signals ---------------------------------------------------------------
def run_any(capsys, *args):
    """``run``, also for argparse's errors (SystemExit): the exit code, stdout and stderr."""
    try:
        code = main(list(args))
    except SystemExit as e:
        code = e.code
    out, err = capsys.readouterr()
    return code, out, err


def _one_error_line(code, out, err, *expected):
    assert code == 2 and out == "" and "Traceback" not in err, (code, err)
    assert len(err.splitlines()) == 1, err
    for text in expected:
        assert text in err, (text, err)


PAGE_BYTES_COMMANDS = {
    "simulate": ["simulate", "--json", "--policy", "lru", "--trace", "{spc}", "--capacity-pages", "4"],
    "replay": ["replay", "--policy", "lru", "--trace", "{spc}", "--capacity-pages", "4", "--target", "{target}",
               "--max-mib", "1"],
    "trace-info": ["trace-info", "{spc}"],
    "sweep": ["sweep", "--policy", "lru", "--workload", "synthetic/uniform", "--capacity", "8"],
}


@pytest.mark.parametrize("value", ["3000", "0", "-4096", str(2**63), "256", str(2 * 2**20), "4k"])
@pytest.mark.parametrize("command", sorted(PAGE_BYTES_COMMANDS))
def test_page_bytes_must_be_a_power_of_two_page(capsys, data_dir, tmp_path, command, value):
    """3000 used to shift page boundaries, 0 raised ZeroDivisionError and 2**63 OverflowError; every command's
    --page-bytes now says what it takes, before anything is read or written."""
    args = [x.format(spc=data_dir / "formats/sample.spc", target=tmp_path / "t.img")
            for x in PAGE_BYTES_COMMANDS[command]]
    code, out, err = run_any(capsys, *args, "--page-bytes", value)
    _one_error_line(code, out, err, f"flashrepro {command}: error: --page-bytes must be")
    assert list(tmp_path.iterdir()) == []


def test_page_bytes_that_are_a_power_of_two_are_used(capsys, data_dir):
    sizes = {}
    for pb in ("512", "4096", "65536"):
        code, out, err = run_any(capsys, "trace-info", str(data_dir / "formats/sample.diskmon.txt"), "--page-bytes", pb)
        assert code == 0, err
        sizes[pb] = json.loads(out)["page_references"]
    assert sizes["512"] > sizes["4096"] >= sizes["65536"]


def test_duplicate_column_is_an_error_not_a_key_error(capsys, data_dir, isolated_interim):
    path = str(data_dir / "formats/sample.generic.csv")
    code, out, err = run_any(capsys, "simulate", "--json", "--policy", "lru", "--trace", path, "--format", "csv",
                             "--sep", ";",
                             "--header", "--capacity-pages", "4", "--columns", "time=0,op=1,offset=2,size=2")
    _one_error_line(code, out, err, "--columns: offset and size both name column 2")
    code, out, err = run_any(capsys, "trace-info", str(data_dir / "formats/sample.generic.csv"), "--format", "csv",
                             "--sep", ";", "--header", "--columns", "time=ts,op=kind,offset=where,size=where")
    _one_error_line(code, out, err, "--columns: offset and size both name column 'where'")


GENERIC = ["--format", "csv", "--columns", "time=0,op=1,offset=2,size=3", "--sep", ";", "--header"]


def test_trace_info_and_simulate_read_the_generic_csv_with_op_names(capsys, data_dir, isolated_interim):
    """tests/data/formats/sample.generic.csv (ops RD and WR) could not be read from the command line; trace-info
    had no --columns at all."""
    path = str(data_dir / "formats/sample.generic.csv")
    code, out, err = run_any(capsys, "trace-info", path, *GENERIC, "--ops", "read=RD,write=WR")
    assert code == 0, err
    d = json.loads(out)
    assert (d["requests"], d["reads"], d["writes"], d["read_bytes"], d["write_bytes"]) == (2, 1, 1, 4096, 8192)
    assert d["duration_s"] == 1.0
    code, out, err = run_any(capsys, "simulate", "--json", "--policy", "lru", "--trace", path, "--capacity-pages",
                             "8", *GENERIC,
                             "--ops", "read=RD,write=WR")
    assert code == 0, err
    d = json.loads(out)
    assert (d["references"], d["write_references"]) == (5, 3)  # 4096 B at byte 1: 2 pages; 8192 B at byte 2: 3
    code, out, err = run_any(capsys, "trace-info", path, *GENERIC)  # without --ops: RD is no read
    _one_error_line(code, out, err, "sample.generic.csv:2: unknown opcode 'RD'")


@pytest.mark.parametrize("ops,msg", [
    ("read=RD", "--ops must name the write op too"),
    ("write=WR", "--ops must name the read op too"),
    ("read=RD,write=RD", "--ops: 'RD' cannot name both a read and a write"),
    ("read=RD,read=RD,write=WR", "--ops: 'RD' is given twice"),
    ("rd=RD,write=WR", "--ops expects read=NAME,write=NAME"),
    ("read=,write=WR", "--ops expects read=NAME,write=NAME"),
    ("read=R;D,write=WR", "holds the separator or a blank"),
])
def test_bad_op_names(capsys, data_dir, ops, msg):
    code, out, err = run_any(capsys, "trace-info", str(data_dir / "formats/sample.generic.csv"), *GENERIC, "--ops", ops)
    _one_error_line(code, out, err, msg)


def test_several_names_for_one_op(capsys, tmp_path, isolated_interim):
    path = tmp_path / "t.csv"
    path.write_text("0,RD,0,4096\n1,rd,4096,4096\n2,WR,0,4096\n")
    code, out, err = run_any(capsys, "trace-info", str(path), "--format", "csv", "--columns",
                             "time=0,op=1,offset=2,size=3", "--ops", "read=RD,read=rd,write=WR")
    assert code == 0, err
    assert (json.loads(out)["reads"], json.loads(out)["writes"]) == (2, 1)


@pytest.mark.parametrize("extra,msg", [
    (["--format", "spc", "--offset-unit", "512"], "--offset-unit: these describe a --format csv trace"),
    (["--format", "spc", "--header", "--sep", ";"], "--header, --sep: these describe a --format csv trace"),
    (["--ops", "read=RD,write=WR"], "--ops: these describe a --format csv trace"),
    (["--format", "csv"], "--format csv needs --columns"),
    (["--format", "nope"], "--format nope: unknown trace format 'nope'"),
])
def test_csv_options_are_never_ignored(capsys, data_dir, extra, msg):
    """--offset-unit 512 with --format spc used to be ignored without a word (sizes 512 times too small)."""
    code, out, err = run_any(capsys, "trace-info", str(data_dir / "formats/sample.spc"), *extra)
    _one_error_line(code, out, err, msg)


def test_library_keywords_are_named_as_flags(capsys, data_dir, tmp_path):
    """A reader says ``format=``; the command line says ``--format`` (outside a quoted trace line)."""
    junk = tmp_path / "junk.bin"
    junk.write_bytes(bytes(range(256)) * 4)
    code, out, err = run_any(capsys, "trace-info", str(junk))
    _one_error_line(code, out, err, "pass --format one of")
    assert "format=" not in err
    code, out, err = run_any(capsys, "replay", "--policy", "lru", "--trace", str(data_dir / "golden_trace.spc"),
                             "--capacity-pages", "64", "--target", str(tmp_path / "t.img"), "--max-mib", "0.001")
    _one_error_line(code, out, err, "does not fit in --max-mib 0.001 (1048 bytes)")
    code, out, err = run_any(capsys, "replay", "--policy", "lru", "--trace", str(data_dir / "golden_trace.spc"),
                             "--capacity-pages", "64", "--target", "/proc/no/such.img", "--max-mib", "1")
    _one_error_line(code, out, err, "--target /proc/no/such.img: /proc/no: No such file or directory")


def test_as_flags_leaves_quoted_text_alone():
    import argparse

    from flashrepro.cli import _as_flags

    a = argparse.Namespace(format=None, max_mib=2.0)
    flags = {"format": "--format", "max_mib": "--max-mib"}
    assert _as_flags("t.csv:3: bad field 'format=1' ; pass format= one of a", a, flags) == \
        "t.csv:3: bad field 'format=1' ; pass --format one of a"
    assert _as_flags("fits in max_bytes=2097152", a, flags) == "fits in --max-mib 2 (2097152 bytes)"
    assert _as_flags("page_bytes=3000", a, flags) == "page_bytes=3000"  # no such flag here: left as it is


@pytest.mark.parametrize("param,msg", [
    ("bogus", "--param expects KEY=VALUE (or KEY=V1,V2,...), got 'bogus'; policy 'clock' takes cache_reads, "
              "insert_referenced"),
    ("=1", "policy 'clock' takes cache_reads, insert_referenced"),
    ("insert_referenced=maybe", "--param insert_referenced=maybe: policy 'clock': parameter insert_referenced: 'maybe' "
                                "is not a boolean; policy 'clock' takes cache_reads, insert_referenced"),
    ("nope=1", "--param nope: no listed policy takes it; policy 'clock' takes cache_reads, insert_referenced"),
])
def test_param_errors_name_the_policys_parameters(capsys, data_dir, param, msg):
    code, out, err = run_any(capsys, "simulate", "--json", "--policy", "clock", "--trace",
                             str(data_dir / "formats/sample.spc"),
                             "--capacity-pages", "4", "--param", param)
    _one_error_line(code, out, err, msg)


def test_sweep_policy_grid_errors_name_the_flag(capsys):
    code, out, err = run_any(capsys, "sweep", "--policy", "clock:insert_referenced=true,maybe", "--workload",
                             "synthetic/uniform", "--capacity", "8")
    _one_error_line(code, out, err, "--policy clock:insert_referenced=true,maybe: policy 'clock': parameter "
                    "insert_referenced: 'maybe' is not a boolean; policy 'clock' takes cache_reads, insert_referenced")
    code, out, err = run_any(capsys, "sweep", "--policy", "nope:x=1", "--workload", "synthetic/uniform", "--capacity",
                             "8")
    _one_error_line(code, out, err, "--policy nope: unknown policy 'nope'; registered policies:")


def _closed_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_sweep_without_a_scheduler_fails_at_once_naming_it(capsys):
    """It used to wait 30 s and end in an OSError traceback."""
    import time

    address = f"tcp://127.0.0.1:{_closed_port()}"
    t0 = time.perf_counter()
    code, out, err = run_any(capsys, "sweep", "--policy", "lru", "--workload", "synthetic/uniform", "--capacity", "8",
                             "--scheduler", address)
    _one_error_line(code, out, err, f"flashrepro sweep: error: --scheduler {address}: no Dask scheduler answers there")
    assert time.perf_counter() - t0 < 5
    code, out, err = run_any(capsys, "sweep", "--policy", "lru", "--workload", "synthetic/uniform", "--capacity", "8",
                             "--scheduler", "nonsense")
    _one_error_line(code, out, err, "--scheduler nonsense: not a Dask scheduler address")


def test_a_silent_scheduler_times_out(capsys, monkeypatch):
    """Something listens but never answers as a scheduler: an error after SCHEDULER_TIMEOUT_S, naming it."""
    import socket
    import time

    from flashrepro import sweep

    monkeypatch.setattr(sweep, "SCHEDULER_TIMEOUT_S", 0.25)  # (the test waits it out)
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        address = f"tcp://127.0.0.1:{server.getsockname()[1]}"
        t0 = time.perf_counter()
        code, out, err = run_any(capsys, "sweep", "--policy", "lru", "--workload", "synthetic/uniform", "--capacity",
                                 "8", "--scheduler", address)
    _one_error_line(code, out, err, f"--scheduler {address}: no Dask scheduler answered within 0.25 s")
    assert time.perf_counter() - t0 < 10


def test_sweep_refuses_outputs_it_cannot_use_before_running(capsys, tmp_path):
    (tmp_path / "rows.parquet").write_bytes(b"not parquet")
    base = ["sweep", "--policy", "lru", "--workload", "synthetic/uniform", "--capacity", "8"]
    code, out, err = run_any(capsys, *base, "--out", str(tmp_path / "rows.parquet"))
    _one_error_line(code, out, err, f"--out {tmp_path / 'rows.parquet'} is not a parquet file of sweep rows")
    code, out, err = run_any(capsys, *base, "--csv", str(tmp_path))
    _one_error_line(code, out, err, f"--csv {tmp_path} is a folder")
    code, out, err = run_any(capsys, *base, "--workload", "nope")
    _one_error_line(code, out, err, "--workload nope: neither a catalog workload (flashrepro workloads lists them) "
                    "nor a file")
    assert (tmp_path / "rows.parquet").read_bytes() == b"not parquet"


def test_robustness_refuses_a_paper_that_is_not_there(capsys, tmp_path):
    """A misspelt module path used to be skipped with exit code 0."""
    code, out, err = run_any(capsys, "robustness", "--paper", "no_such_module", "--out", str(tmp_path))
    _one_error_line(code, out, err, "--paper no_such_module: no module no_such_module")
    code, out, err = run_any(capsys, "robustness", "--paper", "99", "--out", str(tmp_path))
    _one_error_line(code, out, err, "--paper 99: no paper 99")
    assert list(tmp_path.iterdir()) == []


def test_ctrl_c_is_one_line_and_exit_130(capsys, data_dir, monkeypatch):
    from flashrepro import traces

    def interrupted(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(traces, "open_trace", interrupted)  # (the command line imports it when a command runs)
    code, out, err = run_any(capsys, "simulate", "--json", "--policy", "lru", "--trace",
                             str(data_dir / "formats/sample.spc"),
                             "--capacity-pages", "4")
    assert (code, out, err) == (130, "", "flashrepro simulate: interrupted (Ctrl-C)\n")


def test_sigterm_during_a_command_is_exit_143_and_the_handler_is_restored(capsys, data_dir, monkeypatch):
    import os
    import signal

    from flashrepro import traces

    before = signal.getsignal(signal.SIGTERM)

    def killed(*a, **k):
        os.kill(os.getpid(), signal.SIGTERM)
        raise AssertionError("SIGTERM did not stop the command")

    monkeypatch.setattr(traces, "open_trace", killed)
    code, out, err = run_any(capsys, "simulate", "--json", "--policy", "lru", "--trace",
                             str(data_dir / "formats/sample.spc"),
                             "--capacity-pages", "4")
    assert (code, out, err) == (143, "", "flashrepro simulate: terminated (SIGTERM)\n")
    assert signal.getsignal(signal.SIGTERM) == before


def test_stale_parse_temporaries_are_removed_when_a_command_starts(capsys, data_dir, isolated_interim):
    """A parse killed by SIGKILL leaves its temporary folder; the next command removes it (a live writer's stays)."""
    import os
    import subprocess
    import sys

    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    folder = isolated_interim / "traces"
    stale = folder / f".0123456789abcdef01234567-0123456789ab.pid{int(dead.stdout)}.abcd1234"
    live = folder / f".0123456789abcdef01234567-0123456789ab.pid{os.getpid()}.efgh5678"
    for d in (stale, live):
        d.mkdir(parents=True)
        (d / "offset_bytes.bin").write_bytes(b"\0" * 4096)
    code, out, err = run_any(capsys, "formats")
    assert code == 0 and not stale.exists() and live.exists()


def test_max_request_bytes(capsys, tmp_path):
    """A write of 2 GiB is past the default limit (1 GiB): an error at its line naming the limit; with the
    limit raised it reads, and a flag value that is not a byte count is refused naming the flag."""
    f = tmp_path / "big.csv"
    f.write_text("0,W,0,4096\n1,W,4096,2147483648\n")
    args = ("trace-info", str(f), "--format", "csv", "--columns", "time=0,op=1,offset=2,size=3")
    code, _, err = run(capsys, *args)
    assert code == 2 and f"{f}:2: a write of 2,147,483,648 bytes" in err
    assert "larger than the limit of 1,073,741,824 bytes (--max-request-bytes)" in err
    code, out, _ = run(capsys, *args, "--max-request-bytes", str(4 << 30))
    assert code == 0 and json.loads(out)["requests"] == 2
    with pytest.raises(SystemExit) as e:
        main([*args, "--max-request-bytes", "0"])
    assert e.value.code == 2 and "--max-request-bytes must be a whole number of bytes" in capsys.readouterr().err


def test_a_named_command_builds_its_own_parser_alone_the_same():
    """main builds only the named subcommand's parser (the others' modules stay unimported): each one, built
    alone, has the same arguments and help as in the full parser, and the full parser lists every command."""
    from flashrepro import cli as C

    ap, full, runs = C.parser()
    assert list(full) == list(C._BUILDERS)
    assert set(runs) == set(C._BUILDERS)
    for name in C._BUILDERS:
        _, alone, alone_runs = C.parser(name)
        assert alone[name].format_help() == full[name].format_help(), name
        assert name in alone_runs


@pytest.mark.parametrize("argv,code", [(["--help"], 0), (["simulate", "--bogus"], 2), (["sweep", "--help"], 0),
                                       (["ftl-policies", "--x"], 2)])
def test_help_and_argument_errors_do_not_import_numba(argv, code):
    """The caches' and readers' modules, and with them Numba (0.6-0.9 s), are imported by the commands that run
    kernels or read traces: help and an error in the arguments answer without them. In a fresh interpreter."""
    import os
    import subprocess
    import sys

    script = ("import sys\nfrom flashrepro.cli import main\ntry:\n    main(sys.argv[1:])\nexcept SystemExit as e:\n"
              "    print(e.code, 'numba' in sys.modules, file=sys.stderr)\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    out = subprocess.run([sys.executable, "-c", script, *argv], capture_output=True, text=True, env=env, timeout=120)
    assert out.stderr.strip().splitlines()[-1] == f"{code} False", out.stderr
