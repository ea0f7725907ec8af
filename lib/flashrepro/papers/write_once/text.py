"""The numbers notebook 05's "What holds" section quotes, computed from the paper-scale tables, and a check
that the text quotes each one as computed and no other measured number.

:func:`facts` maps a name to the exact string the text must contain (e.g. ``"3-17%"``); :func:`check`
finds each in the text and then looks for digits the facts and :data:`PAPER_NUMBERS` (the paper's own
numbers, figure and section labels) do not account for. The notebook runs it at paper scale with the
default knobs (:func:`applies`); ``python -m flashrepro.papers.write_once.text`` runs it on ``results/``.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import polars as pl

from ... import paths

NOTEBOOK = "05_write_once"
HEADING = "### What holds and what does not, and why"
TABLES = {"table2": "table2", "fig5": "fig5", "fig6": "fig6", "fig6_real": "fig6_real", "q78": "fig7_fig8",
          "history": "history", "pragmas": "pragmas", "mobibench": "mobibench", "amb": "ambiguities",
          "inputs": "model_inputs", "wm": "write_misses", "claims": "claims"}
PAPER_NUMBERS = [  # what the text may quote that is not measured: the paper's numbers, tolerances, our grid
    "PRINTED 15%", "APPROX 25%", "EQUAL 5%", "5-33%", "27-92%", "64%", "54%", "97%", "95%", "1/4", "C/4",
    "From 1% to 10% of the footprint", "at 50% of the footprint", "Below 1% of the footprint",
    "at 5% of the footprint", "at 1% of the footprint", "at 50% written once", "17.5-minute", "5 s flushes",
    "16-byte", "seed 0", "Mix1", "Mix2", "No5"]


def tables(folder) -> dict[str, pl.DataFrame]:
    """The notebook's tables from ``folder`` (``results/`` at paper scale); absent ones are left out."""
    out = {}
    for key, stem in TABLES.items():
        f = Path(folder) / f"{NOTEBOOK}_{stem}.csv"
        if f.exists():
            out[key] = pl.read_csv(f, infer_schema_length=None)
    return out


def notebook_text(path=None) -> str:
    """The "What holds" markdown cell of the notebook."""
    import nbformat

    nb = nbformat.read(path or paths.root / "notebooks" / f"{NOTEBOOK}.ipynb", as_version=4)
    for c in nb.cells:
        if c.cell_type == "markdown" and c.source.startswith(HEADING):
            return c.source
    raise ValueError(f"no cell starting with {HEADING!r}")


def applies(scale, seed, params, workloads, once_share, fractions, shrink, sweep_fraction, history_multiples,
            fig6_workload, reals, sweeps) -> bool:
    """True for the run the text describes: paper scale, seed 0, every default knob, real traces and sweeps."""
    from .experiments import FRACTIONS
    from .workloads import TABLE2

    default = {"period_s": 5.0, "sync_scope": "file", "on_delete": "keep", "write_miss_read": False,
               "history_pages": None, "history_all_written": False, "consume_history": False}
    return (scale == "paper" and seed == 0 and params == default and list(workloads) == list(TABLE2)
            and once_share == 0.95 and tuple(fractions) == FRACTIONS and shrink == 4 and sweep_fraction == 0.05
            and list(history_multiples) == [0, 0.25, 1, 4, 16] and fig6_workload == "Mix1" and reals and sweeps)


def _p(x: float) -> str:
    return f"{100 * x:.1f}%"


def _r(lo: float, hi: float) -> str:
    """A range of fractions as the text writes it: ``"2.5-16.8%"``."""
    return f"{100 * lo:.1f}-{100 * hi:.1f}%"


def _short(w: str) -> str:
    return w.split("/")[-1]


