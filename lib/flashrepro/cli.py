"""The command line: ``flashrepro simulate | replay | policies | ftl-policies | formats | trace-info | workloads |
sweep | robustness``.

Every error is one line on stderr, ``flashrepro <command>: error: <what>``, naming the flag as it is typed
(``--page-bytes``, never the library's keyword ``page_bytes=``), with exit code 2 (3 when a run does not fit in
memory) and no traceback. Ctrl-C ends a run with exit code 130 and SIGTERM with 143, in both cases after
removing what the run was writing (a half-parsed trace in the parse cache, a replay target it created), and
stale temporaries that killed runs left in the parse cache are removed when a command starts. A reader that
closes the pipe early (``flashrepro policies | head``) ends the command quietly with exit code 141 (128 +
SIGPIPE, as a program killed by SIGPIPE reports it).
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import math
import os
import re
import signal
import sys
from fractions import Fraction
from pathlib import Path

from . import paths, tempfiles
from ._io import MAX_REQUEST_BYTES, atomic_path

# The caches' and the readers' modules are imported by the functions that use them: they import Numba (0.6-0.9 s),
# which a command that fails on its arguments, or lists what it needs no kernel for, does without.

MAX_COUNT = 2**63 - 1  # a count that fits the kernels' int64
MAX_UNIT = 2**40  # bytes per offset or size unit: far above any trace's (512 B sectors), far below an overflow


# --- argument types: a bad value is an argparse error naming the flag -----------------------------------------
class Once(argparse.Action):
    """A flag that takes one value: given twice, it is an error (argparse would silently keep the last; a
    list is one comma-separated value)."""

    def __call__(self, parser, namespace, values, option_string=None):
        seen = namespace.__dict__.setdefault("_flags_given", set())
        if self.dest in seen:
            parser.error(f"{option_string} is given twice; give it once (a list is comma-separated: a,b,c)")
        seen.add(self.dest)
        setattr(namespace, self.dest, values)


class Parser(argparse.ArgumentParser):
    """argparse with its errors on one line, ``flashrepro simulate: error: argument --page-bytes: ...``, and a
    pointer to ``--help`` instead of the usage block."""

    def error(self, message):
        message = re.sub(r"^argument (\S+): (?=\1\b)", "", message)  # "argument --x: --x must ..." -> "--x must ..."
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def flag_type(check):
    """An argparse type from ``check(text)``, whose ValueError message (it names the flag) is the error."""

    def convert(text: str):
        try:
            return check(text)
        except ValueError as e:
            raise argparse.ArgumentTypeError(str(e)) from None

    convert.__name__ = check.__name__
    return convert


def _whole(text: str, flag: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise ValueError(f"{flag} must be a whole number, got {text!r}") from None


@flag_type
def _request_limit_type(text: str) -> int:
    from .traces.readers import check_request_limit

    return check_request_limit(_whole(text, "--max-request-bytes"), "--max-request-bytes")


def count_type(flag: str, least: int = 1, most: int = MAX_COUNT):
    """The type of a flag that takes a whole number from ``least`` to ``most``."""

    def count(text: str) -> int:
        n = _whole(text, flag)
        if not least <= n <= most:
            raise ValueError(f"{flag} must be a whole number from {least} to {most}, got {n}")
        return n

    return flag_type(count)


@flag_type
def page_bytes_type(text: str) -> int:
    """``--page-bytes``: a power of two from 512 B to 1 MiB (:func:`~flashrepro.traces.trace.check_page_bytes`)."""
    from .traces.trace import check_page_bytes

    return check_page_bytes(_whole(text, "--page-bytes"), "--page-bytes")


def _bool_arg(text: str) -> bool:
    t = text.strip().lower()
    if t in ("true", "1", "yes", "on"):
        return True
    if t in ("false", "0", "no", "off"):
        return False
    raise argparse.ArgumentTypeError(f"expected true or false, got {text!r}")


# --- --policy and --param ------------------------------------------------------------------------------------
def _takes(policy: str) -> str:
    """What ``policy`` takes, for error messages; an unknown policy is an error naming ``--policy``."""
    from .cache.registry import get_policy

    try:
        fields = sorted(f.name for f in dataclasses.fields(get_policy(policy).params))
    except ValueError as e:
        raise ValueError(f"--policy {policy}: {e}") from None
    return f"policy {policy!r} takes " + (", ".join(fields) if fields else "no parameters")


def check_params(policy: str, params: dict, flag: str):
    """The policy's parameter object from ``params`` (strings as typed), by the policy's own rules
    (:func:`~flashrepro.cache.make_params`); an error names ``flag`` and lists the policy's parameters."""
    from .cache import make_params

    takes = _takes(policy)
    try:
        return make_params(policy, **params)
    except ValueError as e:
        msg = str(e)
        raise ValueError(f"{flag}: {msg}" + ("" if "valid:" in msg else f"; {takes}")) from None


def policy_params(policy: str, items: list[str]) -> dict:
    """``--param KEY=VALUE`` items for ``--policy`` as a dict of strings, checked (:func:`check_params`)
    before any trace is read."""
    out = {}
    for item in items:
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or not key:
            raise ValueError(f"--param expects KEY=VALUE, got {item!r}; {_takes(policy)}")
        if key in out:
            raise ValueError(f"--param {key} is given twice ({out[key]!r} and {value.strip()!r}); give it once")
        out[key] = value.strip()
    check_params(policy, out, "--param")
    return out


# --- --format csv: which column holds what -------------------------------------------------------------------
CSV_FIELDS = ("time", "op", "offset", "size", "device")
OP_KINDS = {"read": "reads", "write": "writes"}  # --ops KIND=NAME -> the CsvLayout field of that kind's names
CSV_FLAGS = {"header": "--header", "sep": "--sep", "offset_unit": "--offset-unit", "size_unit": "--size-unit",
             "time_unit_s": "--time-unit-s", "ops": "--ops"}  # options that only describe a --columns trace


