"""The browsable report: ``make report`` -> ``build/report/index.html``.

    python -m flashrepro.site                       # from results/, figures/ and build/paper/ (what `make` wrote)
    python -m flashrepro.site --results results/quick --figures figures/quick --notebooks build/quick

One page, top to bottom:

1. **Provenance** (:mod:`flashrepro.siteinfo`): the git commit and whether the tree is dirty; each executed
   notebook's scale (papermill's parameters in ``build/paper/*.ipynb``), when it ran, whether it raised, and
   the commits to the inputs made since; the robustness maps' scales; which of the catalog's real traces the
   trace folders hold; Python and the key packages' versions; the build date (``--built``, else
   ``SOURCE_DATE_EPOCH``, else now: the only thing two builds from the same inputs differ in).
2. **Papers**: the claims counts by verdict per ledger, linking to each paper's section.
3. **Per paper**, in the specs' order (:func:`flashrepro.papers.specs`): its title and notebook, its headline
   claims (the ledger's ``headline`` rows: the paper's number, ours, the verdict, the note, and how the claim
   fares across the robustness map from ``headline.csv``), then its figures, each captioned with what it shows
   and beside the ledger rows it supports (:func:`flashrepro.siteinfo.supporting_rows`).
4. **The ledger**: every row of ``results/claims.csv`` with its ``source``, ``note`` and ``detail``, filtered by
   text, paper, verdict, figure and headline. The filter lives in the URL (``#ledger?paper=1&verdict=holds``),
   so a caption links to the rows it supports and a filtered view can be shared.
5. The rows judged on this machine's wall times (``claims_measured.csv``) and each executed notebook rendered
   to HTML by nbconvert (re-rendered only when the notebook is newer).

Figures are copied into the site, so the folder can be moved or served as it is (``python -m http.server -d
build/report``). Nothing here names a paper: titles, notebooks, figures and captions come from the papers'
declarations, read without importing the packages.

The page checks itself once it has loaded (after applying a filter given in the URL): ``<div id="selfcheck">``
gets as data attributes the number of ledger rows and of rows shown (and their ids), images loaded and broken,
figures and those with a visible caption, and whether the provenance block is shown and the commit it names
(``tests/test_site.py`` reads them through headless Chromium).
"""

from __future__ import annotations

import argparse
import html
import shutil
import sys
from pathlib import Path

import polars as pl

from . import paths, siteinfo
from ._io import atomic_path
from .papers import specs

VERDICTS = ("holds", "partly", "does not hold", "not comparable")
LEDGER_COLUMNS = ("paper", "claim", "workload", "kind", "expected", "paper_value", "our_value", "unit", "tolerance",
                  "verdict", "source", "note", "detail")
MEASURED_COLUMNS = ("paper", "claim", "workload", "kind", "paper_value", "our_value", "unit", "tolerance", "verdict",
                    "source", "note", "detail")
NUMERIC = ("paper", "paper_value", "our_value", "tolerance")

STYLE = """
body { font: 14px/1.45 system-ui, sans-serif; margin: 1.5em auto; max-width: 1500px; padding: 0 1em; color: #222; }
h2 { border-bottom: 2px solid #ddd; padding-bottom: 2px; margin-top: 1.8em; }
table { border-collapse: collapse; margin: 0.5em 0 1.2em; }
th, td { border: 1px solid #ccc; padding: 3px 6px; vertical-align: top; text-align: left; }
th { background: #f2f2f2; }
#claims th { position: sticky; top: 0; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.holds td.verdict, li.holds .v { background: #d9f2d9; } .partly td.verdict, li.partly .v { background: #fff2cc; }
.does-not-hold td.verdict, li.does-not-hold .v { background: #f8d7da; }
.not-comparable td.verdict, li.not-comparable .v { background: #e8e8e8; }
td.note, td.detail, td.space { max-width: 30em; font-size: 12px; color: #333; }
td.source { font-size: 12px; min-width: 6em; }
#claims td.claim { min-width: 16em; } #claims td.note { min-width: 14em; } #claims td.workload { min-width: 7em; }
#provenance table.kv th { width: 11em; }
#provenance .warn { background: #fff2cc; }
.dirty { color: #a00; font-weight: bold; } .clean { color: #060; }
section.paper { margin-top: 2.5em; }
p.meta { color: #444; }
.figs { display: flex; flex-direction: column; gap: 14px; }
figure.fig { display: flex; gap: 14px; margin: 0; align-items: flex-start; border-top: 1px solid #eee;
             padding-top: 10px; }
figure.fig img { max-width: 440px; max-height: 560px; border: 1px solid #ddd; }
figure.fig figcaption { flex: 1; font-size: 13px; }
figcaption .title { display: block; font-size: 14px; }
figcaption .file { color: #888; font-size: 11px; }
.supports ul { margin: 4px 0; padding-left: 1.2em; } .supports li { margin: 1px 0; }
.supports .v { padding: 0 4px; font-size: 11px; } .supports .wl { color: #666; font-size: 11px; }
.none { color: #666; font-style: italic; } td.go { white-space: nowrap; }
#filters { position: sticky; top: 0; background: #fff; padding: 6px 0; z-index: 2; }
#filters input, #filters select { margin-right: 0.8em; }
#claims tr:target td { outline: 2px solid #d60; }
"""

