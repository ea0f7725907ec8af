"""The tables of measured numbers in README.md and docs/*.md, rendered from results/ (``make docs``).

No measured number (a wall time, a rate, a count of claims by verdict, one of our values) is typed by hand into
the README or docs/: every table of them sits between two markers,

    <!-- results:NAME:begin -->
    ...
    <!-- results:NAME:end -->

and ``python -m flashrepro.docs`` (``make docs``) replaces what is between them with the block NAME rendered
from the files in ``results/`` that :func:`blocks` names for it (the package-wide blocks here, and the tables
the paper packages' outputs declare a :class:`~flashrepro.papers.layout.Doc` for). Text outside the markers is
never touched, rendering twice gives the same text, and a block whose files are missing says which ones and how
to make them ("run `make` then `make docs`") instead of failing, so the docs render on a fresh clone.

    python -m flashrepro.docs                   # render README.md and docs/*.md from results/
    python -m flashrepro.docs --check           # exit 1 when rendering would change a page, or a line outside
                                                # the blocks looks like a measurement typed by hand
    python -m flashrepro.docs --results DIR     # from another results folder (e.g. results/quick)
    python -m flashrepro.docs --list            # the blocks, with the files each reads
"""

from __future__ import annotations

import functools
import math
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from . import paths
from .claims import VERDICTS
from .papers import all_papers

MARK = re.compile(r"<!-- results:(?P<name>[a-z0-9-]+):begin -->\n(?P<body>.*?)<!-- results:(?P=name):end -->",
                  re.S)
BEGIN_ANY = re.compile(r"<!-- results:([a-z0-9-]+):begin -->")


def begin(name: str) -> str:
    return f"<!-- results:{name}:begin -->"


def end(name: str) -> str:
    return f"<!-- results:{name}:end -->"


@dataclass(frozen=True)
class Block:
    """A rendered block: the files under results/ it reads (the first ones required), the command that writes
    them, and ``render(results_dir) -> Markdown`` (ending with a newline)."""
    name: str
    files: tuple[str, ...]
    render: Callable[[Path], str]
    make: str = "make"
    optional: tuple[str, ...] = ()
    about: str = ""


def pending(block: Block, results: Path) -> str:
    """What a block says while its files are missing."""
    missing = [f for f in block.files if not (results / f).is_file()]
    names = ", ".join(f"`results/{f}`" for f in missing)
    return f"_Not rendered yet: no {names}; run `{block.make}` then `make docs`._\n"


# ---------------------------------------------------------------------------------------------------- formatting

def exact(x) -> str:
    """A paper's value as printed (up to 7 significant digits, so 1149.385 stays 1,149.385 and 12.255 stays
    12.255; a value the ledger derived from printed ones is cut there)."""
    if x is None or x == "" or isinstance(x, (str, bool)) or not isinstance(x, (int, float)):
        return num(x)
    if isinstance(x, float) and math.isnan(x):
        return "NaN"
    text = f"{x:.7g}"
    if "e" in text or abs(x) < 1000:
        return text
    whole, _, frac = text.partition(".")
    return f"{int(whole):,}" + (f".{frac}" if frac else "")


def num(x, digits: int = 4) -> str:
    """A number as the docs show it: empty for a missing value, thousands separated from 1,000 on, else
    ``digits`` significant digits."""
    if x is None or x == "":
        return ""
    if isinstance(x, str):
        try:
            x = float(x)
        except ValueError:
            return x
    if isinstance(x, bool):
        return str(x).lower()
    if isinstance(x, float) and math.isnan(x):
        return "NaN"
    if isinstance(x, int) or (isinstance(x, float) and x.is_integer() and abs(x) >= 1000):
        return f"{int(x):,}"
    if abs(x) >= 1000:
        return f"{x:,.0f}"
    return f"{x:.{digits}g}"


def cell(x) -> str:
    """Text for a Markdown table cell (pipes escaped, one line)."""
    return "" if x is None else str(x).replace("\n", " ").replace("|", "\\|")


def table(head: list[str], rows: list[list]) -> list[str]:
    return ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)] + \
        ["| " + " | ".join(cell(c) for c in r) + " |" for r in rows]


