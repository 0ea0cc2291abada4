"""A calibrated deck's back as the fit uses it: the rectified back itself, not a summary.

The fit explains each group of cards as strips of the calibrated backs, so it needs the back's
picture at a resolution where a strip a few millimetres wide still shows its print, and how
much each pixel varies between the deck's own cards (print registration, wear, light): a pixel
that varies a lot says little about which deck a strip belongs to.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..rectify import CARD_FRAME_WH


@dataclass(frozen=True)
class CalibratedBack:
    """One deck's back in the portrait card frame (``CARD_FRAME_WH``).

    ``back_bgr`` (H, W, 3) uint8 is the per-pixel median of the deck's calibration cards, one
    way up; a card can lie either way, and the other way is ``turned_bgr``. ``spread`` (H, W)
    float32 is each pixel's spread over those cards in 0-255 grey levels.
    """

    deck_name: str
    back_bgr: np.ndarray
    spread: np.ndarray

    def __post_init__(self) -> None:
        width, height = CARD_FRAME_WH
        if self.back_bgr.shape != (height, width, 3) or self.back_bgr.dtype != np.uint8:
            raise ValueError(f"back_bgr must be ({height}, {width}, 3) uint8, "
                             f"got {self.back_bgr.shape} {self.back_bgr.dtype}")
        if self.spread.shape != (height, width):
            raise ValueError(f"spread must be ({height}, {width}), got {self.spread.shape}")

    @property
    def turned_bgr(self) -> np.ndarray:
        """The back turned by 180 degrees."""
        return self.back_bgr[::-1, ::-1]
