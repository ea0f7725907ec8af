"""The front door: README.md's length and table of contents, the links of README.md and docs/*.md, the recipes
given as diffs (they still apply to the tree), and ``make docs`` (``flashrepro.docs``), which renders every table
of measured numbers in them from results/."""

import csv
import io
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from flashrepro import docs, paths

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = ROOT / "tests" / "data" / "docs_results"
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"(?<!!)\[([^\]]*)\]\(([^)\s]+)\)")


def _prose(text: str) -> str:
    """``text`` without fenced code blocks and inline code spans (a link there is not a link)."""
    text = re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)
    return re.sub(r"`[^`\n]*`", "", text)


def _slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[`*_]|\[([^\]]*)\]\([^)]*\)", lambda m: m.group(1) or "", heading.strip()).lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def _anchors(page: Path) -> set[str]:
    seen: dict[str, int] = {}
    out = set()
    for line in re.sub(r"^```.*?^```", "", page.read_text(), flags=re.S | re.M).splitlines():
        m = re.match(r"#{1,6}\s+(.*)", line)
        if m:
            s = _slug(m.group(1))
            n = seen.get(s, 0)
            seen[s] = n + 1
            out.add(s if n == 0 else f"{s}-{n}")
    return out


def _links(page: Path) -> list[str]:
    return [t for _, t in LINK.findall(_prose(page.read_text()))]


DIFFS = [(page, i, block) for page in PAGES
         for i, block in enumerate(re.findall(r"^```diff\n(.*?)^```", page.read_text(), re.S | re.M))]
HAVE_CHECKOUT = (ROOT / ".git").exists() and shutil.which("git") is not None


def _applies(block: str, tmp_path: Path) -> subprocess.CompletedProcess:
    """``git apply --check`` of a recipe's diff against the work tree (nothing is changed)."""
    patch = tmp_path / "recipe.diff"
    patch.write_text(block)
    return subprocess.run(["git", "apply", "--check", str(patch)], cwd=ROOT, capture_output=True, text=True,
                          timeout=60)


def _toc() -> list[str]:
    text = (ROOT / "README.md").read_text()
    section = text.split("\n## Documentation\n", 1)[1].split("\n## ", 1)[0]
    return [t for _, t in LINK.findall(section)]


# ---------------------------------------------------------------------------------------------------- the pages

def test_the_readme_is_at_most_200_lines():
    n = len((ROOT / "README.md").read_text().splitlines())
    assert n <= 200, f"README.md has {n} lines; move detail into docs/"


def test_the_readmes_table_of_contents_lists_every_docs_page_and_each_exists():
    toc = _toc()
    assert toc, "README.md has no '## Documentation' section with links"
    for target in toc:
        assert target.startswith("docs/") and (ROOT / target).is_file(), target
    listed = {ROOT / t for t in toc}
    assert set(PAGES[1:]) <= listed, f"docs pages missing from the README's table: {set(PAGES[1:]) - listed}"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves_to_a_file_and_its_anchor_to_a_heading(page):
    bad = []
    for target in _links(page):
        if re.match(r"[a-z]+:", target):  # http:, https:, mailto:
            continue
        path, _, anchor = target.partition("#")
        dest = (page.parent / path).resolve() if path else page
        if not dest.exists():
            bad.append(f"{target}: no file {dest}")
        elif anchor and dest.suffix == ".md" and anchor not in _anchors(dest):
            bad.append(f"{target}: no heading #{anchor} in {dest.name}")
    assert not bad, "\n".join(bad)


def test_the_link_check_sees_a_broken_link_and_a_broken_anchor(tmp_path):
    page = tmp_path / "p.md"
    (tmp_path / "q.md").write_text("# Title\n\n## The notebooks' last wall times\n")
    page.write_text("[a](q.md#the-notebooks-last-wall-times) [b](q.md#nope) [c](gone.md) `[d](x.md)`\n"
                    "```\n[e](y.md)\n```\n")
    assert _links(page) == ["q.md#the-notebooks-last-wall-times", "q.md#nope", "gone.md"]
    assert "the-notebooks-last-wall-times" in _anchors(tmp_path / "q.md") and "nope" not in _anchors(tmp_path / "q.md")


def _readme_commands() -> list[list[str]]:
    """The README's `.venv/bin/flashrepro ...` lines (continuations joined, comments dropped), as argument lists."""
    import shlex

    cmds, cur = [], None
    for line in (ROOT / "README.md").read_text().splitlines():
        if line.startswith("    .venv/bin/flashrepro "):
            cur = line.strip()
        elif cur is not None and line.startswith("        "):
            cur = cur.rstrip("\\").rstrip() + " " + line.strip()
        else:
            continue
        if not cur.endswith("\\"):
            cmds.append(shlex.split(cur, comments=True)[1:])
            cur = None
    return cmds


def test_the_readmes_quickstart_commands_run_as_written(monkeypatch, capsys):
    import json

    from flashrepro.cli import main

    cmds = _readme_commands()
    assert {c[0] for c in cmds} >= {"formats", "trace-info", "simulate", "policies", "ftl-policies"}
    monkeypatch.chdir(ROOT)
    for args in cmds:
        assert main(args) == 0, args
        text = capsys.readouterr().out
        if args[0] == "simulate" and "--json" not in args:  # the grid's CSV table
            table = list(csv.DictReader(io.StringIO(text)))
            assert table and all(0 <= float(r["hit_ratio"]) <= 1 for r in table), args
            continue
        out = json.loads(text)
        rows = out if isinstance(out, list) else [out]
        assert rows and (args[0] != "simulate" or all(0 <= r["hit_ratio"] <= 1 for r in rows)), args


def test_the_readmes_python_quickstarts_run_as_written(monkeypatch, capsys):
    blocks = re.findall(r"```python\n(.*?)```", (ROOT / "README.md").read_text(), re.S)
    assert len(blocks) == 2
    monkeypatch.chdir(ROOT)
    for code in blocks:
        exec(compile(code, "README.md", "exec"), {"__name__": "readme"})
    assert capsys.readouterr().out.splitlines()[-1] == "True"  # the prototype counts what the LRU kernel counts


# ---------------------------------------------------------------------------------------------------- the renderer

SAMPLE = ("# A page\n\nText before, with 1.5 s that is not ours to touch.\n\n"
          "<!-- results:claims:begin -->\nstale claims\n<!-- results:claims:end -->\n\nBetween.\n\n"
          "<!-- results:timings:begin -->\n<!-- results:timings:end -->\n"
          "<!-- results:bench:begin -->\nold\n<!-- results:bench:end -->\nAfter.\n")


def _outside(text: str) -> str:
    return docs.MARK.sub(lambda m: f"[{m['name']}]", text)


def test_rendering_is_deterministic_and_a_second_rendering_changes_nothing():
    once = docs.render_text(SAMPLE, FIXTURE)
    assert docs.render_text(SAMPLE, FIXTURE) == once
    assert docs.render_text(once, FIXTURE) == once
    for page in PAGES:  # the committed pages too: rendering from the fixture twice gives the same text
        text = docs.render_text(page.read_text(), FIXTURE)
        assert docs.render_text(text, FIXTURE) == text


def test_rendering_replaces_only_the_text_between_the_markers():
    out = docs.render_text(SAMPLE, FIXTURE)
    assert _outside(out) == _outside(SAMPLE)
    assert "stale claims" not in out and "\nold\n" not in out
    assert "| 1 (`01_bs_clock`) | 4 | 1 | 0 | 1 | 2 |" in out  # claims.csv: paper 1, by verdict
    assert "| 4 (`04_2rpp`) | 5 | 2 | 1 | 2 | 0 |" in out
    assert "| all | 9 | 3 | 1 | 3 | 2 |" in out
    assert "paper 1: 1 rows: 1 holds" in out  # claims_measured.csv
    assert "| 04_2rpp | paper | false | 407.4 |" in out  # notebook_timings.csv
    assert "| lru | 100.0 | 80.0 | pass | 4.0x / 4.0x | **fail** |" in out  # bench.csv, with its targets
    for page in PAGES:
        text = page.read_text()
        assert _outside(docs.render_text(text, FIXTURE)) == _outside(text), page


def test_every_block_renders_from_its_files_or_says_what_to_run(tmp_path):
    for name, block in docs.blocks().items():
        out = docs.render_block(name, tmp_path)  # an empty results folder
        assert out.endswith("\n") and "then `make docs`" in out, name
        assert f"run `{block.make}` then `make docs`" in out, name
    assert "run `make` then `make docs`" in docs.render_block("claims", tmp_path)
    assert "run `make bench` then `make docs`" in docs.render_block("bench", tmp_path)
    out = docs.render_text(SAMPLE, tmp_path)  # missing results/ never fails
    assert out.count("then `make docs`") == 3 and _outside(out) == _outside(SAMPLE)
    for name in docs.blocks():  # with the fixture: every block renders (or says its rows are missing) without error
        assert docs.render_block(name, FIXTURE).endswith("\n")


def test_a_papers_block_counts_its_rows_and_shows_its_headline_rows_with_the_papers_value_as_printed():
    p4 = docs.render_block("claims-paper4", FIXTURE)
    assert p4.startswith("`results/claims.csv`, paper 4: 5 rows: 2 holds, 1 partly, 2 does not hold, 0 not comparable.")
    assert "| Secs. 5.2-5.3: 2R++ improvement over greedy (Eq. 1) | linkbench | 1,149.385 | 11.81 | percent |" in p4
    assert "Reachability" not in p4.split("Headline rows")[1]  # not a headline row
    p1 = docs.render_block("claims-paper1", FIXTURE)
    assert "1 of them on real stand-in traces" in p1
    assert "Figs. 8-9: BS-CLOCK cuts I/O time \\| the stand-in" not in p1  # (not a headline row either)
    reach = docs.render_block("claims-paper4-reachability", FIXTURE)
    assert "2 rows: 1 holds, 0 partly, 1 does not hold" in reach and reach.count("| tpcc | 1.356 |") == 2
    assert docs.render_block("claims-paper2", FIXTURE).startswith("_No rows of paper 2")
    assert docs.render_block("matrix-size", FIXTURE).startswith(
        "The last paper-scale matrix (`results/06_matrix_runs.csv`): 2 policies x 2 workloads x 2 sizes = 8 runs.")
    fit = docs.render_block("fit-paper4", FIXTURE)
    assert "| tpcc | 0.9 | 0.9 | 0.398 | 0.4 |" in fit and "| fio-zipf0.9 | 0.8135 |  | 0.03202 |  |" in fit


def test_bad_markers_are_errors():
    with pytest.raises(KeyError, match="no rendered block 'nosuch'"):
        docs.render_text("<!-- results:nosuch:begin -->\n<!-- results:nosuch:end -->\n", FIXTURE)
    with pytest.raises(ValueError, match="begin marker without its end marker: claims"):
        docs.render_text("<!-- results:claims:begin -->\nno end\n", FIXTURE)


def test_every_marker_in_the_pages_names_a_block_and_is_closed():
    for page in PAGES:
        text = page.read_text()
        names = docs.BEGIN_ANY.findall(text)
        assert [m["name"] for m in docs.MARK.finditer(text)] == names, page
        assert set(names) <= set(docs.blocks()), page


def test_make_docs_check_reports_a_stale_page_and_rendering_fixes_it(tmp_path, monkeypatch, capsys):
    (tmp_path / "docs").mkdir()
    (tmp_path / "README.md").write_text("# r\n\n<!-- results:timings:begin -->\nold\n<!-- results:timings:end -->\n")
    (tmp_path / "docs" / "a.md").write_text("# a\n\nNo block here.\n")
    monkeypatch.setattr(paths, "root", tmp_path)
    assert docs.main(["--check", "--results", str(FIXTURE)]) == 1
    assert "out of date: README.md" in capsys.readouterr().out
    assert docs.main(["--results", str(FIXTURE)]) == 0
    assert "| 01_bs_clock | ci | true | 13.3 |" in (tmp_path / "README.md").read_text()
    assert docs.main(["--check", "--results", str(FIXTURE)]) == 0
    (tmp_path / "docs" / "a.md").write_text("# a\n\n`make paper4` took 407 s here.\n")
    assert docs.main(["--check", "--results", str(FIXTURE)]) == 1
    assert "docs/a.md:3: a time it took typed by hand" in capsys.readouterr().out


# ---------------------------------------------------------------------------------------------------- typed by hand

PLANTED = [
    "`make paper5`: 43 s here with the replays cached and the traces",
    "under each of the 11 replay settings, took 16 min on this shared, loaded machine",
    "It took 50 s against 51 s without them.",
    "the whole run took 3 min 12 s",
    "greedy on fio zipf 0.9 at full scale 32 s -> 10.6 s on one core",
    "    # 01_bs_clock  scale=quick seed=1  41.0 s -> build/variants/01_bs_clock-<hash>/01.ipynb",
    "libCacheSim in the same run: libcachesim-lru 18.6 / 8.0 M req/s.",
    "it makes 2R under FEMU's trigger 3.5x faster.",
    "(`bytes.count` was 9x slower)",
    "took 95 s of wall time here at a load average near 6 on two cores",
    "(the matrix on 2 workers; load 5-6)",
    "test_ftl, test_ftl_incremental, test_twor pass (773)",
    "make test: 1,234 passed in the last run",
    "Claims (paper scale: 107 rows, 19 hold, 0 partly, 38 do not hold, 50 not comparable)",
    "the runs, ~410 s, most of it the I/O log",
    "three SQLite replays 53 s of it",
]

PAPERS_AND_SETTINGS = [
    "calibrated only on Fig. 2 (35% and 77.5%) and the class-10 rating. The read model is a stated",
    "assumption (0.25 ms + 20 MB/s).",
    "Table 3's 6.4 MB + 25.6 MB are 1,638 + 6,553 pages of 4 KiB (binary units, each rounded down);",
    "dirty blocks are written back on a fixed 5 s grid from t = 0 and at syncs (`period_s`,",
    "first and last MiB alone on a file system with coarse timestamps (FAT: 2 s) within one tick,",
    "there, and after 5 s when what listens is no Dask scheduler.",
    "least 20 M requests/s at both capacities; LRU and CLOCK at least 5x libCacheSim's at both, in the same run;",
    "FTL victim rule at least 20 M host writes/s on fio zipf 0.9 under both GC triggers, or at least 100 M page",
    "Fig. 4's two facts (flat read time up to the operating unit; 4x the size from 64 to 256 KiB for 2x the time)",
    "the fio WAFs (the paper's 2R: 6.196, 4.223, 1.771), greedy on TPC-C (paper 3.286),",
    "every improvement (over greedy the paper has 923.5% and 1149.4%), LinkBench's 6.9-point drop",
    "spreads the statements over 17.5 minutes (the traces have no timestamps)",
    "Paper scale (`make paper4`): every main run is at full scale (90M writes per fio run, 60M and 600M",
    "make robustness            # the full maps: 256 points per paper",
    "- Benchmark (10M references, Zipf 0.9, 30% writes, 1 ms apart: 2,000 periodic flushes): `lru_flush` and",
]


@pytest.mark.parametrize("line", PLANTED)
def test_a_planted_measurement_is_seen(line):
    text = f"# Page\n\nSome prose.\n{line}\nMore prose.\n"
    found = docs.hand_typed(text)
    assert [i for i, _, _ in found] == [4], f"not seen: {line!r}"


@pytest.mark.parametrize("line", PAPERS_AND_SETTINGS)
def test_a_papers_number_or_a_setting_is_not_taken_for_a_measurement(line):
    assert docs.hand_typed(line) == []


def test_a_measurement_inside_a_rendered_block_is_fine_and_outside_it_is_not():
    block = ("<!-- results:timings:begin -->\n| 04_2rpp | paper | true | took 407.4 s here |\n"
             "<!-- results:timings:end -->\n")
    assert docs.hand_typed(f"# t\n\n{block}") == []
    assert [i for i, _, _ in docs.hand_typed(f"# t\n\n{block}It took 407 s here.\n")] == [6]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_measured_number_is_typed_by_hand_outside_the_rendered_blocks(page):
    found = docs.hand_typed(page.read_text())
    assert not found, "\n".join(f"{page.name}:{i}: {what}: {line.strip()}" for i, what, line in found)


def test_a_commit_that_looks_like_a_number_is_rendered_as_written(tmp_path):
    """bench.csv's commit 2622e44 was rendered as 2.622e+47 (read as a float)."""
    import shutil

    shutil.copytree(FIXTURE, tmp_path / "r")
    f = tmp_path / "r" / "bench.csv"
    f.write_text(f.read_text().replace("abc1234", "2622e44"))
    out = docs.render_bench(tmp_path / "r")
    assert "at commit 2622e44," in out


def test_the_recipes_cover_a_cache_policy_an_ftl_victim_rule_and_a_trace_format():
    where = {(page.name, block.split("\n", 1)[0]) for page, _, block in DIFFS}
    assert ("contract.md", "diff --git a/lib/flashrepro/cache/__init__.py b/lib/flashrepro/cache/__init__.py") in where
    assert ("own_trace.md", "diff --git a/lib/flashrepro/traces/readers.py b/lib/flashrepro/traces/readers.py") in where
    assert any(name == "ftl_victim_rules.md" for name, _ in where)


@pytest.mark.skipif(not HAVE_CHECKOUT, reason="needs the git checkout and git")
@pytest.mark.parametrize(("page", "i", "block"), DIFFS, ids=[f"{p.name}-{i}" for p, i, _ in DIFFS])
def test_every_recipe_diff_in_the_docs_still_applies_to_the_tree(page, i, block, tmp_path):
    r = _applies(block, tmp_path)
    assert r.returncode == 0, f"{page.name}'s diff {i} no longer applies: {r.stderr}"


@pytest.mark.skipif(not HAVE_CHECKOUT, reason="needs the git checkout and git")
def test_the_recipe_check_sees_a_diff_whose_context_moved(tmp_path):
    page, _, block = next(d for d in DIFFS if d[0].name == "contract.md")
    context = next(ln for ln in block.splitlines() if ln.startswith(" ") and ln.strip())
    r = _applies(block.replace(context, context + "  # edited since", 1), tmp_path)
    assert r.returncode != 0 and "patch does not apply" in r.stderr


def test_the_timings_block_says_what_the_cpu_times_allow():
    """Under the table of wall times: the paper-scale CPU times summed and divided by the cores they were measured on
    (no order of the work does better), from the rows themselves; nothing where a row lacks its CPU time or cores."""
    import polars as pl

    rows = pl.DataFrame({"notebook": ["04_2rpp", "01_bs_clock", "07_theory", "robustness/01_bs_clock"],
                         "scale": ["paper", "paper", "ci", "reduced"], "traces": [True] * 4,
                         "wall_s": [500.0, 60.0, 8.0, 40.0], "cpu_s": [600.0, 200.0, 9.0, 100.0], "cores": [2] * 4})
    text = docs.timings_floor(rows)
    assert "notebooks' CPU times above come to 800 s and the maps' to 100 s" in text  # the ci row left out
    assert "measured on 2 cores" in text and "less than 400 s of wall time for the notebooks, or 450 s with the maps" \
        in text
    assert "04_2rpp, is 75% of the notebooks' CPU time (600 s)" in text
    assert docs.timings_floor(rows.drop("cores")) == ""
    assert docs.timings_floor(rows.with_columns(cpu_s=pl.Series([600.0, None, 9.0, 100.0]))) == ""
    assert docs.timings_floor(rows.with_columns(cores=pl.Series([2, 4, 2, 2]))) == ""  # measured on two machines
    assert "less than 800 s of wall time for the notebooks" in docs.timings_floor(rows.with_columns(cores=pl.lit(1)))


def test_the_timings_block_gives_the_last_full_make(tmp_path):
    """results/make_timings.csv's "all" row (the last make that re-ran everything) under the table; a partial make's
    row is not it, and without the file the block says nothing of it."""
    import shutil

    shutil.copy(FIXTURE / "notebook_timings.csv", tmp_path)
    assert "The last `make`" not in docs.render_block("timings", tmp_path)
    (tmp_path / "make_timings.csv").write_text("reran,outputs_rewritten,outputs,traces,wall_s,cpu_s,cores\n"
                                               "some,3,16,true,100.0,150.0,2\n")
    assert "The last `make`" not in docs.render_block("timings", tmp_path)
    (tmp_path / "make_timings.csv").write_text("reran,outputs_rewritten,outputs,traces,wall_s,cpu_s,cores\n"
                                               "all,16,16,true,719.1,1467.0,2\n")
    out = docs.render_block("timings", tmp_path)
    assert "with the trace folder: 719 s of wall time and 1,467 s of CPU time on 2 cores" in out