def _read(results: Path, name: str, **strings) -> pl.DataFrame:
    """A results CSV; the columns named in ``strings`` are read as text (a commit such as ``2622e44`` is no
    number)."""
    return pl.read_csv(results / name, infer_schema_length=None,
                       schema_overrides={c: pl.String for c in strings} or None)


# ---------------------------------------------------------------------------------------------------- claims

def _labels() -> dict[int, str]:
    """Ledger number -> "1 (`01_bs_clock`)", from the papers' specs."""
    from .papers import specs

    return {s.ledger: f"{s.ledger} (`{s.notebook}`)" for s in specs() if s.ledger is not None}


def _counts(df: pl.DataFrame) -> dict[str, int]:
    got = dict(zip(*df["verdict"].value_counts().sort("verdict").get_columns(), strict=True))
    return {v: int(got.get(v, 0)) for v in VERDICTS}


def _count_line(df: pl.DataFrame) -> str:
    c = _counts(df)
    return f"{df.height} rows: " + ", ".join(f"{c[v]} {v}" for v in VERDICTS)


def render_claims(results: Path) -> str:
    """Claims per paper by verdict (results/claims.csv), and the rows judged on this machine's measurements
    (results/claims_measured.csv) when there are any."""
    df = _read(results, "claims.csv")
    labels = _labels()
    rows = []
    for p in sorted(df["paper"].unique().to_list()):
        sub = df.filter(pl.col("paper") == p)
        c = _counts(sub)
        rows.append([labels.get(p, str(p)), sub.height, *(c[v] for v in VERDICTS)])
    c = _counts(df)
    rows.append(["all", df.height, *(c[v] for v in VERDICTS)])
    out = ["Claims by verdict in `results/claims.csv` (paper 0 is notebook 07's theory checks):", ""]
    out += table(["ledger (notebook)", "rows", *VERDICTS], rows)
    measured = results / "claims_measured.csv"
    if measured.is_file():
        m = _read(results, "claims_measured.csv")
        parts = []
        for p in sorted(m["paper"].unique().to_list()):
            parts.append(f"paper {p}: {_count_line(m.filter(pl.col('paper') == p))}")
        out += ["", "Judged on this machine's measurements (`results/claims_measured.csv`, kept out of the ledger): "
                + "; ".join(parts) + "."]
    return "\n".join(out) + "\n"


def render_paper_claims(ledger: int) -> Callable[[Path], str]:
    """One paper's rows of results/claims.csv: the count by verdict, by source in the paper, and its headline
    rows (the numbers of the abstract and conclusion) with both values."""
    def render(results: Path) -> str:
        df = _read(results, "claims.csv").filter(pl.col("paper") == ledger)
        if df.height == 0:
            return f"_No rows of paper {ledger} in `results/claims.csv`: run `make` then `make docs`._\n"
        real = df.filter(pl.col("workload").cast(pl.String).str.starts_with("real/"))
        line = f"`results/claims.csv`, paper {ledger}: {_count_line(df)}"
        if real.height:
            line += f"; {real.height} of them on real stand-in traces ({_count_line(real).split(': ', 1)[1]})"
        out = [line + ".", ""]
        src = []
        for s in df["source"].unique(maintain_order=True).to_list():
            c = _counts(df.filter(pl.col("source") == s))
            src.append([s, sum(c.values()), *(c[v] for v in VERDICTS)])
        out += table(["source", "rows", *VERDICTS], src)
        if "headline" in df.columns:
            head = df.filter(pl.col("headline").cast(pl.String).str.to_lowercase() == "true")
            if head.height:
                out += ["", "Headline rows (the ledger's `headline` column):", ""]
                out += table(["claim", "workload", "paper", "ours", "unit", "verdict"],
                             [[r["claim"], r["workload"], exact(r["paper_value"]), num(r["our_value"]), r["unit"] or "",
                               r["verdict"]] for r in head.iter_rows(named=True)])
        return "\n".join(out) + "\n"
    return render


