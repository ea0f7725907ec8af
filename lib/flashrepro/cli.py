"""The command line: ``flashrepro simulate | replay | policies | ftl-policies | formats | trace-info | workloads``."""

from __future__ import annotations

import argparse
import json
import sys

from .cache import POLICIES, make_params, simulate
from .traces import FORMATS, TraceFormatError, catalog, load_trace
from .traces.readers import get_format


def _params(items: list[str]) -> dict:
    out = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise ValueError(f"--param expects KEY=VALUE, got {item!r}")
        out[key.strip()] = value.strip()
    return out


def _load(path: str, fmt: str | None):
    if fmt is not None:
        get_format(fmt)  # an unknown name fails before the file is hashed
    return load_trace(path, fmt)


def cmd_simulate(a) -> dict:
    make_params(a.policy, **_params(a.param))  # unknown policy or parameter: fail before reading the trace
    tr = _load(a.trace, a.format)
    res = simulate(tr, a.policy, a.capacity_pages, page_bytes=a.page_bytes, flush_at_end=a.flush_at_end,
                   **_params(a.param))
    return res.to_dict()


def cmd_replay(a) -> dict:
    import dataclasses

    from .devices import CARDS, io_time
    from .replay import replay

    make_params(a.policy, **_params(a.param))
    tr = _load(a.trace, a.format)
    res = simulate(tr, a.policy, a.capacity_pages, page_bytes=a.page_bytes, log_io=True, **_params(a.param))
    after = res.io_log.to_trace(tr.time_s)
    rep = replay(after, a.target, max_bytes=int(a.max_mib * 2**20), allow_existing=a.allow_existing,
                 direct=not a.buffered)
    return {**res.to_dict(), "replay": dataclasses.asdict(rep),
            "model": {name: io_time(res.io_log, card) for name, card in CARDS.items()}}


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
    a = ap.parse_args(argv)
    if a.cmd == "sweep":
        return sweep.main(a)
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
    except (ValueError, FileNotFoundError, PermissionError, TraceFormatError) as e:
        print(f"flashrepro {a.cmd}: error: {e}", file=sys.stderr)
        return 2
    json.dump(out, sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