def facts(t: dict[str, pl.DataFrame]) -> dict[str, str]:
    """Every measured number of the text, by name, as the text writes it."""
    from .claims import equal_miss_points
    from .experiments import reductions

    fx = {}
    cl = t["claims"]
    n = cl.group_by("verdict").len()
    count = dict(zip(n["verdict"], n["len"], strict=True))
    fx["rows"] = f"{cl.height} rows"
    fx["holds"] = f"{count.get('holds', 0)} hold"
    fx["partly"] = f"{count.get('partly', 0)} partly"
    fx["dnh"] = f"{count.get('does not hold', 0)} do not hold"
    fx["nc"] = f"{count.get('not comparable', 0)} not comparable"
    fx["calib"] = f"{(cl['kind'] == 'calibration').sum()} calibration inputs"
    fx["ctrl"] = f"{cl['note'].fill_null('').str.contains('meets it too').sum()} met by the control too"

    # Fig. 5, models
    red = reductions(t["fig5"])
    m = red.filter(pl.col("workload").str.starts_with("writeonce/"))
    small = m.filter(pl.col("fraction") <= 0.1)
    top = small.sort("miss_reduction").row(-1, named=True)
    fx["fig5_gain"] = f"by {_r(small['miss_reduction'].min(), top['miss_reduction'])}"
    fx["fig5_top"] = f"largest: {_short(top['workload'])} at {top['fraction']:.0%} of the footprint"
    fx["fig5_flash"] = f"flash reads by up to {_p(m['flash_read_reduction'].max())}"
    big = m.filter(pl.col("fraction") == 0.5)["miss_reduction"]
    fx["fig5_loss50"] = f"raises the miss ratio by {_r(-big.max(), -big.min())}"
    at20 = m.filter((pl.col("fraction") == 0.2) & (pl.col("miss_reduction") <= 0))
    fx["fig5_loss20"] = "at 20% also on " + " and ".join(_short(w) for w in at20["workload"])
    f5 = cl.filter(pl.col("claim").str.contains("Fig. 5: miss ratio .* every cache size") & (cl["workload"] != "")
                   & ~pl.col("workload").str.contains("/"))
    f5m = f5.filter(pl.col("workload").is_in([_short(w) for w in m["workload"].unique()]))
    fx["fig5_fail"] = f"{(f5m['verdict'] == 'does not hold').sum()} of {f5m.height} rows fail"

    # Fig. 6, Mix1
    e6 = t["fig6"].filter(pl.col("size_ratio").is_not_null()).sort("size_ratio")
    fx["fig6_best"] = f"{_p(e6['size_ratio'][0])} of its cache at best"
    fx["fig6_best_at"] = f"lru_flush at {_p(e6['fraction'][0])} of the footprint"
    fx["fig6_second"] = f"{_p(e6['size_ratio'][1])} at the second best ({_p(e6['fraction'][1])})"
    lo6 = e6.filter(pl.col("fraction") < 0.01)["size_ratio"]
    fx["fig6_small"] = f"needs {_r(lo6.min(), lo6.max())} of the size"
    fx["fig6_never"] = f"past {e6['fraction'].max():.0%} of the footprint"

    # Figs. 7-8, models, at the equal-miss points and over the grid
    q = t["q78"]
    qm = q.filter(pl.col("workload").str.starts_with("writeonce/"))
    pts = equal_miss_points(qm)
    tr, ct = pts["time_ratio"], pts["time_ratio_lru_q"]
    fx["f7_time"] = f"{tr.min():.4f}-{tr.max():.4f} times lru_flush's time"
    e, ce = pts["energy_reduction"], pts["energy_reduction_lru_q"]
    fx["f8_energy"] = f"{_r(e.min(), e.max())} less energy (mean {_p(e.mean())}"
    fx["f7_ctrl"] = f"{ct.min():.4f}-{ct.max():.4f} times the time"
    fx["f8_ctrl"] = f"{_r(ce.min(), ce.max())} less energy (mean {_p(ce.mean())}"
    gain = 1 - pts["time_wo_s"] / (pts["time_ratio_lru_q"] * pts["time_s"])
    mech = cl.filter(pl.col("claim").str.contains("not the smaller cache") & ~pl.col("workload").str.contains("/"))
    mm = mech.filter(pl.col("workload").is_in([_short(w) for w in pts["workload"]]))
    fx["mech"] = f"{_r(gain.min(), gain.max())} faster than lru_flush at C/4"
    fx["mech_n"] = f"on {(mm['verdict'] == 'holds').sum()} of {mm.height} models"
    worst = qm.sort("time_ratio").row(-1, named=True)
    fx["f7_grid"] = (f"the time ratio reaches {worst['time_ratio']:.4f} ({_short(worst['workload'])} at "
                     f"{worst['fraction']:.0%} of the footprint)")
    neg = qm.filter((pl.col("fraction") == 0.01) & (pl.col("energy_reduction") < 0))
    fx["f8_grid"] = (f"on {neg.height} models ({', '.join(_short(w) for w in neg['workload'])}: "
                     f"{_r(-neg['energy_reduction'].max(), -neg['energy_reduction'].min())} more)")
    sp, g9 = pts["energy_reduction_span"], pts["energy_reduction_gb1e9"]
    fx["f8_span"] = f"saving at the equal-miss points is {_r(sp.min(), sp.max())}"
    fx["f8_gb"] = f"10^9 bytes it is {_r(g9.min(), g9.max())}"

    # the real engines
    rr = red.filter(pl.col("workload").str.starts_with("real/android_sql/"))
    if rr.height:
        least = rr.sort("miss_reduction").row(-1, named=True)
        fx["replay_loss"] = f"by {_r(-rr['miss_reduction'].max(), -rr['miss_reduction'].min())}"
        fx["replay_least"] = f"least: {_short(least['workload'])} at {least['fraction']:.0%}"
        up = rr.filter(pl.col("flash_reads_wo") != pl.col("flash_reads")).sort("workload", "fraction")
        fx["replay_reads"] = ", ".join(f"{_short(r['workload'])} {r['flash_reads']} to {r['flash_reads_wo']} at "
                                       f"{r['fraction']:.0%}" for r in up.iter_rows(named=True))
        same = rr.filter(pl.col("flash_reads_wo") == pl.col("flash_reads")).height
        fx["replay_same"] = f"unchanged at {same} of {rr.height} app sizes"
        amb = t["amb"].filter(pl.col("workload").str.starts_with("real/android_sql/"))
        ign = amb.filter(pl.col("choice") == "syncs ignored (5 s flushes only)")["miss_reduction"]
        fx["replay_nosync"] = f"on all {ign.len()} replays by {_r(ign.min(), ign.max())}" if (ign > 0).all() else \
            f"on {(ign > 0).sum()} of {ign.len()} replays"
        ps = t["pragmas"]
        nor = ps.filter(pl.col("setting") == "synchronous NORMAL")["miss_reduction"]
        fx["replay_normal"] = f"write_once is {_r(nor.min(), nor.max())} better"
        mob = red.filter(pl.col("workload").str.contains("mobigen"))["miss_reduction"]
        fx["mobi_range"] = f"between {_p(-mob.min())} higher and {_p(mob.max())} lower"
        qr = equal_miss_points(q.filter(pl.col("workload").str.starts_with("real/")))
        fx["real_q78"] = (f"{_r(qr['energy_reduction'].min(), qr['energy_reduction'].max())} less energy "
                          f"(control {_r(qr['energy_reduction_lru_q'].min(), qr['energy_reduction_lru_q'].max())})")
        fx["real_q78_time"] = f"{qr['time_ratio'].min():.4f}-{qr['time_ratio'].max():.4f} times the time"
        e6r = t.get("fig6_real")
        if e6r is not None:
            best = (e6r.filter(pl.col("size_ratio").is_not_null()).group_by("workload").agg(pl.col("size_ratio").min())
                    .sort("workload"))
            fx["real_fig6"] = ", ".join(f"{_short(w)} {v:.2f}" for w, v in best.iter_rows())
        wm = t["wm"].filter(pl.col("workload") == "real/android_sql/facebook")
        b = wm.filter(pl.col("policy") == "lru_flush").row(0, named=True)
        w = wm.filter(pl.col("policy") == "write_once").row(0, named=True)
        fx["wm_fb"] = (f"facebook's flash reads at 5% of the footprint go from {b['flash_reads']} to "
                       f"{b['flash_reads_every_write_miss']} for lru_flush and from {w['flash_reads']} to "
                       f"{w['flash_reads_every_write_miss']} for write_once")
        wmr = t["wm"].filter(pl.col("workload").str.starts_with("real/android_sql/")
                             & (pl.col("policy") == "write_once"))
        rp = wmr["flash_read_reduction_every_write_miss"]
        fx["wm_red"] = f"write_once reads {_r(-rp.max(), -rp.min())} more than lru_flush"
        fx["wm_partial"] = f"{t['wm']['partial_write_misses'].sum()} partial-write misses"
        # Figs. 1-2
        tab = t["table2"]
        real = tab.filter(~pl.col("workload").str.starts_with("writeonce/"))
        ws = dict(zip([_short(w) for w in real["workload"]], real["write_share"], strict=True))
        fx["cal_w"] = f"Calendar ({_p(ws['calendar'])} writes)"
        fx["map_w"] = f"Maps ({_p(ws['map'])})"
        rep = real.filter(pl.col("workload").str.starts_with("real/android_sql/"))
        fx["max_w"] = f"most write-heavy replay has {_p(rep['write_share'].max())} writes"
        once = dict(zip([_short(w) for w in real["workload"]], real["written_once_share"], strict=True))
        fx["mobi_once"] = f"Up to {_p(once['mobigen-facebook'])} of written blocks"
        fx["rep_once"] = f"{_r(rep['written_once_share'].min(), rep['written_once_share'].max())} on the replays"
        mb = t.get("mobibench")
        if mb is not None:
            o = dict(zip(mb["setting"], mb["written_once_share"], strict=True))
            fx["mobi_path"] = f"one file per path the log has {_p(o['one file per path'])} written once"
            fx["mobi_sys"] = f"counted per syscall {_p(o['writes not merged (per syscall)'])}"
            fx["mobi_keep"] = f"with unopened descriptors kept {_p(o['unopened fds kept as files'])}"
            d = mb.row(0, named=True)
            fx["mobi_unlinks"] = f"{d['unlinks_matched']} of {d['unlinks_matched'] + d['unlinks_unmatched']} unlinks"
            mr = mb["miss_reduction"]
            fx["mobi_settings"] = (f"{_r(-mr.max(), -mr.min())} higher under every reader setting" if (mr < 0).all()
                                   else f"from {_p(mr.min())} to {_p(mr.max())} under the reader settings")
        def span(label, ps=ps):
            v = ps.filter(pl.col("setting") == label)["written_once_share"]
            return _r(v.min(), v.max())

        fx["rep_sys"] = f"counted per syscall have {span('writes not merged (per syscall)')} written once"
        fx["rep_path"] = f"journal kept by path {span('journal by path')}"
        fx["rep_trunc"] = f"TRUNCATE {span('journal_mode TRUNCATE')}"
        fx["rep_persist"] = f"PERSIST {span('journal_mode PERSIST')}"
        jm = ps.filter(pl.col("setting").str.starts_with("journal_mode"))["miss_reduction"]
        fx["rep_jm_red"] = f"miss ratio {_r(-jm.max(), -jm.min())} higher"

    # the model inputs
    inp = t["inputs"]
    half = inp.filter(pl.col("model input") == "50% written once")["miss_reduction"]
    dflt = inp.filter(pl.col("model input").str.starts_with("default"))["miss_reduction"]
    fx["inputs_half"] = f"falls to {_r(half.min(), half.max())}"
    fx["inputs_default"] = f"{_r(dflt.min(), dflt.max())} at 95%"
    return fx