SCRIPT = """
function controls() {
  return ['q', 'paper', 'verdict', 'figure', 'headline'].map(id => document.getElementById(id));
}
function filterClaims(keepHash) {
  const [q, paper, verdict, figure, headline] = controls();
  const text = q.value.trim().toLowerCase();
  let shown = 0;
  for (const tr of document.querySelectorAll('#claims tbody tr')) {
    const ok = (!text || tr.textContent.toLowerCase().includes(text))
      && (!paper.value || tr.dataset.paper === paper.value)
      && (!verdict.value || tr.dataset.verdict === verdict.value)
      && (!figure.value || (' ' + tr.dataset.figures + ' ').includes(' ' + figure.value + ' '))
      && (!headline.checked || tr.dataset.headline === '1');
    tr.style.display = ok ? '' : 'none';
    shown += ok;
  }
  document.getElementById('shown').textContent = shown;
  if (!keepHash) {
    const p = new URLSearchParams();
    if (q.value.trim()) p.set('q', q.value.trim());
    for (const c of [paper, verdict, figure]) if (c.value) p.set(c.id, c.value);
    if (headline.checked) p.set('headline', '1');
    history.replaceState(null, '', '#ledger' + (p.toString() ? '?' + p : ''));
  }
}
function applyHash() {
  const h = decodeURIComponent(location.hash);
  const [q, paper, verdict, figure, headline] = controls();
  if (h.startsWith('#ledger')) {
    const p = new URLSearchParams(h.includes('?') ? location.hash.slice(location.hash.indexOf('?') + 1) : '');
    q.value = p.get('q') || '';
    for (const c of [paper, verdict, figure]) c.value = p.get(c.id) || '';  // an unknown value selects none
    headline.checked = p.get('headline') === '1';
    filterClaims(true);
    document.getElementById('ledger').scrollIntoView();
  } else if (h.startsWith('#claim-')) {
    const tr = document.getElementById(h.slice(1));
    if (tr && tr.style.display === 'none') {
      q.value = ''; paper.value = ''; verdict.value = ''; figure.value = ''; headline.checked = false;
      filterClaims(true);
      tr.scrollIntoView();
    }
  }
}
window.addEventListener('hashchange', applyHash);
window.addEventListener('load', () => {
  applyHash();
  const visible = el => !!el && el.offsetHeight > 0 && el.innerText.trim().length > 0;
  const imgs = [...document.querySelectorAll('img')];
  const loaded = i => i.complete && i.naturalWidth > 0;
  const rows = [...document.querySelectorAll('#claims tbody tr')];
  const shownRows = rows.filter(tr => tr.style.display !== 'none');
  const figs = [...document.querySelectorAll('figure.fig')];
  const captioned = f => {
    const cap = f.querySelector('figcaption .title');
    const name = (f.querySelector('img') || {}).getAttribute?.('src')?.split('/').pop() || '';
    return visible(cap) && cap.innerText.trim() !== name && cap.innerText.trim() !== name.replace(/\\.png$/, '');
  };
  const prov = document.getElementById('provenance');
  const c = document.getElementById('selfcheck');
  c.dataset.claimRows = rows.length;
  c.dataset.shown = shownRows.length;
  c.dataset.shownIds = shownRows.map(tr => tr.id).join(' ');
  c.dataset.imagesOk = imgs.filter(loaded).length;
  c.dataset.imagesBroken = imgs.length - imgs.filter(loaded).length;
  c.dataset.broken = imgs.filter(i => !loaded(i)).map(i => i.getAttribute('src')).join(' ');
  c.dataset.figures = figs.length;
  c.dataset.captioned = figs.filter(captioned).length;
  c.dataset.uncaptioned = figs.filter(f => !captioned(f)).map(f => f.id).join(' ');
  c.dataset.provenanceShown = visible(prov) ? '1' : '0';
  c.dataset.commit = visible(document.getElementById('commit')) ? document.getElementById('commit').dataset.commit : '';
  c.dataset.traces = visible(document.getElementById('traces')) ? document.getElementById('traces').innerText : '';
  c.dataset.done = '1';
});
"""