def _column_spec(key: str, value: str, header: bool) -> int | str:
    if value.isdigit():
        return int(value)
    if header:
        return value
    raise ValueError(f"--columns: {key}={value!r} is not a 0-based column number (names need --header)")


def _columns(columns: str, header: bool) -> dict:
    out = {}
    for item in columns.split(","):
        key, eq, value = (x.strip() for x in item.partition("="))
        if not eq or not key or not value:
            raise ValueError(f"--columns expects FIELD=COLUMN,... (fields {', '.join(CSV_FIELDS)}), got {item!r}")
        if key not in CSV_FIELDS:
            raise ValueError(f"--columns: unknown field {key!r}; fields: {', '.join(CSV_FIELDS)}")
        if key in out:
            raise ValueError(f"--columns: {key} is given twice")
        spec = _column_spec(key, value, header)
        same = [k for k, v in out.items() if v == spec]
        if same:  # one column read as two fields: the reader would lose one of them
            raise ValueError(f"--columns: {same[0]} and {key} both name column {spec!r}; each field needs its own")
        out[key] = spec
    missing = [k for k in ("op", "offset", "size") if k not in out]
    if missing:
        raise ValueError(f"--columns must give {', '.join(missing)}")
    return out


def op_names(ops: str, sep: str = ",") -> dict:
    """``--ops read=RD,write=WR`` as the layout's ``reads`` and ``writes`` (a kind may be given more than once:
    ``read=R,read=RD``). Both kinds are needed: the default names would otherwise still count as ops."""
    names: dict = {kind: [] for kind in OP_KINDS}
    for item in ops.split(","):
        kind, eq, name = (x.strip() for x in item.partition("="))
        if not eq or kind not in OP_KINDS or not name:
            raise ValueError(f"--ops expects read=NAME,write=NAME (the op column's names), got {item!r}")
        if sep in name or any(c.isspace() for c in name):
            raise ValueError(f"--ops: the op name {name!r} holds the separator or a blank")
        for other, taken in names.items():
            if name in taken:
                raise ValueError(f"--ops: {name!r} is given twice" if other == kind else
                                 f"--ops: {name!r} cannot name both a {other} and a {kind}")
        names[kind].append(name)
    missing = [kind for kind, taken in names.items() if not taken]
    if missing:
        raise ValueError(f"--ops must name the {' and '.join(missing)} op too (e.g. read=RD,write=WR)")
    return {OP_KINDS[kind]: tuple(taken) for kind, taken in names.items()}


def csv_layout(columns: str, header: bool = False, sep: str = ",", offset_unit: int = 1, size_unit: int = 1,
               time_unit_s: float = 1.0, ops: str | None = None) -> dict:
    """``--columns time=0,op=1,offset=2,size=3`` (0-based indices, or header names with ``--header``) and its
    companions as the csv reader's layout (:class:`~flashrepro.traces.CsvLayout` fields); op, offset and size
    are required, two fields never share a column, and ``--ops`` gives the op column's names."""
    if not sep or "\n" in sep or "\r" in sep:
        raise ValueError(f"--sep must be one or more characters other than a line break, got {sep!r}")
    out = _columns(columns, header)
    if not (time_unit_s > 0 and math.isfinite(time_unit_s)):
        raise ValueError(f"--time-unit-s must be positive and finite, got {time_unit_s}")
    if ops is not None:
        out |= op_names(ops, sep)
    return {**out, "header": header, "sep": sep, "offset_unit": offset_unit, "size_unit": size_unit,
            "time_unit_s": time_unit_s}


def _csv_args(parser) -> None:
    """The reader options (one set for every command that reads a trace file): the request size limit and the
    ``--format csv`` options."""
    parser.add_argument("--max-request-bytes", action=Once, type=_request_limit_type, default=None, metavar="BYTES",
                        help=f"the largest read or write a line may ask for (default {MAX_REQUEST_BYTES:,}; a trim "
                        "of any size is read as a range)")
    c = parser.add_argument_group("--format csv", "a simple delimited trace: which column holds what")
    c.add_argument("--columns", action=Once, default=None, metavar="FIELD=COL,...",
                   help="e.g. time=0,op=1,offset=2,size=3 (0-based; header names with --header); fields: time, op, "
                   "offset, size, device")
    c.add_argument("--header", "--skip-header", dest="header", action="store_true", default=None,
                   help="the first line is a header (skipped; its names may be used in --columns)")
    c.add_argument("--sep", action=Once, default=None, help="field separator (default ',')")
    c.add_argument("--offset-unit", action=Once, type=count_type("--offset-unit", 1, MAX_UNIT), default=None,
                   help="bytes per offset unit (512 for sectors; default 1)")
    c.add_argument("--size-unit", action=Once, type=count_type("--size-unit", 1, MAX_UNIT), default=None,
                   help="bytes per size unit (default 1)")
    c.add_argument("--time-unit-s", action=Once, type=float, default=None, help="seconds per time unit (default 1)")
    c.add_argument("--ops", action=Once, default=None, metavar="read=NAME,write=NAME",
                   help="the op column's names (default: R/W, Read/Write, 0/1 in either case), e.g. read=RD,write=WR")


def _reader_opts(fmt: str | None, a) -> dict:
    """Reader options from the command line (``--columns`` and its companions for ``--format csv``)."""
    from .traces import CSV_PRESETS
    from .traces.readers import get_format

    if fmt is not None:
        try:
            get_format(fmt)  # an unknown name fails before the file is hashed
        except ValueError as e:
            raise ValueError(f"--format {fmt}: {e}") from None
    limit = getattr(a, "max_request_bytes", None)
    opts = {} if limit is None else {"max_request_bytes": limit}
    given = {dest: getattr(a, dest) for dest in CSV_FLAGS if getattr(a, dest, None) is not None}
    if a.columns is None:
        if fmt == "csv":
            raise ValueError("--format csv needs --columns FIELD=COL,... (which column holds what); the CSV formats "
                             f"{', '.join(CSV_PRESETS)} need none")
        if given:
            raise ValueError(f"{', '.join(CSV_FLAGS[d] for d in given)}: these describe a --format csv trace and go "
                             "with --columns")
        return opts
    if fmt != "csv":
        raise ValueError("--columns goes with --format csv")
    return {**opts, "layout": csv_layout(a.columns, **given)}


