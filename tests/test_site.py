"""The browsable report (``make report``): built from a small set of outputs with the real papers' declarations,
read back as HTML (provenance, headline claims per paper, captions, every ledger row's note and source), and
opened in headless Chromium, where the filter, the captions and the provenance are checked as a reader sees them.

The browser test needs a Chromium (``make browser`` installs Debian's; ``FLASHREPRO_BROWSER`` names another
binary). Without one it is skipped with that reason, unless ``FLASHREPRO_REQUIRE_BROWSER=1``, where it fails."""

import datetime as dt
import html
import json
import os
import re
import select
import shutil
import subprocess
import time
from pathlib import Path

import nbformat
import polars as pl
import pytest

from flashrepro import claims as ledger
from flashrepro import paths, site, siteinfo
from flashrepro.headline import PAPERS, headline_claims
from flashrepro.papers import specs

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "chrome")
BUILT = "2001-02-03 04:05 UTC"


def _browser():
    env = os.environ.get("FLASHREPRO_BROWSER", "")
    if env and os.access(env, os.X_OK):
        return env
    for name in BROWSERS:
        path = shutil.which(name)
        if path:
            return path
    return None


def _head_commit() -> str:
    out = subprocess.run(["git", "-C", str(paths.root), "rev-parse", "HEAD"], capture_output=True, text=True)
    return out.stdout.strip() if out.returncode == 0 else ""


def _png(path: Path):
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(2, 1.5))
    ax.plot([0, 1], [0, 1])
    fig.savefig(path)
    plt.close(fig)


def _outputs(tmp: Path, monkeypatch=None) -> dict:
    """results/claims.csv through the ledger (one headline row per paper with a robustness module, rows citing
    a figure, a table, nothing), headline.csv for paper 1's headline row, two declared figures, paper 1's
    robustness figure and one no paper declares, two executed notebooks (one with papermill's metadata), and
    a trace folder holding one of the catalog's real traces (FLASHREPRO_TRACE_DIRS, when ``monkeypatch``)."""
    results, figures, notebooks = tmp / "results", tmp / "figures", tmp / "nb"
    for d in (results, figures, notebooks):
        d.mkdir()
    heads = {n: sorted(headline_claims(n))[0] for n in PAPERS}
    rows = [ledger.value(1, "hit ratio", "web", 0.5, 0.52, ledger.PRINTED, "ratio", source="Fig. 2",
                         note="read off the plot <approx> & rounded"),
            ledger.value(1, "writes", "web", 100, 300, ledger.PRINTED, "pages", source="Table 4"),
            ledger.direction(3, "more writes", "fin", "positive", 0.3, source="Fig. 4, Sec. V",
                             note="the sign only"),
            ledger.not_comparable(5, "Table 1", "-", "another device", source="Table 1")]
    rows += [ledger.value(n, claim, "hw", 2.0, 1.0, ledger.PRINTED, "x", source="Table 4" if n == 1 else "Sec. 9",
                          note=f"headline note {n}") for n, claim in heads.items()]
    ledger.table(rows).write_csv(results / "claims.csv")
    pl.DataFrame({"paper": ["1"], "claim": [heads[1]], "workload": ["hw"], "source": ["Table 4"],
                  "default_verdict": ["does not hold"], "holds_share": ["0.25"], "holds_ci_low": ["0.1"],
                  "holds_ci_high": ["0.5"], "partly_share": ["0"], "top_axis": ["skew"],
                  "stand_in_verdicts": ["real/a: holds; real/b: does not hold"], "map_scale": ["ci"],
                  "claims_scale": ["paper"]}).write_csv(results / "headline.csv")
    pl.DataFrame({"notebook": ["01_bs_clock"], "scale": ["quick"], "traces": [True], "wall_s": [1.0]}).write_csv(
        results / "notebook_timings.csv")
    for name in ("01_bs_clock_fig2", "03_clock_hbm_fig4", "robustness_1_table4", "zz_stray"):
        _png(figures / f"{name}.png")
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("# 01 test"), nbformat.v4.new_code_cell("1 + 1")]
    nb.metadata["papermill"] = {"parameters": {"scale": "quick", "seed": 3}, "end_time": "2000-01-01T00:00:00+00:00",
                                "start_time": "1999-12-31T23:59:00+00:00", "duration": 60.0, "exception": None,
                                "version": "9.9"}
    nbformat.write(nb, notebooks / "01_bs_clock.ipynb")
    nb.metadata.pop("papermill")
    nbformat.write(nb, notebooks / "03_clock_hbm.ipynb")
    traces = tmp / "traces"
    (traces / "arc").mkdir(parents=True)
    (traces / "arc" / "P3.lis.zst").write_bytes(b"")
    if monkeypatch is not None:
        monkeypatch.setenv("FLASHREPRO_TRACE_DIRS", str(traces))
    return {"results": results, "figures": figures, "notebooks": notebooks, "traces": traces, "rows": rows,
            "heads": heads, "n_claims": len(rows)}


