"""The browsable report: ``make report`` -> ``build/report/index.html``.

    python -m flashrepro.site                       # from results/, figures/ and build/paper/ (what `make` wrote)
    python -m flashrepro.site --results results/quick --figures figures/quick --notebooks build/quick

One page lists the papers with their claims counts by verdict (from ``results/claims.csv``), a claims table
that filters as you type or pick a verdict, every figure as a thumbnail linking to the full image, and each
executed notebook rendered to HTML with nbconvert. Figures are copied into the site, so the folder can be
moved or served as it is (``python -m http.server -d build/report``). The papers, their titles and notebooks,
and which figures belong to which notebook come from the papers' specs (:func:`flashrepro.papers.specs`), read
when the page is built: a new paper package shows up with no edit here.

The page checks itself once it has loaded: ``<div id="selfcheck">`` gets the number of claim rows, images
loaded and images broken as data attributes (``tests/test_site.py`` reads them through headless Chromium).
"""

from __future__ import annotations

import argparse
import html
import shutil
import sys
from pathlib import Path

import polars as pl

from . import paths
from ._io import atomic_path
from .papers import specs

VERDICTS = ("holds", "partly", "does not hold", "not comparable")
CLAIM_COLUMNS = ("paper", "claim", "workload", "kind", "paper_value", "our_value", "unit", "tolerance", "verdict",
                 "detail")

STYLE = """
body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5em auto; max-width: 1400px; padding: 0 1em; }
table { border-collapse: collapse; margin: 0.5em 0 1.5em; }
th, td { border: 1px solid #ccc; padding: 3px 6px; vertical-align: top; }
th { background: #f2f2f2; position: sticky; top: 0; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
tr.holds td.verdict { background: #d9f2d9; } tr.partly td.verdict { background: #fff2cc; }
tr.does-not-hold td.verdict { background: #f8d7da; } tr.not-comparable td.verdict { background: #e8e8e8; }
#claims td.detail { max-width: 40em; font-size: 12px; color: #444; }
.thumbs { display: flex; flex-wrap: wrap; gap: 10px; }
.thumbs figure { margin: 0; width: 250px; } .thumbs img { width: 250px; border: 1px solid #ddd; }
.thumbs figcaption { font-size: 11px; word-break: break-all; }
#filters input, #filters select { margin-right: 1em; }
"""

SCRIPT = """
function filterClaims() {
  const text = document.getElementById('q').value.toLowerCase();
  const verdict = document.getElementById('verdict').value;
  const paper = document.getElementById('paper').value;
  let shown = 0;
  for (const tr of document.querySelectorAll('#claims tbody tr')) {
    const ok = (!text || tr.textContent.toLowerCase().includes(text))
      && (!verdict || tr.dataset.verdict === verdict) && (!paper || tr.dataset.paper === paper);
    tr.style.display = ok ? '' : 'none';
    shown += ok;
  }
  document.getElementById('shown').textContent = shown;
}
window.addEventListener('load', () => {
  const imgs = [...document.querySelectorAll('img')];
  const ok = imgs.filter(i => i.complete && i.naturalWidth > 0).length;
  const c = document.getElementById('selfcheck');
  c.dataset.claimRows = document.querySelectorAll('#claims tbody tr').length;
  c.dataset.imagesOk = ok;
  c.dataset.imagesBroken = imgs.length - ok;
  c.dataset.broken = imgs.filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.getAttribute('src')).join(' ');
  c.dataset.done = '1';
});
"""


def _e(x) -> str:
    return html.escape("" if x is None else str(x))


def _cls(verdict: str) -> str:
    return verdict.replace(" ", "-")


def _num(x) -> str:
    if x is None:
        return ""
    return f"{x:.4g}" if isinstance(x, float) else str(x)


def ledger_papers() -> dict:
    """Paper number in the claims ledger -> its spec (title, notebook), by number: every paper with claims."""
    return {s.ledger: s for s in sorted((s for s in specs() if s.ledger is not None), key=lambda s: s.ledger)}


NUMBER_WORDS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")


def _papers_heading() -> str:
    """The heading's "five papers": the papers with a ledger number from 1 (0 holds the theory rows)."""
    n = sum(1 for k in ledger_papers() if k >= 1)
    return f"{NUMBER_WORDS[n] if n < len(NUMBER_WORDS) else n} paper{'' if n == 1 else 's'}"


