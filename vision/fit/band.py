"""Straighten one row of shingled cards into a band one card high, cards one after another.

A row on the table is rarely straight (hand-laid rows bend, the lens and the camera's tilt
bend them more), so one homography for the whole row misplaces its ends. Each card of the row
brings its own homography from the band's card rectangle to its quadrilateral in the photo;
every band column is mapped through a Gaussian blend of the homographies of the cards near it
(sigma ~ a third of a card), which follows the bend and stays continuous.

The band's x axis runs along the row, from the outer edge of the first card to the outer edge
of the last; its height is the card's side across the row. A row shingled along the card's
short side gives a portrait band (``landscape`` False), along the long side a landscape one.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from ..geometry import CARD_ASPECT, order_quad

#: The card's long side in band pixels: a strip 15% of a card wide is still ~9 px.
BAND_CARD_LONG_PX = 96
#: The card's short side in band pixels.
BAND_CARD_SHORT_PX = int(round(BAND_CARD_LONG_PX * CARD_ASPECT))
#: Table shown before the first card and after the last, band pixels: the ends measured from
#: the cards' outlines are a few pixels off, so the fit finds them itself within this slack.
BAND_END_MARGIN_PX = 4
#: Band rows left out at the top and bottom when edges across the band are read (the row's
#: own long edges run there).
EDGE_TRIM = 1 / 8
#: Width of the Gaussian that blends neighbouring cards' homographies, in card widths.
BLEND_SIGMA_CARDS = 0.35


@dataclass(frozen=True)
class RowBand:
    """A row rectified to a band. ``band_bgr`` (H, L, 3); ``map_xy`` (H, L, 2) float32 gives the
    photo point of every band pixel; ``card_wh`` the card's size in the band; ``landscape`` says
    the card lies with its long side along the band."""

    band_bgr: np.ndarray
    map_xy: np.ndarray
    card_wh: tuple[int, int]
    landscape: bool

    @property
    def length_px(self) -> int:
        """The band's length along the row."""
        return int(self.band_bgr.shape[1])


def quad_along(quad_xy: np.ndarray, axis_xy: np.ndarray) -> np.ndarray:
    """The quad's corners re-ordered so that its first side points along ``axis_xy``.

    The corners stay in their cyclic order (no mirroring); the result is "top-left, top-right,
    bottom-right, bottom-left" of the card as the band will see it."""
    quad = order_quad(quad_xy)
    axis = np.asarray(axis_xy, np.float64)
    best = max(range(4), key=lambda k: float(np.dot(quad[(k + 1) % 4] - quad[k], axis))
               / (np.linalg.norm(quad[(k + 1) % 4] - quad[k]) + 1e-9))
    return np.roll(quad, -best, axis=0).astype(np.float32)


def _row_axis(quads: list[np.ndarray]) -> np.ndarray:
    centres = np.array([q.mean(axis=0) for q in quads], np.float64)
    if len(quads) >= 2:
        axis = centres[-1] - centres[0]
    else:  # a lone card: along its shorter side
        quad = order_quad(quads[0])
        side_a, side_b = quad[1] - quad[0], quad[2] - quad[1]
        axis = side_a if np.linalg.norm(side_a) <= np.linalg.norm(side_b) else side_b
    return axis / (np.linalg.norm(axis) + 1e-9)