# --- the commands --------------------------------------------------------------------------------------------
def _check_trace(a) -> None:
    if not Path(a.trace).exists():
        raise FileNotFoundError(f"--trace {a.trace}: no such file or folder")


# --- grids: --policy a,b  --cache 1MiB,1%  --param key=v1,v2 (simulate and sweep) -----------------------------
SIZE_UNITS = {"B": 1, "KIB": 1 << 10, "MIB": 1 << 20, "GIB": 1 << 30, "TIB": 1 << 40,
              "KB": 10**3, "MB": 10**6, "GB": 10**9, "TB": 10**12}
_SIZE = re.compile(r"(?P<num>\d+(?:\.\d+)?)\s*(?P<unit>%|[A-Za-z]*)")


@dataclasses.dataclass(frozen=True)
class CacheSize:
    """One ``--cache`` size as typed: bytes (``64MiB``, ``1GB``, ``4096B``), a share of the trace's footprint
    (``1%``) or, from ``--capacity-pages``, pages."""

    text: str
    nbytes: int | None = None
    percent: Fraction | None = None
    pages: int | None = None

    def to_pages(self, page_bytes: int, footprint_pages: int | None = None, flag: str = "--cache") -> int:
        """Whole pages of ``page_bytes`` (rounded down); a share needs the trace's footprint in pages."""
        if self.pages is not None:
            n = self.pages
        elif self.nbytes is not None:
            n = self.nbytes // page_bytes
        else:
            n = math.floor(self.percent * footprint_pages / 100)
        if n < 1:
            of = (f"{self.percent}% of a {footprint_pages:,}-page footprint" if self.percent is not None
                  else f"{self.nbytes:,} bytes")
            raise ValueError(f"{flag} {self.text}: {of} is less than one {page_bytes}-byte page")
        if n > MAX_COUNT:
            raise ValueError(f"{flag} {self.text}: more pages than a count can hold")
        return n


def list_items(text: str, flag: str) -> list[str]:
    """A comma-separated list: items stripped, none empty, none twice."""
    items = [t.strip() for t in text.split(",")]
    if not all(items):
        raise ValueError(f"{flag} {text!r}: an empty item in the list (a,b,c)")
    dup = sorted({t for t in items if items.count(t) > 1})
    if dup:
        raise ValueError(f"{flag} {text!r}: {', '.join(dup)} is listed twice")
    return items


def cache_sizes(text: str, flag: str = "--cache") -> list[CacheSize]:
    """``--cache 1MiB,64MB,1%``: sizes in bytes with a binary (KiB, MiB, GiB, TiB) or decimal (KB, MB, GB, TB)
    unit or B, or a share of the trace's footprint in pages (a percentage above 0 and at most 100)."""
    out = []
    for item in list_items(text, flag):
        m = _SIZE.fullmatch(item)
        unit = m["unit"].upper() if m else ""
        if m and unit == "%":
            pct = Fraction(m["num"])
            if not 0 < pct <= 100:
                raise ValueError(f"{flag} {item}: a share of the footprint is above 0% and at most 100%")
            out.append(CacheSize(item, percent=pct))
        elif m and unit in SIZE_UNITS:
            out.append(CacheSize(item, nbytes=math.floor(Fraction(m["num"]) * SIZE_UNITS[unit])))
        elif m and not unit:
            raise ValueError(f"{flag} {item}: give a unit (4096B, 64KiB, 1MiB, 1GB) or a share of the trace's "
                             "footprint (1%); --capacity-pages takes pages")
        else:
            raise ValueError(f"{flag} {item}: not a size; sizes are a number and a unit (B, KiB, MiB, GiB, TiB, KB, "
                             "MB, GB, TB) or a percentage of the trace's footprint (1%)")
    return out


def page_counts(text: str, flag: str = "--capacity-pages") -> list[CacheSize]:
    """``--capacity-pages 8,1024``: sizes in pages."""
    check = count_type(flag)
    out = []
    for item in list_items(text, flag):
        try:
            out.append(CacheSize(item, pages=check(item)))
        except argparse.ArgumentTypeError as e:
            raise ValueError(str(e)) from None
    return out


def _fields(policy: str) -> set[str]:
    from .cache.registry import get_policy

    return {f.name for f in dataclasses.fields(get_policy(policy).params)}


def policy_grid(policy_args: list[str], param_args: list[str]) -> list[tuple[str, dict]]:
    """The (policy, parameter grid) pairs of ``--policy`` values (each a comma-separated list of names, or one
    ``NAME:KEY=V1,V2[:KEY=...]`` with its own grid) and ``--param KEY=V1,V2`` items, which apply to every listed
    policy that declares KEY (a KEY that none declares is an error). Values are checked and converted by
    each policy's rules before anything runs."""
    entries: list[tuple[str, dict]] = []
    for arg in policy_args:
        if ":" in arg:
            entries.append(_sweep_policy(arg))
            continue
        for name in list_items(arg, "--policy"):
            check_params(name, {}, f"--policy {name}")  # an unknown policy
            entries.append((name, {}))
    given: dict[str, list[str]] = {}
    names = list(dict.fromkeys(n for n, _ in entries))
    for item in param_args:
        key, sep, values = (x.strip() for x in item.partition("="))
        if not sep or not key:
            raise ValueError(f"--param expects KEY=VALUE (or KEY=V1,V2,...), got {item!r}; "
                             + "; ".join(_takes(n) for n in names))
        if key in given:
            raise ValueError(f"--param {key} is given twice ({','.join(given[key])!r} and {values!r}); list its "
                             "values once, comma-separated (KEY=V1,V2)")
        given[key] = list_items(values, f"--param {key}")
    for key, values in given.items():
        takers = [i for i, (name, _) in enumerate(entries) if key in _fields(name)]
        if not takers:
            raise ValueError(f"--param {key}: no listed policy takes it; " + "; ".join(_takes(n) for n in names))
        for i in takers:
            name, grid = entries[i]
            if key in grid:
                raise ValueError(f"--param {key}: already given in --policy {name}:{key}=...; give it once")
            grid[key] = [getattr(check_params(name, {key: v}, f"--param {key}={v}"), key) for v in values]
    return entries


