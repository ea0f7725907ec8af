"""Device cost models: time of an after-cache trace on a flash device.

:func:`device_time` puts a run's I/O log on every model here at once: a sweep metric
(``sweep.run(..., metrics=(device_time,))``; notebook 06's matrix and ``flashrepro sweep --device-time``).
"""

from .flash import CARDS, FlashCard, calibrate_card, io_time
from .ssd import CURVES, DEFAULT_CURVE, ReadCurve, bandwidth


def device_time(res, trace) -> dict:
    """Modelled device time of the run's I/O log: paper 1's microSD cards (affine write model, Fig. 2) and
    paper 2's SSD read-time curve (Fig. 4, model U16-sqrt), in seconds."""
    out = {f"time_{name}_s": io_time(res.io_log, card)["io_s"] for name, card in CARDS.items()}
    b = bandwidth(res.io_log, trace, CURVES[DEFAULT_CURVE])
    out["time_ssd_s"] = b["read_s"] + b["write_s"]
    return out


device_time.log_io = "device"  # it reads only the device pages of the log: a sweep keeps no more (sweep.log_for)


__all__ = ["CARDS", "CURVES", "DEFAULT_CURVE", "FlashCard", "ReadCurve", "bandwidth", "calibrate_card",
           "device_time", "io_time"]