def render_claim_rows(ledger: int, prefix: str) -> Callable[[Path], str]:
    """The rows of one paper whose claim starts with ``prefix``: the claim's rest, workload, both values,
    verdict."""
    def render(results: Path) -> str:
        df = _read(results, "claims.csv").filter((pl.col("paper") == ledger)
                                                 & pl.col("claim").str.starts_with(prefix))
        if df.height == 0:
            return f"_No `{prefix}` rows of paper {ledger} in `results/claims.csv`: run `make` then `make docs`._\n"
        out = [f"`results/claims.csv`, paper {ledger}, the `{prefix}` rows: {_count_line(df)}.", ""]
        out += table(["claim", "workload", "paper", "ours", "verdict"],
                     [[r["claim"].removeprefix(prefix).lstrip(": "), r["workload"], exact(r["paper_value"]),
                       num(r["our_value"]), r["verdict"]] for r in df.iter_rows(named=True)])
        return "\n".join(out) + "\n"
    return render


# ---------------------------------------------------------------------------------------------------- timings

def render_timings(results: Path) -> str:
    """Each notebook's last wall and CPU time per scale (results/notebook_timings.csv, written by the runner)."""
    df = _read(results, "notebook_timings.csv").sort("scale", "notebook")
    out = ["Each notebook's last wall time per scale on the machine that ran it, and its CPU time, its kernel's and "
           "worker processes' included (`results/notebook_timings.csv`; the rows `robustness/<notebook>` are the "
           "maps; `make` runs notebooks side by side, so CPU time is what each one costs):", ""]

    def cpu(r):
        return "" if r.get("cpu_s") is None else f"{r['cpu_s']:.1f}"

    out += table(["notebook", "scale", "real traces", "wall time (s)", "CPU time (s)"],
                 [[r["notebook"], r["scale"], num(r.get("traces")), f"{r['wall_s']:.1f}", cpu(r)]
                  for r in df.iter_rows(named=True)])
    floor = timings_floor(df)
    last = last_make(results)
    return "\n".join(out) + "\n" + "".join(f"\n{t}\n" for t in (floor, last) if t)


def last_make(results: Path) -> str:
    """The last `make` that re-ran every notebook and map (results/make_timings.csv, its "all" row), or ""."""
    if not (results / "make_timings.csv").is_file():
        return ""
    rows = _read(results, "make_timings.csv").filter(pl.col("reran") == "all")
    if rows.height == 0:
        return ""
    r = rows.row(0, named=True)
    traces = "with the trace folder" if r["traces"] else "without the trace folder"
    return (f"The last `make` that re-ran every notebook and map (`results/make_timings.csv`), {traces}: "
            f"{r['wall_s']:,.0f} s of wall time and {r['cpu_s']:,.0f} s of CPU time on {r['cores']} "
            f"core{'s' if r['cores'] != 1 else ''} (compiling the kernels included, if that run had to).")


def timings_floor(df: pl.DataFrame) -> str:
    """What the paper-scale rows' CPU times say about `make`'s wall time: summed over the notebooks and over the
    maps, divided by the cores the rows were measured on (``cores``), no schedule can do better. Empty where the
    rows lack a CPU time or their cores (a file from before either) or the cores differ between rows."""
    if "cores" not in df.columns:
        return ""
    paper = df.filter(pl.col("scale").is_in(["paper", "reduced"]))
    if paper.height == 0 or paper["cpu_s"].null_count() or paper["cores"].null_count() \
            or paper["cores"].n_unique() != 1:
        return ""
    cores = int(paper["cores"][0])
    maps = paper.filter(pl.col("notebook").str.starts_with("robustness"))
    nbs = paper.filter(~pl.col("notebook").str.starts_with("robustness"))
    n, m = float(nbs["cpu_s"].sum()), float(maps["cpu_s"].sum())
    top = nbs.sort("cpu_s", descending=True).row(0, named=True) if nbs.height else None
    text = (f"Summed, the paper-scale notebooks' CPU times above come to {n:,.0f} s and the maps' to {m:,.0f} s. "
            f"They were measured on {cores} core{'s' if cores != 1 else ''}, so no order of that work can take less "
            f"than {n / cores:,.0f} s of wall time for the notebooks, or {(n + m) / cores:,.0f} s with the maps, "
            f"whatever `JOBS` is.")
    if top is not None:
        text += (f" The costliest notebook, {top['notebook']}, is {top['cpu_s'] / n:.0%} of the notebooks' CPU time "
                 f"({top['cpu_s']:,.0f} s).")
    return text