def grid_cases(workloads: list, runs: list[tuple[str, dict]], sizes: list[CacheSize], page_bytes: int,
               footprint) -> tuple[list[tuple], list[str]]:
    """The sweep runner's cases (workload, policy, params, pages) of every workload x run x size, and each
    case's size as typed; ``footprint(workload)`` (pages at ``page_bytes``) is asked only for shares."""
    cases, labels = [], []
    for w in workloads:
        fp = footprint(w) if any(c.percent is not None for c in sizes) else None
        try:
            pages = [c.to_pages(page_bytes, fp) for c in sizes]
        except ValueError as e:
            raise ValueError(f"{e} (workload {getattr(w, 'name', w)})") from None
        for name, params in runs:
            for c, n in zip(sizes, pages, strict=True):
                cases.append((w, name, params, n))
                labels.append(c.text)
    return cases, labels


def _trace_paths(a) -> list[str]:
    traces = list(a.traces) + list(a.trace or [])
    if not traces:
        raise ValueError("give a trace file: flashrepro simulate TRACE... --policy NAME --cache SIZE")
    for t in traces:
        if not Path(t).exists():
            raise FileNotFoundError(f"trace {t}: no such file or folder")
    dup = sorted({t for t in traces if traces.count(t) > 1})
    if dup:
        raise ValueError(f"trace {dup[0]} is given twice")
    return traces


def _sizes(a) -> list[CacheSize]:
    if (a.cache is None) == (a.capacity_pages is None):
        raise ValueError("give the cache sizes with --cache (64MiB,1%) or --capacity-pages (pages), not both"
                         if a.cache is not None else "give the cache sizes: --cache 64MiB,1GB,1% or --capacity-pages N")
    return cache_sizes(a.cache) if a.cache is not None else page_counts(a.capacity_pages)


def _footprint(source, page_bytes: int) -> int:
    """Distinct pages a trace reads or writes, at ``page_bytes``."""
    from .cache.simulate import stream_units

    return stream_units(source, 1, 0, page_bytes).n


def cmd_simulate(a) -> int:
    """``flashrepro simulate TRACE... --policy a,b --cache 1MiB,1%``: every trace x policy (x parameter values)
    x size through the sweep runner, one table; one policy at one size on one trace takes the streaming path
    (the trace is not held whole past the parse cache)."""
    from .sweep import TraceFile, column_order, result_row, stable

    _load_policy_files(a.policy_file)
    entries = policy_grid([a.policy], a.param)  # unknown policy or parameter: fail before reading a trace
    sizes = _sizes(a)
    traces = _trace_paths(a)
    opts = _reader_opts(a.format, a)
    if a.out is not None:
        _check_output(a.out, "--out")
    from .sweep import expand_policies

    runs = expand_policies(entries)
    sources = {}
    for t in traces:  # parsed into the parse cache here, once: the workers load it from there
        sources[t] = _open_with_progress(t, a.format, opts, a)
    single = len(traces) == 1 and len(runs) == 1 and len(sizes) == 1 and not a.policy_file and a.out is None
    if single and a.executor == "local" and a.scheduler is None:
        name, params = runs[0]
        source = sources[traces[0]]
        cap = sizes[0].to_pages(a.page_bytes, _footprint(source, a.page_bytes) if sizes[0].percent else None)
        res = _run_one(source, name, cap, params, a)
        if a.json:
            _print_json_value(res.to_dict())
            return 0
        import polars as pl

        row = result_row(res, traces[0], params, cap)
        table = pl.DataFrame([row]).select(column_order(list(row)))
        labels = [sizes[0].text]
    else:
        workloads = [TraceFile.of(t, a.format, **opts) for t in traces]
        cases, labels = grid_cases(workloads, runs, sizes, a.page_bytes,
                                   lambda w: _footprint(sources[w.path], a.page_bytes))
        from .sweep import run_cases

        res = run_cases(cases, page_bytes=a.page_bytes, flush_at_end=a.flush_at_end, executor=a.executor,
                        workers=a.workers, scheduler=a.scheduler, store=a.out, progress=_progress(a),
                        policy_files=a.policy_file or ())
        for f in res.failures:
            print(f"flashrepro simulate: run failed: {f}", file=sys.stderr)
        if res.failures:
            return 1
        table = stable(res.table)
        if a.out is not None:
            print(f"flashrepro simulate: {table.height} rows in {a.out}", file=sys.stderr)
            return 0
    table = _with_labels(table, labels)
    if a.json:
        _print_json_value(table.to_dicts())
    else:
        sys.stdout.write(table.write_csv())
    return 0


def _load_policy_files(files) -> None:
    """``--policy-file`` files, each run once and its prototypes registered (before any policy name is checked)."""
    if not files:
        return
    from .cache import prototype

    for f in files:
        if not Path(f).is_file():
            raise FileNotFoundError(f"--policy-file {f}: no such file")
        try:
            prototype.load_file(f)
        except (TypeError, ValueError) as e:
            raise ValueError(f"--policy-file {f}: {e}") from None


def _with_labels(table, labels: list[str]):
    """``table`` with the ``cache`` column (each row's size as typed) before ``capacity_pages``."""
    import polars as pl

    return table.insert_column(table.columns.index("capacity_pages"), pl.Series("cache", labels))


def _print_json_value(value) -> None:
    json.dump(value, sys.stdout, indent=2)
    sys.stdout.write("\n")