def sample_photo(image_bgr: np.ndarray, map_xy: np.ndarray, photo_px_per_band_px: float) -> np.ndarray:
    """Bilinear sampling of the photo at ``map_xy``, blurred first where the band shrinks the
    photo (plain bilinear sampling would alias fine print); only the row's box is blurred."""
    height, width = image_bgr.shape[:2]
    x0, y0 = np.floor(map_xy.reshape(-1, 2).min(axis=0)).astype(int) - 4
    x1, y1 = np.ceil(map_xy.reshape(-1, 2).max(axis=0)).astype(int) + 4
    x0, y0, x1, y1 = max(0, x0), max(0, y0), min(width, x1), min(height, y1)
    if x1 <= x0 or y1 <= y0:
        return np.zeros((*map_xy.shape[:2], 3), np.uint8)
    box = image_bgr[y0:y1, x0:x1]
    if photo_px_per_band_px > 1.5:
        box = cv2.GaussianBlur(box, (0, 0), 0.45 * photo_px_per_band_px)
    local_xy = (map_xy - np.array([x0, y0], np.float32)).astype(np.float32)
    return cv2.remap(box, local_xy, None, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def row_band(image_bgr: np.ndarray, quads_xy: list[np.ndarray]) -> RowBand:
    """Rectify the row whose cards lie at ``quads_xy`` (in order along the row) into a band.

    The quads give the row's geometry only; the fit decides how many cards the band holds.
    """
    if not quads_xy:
        raise ValueError("a row needs at least one card")
    axis = _row_axis(quads_xy)
    quads = [quad_along(q, axis) for q in quads_xy]
    along = np.mean([np.linalg.norm(q[1] - q[0]) for q in quads])
    across = np.mean([np.linalg.norm(q[3] - q[0]) for q in quads])
    landscape = bool(along > across)
    card_w, card_h = ((BAND_CARD_LONG_PX, BAND_CARD_SHORT_PX) if landscape
                      else (BAND_CARD_SHORT_PX, BAND_CARD_LONG_PX))
    rect = np.array([[0, 0], [card_w, 0], [card_w, card_h], [0, card_h]], np.float32)
    homographies = [cv2.getPerspectiveTransform(rect, q) for q in quads]
    # Each card's start along the band: the next card's top-left corner read in this card's frame.
    starts = [0.0]
    for k in range(1, len(quads)):
        inverse = np.linalg.inv(homographies[k - 1])
        point = inverse @ np.array([quads[k][0, 0], quads[k][0, 1], 1.0])
        starts.append(starts[-1] + max(1.0, float(point[0] / point[2])))
    starts = [start + BAND_END_MARGIN_PX for start in starts]
    length = int(np.ceil(starts[-1] + card_w)) + BAND_END_MARGIN_PX
    cols = np.arange(length, dtype=np.float64) + 0.5
    rows = np.arange(card_h, dtype=np.float64) + 0.5
    centres = np.asarray(starts) + card_w / 2
    weights = np.exp(-0.5 * ((cols[None, :] - centres[:, None])
                             / (BLEND_SIGMA_CARDS * card_w)) ** 2)  # (K, L)
    weights /= weights.sum(axis=0, keepdims=True) + 1e-12
    map_xy = np.zeros((card_h, length, 2), np.float64)
    for k, (homography, start) in enumerate(zip(homographies, starts, strict=True)):
        active = weights[k] > 1e-4
        if not active.any():
            continue
        local_x = cols[active][None, :] - start
        points = np.stack([np.broadcast_to(local_x, (card_h, local_x.shape[1])),
                           np.broadcast_to(rows[:, None], (card_h, local_x.shape[1])),
                           np.ones((card_h, local_x.shape[1]))], axis=-1)
        mapped = points @ homography.T
        mapped = mapped[..., :2] / mapped[..., 2:3]
        map_xy[:, active] += weights[k][active][None, :, None] * mapped
    map_xy = map_xy.astype(np.float32)
    band = sample_photo(image_bgr, map_xy, photo_px_per_band_px=across / card_h)
    return RowBand(band_bgr=band, map_xy=map_xy, card_wh=(card_w, card_h), landscape=landscape)


def crop_band(band: RowBand, start_px: int, stop_px: int) -> RowBand:
    """The band's columns from ``start_px`` to ``stop_px`` (clipped to the band), with its map."""
    start, stop = max(0, start_px), min(band.length_px, stop_px)
    return RowBand(band_bgr=np.ascontiguousarray(band.band_bgr[:, start:stop]),
                   map_xy=np.ascontiguousarray(band.map_xy[:, start:stop]),
                   card_wh=band.card_wh, landscape=band.landscape)


def turned_band(band: RowBand, image_bgr: np.ndarray) -> RowBand:
    """The same stretch of the row read with the card turned a quarter: the band's height
    (the row's width across) taken as the card's other side, so that its length scales by
    the card's aspect; sampled again from the photo."""
    card_w, card_h = band.card_wh
    length = max(1, int(round(band.length_px * card_w / card_h)))
    map_xy = cv2.resize(band.map_xy, (length, card_w), interpolation=cv2.INTER_LINEAR)
    across_px = float(np.median(np.linalg.norm(band.map_xy[-1] - band.map_xy[0], axis=-1)))
    return RowBand(band_bgr=sample_photo(image_bgr, map_xy, across_px / card_w), map_xy=map_xy,
                   card_wh=(card_h, card_w), landscape=not band.landscape)


def stretch_band(band: RowBand, factor: float) -> RowBand:
    """The band resampled along the row by ``factor`` (> 1 lengthens it), with its map."""
    length = max(1, int(round(band.length_px * factor)))
    height = band.band_bgr.shape[0]
    return RowBand(band_bgr=cv2.resize(band.band_bgr, (length, height), interpolation=cv2.INTER_LINEAR),
                   map_xy=cv2.resize(band.map_xy, (length, height), interpolation=cv2.INTER_LINEAR),
                   card_wh=band.card_wh, landscape=band.landscape)
