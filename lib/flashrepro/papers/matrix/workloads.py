"""Notebook 06 inputs: the workloads (catalog names), the policies (every registered kernel) and the sizes."""

from __future__ import annotations

from ...cache import POLICIES
from ...traces import catalog

CI_WORKLOADS = ["synthetic/mixture", "writeonce/Facebook"]  # a block model and a file-level one (syncs)
CAPACITIES_MIB = (1, 8, 64)  # three buffer sizes, in MiB of 4 KiB pages


def select(workloads, scale: str) -> list[str]:
    """``"auto"``: two models at ``scale="ci"`` (the checked outputs are the same on every machine), every
    available catalog workload otherwise. A list is checked against the catalog."""
    if workloads == "auto":
        return list(CI_WORKLOADS) if scale == "ci" else catalog.names(available_only=True)
    names = [workloads] if isinstance(workloads, str) else list(workloads)
    missing = [n for n in names if not catalog.available(n)]
    if missing:
        raise ValueError(f"not available here: {missing} (see `flashrepro workloads`)")
    return names


def policies(names="auto") -> dict[str, dict]:
    """``"auto"``: every registered policy with a fast kernel (Python prototypes, ``py_*``, are left out), at
    its default parameters. Tiered policies (paper 3) split the same page count 20/80 over DRAM and NVM
    (their own default), so they hold as many pages as the one-tier policies beside them."""
    if names == "auto":
        names = sorted(n for n, p in POLICIES.items() if not hasattr(p.kernel, "prototype"))
    if isinstance(names, dict):
        return names
    return {n: {} for n in names}


def capacities(mib=CAPACITIES_MIB, page_bytes: int = 4096) -> list[int]:
    return [int(m * 2**20 // page_bytes) for m in mib]


def trace_scale(scale: str, override: str | None = None) -> str:
    """The catalog scale of the traces: ``"ci"`` at ci, ``"quick"`` (200k requests per trace) otherwise,
    so the whole matrix (13 policies x ~40 workloads x 3 sizes) stays within minutes; ``override`` picks
    another (``"paper"``: every request of every trace)."""
    if override is not None:
        return override
    return "ci" if scale == "ci" else "quick"


def executor(scale: str, choice: str = "auto") -> str:
    """The sweep executor: ``"auto"`` is a process pool at paper scale (2,730 runs: measured here, two
    workers took the matrix from ~420 s in one process to ~220 s with the other sessions' load at 5-6) and
    in-process otherwise (at ci and quick the pool's start, 3-5 s per worker, costs more than the runs).
    Every executor gives the same table, byte for byte."""
    if choice == "auto":
        return "process" if scale == "paper" else "local"
    return choice