def _open_with_progress(path: str, fmt: str | None, opts: dict, a):
    """The trace through the parse cache (parsed now if it is not there, with a count of the requests read
    on a terminal) and, on a terminal, which format it was read as."""
    from .traces import open_trace

    bar = None
    if _progress(a):
        from tqdm import tqdm

        bar = tqdm(unit="req", unit_scale=True, file=sys.stderr, desc=f"parsing {Path(path).name}", leave=False)
    try:
        source = open_trace(path, fmt, progress=bar and (lambda n: bar.update(n - bar.n)), **opts)
    finally:
        if bar is not None:
            bar.close()
    if _progress(a):
        print(f"{path}: {len(source):,} requests, format {_format_of(source, fmt)}", file=sys.stderr)
    return source


def _format_of(source, fmt: str | None) -> str:
    """The format a trace was read as: ``fmt`` as given, or what the reader sniffed (``sniffed``)."""
    meta = getattr(source, "meta", None) or {}
    found = meta.get("format") if isinstance(meta, dict) else None
    return fmt or (f"{found} (sniffed)" if found else "unknown")


def _run_one(source, policy: str, cap: int, params: dict, a):
    from .cache.onepass import simulate_source

    bar = None
    if _progress(a):
        from tqdm import tqdm

        bar = tqdm(total=len(source), unit="req", unit_scale=True, file=sys.stderr, desc=policy)
    try:
        return simulate_source(source, policy, cap, page_bytes=a.page_bytes, flush_at_end=a.flush_at_end,
                               progress=bar and (lambda n: bar.update(n - bar.n)), **params)
    finally:
        if bar is not None:
            bar.close()


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
    from .traces.android_sql import ReplaySettings, is_app_folder

    given = {opt: getattr(a, opt) for opt in SQL_OPTIONS if getattr(a, opt, None) is not None}
    if not given:
        return {}
    names = ", ".join("--" + opt.replace("_", "-") for opt in given)
    if a.format not in (None, "android-sql"):
        raise ValueError(f"{names}: these set how an android-sql app folder is replayed through SQLite; they do "
                         f"not go with --format {a.format}")
    if not is_app_folder(Path(a.trace)):
        raise ValueError(f"{names}: these set how an android-sql app folder is replayed through SQLite, and "
                         f"{a.trace} is not one (a folder with loading.sql and threads/ or benchset/)")
    for opt, value in given.items():
        try:
            ReplaySettings(**{SQL_OPTIONS[opt]: value}).check()
        except ValueError as e:
            raise ValueError(f"--{opt.replace('_', '-')} {value}: {e}") from None
    return {SQL_OPTIONS[opt]: value for opt, value in given.items()}


def cmd_replay(a) -> dict:
    from .cache import simulate
    from .devices import CARDS, io_time
    from .replay import replay
    from .traces import load_trace

    _max_bytes(a.max_mib)  # a bad bound or target fails before the trace is read
    params = policy_params(a.policy, a.param)
    _check_trace(a)
    opts = _reader_opts(a.format, a)
    sql = sql_settings(a)  # a bad SQLite replay setting fails before anything is replayed
    tr = load_trace(a.trace, a.format, **(sql or opts))
    res = simulate(tr, a.policy, a.capacity_pages, page_bytes=a.page_bytes, log_io=True, **params)
    after = res.io_log.to_trace(tr.time_s)
    rep = replay(after, a.target, max_bytes=_max_bytes(a.max_mib), allow_existing=a.allow_existing,
                 direct=not a.buffered, progress=_progress(a))
    out = {**res.to_dict(), "replay": dataclasses.asdict(rep),
           "model": {name: io_time(res.io_log, card) for name, card in CARDS.items()}}
    if tr.meta.get("format") == "android-sql":  # the SQLite replay's settings and what it found
        out["sql_replay"] = {k: tr.meta[k] for k in ("settings", "statements", "failed", "pragmas") if k in tr.meta}
    return out


def cmd_trace_info(a) -> dict:
    from .traces import load_trace

    tr = load_trace(a.path, a.format, **_reader_opts(a.format, a))
    stats = tr.stats(a.page_bytes)
    fmt = tr.meta.get("format")
    given = {"format": fmt, "format_sniffed": a.format is None} if fmt else {}
    keys = list(stats)
    at = keys.index("source") + 1 if "source" in keys else len(keys)  # after the file's name, before its numbers
    return {**{k: stats[k] for k in keys[:at]}, **given, **{k: stats[k] for k in keys[at:]}}


def cmd_ftl_policies(a=None) -> dict:
    from .ftl import POLICIES as FTL_POLICIES
    from .ftl import TRIGGERS

    return {"policies": {n: p.describe() for n, p in FTL_POLICIES.items()},
            "gc_triggers": {n: t.describe() for n, t in TRIGGERS.items()}}


def cmd_policies(a) -> dict:
    from .cache import POLICIES

    return {n: {"description": p.description, "params": list(p.params.__dataclass_fields__)}
            for n, p in sorted(POLICIES.items())}


def cmd_formats(a) -> dict:
    from .traces import FORMATS

    return {n: f.description for n, f in sorted(FORMATS.items())}


def cmd_workloads(a) -> dict:
    from .traces import catalog

    return {n: {"available": catalog.available(n), "description": catalog.CATALOG[n].description}
            for n in catalog.names(available_only=a.available)}


JSON_COMMANDS = {"replay": cmd_replay, "policies": cmd_policies,
                 "ftl-policies": cmd_ftl_policies, "formats": cmd_formats, "trace-info": cmd_trace_info,
                 "workloads": cmd_workloads}


def _print_json(command):
    def run(a) -> int:
        json.dump(command(a), sys.stdout, indent=2)
        sys.stdout.write("\n")
        return 0

    return run


# --- errors, signals and a closed pipe ----------------------------------------------------------------------
_KEYWORDS = {"format": "format", "page_bytes": "page_bytes", "capacity_pages": "capacity_pages",
             "scheduler": "scheduler", "allow_existing": "allow_existing", "max_bytes": "max_mib",
             "max_request_bytes": "max_request_bytes"}
# ``kw=value``, or a keyword named alone in parentheses (a limit: "... bytes (max_request_bytes)")
_KEYWORD = re.compile(r"\b(?P<kw>" + "|".join(_KEYWORDS) + r")(?:=(?P<value>[^\s,;)]*)|(?=\)))")