def render_csv(name: str, intro: str, columns: dict[str, str] | None = None, digits: int = 4,
               where: pl.Expr | None = None) -> Callable[[Path], str]:
    """A results CSV as a table: ``columns`` maps its columns to headings (default: all, as they are); ``where``
    keeps some rows."""
    def render(results: Path) -> str:
        df = _read(results, name)
        if where is not None:
            df = df.filter(where)
        cols = columns or {c: c for c in df.columns}
        missing = [c for c in cols if c not in df.columns]
        if missing:
            raise ValueError(f"results/{name} has no column {', '.join(missing)}: run `make` again")
        out = [intro.format(name=f"`results/{name}`"), ""]
        out += table(list(cols.values()), [[num(r[c], digits) for c in cols] for r in df.iter_rows(named=True)])
        return "\n".join(out) + "\n"
    return render


def render_matrix_size(results: Path) -> str:
    """The size of notebook 06's matrix (results/06_matrix_runs.csv)."""
    df = _read(results, "06_matrix_runs.csv")
    p, w, c = (df[k].n_unique() for k in ("policy", "workload", "capacity_pages"))
    return (f"The last paper-scale matrix (`results/06_matrix_runs.csv`): {p} policies x {w} workloads x {c} sizes "
            f"= {df.height:,} runs.\n")


# ---------------------------------------------------------------------------------------------------- bench

