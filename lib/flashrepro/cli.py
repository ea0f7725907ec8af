"""The command line: ``flashrepro simulate | replay | policies | ftl-policies | formats | trace-info | workloads |
sweep | robustness``."""

from __future__ import annotations

import argparse
import json
import math
import sys

from .cache import POLICIES, make_params, simulate
from .cache.onepass import simulate_source
from .traces import FORMATS, TraceFormatError, catalog, load_trace, open_trace
from .traces.readers import get_format


def _params(items: list[str]) -> dict:
    out = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise ValueError(f"--param expects KEY=VALUE, got {item!r}")
        key = key.strip()
        if key in out:
            raise ValueError(f"--param {key} is given twice ({out[key]!r} and {value.strip()!r}); give it once")
        out[key] = value.strip()
    return out


CSV_FIELDS = ("time", "op", "offset", "size", "device")


def csv_layout(columns: str, header: bool = False, sep: str = ",", offset_unit: int = 1, size_unit: int = 1,
               time_unit_s: float = 1.0) -> dict:
    """``--columns time=0,op=1,offset=2,size=3`` (0-based indices, or header names with ``--header``) as the
    csv reader's layout (:class:`~flashrepro.traces.CsvLayout` fields); op, offset and size are required."""
    out = {}
    for item in columns.split(","):
        key, eq, value = (x.strip() for x in item.partition("="))
        if not eq or not key or not value:
            raise ValueError(f"--columns expects FIELD=COLUMN,... (fields {', '.join(CSV_FIELDS)}), got {item!r}")
        if key not in CSV_FIELDS:
            raise ValueError(f"--columns: unknown field {key!r}; fields: {', '.join(CSV_FIELDS)}")
        if key in out:
            raise ValueError(f"--columns: {key} is given twice")
        if value.isdigit():
            out[key] = int(value)
        elif header:
            out[key] = value
        else:
            raise ValueError(f"--columns: {key}={value!r} is not a 0-based column number (names need --header)")
    missing = [k for k in ("op", "offset", "size") if k not in out]
    if missing:
        raise ValueError(f"--columns must give {', '.join(missing)}")
    for name, v in (("--offset-unit", offset_unit), ("--size-unit", size_unit), ("--time-unit-s", time_unit_s)):
        if not (v > 0 and math.isfinite(v)):
            raise ValueError(f"{name} must be positive, got {v}")
    return {**out, "header": header, "sep": sep, "offset_unit": offset_unit, "size_unit": size_unit,
            "time_unit_s": time_unit_s}


def _reader_opts(fmt: str | None, a=None) -> dict:
    """Reader options from the command line (``--columns`` and its companions for ``--format csv``)."""
    if fmt is not None:
        get_format(fmt)  # an unknown name fails before the file is hashed
    columns = getattr(a, "columns", None)
    if columns is None:
        return {}
    if fmt != "csv":
        raise ValueError("--columns goes with --format csv")
    return {"layout": csv_layout(columns, a.header, a.sep, a.offset_unit, a.size_unit, a.time_unit_s)}


def _load(path: str, fmt: str | None, a=None):
    return load_trace(path, fmt, **_reader_opts(fmt, a))


def cmd_simulate(a) -> dict:
    make_params(a.policy, **_params(a.param))  # unknown policy or parameter: fail before reading the trace
    source = open_trace(a.trace, a.format, **_reader_opts(a.format, a))  # parsed into the parse cache, streamed
    bar = None
    if _progress(a):
        from tqdm import tqdm

        bar = tqdm(total=len(source), unit="req", unit_scale=True, file=sys.stderr, desc=a.policy)
    try:
        res = simulate_source(source, a.policy, a.capacity_pages, page_bytes=a.page_bytes,
                              flush_at_end=a.flush_at_end, progress=bar and (lambda n: bar.update(n - bar.n)),
                              **_params(a.param))
    finally:
        if bar is not None:
            bar.close()
    return res.to_dict()


def _bool_arg(text: str) -> bool:
    t = text.strip().lower()
    if t in ("true", "1", "yes", "on"):
        return True
    if t in ("false", "0", "no", "off"):
        return False
    raise argparse.ArgumentTypeError(f"expected true or false, got {text!r}")


def _max_bytes(mib: float) -> int:
    if not math.isfinite(mib) or mib <= 0:
        raise ValueError(f"--max-mib must be a positive finite number of MiB, got {mib}")
    if mib * 2**20 >= 2**63:
        raise ValueError(f"--max-mib {mib} is beyond what a file offset can address (2**63 bytes)")
    return int(mib * 2**20)


