"""Stable table printing, deterministic figures, outputs kept apart by scale."""

import polars as pl
import pytest

from flashrepro import paths, plots, report


@pytest.fixture
def out_dirs(tmp_path, monkeypatch):
    monkeypatch.setattr(paths, "results", tmp_path / "results")
    monkeypatch.setattr(paths, "figures", tmp_path / "figures")
    return tmp_path


def test_show_rounds_floats(capsys):
    report.show(pl.DataFrame({"w": ["a"], "x": [0.123456789]}))
    out = capsys.readouterr().out
    assert "0.1235" in out and "0.123456" not in out and out.startswith("| w")


def test_figures_are_byte_identical(out_dirs):
    import matplotlib.pyplot as plt

    def draw():
        fig, ax = plt.subplots()
        ax.plot([1, 2, 3], [3, 1, 2])
        files = plots.savefig(fig, "det")
        plt.close(fig)
        return [open(f, "rb").read() for f in files]

    first, second = draw(), draw()
    assert first == second and len(first) == 2


def test_outputs_for_scale_keeps_paper_results_apart(monkeypatch):
    monkeypatch.setattr(paths, "results", paths.results)
    monkeypatch.setattr(paths, "figures", paths.figures)
    paths.outputs_for("quick")
    assert paths.results == paths.root / "results" / "quick" and paths.figures == paths.root / "figures" / "quick"
    paths.outputs_for("paper")
    assert paths.results == paths.root / "results" and paths.figures == paths.root / "figures"


def test_notebook_timings_keep_the_last_time_per_notebook_and_scale(tmp_path, monkeypatch):
    """`make` keeps each notebook's last wall time per scale in results/notebook_timings.csv (the README
    quotes no time): a re-run replaces its own row, other notebooks and scales stay."""
    import polars as pl

    from flashrepro import notebooks, paths

    monkeypatch.setattr(paths, "results", tmp_path)
    monkeypatch.setenv("FLASHREPRO_TRACE_DIRS", "")
    (tmp_path / "notebook_timings.csv").write_text("notebook,scale,traces,wall_s\n03_old,paper,true,7.5\n")  # no cpu_s
    notebooks.record_time("01_x", "paper", 10.0, 19.0)
    notebooks.record_time("02_y", "paper", 20.0)
    notebooks.record_time("01_x", "quick", 1.5, 1.44)
    notebooks.record_time("01_x", "paper", 12.25, 20.04)
    got = pl.read_csv(tmp_path / "notebook_timings.csv")
    assert got.columns == ["notebook", "scale", "traces", "wall_s", "cpu_s", "cores"]
    rows = {(r["notebook"], r["scale"]): (r["wall_s"], r["cpu_s"], r["cores"]) for r in got.iter_rows(named=True)}
    c = notebooks.usable_cores()
    assert c >= 1
    assert rows == {("01_x", "paper"): (12.2, 20.0, c), ("02_y", "paper"): (20.0, None, c),
                    ("01_x", "quick"): (1.5, 1.4, c), ("03_old", "paper"): (7.5, None, None)}


def test_cpu_seconds_counts_a_child_once_it_has_ended():
    """A notebook's CPU time is the runner's and its kernel's (a child process): cpu_seconds rises by a finished
    child's work."""
    import subprocess
    import sys

    from flashrepro import notebooks

    c0 = notebooks.cpu_seconds()
    busy = "import time\nt = time.process_time()\nwhile time.process_time() - t < 0.3: pass"
    subprocess.run([sys.executable, "-c", busy], check=True)
    assert notebooks.cpu_seconds() - c0 >= 0.3


