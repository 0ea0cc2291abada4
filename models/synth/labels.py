"""Per-card ground truth measured on the owner map (which card is on top at each pixel).

Definitions (also in docs/SYNTH.md):

- ``strip_px``: diameter of the largest disc that fits inside the card's visible region,
  ``2 * max(distance transform) - 1`` (a visible strip 12 px wide measures 11-12). This is the
  "narrowest width of the widest part": the width of a shingled strip, the short side of a fully
  visible card.
- ``centre_xy``: the point of the visible region farthest from its boundary (on the distance
  transform's ridge, the ridge point nearest the ridge's mean). Unlike the centroid it always lies
  inside the visible part, also for L-shaped parts, so a detector can predict a peak there.
- ``centroid_xy``: mean of the visible pixels.
- ``visible_polygon_xy``: outer contour of the largest visible component, simplified by 0.7 px.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np


@dataclass(frozen=True)
class VisibleStats:
    """What shows of one card: pixel count, centroid, label centre and strip width."""
    visible_px: int
    centroid_xy: np.ndarray
    centre_xy: np.ndarray
    strip_px: float


def bbox_of(pts_xy: np.ndarray, image_wh, pad: int = 2) -> tuple[int, int, int, int]:
    """Integer (x0, y0, x1, y1) around points, padded, clipped to the image (may be empty)."""
    w, h = image_wh
    x0 = max(0, int(np.floor(pts_xy[:, 0].min())) - pad)
    y0 = max(0, int(np.floor(pts_xy[:, 1].min())) - pad)
    x1 = min(w, int(np.ceil(pts_xy[:, 0].max())) + pad + 1)
    y1 = min(h, int(np.ceil(pts_xy[:, 1].max())) + pad + 1)
    return x0, y0, x1, y1


def strip_width(mask: np.ndarray) -> tuple[float, np.ndarray]:
    """(strip_px, distance transform) of a uint8 0/1 mask; image borders count as boundary."""
    padded = cv2.copyMakeBorder(mask, 1, 1, 1, 1, cv2.BORDER_CONSTANT, value=0)
    dt = cv2.distanceTransform(padded, cv2.DIST_L2, cv2.DIST_MASK_5)[1:-1, 1:-1]
    m = float(dt.max()) if dt.size else 0.0
    return (max(0.0, 2 * m - 1), dt)


def visible_stats(owner: np.ndarray, index: int, bbox) -> VisibleStats | None:
    """Measure card ``index`` inside ``bbox`` of the owner map; None when nothing is visible."""
    x0, y0, x1, y1 = bbox
    if x1 <= x0 or y1 <= y0:
        return None
    mask = (owner[y0:y1, x0:x1] == index).view(np.uint8)
    n = int(cv2.countNonZero(mask))
    if n == 0:
        return None
    strip, dt = strip_width(mask)
    m = cv2.moments(mask, binaryImage=True)
    centroid = np.array([m["m10"] / m["m00"] + x0, m["m01"] / m["m00"] + y0], np.float32)
    top = float(dt.max())
    ridge = cv2.findNonZero(cv2.compare(dt, max(top - 1.0, 0.9 * top), cv2.CMP_GE))
    ridge = ridge.reshape(-1, 2).astype(np.float32)
    k = int(np.argmin(((ridge - ridge.mean(0)) ** 2).sum(1)))
    centre = (ridge[k] + (x0, y0)).astype(np.float32)
    return VisibleStats(n, centroid, centre, strip)


def visible_polygon(owner: np.ndarray, index: int, bbox) -> np.ndarray:
    """Outer contour of the largest visible component of card ``index``, (k, 2) float32."""
    x0, y0, x1, y1 = bbox
    mask = (owner[y0:y1, x0:x1] == index).view(np.uint8)
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if not contours:
        return np.zeros((0, 2), np.float32)
    c = cv2.approxPolyDP(max(contours, key=cv2.contourArea), 0.7, True)
    return (c.reshape(-1, 2) + (x0, y0)).astype(np.float32)


def polygon_area(pts_xy: np.ndarray) -> float:
    """Area of a simple polygon (shoelace)."""
    return float(cv2.contourArea(np.asarray(pts_xy, np.float32)))
