"""A placement oracle: every host write that is its page's last in the stream goes to a frontier of its own.

A page written for the last time is *frozen* from then on (paper 4, section 2.1). 2R and 2R++ try to
gather frozen pages into lines GC never has to copy; this oracle knows them exactly. It tags each host
write of a stream (:class:`FinalWrites`): ``FINAL`` (the cold frontier, kind 2) if the write is its page's
last, else 0 (the host frontier); the FTL places each write by its tag (``FTL.write(..., kinds=)``,
``ftl.run(..., kinds=)``). A frozen line never loses a page, so GC never copies it; everything GC copies
will be written again, and goes to a frontier of its own (kind 1), apart from new host writes.

Which line GC takes is still a victim rule: :func:`policies` gives the oracle with each of several
(:data:`VICTIMS`: greedy, FEMU's cost-benefit, 2R's FIFO scan with its threshold), and the lowest WAF
among them is what this placement reaches.

What it shows: a WAF the oracle reaches is reachable on that stream under that GC trigger (the oracle is
a placement, if a clairvoyant one). A WAF it does not reach is out of reach of *frozen-page separation*
with these victim rules, not of every placement: one that also knew *when* each live page will next be
written could group pages that die together, and a better victim rule could do better too (2R's own
scan beats the greedy oracle on some streams).

Two passes over a seeded stream: :func:`last_writes` (or the ``last`` array of
:class:`flashrepro.traces.oltp.StreamStats`, gathered while another run consumed the stream), then the run.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numba import njit

from . import _kernel as K
from .device import GCTrigger, Geometry, Policy
from .run import FTLRun, run

FINAL = K.COLD  # the frontier a page's last write goes to
ORACLE = Policy("oracle", "greedy", copy_dest=(1, 1, 2),
                description="placement oracle: each page's last host write to a frontier of its own (cold), "
                "the other host writes to the host frontier, GC copies to a third; greedy victims")
VICTIMS = ("greedy", "cost-benefit", "fifo_threshold")  # the victim rules policies() pairs with the oracle


def policies(victims=VICTIMS, **rule_params) -> list[Policy]:
    """The oracle's placement with each victim rule in ``victims``, named ``oracle/<rule>``; ``rule_params``
    (e.g. ``threshold``, ``fallback``) go to every rule that reads them (``fifo_threshold``: 2R's scan,
    one victim per pass)."""
    out = []
    for v in victims:
        p = ORACLE.with_(name=f"oracle/{v}", victim=v)
        out.append(p.with_(**{k: x for k, x in rule_params.items() if k in ("threshold", "recent_fraction",
                                                                           "fallback", "seed", "d")}))
    return out


@njit(cache=True, nogil=True)
def _tag(lpns, pos, last, out):
    for j in range(lpns.shape[0]):
        out[j] = FINAL if last[lpns[j]] == pos + j else 0


@njit(cache=True, nogil=True)
def _mark(lpns, pos, last):
    for j in range(lpns.shape[0]):
        last[lpns[j]] = pos + j


def final_write_kinds(lpns: np.ndarray, last: np.ndarray, pos: int = 0) -> np.ndarray:
    """The oracle's tag of each write ``lpns[j]``, the stream's write ``pos + j``: ``FINAL`` if it is its
    page's last write (``last[page] == pos + j``), else 0 (int8)."""
    lpns = np.ascontiguousarray(lpns, np.int32)
    out = np.empty(len(lpns), np.int8)
    _tag(lpns, pos, np.ascontiguousarray(last, np.int64), out)
    return out


def last_writes(chunks, logical_pages: int, prefill: int = 0) -> np.ndarray:
    """The index of each page's last write over ``chunks`` (arrays of logical pages, in order): -1 for a page
    only the prefill (pages ``0 .. prefill - 1``) wrote, -2 for one never written (as
    :class:`flashrepro.traces.oltp.StreamStats`' ``last``)."""
    last = np.full(logical_pages, -2, np.int64)
    last[:prefill] = -1
    pos = 0
    for arr in chunks:
        _mark(np.ascontiguousarray(arr, np.int32), pos, last)
        pos += len(arr)
    return last


class FinalWrites:
    """The oracle's tagger for one pass over a stream (``ftl.run(..., kinds=FinalWrites(last))``): call it with
    each chunk in order; :meth:`prefill` tags the prefill, whose writes are final for the pages the measured
    stream never writes."""

    def __init__(self, last: np.ndarray):
        self.last = np.ascontiguousarray(last, np.int64)
        self.pos = 0

    def prefill(self, n: int) -> np.ndarray:
        return np.where(self.last[:n] == -1, FINAL, 0).astype(np.int8)

    def __call__(self, arr: np.ndarray) -> np.ndarray:
        out = final_write_kinds(arr, self.last, self.pos)
        self.pos += len(arr)
        return out


def run_oracle(stream, geometry: Geometry, triggers: Sequence[str | GCTrigger] = ("reserve",),
               last: np.ndarray | None = None, policy: Policy | Sequence[Policy] = ORACLE, threads: int = 2,
               progress: bool = False, chunk: int = 1 << 22, slices: int = 10) -> FTLRun:
    """The oracle placement with ``policy`` (one, or several such as :func:`policies`) on ``stream`` under
    each of ``triggers``: one FTL per policy and trigger, all fed by one pass over the stream (the rows carry
    a ``trigger`` column). ``last``: each page's last write index, if already known (a
    :class:`~flashrepro.traces.oltp.StreamStats` of the same stream); otherwise a first pass computes it.
    Deterministic: the stream is seeded, and so are the random victim rules (``Policy.seed``)."""
    if last is None:
        last = last_writes(stream.chunks(chunk), stream.logical_pages, stream.prefill)
    if len(last) != stream.logical_pages:
        raise ValueError(f"last has {len(last)} pages, the stream {stream.logical_pages}")
    pols = [policy] if isinstance(policy, Policy) else list(policy)
    return run(stream, [p for _ in triggers for p in pols], geometry, slices=slices, chunk=chunk, threads=threads,
               trigger=[t for t in triggers for _ in pols], progress=progress, kinds=FinalWrites(last))
