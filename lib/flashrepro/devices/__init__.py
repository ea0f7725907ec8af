"""Device cost models: time of an after-cache trace on a flash device."""

from .flash import CARDS, FlashCard, calibrate_card, io_time
from .ssd import CURVES, DEFAULT_CURVE, ReadCurve, bandwidth

__all__ = ["CARDS", "CURVES", "DEFAULT_CURVE", "FlashCard", "ReadCurve", "bandwidth", "calibrate_card", "io_time"]