def _build(tmp: Path, o: dict, name: str = "site", **kw) -> str:
    kw.setdefault("built", BUILT)
    kw.setdefault("render", False)
    return site.build(tmp / name, o["results"], o["figures"], o["notebooks"], **kw).read_text()


def _section(text: str, id_: str) -> str:
    m = re.search(rf'<section[^>]*id="?{re.escape(id_)}"?[ >].*?</section>', text, re.S)
    assert m, f"no section {id_}"
    return m.group(0)


def _ledger_rows(text: str) -> dict[int, str]:
    table = re.search(r"<table id=claims>.*?</table>", text, re.S).group(0)
    return {int(i): tr for i, tr in re.findall(r"<tr id=claim-(\d+) (.*?)</tr>", table, re.S)}


def _cell(tr: str, klass: str) -> str:
    return html.unescape(re.search(rf"<td class={klass}>(.*?)</td>", tr, re.S).group(1))


# --- without a browser ----------------------------------------------------------------------------------------
def test_site_is_written_without_a_browser(tmp_path, monkeypatch):
    o = _outputs(tmp_path, monkeypatch)
    text = _build(tmp_path, o, render=True)
    assert len(_ledger_rows(text)) == o["n_claims"]
    assert (tmp_path / "site" / "notebooks" / "01_bs_clock.html").exists()
    index = tmp_path / "site" / "index.html"
    for href in re.findall(r'(?:href|src)="([^"#]+)"', text):
        assert (index.parent / href).exists(), href
    for anchor in set(re.findall(r'href="#([^"?]+)"', text)) - {"ledger"}:
        assert f'id="{anchor}"' in text or f"id={anchor} " in text or f"id={anchor}>" in text, anchor
    counts = re.search(r"<table id=papers>.*?</table>", text, re.S).group(0)
    assert re.search(r"<td class=num>1</td><td>BS-CLOCK.*?<a href=\"#paper-01\">", counts)
    assert "<td class=num>3</td><td class=num>1</td>" in counts  # paper 1: 3 rows, 1 holds
    assert "<table id=measured>" not in text


def test_site_shows_the_measured_rows_beside_the_ledger(tmp_path, monkeypatch):
    o = _outputs(tmp_path, monkeypatch)
    ledger.table([ledger.value(1, "replay: less time", "web", 0.608, 0.5, ledger.APPROX, "fraction")]).write_csv(
        o["results"] / "claims_measured.csv")
    text = _build(tmp_path, o)
    measured = re.search(r"<table id=measured>.*?</table>", text, re.S).group(0)
    assert "replay: less time" in measured and measured.count("<tr class=") == 1
    claims = re.search(r"<table id=claims>.*?</table>", text, re.S).group(0)
    assert "replay: less time" not in claims


