"""Notebook 00 workloads: which catalog workloads to characterise, loaded at a scale."""

from __future__ import annotations

from tqdm.auto import tqdm

from ...traces import Trace, catalog


def select(workloads, scale: str) -> list[str]:
    """``"auto"``: the synthetic workloads at ``scale="ci"`` (so checked outputs are the same on every
    machine), every available workload otherwise. A list is checked against the catalog."""
    if workloads == "auto":
        return catalog.names("synthetic/") if scale == "ci" else catalog.names(available_only=True)
    names = [workloads] if isinstance(workloads, str) else list(workloads)
    missing = [n for n in names if not catalog.available(n)]
    if missing:
        raise ValueError(f"not available here: {missing} (see `flashrepro workloads`)")
    return names


def load(names: list[str], scale: str, seed: int) -> dict[str, Trace]:
    return {n: catalog.get(n, scale=scale, seed=seed) for n in tqdm(names, desc="load workloads", leave=False)}


