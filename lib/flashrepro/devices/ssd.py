"""SSD read time by request size for paper 2 (Baek 2011, Fig. 4), and the bandwidth of an after-cache trace.

Fig. 4 gives two facts for two unnamed SSDs, and nothing else: the time of an aligned read is flat up to
the SSD's operating unit U (about 16 or 32 KiB: the page size times the planes, Sec. 3.2-3.4), and, for
model 1, reading 4x more from 64 to 256 KiB takes only 2x the time. Two shapes fit both facts; we offer
both and show the difference, rather than choosing one:

* ``sqrt``: t(s) = t0 * sqrt(s / U) above U (doubling the time per 4x the size, at every size);
* ``affine``: t(s) = t0 + b (s - U) above U, the line through both facts (b = t0 / (128 KiB + U)).

``t0``, the time of one read up to U, sets only the absolute scale: 100 us, a typical 4 KiB random read of
a 2011 SATA SSD (an assumption; improvements, which are ratios of bandwidths, do not depend on it). Writes
are timed with the same curve (an assumption the paper does not make: it reports no write times), and
reported apart from reads.

Neither shape has a bus: with t0 = 100 us, model 1 reads 256 KiB at 655 MB/s, more than SATA-2's 300 MB/s.
A bus floor (``bus_mb_s``: a request takes at least its bytes over the bus rate) consistent with Fig. 4's
second fact needs t0 >= 218 us at 300 MB/s, and then binds only above 256 KiB, where improvements (ratios)
do not look. ``U16-sqrt-bus300`` keeps t0 = 100 us and adds the floor anyway, as a what-if that breaks the
second fact (256 KiB costs 4x 64 KiB): it bounds what an ignored bus could change.
"""

from __future__ import annotations

import dataclasses

import numpy as np

PAGE_BYTES = 4096
KIB = 1024


@dataclasses.dataclass(frozen=True)
class ReadCurve:
    """``time(size_bytes)`` of one aligned request, in seconds."""

    name: str
    unit_kib: int = 16
    shape: str = "sqrt"
    t0_s: float = 100e-6
    bus_mb_s: float = 0.0  # a floor of size / bus rate on every request (0: no bus)

    def __post_init__(self):
        if self.shape not in ("sqrt", "affine"):
            raise ValueError(f"shape must be 'sqrt' or 'affine', got {self.shape!r}")
        if not 0 < self.unit_kib <= 64:
            raise ValueError("the operating unit must be in (0, 64] KiB (Fig. 4's second fact starts at 64 KiB)")

    def time(self, size_bytes) -> np.ndarray:
        b = np.asarray(size_bytes, dtype=np.float64)
        s = np.maximum(b / KIB, self.unit_kib)  # KiB, flat up to U
        if self.shape == "sqrt":
            t = self.t0_s * np.sqrt(s / self.unit_kib)
        else:
            t = self.t0_s * (1.0 + (s - self.unit_kib) / (128.0 + self.unit_kib))
        return np.maximum(t, b / (self.bus_mb_s * 1e6)) if self.bus_mb_s > 0 else t


def requested_bytes(trace) -> tuple[int, int]:
    """Bytes the trace's reads and writes request: computed once per trace (kept on it, as its page
    expansion is), since every run on the trace and every curve divides by them."""
    from ..traces.trace import Op  # (here, not at the top: the device models import no compiled code)

    cache = trace.__dict__.setdefault("_requested_bytes", {})
    if not cache:
        size, op = trace.size_bytes, trace.op
        cache["rw"] = (int(size[op == Op.READ].sum()), int(size[op == Op.WRITE].sum()))
    return cache["rw"]


CURVES = {f"U{u}-{shape}": ReadCurve(f"U{u}-{shape}", u, shape) for u in (16, 32) for shape in ("sqrt", "affine")}
CURVES["U16-sqrt-bus300"] = ReadCurve("U16-sqrt-bus300", 16, "sqrt", bus_mb_s=300.0)  # a what-if (see above)
DEFAULT_CURVE = "U16-sqrt"  # model 1 of Fig. 4, the one both facts are about


def bandwidth(io_log, trace, curve: ReadCurve) -> dict:
    """Bandwidth of a trace served through a cache whose device I/O is ``io_log``, one request at a time,
    hits free: bytes the trace requested over the modelled device time (Sec. 5's measure).

    Returns the read and write device times, the read-only bandwidth (read bytes over read time) and the
    bandwidth of all requests (all bytes over all device time), in MB/s (10^6 B/s)."""
    from .flash import device_pages, per_request

    rd, wr = device_pages(io_log, 0), device_pages(io_log, 1)
    read_s = float(per_request(curve.time, rd, io_log.page_bytes).sum())
    write_s = float(per_request(curve.time, wr, io_log.page_bytes).sum())
    read_bytes, write_bytes = requested_bytes(trace)
    return {"read_s": read_s, "write_s": write_s, "read_requests": len(rd), "write_requests": len(wr),
            "read_mb_s": read_bytes / read_s / 1e6 if read_s else float("inf"),
            "all_mb_s": (read_bytes + write_bytes) / (read_s + write_s) / 1e6 if read_s + write_s else float("inf")}
