"""Which visible card parts touch: each part drawn on a coarse raster, grown by one cell."""

from __future__ import annotations

import cv2
import numpy as np

from .detections import CardDetections


def grown_part_masks(
    cards: CardDetections, touch_px: float
) -> tuple[tuple[int, int], list[tuple[slice, slice, np.ndarray]]]:
    """Each card's visible part on a raster of ``touch_px / 2`` cells, grown by one cell: two
    parts whose masks overlap come within ``touch_px`` of each other. Returns the raster's
    (rows, cols) and, per card, the box it lies in (row and column slices) and its mask there.

    Each part is drawn in its own box (one cell of room all round), not in a whole raster: the
    photo's cards cost the sum of their sizes, not cards x photo.
    """
    cell = touch_px / 2.0
    width, height = cards.image_wh
    shape = (int(height / cell) + 3, int(width / cell) + 3)
    kernel = np.ones((3, 3), np.uint8)
    grown = []
    for polygon in cards.visible_polygons_xy:
        cells = np.clip(np.round(polygon / cell).astype(np.int32) + 1, 1, np.array(shape[::-1]) - 2)
        x0, y0 = cells.min(axis=0) - 1
        x1, y1 = cells.max(axis=0) + 2
        mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
        cv2.fillPoly(mask, [cells - np.array([x0, y0], np.int32)], 1)
        grown.append((slice(y0, y1), slice(x0, x1), cv2.dilate(mask, kernel).astype(bool)))
    return shape, grown
