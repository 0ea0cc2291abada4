"""Clean-up of the watershed regions: merge regions of one card, so each region is one card.

The centre head may put two peaks on one card (a long strip, a card cut by a hand, a ring or a
pip printed on the card). Two rules merge such pieces:

- the edge head is the better judge: two regions that meet where the network sees no physical
  card edge belong to the same card (``merge_regions``);
- a region enclosed on every side by one other region is a printed motif, not a card: all
  cards of a game are the same size, so a card cannot show itself entirely inside the visible
  part of another, unless it covers nearly all of it (``absorb_enclosed_regions``).
"""

from __future__ import annotations

import cv2
import numpy as np

from .geometry import CARD_LONG_MM, CARD_SHORT_MM

_SHIFTS = ((-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1))


def boundary_edge_strength(markers: np.ndarray, edge: np.ndarray) -> dict[tuple[int, int], tuple[float, int]]:
    """Mean edge probability and length of the boundary between each pair of touching regions.

    ``markers`` is cv2.watershed's output: -1 on boundaries, 1 table, >= 2 regions.
    """
    height, width = markers.shape
    padded = np.pad(markers, 1, constant_values=-1)
    ys, xs = np.nonzero(markers == -1)
    if len(ys) == 0:
        return {}
    neighbours = np.stack([padded[ys + 1 + dy, xs + 1 + dx] for dy, dx in _SHIFTS])
    valid = neighbours >= 2
    big = np.iinfo(np.int32).max
    low = np.where(valid, neighbours, big).min(axis=0)
    high = np.where(valid, neighbours, -1).max(axis=0)
    between = (low != big) & (low < high)
    if not between.any():
        return {}
    low, high = low[between].astype(np.int64), high[between].astype(np.int64)
    strength = edge[ys[between], xs[between]]
    keys = low * (int(markers.max()) + 1) + high
    unique, inverse = np.unique(keys, return_inverse=True)
    sums = np.bincount(inverse, weights=strength)
    counts = np.bincount(inverse)
    stride = int(markers.max()) + 1
    return {
        (int(key // stride), int(key % stride)): (float(total / n), int(n))
        for key, total, n in zip(unique, sums, counts, strict=True)
    }


def merge_regions(
    markers: np.ndarray, edge: np.ndarray, edge_threshold: float, min_boundary_px: int = 2
) -> np.ndarray:
    """``markers`` with touching regions merged where their boundary shows no card edge.

    Merged regions take the smallest label of the group; their boundary pixels join them.
    """
    parent = np.arange(int(markers.max()) + 1)

    def root(label: int) -> int:
        while parent[label] != label:
            parent[label] = parent[parent[label]]
            label = int(parent[label])
        return label

    for (a, b), (mean_edge, length) in boundary_edge_strength(markers, edge).items():
        if mean_edge < edge_threshold and length >= min_boundary_px:
            ra, rb = root(a), root(b)
            if ra != rb:
                parent[max(ra, rb)] = min(ra, rb)
    lookup = np.array([root(k) for k in range(len(parent))])
    merged = markers.copy()
    inside = merged >= 2
    merged[inside] = lookup[merged[inside]]
    return merged


def region_neighbours(markers: np.ndarray) -> dict[int, set[int]]:
    """For each region (label >= 2), the labels across its boundary: regions, 1 for the
    table and 0 for the edge of the image."""
    padded = np.pad(markers, 1, constant_values=0)
    ys, xs = np.nonzero(padded == -1)
    if len(ys) == 0:
        return {}
    around = np.stack([padded[ys + dy, xs + dx] for dy, dx in _SHIFTS])
    # cv2.watershed frames the image with boundary pixels; the padding outside them reads 0.
    # Every (region, other label) pair seen around one boundary pixel; boundary pixels
    # (-1) are no neighbours.
    firsts, seconds = [], []
    for i in range(len(_SHIFTS)):
        for j in range(len(_SHIFTS)):
            ok = (around[i] >= 2) & (around[j] != -1) & (around[j] != around[i])
            firsts.append(around[i][ok])
            seconds.append(around[j][ok])
    first = np.concatenate(firsts).astype(np.int64)
    second = np.concatenate(seconds).astype(np.int64)
    stride = int(markers.max()) + 2
    pairs = np.unique(first * stride + second)
    neighbours: dict[int, set[int]] = {}
    for region, other in zip((pairs // stride).tolist(), (pairs % stride).tolist(), strict=True):
        neighbours.setdefault(region, set()).add(other)
    return neighbours


def absorb_enclosed_regions(markers: np.ndarray, log_size: np.ndarray,
                            max_card_fraction: float) -> np.ndarray:
    """``markers`` with every region that only one other region surrounds merged into it.

    Only regions smaller than ``max_card_fraction`` of the surrounding card's area are
    absorbed (the size head's ``log_size``, log2 of the card's long side in these pixels, gives
    that area): a card lying on another fully inside its visible part would have to be
    smaller than it. The ring of boundary pixels between the two joins the surrounding region.
    """
    if max_card_fraction <= 0:
        return markers
    merged = markers.copy()
    neighbours = region_neighbours(markers)
    # Smallest first, so nested motifs (a pip inside a ring inside a card) fold outwards.
    sizes = np.bincount(np.maximum(markers, 0).ravel())
    for label in sorted(neighbours, key=lambda k: sizes[k]):
        around = neighbours[label]
        if len(around) != 1 or min(around) < 2:
            continue
        (outer,) = around
        outer_mask = merged == outer
        if not outer_mask.any():
            continue
        card_long = 2.0 ** float(np.median(log_size[outer_mask]))
        card_area = card_long * card_long * CARD_SHORT_MM / CARD_LONG_MM
        inner_mask = merged == label
        if inner_mask.sum() >= max_card_fraction * card_area:
            continue
        ring = cv2.dilate(inner_mask.astype(np.uint8), np.ones((3, 3), np.uint8)).astype(bool)
        merged[ring & (merged == -1)] = outer
        merged[inner_mask] = outer
        # The surrounding region may itself be enclosed: its neighbours are unchanged.
        for other in neighbours.values():
            if label in other:
                other.discard(label)
                other.add(outer)
        neighbours[outer].discard(label)
    return merged


def merge_split_lone_cards(
    markers: np.ndarray, log_size: np.ndarray, size_tolerance: float,
    min_fill: float = 0.88, aspect_range: tuple[float, float] = (0.55, 0.92), gap_px: int = 2,
    edge: np.ndarray | None = None, max_boundary_edge: float = 1.0,
) -> np.ndarray:
    """``markers`` with every lone card that the heads cut in pieces made whole again.

    A printed band, a white text panel or a pip row across a back can leave one card as two or
    three regions, touching or a few pixels apart. Where such a group lies apart from every
    other region (a card lying alone: spread layouts and calibration photos), fills its convex
    hull, has a card's proportions (a tilted camera makes cards trapezoids: ``aspect_range``)
    and a card's length, it is one card. The length expected at each place is the size head's
    reading (``log_size``, log2 of the card's long side in these pixels) scaled by how the size
    head reads the photo's lone whole-looking cards; without any such card nothing is merged.
    A group touching other regions (rows, fans, piles) is never merged: there two strips
    can add up to a card.
    A lone whole card with a sliver of the card beneath it, or a small shingled stack, can
    still pass for one card; but there the pieces meet along a physical card edge, which the
    edge head marks: with ``edge`` given, a group whose pieces' shared boundary has a mean
    edge probability above ``max_boundary_edge`` is left as it is.
    """
    if size_tolerance <= 0:
        return markers
    regions = (markers >= 2).astype(np.uint8)
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * gap_px + 1, 2 * gap_px + 1))
    # Pieces a watershed line or a thin strip of "table" apart belong to one group.
    _, group_of, group_stats, _ = cv2.connectedComponentsWithStats(
        cv2.morphologyEx(regions, cv2.MORPH_CLOSE, kernel), connectivity=8
    )
    on_region = markers >= 2
    stride = int(markers.max()) + 1
    pairs = np.unique(group_of[on_region].astype(np.int64) * stride + markers[on_region])
    members_of: dict[int, list[int]] = {}
    for group, label in zip(*(part.tolist() for part in np.divmod(pairs, stride)), strict=True):
        members_of.setdefault(group, []).append(label)

    def group_pixels(group: int) -> tuple[np.ndarray, np.ndarray]:
        x0, y0, box_w, box_h = group_stats[group, :4]
        ys, xs = np.nonzero(group_of[y0 : y0 + box_h, x0 : x0 + box_w] == group)
        return ys + y0, xs + x0

    def card_like(group: int) -> tuple[float, float] | None:
        """(long side, size head's length) of a card-like group, or None."""
        ys, xs = group_pixels(group)
        points = np.stack([xs, ys], axis=1).astype(np.float32)
        hull = cv2.convexHull(points)
        # The hull runs through pixel centres: half a pixel more all round.
        hull_area = cv2.contourArea(hull) + 0.5 * cv2.arcLength(hull, True) + 1.0
        (_, _), (rect_w, rect_h), _ = cv2.minAreaRect(points)
        long_px, short_px = max(rect_w, rect_h) + 1.0, min(rect_w, rect_h) + 1.0
        proportioned = aspect_range[0] <= short_px / long_px <= aspect_range[1]
        if len(xs) < min_fill * hull_area or not proportioned:
            return None
        return long_px, float(2.0 ** np.median(log_size[ys, xs]))

    # How the size head reads this photo: its length over the measured length of whole cards.
    readings = [
        shape
        for group, members in members_of.items()
        if len(members) == 1 and (shape := card_like(group)) is not None
    ]
    if not readings:
        return markers
    head_over_true = float(np.median([head / long_px for long_px, head in readings]))
    merged = markers.copy()
    for group, members in members_of.items():
        if len(members) < 2:
            continue
        shape = card_like(group)
        if shape is None or abs(shape[0] * head_over_true / shape[1] - 1.0) > size_tolerance:
            continue
        pixels = group_pixels(group)
        if edge is not None and _boundary_edge(markers, pixels, members, edge, gap_px) > max_boundary_edge:
            continue
        merged[pixels] = min(members)
    return merged


def _boundary_edge(markers: np.ndarray, pixels: tuple[np.ndarray, np.ndarray],
                   members: list[int], edge: np.ndarray, gap_px: int) -> float:
    """Mean edge probability where a group's pieces meet: the pixels of the group (``pixels``,
    its closed mask) in none of its pieces but within ``gap_px`` + 1 of two or more of them."""
    ys, xs = pixels
    y0, x0 = int(ys.min()), int(xs.min())
    box = (slice(y0, int(ys.max()) + 1), slice(x0, int(xs.max()) + 1))
    in_group = np.zeros((box[0].stop - y0, box[1].stop - x0), bool)
    in_group[ys - y0, xs - x0] = True
    kernel = np.ones((2 * gap_px + 3, 2 * gap_px + 3), np.uint8)
    near = np.zeros(in_group.shape, np.int32)
    for label in members:
        near += cv2.dilate((markers[box] == label).astype(np.uint8), kernel)
    boundary = in_group & (near >= 2) & ~np.isin(markers[box], members)
    return float(edge[box][boundary].mean()) if boundary.any() else 0.0
