"""The command line: JSON outputs and errors that list the valid names."""

import json

import pytest

from flashrepro.cli import main


def run(capsys, *args):
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_simulate_prints_counters(capsys, data_dir):
    code, out, _ = run(capsys, "simulate", "--policy", "lru", "--trace", str(data_dir / "formats/sample.diskmon.txt"),
                       "--capacity-pages", "4", "--flush-at-end")
    assert code == 0
    d = json.loads(out)
    for key in ("references", "hits", "misses", "hit_ratio", "device_reads", "device_writes",
                "device_write_requests"):
        assert key in d
    # 16 KiB at sector 6194591 straddles 5 pages, 4 KiB at sector 100 two, 512 B at sector 7 one
    assert d["references"] == 8 and d["device_writes"] == 6  # the 5 + 1 written pages, all flushed


def test_simulate_with_param(capsys, data_dir):
    code, out, _ = run(capsys, "simulate", "--policy", "clock", "--trace", str(data_dir / "formats/sample.spc"),
                       "--format", "spc", "--capacity-pages", "2", "--param", "insert_referenced=true")
    assert code == 0 and json.loads(out)["params"] == {"insert_referenced": True, "cache_reads": True}


@pytest.mark.parametrize("args,msg", [
    (["--policy", "nope"], "registered policies: bs_clock, cflru, clock, clock_dnv, clock_hbm, fifo, linux_readahead"),
    (["--policy", "lru", "--format", "nope"], "known formats: android-sql, arc"),
    (["--policy", "clock", "--param", "bogus=1"], "valid: cache_reads, insert_referenced"),
    (["--policy", "clock", "--param", "insert_referenced=maybe"], "not a boolean"),
])
def test_simulate_errors(capsys, data_dir, args, msg):
    code, _, err = run(capsys, "simulate", "--trace", str(data_dir / "formats/sample.spc"), "--capacity-pages", "2",
                       *args)
    assert code == 2 and msg in err


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
    target = tmp_path / "card.img"
    args = ["replay", "--policy", "bs_clock", "--trace", str(data_dir / "golden_trace.spc"), "--capacity-pages", "64",
            "--target", str(target), "--max-mib", "8"]
    code, out, err = run(capsys, *args)
    assert code == 0, err
    d = json.loads(out)
    assert d["replay"]["requests"] == d["device_read_requests"] + d["device_write_requests"]
    assert set(d["model"]) == {"samsung", "sandisk"} and target.stat().st_size <= 8 * 2**20
    code, _, err = run(capsys, *args)  # the target now holds data
    assert code == 2 and "allow_existing" in err


def test_simulate_a_segment_policy_with_its_parameter(data_dir, isolated_interim, capsys):
    code = main(["simulate", "--policy", "seg_cull_adaptive", "--param", "segment_kib=32", "--trace",
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
    base = ["simulate", "--policy", "lru", "--trace", str(path), "--format", "csv", "--capacity-pages", "10"]
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
    code, out, err = run(capsys, "simulate", "--policy", "lru", "--trace", str(data_dir / "golden_trace.spc"),
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