def test_provenance_names_the_commit_the_scales_the_traces_and_the_versions(tmp_path, monkeypatch):
    o = _outputs(tmp_path, monkeypatch)
    prov = _section(_build(tmp_path, o), "provenance")
    head = _head_commit()
    commit = re.search(r'<td id=commit data-commit="([^"]*)">(.*?)</td>', prov, re.S)
    assert commit.group(1) == head
    assert (head in commit.group(2)) if head else ("unknown" in commit.group(2))
    assert ("clean tree" in commit.group(2)) != ("dirty tree" in commit.group(2)) or not head
    runs = html.unescape(re.search(r"<table id=runs>.*?</table>", prov, re.S).group(0))
    assert re.search(r"<td>01_bs_clock</td><td><b>quick</b></td><td>papermill parameters</td><td>seed=3</td>", runs)
    assert re.search(r"<td>03_clock_hbm</td><td><b>paper</b></td><td>not recorded: the notebook's default</td>", runs)
    traces = html.unescape(re.sub(r"<[^>]+>", "", re.search(r"<td id=traces>(.*?)</td>", prov, re.S).group(1)))
    assert str(o["traces"]) in traces and "arc 1/5" in traces
    assert "FLASHREPRO_TRACE_DIRS=" in traces and "1 of 1" in traces  # the one timed notebook ran with traces
    assert "real/arc/P3" in re.search(r"<ul id=catalog>.*?</ul>", prov, re.S).group(0)
    versions = re.search(r"<td id=versions>(.*?)</td>", prov, re.S).group(1)
    for name in ("python", "numba", "numpy", "polars", "papermill"):
        assert re.search(rf"{name} \d", versions), name
    assert f"<td id=built>{BUILT}</td>" in prov
    # the check can fail: with the trace gone the folder holds none of arc's traces
    (o["traces"] / "arc" / "P3.lis.zst").unlink()
    assert "arc 0/5" in _section(_build(tmp_path, o), "provenance")


def test_git_state_sees_a_dirty_tree_and_the_commits_after_a_run(tmp_path):
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    repo = tmp_path / "repo"
    (repo / "lib").mkdir(parents=True)

    def git(*args, date="2000-01-01T00:00:00+00:00"):
        env = {**os.environ, "GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date, "GIT_AUTHOR_NAME": "t",
               "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}
        subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, env=env)

    git("init", "-q")
    (repo / "lib" / "a.py").write_text("1\n")
    (repo / "README").write_text("r\n")
    git("add", ".")
    git("commit", "-q", "-m", "first")
    (repo / "lib" / "a.py").write_text("2\n")
    git("commit", "-q", "-am", "lib changed", date="2000-01-03T00:00:00+00:00")
    (repo / "README").write_text("s\n")
    git("commit", "-q", "-am", "readme only", date="2000-01-04T00:00:00+00:00")
    g = siteinfo.git_state(repo)
    assert g.subject == "readme only" and len(g.commit) == 40 and g.dirty == ()
    later = siteinfo.commits_after("2000-01-02T00:00:00+00:00", repo)
    assert [c[2] for c in later] == ["lib changed"]  # the README is no input of a notebook
    assert siteinfo.commits_after("2000-01-05T00:00:00+00:00", repo) == ()
    (repo / "lib" / "a.py").write_text("3\n")
    assert siteinfo.git_state(repo).dirty == (" M lib/a.py",)
    assert siteinfo.git_state(tmp_path / "nothing").error


def test_every_paper_section_lists_its_headline_claims(tmp_path, monkeypatch):
    o = _outputs(tmp_path, monkeypatch)
    text = _build(tmp_path, o)
    rows = pl.read_csv(o["results"] / "claims.csv")
    for s in specs():
        sec = _section(text, f"paper-{s.number:02d}")
        assert html.escape(s.title) in sec
        if s.ledger is None:
            assert "keeps no claims ledger" in sec and "<table class=headline>" not in sec
            continue
        mine = rows.filter(pl.col("paper") == s.ledger)
        heads = mine.filter(pl.col("headline"))
        if heads.height == 0:
            assert "<table class=headline>" not in sec and "No headline claims" in sec
            continue
        table = re.search(r"<table class=headline>.*?</table>", sec, re.S).group(0)
        assert table.count("<tr class=") == heads.height
        for r in heads.iter_rows(named=True):
            tr = re.search(rf"<tr class=[^>]*><td><a href=\"#claim-\d+\">{re.escape(html.escape(r['claim']))}</a>"
                           r".*?</tr>", table, re.S)
            assert tr, (s.notebook, r["claim"])
            for v in (site._num(r["paper_value"]), site._num(r["our_value"]), r["verdict"], r["note"]):
                assert html.escape(v) in tr.group(0), (r["claim"], v)
        for r in mine.filter(~pl.col("headline")).iter_rows(named=True):
            assert html.escape(r["claim"]) not in table
    sec1 = _section(text, "paper-01")
    assert "holds on 25% (10%-50%)" in sec1 and "real stand-ins: 1 holds, 1 does not hold" in sec1