def _e(x) -> str:
    return html.escape("" if x is None else str(x))


def _cls(verdict) -> str:
    return str(verdict or "").replace(" ", "-")


def _num(x) -> str:
    if x is None:
        return ""
    return f"{x:.4g}" if isinstance(x, float) else str(x)


def _rel(p: Path) -> str:
    """``p`` relative to the repository when inside it (what the page shows), else as given."""
    try:
        return str(Path(p).resolve().relative_to(paths.root.resolve())) or "."
    except ValueError:
        return str(p)


def ledger_papers() -> dict:
    """Paper number in the claims ledger -> its spec (title, notebook), by number: every paper with claims."""
    return {s.ledger: s for s in sorted((s for s in specs() if s.ledger is not None), key=lambda s: s.ledger)}


NUMBER_WORDS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")


def _papers_heading() -> str:
    """The heading's "five papers": the papers with a ledger number from 1 (0 holds the theory rows)."""
    n = sum(1 for k in ledger_papers() if k >= 1)
    return f"{NUMBER_WORDS[n] if n < len(NUMBER_WORDS) else n} paper{'' if n == 1 else 's'}"


def _counts(rows: list[dict]) -> dict:
    return {v: sum(1 for r in rows if r["verdict"] == v) for v in VERDICTS}


def _count_text(rows: list[dict]) -> str:
    n = _counts(rows)
    return ", ".join(f"{n[v]} {v}" for v in VERDICTS if n[v])


# --- provenance ---------------------------------------------------------------------------------------------
def _commit_cell(g) -> str:
    """The commit the site was built from, and whether the tree was clean."""
    if g.commit:
        state = ('<span class=clean>clean tree</span>' if not g.dirty else
                 f'<span class=dirty>dirty tree: {len(g.dirty)} path{"" if len(g.dirty) == 1 else "s"} differ from '
                 f'the commit</span> (<code>{_e("; ".join(x.strip() for x in g.dirty[:8]))}'
                 f'{"; ..." if len(g.dirty) > 8 else ""}</code>)')
        commit = (f'<td id=commit data-commit="{_e(g.commit)}"><code>{_e(g.commit)}</code> on {_e(g.branch)}, '
                  f'committed {_e(g.date)}: {_e(g.subject[:140])}{"..." if len(g.subject) > 140 else ""}<br>'
                  f"{state}</td>")
    else:
        commit = f'<td id=commit data-commit="">unknown: {_e(g.error)}</td>'
    return commit


def _ran_cell(runs, notebooks: Path) -> str:
    """Which notebooks ran, at which scale and when, and which raised."""
    scales = sorted({r.scale for r in runs})
    if runs:
        ran = (f"{len(runs)} executed notebooks in <code>{_e(_rel(notebooks))}</code>, at scale "
               + " and ".join(f"<b>{_e(s)}</b> ({', '.join(r.notebook[:2] for r in runs if r.scale == s)})"
                              for s in scales)
               + f", finished {_e(min(r.end for r in runs if r.end) if any(r.end for r in runs) else '?')[:16]} to "
               f"{_e(max(r.end for r in runs if r.end) if any(r.end for r in runs) else '?')[:16]} UTC")
        failed = [r.notebook for r in runs if r.exception]
        if failed:
            ran += f'; <span class=dirty>raised: {_e(", ".join(failed))}</span>'
    else:
        ran = f"<span class=dirty>no executed notebook in <code>{_e(_rel(notebooks))}</code></span>: run make"
    return ran


def _stale_row(runs, g) -> str:
    """Whether a commit changed the notebooks' inputs after they ran."""
    later = {c for r in runs for c in r.later_commits}
    if later:
        newest = max(later, key=lambda c: c[1])
        stale = (f"<tr><th>since they ran</th><td class=warn>{len(later)} commit{'s' if len(later) > 1 else ''} "
                 f"changed {', '.join(f'<code>{x}/</code>' for x in siteinfo.INPUTS)} after the notebooks ran "
                 f"(newest {_e(newest[0])}, {_e(newest[1])}): their outputs may predate the commit above; "
                 f"<code>make</code> re-runs the notebooks that are out of date</td></tr>")
    elif runs and g.commit:
        stale = ("<tr><th>since they ran</th><td>no commit changed " + ", ".join(
            f"<code>{x}/</code>" for x in siteinfo.INPUTS) + " after the notebooks ran</td></tr>")
    else:
        stale = ""
    return stale


