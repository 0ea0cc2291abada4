"""Cards from the layout network's maps: centre votes, one card size for the photo, rectangles.

Every foreground cell votes for its card's centre (the network's offset head) and turn up to a
quarter turn (its card-direction head). A card is a peak of vote mass, however many visible pieces voted for it;
a cell belongs to the card whose peak its vote lands nearest. All cards of a photo share one
size (the congruence prior): the size is read once from the size head over the whole foreground, never from the size of blobs, and each
card becomes a card-size rectangle at its peak, turned as its cells say, its long axis where
its cells reach farther.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from ..geometry import CARD_LONG_OVER_SHORT as LONG_OVER_SHORT
from .maps import LayoutMaps

FOREGROUND_MIN = 0.5


@dataclass(frozen=True)
class DecodeSettings:
    """How votes become cards. The defaults are chosen on the validation split of
    benchmarks/layout_bench.py (never on its test split)."""

    #: A card needs this share of a whole card's area in vote mass (a 12 px strip of a 140 px
    #: card is ~13% of its area; a fifth of the votes may land off the peak).
    min_mass_fraction: float = 0.05
    #: Peaks closer than this (cells) are one card: shingled cards' centres lie 15% of a
    #: card's short side apart at the least, 3.4 cells for a 140 px card.
    min_peak_separation_cells: float = 1.5
    #: Vote mass is summed over a (2r+1)^2 window around each candidate peak.
    mass_radius_cells: int = 1
    #: Votes are smoothed with this Gaussian (cells) before peaks are looked for (1.5 suits
    #: layout run a's votes; a perfect network's are sharp at 0.8).
    peak_sigma_cells: float = 1.5
    #: Card turns (mod 90 degrees) are binned this finely (22: 4 degrees, below a fan's 6-18
    #: degree step between cards); 1 ignores the turn, as long as the network's card-direction
    #: head is not sure enough (layout run a: F1 0.74 without the turn, 0.72 with 22 bins).
    turn_bins: int = 1
    #: Peaks within this many turn bins (and min_peak_separation_cells) are one card.
    same_turn_bins: int = 0
    #: A cell goes to a peak within this many turn bins of its own turn.
    assign_turn_bins: int = 0


#: For votes and turns as sharp as a perfect network's (the maps the renderer's labels give).
SHARP_VOTES = DecodeSettings(peak_sigma_cells=0.8, turn_bins=22, same_turn_bins=1,
                             assign_turn_bins=2)


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


def read_cards(maps: LayoutMaps, long_cells: float | None = None,
               settings: DecodeSettings = DecodeSettings()) -> LayoutCards:  # noqa: B008
    """The cards in ``maps``; ``long_cells`` overrides the card size read from the maps.

    Votes go into (turn, y, x) bins: the cards of a fan share nearly one centre and differ by
    their turn, the cards of a shingled row share their turn and lie apart.
    """
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
    quarter = np.pi / 2
    turn = (0.25 * np.arctan2(maps.card_orient[1, ys, xs], maps.card_orient[0, ys, xs])) % quarter
    bins = settings.turn_bins
    turn_bin = (turn / quarter * bins).astype(int) % bins
    # the vote map reaches half a card beyond the image: a card cut by the image's edge has
    # its centre outside
    pad = int(np.ceil(0.5 * long_cells)) + 1
    vh, vw = h + 2 * pad, w + 2 * pad
    vx, vy = np.floor(vote_x).astype(int) + pad, np.floor(vote_y).astype(int) + pad
    inside = (vx >= 0) & (vx < vw) & (vy >= 0) & (vy < vh)
    used_bins = np.unique(turn_bin[inside])
    votes = np.zeros((bins, vh, vw), np.float32)
    np.add.at(votes, (turn_bin[inside], vy[inside], vx[inside]), weight[inside])
    k = 2 * settings.mass_radius_cells + 1
    box = np.zeros_like(votes)
    smooth = np.zeros_like(votes)
    for b in used_bins:
        box[b] = cv2.boxFilter(votes[b], -1, (k, k), normalize=False,
                               borderType=cv2.BORDER_CONSTANT)
        # peaks are found on a smooth map (a box sum has flat tops), their mass read from the
        # box sums of the bin and its two neighbours
        smooth[b] = cv2.GaussianBlur(votes[b], (0, 0), settings.peak_sigma_cells,
                                     borderType=cv2.BORDER_CONSTANT)
    mass = box + np.roll(box, 1, axis=0) + np.roll(box, -1, axis=0) if bins > 2 else box
    card_area = long_cells * long_cells / LONG_OVER_SHORT
    peaks = _peaks(smooth, mass, used_bins, settings.min_mass_fraction * card_area, settings)
    if len(peaks) == 0:
        return empty
    peak_xy = peaks[:, 1:3] + 0.5 - pad
    cell_peak = _assign_cells(peaks, turn_bin, vx, vy, inside, (vh, vw),
                              0.5 * long_cells / LONG_OVER_SHORT, settings)
    cell_card = np.full((h, w), -1, np.int32)
    owned = cell_peak >= 0
    cell_card[ys[owned], xs[owned]] = cell_peak[owned]
    quads, scores = [], []
    for index, (cx, cy) in enumerate(peak_xy):
        mine = cell_peak == index
        scores.append(float(weight[mine].mean()) if mine.any() else 0.0)
        c4 = maps.card_orient[0, ys[mine], xs[mine]].sum() if mine.any() else 1.0
        s4 = maps.card_orient[1, ys[mine], xs[mine]].sum() if mine.any() else 0.0
        side = 0.25 * float(np.arctan2(s4, c4))
        quads.append(_card_rectangle(cx, cy, side, xs[mine] + 0.5, ys[mine] + 0.5, long_cells))
    quad_xy = np.asarray(quads, np.float32) * stride
    return LayoutCards(quad_xy, (peak_xy * stride).astype(np.float32),
                       peaks[:, 3].astype(np.float32), np.asarray(scores, np.float32),
                       cell_card, long_cells * stride)


def _peaks(smooth: np.ndarray, mass: np.ndarray, used_bins: np.ndarray, min_mass: float,
           settings: DecodeSettings) -> np.ndarray:
    """(n, 4) rows of (turn bin, x, y, mass): local maxima of ``smooth`` over (turn, y, x)
    whose ``mass`` reaches ``min_mass``, strongest first; a weaker peak within
    ``min_peak_separation_cells`` and ``same_turn_bins`` of a stronger one is the same card."""
    kernel = np.ones((3, 3), np.uint8)
    dilated = np.zeros_like(smooth)
    for b in used_bins:
        dilated[b] = cv2.dilate(smooth[b], kernel)
    if len(smooth) > 2:
        dilated = np.maximum(dilated, np.maximum(np.roll(dilated, 1, axis=0),
                                                 np.roll(dilated, -1, axis=0)))
    bs, ys, xs = np.nonzero((smooth >= dilated) & (mass >= min_mass) & (smooth > 0))
    if len(bs) == 0:
        return np.zeros((0, 4), np.float64)
    values = mass[bs, ys, xs]
    order = np.argsort(-values, kind="stable")
    kept: list[tuple[int, float, float, float]] = []
    for i in order:
        b, x, y = int(bs[i]), float(xs[i]), float(ys[i])
        if all((x - kx) ** 2 + (y - ky) ** 2 >= settings.min_peak_separation_cells ** 2
               or _turn_gap(b, kb, len(smooth)) > settings.same_turn_bins
               for kb, kx, ky, _ in kept):
            kept.append((b, x, y, float(values[i])))
    return np.asarray(kept, np.float64)


def _turn_gap(a: int, b: int, bins: int) -> int:
    d = abs(a - b) % bins
    return min(d, bins - d)


def _assign_cells(peaks: np.ndarray, turn_bin: np.ndarray, vx: np.ndarray, vy: np.ndarray,
                  inside: np.ndarray, shape_hw: tuple[int, int], reach: float,
                  settings: DecodeSettings) -> np.ndarray:
    """Per voting cell, the peak its vote lands nearest among the peaks of about its turn
    (within ``reach`` cells), or -1."""
    out = np.full(len(turn_bin), -1, np.int64)
    peak_bins = peaks[:, 0].astype(int)
    peak_xy = peaks[:, 1:3].astype(int)
    for b in np.unique(turn_bin[inside]):
        near = np.nonzero([_turn_gap(b, pb, settings.turn_bins) <= settings.assign_turn_bins
                           for pb in peak_bins])[0]
        mine = inside & (turn_bin == b)
        if len(near) == 0:
            continue
        nearest, distance = _nearest_peak(peak_xy[near], shape_hw)
        idx = np.nonzero(mine)[0]
        ok = distance[vy[idx], vx[idx]] <= reach
        out[idx[ok]] = near[nearest[vy[idx[ok]], vx[idx[ok]]]]
    return out


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


def _card_rectangle(cx: float, cy: float, side: float, px: np.ndarray, py: np.ndarray,
                    long_cells: float) -> np.ndarray:
    """The card-size rectangle (4, 2) in cells centred at (cx, cy) with a side at ``side``
    (radians, known up to a quarter turn); the long axis is the one along which the card's
    own cells (``px``, ``py``) reach farther from the centre. Corners go round from the end of
    a long side, so the first side is a long one."""
    u = np.array([np.cos(side), np.sin(side)])
    v = np.array([-u[1], u[0]])
    if len(px):
        rel = np.stack([px - cx, py - cy], axis=1)
        if np.abs(rel @ v).max() > np.abs(rel @ u).max():
            u, v = v, -u
    half_long, half_short = 0.5 * long_cells, 0.5 * long_cells / LONG_OVER_SHORT
    c = np.array([cx, cy])
    return np.stack([c - half_short * v - half_long * u, c - half_short * v + half_long * u,
                     c + half_short * v + half_long * u, c + half_short * v - half_long * u])