def test_every_figure_has_a_caption_that_is_not_its_file_name(tmp_path, monkeypatch):
    for s in specs():  # every declared figure of every paper, whether or not it is in the folder
        for f in siteinfo.paper_figures(s):
            assert f.caption.strip() and f.caption not in (f.file, f.stem) and not f.caption.startswith(f.stem), f
            assert f.ref in f.caption or f.section in f.caption, f
    o = _outputs(tmp_path, monkeypatch)
    text = _build(tmp_path, o)
    figs = re.findall(r'<figure class=fig id="fig-([^"]+)">(.*?)</figure>', text, re.S)
    assert {stem for stem, _ in figs} == {"01_bs_clock_fig2", "03_clock_hbm_fig4", "robustness_1_table4",
                                          "zz_stray"}
    for stem, body in figs:
        title = html.unescape(re.search(r"<b class=title>(.*?)</b>", body, re.S).group(1))
        shows = html.unescape(re.search(r"<span class=shows>(.*?)</span>", body, re.S).group(1))
        assert title and title not in (stem, stem + ".png"), stem
        assert stem not in title and stem not in shows
    cap = dict(figs)
    assert "Fig. 2: request size and write time" in cap["01_bs_clock_fig2"]  # the notebook's section heading
    assert "Fig. 4: swaps, normalised to LRU" in cap["03_clock_hbm_fig4"]
    assert "Robustness map, Table 4" in cap["robustness_1_table4"]
    # which ledger rows each supports: by the figures its ref and a row's source name
    rows = _ledger_rows(text)
    ids = {html.unescape(r["claim"]): i for i, r in enumerate(pl.read_csv(o["results"] / "claims.csv").to_dicts())}
    assert f'href="#claim-{ids["hit ratio"]}"' in cap["01_bs_clock_fig2"]
    assert f'href="#claim-{ids["writes"]}"' not in cap["01_bs_clock_fig2"]  # Table 4: no figure
    assert f'href="#claim-{ids["more writes"]}"' in cap["03_clock_hbm_fig4"]
    assert f'href="#claim-{ids[o["heads"][1]]}"' in cap["robustness_1_table4"]
    assert 'data-figures="01_bs_clock_fig2"' in rows[ids["hit ratio"]]
    assert "Supports no ledger row" in cap["zz_stray"] or "keeps no claims ledger" in cap["zz_stray"]


def test_figure_ids_read_figures_ranges_and_panels():
    f = siteinfo.figure_ids
    assert f("Figs. 8-9") == {(8, ""), (9, "")} and f("Table 4") == frozenset()
    assert f("Fig. 10A, Sec. 5.2") == {(10, "a")} and f("Fig. 6(b), Sec. IV") == {(6, "b")}
    assert f("Figs. 4/5/12/13") == {(4, ""), (5, ""), (12, ""), (13, "")}
    assert f("Figs. 9A, 9B, 10 and 11") == {(9, "a"), (9, "b"), (10, ""), (11, "")}
    assert f("Fig. 2, Figs. 8-9") == {(2, ""), (8, ""), (9, "")} and f("Sec. 5 (Fig. 6)") == {(6, "")}
    same = siteinfo.same_figure
    assert same(f("Fig. 10A"), f("Figs. 10-11")) and same(f("Fig. 6(a)"), f("Fig. 6"))
    assert not same(f("Fig. 9A"), f("Fig. 9B")) and not same(f("Fig. 7"), f("Figs. 8-9"))


def test_every_ledger_row_shows_its_note_and_source(tmp_path, monkeypatch):
    o = _outputs(tmp_path, monkeypatch)
    rows = _ledger_rows(_build(tmp_path, o))
    want = ledger.read(o["results"] / "claims.csv").to_dicts()
    assert len(rows) == len(want)
    for i, r in enumerate(want):
        assert _cell(rows[i], "note") == (r["note"] or ""), i
        assert _cell(rows[i], "source") == (r["source"] or ""), i
        assert _cell(rows[i], "claim") == r["claim"]
    assert "read off the plot <approx> & rounded" == _cell(rows[0], "note")