def check(text: str, fx: dict[str, str]) -> pl.DataFrame:
    """Each fact must appear in ``text``; after removing the facts and the paper's numbers no digit may be
    left. Raises ``AssertionError`` listing what is wrong; returns the facts as a table."""
    text = " ".join(text.split())  # line breaks and indents do not matter
    missing = [f"{k}: {v!r}" for k, v in fx.items() if v not in text]
    rest = text
    for v in sorted(set(fx.values()) | set(PAPER_NUMBERS), key=len, reverse=True):
        rest = rest.replace(v, " ")
    rest = re.sub(r"(Figs?\.|Tables?|Sec\.) ?[0-9IVX]+(\.[0-9]+)?(-[0-9]+)?", " ", rest)  # labels, not numbers
    stray = sorted(set(re.findall(r"\S*\d\S*", rest)))
    if missing or stray:
        raise AssertionError("the text and the tables disagree:\n" + "\n".join(
            [f"not in the text: {m}" for m in missing] + [f"a number no fact accounts for: {s}" for s in stray]))
    return pl.DataFrame({"fact": list(fx), "text": list(fx.values())})


def main(argv=None) -> int:
    folder = Path(argv[0]) if argv else paths.root / "results"
    print(check(notebook_text(), facts(tables(folder))))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