def _as_flags(text: str, a, flags: dict) -> str:
    """``text`` with the library's keywords (``format=``, ``allow_existing=True``) written as the flags that set
    them (``--format``, ``--allow-existing``), outside quoted text (a quoted trace line is left as it is)."""

    def flag(m):
        dest = _KEYWORDS[m["kw"]]
        if dest not in flags:
            return m[0]
        if m["kw"] == "max_bytes" and m["value"] is not None:
            return f"{flags[dest]} {getattr(a, dest):g} ({m['value']} bytes)"
        return flags[dest] if m["value"] in (None, "", "True") else f"{flags[dest]} {m['value']}"

    parts = re.split(r"('(?:[^'\\]|\\.)*')", text)
    return "".join(p if i % 2 else _KEYWORD.sub(flag, p) for i, p in enumerate(parts))


def _given_as(path: str, a, flags: dict) -> str | None:
    """``FLAG VALUE`` for the option whose value is ``path`` (or whose :func:`atomic_path` temporary it is),
    ``FLAG VALUE: path`` for one inside ``path`` (a folder that could not be made), else None."""
    p = Path(path)
    for dest, flag in flags.items():
        value = getattr(a, dest, None)
        if not isinstance(value, str) or not value:
            continue
        v = Path(value)
        if p == v or (p.parent == v.parent and p.name.startswith(f".{v.name}.pid")):
            return f"{flag} {value}"
        if p in v.parents:
            return f"{flag} {value}: {path}"
    return None


def error_text(e: BaseException, a, flags: dict) -> str:
    """One line for an error: an OSError as ``FLAG PATH: reason``; library keywords as flags."""
    if isinstance(e, OSError) and e.filename is not None and e.strerror:
        text = f"{_given_as(str(e.filename), a, flags) or e.filename}: {e.strerror}"
    else:
        text = str(e) or type(e).__name__
    return " ".join(line.strip() for line in _as_flags(text, a, flags).splitlines() if line.strip())


def _stdout_to_devnull() -> None:
    """After a closed pipe: send what is left of stdout to /dev/null, so flushing it at exit raises nothing
    (the recipe of the Python docs' note on SIGPIPE)."""
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())


def run_command(prog: str, command, a, flags: dict | None = None) -> int:
    """``command(a)`` (which returns the exit code) the way the command line runs it: stale temporaries of
    killed runs removed from the parse cache first, SIGTERM cleaned up like Ctrl-C, and every way it can fail
    as one line on stderr with its exit code (see the module)."""
    flags = flags or {}
    tempfiles.sweep(paths.interim / "traces", paths.interim / "replays")
    with tempfiles.terminating_as_exit():
        try:
            code = command(a)
            sys.stdout.flush()
            return code
        except BrokenPipeError:  # the reader of stdout is gone (| head): nothing to say to anyone
            _stdout_to_devnull()
            return 128 + signal.SIGPIPE
        except KeyboardInterrupt:
            message, code = "interrupted (Ctrl-C)", 128 + signal.SIGINT
        except tempfiles.Terminated as e:
            message, code = "terminated (SIGTERM)", e.code
        except MemoryError as e:  # check_memory says what does not fit before a run starts
            message, code = f"error: not enough memory: {e}", 3
        except (ValueError, OSError) as e:  # TraceFormatError is a ValueError
            message, code = f"error: {error_text(e, a, flags)}", 2
    print(f"{prog}: {message}", file=sys.stderr)
    return code


def flags_of(parser) -> dict:
    """dest -> the option's first spelling (``--page-bytes``), for the options of one subcommand."""
    return {act.dest: act.option_strings[0] for act in parser._actions if act.option_strings}


# --- the parser ----------------------------------------------------------------------------------------------
def _trace_args(s, trace_help: str = "trace file (plain, .gz, .bz2, .xz, .zst), or a folder for a folder format "
                "(android-sql)"):
    s.add_argument("--trace", required=True, help=trace_help)
    s.add_argument("--format", default=None, help="trace format (default: sniffed from the file)")


def _policy_args(s):
    s.add_argument("--policy", required=True)
    _trace_args(s)
    s.add_argument("--capacity-pages", type=count_type("--capacity-pages"), required=True)
    s.add_argument("--page-bytes", type=page_bytes_type, default=4096, help="a power of two, 512 to 1048576")
    s.add_argument("--param", action="append", default=[], metavar="KEY=VALUE", help="policy parameter")
    s.add_argument("--quiet", action="store_true", help="no progress bar (there is none when stderr is not a "
                   "terminal either)")
    _csv_args(s)


