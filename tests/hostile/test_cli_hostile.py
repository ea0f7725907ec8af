"""The command line under hostile input (issue 24): every subcommand, given bad arguments or a bad file, ends with
exactly one line on stderr, no traceback and a non-zero exit code; a signal in the middle of a parse leaves no
temporary behind; a reader that closes the pipe ends a listing quietly.

Most cases run in this process (``flashrepro.cli.main``, stderr through capsys); the ones that need a process of
their own run as ``python -m flashrepro``: what the shell sees (the exit code of the console entry, anything
printed at interpreter exit), signals, a closed pipe. Those run two at a time to keep the file fast.
"""

import concurrent.futures
import gzip
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import flashrepro
from flashrepro.cli import main

LIB = Path(flashrepro.__file__).resolve().parents[1]
FORMATS = Path(__file__).resolve().parents[1] / "data" / "formats"


# --- bad files ---------------------------------------------------------------------------------------------------
def _write_files(folder: Path) -> dict:
    """Bad trace files (and a few outputs) by name; ``missing`` is a path that does not exist."""
    rng = np.random.default_rng(24)
    spc = (FORMATS / "sample.spc").read_bytes()
    whole = gzip.compress(spc * 50)
    files = {
        "missing": folder / "missing.spc",
        "empty": b"",
        "garbage": rng.integers(0, 256, 4096, dtype=np.uint8).tobytes(),
        "corrupt.gz": whole[:10] + bytes(rng.integers(0, 256, 200, dtype=np.uint8)) + whole[210:],
        "truncated.gz": whole[: len(whole) // 2],
        "blanks": b"\n\n   \n",
        "dup-header.csv": b"op,offset,size\nW,0,4096\n",
        "rw.blkparse": b"  8,16   1  1  0.000100000  0  C  WS 1000 + 8 [0]\n"
                       b"  8,16   1  3  0.000300000  0  C  RW 2000 + 8 [0]\n",
        "x.most.po": b"    0.013739323\tC\tWS\t 4079896\t   8\t 137\t     jbd2\tJ\tfile-NONE\n"
                     b"    0.020000000\tC\tXS\t 100\t  16\t 137\t     app\tD\n",
        "short.mobibench": b"1 0 open /data/data/app/db O_RDWR|O_CREAT|O_LARGEFILE 30\n1 10 write 30\n",
        "not-parquet.parquet": b"PAR1 but not really",
        "target.img": b"precious",
    }
    out = {}
    for name, data in files.items():
        if isinstance(data, Path):
            out[name] = data
            continue
        out[name] = folder / name
        out[name].write_bytes(data)
    return out


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    return _write_files(tmp_path_factory.mktemp("hostile"))


def _sim(trace, *extra):
    return ["simulate", "--json", "--policy", "lru", "--trace", str(trace), "--capacity-pages", "8", *extra]


def _replay(trace, target, *extra):
    return ["replay", "--policy", "lru", "--trace", str(trace), "--capacity-pages", "8", "--target", str(target),
            "--max-mib", "4", *extra]


def _sweep(*extra):
    return ["sweep", "--policy", "lru", "--workload", "synthetic/uniform", "--capacity", "8", *extra]


SPC = FORMATS / "sample.spc"
CSV = FORMATS / "sample.generic.csv"

# (id, arguments built from the files) -> run in this process
IN_PROCESS = {
    "simulate-missing-file": lambda f: _sim(f["missing"]),
    "simulate-empty-file": lambda f: _sim(f["empty"]),
    "simulate-blank-lines": lambda f: _sim(f["blanks"], "--format", "spc"),
    "simulate-binary-garbage": lambda f: _sim(f["garbage"]),
    "simulate-garbage-as-spc": lambda f: _sim(f["garbage"], "--format", "spc"),
    "simulate-truncated-gz": lambda f: _sim(f["truncated.gz"], "--format", "spc"),
    "simulate-wrong-format": lambda f: _sim(SPC, "--format", "msr"),
    "simulate-unknown-format": lambda f: _sim(SPC, "--format", "nope"),
    "simulate-unknown-policy": lambda f: ["simulate", "--json", "--policy", "nope", "--trace", str(SPC),
                                                                                                   "--capacity-pages",
                                          "8"],
    "simulate-page-bytes-3000": lambda f: _sim(SPC, "--page-bytes", "3000"),
    "simulate-page-bytes-huge": lambda f: _sim(SPC, "--page-bytes", str(2**63)),
    "simulate-capacity-0": lambda f: ["simulate", "--json", "--policy", "lru", "--trace", str(SPC),
                                                                                              "--capacity-pages", "0"],
    "simulate-capacity-huge": lambda f: ["simulate", "--json", "--policy", "lru", "--trace", str(SPC),
                                                                                                 "--capacity-pages",
                                         str(2**64)],
    "simulate-param-no-equals": lambda f: _sim(SPC, "--param", "cache_reads"),
    "simulate-param-unknown": lambda f: _sim(SPC, "--param", "bogus=1"),
    "simulate-param-bad-value": lambda f: _sim(SPC, "--param", "cache_reads=sometimes"),
    "simulate-param-twice": lambda f: _sim(SPC, "--param", "cache_reads=1", "--param", "cache_reads=0"),
    "simulate-columns-duplicate": lambda f: _sim(CSV, "--format", "csv", "--sep", ";", "--header", "--columns",
                                                 "time=0,op=1,offset=2,size=2"),
    "simulate-columns-without-csv": lambda f: _sim(SPC, "--columns", "op=1,offset=2,size=3"),
    "simulate-csv-without-columns": lambda f: _sim(SPC, "--format", "csv"),
    "simulate-columns-past-the-line": lambda f: _sim(CSV, "--format", "csv", "--sep", ";", "--header", "--columns",
                                                     "op=1,offset=2,size=9"),
    "simulate-unknown-op-name": lambda f: _sim(CSV, "--format", "csv", "--sep", ";", "--header", "--columns",
                                               "op=1,offset=2,size=3"),
    "simulate-ops-both-kinds": lambda f: _sim(CSV, "--format", "csv", "--sep", ";", "--header", "--columns",
                                              "op=1,offset=2,size=3", "--ops", "read=RD,write=RD"),
    "simulate-empty-separator": lambda f: _sim(CSV, "--format", "csv", "--sep", "", "--columns",
                                               "op=1,offset=2,size=3"),
    "simulate-unit-ignored": lambda f: _sim(SPC, "--format", "spc", "--offset-unit", "512"),
    "simulate-unknown-flag": lambda f: _sim(SPC, "--bogus"),
    "replay-target-holds-data": lambda f: _replay(SPC, f["target.img"]),
    "replay-target-is-a-folder": lambda f: _replay(SPC, f["target.img"].parent),
    "replay-max-mib-nan": lambda f: ["replay", "--policy", "lru", "--trace", str(SPC), "--capacity-pages", "8",
                                     "--target", str(f["target.img"]) + ".new", "--max-mib", "nan"],
    "replay-page-bytes-0": lambda f: _replay(SPC, str(f["target.img"]) + ".new", "--page-bytes", "0"),
    "replay-sql-option-on-a-file": lambda f: _replay(SPC, str(f["target.img"]) + ".new", "--synchronous", "off"),
    "replay-merge-writes-maybe": lambda f: _replay(SPC, str(f["target.img"]) + ".new", "--merge-writes", "maybe"),
    "trace-info-missing-file": lambda f: ["trace-info", str(f["missing"])],
    "trace-info-empty-file": lambda f: ["trace-info", str(f["empty"])],
    "trace-info-garbage": lambda f: ["trace-info", str(f["garbage"])],
    "trace-info-folder": lambda f: ["trace-info", str(f["empty"].parent)],
    "trace-info-page-bytes-0": lambda f: ["trace-info", str(SPC), "--page-bytes", "0"],
    "trace-info-page-bytes-text": lambda f: ["trace-info", str(SPC), "--page-bytes", "4k"],
    "trace-info-csv-header-missing-name": lambda f: ["trace-info", str(f["dup-header.csv"]), "--format", "csv",
                                                     "--header", "--columns", "op=op,offset=offset,size=bytes"],
    "trace-info-no-path": lambda f: ["trace-info"],
    "sweep-unknown-workload": lambda f: _sweep("--workload", "nope"),
    "sweep-capacity-0": lambda f: _sweep("--capacity", "0"),
    "sweep-page-bytes-3000": lambda f: _sweep("--page-bytes", "3000"),
    "sweep-policy-grid-bad-value": lambda f: ["sweep", "--policy", "clock:insert_referenced=yes,perhaps", "--workload",
                                              "synthetic/uniform", "--capacity", "8"],
    "sweep-out-not-parquet": lambda f: _sweep("--out", str(f["not-parquet.parquet"])),
    "sweep-workers-0": lambda f: _sweep("--executor", "process", "--workers", "0"),
    "sweep-bad-scheduler-address": lambda f: _sweep("--scheduler", "nonsense"),
    "robustness-unknown-paper": lambda f: ["robustness", "--paper", "99", "--out", str(f["empty"].parent / "r")],
    "robustness-missing-module": lambda f: ["robustness", "--paper", "no.such.module", "--out",
                                            str(f["empty"].parent / "r")],
    "robustness-points-0": lambda f: ["robustness", "--points", "0", "--out", str(f["empty"].parent / "r")],
    "policies-extra-argument": lambda f: ["policies", "extra"],
    "ftl-policies-unknown-flag": lambda f: ["ftl-policies", "--all"],
    "formats-unknown-flag": lambda f: ["formats", "--long"],
    "workloads-unknown-flag": lambda f: ["workloads", "--available=yes"],
    "unknown-command": lambda f: ["simulte"],
}
IN_PROCESS_XFAIL = {  # cases that are read without a word until the readers refuse them
    "simulate-corrupt-gz": lambda f: _sim(f["corrupt.gz"], "--format", "spc"),
    "trace-info-blkparse-rw": lambda f: ["trace-info", str(f["rw.blkparse"]), "--format", "blkparse"],
    "trace-info-most-unknown-letter": lambda f: ["trace-info", str(f["x.most.po"]), "--format", "most"],
    "trace-info-mobibench-missing-size": lambda f: ["trace-info", str(f["short.mobibench"]), "--format", "mobibench"],
}


def _check(code, out: str, err: str):
    assert code not in (0, None), (code, out, err)
    assert "Traceback" not in err and "Traceback" not in out, err
    assert len(err.splitlines()) == 1, err
    assert err.startswith("flashrepro"), err


def _in_process(capsys, args):
    try:
        code = main(args)
    except SystemExit as e:  # argparse's errors
        code = e.code
    return (code, *capsys.readouterr())


@pytest.mark.parametrize("case", sorted(IN_PROCESS))
def test_in_process(case, files, capsys, isolated_interim):
    _check(*_in_process(capsys, IN_PROCESS[case](files)))
    assert files["target.img"].read_bytes() == b"precious"


@pytest.mark.parametrize("case", sorted(IN_PROCESS_XFAIL))
def test_in_process_needs_a_reader_fix(case, files, capsys, isolated_interim):
    _check(*_in_process(capsys, IN_PROCESS_XFAIL[case](files)))


# --- as the shell runs it -----------------------------------------------------------------------------------------
def _env(home: Path) -> dict:
    env = dict(os.environ, PYTHONPATH=str(LIB), FLASHREPRO_HOME=str(home), MPLBACKEND="Agg", PYTHONHASHSEED="0")
    env.pop("FLASHREPRO_VARIANT", None)
    return env


def _closed_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


SUBPROCESS = {
    "simulate-missing-file": lambda f: _sim(f["missing"]),
    "simulate-empty-file": lambda f: _sim(f["empty"]),
    "simulate-binary-garbage": lambda f: _sim(f["garbage"]),
    "simulate-truncated-gz": lambda f: _sim(f["truncated.gz"], "--format", "spc"),
    "simulate-page-bytes-3000": lambda f: _sim(SPC, "--page-bytes", "3000"),
    "simulate-columns-duplicate": lambda f: _sim(CSV, "--format", "csv", "--sep", ";", "--header", "--columns",
                                                 "time=0,op=1,offset=2,size=2"),
    "simulate-missing-argument": lambda f: ["simulate", "--json", "--trace", str(SPC)],
    "replay-target-holds-data": lambda f: _replay(SPC, f["target.img"]),
    "replay-page-bytes-huge": lambda f: _replay(SPC, str(f["target.img"]) + ".new", "--page-bytes", str(2**63)),
    "trace-info-garbage": lambda f: ["trace-info", str(f["garbage"])],
    "trace-info-generic-csv-without-ops": lambda f: ["trace-info", str(CSV), "--format", "csv", "--sep", ";",
                                                     "--header", "--columns", "time=0,op=1,offset=2,size=3"],
    "sweep-no-scheduler-there": lambda f: _sweep("--scheduler", f"tcp://127.0.0.1:{_closed_port()}"),
    "sweep-out-not-parquet": lambda f: _sweep("--out", str(f["not-parquet.parquet"])),
    "robustness-points-0": lambda f: ["robustness", "--points", "0"],
    "policies-extra-argument": lambda f: ["policies", "extra"],
    "ftl-policies-unknown-flag": lambda f: ["ftl-policies", "--all"],
    "no-command": lambda f: [],
}
SUBPROCESS_XFAIL = {
    "simulate-corrupt-gz": lambda f: _sim(f["corrupt.gz"], "--format", "spc"),
    "trace-info-corrupt-gz": lambda f: ["trace-info", str(f["corrupt.gz"])],
    "trace-info-blkparse-rw": lambda f: ["trace-info", str(f["rw.blkparse"]), "--format", "blkparse"],
}


def _run(args, home: Path) -> tuple[int, str, str]:
    p = subprocess.run([sys.executable, "-m", "flashrepro", *args], capture_output=True, text=True, env=_env(home),
                       timeout=120)
    return p.returncode, p.stdout, p.stderr


@pytest.fixture(scope="module")
def shell_results(files, tmp_path_factory):
    """Every subprocess case run once, two at a time: id -> (exit code, stdout, stderr)."""
    home = tmp_path_factory.mktemp("home")
    cases = {**SUBPROCESS, **SUBPROCESS_XFAIL}
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        futures = {case: pool.submit(_run, make(files), home) for case, make in cases.items()}
        return {case: f.result() for case, f in futures.items()}


@pytest.mark.parametrize("case", sorted(SUBPROCESS))
def test_as_a_program(case, shell_results):
    _check(*shell_results[case])


@pytest.mark.parametrize("case", sorted(SUBPROCESS_XFAIL))
def test_as_a_program_needs_a_reader_fix(case, shell_results):
    _check(*shell_results[case])


@pytest.mark.parametrize("command", ["policies", "ftl-policies"])
def test_a_closed_pipe_ends_a_listing_quietly(command, tmp_path):
    """``flashrepro policies | head``: the reader is gone before the listing is written. No BrokenPipeError
    traceback (nor one at interpreter exit): nothing on stderr, exit code 141 (128 + SIGPIPE)."""
    proc = subprocess.Popen([sys.executable, "-m", "flashrepro", command], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=_env(tmp_path))
    proc.stdout.close()  # before the program can write a byte (it is still importing)
    _, err = proc.communicate(timeout=60)  # (communicate skips the closed stdout)
    assert proc.returncode == 128 + signal.SIGPIPE and err.decode() == ""


# --- a signal in the middle of a parse ------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def big_trace(tmp_path_factory) -> Path:
    """A 2.4M-line SPC trace (about 60 MB): long enough to parse that a signal lands in the middle."""
    i = np.arange(100_000)
    block = "".join(f"0,{(k * 7919) % 1_000_000 * 8},4096,{'w' if k % 3 == 0 else 'r'},{k / 1000:.6f}\n" for k in i)
    path = tmp_path_factory.mktemp("big") / "big.spc"
    with open(path, "w") as f:
        for _ in range(24):
            f.write(block)
    return path


def _hidden(folder: Path) -> list[Path]:
    return sorted(folder.glob(".*")) if folder.is_dir() else []


@pytest.mark.parametrize("sig,code,said", [(signal.SIGTERM, 143, "terminated (SIGTERM)"),
                                           (signal.SIGINT, 130, "interrupted (Ctrl-C)")])
def test_a_signal_mid_parse_leaves_no_temporary(big_trace, tmp_path, sig, code, said):
    """SIGTERM used to leave the parse cache's hidden temporary folder (up to 180 MB) behind; now it is cleaned
    up as on Ctrl-C, with one line on stderr and exit code 143 (130 for Ctrl-C)."""
    cache = tmp_path / "data" / "interim" / "traces"
    proc = subprocess.Popen([sys.executable, "-m", "flashrepro", "trace-info", str(big_trace), "--format", "spc"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_env(tmp_path))
    deadline = time.monotonic() + 60
    while not _hidden(cache) and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.005)
    assert _hidden(cache), "the parse never started writing its temporary folder"
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=60)
    assert (proc.returncode, out, err) == (code, "", f"flashrepro trace-info: {said}\n")
    assert _hidden(cache) == []
