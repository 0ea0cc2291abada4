"""Classical OpenCV card finder: edges, contours, four-corner polygons.

This is the usual open-source approach (grey -> blur -> edges -> contours -> approxPolyDP), kept
behind the same interface as the ONNX detector only as a baseline for the benchmark. It finds
cards lying apart from each other; overlapping cards merge into one contour, which is why
cardtally ships a learned detector.
"""

from __future__ import annotations

import cv2
import numpy as np

from .detections import CardDetections
from .geometry import order_quad, quad_long_axis_deg

#: Cards smaller than this share of the image are noise (a card is >= 0.05% of the photo).
MIN_AREA_FRACTION = 0.0005
#: Card outline width/height between these (59:91 is 0.65; foreshortening widens the range).
ASPECT_RANGE = (0.35, 0.95)


def detect_cards_classical(image_bgr: np.ndarray) -> CardDetections:
    """Find separated cards with classical edge and contour processing."""
    height, width = image_bgr.shape[:2]
    # Edges in every Lab channel: a red card on a green cloth can have the same grey level.
    lab = cv2.GaussianBlur(cv2.cvtColor(image_bgr, cv2.COLOR_BGR2LAB), (5, 5), 0)
    edges = np.zeros((height, width), np.uint8)
    for channel in cv2.split(lab):
        edges |= cv2.Canny(channel, 25, 75)
    edges = cv2.morphologyEx(edges, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))
    contours, _ = cv2.findContours(edges, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)

    min_area = MIN_AREA_FRACTION * width * height
    quads: list[np.ndarray] = []
    for contour in contours:
        area = cv2.contourArea(contour)
        if area < min_area:
            continue
        hull = cv2.convexHull(contour)
        approx = cv2.approxPolyDP(hull, 0.03 * cv2.arcLength(hull, True), True)
        if len(approx) == 4:
            quad = approx.reshape(4, 2).astype(np.float32)
        else:
            quad = cv2.boxPoints(cv2.minAreaRect(contour)).astype(np.float32)
        (_, _), (rect_w, rect_h), _ = cv2.minAreaRect(quad)
        short, long = sorted((rect_w, rect_h))
        if long <= 0 or not ASPECT_RANGE[0] <= short / long <= ASPECT_RANGE[1]:
            continue
        if cv2.contourArea(quad) < 0.6 * cv2.contourArea(hull):
            continue
        quads.append(order_quad(quad))

    if not quads:
        return CardDetections.empty((width, height))
    quad_xy = np.stack(quads).astype(np.float32)
    return CardDetections(
        quad_xy=quad_xy,
        visible_polygons_xy=tuple(q.copy() for q in quad_xy),
        centre_xy=quad_xy.mean(axis=1).astype(np.float32),
        angle_deg=np.array([quad_long_axis_deg(q) for q in quad_xy], np.float32),
        score=np.ones(len(quad_xy), np.float32),
        image_wh=(width, height),
    )
