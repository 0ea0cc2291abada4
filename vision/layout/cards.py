"""Cards from the layout network's maps: centre votes, one card size for the photo, rectangles.

Every foreground cell votes for its card's centre (the network's offset head). A card is a peak
of vote mass, however many visible pieces voted for it; a cell belongs to the card whose peak
its vote lands nearest. All cards of a photo share one size (the congruence prior): the size is
read once from the size head over the whole foreground, never from the size of blobs, and each
card becomes a card-size rectangle at its peak, turned as the edges around it run.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from .maps import LayoutMaps

#: Playing and Ligretto cards: long side / short side (88x57 to 91x59 mm).
CARD_ASPECT = 1.54
FOREGROUND_MIN = 0.5
#: A card needs this share of a whole card's area in vote mass (a 12 px strip of a 140 px card
#: is ~13% of its area; a fifth of the votes may land off the peak).
MIN_MASS_FRACTION = 0.05
#: Peaks closer than this (cells) are one card: shingled cards' centres lie 15% of a card's
#: short side apart at the least, 3.4 cells for a 140 px card.
MIN_PEAK_SEPARATION_CELLS = 1.5
#: Vote mass is summed over a (2r+1)^2 window around each candidate peak.
MASS_RADIUS_CELLS = 1
#: Votes are smoothed with this Gaussian (cells) before peaks are looked for.
PEAK_SIGMA_CELLS = 0.8


@dataclass(frozen=True)
class LayoutCards:
    """Cards read from one image's layout maps; coordinates in that image's pixels.

    ``quad_xy`` (n, 4, 2) the card-size rectangle of each card, ``centre_xy`` (n, 2) its centre,
    ``mass`` (n,) the vote mass behind it (cells), ``score`` (n,) the mean foreground probability
    of its cells, ``cell_card`` (h, w) which card each map cell belongs to (-1: none),
    ``card_long_px`` the photo's card long side.
    """

    quad_xy: np.ndarray
    centre_xy: np.ndarray
    mass: np.ndarray
    score: np.ndarray
    cell_card: np.ndarray
    card_long_px: float

    def __post_init__(self) -> None:
        n = len(self.centre_xy)
        for name, arr, shape in (("quad_xy", self.quad_xy, (n, 4, 2)),
                                 ("centre_xy", self.centre_xy, (n, 2)),
                                 ("mass", self.mass, (n,)), ("score", self.score, (n,))):
            if arr.shape != shape:
                raise ValueError(f"{name} must have shape {shape}, got {arr.shape}")

    def __len__(self) -> int:
        return len(self.centre_xy)


def card_long_cells(maps: LayoutMaps) -> float:
    """The photo's card long side in map cells: the median of the size head over confident
    foreground (0.0 when nothing is foreground)."""
    sure = maps.foreground > 0.8
    if sure.sum() < 4:
        sure = maps.foreground > FOREGROUND_MIN
    if not sure.any():
        return 0.0
    return float(np.median(maps.card_long_cells[sure]))


def read_cards(maps: LayoutMaps, long_cells: float | None = None) -> LayoutCards:
    """The cards in ``maps``; ``long_cells`` overrides the card size read from the maps."""
    stride = maps.stride
    h, w = maps.foreground.shape
    long_cells = card_long_cells(maps) if long_cells is None else long_cells
    empty = LayoutCards(np.zeros((0, 4, 2), np.float32), np.zeros((0, 2), np.float32),
                        np.zeros(0, np.float32), np.zeros(0, np.float32),
                        np.full((h, w), -1, np.int32), long_cells * stride)
    fg = maps.foreground > FOREGROUND_MIN
    if long_cells <= 0 or not fg.any():
        return empty
    ys, xs = np.nonzero(fg)
    vote_x = xs + 0.5 + maps.offset_xy[0, ys, xs]
    vote_y = ys + 0.5 + maps.offset_xy[1, ys, xs]
    weight = maps.foreground[ys, xs]
    # the vote map reaches half a card beyond the image: a card cut by the image's edge has
    # its centre outside
    pad = int(np.ceil(0.5 * long_cells)) + 1
    vh, vw = h + 2 * pad, w + 2 * pad
    votes = np.zeros((vh, vw), np.float32)
    vx, vy = np.floor(vote_x).astype(int) + pad, np.floor(vote_y).astype(int) + pad
    inside = (vx >= 0) & (vx < vw) & (vy >= 0) & (vy < vh)
    np.add.at(votes, (vy[inside], vx[inside]), weight[inside])
    k = 2 * MASS_RADIUS_CELLS + 1
    mass = cv2.boxFilter(votes, -1, (k, k), normalize=False, borderType=cv2.BORDER_CONSTANT)
    # peaks are found on a smooth map (a box sum has flat tops), their mass read from the box sum
    smooth = cv2.GaussianBlur(votes, (0, 0), PEAK_SIGMA_CELLS, borderType=cv2.BORDER_CONSTANT)
    card_area = long_cells * long_cells / CARD_ASPECT
    min_mass = MIN_MASS_FRACTION * card_area
    peaks = _peaks(smooth, mass, min_mass, MIN_PEAK_SEPARATION_CELLS)
    if len(peaks) == 0:
        return empty
    peak_xy = peaks[:, :2] + 0.5 - pad
    # each voting cell goes to the peak its vote lands nearest (the peaks' Voronoi cells, from
    # a distance transform), if within half a short side
    nearest, distance = _nearest_peak(peaks[:, :2].astype(int), (vh, vw))
    vx_c, vy_c = np.clip(vx, 0, vw - 1), np.clip(vy, 0, vh - 1)
    nearest = nearest[vy_c, vx_c]
    owned = inside & (distance[vy_c, vx_c] <= 0.5 * long_cells / CARD_ASPECT)
    cell_card = np.full((h, w), -1, np.int32)
    cell_card[ys[owned], xs[owned]] = nearest[owned]
    quads, scores = [], []
    for index, (cx, cy) in enumerate(peak_xy):
        mine = owned & (nearest == index)
        px, py = xs[mine] + 0.5, ys[mine] + 0.5
        scores.append(float(weight[mine].mean()) if mine.any() else 0.0)
        quads.append(_card_rectangle(maps, cx, cy, px, py, long_cells))
    quad_xy = np.asarray(quads, np.float32) * stride
    return LayoutCards(quad_xy, (peak_xy * stride).astype(np.float32),
                       peaks[:, 2].astype(np.float32), np.asarray(scores, np.float32),
                       cell_card, long_cells * stride)


def _nearest_peak(peaks_xy: np.ndarray, shape_hw: tuple[int, int]
                  ) -> tuple[np.ndarray, np.ndarray]:
    """Per cell, the index of the nearest peak and the distance to it (cells)."""
    free = np.ones(shape_hw, np.uint8)
    free[peaks_xy[:, 1], peaks_xy[:, 0]] = 0
    distance, labels = cv2.distanceTransformWithLabels(
        free, cv2.DIST_L2, 5, labelType=cv2.DIST_LABEL_PIXEL)
    label_to_peak = np.zeros(int(labels.max()) + 1, np.int64)
    label_to_peak[labels[peaks_xy[:, 1], peaks_xy[:, 0]]] = np.arange(len(peaks_xy))
    return label_to_peak[labels], distance


def _peaks(smooth: np.ndarray, mass: np.ndarray, min_mass: float, min_separation: float
           ) -> np.ndarray:
    """(n, 3) rows of (x, y, mass) of the local maxima of ``smooth`` whose ``mass`` reaches
    ``min_mass``, strongest first, none closer than ``min_separation`` to a stronger one."""
    dilated = cv2.dilate(smooth, np.ones((3, 3), np.uint8))
    ys, xs = np.nonzero((smooth >= dilated) & (mass >= min_mass) & (smooth > 0))
    if len(ys) == 0:
        return np.zeros((0, 3), np.float64)
    values = mass[ys, xs]
    order = np.argsort(-values, kind="stable")
    kept: list[tuple[float, float, float]] = []
    for i in order:
        x, y = float(xs[i]), float(ys[i])
        if all((x - kx) ** 2 + (y - ky) ** 2 >= min_separation ** 2 for kx, ky, _ in kept):
            kept.append((x, y, float(values[i])))
    return np.asarray(kept, np.float64)


def _card_rectangle(maps: LayoutMaps, cx: float, cy: float, px: np.ndarray, py: np.ndarray,
                    long_cells: float) -> np.ndarray:
    """The card-size rectangle (4, 2) in cells at (cx, cy), turned as its cells' edges run.

    The edges give the rectangle's direction up to a quarter turn (the doubled-angle head, read
    as a quadrupled angle so that long and short sides agree); the long axis is the one along
    which the card's cells reach farther from the centre.
    """
    if len(px) == 0:
        theta = 0.0
    else:
        ix, iy = px.astype(int), py.astype(int)
        c2, s2 = maps.edge_orient[0, iy, ix], maps.edge_orient[1, iy, ix]
        e = maps.edge[iy, ix]
        c4, s4 = (e * (c2 * c2 - s2 * s2)).sum(), (e * 2 * c2 * s2).sum()
        theta = 0.25 * float(np.arctan2(s4, c4))
    u = np.array([np.cos(theta), np.sin(theta)])
    v = np.array([-u[1], u[0]])
    if len(px):
        rel = np.stack([px - cx, py - cy], axis=1)
        if np.abs(rel @ v).max() > np.abs(rel @ u).max():
            u, v = v, -u
    half_long, half_short = 0.5 * long_cells, 0.5 * long_cells / CARD_ASPECT
    c = np.array([cx, cy])
    return np.stack([c - half_short * v - half_long * u, c - half_short * v + half_long * u,
                     c + half_short * v + half_long * u, c + half_short * v - half_long * u])