def _maps_row(prov: siteinfo.Provenance) -> str:
    """The robustness maps' scales."""
    maps = ""
    if prov.map_scales:
        maps = ("<tr><th>robustness maps</th><td>reduced map (<code>headline.csv</code>), points run at scale "
                + ", ".join(f"{_e(m)} (paper {p})" for p, m, _ in prov.map_scales)
                + "; the default point also at the claims' scale "
                + ", ".join(sorted({_e(c) for _, _, c in prov.map_scales})) + "</td></tr>")
    return maps


def _traces_cell(t, runs) -> str:
    """The catalog's real traces found now, the folders searched, and whether the notebooks ran
    with them."""
    groups = ", ".join(f"{_e(grp)} {len(f)}/{len(f) + len(m)}" for grp, f, m in t.catalog)
    folders = "; ".join(
        f"<code>{_e(_rel(Path(f.path)))}</code> " + (
            f"({len(f.entries)} entr{'y' if len(f.entries) == 1 else 'ies'}: {_e(', '.join(f.entries[:20]))}"
            f"{', ...' if len(f.entries) > 20 else ''})" if f.exists else "(missing)")
        for f in t.folders)
    timed = [r for r in runs if r.traces is not None]
    with_traces = (f"; the notebooks ran with a trace folder present: {sum(1 for r in timed if r.traces)} of "
                   f"{len(timed)} (<code>notebook_timings.csv</code>)" if timed else "")
    traces = (f"<td id=traces>{t.n_found} of the catalog's {t.n_real} real traces found now: {groups}. "
              f"Folders searched: {folders}. <code>FLASHREPRO_TRACE_DIRS</code>="
              f"<code>{_e(t.env) or '(unset)'}</code>{with_traces}</td>")
    return traces


def _versions_cell(prov: siteinfo.Provenance, runs) -> str:
    """The software versions and the notebooks' Python."""
    kernels = sorted({r.python for r in runs if r.python})
    versions = (", ".join(f"{_e(n)} {_e(v)}" for n, v in prov.versions)
                + (f"; the notebooks' kernel: Python {_e(', '.join(kernels))}" if kernels else "")
                + f"; {_e(prov.platform)}")
    return versions


def _runs_table(runs) -> str:
    """One row per executed notebook: its scale, parameters, time, traces and status."""
    rows = "".join(
        f"<tr><td>{_e(r.notebook)}</td><td><b>{_e(r.scale)}</b></td><td>{_e(r.scale_from)}</td>"
        f"<td>{_e(', '.join(f'{k}={v}' for k, v in r.parameters)) or '-'}</td><td>{_e(r.end[:19])}</td>"
        f"<td class=num>{'' if r.duration is None else f'{r.duration:.0f} s'}</td>"
        f"<td>{'yes' if r.traces else 'no' if r.traces is not None else '?'}</td>"
        f"<td>{'ran to the end' if not r.exception else '<span class=dirty>raised</span>'}</td>"
        f"<td{' class=warn' if r.later_commits else ''}>{len(r.later_commits) or 'none'}</td></tr>"
        for r in runs)
    runs_table = ("<table id=runs><thead><tr><th>notebook</th><th>scale</th><th>read from</th><th>other "
                  "parameters</th><th>finished (UTC)</th><th>took</th><th>trace folder</th><th>status</th>"
                  f"<th>input commits since</th></tr></thead><tbody>{rows}</tbody></table>") if runs else ""
    return runs_table


def _catalog_items(t) -> str:
    """The catalog's real traces by group, found and missing."""
    found = "".join(f"<li>{_e(grp)}: found {_e(', '.join(f) or 'none')}"
                    + (f"; <span class=none>missing {_e(', '.join(m))}</span>" if m else "") + "</li>"
                    for grp, f, m in t.catalog)
    return found


def provenance_html(prov: siteinfo.Provenance, results: Path, figures: Path, notebooks: Path) -> str:
    """The provenance section: the commit, the notebooks' runs, the traces and the software the results came
    from."""
    g, runs, t = prov.git, prov.runs, prov.traces
    commit, ran, stale, maps = _commit_cell(g), _ran_cell(runs, notebooks), _stale_row(runs, g), _maps_row(prov)
    traces, versions = _traces_cell(t, runs), _versions_cell(prov, runs)
    runs_table, found = _runs_table(runs), _catalog_items(t)
    return (f"<section id=provenance><h2>Provenance</h2><table class=kv>"
            f"<tr><th>commit</th>{commit}</tr><tr><th>notebooks</th><td id=scales>{ran}</td></tr>{stale}{maps}"
            f"<tr><th>traces</th>{traces}</tr><tr><th>software</th><td id=versions>{versions}</td></tr>"
            f"<tr><th>read from</th><td><code>{_e(_rel(results))}</code>, <code>{_e(_rel(figures))}</code>, "
            f"<code>{_e(_rel(notebooks))}</code></td></tr>"
            f"<tr><th>built</th><td id=built>{_e(prov.built)}</td></tr></table>{runs_table}"
            f"<details><summary>the catalog's real traces, found and missing</summary><ul id=catalog>{found}</ul>"
            f"</details></section>")