def test_notebook_timings_lose_no_row_when_runs_finish_at_once(tmp_path, monkeypatch):
    """`make -j` finishes notebooks at the same moment: every runner's row survives (the read-modify-write of
    notebook_timings.csv is under a lock; without it, rows written between another's read and write vanish)."""
    import multiprocessing

    import polars as pl
    from timings_race import record_many  # in a module of its own: each process imports no more than it needs

    with multiprocessing.get_context("spawn").Pool(4) as pool:  # spawn: polars' threads make fork unsafe
        pool.map(record_many, [(w, str(tmp_path)) for w in range(4)])
    got = pl.read_csv(tmp_path / "notebook_timings.csv")
    assert got.height == 4 * 15
    assert [p.name for p in tmp_path.iterdir()] == ["notebook_timings.csv"]  # no temporary or lock file left


def test_a_make_run_keeps_its_wall_and_cpu_time_when_it_reran_something(tmp_path, monkeypatch):
    """`make` runs the notebooks and maps through `notebooks timed`: a run that rewrote every output is the "all" row
    of results/make_timings.csv, one that rewrote some the "some" row (each the last of its kind); a run that failed or
    rewrote nothing leaves the file as it was, and the command's exit code comes back."""
    import sys
    import time

    import polars as pl

    from flashrepro import notebooks, paths

    monkeypatch.setattr(paths, "results", tmp_path / "results")
    monkeypatch.setenv("FLASHREPRO_TRACE_DIRS", "")
    a, b = tmp_path / "a.ipynb", tmp_path / "b.done"
    outputs = f"{a} {b}"

    def touch(*files, busy=0.0, code=0):
        src = "".join(f"open({str(f)!r}, 'w').write('x')\n" for f in files)
        src += f"import time\nt = time.process_time()\nwhile time.process_time() - t < {busy}: pass\n"
        return ["timed", "--outputs", outputs, "--", sys.executable, "-c", src + f"raise SystemExit({code})"]

    target = tmp_path / "results" / "make_timings.csv"
    assert notebooks.main(touch(a, b, busy=0.3)) == 0
    got = pl.read_csv(target)
    assert got.columns == ["reran", "outputs_rewritten", "outputs", "traces", "wall_s", "cpu_s", "cores"]
    assert got.select("reran", "outputs_rewritten", "outputs").rows() == [("all", 2, 2)]
    assert got["cpu_s"][0] >= 0.3 and got["wall_s"][0] >= got["cpu_s"][0] - 0.1 and got["cores"][0] >= 1
    time.sleep(0.2)  # (file times are from a coarse clock)
    assert notebooks.main(touch(b)) == 0  # a partial run: its own row, the full run's stays
    assert pl.read_csv(target).select("reran", "outputs_rewritten").rows() == [("all", 2), ("some", 1)]
    before = target.read_bytes()
    assert notebooks.main(touch(a, b, code=3)) == 3  # failed: not kept
    time.sleep(0.2)
    assert notebooks.main(touch()) == 0  # nothing re-run (everything up to date): not kept
    assert target.read_bytes() == before
    kill = ["timed", "--outputs", outputs, "--", sys.executable, "-c", "import os, signal; os.kill(os.getpid(), 15)"]
    assert notebooks.main(kill) == 143  # ended by SIGTERM: 128 + 15, as a shell says
    assert notebooks.main(["timed", "--outputs", outputs, "--"]) == 2  # no command


def test_a_make_run_that_was_sent_sigterm_keeps_nothing(tmp_path):
    """`make` execs `notebooks timed` (no shell between), so a SIGTERM reaches it: it passes it on, and keeps no time
    even when the command ignores the signal and then ends well (128 + 15 comes back)."""
    import os
    import signal
    import subprocess
    import sys
    import time

    out = tmp_path / "a.ipynb"
    child = ("import pathlib, signal, time\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
             f"pathlib.Path({str(out)!r}).write_text('x')\ntime.sleep(1.5)\n")
    env = dict(os.environ, FLASHREPRO_HOME=str(tmp_path), FLASHREPRO_TRACE_DIRS="")
    proc = subprocess.Popen([sys.executable, "-m", "flashrepro.notebooks", "timed", "--outputs", str(out), "--",
                             sys.executable, "-c", child], env=env)
    deadline = time.monotonic() + 60
    while not out.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=60) == 143
    assert out.exists() and not (tmp_path / "results" / "make_timings.csv").exists()