def _progress(a) -> bool:
    """A progress bar only for a person watching: on a terminal (stderr), and not with --quiet."""
    return not getattr(a, "quiet", False) and sys.stderr.isatty()


SQL_OPTIONS = {  # replay's --format android-sql options -> ReplaySettings fields
    "sql_page_size": "page_size", "journal_mode": "journal_mode", "synchronous": "synchronous",
    "sql_cache_pages": "cache_pages", "span_s": "span_s", "statements": "source", "journal_identity":
    "journal_identity", "merge_writes": "merge_writes"}


def sql_settings(a) -> dict:
    """The SQLite replay settings given on the command line (``--sql-page-size`` ...), checked: a bad value or
    an option given with a trace that is not an android-sql app folder is an error that says why."""
    from pathlib import Path

    from .traces.android_sql import ReplaySettings, is_app_folder

    given = {field: getattr(a, opt) for opt, field in SQL_OPTIONS.items() if getattr(a, opt, None) is not None}
    if not given:
        return {}
    names = ", ".join("--" + opt.replace("_", "-") for opt in SQL_OPTIONS
                      if getattr(a, opt, None) is not None)
    if a.format not in (None, "android-sql"):
        raise ValueError(f"{names}: these set how an android-sql app folder is replayed through SQLite; they do "
                         f"not go with --format {a.format}")
    if not is_app_folder(Path(a.trace)):
        raise ValueError(f"{names}: these set how an android-sql app folder is replayed through SQLite, and "
                         f"{a.trace} is not one (a folder with loading.sql and threads/ or benchset/)")
    ReplaySettings(**given).check()
    return given


def cmd_replay(a) -> dict:
    import dataclasses

    from .devices import CARDS, io_time
    from .replay import replay

    _max_bytes(a.max_mib)  # a bad bound or target fails before the trace is read
    make_params(a.policy, **_params(a.param))
    sql = sql_settings(a)  # a bad SQLite replay setting fails before anything is replayed
    tr = load_trace(a.trace, a.format, **sql) if sql else _load(a.trace, a.format, a)
    res = simulate(tr, a.policy, a.capacity_pages, page_bytes=a.page_bytes, log_io=True, **_params(a.param))
    after = res.io_log.to_trace(tr.time_s)
    rep = replay(after, a.target, max_bytes=_max_bytes(a.max_mib), allow_existing=a.allow_existing,
                 direct=not a.buffered, progress=_progress(a))
    out = {**res.to_dict(), "replay": dataclasses.asdict(rep),
           "model": {name: io_time(res.io_log, card) for name, card in CARDS.items()}}
    if tr.meta.get("format") == "android-sql":  # the SQLite replay's settings and what it found
        out["sql_replay"] = {k: tr.meta[k] for k in ("settings", "statements", "failed", "pragmas") if k in tr.meta}
    return out


def cmd_ftl_policies() -> dict:
    from .ftl import POLICIES as FTL_POLICIES
    from .ftl import TRIGGERS

    return {"policies": {n: p.describe() for n, p in FTL_POLICIES.items()},
            "gc_triggers": {n: t.describe() for n, t in TRIGGERS.items()}}