# --- papers -------------------------------------------------------------------------------------------------
def counts_table(claims: pl.DataFrame, rendered=()) -> str:
    rows = []
    for paper, spec in ledger_papers().items():
        title, nb = spec.title, spec.notebook
        part = claims.filter(pl.col("paper") == paper) if claims.height else claims
        n = {v: part.filter(pl.col("verdict") == v).height if part.height else 0 for v in VERDICTS}
        heads = part["headline"].sum() if part.height and "headline" in part.columns else 0
        link = f'<a href="notebooks/{nb}.html">{nb}</a>' if nb in rendered else nb
        rows.append(f"<tr><td class=num>{paper}</td><td>{_e(title)}</td><td>{link}</td><td class=num>{part.height}</td>"
                    + "".join(f"<td class=num>{n[v]}</td>" for v in VERDICTS) + f"<td class=num>{heads}</td>"
                    f'<td class=go><a href="#paper-{spec.number:02d}">section</a></td></tr>')
    head = "".join(f"<th>{v}</th>" for v in VERDICTS)
    return (f"<table id=papers><thead><tr><th>#</th><th>paper</th><th>notebook</th><th>claims</th>{head}"
            f"<th>headline</th><th></th></tr></thead><tbody>{''.join(rows)}</tbody></table>")


def _space(h: dict | None) -> str:
    """How a headline claim fares across the robustness map (a ``headline.csv`` row, all text)."""
    if not h:
        return '<span class=none>not in the map</span>'

    def pct(x):
        return f"{float(x):.0%}"

    text = "n/a" if not h.get("holds_share") else (
        f"holds on {pct(h['holds_share'])} ({pct(h['holds_ci_low'])}-{pct(h['holds_ci_high'])})")
    if h.get("partly_share") and float(h["partly_share"]) > 0:
        text += f", partly {pct(h['partly_share'])}"
    if h.get("top_axis"):
        text += f"; top axis {_e(h['top_axis'])}"
    if h.get("stand_in_verdicts"):  # "trace: verdict; ..." -> a count per verdict, the traces in the tooltip
        verdicts = [part.rpartition(": ")[2].strip() for part in h["stand_in_verdicts"].split(";") if part.strip()]
        counts = ", ".join(f"{verdicts.count(v)} {v}" for v in VERDICTS if v in verdicts)
        text += f'<br><span class=wl title="{_e(h["stand_in_verdicts"])}">real stand-ins: {_e(counts)}</span>'
    return text


def headline_table(rows: list[tuple[int, dict]], space: dict) -> str:
    """A paper's headline rows (index into the ledger, row): the paper's number, ours, verdict, note."""
    body = []
    for i, r in rows:
        h = space.get((r["paper"], r["claim"], r["workload"]))
        note = r["note"] or r["detail"] or ""
        body.append(f'<tr class="{_cls(r["verdict"])}"><td><a href="#claim-{i}">{_e(r["claim"])}</a></td>'
                    f'<td>{_e(r["workload"])}</td><td class=num>{_e(_num(r["paper_value"]))}</td>'
                    f'<td class=num>{_e(_num(r["our_value"]))}</td><td>{_e(r["unit"])}</td>'
                    f'<td class=verdict>{_e(r["verdict"])}</td><td class=note>{_e(note)}</td>'
                    f"<td class=space>{_space(h)}</td></tr>")
    return ("<table class=headline><thead><tr><th>claim</th><th>workload</th><th>paper</th><th>ours</th><th>unit</th>"
            "<th>verdict</th><th>note</th><th>across the space (reduced map)</th></tr></thead>"
            f"<tbody>{''.join(body)}</tbody></table>")


