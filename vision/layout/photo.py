"""A photo's cards in two passes: read the card size on a small copy, then find the cards at the
scale where a card is :data:`PROCESS_CARD_LONG_PX` long."""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from .cards import LayoutCards, card_long_cells, read_cards
from .maps import LayoutMaps, LayoutNetwork

#: The first pass sees the photo at this long side (pixels).
SURVEY_LONG_PX = 1024
#: The second pass scales the photo so that a card's long side is this long: a 15% shingle
#: offset of the short side is then a 14 px strip (3.4 map cells).
PROCESS_CARD_LONG_PX = 140.0
#: The second pass never processes more than this many pixels on its long side.
MAX_PROCESS_LONG_PX = 3200


@dataclass(frozen=True)
class PhotoLayout:
    """Cards of one photo in the photo's pixels, and how they were read.

    ``scale`` is processed size / photo size; ``card_long_px`` the card's long side in the
    photo; ``maps`` the second pass's maps (at ``scale``).
    """

    cards: LayoutCards
    scale: float
    card_long_px: float
    maps: LayoutMaps


def _resized(image_bgr: np.ndarray, scale: float) -> np.ndarray:
    h, w = image_bgr.shape[:2]
    size = (max(32, round(w * scale)), max(32, round(h * scale)))
    interpolation = cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR
    return cv2.resize(image_bgr, size, interpolation=interpolation)


def read_card_size(network: LayoutNetwork, image_bgr: np.ndarray) -> float:
    """The photo's card long side in pixels from the survey pass (0.0: no card seen)."""
    survey_scale = min(1.0, SURVEY_LONG_PX / max(image_bgr.shape[:2]))
    maps = network.read(_resized(image_bgr, survey_scale))
    return card_long_cells(maps) * maps.stride / survey_scale


def find_cards(network: LayoutNetwork, image_bgr: np.ndarray,
               card_long_px: float | None = None) -> PhotoLayout:
    """The cards of ``image_bgr``; ``card_long_px`` skips the survey (a known card size)."""
    if card_long_px is None:
        card_long_px = read_card_size(network, image_bgr)
    long_side = max(image_bgr.shape[:2])
    if card_long_px <= 0:
        scale = min(1.0, SURVEY_LONG_PX / long_side)
    else:
        scale = min(PROCESS_CARD_LONG_PX / card_long_px, MAX_PROCESS_LONG_PX / long_side)
    maps = network.read(_resized(image_bgr, scale))
    cards = read_cards(maps)
    h, w = image_bgr.shape[:2]
    sx, sy = maps.image_wh[0] / w, maps.image_wh[1] / h
    to_photo = np.array([1 / sx, 1 / sy], np.float32)
    in_photo = LayoutCards(cards.quad_xy * to_photo, cards.centre_xy * to_photo, cards.mass,
                           cards.score, cards.cell_card, cards.card_long_px / scale)
    return PhotoLayout(in_photo, scale, card_long_px, maps)
