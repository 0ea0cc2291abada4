"""Per-pixel training targets for the detector, computed from a scene's owner map.

The owner map says which card is on top at each pixel (-1 = table); everything the network
learns is derived from it, so the labels stay exact under any camera warp the renderer applies.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from ...vision.watershed_cards import OUTPUT_STRIDE
from ..synth.targets import any_at_stride, boundary_map, sample_at_stride


@dataclass(frozen=True)
class DetectorTargets:
    """Targets at output resolution (h, w) = input // stride."""

    foreground: np.ndarray  # (h, w) float32 0/1
    edge: np.ndarray  # (h, w) float32 0/1, physical card boundaries
    centre: np.ndarray  # (h, w) float32 Gaussian peaks, exactly 1.0 at each card's centre
    orient: np.ndarray  # (2, h, w) float32 cos/sin of twice the long-axis angle
    #: (h, w) float32 log2(card long side in output pixels); 0 on the table and where the
    #: card's quad is unusable (the renderer's lens model can throw far off-image corners away)
    log_size: np.ndarray
    centres_xy: np.ndarray  # (n, 2) float32 centre points in output pixels
    #: (h, w) float32 0/1, where asked for: the edge cells where two cards meet (not card
    #: against table), for ``train.py --between-edge-weight``
    edge_between: np.ndarray | None = None

    def loss_maps(self) -> dict[str, np.ndarray]:
        """The maps the training loss compares the network's output with, by name."""
        maps = {
            "foreground": self.foreground,
            "edge": self.edge,
            "centre": self.centre,
            "orient": self.orient,
            "log_size": self.log_size,
        }
        if self.edge_between is not None:
            maps["edge_between"] = self.edge_between
        return maps


def visible_part_centre(mask: np.ndarray) -> tuple[float, float, float]:
    """A well-defined point inside a visible part, and its half-width in pixels.

    The centroid of an L-shaped part can fall outside it, and the farthest-from-boundary point is
    ambiguous along a straight strip; so take, among the points at least 60% as deep as the
    deepest, the one nearest the centroid. Returns (x, y, depth_px).
    """
    depth = cv2.distanceTransform(mask.astype(np.uint8), cv2.DIST_L2, 3)
    deepest = float(depth.max())
    ys, xs = np.nonzero(mask)
    centroid = np.array([xs.mean(), ys.mean()])
    cand_y, cand_x = np.nonzero(depth >= 0.6 * deepest)
    dist2 = (cand_x - centroid[0]) ** 2 + (cand_y - centroid[1]) ** 2
    k = int(np.argmin(dist2))
    return float(cand_x[k]), float(cand_y[k]), deepest


def long_axis_angle_rad(quad_xy: np.ndarray) -> float:
    """Angle of the card's long axis in the image (radians, mod pi)."""
    quad = np.asarray(quad_xy, np.float64)
    side_a = (quad[1] - quad[0] + quad[2] - quad[3]) / 2
    side_b = (quad[2] - quad[1] + quad[3] - quad[0]) / 2
    along = side_a if np.hypot(*side_a) >= np.hypot(*side_b) else side_b
    return float(np.arctan2(along[1], along[0]) % np.pi)


def card_long_side_px(quad_xy: np.ndarray) -> float:
    """Length of the card's long side (mean of its two long edges) in the quad's pixels.

    0.0 when the quad is not a plausible card outline (opposite sides differ by more than 2x).
    """
    quad = np.asarray(quad_xy, np.float64)
    sides = np.linalg.norm(quad - np.roll(quad, -1, axis=0), axis=1)
    if max(sides[0], sides[2]) > 2 * min(sides[0], sides[2]) or max(sides[1], sides[3]) > 2 * min(sides[1], sides[3]):
        return 0.0
    return float(max(sides[0] + sides[2], sides[1] + sides[3]) / 2)


def detector_targets(
    owner_map: np.ndarray, quads_xy: list[np.ndarray] | np.ndarray, stride: int = OUTPUT_STRIDE,
    centre_in_own_part: bool = False, between_edges: bool = False,
) -> DetectorTargets:
    """Build the detector's targets from a full-resolution owner map and each card's quad.

    ``centre_in_own_part`` keeps each card's Gaussian peak inside its own visible part. Without
    it (runs 1-17) a card's peak spills across card edges onto its neighbours: in 60 training
    renders, above 0.16 (where the detector reads peaks) on 28% of the cards, up to 0.5; the
    focal loss forgives what the network puts there, and the commonest missed card is a strip
    on the slope of a neighbour's peak (git history of docs/BENCHMARKS.md, "Which head limits the detector").
    ``between_edges`` adds the ``edge_between`` map.
    """
    owner = sample_at_stride(owner_map, stride)
    out_h, out_w = owner.shape
    # An output pixel is an edge if any input pixel under it is.
    edge = any_at_stride(boundary_map(owner_map), stride)
    foreground = (owner >= 0).astype(np.float32)
    centre = np.zeros((out_h, out_w), np.float32)
    orient = np.zeros((2, out_h, out_w), np.float32)
    log_size = np.zeros((out_h, out_w), np.float32)
    centres: list[tuple[float, float]] = []
    yy, xx = np.mgrid[0:out_h, 0:out_w]
    for card_index in np.unique(owner[owner >= 0]):
        mask = owner == card_index
        ys, xs = np.nonzero(mask)
        y0, y1, x0, x1 = ys.min(), ys.max() + 1, xs.min(), xs.max() + 1
        # Pad by one so the distance transform sees the boundary.
        sub = np.zeros((y1 - y0 + 2, x1 - x0 + 2), bool)
        sub[1:-1, 1:-1] = mask[y0:y1, x0:x1]
        cx, cy, depth = visible_part_centre(sub)
        cx, cy = cx - 1 + x0, cy - 1 + y0
        centres.append((cx, cy))
        sigma = float(np.clip(depth / 2.0, 1.0, 4.0))
        r = int(3 * sigma) + 1
        ya, yb = max(0, int(cy) - r), min(out_h, int(cy) + r + 1)
        xa, xb = max(0, int(cx) - r), min(out_w, int(cx) + r + 1)
        blob = np.exp(-((xx[ya:yb, xa:xb] - cx) ** 2 + (yy[ya:yb, xa:xb] - cy) ** 2) / (2 * sigma**2))
        if centre_in_own_part:
            blob = blob * mask[ya:yb, xa:xb]
        np.maximum(centre[ya:yb, xa:xb], blob.astype(np.float32), out=centre[ya:yb, xa:xb])
        centre[int(round(cy)), int(round(cx))] = 1.0
        theta = long_axis_angle_rad(quads_xy[int(card_index)])
        orient[0][mask] = np.cos(2 * theta)
        orient[1][mask] = np.sin(2 * theta)
        long_side = card_long_side_px(quads_xy[int(card_index)])
        if long_side > 0:
            log_size[mask] = np.log2(max(1.0, long_side / stride))
    return DetectorTargets(
        foreground=foreground,
        edge=edge.astype(np.float32),
        centre=centre,
        orient=orient,
        log_size=log_size,
        centres_xy=np.array(centres, np.float32).reshape(-1, 2),
        edge_between=(any_at_stride(boundary_map(owner_map, cards_only=True), stride).astype(np.float32)
                      if between_edges else None),
    )