def figure_html(fig: siteinfo.Figure, support: list[int], rows: list[dict], ledger) -> str:
    """A figure beside its caption: what it shows, then the ledger rows it supports (headline rows first)."""
    if ledger is None:
        sup = "<span class=none>This notebook keeps no claims ledger.</span>"
    elif not support:
        sup = ("<span class=none>Supports no ledger row directly: " + (
            "no row's source names the paper figure it stands for." if fig.ids else
            "it stands for no paper figure (the ledger's source column names figures as \"Fig. N\").") + "</span>")
    else:
        heads = [i for i in support if rows[i]["headline"]]
        items = sorted(support, key=lambda i: (not rows[i]["headline"], i))

        def li(i):
            r = rows[i]
            return (f'<li class="{_cls(r["verdict"])}"><a href="#claim-{i}">{_e(r["claim"])}</a> '
                    f'<span class=wl>[{_e(r["workload"])}]</span> <span class=v>{_e(r["verdict"])}</span>'
                    f'{" <b title=headline>&#9733;</b>" if r["headline"] else ""}</li>')

        shown, rest = items[:8], items[8:]
        more = (f"<details><summary>{len(rest)} more</summary><ul>{''.join(li(i) for i in rest)}</ul></details>"
                if rest else "")
        sup = (f"Supports {len(support)} ledger row{'s' if len(support) > 1 else ''} "
               f"({_count_text([rows[i] for i in support])})"
               f"{f', {len(heads)} headline' if heads else ''}: "
               f'<a href="#ledger?figure={_e(fig.stem)}">show them in the ledger</a>'
               f"<ul>{''.join(li(i) for i in shown)}</ul>{more}")
    return (f'<figure class=fig id="fig-{_e(fig.stem)}"><a href="figures/{_e(fig.file)}">'
            f'<img src="figures/{_e(fig.file)}" alt="{_e(fig.caption)}"></a><figcaption>'
            f"<b class=title>{_e(fig.title)}</b> <span class=shows>{_e(fig.shows)}</span> "
            f"<span class=file>{_e(fig.file)}</span><div class=supports>{sup}</div></figcaption></figure>")


def paper_section(spec, rows: list[dict], figs: list[siteinfo.Figure], missing: list[siteinfo.Figure],
                  support: dict, space: dict, runs: dict, rendered) -> str:
    ledger = spec.ledger
    mine = [(i, r) for i, r in enumerate(rows) if ledger is not None and r["paper"] == ledger]
    run = runs.get(spec.notebook)
    nb = (f'<a href="notebooks/{spec.notebook}.html">{spec.notebook}</a>' if spec.notebook in rendered
          else spec.notebook)
    meta = f"{nb}" + (f", run at scale <b>{_e(run.scale)}</b>" if run else ", not executed yet")
    if ledger is None:
        meta += ". It keeps no claims ledger."
        heads = ""
    else:
        meta += (f". Ledger paper {ledger}: {len(mine)} rows ({_count_text([r for _, r in mine]) or 'none yet'}): "
                 f'<a href="#ledger?paper={ledger}">show them in the ledger</a>.')
        head_rows = [(i, r) for i, r in mine if r["headline"]]
        heads = (f"<h3>Headline claims ({len(head_rows)})</h3>{headline_table(head_rows, space)}" if head_rows else
                 "<h3>Headline claims</h3><p class=none>No headline claims: this paper's package declares none "
                 "(its rows are all in the ledger below).</p>")
    body = "".join(figure_html(f, support.get(f.file, []), rows, ledger) for f in figs)
    gone = ""
    if missing:
        gone = ("<p class=none>Declared but not in the figures folder: " + "; ".join(
            f"{_e(f.file)} ({'not written at every scale or on every machine' if not f.always else 'run make'})"
            for f in missing) + ".</p>")
    figures = (f"<h3>Figures ({len(figs)})</h3><div class=figs>{body}</div>{gone}" if figs else
               f"<h3>Figures</h3><p class=none>No figure of this notebook in the figures folder.</p>{gone}")
    return (f'<section class=paper id="paper-{spec.number:02d}"><h2>{spec.number:02d} &middot; {_e(spec.title)}</h2>'
            f"<h3>notebook {spec.number:02d}</h3><p class=meta>{meta}</p>{heads}{figures}</section>")


# --- the ledger -----------------------------------------------------------------------------------------------
def claims_table(rows: list[dict], figures_of: dict | None = None, figure_names: dict | None = None) -> str:
    """Every ledger row with its source, note and detail, and the filters (text, paper, verdict, figure,
    headline)."""
    figures_of = figures_of or {}
    figure_names = figure_names or {}
    body = []
    for i, r in enumerate(rows):
        cells = []
        for c in LEDGER_COLUMNS:
            klass = "num" if c in NUMERIC else c
            cells.append(f"<td class={klass}>{_e(_num(r.get(c)))}</td>")
        figs = figures_of.get(i, [])
        links = " ".join(f'<a href="#fig-{_e(s)}">{_e(figure_names.get(s, s))}</a>' for s in figs)
        body.append(f'<tr id=claim-{i} class="{_cls(r["verdict"])}" data-paper="{r["paper"]}" '
                    f'data-verdict="{_e(r["verdict"])}" data-headline="{1 if r.get("headline") else 0}" '
                    f'data-figures="{_e(" ".join(figs))}"><td class=num>{i}{" &#9733;" if r.get("headline") else ""}'
                    f"</td>{''.join(cells)}<td class=figures>{links}</td></tr>")
    head = "".join(f"<th>{c}</th>" for c in ("#",) + LEDGER_COLUMNS + ("figures",))
    papers = "".join(f'<option value="{p}">paper {p}</option>' for p in ledger_papers())
    verdicts = "".join(f'<option value="{_e(v)}">{_e(v)}</option>' for v in VERDICTS)
    options = "".join(f'<option value="{_e(s)}">{_e(n)}</option>' for s, n in figure_names.items())
    return (f'<div id=filters><input id=q placeholder="filter (any text)" oninput="filterClaims()" size=32>'
            f'<select id=paper onchange="filterClaims()"><option value="">every paper</option>{papers}</select>'
            f'<select id=verdict onchange="filterClaims()"><option value="">every verdict</option>{verdicts}'
            f'</select><select id=figure onchange="filterClaims()"><option value="">any figure</option>{options}'
            f'</select><label><input type=checkbox id=headline onchange="filterClaims()"> headline only</label> '
            f"<span id=shown>{len(rows)}</span> of {len(rows)} rows shown</div>"
            f"<table id=claims><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>")