@pytest.mark.skipif(not (paths.results / "claims.csv").exists(), reason="no results/claims.csv here: run make")
def test_the_report_of_this_checkout_shows_every_row_and_captions_every_figure(tmp_path):
    """The report from what `make` wrote here: every ledger row with its note and source, every headline row in
    its paper's section, every figure captioned (the notebooks are not rendered)."""
    text = site.build(tmp_path / "site", built=BUILT, render=False).read_text()
    rows = _ledger_rows(text)
    want = ledger.read(paths.results / "claims.csv").to_dicts()
    assert len(rows) == len(want)
    for i, r in enumerate(want):
        assert (_cell(rows[i], "note"), _cell(rows[i], "source")) == (r["note"] or "", r["source"] or ""), i
    for s in specs():
        if s.ledger is not None:
            sec = _section(text, f"paper-{s.number:02d}")
            n = sum(1 for r in want if r["paper"] == s.ledger and r["headline"])
            assert sec.count('<td><a href="#claim-') == n, s.notebook
    for stem, body in re.findall(r'<figure class=fig id="fig-([^"]+)">(.*?)</figure>', text, re.S):
        title = html.unescape(re.search(r"<b class=title>(.*?)</b>", body, re.S).group(1))
        assert title and stem not in title, stem


def test_the_build_differs_only_in_its_date(tmp_path, monkeypatch):
    o = _outputs(tmp_path, monkeypatch)
    a = _build(tmp_path, o, "a")
    assert _build(tmp_path, o, "b") == a
    c = _build(tmp_path, o, "c", built=dt.datetime(2002, 3, 4, 5, 6, tzinfo=dt.UTC))
    assert "<td id=built>2002-03-04 05:06 UTC</td>" in c and c.replace("2002-03-04 05:06", "2001-02-03 04:05") == a
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "0")
    assert "<td id=built>1970-01-01 00:00 UTC</td>" in _build(tmp_path, o, "d", built=None)


