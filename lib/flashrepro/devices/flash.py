"""microSD write/read time models for paper 1 (BS-CLOCK), calibrated only on the paper's Fig. 2.

Write model: a request of n pages takes ``t(n) = a + b * n`` (a per-request cost plus a per-page cost).

Calibration (and nothing else):

* Fig. 2: writing 64 MB in 1 MiB requests instead of 4 KiB requests takes 35% less time on the Samsung
  card and 77.5% less on the SanDisk card. With 4 KiB pages that is
  ``64 (a + 256 b) = (1 - r) * 16384 (a + b)``, so ``a / b = 256 r / (256 (1 - r) - 1)``.
* Absolute scale: both cards are class 10, i.e. rated for at least 10 MB/s (10^6 B/s) of sequential
  writing, taken here as the 1 MiB-request rate: ``a + 256 b = 2^20 / 10^7`` s.

Read model (an assumption; the paper measures no reads): a request of n pages takes
``0.25 ms + n * 4 KiB / 20 MB/s``, the same for both cards. Class-10 cards are rated for writes only;
20 MB/s is the low end of what UHS-I microSD cards read. Read time is reported apart from write time so
that a reader can leave it out.

What an affine model cannot show: any dependence on where a request lands (sequential vs random
4 KiB writes cost the same here, so Spatial Clock's sorted evictions gain nothing from it) and any
non-monotone effect of request size such as the paper's 128-256 KiB bump (Fig. 7): with ``a, b > 0``
time per page falls monotonically with request size.
"""

from __future__ import annotations

import dataclasses

import numpy as np

PAGE_BYTES = 4096
CLASS10_BYTES_PER_S = 10e6
READ_REQUEST_S = 0.25e-3
READ_BYTES_PER_S = 20e6


@dataclasses.dataclass(frozen=True)
class FlashCard:
    """``write_time(n) = write_request_s + write_page_s * n``; likewise for reads."""

    name: str
    write_request_s: float
    write_page_s: float
    read_request_s: float = READ_REQUEST_S
    read_page_s: float = PAGE_BYTES / READ_BYTES_PER_S
    page_bytes: int = PAGE_BYTES
    fig2_reduction: float | None = None  # the Fig. 2 number it was calibrated on

    def write_time(self, n_pages):
        return self.write_request_s + self.write_page_s * np.asarray(n_pages, dtype=np.float64)

    def read_time(self, n_pages):
        return self.read_request_s + self.read_page_s * np.asarray(n_pages, dtype=np.float64)

    def bulk_write_time(self, total_bytes: int, request_bytes) -> np.ndarray:
        """Time to write ``total_bytes`` in requests of ``request_bytes`` (Fig. 2's experiment)."""
        req = np.asarray(request_bytes, dtype=np.float64)
        return (total_bytes / req) * self.write_time(req / self.page_bytes)


def calibrate_card(name: str, reduction_1mib_vs_4kib: float, seq_write_bytes_per_s: float = CLASS10_BYTES_PER_S,
                   page_bytes: int = PAGE_BYTES) -> FlashCard:
    """A card whose 1 MiB requests write ``reduction`` less time than 4 KiB requests for the same data."""
    r = reduction_1mib_vs_4kib
    pages_per_mib = 2**20 // page_bytes
    if not 0 < r < 1 - 1 / pages_per_mib:
        raise ValueError(f"a reduction of {r} cannot come from an affine model with positive costs")
    ratio = pages_per_mib * r / (pages_per_mib * (1 - r) - 1)  # a / b
    b = (2**20 / seq_write_bytes_per_s) / (ratio + pages_per_mib)
    return FlashCard(name, write_request_s=ratio * b, write_page_s=b, page_bytes=page_bytes,
                     fig2_reduction=r)


CARDS = {
    "samsung": calibrate_card("Samsung microSDHC 16 GB class 10", 0.35),
    "sandisk": calibrate_card("SanDisk microSDHC 16 GB class 10", 0.775),
}


def io_time(io_log, card: FlashCard) -> dict:
    """Time of an after-cache trace (:class:`~flashrepro.cache.IOLog`) on ``card``, in seconds (device I/O
    only: moves between a cache's own tiers cost nothing here)."""
    written, read = device_pages(io_log, 1), device_pages(io_log, 0)
    write_s = float(per_request(card.write_time, written).sum())
    read_s = float(per_request(card.read_time, read).sum())
    return {"write_s": write_s, "read_s": read_s, "io_s": write_s + read_s,
            "write_requests": len(written), "pages_written": int(written.sum()),
            "read_requests": len(read)}


def per_request(time_of, pages: np.ndarray, scale: int = 1) -> np.ndarray:
    """``time_of(pages * scale)`` for an int array of request lengths, the same values in the same order.

    A run's requests take few distinct lengths, so ``time_of`` is evaluated once per length, over
    ``0..max(pages)``, and gathered: a pass over the requests instead of the model's chain of temporaries
    (the matrix times each of its 3,000 runs on three models). Elementwise, the model is the same function on
    the same numbers, so each value, and any sum over them, is bit-identical to ``time_of(pages * scale)``
    (tests/test_speed_paths.py). Lengths spread wider than the requests fall back to the direct call."""
    pages = np.asarray(pages)
    if pages.size == 0 or pages.dtype.kind not in "iu":
        return time_of(pages * scale)
    top = int(pages.max())
    if top > 4 * pages.size + 4096 or int(pages.min()) < 0:
        return time_of(pages * scale)
    return time_of(np.arange(top + 1, dtype=pages.dtype) * scale)[pages]


def device_pages(io_log, op: int) -> np.ndarray:
    """The pages of each device read (``op`` 0) or write (1) of ``io_log``, in log order. An
    :class:`~flashrepro.cache.IOLog` computes them once (``IOLog.device_pages``), so timing one run on several
    device models selects its rows once; any other object with the IOLog's columns works too."""
    if hasattr(io_log, "device_pages"):
        return io_log.device_pages(op)
    return io_log.n_pages[io_log.device & (io_log.op == op)]