def counts_table(claims: pl.DataFrame, rendered=()) -> str:
    rows = []
    for paper, spec in ledger_papers().items():
        title, nb = spec.title, spec.notebook
        part = claims.filter(pl.col("paper") == paper) if claims.height else claims
        n = {v: part.filter(pl.col("verdict") == v).height if part.height else 0 for v in VERDICTS}
        link = f'<a href="notebooks/{nb}.html">{nb}</a>' if nb in rendered else nb
        rows.append(f"<tr><td class=num>{paper}</td><td>{_e(title)}</td><td>{link}</td>"
                    f"<td class=num>{part.height}</td>" + "".join(f"<td class=num>{n[v]}</td>" for v in VERDICTS)
                    + "</tr>")
    head = "".join(f"<th>{v}</th>" for v in VERDICTS)
    return (f"<table id=papers><thead><tr><th>#</th><th>paper</th><th>notebook</th><th>claims</th>{head}</tr>"
            f"</thead><tbody>{''.join(rows)}</tbody></table>")


def headline_table(head: pl.DataFrame) -> str:
    """``headline.csv`` (all columns read as text) as a table, one row per headline claim."""
    def share(r, lo, hi, x):
        return "n/a" if not r[x] else f"{float(r[x]):.0%} ({float(r[lo]):.0%}-{float(r[hi]):.0%})"

    body = []
    for r in head.iter_rows(named=True):
        cells = [r["paper"], r["claim"], r["workload"], r["default_verdict"] or "n/a",
                 share(r, "holds_ci_low", "holds_ci_high", "holds_share"),
                 "n/a" if not r["partly_share"] else f"{float(r['partly_share']):.0%}", r["top_axis"] or "n/a",
                 r["stand_in_verdicts"] or "none present"]
        body.append(f'<tr class="{_cls(r["default_verdict"] or "")}">'
                    + "".join(f"<td>{_e(str(c))}</td>" for c in cells) + "</tr>")
    head_cells = "".join(f"<th>{c}</th>" for c in ("#", "claim", "workload", "default", "holds on", "partly",
                                                   "top axis", "stand-ins"))
    return f"<table id=headline><thead><tr>{head_cells}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def measured_table(measured: pl.DataFrame) -> str:
    """The measured rows (``claims_measured.csv``: judged on this machine's wall times), a plain table."""
    body = []
    for r in measured.iter_rows(named=True):
        cells = "".join(f"<td class={'num' if c in ('paper', 'paper_value', 'our_value', 'tolerance') else c}>"
                        f"{_e(_num(r.get(c)))}</td>" for c in CLAIM_COLUMNS)
        body.append(f'<tr class="{_cls(r["verdict"])}">{cells}</tr>')
    head = "".join(f"<th>{c}</th>" for c in CLAIM_COLUMNS)
    return f"<table id=measured><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def claims_table(claims: pl.DataFrame) -> str:
    body = []
    for r in claims.iter_rows(named=True):
        cells = []
        for c in CLAIM_COLUMNS:
            v = r.get(c)
            klass = "num" if c in ("paper", "paper_value", "our_value", "tolerance") else c
            cells.append(f"<td class={klass}>{_e(_num(v))}</td>")
        body.append(f'<tr class="{_cls(r["verdict"])}" data-paper="{r["paper"]}" data-verdict="{_e(r["verdict"])}">'
                    + "".join(cells) + "</tr>")
    head = "".join(f"<th>{c}</th>" for c in CLAIM_COLUMNS)
    papers = "".join(f'<option value="{p}">paper {p}</option>' for p in ledger_papers())
    verdicts = "".join(f'<option value="{_e(v)}">{_e(v)}</option>' for v in VERDICTS)
    return (f'<div id=filters><input id=q placeholder="filter claims (any text)" oninput="filterClaims()" size=40>'
            f'<select id=paper onchange="filterClaims()"><option value="">every paper</option>{papers}</select>'
            f'<select id=verdict onchange="filterClaims()"><option value="">every verdict</option>{verdicts}'
            f'</select><span id=shown>{claims.height}</span> of {claims.height} shown</div>'
            f"<table id=claims><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>")


def render_notebooks(src: Path, dst: Path) -> list[str]:
    """Each executed notebook in ``src`` as ``dst/<name>.html`` (nbconvert); re-rendered only when newer."""
    names = []
    nbs = sorted(src.glob("*.ipynb")) if src.is_dir() else []
    if not nbs:
        return names
    from nbconvert import HTMLExporter

    exporter = HTMLExporter()
    dst.mkdir(parents=True, exist_ok=True)
    for nb in nbs:
        out = dst / f"{nb.stem}.html"
        if not out.exists() or out.stat().st_mtime < nb.stat().st_mtime:
            body, _ = exporter.from_filename(str(nb))
            with atomic_path(out) as tmp:
                Path(tmp).write_text(body, encoding="utf-8")
        names.append(nb.stem)
    return names


