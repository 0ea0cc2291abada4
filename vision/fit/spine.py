"""A row's band from where its cards lie, not from each card's rectangle.

The layout network's card rectangles are a few millimetres off and sometimes turned; a band
built through them cuts cards and tilts their edges. The row as a whole is easier to read: its
cards cover one long region of the foreground map, and the row's spine (a gentle curve down its
middle) and its width across (one card side, changing slowly with perspective) follow from that
region alone. The band is sampled along the spine, its height across the row's width, its
length scaled by the local width so that a card has the same size in the band everywhere.
"""

from __future__ import annotations

from collections.abc import Callable

import cv2
import numpy as np

from ..geometry import CARD_ASPECT
from ..layout.photo import PhotoLayout
from .band import BAND_CARD_LONG_PX, BAND_CARD_SHORT_PX, BAND_END_MARGIN_PX, RowBand, sample_photo

#: A row whose width across is above this share of the card's long side has its cards across
#: it long side first (a portrait band); below, short side first (landscape). Halfway between
#: the card's two sides.
PORTRAIT_WIDTH_SHARE = (1.0 + CARD_ASPECT) / 2
#: Slices of the region at the two ends of the row are left out of the width fit (rounded
#: corners and blur make them narrower).
END_SLICES = 2


def _slices(along: np.ndarray, across: np.ndarray, cell_px: float
            ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per slice of the region along its axis: position, middle across, width across."""
    bins = np.floor((along - along.min()) / cell_px).astype(np.int64)
    positions, middles, widths = [], [], []
    for b in np.unique(bins):
        inside = across[bins == b]
        if len(inside) < 2:
            continue
        lo, hi = inside.min(), inside.max()
        positions.append(along[bins == b].mean())
        middles.append((lo + hi) / 2)
        widths.append(hi - lo + cell_px)
    return np.asarray(positions), np.asarray(middles), np.asarray(widths)


def _side_fit(quads_xy: list[np.ndarray], centre: np.ndarray, axis: np.ndarray,
              normal: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """The direction across the row as the cards' own sides show it (perspective shears the
    cards, so it is not the row's normal): x and y of the unit side as polynomials in the
    position along the row; None without cards."""
    positions, sides = [], []
    for quad in quads_xy:
        quad = np.asarray(quad, np.float64)
        edges = np.roll(quad, -1, axis=0) - quad
        units = edges / (np.linalg.norm(edges, axis=1, keepdims=True) + 1e-9)
        best = int(np.argmax(np.abs(units @ normal)))
        sides.append(units[best] * np.sign(units[best] @ normal))
        positions.append(float((quad.mean(axis=0) - centre) @ axis))
    if not sides:
        return None
    degree = 1 if len(sides) >= 3 else 0
    sides_xy = np.asarray(sides)
    return (np.polyfit(positions, sides_xy[:, 0], degree),
            np.polyfit(positions, sides_xy[:, 1], degree))


def _across_is_long(quads_xy: list[np.ndarray], normal: np.ndarray) -> bool | None:
    """Whether most cards show their long side across the row (None without cards)."""
    votes = []
    for quad in quads_xy:
        quad = np.asarray(quad, np.float64)
        edges = np.roll(quad, -1, axis=0) - quad
        lengths = np.linalg.norm(edges, axis=1)
        across = int(np.argmax(np.abs(edges @ normal) / (lengths + 1e-9)))
        across_len = (lengths[across] + lengths[(across + 2) % 4]) / 2
        along_len = (lengths[(across + 1) % 4] + lengths[(across + 3) % 4]) / 2
        votes.append(across_len >= along_len)
    return None if not votes else bool(np.mean(votes) >= 0.5)


#: The band is first read this many widths tall, to find the row's two long edges in it.
TALL_EXTENT = 1.5
#: Where each long edge is looked for: this range of the width from the middle (the first
#: estimate is within a fifth of a card).
EDGE_SEARCH = (0.3, 0.7)
#: The refined width may differ from the card size by at most this share.
MAX_WIDTH_CHANGE = 0.2


def _long_edges(edge_tall: np.ndarray, position: np.ndarray, card_w: int
                ) -> tuple[np.ndarray, np.ndarray] | None:
    """Where the row's long edges (card against table) run in the edge head's map read as a
    band ``TALL_EXTENT`` widths tall: the middle's offset and the width's scale (fractions of
    the width) as curves in the position along the row, or None where they do not show.
    (The photo's own gradients are no guide: print inside the card is often stronger than a
    white border on a pale table.)"""
    grad = edge_tall
    height = grad.shape[0]
    fraction = ((np.arange(height) + 0.5) / height - 0.5) * TALL_EXTENT
    upper = (fraction >= -EDGE_SEARCH[1]) & (fraction <= -EDGE_SEARCH[0])
    lower = (fraction >= EDGE_SEARCH[0]) & (fraction <= EDGE_SEARCH[1])
    chunk = max(4, card_w // 2)
    at, tops, bottoms = [], [], []
    for c0 in range(0, grad.shape[1] - chunk + 1, chunk):
        profile = grad[:, c0:c0 + chunk].mean(axis=1)
        tops.append(fraction[upper][np.argmax(profile[upper])])
        bottoms.append(fraction[lower][np.argmax(profile[lower])])
        at.append(position[c0 + chunk // 2])
    if len(at) < 2:
        return None
    at_arr, top, bottom = np.asarray(at), np.asarray(tops), np.asarray(bottoms)
    keep = np.ones(len(at_arr), bool)
    for _ in range(2):  # robust curves: drop chunks far from the first fit (a card turned out)
        degree = 2 if keep.sum() >= 6 else 1 if keep.sum() >= 3 else 0
        top_fit = np.polyfit(at_arr[keep], top[keep], degree)
        bottom_fit = np.polyfit(at_arr[keep], bottom[keep], degree)
        residual = (np.abs(np.polyval(top_fit, at_arr) - top)
                    + np.abs(np.polyval(bottom_fit, at_arr) - bottom))
        keep = residual <= max(0.05, float(np.median(residual)) * 2)
    scale_fit = np.polyfit(at_arr[keep], (bottom - top)[keep], 1 if keep.sum() >= 3 else 0)
    if np.any(np.abs(np.polyval(scale_fit, at_arr) - 1.0) > MAX_WIDTH_CHANGE):
        return None
    offset_fit = np.polyadd(top_fit, bottom_fit) / 2
    return offset_fit, scale_fit


def row_band_from_region(image_bgr: np.ndarray, region_xy: np.ndarray, cell_px: float,
                         card_long_px: float, quads_xy: list[np.ndarray] | None = None,
                         edge_at: Callable[[np.ndarray], np.ndarray] | None = None) -> RowBand:
    """The band of a row whose cards cover the photo points ``region_xy`` (N, 2), the centres of
    foreground cells ``cell_px`` photo pixels wide; ``card_long_px`` is the photo's card size.
    ``quads_xy``, the layout's rectangles of the row's cards, give the direction across the row
    (the cards' own sides); without them it is square to the row's spine. ``edge_at`` reads
    the layout network's edge probability at photo points (H, W, 2): with it the band is
    fitted to the row's two long edges."""
    points = np.asarray(region_xy, np.float64)
    centre = points.mean(axis=0)
    axis = np.linalg.svd(points - centre, full_matrices=False)[2][0]
    normal = np.array([-axis[1], axis[0]])
    along, across = (points - centre) @ axis, (points - centre) @ normal
    positions, middles, widths = _slices(along, across, cell_px)
    if len(positions) < 3:
        raise ValueError("a row region needs at least three slices")
    spine = np.polyfit(positions, middles, 2 if len(positions) >= 6 else 1)
    inner = slice(END_SLICES, len(positions) - END_SLICES) if len(positions) > 2 * END_SLICES + 2 else slice(None)
    width_fit = np.polyfit(positions[inner], widths[inner], 1)
    # Whether the cards lie long side across the row: their rectangles say it even where the
    # layout misreads the card's size; without them, the region's width against that size.
    across_is_long = _across_is_long(quads_xy or [], normal)
    if across_is_long is None:
        across_is_long = bool(np.median(widths[inner]) >= PORTRAIT_WIDTH_SHARE * card_long_px)
    landscape = not across_is_long
    # The region's width (one card side, with the perspective's trend) is a little wide: cards
    # of a row stick out, turned a little, and the map is coarse; the row's long edges in the
    # edge head's map correct it below.
    card_w, card_h = ((BAND_CARD_LONG_PX, BAND_CARD_SHORT_PX) if landscape
                      else (BAND_CARD_SHORT_PX, BAND_CARD_LONG_PX))
    s_lo, s_hi = along.min() - cell_px / 2, along.max() + cell_px / 2
    side_fit = _side_fit(quads_xy or [], centre, axis, normal)

    def frame(offset_fit: np.ndarray, scale_fit: np.ndarray) -> tuple[np.ndarray, ...]:
        """Per band column: the row's middle, its width across and the across direction, for
        the band whose middle is moved by ``offset_fit`` and its width scaled by ``scale_fit``
        (fractions of the width, polynomials in the position along the row)."""
        def width_at(position):
            return np.maximum(np.polyval(width_fit, position) * np.polyval(scale_fit, position),
                              cell_px)
        # photo px per band px along the row; the band's x by integrating it
        fine = np.linspace(s_lo, s_hi, max(8, int((s_hi - s_lo) / 2)))
        scale = width_at(fine) / card_h
        band_x = np.concatenate([[0.0], np.cumsum(np.diff(fine) / ((scale[1:] + scale[:-1]) / 2))])
        length = int(np.ceil(band_x[-1])) + 2 * BAND_END_MARGIN_PX
        cols = np.arange(length, dtype=np.float64) + 0.5 - BAND_END_MARGIN_PX
        position = np.interp(cols, band_x, fine)
        # beyond the region's ends, continue at the end's scale
        position = np.where(cols < 0, s_lo + cols * scale[0], position)
        position = np.where(cols > band_x[-1], s_hi + (cols - band_x[-1]) * scale[-1], position)
        slope = np.polyval(np.polyder(spine), position)
        tangent = axis[None, :] + slope[:, None] * normal[None, :]
        side = np.stack([-tangent[:, 1], tangent[:, 0]], axis=1)
        if side_fit is not None:
            side = np.stack([np.polyval(side_fit[0], position),
                             np.polyval(side_fit[1], position)], axis=1)
        side /= np.linalg.norm(side, axis=1, keepdims=True) + 1e-9
        width = width_at(position)
        middle = (centre[None, :] + position[:, None] * axis[None, :]
                  + np.polyval(spine, position)[:, None] * normal[None, :]
                  + (np.polyval(offset_fit, position) * width)[:, None] * side)
        return position, middle, width, side

    def band_map(middle, width, side, height_px, extent):
        rows = ((np.arange(height_px, dtype=np.float64) + 0.5) / height_px - 0.5) * extent
        map_xy = (middle[None] + rows[:, None, None] * width[None, :, None] * side[None])
        return map_xy.astype(np.float32)

    position, middle, width, side = frame(np.zeros(1), np.ones(1))
    if edge_at is not None:
        tall = edge_at(band_map(middle, width, side, int(card_h * TALL_EXTENT), TALL_EXTENT))
        refined = _long_edges(tall, position, card_w)
        if refined is not None:
            position, middle, width, side = frame(*refined)
    map_xy = band_map(middle, width, side, card_h, 1.0)
    band = sample_photo(image_bgr, map_xy, photo_px_per_band_px=float(np.median(width)) / card_h)
    return RowBand(band_bgr=band, map_xy=map_xy, card_wh=(card_w, card_h), landscape=landscape)


#: The group's card rectangles are widened by this share of a card's long side before they
#: select foreground: the rectangles are a few millimetres off, the foreground is not.
REGION_GROW = 0.25
#: Foreground probability that counts as card.
FOREGROUND_LEVEL = 0.5


def group_region(layout: PhotoLayout, card_index: tuple[int, ...]) -> np.ndarray:
    """Photo points (centres of foreground cells) of the row the layout's cards
    ``card_index`` belong to: the foreground near their rectangles, its largest connected part."""
    maps = layout.maps
    to_cells = layout.scale / maps.stride
    near = np.zeros(maps.foreground.shape, np.uint8)
    for i in card_index:
        quad = (np.asarray(layout.cards.quad_xy[i], np.float64) * to_cells).astype(np.int32)
        cv2.fillConvexPoly(near, quad, 1)
    grow = max(1, int(round(REGION_GROW * layout.card_long_px * to_cells)))
    near = cv2.dilate(near, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * grow + 1,) * 2))
    region = ((maps.foreground > FOREGROUND_LEVEL) & (near > 0)).astype(np.uint8)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(region, connectivity=4)
    if n <= 1:
        return np.zeros((0, 2))
    largest = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    ys, xs = np.nonzero(labels == largest)
    return np.stack([(xs + 0.5) / to_cells, (ys + 0.5) / to_cells], axis=1)