# --- in headless Chromium ---------------------------------------------------------------------------------------
class _Chromium:
    """One headless Chromium for every page a test opens (a start costs seconds, a page a fraction of one), driven
    over its DevTools pipe: with ``--remote-debugging-pipe`` it reads commands on fd 3 and writes replies and
    events on fd 4, each a JSON message ending in a NUL byte. Each page opens in a browser context of its own (no
    cache or storage shared with the pages before it), as in a browser started for that page alone."""

    FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
             "--allow-file-access-from-files", "--remote-debugging-pipe")

    def __init__(self, browser: str, log: Path, timeout_s: float = 120):
        commands, self._to = os.pipe()
        self._from, replies = os.pipe()
        self._log, self._timeout_s, self._buf, self._id = log, timeout_s, b"", 0
        with open(log, "wb") as err:  # bash puts the pipes on fds 3 and 4 (any fd number), then runs the browser
            self._proc = subprocess.Popen(["bash", "-c", f'exec "$@" 3<&{commands} 4>&{replies}', "bash", browser,
                                           *self.FLAGS], pass_fds=(commands, replies), stdout=subprocess.DEVNULL,
                                          stderr=err)
        os.close(commands)
        os.close(replies)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        try:
            self._send("Browser.close", timeout_s=10)
        except (AssertionError, TimeoutError):
            pass
        try:
            self._proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()
        os.close(self._to)
        os.close(self._from)

    def _send(self, method: str, session: str | None = None, timeout_s: float | None = None, **params) -> dict:
        """Send one command (to the page of ``session``, else to the browser) and return its result."""
        self._id += 1
        message = {"id": self._id, "method": method, "params": params} | ({"sessionId": session} if session else {})
        os.write(self._to, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + (timeout_s or self._timeout_s)
        while True:
            while b"\0" not in self._buf:  # the events and replies before this command's reply are skipped
                if not select.select([self._from], [], [], max(0.0, deadline - time.monotonic()))[0]:
                    raise TimeoutError(f"Chromium did not answer {method}")
                chunk = os.read(self._from, 1 << 16)
                assert chunk, f"Chromium closed its DevTools pipe: {self._log.read_text()[-2000:]}"
                self._buf += chunk
            raw, self._buf = self._buf.split(b"\0", 1)
            reply = json.loads(raw)
            if reply.get("id") == self._id:
                assert "error" not in reply, f"{method}: {reply['error']}"
                return reply["result"]

    def dom(self, url: str) -> str:
        """The page at ``url`` as ``--dump-dom`` prints it: its DOM once loaded (the load event, and with it the
        page's self-check, has run when ``document.readyState`` is "complete")."""
        context = self._send("Target.createBrowserContext")["browserContextId"]
        try:
            target = self._send("Target.createTarget", url="about:blank", browserContextId=context)["targetId"]
            session = self._send("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
            self._send("Page.navigate", session, url=url)
            loaded = ("location.href !== 'about:blank' && document.readyState === 'complete'"
                      " ? document.documentElement.outerHTML : ''")
            deadline = time.monotonic() + self._timeout_s
            while not (dom := self._send("Runtime.evaluate", session, expression=loaded)["result"].get("value")):
                if time.monotonic() > deadline:
                    raise TimeoutError(f"{url} did not load within {self._timeout_s:g} s")
                time.sleep(0.02)
            return dom
        finally:
            self._send("Target.disposeBrowserContext", browserContextId=context)


def _selfcheck(dom: str) -> dict:
    m = re.search(r'<div id="selfcheck"([^>]*)>', dom)
    assert m, "the page did not render its self-check"
    return {k: html.unescape(v) for k, v in re.findall(r'data-([a-z-]+)="([^"]*)"', m.group(1))}


_NO_BROWSER = ("headless Chromium is not installed (Debian: `apt-get install chromium`; `make browser` does it as "
               "root or with sudo; FLASHREPRO_BROWSER names another binary); the report is still checked without "
               "a browser by the tests above")


def test_report_renders_in_headless_chromium(tmp_path, monkeypatch):
    browser = _browser()
    if browser is None:
        if os.environ.get("FLASHREPRO_REQUIRE_BROWSER") == "1":
            pytest.fail("FLASHREPRO_REQUIRE_BROWSER=1 but " + _NO_BROWSER)
        pytest.skip(_NO_BROWSER)
    o = _outputs(tmp_path, monkeypatch)
    index = site.build(tmp_path / "site", o["results"], o["figures"], o["notebooks"], built=BUILT)
    want = ledger.read(o["results"] / "claims.csv").to_dicts()
    every = [f"claim-{i}" for i in range(len(want))]
    page = index.resolve().as_uri()
    with _Chromium(browser, tmp_path / "chromium.log") as chromium:
        check = _selfcheck(chromium.dom(page))
        assert check.get("done") == "1"
        # provenance: shown, naming the commit and the trace folder
        assert check["provenance-shown"] == "1" and check["commit"] == _head_commit()
        assert str(o["traces"]) in check["traces"] and "arc 1/5" in check["traces"]
        # every figure loads and has a visible caption that is not its file name
        assert int(check["claim-rows"]) == len(want) == o["n_claims"] and check["shown-ids"].split() == every
        assert int(check["figures"]) == int(check["captioned"]) == 4 and check["uncaptioned"] == "", check
        assert int(check["images-ok"]) == 4 and int(check["images-broken"]) == 0, check
        # the filter, from the address as a caption's link sets it: by paper, by verdict and text, by figure, headline
        cases = {"#ledger?paper=1": lambda r: r["paper"] == 1,
                 "#ledger?verdict=not%20comparable&q=ANOTHER%20device": lambda r: r["claim"] == "Table 1",
                 "#ledger?figure=01_bs_clock_fig2": lambda r: r["claim"] == "hit ratio",
                 "#ledger?headline=1&paper=3": lambda r: r["headline"] and r["paper"] == 3}
        for fragment, keep in cases.items():
            check = _selfcheck(chromium.dom(page + fragment))
            shown = [f"claim-{i}" for i, r in enumerate(want) if keep(r)]
            assert shown and check["shown-ids"].split() == shown, (fragment, check["shown-ids"])
            assert int(check["shown"]) == len(shown) < len(want)
        # the checks can fail: a figure that went missing is seen as a broken image
        (tmp_path / "site" / "figures" / "03_clock_hbm_fig4.png").unlink()
        check = _selfcheck(chromium.dom(page))
        assert int(check["images-broken"]) == 1 and "03_clock_hbm_fig4.png" in check["broken"]