def _simulate_parser(sub) -> None:
    """``flashrepro simulate``: traces x policies x parameter values x cache sizes, one table."""
    from .sweep import EXECUTORS

    s = sub.add_parser(
        "simulate", help="run policies at cache sizes on trace files; prints a table (CSV)",
        description="Run every listed policy (and every combination of --param values) at every cache size on "
        "every trace, through the sweep runner, and print one table: CSV on stdout (--json for JSON, --out "
        "for a parquet file). Example: flashrepro simulate trace.csv --policy lru,clock,seg_prefetch --cache "
        "1MiB,64MiB,1%%")
    s.add_argument("traces", nargs="*", metavar="TRACE", help="trace files (plain, .gz, .bz2, .xz, .zst), or "
                   "folders of a folder format (android-sql); read whole, through the parse cache")
    s.add_argument("--trace", action="append", default=None, help="a trace file (repeatable; the same as TRACE)")
    s.add_argument("--format", action=Once, default=None, help="trace format (default: sniffed from each file)")
    s.add_argument("--policy", action=Once, required=True, metavar="NAME[,NAME...]",
                   help="policies, comma-separated (or one NAME:KEY=V1,V2 with its own grid)")
    s.add_argument("--cache", action=Once, default=None, metavar="SIZE[,SIZE...]",
                   help="cache sizes: bytes with a unit (B, KiB, MiB, GiB, TiB, KB, MB, GB, TB; rounded down to whole "
                   "pages) or a share of each trace's footprint in pages (1%%)")
    s.add_argument("--capacity-pages", action=Once, default=None, metavar="PAGES[,PAGES...]",
                   help="cache sizes in pages (instead of --cache)")
    s.add_argument("--page-bytes", action=Once, type=page_bytes_type, default=4096,
                   help="a power of two, 512 to 1048576")
    s.add_argument("--param", action="append", default=[], metavar="KEY=V1[,V2...]",
                   help="a policy parameter's values (repeatable, one key each); a key applies to every listed "
                   "policy that declares it")
    s.add_argument("--policy-file", action="append", default=None, metavar="FILE.py",
                   help="register the PythonPolicy prototypes defined in this file (repeatable; the workers of "
                   "--executor process and dask load it too)")
    s.add_argument("--flush-at-end", action="store_true", help="write back dirty pages after the last request")
    s.add_argument("--json", action="store_true", help="JSON instead of CSV (one run: its counters object, as "
                   "before the grid; several: a list of rows)")
    s.add_argument("--out", action=Once, default=None, metavar="FILE.parquet",
                   help="write the rows to this parquet file instead of stdout (re-runs skip rows already there)")
    s.add_argument("--executor", action=Once, default="local", choices=EXECUTORS)
    s.add_argument("--workers", action=Once, type=count_type("--workers"), default=None,
                   help="processes for 'process' and the Dask LocalCluster")
    s.add_argument("--scheduler", action=Once, default=None, help="a Dask scheduler address (implies dask)")
    s.add_argument("--quiet", action="store_true", help="no progress bar (there is none when stderr is not a "
                   "terminal either)")
    _csv_args(s)


def _replay_args(r):
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



# --- flashrepro sweep ---------------------------------------------------------------------------------------
def _sweep_policy(text: str) -> tuple[str, dict]:
    """``clock`` or ``clock:insert_referenced=true,false:cache_reads=true`` -> (name, grid); an error names
    ``--policy`` and lists the policy's parameters."""
    name, *parts = text.split(":")
    grid = {}
    for part in parts:
        key, sep, values = (x.strip() for x in part.partition("="))
        if not sep or not key:
            raise ValueError(f"--policy expects NAME[:KEY=V1,V2...], got {text!r}")
        if key in grid:
            raise ValueError(f"--policy {text}: {key} is given twice; list its values once, comma-separated")
        grid[key] = [getattr(check_params(name, {key: v.strip()}, f"--policy {text}"), key)
                     for v in values.split(",")]
    check_params(name, {}, f"--policy {text}")  # an unknown policy, also without parameters
    return name, grid


def _sweep_parser(sub) -> None:
    """The ``flashrepro sweep`` subcommand (the runner: :mod:`flashrepro.sweep`)."""
    from .sweep import EXECUTORS, SCHEDULER_TIMEOUT_S

    s = sub.add_parser("sweep", help="run policies x workloads x capacities (local, process pool or Dask)",
                       description="Run every policy (with its parameter grid) on every workload at every capacity; "
                       "writes the rows to a parquet file (re-runs skip rows already there) and optionally a CSV.")
    s.add_argument("--policy", action="append", required=True, metavar="NAME[,NAME...]",
                   help="policies, comma-separated, or one NAME:KEY=V1,V2[:KEY=...] with a grid of parameter values "
                   "(repeatable)")
    s.add_argument("--param", action="append", default=[], metavar="KEY=V1[,V2...]",
                   help="a parameter's values for every listed policy that declares it (repeatable, one key each)")
    s.add_argument("--workload", action="append", required=True,
                   help="a catalog workload (flashrepro workloads) or a trace file, read whole (repeatable)")
    size = s.add_mutually_exclusive_group(required=True)
    size.add_argument("--capacity", type=count_type("--capacity"), nargs="+", help="cache sizes in pages")
    size.add_argument("--cache", action=Once, metavar="SIZE[,SIZE...]",
                      help="cache sizes in bytes with a unit (64MiB, 1GB) or a share of each workload's footprint "
                      "(1%%)")
    s.add_argument("--policy-file", action="append", default=None, metavar="FILE.py",
                   help="register the PythonPolicy prototypes defined in this file (every worker loads it too)")
    s.add_argument("--page-bytes", type=page_bytes_type, default=4096, help="a power of two, 512 to 1048576")
    s.add_argument("--scale", default="ci", choices=("ci", "quick", "paper"))
    s.add_argument("--seed", type=count_type("--seed", 0), default=0)
    s.add_argument("--flush-at-end", action="store_true")
    s.add_argument("--device-time", action="store_true", help="add modelled device time columns (papers 1, 2)")
    s.add_argument("--executor", default="local", choices=EXECUTORS)
    s.add_argument("--workers", type=count_type("--workers"), default=None,
                   help="processes for 'process' and the Dask LocalCluster")
    s.add_argument("--scheduler", default=None, help="a Dask scheduler address, e.g. tcp://host:8786 (implies dask); "
                   f"one that does not answer within {SCHEDULER_TIMEOUT_S:g} s is an error")
    s.add_argument("--out", default=None, help="parquet file of finished rows (resumable)")
    s.add_argument("--csv", default=None, help="also write the table without timing to this CSV (with neither "
                   "--out nor --csv the table is printed as CSV)")


def _workload(name: str):
    """A catalog workload's name, or a trace file (a :class:`~flashrepro.sweep.TraceFile`, read whole)."""
    from .sweep import TraceFile
    from .traces import catalog, open_trace

    if catalog.known(name):
        try:
            catalog.origin(name)  # a real trace that is not here and has no model
        except (ValueError, FileNotFoundError) as e:
            raise ValueError(f"--workload {name}: {e}") from None
        return name
    if Path(name).exists():
        open_trace(name)  # parsed here, once, into the parse cache (a bad file fails now, not on a worker)
        return TraceFile.of(name)
    raise ValueError(f"--workload {name}: neither a catalog workload (flashrepro workloads lists them) nor a file")