def measured_table(measured: pl.DataFrame) -> str:
    """The measured rows (``claims_measured.csv``: judged on this machine's wall times), a plain table."""
    body = []
    for r in measured.iter_rows(named=True):
        cells = "".join(f"<td class={'num' if c in NUMERIC else c}>{_e(_num(r.get(c)))}</td>" for c in MEASURED_COLUMNS)
        body.append(f'<tr class="{_cls(r["verdict"])}">{cells}</tr>')
    head = "".join(f"<th>{c}</th>" for c in MEASURED_COLUMNS)
    return f"<table id=measured><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def render_notebooks(src: Path, dst: Path, render: bool = True) -> list[str]:
    """Each executed notebook in ``src`` as ``dst/<name>.html`` (nbconvert), re-rendered only when newer
    (nbconvert is imported only then); ``render=False`` lists those already rendered and converts none."""
    names = []
    nbs = sorted(src.glob("*.ipynb")) if src.is_dir() else []
    stale = [nb for nb in nbs if not (dst / f"{nb.stem}.html").exists()
             or (dst / f"{nb.stem}.html").stat().st_mtime < nb.stat().st_mtime]
    if stale and render:
        from nbconvert import HTMLExporter

        exporter = HTMLExporter()
        dst.mkdir(parents=True, exist_ok=True)
        for nb in stale:
            body, _ = exporter.from_filename(str(nb))
            with atomic_path(dst / f"{nb.stem}.html") as tmp:
                Path(tmp).write_text(body, encoding="utf-8")
    for nb in nbs:
        if (dst / f"{nb.stem}.html").exists():
            names.append(nb.stem)
    return names


def _headline_csv(results: Path) -> tuple[dict, list]:
    """``headline.csv`` as {(paper, claim, workload): row} and ``(paper, claim, workload, source)`` rows."""
    f = results / "headline.csv"
    if not f.exists():
        return {}, []
    head = pl.read_csv(f, infer_schema_length=0)
    space, plotted = {}, []
    for r in head.iter_rows(named=True):
        key = (int(r["paper"]), r["claim"], r["workload"])
        space[key] = r
        plotted.append((*key, r.get("source") or ""))
    return space, plotted


def _copy_figures(figures: Path, out: Path) -> set[str]:
    """Copy the figures into the site (those newer than the site's copy) and return their names."""
    (out / "figures").mkdir(exist_ok=True)
    pngs = sorted(figures.glob("*.png")) if figures.is_dir() else []
    for p in pngs:
        target = out / "figures" / p.name
        if not target.exists() or target.stat().st_mtime < p.stat().st_mtime:
            shutil.copy2(p, target)
    return {p.name for p in pngs}


def _figures_by_paper(all_specs, present: set[str], plotted):
    """``(per_paper, missing, others)``: each paper's declared figures present and its robustness maps', its
    declared figures missing, and the figures no paper declares (under "other figures")."""
    per_paper, missing, owned = {}, {}, set()
    for s in all_specs:
        declared = siteinfo.paper_figures(s)
        robust = siteinfo.robustness_figures(present, s.ledger, plotted) if s.ledger is not None else []
        per_paper[s.notebook] = [f for f in declared if f.file in present] + robust
        missing[s.notebook] = [f for f in declared if f.file not in present]
        owned.update(f.file for f in per_paper[s.notebook])
    others = [siteinfo.Figure(n, "A figure no paper declares", "", "No paper's outputs name this file, so nothing "
                              "says what it shows.") for n in sorted(present - owned)]
    return per_paper, missing, others


