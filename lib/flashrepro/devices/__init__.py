"""Device cost models: time of an after-cache trace on a flash device."""

from .flash import CARDS, FlashCard, calibrate_card, io_time

__all__ = ["CARDS", "FlashCard", "calibrate_card", "io_time"]
