"""Small plane-geometry helpers shared by the detectors and the rectifier."""

from __future__ import annotations

import cv2
import numpy as np

#: A standard card's short and long side in mm (Ligretto cards are 59 x 91 mm, poker cards
#: 63 x 88 mm): the one home of the card's shape, for the runtime and the training renderer alike.
CARD_SHORT_MM = 59
CARD_LONG_MM = 91
#: Width / height of an upright card (short side over long side, 0.648).
CARD_ASPECT = CARD_SHORT_MM / CARD_LONG_MM
#: Height / width of an upright card (long side over short side, 1.542).
CARD_LONG_OVER_SHORT = CARD_LONG_MM / CARD_SHORT_MM


def order_quad(quad_xy: np.ndarray) -> np.ndarray:
    """Order four corners clockwise (in image coordinates) starting at the top-left-most one."""
    quad = np.asarray(quad_xy, np.float32).reshape(4, 2)
    centre = quad.mean(axis=0)
    angles = np.arctan2(quad[:, 1] - centre[1], quad[:, 0] - centre[0])
    quad = quad[np.argsort(angles)]
    start = int(np.argmin(quad.sum(axis=1)))
    return np.roll(quad, -start, axis=0)


def quad_long_axis_deg(quad_xy: np.ndarray) -> float:
    """Direction of the quad's longer side pair in degrees, in [0, 180)."""
    quad = np.asarray(quad_xy, np.float32).reshape(4, 2)
    side_a = quad[1] - quad[0]
    side_b = quad[2] - quad[1]
    along = side_a if np.hypot(*side_a) >= np.hypot(*side_b) else side_b
    return float(np.degrees(np.arctan2(along[1], along[0])) % 180.0)


def polygon_strip_px(polygon_xy: np.ndarray) -> float:
    """Narrowest width of a polygon: the short side of its minimum-area rectangle."""
    if len(polygon_xy) < 3:
        return 0.0
    (_, _), (rect_w, rect_h), _ = cv2.minAreaRect(np.asarray(polygon_xy, np.float32))
    return float(min(rect_w, rect_h))