def _bench_targets():
    """benchmarks/bench_targets.py (not part of the package: loaded from the repository)."""
    import importlib.util

    here = Path(__file__).resolve().parents[2]  # the source tree this module is in (paths.root unless overridden)
    path = next((p for p in (paths.root / "benchmarks" / "bench_targets.py", here / "benchmarks" / "bench_targets.py")
                 if p.is_file()), None)
    if path is None:
        raise FileNotFoundError("benchmarks/bench_targets.py: render the bench table from a clone of the repository")
    spec = importlib.util.spec_from_file_location("bench_targets", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def render_bench(results: Path) -> str:
    """The speed targets' table (``bench_targets.render``: the same text ``make bench`` puts here)."""
    t = _bench_targets()
    return t.render(t.annotate(_read(results, "bench.csv", commit=True)))


def render_bench_memory(results: Path) -> str:
    """results/bench.csv's memory rows: peak memory per request of each step, and the big SPC run."""
    df = _read(results, "bench.csv")
    k = pl.col("kernel")
    mem = df.filter(k.str.starts_with("bytes-per-request") | k.str.starts_with("big-spc"))
    if mem.height == 0:
        return "_No memory rows in `results/bench.csv` (`make bench` with bench_io): run `make bench` then " \
               "`make docs`._\n"
    rows = []
    for r in mem.sort("kernel").iter_rows(named=True):
        rows.append([r["kernel"], r["workload"], num(r["requests"]), num(r.get("bytes_per_request"), 3),
                     num(r.get("peak_mib")), num(r["seconds"], 3)])
    out = ["Memory (`results/bench.csv`): peak memory above an idle interpreter per request of each step, and "
           "`big-spc` (`flashrepro simulate` on a long SPC file, when it was run):", ""]
    out += table(["row", "workload", "requests", "bytes per request", "peak MiB", "seconds"], rows)
    return "\n".join(out) + "\n"


PROFILE_PARTS = {"host": "host loop", "copy": "copy and erase", "rule": "victim rule",
                 "rule structures": "rule's structures", "gc": "other GC", "outside": "outside the kernels"}


def render_ftl_profile(results: Path) -> str:
    """results/ftl_profile.csv (``make profile-ftl``): each FTL run's share of CPU samples by part, its rate, and
    the rate it would have if the victim rule and the structures kept for it cost nothing."""
    df = _read(results, "ftl_profile.csv")
    keys = ["policy", "trigger", "writes", "mreq_per_s", "waf"]
    by = df.group_by([*keys, "part"], maintain_order=True).agg(pl.col("share").sum())
    rows = []
    for (policy, trigger, _, rate, waf), g in by.group_by(keys, maintain_order=True):
        share = dict(zip(g["part"], g["share"], strict=True))
        rule = share.get("rule", 0.0) + share.get("rule structures", 0.0)
        rows.append([policy, trigger, num(rate, 3), num(waf, 4),
                     *[f"{100 * share.get(p, 0.0):.0f}%" for p in PROFILE_PARTS],
                     num(rate / (1 - rule), 3) if rule < 1 else "n/a"])
    out = ["Where each FTL run's CPU time goes (`results/ftl_profile.csv`, `make profile-ftl`): the share of `perf`'s "
           "samples during the timed writes of `make bench`'s FTL stream, by part of the FTL; the profiled run's host "
           "writes per second (under `perf`, on a shared machine: the rates themselves are `make bench`'s, above); and "
           "the rate that run would reach if its victim rule and the structures kept for it took no time:", ""]
    out += table(["policy", "trigger", "M host writes/s", "WAF", *PROFILE_PARTS.values(),
                  "M host writes/s, rule free"], rows)
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------------------------------------------- registry

def _blocks() -> dict[str, Block]:
    out = [
        Block("claims", ("claims.csv",), render_claims, optional=("claims_measured.csv",),
              about="claims per paper by verdict"),
        Block("timings", ("notebook_timings.csv",), render_timings, optional=("make_timings.csv",),
              about="each notebook's last wall time, and the last full make's"),
        Block("bench", ("bench.csv",), render_bench, make="make bench", about="the speed targets' table"),
        Block("bench-memory", ("bench.csv",), render_bench_memory, make="make bench",
              about="memory per request, the big SPC run"),
        Block("ftl-profile", ("ftl_profile.csv",), render_ftl_profile, make="make profile-ftl",
              about="CPU samples by part of the FTL, per victim rule and trigger"),
        Block("matrix-size", ("06_matrix_runs.csv",), render_matrix_size, about="notebook 06's run count"),
        Block("claims-paper4-reachability", ("claims.csv",), render_claim_rows(4, "Reachability"),
              about="paper 4's reachability rows"),
    ]
    for paper in all_papers():  # the tables a paper's outputs ask the docs to show (layout.Doc)
        for o in paper.outputs:
            if o.doc is not None:
                d = o.doc
                out.append(Block(d.block, (o.file,), render_csv(o.file, d.intro, d.columns, d.digits), about=d.about))
    for ledger in sorted(_labels()):
        out.append(Block(f"claims-paper{ledger}", ("claims.csv",), render_paper_claims(ledger),
                            about=f"paper {ledger}'s claims by verdict and source, its headline rows"))
    return {b.name: b for b in out}


@functools.cache
def blocks() -> dict[str, Block]:
    """Every block by name, built on first use (it imports the paper packages, for their outputs' Doc)."""
    return _blocks()


def render_block(name: str, results: Path) -> str:
    if name not in blocks():
        raise KeyError(f"no rendered block {name!r}; blocks: {', '.join(sorted(blocks()))}")
    block = blocks()[name]
    if any(not (results / f).is_file() for f in block.files):
        return pending(block, results)
    return block.render(results)


def render_text(text: str, results: Path | None = None) -> str:
    """``text`` with every marked block rendered from ``results`` (default results/); nothing outside the
    markers changes. A begin marker without its end marker is an error."""
    results = Path(paths.results if results is None else results)
    names = BEGIN_ANY.findall(text)
    found = [m["name"] for m in MARK.finditer(text)]
    if names != found:
        lost = sorted(set(names) - set(found)) or names
        raise ValueError(f"a block's begin marker without its end marker: {', '.join(lost)}")
    return MARK.sub(lambda m: f"{begin(m['name'])}\n{render_block(m['name'], results)}{end(m['name'])}", text)


# What a measured number typed by hand looks like: a wall time with "took"/"takes" or "here", minutes and
# seconds, a rate in M requests (or writes) per second that is not a target, a speed-up, a load average, a count
# of tests passing, claims counted by verdict. Numbers quoted from the papers look like none of these (a paper's
# share, WAF or size), and neither do the package's settings (a 5 s flush period, a 20 M req/s target).
_T = r"\d+(?:[.,]\d+)?"
_UNIT = r"(?:s|ms|sec|seconds?|min|minutes?|h|hours?)"
HAND_TYPED = {
    "minutes and seconds": re.compile(rf"\b\d+\s*min(?:utes?)?\s+{_T}\s*s\b"),
    "a time it took": re.compile(rf"\b(?:took|takes|take|taking|ran in|runs in|run in|finished in)\b[^.;:]{{0,40}}?"
                                 rf"(?<![\w.]){_T}\s*{_UNIT}\b", re.I),
    "a time here": re.compile(rf"(?<![\w.]){_T}\s*{_UNIT}\b(?: of (?:wall|CPU)(?: time)?)?\s+(?:here|on this machine|"
                              rf"on one core|of wall time|of CPU)\b", re.I),
    "a time from -> to": re.compile(rf"(?<![\w.]){_T}\s*{_UNIT}\s*(?:->|→)\s*{_T}\s*{_UNIT}\b"),
    "a printed run time": re.compile(r"(?<![\w.])\d+\.\d+\s*s\s+->"),
    "a share of a time": re.compile(rf"(?<![\w.]){_T}\s*{_UNIT}\s+of it\b"),
    "an approximate time": re.compile(rf"~\s*{_T}\s*{_UNIT}\b"),
    "a rate": re.compile(rf"(?<!least )(?<!>= )(?<![\w.]){_T}\s*M\s*(?:req|requests|references|host writes|"
                         rf"page writes|writes)/s\b"),
    "a speed-up": re.compile(rf"(?<![\w.]){_T}\s*x\s+(?:faster|slower|quicker|the speed)\b", re.I),
    "a load average": re.compile(r"\bload(?: average)?(?: near| of)?\s+\d"),
    "tests passing": re.compile(r"\b\d+\s+(?:tests?\s+)?passed\b|\bpass(?:ed)?\s*\(\d+\)|\b\d+\s+tests?\s+pass\b",
                                re.I),
    "claims by verdict": re.compile(r"\b\d+\s+(?:holds?|do not hold|does not hold|not comparable|partly)\b"),
}


def outside_blocks(text: str) -> list[tuple[int, str]]:
    """(line number, line) of every line of ``text`` that is not inside a rendered block."""
    out, inside = [], None
    for i, line in enumerate(text.splitlines(), 1):
        b = BEGIN_ANY.search(line)
        if inside is None and b:
            inside = b.group(1)
            continue
        if inside is not None:
            if end(inside) in line:
                inside = None
            continue
        out.append((i, line))
    return out


def hand_typed(text: str) -> list[tuple[int, str, str]]:
    """(line number, what it looks like, line) of each line outside the rendered blocks that looks like a
    measured number typed by hand (:data:`HAND_TYPED`)."""
    found = []
    for i, line in outside_blocks(text):
        for what, pat in HAND_TYPED.items():
            if pat.search(line):
                found.append((i, what, line))
                break
    return found


def pages(root: Path | None = None) -> list[Path]:
    """README.md and every docs/*.md."""
    root = Path(paths.root if root is None else root)
    return [root / "README.md", *sorted((root / "docs").glob("*.md"))]


def main(argv=None) -> int:
    import argparse

    ap = argparse.ArgumentParser(prog="python -m flashrepro.docs",
                                 description="render the tables of measured numbers in README.md and docs/*.md "
                                             "from results/")
    ap.add_argument("--results", default=None, help="folder of results (default: results/)")
    ap.add_argument("--check", action="store_true", help="change nothing; exit 1 if rendering would change a page "
                    "or a line outside the rendered blocks looks like a measurement typed by hand")
    ap.add_argument("--list", action="store_true", help="list the blocks and the files each reads")
    a = ap.parse_args(argv)
    if a.list:
        for b in blocks().values():
            print(f"{b.name:28s} {', '.join('results/' + f for f in b.files + b.optional):52s} {b.about}")
        return 0
    results = Path(a.results) if a.results else paths.results
    stale = []
    for page in pages():
        if not page.is_file():
            continue
        text = page.read_text(encoding="utf-8")
        new = render_text(text, results)
        if new == text:
            continue
        stale.append(page)
        if not a.check:
            from .tempfiles import atomic_path

            with atomic_path(page) as tmp:
                Path(tmp).write_text(new, encoding="utf-8")
    rel = [str(p.relative_to(paths.root)) for p in stale]
    if a.check:
        typed = [(p, *t) for p in pages() if p.is_file() for t in hand_typed(p.read_text(encoding="utf-8"))]
        for p, i, what, line in typed:
            print(f"{p.relative_to(paths.root)}:{i}: {what} typed by hand: {line.strip()}")
        print(f"out of date: {', '.join(rel)}" if rel else "docs up to date")
        return 1 if rel or typed else 0
    print(f"rendered {', '.join(rel)}" if rel else "docs up to date")
    return 0


if __name__ == "__main__":
    sys.exit(main())
