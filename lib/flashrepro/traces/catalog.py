"""The workload catalog: one place that says how each named workload is obtained.

A workload has a real source (a file looked up under ``data/raw`` and ``FLASHREPRO_TRACE_DIRS``), a
synthetic model, or both. :func:`get` returns the real trace when its file is present and the model
otherwise; ``prefer="model"`` forces the model (for results that must not depend on the machine).

Scales: ``ci`` (tests, seconds), ``quick`` (``make quick``), ``paper`` (``make``). A scale caps the number
of requests taken from a real trace and sets the length of a synthetic one.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from .. import paths
from . import synthetic
from .store import load_trace
from .trace import Trace

SCALES = {"ci": 20_000, "quick": 200_000, "paper": None}  # request cap per workload (None: all)
_SYNTH_REQUESTS = {"ci": 20_000, "quick": 200_000, "paper": 2_000_000}


@dataclasses.dataclass(frozen=True)
class RealSource:
    relpath: str  # relative to a trace folder, e.g. "arc/P3.lis.zst"
    format: str
    opts: tuple = ()  # reader options as (key, value) pairs


@dataclasses.dataclass(frozen=True)
class Workload:
    """A named workload. ``model`` is ``(*model_args, n_requests, seed) -> Trace``, or ``"module:function"``
    naming one, imported only when the trace is asked for (paper models live in their paper's package,
    and listing the catalog must not import them)."""

    name: str
    description: str
    real: RealSource | None = None
    model: Callable[..., Trace] | str | None = None  # a paper's models: its package adds them (PAPER.catalog)
    papers: tuple[int, ...] = ()
    model_args: tuple = ()

    def make(self, n_requests: int, seed: int) -> Trace:
        fn = self.model
        if isinstance(fn, str):
            import importlib

            module, _, attr = fn.partition(":")
            fn = getattr(importlib.import_module(module), attr)
        return fn(*self.model_args, n_requests, seed)


CATALOG: dict[str, Workload] = {}


def add(w: Workload) -> Workload:
    if w.name in CATALOG:
        raise ValueError(f"workload {w.name!r} is already in the catalog")
    if w.real is None and w.model is None:
        raise ValueError(f"workload {w.name!r} needs a real source or a model")
    CATALOG[w.name] = w
    return w


def _add_papers(name: str | None = None) -> None:
    """Import the paper packages whose spec says they add workloads to the catalog (``PAPER.catalog``, the
    prefix of their names: ``bsclock`` adds ``bsclock/...``); with ``name``, only the one whose prefix it has.
    Their models live with the paper, and listing or asking the catalog imports a paper only when needed."""
    import importlib
    import sys

    from ..papers import specs

    for s in specs():
        if s.catalog and (name is None or name.startswith(s.catalog + "/")) and s.package not in sys.modules:
            importlib.import_module(s.package)


def names(prefix: str = "", available_only: bool = False) -> list[str]:
    _add_papers()
    return sorted(n for n in CATALOG if n.startswith(prefix) and (not available_only or available(n)))


def known(name: str) -> bool:
    """Whether the catalog has a workload called ``name`` (its paper's models included)."""
    if name not in CATALOG:
        _add_papers(name)
    return name in CATALOG


def _lookup(name: str) -> Workload:
    if known(name):
        return CATALOG[name]
    raise ValueError(f"unknown workload {name!r}; known: {', '.join(names())}")


def real_path(name: str):
    w = _lookup(name)
    return paths.find_trace(w.real.relpath) if w.real else None


def available(name: str) -> bool:
    w = _lookup(name)
    return w.model is not None or real_path(name) is not None


def origin(name: str, prefer: str = "real") -> str:
    """``"real"`` or ``"model"``: what :func:`get` would use."""
    w = _lookup(name)
    if prefer == "real" and real_path(name) is not None:
        return "real"
    if w.model is not None:
        return "model"
    raise FileNotFoundError(f"workload {name!r} needs the file {w.real.relpath}, not found in "
                            f"{', '.join(map(str, paths.trace_dirs()))} (set FLASHREPRO_TRACE_DIRS)")


def get(name: str, scale: str = "paper", seed: int = 0, prefer: str = "real") -> Trace:
    """The trace of workload ``name`` at ``scale``."""
    if scale not in SCALES:
        raise ValueError(f"unknown scale {scale!r}; use one of {', '.join(SCALES)}")
    w = _lookup(name)
    if origin(name, prefer) == "real":
        tr = load_trace(real_path(name), w.real.format, name=name, **dict(w.real.opts))
        return tr.head(SCALES[scale]) if SCALES[scale] else tr
    return w.make(_SYNTH_REQUESTS[scale], seed).renamed(name)


# --- synthetic workloads -------------------------------------------------------------------------------
add(Workload("synthetic/zipf-0.9", "one-page requests, Zipf(0.9) over 100k pages, 30% writes",
             model=lambda n, seed: synthetic.zipf(100_000, n, 0.9, seed=seed, write_fraction=0.3)))
add(Workload("synthetic/uniform", "one-page requests, uniform over 50k pages, 30% writes",
             model=lambda n, seed: synthetic.uniform(50_000, n, seed=seed, write_fraction=0.3)))
add(Workload("synthetic/sequential", "runs of 64 x 32 KiB requests from random starts over 1M pages",
             model=lambda n, seed: synthetic.sequential(1_000_000, n, seed=seed, write_fraction=0.3)))
add(Workload("synthetic/mixture", "hot Zipf set (10k pages, 60%), 4 sequential streams (20%), cold (20%)",
             model=lambda n, seed: synthetic.mixture(synthetic.Mixture(n_pages=500_000, hot_pages=10_000), n,
                                                     seed=seed)))

# --- real stand-ins (files under a trace folder; what they are: docs/install_and_make.md, "Real traces") ------
_REAL = [
    ("real/personal_pc/mayun", "personal_pc_diskmon/mayun.txt", "diskmon", (), "DiskMon log of a personal PC",
     (1, 2)),
    ("real/personal_pc/mayun2", "personal_pc_diskmon/mayun2.txt", "diskmon", (), "DiskMon log of a personal PC",
     (1, 2)),
    ("real/personal_pc/mayun4", "personal_pc_diskmon/mayun4.txt", "diskmon", (), "DiskMon log of a personal PC",
     (1, 2)),
    ("real/personal_pc/p2pdownload", "personal_pc_diskmon/p2pdownload.trace", "diskmon",
     (("max_sector", 1 << 32),), "DiskMon log of a P2P download (2 bogus records dropped)", (1, 2)),
    ("real/personal_pc/systemdisk1", "personal_pc_diskmon/systemdisk1", "ssdsim", (("time_unit_s", 1e-3),),
     "converted DiskMon log of a system disk", (1, 2)),
    ("real/arc/P2", "arc/P2.lis.zst", "arc", (), "ARC P2, NT workstation, reads only", (2,)),
    ("real/arc/P3", "arc/P3.lis.zst", "arc", (), "ARC P3, NT workstation, reads only", (2,)),
    ("real/arc/P6", "arc/P6.lis.zst", "arc", (), "ARC P6, NT workstation, reads only", (2,)),
    ("real/arc/P12", "arc/P12.lis.zst", "arc", (), "ARC P12, NT workstation, reads only", (2,)),
    ("real/arc/OLTP", "arc/OLTP.lis.zst", "arc", (), "ARC OLTP, reads only", (3,)),
    ("real/mqsim/wsrch", "mqsim/wsrch-small.trace", "mqsim", (), "WebSearch-like MQSim trace", (3,)),
    ("real/mqsim/tpcc", "mqsim/tpcc-small.trace", "mqsim", (), "TPC-C MQSim trace", (4,)),
    ("real/fiu/mail02-head", "fiu/cheetah.cs.fiu.edu-110108-113008.2.blkparse.head9998", "fiu", (),
     "FIU mail day 2, first 9,998 records", (3,)),
    ("real/msr/hm0-sample", "msr/msr-cambridge1-sample.csv", "msr", (), "MSR Cambridge hm_0, 1,000 records", (3,)),
    ("real/cloudphysics/io", "cloudphysics/cloudPhysicsIO.csv", "cloudphysics", (),
     "CloudPhysics VM block trace excerpt", (1, 3)),
    ("real/tencent/sample", "tencent_cbs/cloud_storage-sample.bz2", "tencent", (),
     "Tencent CBS sample", (3,)),
    ("real/systor17/sample", "systor17/systor17-traces-sample.csv.gz", "systor17", (),
     "SYSTOR'17 sample", (3,)),
    ("real/android/most", "android/MOST_result.po", "most", (), "Android phone block trace (MOST), ext4",
     (1,)),
    ("real/android/most3", "android/MOST_result3.po", "most", (), "Android phone block trace (MOST), ext4",
     (1,)),
    ("real/kv/ycsb-ext4", "kv_ycsb_blktrace/blkparseout_ext4.txt", "blkparse", (), "YCSB on ext4, blkparse", (4,)),
    ("real/kv/ycsb-f2fs", "kv_ycsb_blktrace/blkparseout_f2fs.txt", "blkparse", (), "YCSB on f2fs, blkparse", (4,)),
    ("real/kv/ycsb-btrfs", "kv_ycsb_blktrace/blkparseout_btrfs.txt", "blkparse", (), "YCSB on btrfs, blkparse",
     (4,)),
]
_REAL += [  # paper 5: file-level traces (a folder of SQL statements replayed through SQLite; a syscall log)
    *((f"real/android_sql/{_app}", f"android_sql/{_app}", "android-sql", (),
       f"Android {_label} app SQL statements (DICL/mobile-traces) replayed through SQLite, rollback journal",
       (5,)) for _app, _label in (("calendar", "Calendar"), ("facebook", "Facebook"),
                                  ("google-play", "Google Play services"), ("map", "Maps"))),
    ("real/android/mobigen-facebook", "android/mobigen.out.facebook", "mobibench", (),
     "Facebook app syscall log (Mobibench MobiGen, 2013), file-level", (5,)),
]
for _name, _rel, _fmt, _opts, _desc, _papers in _REAL:
    add(Workload(_name, _desc, real=RealSource(_rel, _fmt, _opts), papers=_papers))