def _check_output(path: str | None, flag: str) -> None:
    """An output file the run can write: not a folder, its folder creatable; for ``--out``, an existing file
    must be a store of sweep rows (read before anything runs, not after)."""
    if path is None:
        return
    p = Path(path)
    if p.is_dir():
        raise ValueError(f"{flag} {path} is a folder; give a file name")
    try:
        p.parent.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise OSError(f"{flag} {path}: cannot create its folder ({e.strerror or e})") from None
    tempfiles.sweep(p.parent)  # temporaries of killed runs next to it
    if flag == "--out":
        from .sweep import _read_store

        try:
            _read_store(path)
        except ValueError as e:
            raise ValueError(f"{flag} {e}") from None


def cmd_sweep(a) -> int:
    """Run ``flashrepro sweep``; errors propagate to :func:`run_command`, which prints them."""
    from .devices import device_time
    from .sweep import TraceFile, expand_policies, run_cases, stable
    from .traces import catalog, open_trace

    _load_policy_files(a.policy_file)
    entries = policy_grid(a.policy, a.param)
    workloads = [_workload(w) for w in a.workload]
    sizes = cache_sizes(a.cache) if a.cache is not None else [CacheSize(str(n), pages=n) for n in a.capacity]
    _check_output(a.out, "--out")
    _check_output(a.csv, "--csv")

    def footprint(w):
        if isinstance(w, TraceFile):
            return _footprint(open_trace(w.path), a.page_bytes)
        tr = catalog.get(w, scale=a.scale, seed=a.seed)
        return _footprint_of_trace(tr, a.page_bytes)

    cases, labels = grid_cases(workloads, expand_policies(entries), sizes, a.page_bytes, footprint)
    res = run_cases(cases, scale=a.scale, seed=a.seed, flush_at_end=a.flush_at_end, page_bytes=a.page_bytes,
                    metrics=(device_time,) if a.device_time else (), executor=a.executor, workers=a.workers,
                    scheduler=a.scheduler, store=a.out, policy_files=a.policy_file or ())
    if a.csv:
        with atomic_path(Path(a.csv)) as tmp:
            res.stable.write_csv(tmp)
    for f in res.failures:
        print(f"flashrepro sweep: task failed: {f}", file=sys.stderr)
    summary = {"rows": res.table.height, "skipped": res.skipped, "failures": len(res.failures),
               "executor": res.executor, "wall_s": round(res.wall_s, 3), "out": a.out, "csv": a.csv}
    if a.out is None and a.csv is None:  # nowhere else to go: the table itself, the summary on stderr
        if res.table.height and not res.failures:
            sys.stdout.write(_with_labels(stable(res.table), labels).write_csv())
        elif res.table.height:
            sys.stdout.write(stable(res.table).write_csv())
        print(json.dumps(summary), file=sys.stderr)
    else:
        print(json.dumps(summary))
    return 1 if res.failures else 0


def _footprint_of_trace(tr, page_bytes: int) -> int:
    """Distinct pages a loaded trace reads or writes, at ``page_bytes``."""
    return tr.to_pages(page_bytes).units(1, 0)[0].n


def _replay_parser(sub, runs) -> None:
    r = sub.add_parser("replay", help="run a policy and replay its after-cache trace on a file or device, timed")
    _policy_args(r)
    _replay_args(r)


def _trace_info_parser(sub, runs) -> None:
    t = sub.add_parser("trace-info", help="statistics of a trace file as JSON")
    t.add_argument("path")
    t.add_argument("--format", default=None, help="trace format (default: sniffed from the file)")
    t.add_argument("--page-bytes", type=page_bytes_type, default=4096, help="a power of two, 512 to 1048576")
    _csv_args(t)


def _workloads_parser(sub, runs) -> None:
    w = sub.add_parser("workloads", help="list catalog workloads and whether they are available here")
    w.add_argument("--available", action="store_true")


def _robustness_parser(sub, runs) -> None:
    from . import robustness  # its command line lives with the maps (flashrepro.robustness.command)

    robustness.add_parser(sub)
    runs["robustness"] = robustness.main


# every subcommand, in --help's order: name -> builder of its parser (a builder may add its run function)
_BUILDERS = {
    "simulate": lambda sub, runs: _simulate_parser(sub),
    "replay": _replay_parser,
    "policies": lambda sub, runs: sub.add_parser("policies", help="list registered policies"),
    "ftl-policies": lambda sub, runs: sub.add_parser("ftl-policies", help="list the FTL's GC policies and GC triggers"),
    "formats": lambda sub, runs: sub.add_parser("formats", help="list trace formats"),
    "trace-info": _trace_info_parser,
    "workloads": _workloads_parser,
    "sweep": lambda sub, runs: _sweep_parser(sub),
    "robustness": _robustness_parser,
}


def parser(only: str | None = None) -> tuple[argparse.ArgumentParser, dict, dict]:
    """The parser, its subcommands' parsers by name, and each subcommand's run function (``a -> exit code``).

    ``only``: build that subcommand's arguments alone, the others as bare names (enough to parse a command
    line that names ``only``), as :func:`main` does: the sweep's and the maps' parsers import their modules,
    0.03-0.05 s of CPU at the start of every command."""
    ap = Parser(prog="flashrepro", description=__doc__)
    sub = ap.add_subparsers(dest="cmd", required=True)
    runs = {name: _print_json(fn) for name, fn in JSON_COMMANDS.items()}
    runs["simulate"] = cmd_simulate
    runs["sweep"] = cmd_sweep
    for name, build in _BUILDERS.items():
        if only is None or name == only:
            build(sub, runs)
        else:
            sub.add_parser(name)
    return ap, sub.choices, runs


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    ap, commands, runs = parser(argv[0] if argv and argv[0] in _BUILDERS else None)
    a = ap.parse_args(argv)
    return run_command(f"flashrepro {a.cmd}", runs[a.cmd], a, flags_of(commands[a.cmd]))


if __name__ == "__main__":
    sys.exit(main())
