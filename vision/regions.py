"""Clean-up of the watershed regions: merge regions of one card, so each region is one card.

The centre head may put two peaks on one card (a long strip, a card cut by a hand). The edge
head is the better judge: two regions that meet where the network sees no physical card edge
belong to the same card, so they are merged.
"""

from __future__ import annotations

import numpy as np

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
