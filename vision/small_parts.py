"""Clusters of parts too small for a card: keyboard keys, not cards.

A visible card part is rarely small in both directions: a card in a row shows a whole side,
one in a pile at least a fifth of itself. Only a card cut by the photo's border or hidden
under a hand shows less, and such parts come one or two at a time. Keyboard keys, the real
photos' commonest false cards, come as a grid of many small square parts side by side, and
touch no card: the small wedges of a fan or the pieces a print cuts a strip into touch the
larger parts of the cards around them.
"""

from __future__ import annotations

import cv2
import numpy as np

from .contact import grown_part_masks
from .detections import CardDetections
from .geometry import CARD_ASPECT


def typical_card_long_px(log2_long: np.ndarray, cards: CardDetections, stride: int) -> float | None:
    """The photo's card length in image pixels: the median of the size head's reading (log2
    of the card length in output pixels, ``log2_long``) at each card's centre; None without
    cards."""
    if len(cards) == 0:
        return None
    height, width = log2_long.shape
    xs = np.clip((cards.centre_xy[:, 0] / stride).astype(int), 0, width - 1)
    ys = np.clip((cards.centre_xy[:, 1] / stride).astype(int), 0, height - 1)
    return float(2.0 ** np.median(log2_long[ys, xs])) * stride


def small_part_clusters(cards: CardDetections, card_long_px: float | None, max_width_share: float,
                        min_neighbours: int, reach_widths: float, sparing_width_share: float,
                        touch_px: float = 6.0) -> np.ndarray:
    """Boolean mask of the cards to drop: parts whose visible outline is shorter, along its
    longer side, than ``max_width_share`` of a card width and comes within ``touch_px`` of
    no part at least ``sparing_width_share`` card widths long (a card beyond doubt: then it
    is a piece of a card), with at least ``min_neighbours`` other such parts whose centres
    lie within ``reach_widths`` card widths."""
    n_cards = len(cards)
    if max_width_share <= 0 or n_cards == 0 or not card_long_px:
        return np.zeros(n_cards, bool)
    card_width = card_long_px * CARD_ASPECT
    long_sides = np.array([max(cv2.minAreaRect(polygon.astype(np.float32))[1])
                           for polygon in cards.visible_polygons_xy])
    small = long_sides < max_width_share * card_width
    if not small.any():
        return small
    small &= ~_touching(cards, long_sides >= sparing_width_share * card_width, small, touch_px)
    offsets = cards.centre_xy[:, None, :] - cards.centre_xy[None, :, :]
    near = np.hypot(offsets[..., 0], offsets[..., 1]) < reach_widths * card_width
    small_neighbours = (near & small[None, :]).sum(axis=1) - small  # not counting itself
    return small & (small_neighbours >= min_neighbours)


def _touching(cards: CardDetections, others: np.ndarray, asked: np.ndarray, touch_px: float) -> np.ndarray:
    """Which of the ``asked`` cards' visible parts come within ``touch_px`` of one of the
    ``others`` (both masks over the cards)."""
    shape, grown = grown_part_masks(cards, touch_px)
    covered = np.zeros(shape, bool)
    for i in np.flatnonzero(others):
        rows, cols, mask = grown[i]
        covered[rows, cols] |= mask
    touching = np.zeros(len(cards), bool)
    for i in np.flatnonzero(asked):
        rows, cols, mask = grown[i]
        touching[i] = bool((covered[rows, cols] & mask).any())
    return touching