#: A foreground part smaller than this share of a card is noise, not a row.
MIN_REGION_CARDS = 0.5


def foreground_regions(layout: PhotoLayout) -> list[tuple[np.ndarray, tuple[int, ...]]]:
    """The photo's separate card regions (connected parts of the foreground map), each as its
    photo points and the layout cards whose centres lie in it. Players leave gaps between their
    sorted rows, so each region is a row (or a pile): a grouping that does not depend on the
    layout's card rectangles meeting one another."""
    maps = layout.maps
    to_cells = layout.scale / maps.stride
    region = (maps.foreground > FOREGROUND_LEVEL).astype(np.uint8)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(region, connectivity=4)
    card_cells = (layout.card_long_px * to_cells) ** 2 * CARD_ASPECT
    centres = np.floor(np.asarray(layout.cards.centre_xy, np.float64) * to_cells).astype(int)
    h, w = labels.shape
    inside = (centres[:, 0] >= 0) & (centres[:, 0] < w) & (centres[:, 1] >= 0) & (centres[:, 1] < h)
    card_label = np.full(len(centres), -1)
    card_label[inside] = labels[centres[inside, 1], centres[inside, 0]]
    out = []
    for label in range(1, n):
        if stats[label, cv2.CC_STAT_AREA] < MIN_REGION_CARDS * card_cells:
            continue
        ys, xs = np.nonzero(labels == label)
        points = np.stack([(xs + 0.5) / to_cells, (ys + 0.5) / to_cells], axis=1)
        out.append((points, tuple(int(i) for i in np.nonzero(card_label == label)[0])))
    return out
