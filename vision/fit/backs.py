"""A calibrated deck's back as the fit uses it: the rectified back itself, not a summary.

The fit explains each group of cards as strips of the calibrated backs, so it needs the back's
picture at a resolution where a strip a few millimetres wide still shows its print, and how
much each pixel varies between the deck's own cards (print registration, wear, light): a pixel
that varies a lot says little about which deck a strip belongs to.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

import cv2
import numpy as np

from cardtally.errors import CardtallyError

from ..rectify import CARD_FRAME_WH

if TYPE_CHECKING:
    from ..decks import DeckSet


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


def encode_back(back: CalibratedBack) -> dict[str, str]:
    """The back as base64 PNG text for the deck profile's JSON: the back's pixels as they are,
    the spread rounded to whole grey levels (a few kB per deck)."""
    spread = np.clip(np.round(back.spread), 0, 255).astype(np.uint8)
    return {"back_png": _png_base64(back.back_bgr), "spread_png": _png_base64(spread)}


def decode_back(deck_name: str, data: Mapping[str, str]) -> CalibratedBack:
    """Inverse of :func:`encode_back`; raises ValueError (or TypeError, KeyError) on bad data."""
    back = _png_pixels(data["back_png"], cv2.IMREAD_UNCHANGED)
    spread = _png_pixels(data["spread_png"], cv2.IMREAD_UNCHANGED).astype(np.float32)
    return CalibratedBack(deck_name, back, spread)


def _png_base64(pixels: np.ndarray) -> str:
    ok, encoded = cv2.imencode(".png", pixels, [cv2.IMWRITE_PNG_COMPRESSION, 9])
    if not ok:
        raise ValueError("cannot encode the back as PNG")
    return base64.b64encode(encoded.tobytes()).decode("ascii")


def _png_pixels(text: str, flags: int) -> np.ndarray:
    raw = np.frombuffer(base64.b64decode(text.encode("ascii"), validate=True), np.uint8)
    pixels = cv2.imdecode(raw, flags) if raw.size else None
    if pixels is None:
        raise ValueError("the back is not a readable PNG")
    return pixels


def calibrate_again(deck_name: str) -> CardtallyError:
    """The error for a deck calibrated before cardtally kept the card back."""
    return CardtallyError(
        f"Deck {deck_name!r} was calibrated by an older cardtally that did not keep its card "
        f"back; calibrate it again with 'cardtally calibrate {deck_name} PHOTO... --replace'."
    )


def calibrated_backs(decks: DeckSet) -> dict[str, CalibratedBack]:
    """Each deck's calibrated back by deck name, in the set's order; the error of
    :func:`calibrate_again` for the first deck whose profile has none."""
    backs = {}
    for profile in decks.profiles:
        if profile.back is None:
            raise calibrate_again(profile.name)
        backs[profile.name] = profile.back
    return backs