def _figure_support(all_specs, per_paper: dict, rows: list[dict]):
    """``(support, figures_of, figure_names)``: the ledger rows each figure shows, the figures showing each row,
    and the label of each figure that shows one."""
    support, figures_of, figure_names = {}, {}, {}
    for s in all_specs:
        for f in per_paper[s.notebook]:
            support[f.file] = siteinfo.supporting_rows(f, s.ledger, rows)
            for i in support[f.file]:
                figures_of.setdefault(i, []).append(f.stem)
            if support[f.file]:
                figure_names[f.stem] = f"{s.number:02d} {f.ref}"
    return support, figures_of, figure_names


def _ledger_sections(claims_csv: Path, rows: list[dict], figures_of: dict, figure_names: dict,
                     measured_csv: Path) -> list[str]:
    """The ledger (every claim, filterable), and the claims judged on this machine's measurements."""
    parts = ["<section id=ledger><h2>The ledger: every claim</h2><p>Every row of <code>"
             f"{_e(_rel(claims_csv))}</code>: the paper's number and ours, the verdict by the one rule of "
             "<code>flashrepro.claims</code>, where the paper says it (<code>source</code>), why a row is judged "
             "as it is or cannot be compared (<code>note</code>), the numbers behind the verdict "
             "(<code>detail</code>) and the figures here that show it. &#9733; marks a headline claim. The "
             "filter is kept in the address (<code>#ledger?paper=1&amp;verdict=holds</code>).</p>"
             + (claims_table(rows, figures_of, figure_names) if rows else "<p>no claims yet</p>") + "</section>"]
    if measured_csv.exists():
        from .claims import read

        parts.append("<h2>Claims judged on this machine's measurements</h2><p>Rows judged on wall times measured "
                     "while <code>make</code> ran (<code>results/claims_measured.csv</code>): the same verdict "
                     "rule, but the numbers differ from run to run and machine to machine, so they are kept out "
                     f"of the ledger above.</p>{measured_table(read(measured_csv))}")
    return parts


def build(out: Path | None = None, results: Path | None = None, figures: Path | None = None,
          notebooks: Path | None = None, *, built=None, render: bool = True, root: Path | None = None) -> Path:
    """Write the site into ``out`` (default ``build/report``); returns the path of ``index.html``.

    ``built``: the build date shown (a string or a datetime; default ``SOURCE_DATE_EPOCH`` or now);
    ``render=False``: no notebook is converted to HTML (those already in the site are linked); ``root``: the
    git checkout the provenance names (default the repository)."""
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
    rows = claims.to_dicts() if claims.height else []
    present = _copy_figures(figures, out)
    space, plotted = _headline_csv(results)
    all_specs = specs()
    per_paper, missing, others = _figures_by_paper(all_specs, present, plotted)
    support, figures_of, figure_names = _figure_support(all_specs, per_paper, rows)
    rendered = render_notebooks(notebooks, out / "notebooks", render)
    prov = siteinfo.provenance(results, notebooks, root, built)
    runs = {r.notebook: r for r in prov.runs}
    parts = [f"<!doctype html><html><head><meta charset=utf-8><title>flashrepro report</title>"
             f"<style>{STYLE}</style></head><body><h1>flashrepro: {_papers_heading()}, reproduced</h1>"]
    if not claims_csv.exists():
        parts.append(f"<p><b>No {_e(_rel(claims_csv))}:</b> run <code>make</code> first.</p>")
    parts.append(provenance_html(prov, results, figures, notebooks))
    parts.append(f"<h2>Papers</h2>{counts_table(claims, rendered)}")
    for s in all_specs:
        parts.append(paper_section(s, rows, per_paper[s.notebook], missing[s.notebook], support, space, runs,
                                   rendered))
    if others:
        body = "".join(figure_html(f, [], rows, None) for f in others)
        parts.append(f"<section class=paper id=other-figures><h2>Other figures</h2><div class=figs>{body}</div>"
                     f"</section>")
    parts += _ledger_sections(claims_csv, rows, figures_of, figure_names, results / "claims_measured.csv")
    nb_links = "".join(f'<li><a href="notebooks/{n}.html">{n}</a></li>' for n in rendered)
    parts.append(f"<h2>Notebooks</h2><ul id=notebooks>{nb_links or '<li>none executed yet</li>'}</ul>")
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
    ap.add_argument("--built", default=None, help="the build date to show (default: SOURCE_DATE_EPOCH, else now)")
    ap.add_argument("--no-render", action="store_true", help="convert no notebook to HTML (link those rendered)")
    a = ap.parse_args(argv)
    index = build(a.out, a.results, a.figures, a.notebooks, built=a.built, render=not a.no_render)
    print(f"wrote {index} (open it in a browser: file://{index.resolve()})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