def _policy_args(s):
    s.add_argument("--policy", required=True)
    s.add_argument("--trace", required=True, help="trace file (plain, .gz, .bz2, .xz, .zst), or a folder for a "
                   "folder format (android-sql)")
    s.add_argument("--format", default=None, help="trace format (default: sniffed from the file)")
    s.add_argument("--capacity-pages", type=int, required=True)
    s.add_argument("--page-bytes", type=int, default=4096)
    s.add_argument("--param", action="append", default=[], metavar="KEY=VALUE", help="policy parameter")
    s.add_argument("--quiet", action="store_true", help="no progress bar (there is none when stderr is not a "
                   "terminal either)")
    c = s.add_argument_group("--format csv", "a simple delimited trace: which column holds what")
    c.add_argument("--columns", default=None, metavar="FIELD=COL,...", help="e.g. time=0,op=1,offset=2,size=3 "
                   "(0-based; header names with --header); fields: time, op, offset, size, device")
    c.add_argument("--header", "--skip-header", dest="header", action="store_true",
                   help="the first line is a header (skipped; its names may be used in --columns)")
    c.add_argument("--sep", default=",", help="field separator (default ',')")
    c.add_argument("--offset-unit", type=int, default=1, help="bytes per offset unit (512 for sectors)")
    c.add_argument("--size-unit", type=int, default=1, help="bytes per size unit")
    c.add_argument("--time-unit-s", type=float, default=1.0, help="seconds per time unit")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="flashrepro", description=__doc__)
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("simulate", help="run one policy on a trace file; prints JSON counters")
    _policy_args(s)
    s.add_argument("--flush-at-end", action="store_true", help="write back dirty pages after the last request")
    r = sub.add_parser("replay", help="run a policy and replay its after-cache trace on a file or device, timed")
    _policy_args(r)
    r.add_argument("--target", required=True, help="file or block device to write to")
    r.add_argument("--max-mib", type=float, required=True, help="never touch more than this many MiB of the target")
    r.add_argument("--allow-existing", action="store_true", help="allow overwriting a target that holds data")
    r.add_argument("--buffered", action="store_true", help="buffered I/O + fdatasync instead of O_DIRECT")
    q = r.add_argument_group("--format android-sql", "how an app folder's SQL statements are replayed through "
                             "SQLite into the block trace (defaults: flashrepro.traces.android_sql.ReplaySettings)")
    q.add_argument("--sql-page-size", type=int, default=None, metavar="BYTES",
                   help="SQLite's page size (a power of two, 512-65536; default 4096); the block trace stays in "
                   "4 KiB blocks")
    q.add_argument("--journal-mode", type=str.lower, default=None, metavar="MODE",
                   help="the rollback journal: delete (default), truncate or persist")
    q.add_argument("--synchronous", type=str.lower, default=None, metavar="MODE",
                   help="PRAGMA synchronous: full (default), normal or off")
    q.add_argument("--sql-cache-pages", type=int, default=None, metavar="PAGES",
                   help="SQLite's own page cache (PRAGMA cache_size, in pages; default 500)")
    q.add_argument("--span-s", type=float, default=None, metavar="SECONDS",
                   help="the traces have no timestamps: statement k of n gets k * SECONDS / n (default 1050)")
    q.add_argument("--statements", type=str.lower, default=None, metavar="SOURCE",
                   help="threads (default: every thread file) or benchset (the client streams)")
    q.add_argument("--journal-identity", type=str.lower, default=None, metavar="ID",
                   help="generation (default: a journal re-created after a delete is a new file) or path")
    q.add_argument("--merge-writes", default=None, type=_bool_arg, metavar="BOOL",
                   help="true (default): one block write per block per run of consecutive writes; false: per "
                   "syscall")
    sub.add_parser("policies", help="list registered policies")
    sub.add_parser("ftl-policies", help="list the FTL's GC policies and GC triggers")
    sub.add_parser("formats", help="list trace formats")
    t = sub.add_parser("trace-info", help="statistics of a trace file as JSON")
    t.add_argument("path")
    t.add_argument("--format", default=None)
    t.add_argument("--page-bytes", type=int, default=4096)
    w = sub.add_parser("workloads", help="list catalog workloads and whether they are available here")
    w.add_argument("--available", action="store_true")
    from . import sweep  # issue 15: the sweep runner's subcommand lives in its own module
    sweep.add_parser(sub)
    from . import robustness  # issue 23: the robustness maps
    robustness.add_parser(sub)
    a = ap.parse_args(argv)
    if a.cmd == "sweep":
        return sweep.main(a)
    if a.cmd == "robustness":
        return robustness.main(a)
    try:
        if a.cmd == "simulate":
            out = cmd_simulate(a)
        elif a.cmd == "replay":
            out = cmd_replay(a)
        elif a.cmd == "policies":
            out = {n: {"description": p.description, "params": list(p.params.__dataclass_fields__)}
                   for n, p in sorted(POLICIES.items())}
        elif a.cmd == "ftl-policies":
            out = cmd_ftl_policies()
        elif a.cmd == "formats":
            out = {n: f.description for n, f in sorted(FORMATS.items())}
        elif a.cmd == "trace-info":
            out = _load(a.path, a.format).stats(a.page_bytes)
        else:
            out = {n: {"available": catalog.available(n), "description": catalog.CATALOG[n].description}
                   for n in catalog.names(available_only=a.available)}
    except (ValueError, OSError, TraceFormatError) as e:
        print(f"flashrepro {a.cmd}: error: {e}", file=sys.stderr)
        return 2
    except MemoryError as e:  # check_memory says what does not fit before a run starts
        print(f"flashrepro {a.cmd}: error: not enough memory: {e}", file=sys.stderr)
        return 3
    json.dump(out, sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
