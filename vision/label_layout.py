"""Where the review image's labels go: cards numbered in reading order, labels placed so that
neighbours' labels do not cover each other (pure geometry; ``vision.annotate`` draws them)."""

from __future__ import annotations

import cv2
import numpy as np

from .detections import CardDetections


def card_numbers(detections: CardDetections) -> np.ndarray:
    """1-based card numbers in reading order: rows top to bottom, left to right in each row.

    Cards whose centres lie within half a card width of the row's first card share a row, so
    a slightly slanted row is still read left to right instead of zig-zagging.
    """
    n = len(detections)
    numbers = np.zeros((n,), np.int64)
    if n == 0:
        return numbers
    sides = np.linalg.norm(detections.quad_xy - np.roll(detections.quad_xy, 1, axis=1), axis=2)
    row_band_px = 0.5 * float(np.median(sides.min(axis=1)))
    by_y = np.argsort(detections.centre_xy[:, 1], kind="stable")
    rows: list[list[int]] = []
    row_top_y = -np.inf
    for i in by_y:
        y = float(detections.centre_xy[i, 1])
        if not rows or y - row_top_y > row_band_px:
            rows.append([])
            row_top_y = y
        rows[-1].append(int(i))
    order = [
        i for row in rows for i in sorted(row, key=lambda k: float(detections.centre_xy[k, 0]))
    ]
    numbers[order] = np.arange(1, n + 1)
    return numbers


def anchor_candidates(polygon_xy: np.ndarray, centre_xy: np.ndarray) -> list[np.ndarray]:
    """Label centres to try: the card's centre point, then points along its visible strip.

    In a shingled row neighbouring strips are narrow but long; staggering the labels along
    them keeps neighbours' labels from covering each other.
    """
    candidates = [np.asarray(centre_xy, np.float64)]
    if len(polygon_xy) < 3:
        return candidates
    contour = polygon_xy.reshape(-1, 1, 2).astype(np.float32)
    (cx, cy), (w, h), angle = cv2.minAreaRect(contour)
    along = np.radians(angle if w >= h else angle + 90.0)
    axis = np.array([np.cos(along), np.sin(along)])
    for t in (-0.25, 0.25, -0.4, 0.4, -0.12, 0.12):
        point = np.array([cx, cy]) + axis * t * max(w, h)
        if cv2.pointPolygonTest(contour, (float(point[0]), float(point[1])), False) > 0:
            candidates.append(point)
    return candidates


def place_labels(
    sizes_wh: list[tuple[int, int]],
    polygons: list[np.ndarray],
    centres_xy: np.ndarray,
    order: np.ndarray,
    image_wh: tuple[int, int],
) -> list[tuple[int, int]]:
    """Greedy placement, in reading order: the first candidate that overlaps no placed label,
    else the one that overlaps least. Returns each label's top-left corner."""
    placed = np.zeros((0, 4), np.float64)  # x0, y0, x1, y1
    corners: list[tuple[int, int]] = [(0, 0)] * len(sizes_wh)
    for i in order:
        box_w, box_h = sizes_wh[i]
        best, best_overlap = None, np.inf
        for anchor in anchor_candidates(polygons[i], centres_xy[i]):
            x0 = float(np.clip(round(anchor[0] - box_w / 2), 0, max(0, image_wh[0] - box_w)))
            y0 = float(np.clip(round(anchor[1] - box_h / 2), 0, max(0, image_wh[1] - box_h)))
            dx = np.minimum(placed[:, 2], x0 + box_w) - np.maximum(placed[:, 0], x0)
            dy = np.minimum(placed[:, 3], y0 + box_h) - np.maximum(placed[:, 1], y0)
            overlap = float(np.sum(np.clip(dx, 0, None) * np.clip(dy, 0, None)))
            if overlap < best_overlap:
                best, best_overlap = (int(x0), int(y0)), overlap
            if overlap == 0:
                break
        assert best is not None
        corners[i] = best
        placed = np.vstack([placed, [best[0], best[1], best[0] + box_w, best[1] + box_h]])
    return corners