def figure_groups(names: list[str]) -> dict[str, list[str]]:
    """Figure file names by heading: ``notebook NN`` for those whose name starts with paper NN's notebook (by
    number), then ``other figures`` (the robustness maps', any no notebook's), each in the order given."""
    groups: dict[str, list[str]] = {}
    left = list(names)
    for s in specs():
        mine = [n for n in left if n.startswith(s.notebook + "_")]
        if mine:
            groups[f"notebook {s.number:02d}"] = mine
            left = [n for n in left if n not in mine]
    if left:
        groups["other figures"] = left
    return groups


def build(out: Path | None = None, results: Path | None = None, figures: Path | None = None,
          notebooks: Path | None = None) -> Path:
    """Write the site into ``out`` (default ``build/report``); returns the path of ``index.html``."""
    out = Path(out or paths.build / "report")
    results = Path(results or paths.results)
    figures = Path(figures or paths.figures)
    notebooks = Path(notebooks or paths.build / "paper")
    out.mkdir(parents=True, exist_ok=True)
    claims_csv = results / "claims.csv"
    if claims_csv.exists():
        from .claims import read

        claims = read(claims_csv)
    else:
        claims = pl.DataFrame()
    # figures: copied in, grouped by the notebook (in the papers' specs) whose name they start with
    (out / "figures").mkdir(exist_ok=True)
    pngs = sorted(figures.glob("*.png")) if figures.is_dir() else []
    for p in pngs:
        target = out / "figures" / p.name
        if not target.exists() or target.stat().st_mtime < p.stat().st_mtime:
            shutil.copy2(p, target)
    groups = figure_groups([p.name for p in pngs])
    rendered = render_notebooks(notebooks, out / "notebooks")
    parts = [f"<!doctype html><html><head><meta charset=utf-8><title>flashrepro report</title>"
             f"<style>{STYLE}</style></head><body><h1>flashrepro: {_papers_heading()}, reproduced</h1>"]
    if not claims_csv.exists():
        parts.append(f"<p><b>No {_e(claims_csv)}:</b> run <code>make</code> first.</p>")
    parts.append(f"<h2>Papers</h2>{counts_table(claims, rendered)}")
    if (results / "headline.csv").exists():
        head = pl.read_csv(results / "headline.csv", infer_schema_length=0)
        parts.append("<h2>Headline claims across the space</h2><p>Each paper's headline claims judged at every point "
                     "of its declared space (the reduced robustness map: a seeded Latin hypercube; "
                     "<code>results/headline.csv</code>, <code>make robustness</code> for the full map): the verdict "
                     "at the default point, the share of the space where the claim holds (Wilson 95% interval), the "
                     "share where it partly holds, the axis that moves it most, and its verdict on each real "
                     f"stand-in trace present.</p>{headline_table(head)}")
    nb_links = "".join(f'<li><a href="notebooks/{n}.html">{n}</a></li>' for n in rendered)
    parts.append(f"<h2>Notebooks</h2><ul id=notebooks>{nb_links or '<li>none executed yet</li>'}</ul>")
    parts.append(f"<h2>Claims</h2>{claims_table(claims) if claims.height else '<p>no claims yet</p>'}")
    if (results / "claims_measured.csv").exists():
        from .claims import read

        measured = read(results / "claims_measured.csv")
        parts.append("<h2>Claims judged on this machine's measurements</h2><p>Rows judged on wall times measured "
                     "while <code>make</code> ran (<code>results/claims_measured.csv</code>): the same verdict "
                     "rule, but the numbers differ from run to run and machine to machine, so they are kept out "
                     f"of the ledger above.</p>{measured_table(measured)}")
    parts.append("<h2>Figures</h2>")
    for heading, names in groups.items():
        thumbs = "".join(f'<figure><a href="figures/{_e(n)}"><img src="figures/{_e(n)}" alt="{_e(n)}"></a>'
                         f"<figcaption>{_e(n)}</figcaption></figure>" for n in names)
        parts.append(f"<h3>{_e(heading)}</h3><div class=thumbs>{thumbs}</div>")
    parts.append(f"<div id=selfcheck></div><script>{SCRIPT}</script></body></html>")
    index = out / "index.html"
    with atomic_path(index) as tmp:
        Path(tmp).write_text("\n".join(parts), encoding="utf-8")
    return index


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m flashrepro.site", description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=None)
    ap.add_argument("--results", default=None)
    ap.add_argument("--figures", default=None)
    ap.add_argument("--notebooks", default=None)
    a = ap.parse_args(argv)
    index = build(a.out, a.results, a.figures, a.notebooks)
    print(f"wrote {index} (open it in a browser: file://{index.resolve()})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
