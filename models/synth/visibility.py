"""The owner map and the visibility rules: which cards stay in a scene.

Cards are painted into an id buffer in z-order, the buffer goes through the lens remap with
nearest-neighbour sampling, and cards whose visible part is too thin (``strip_px``), too small a
fraction (pile cards), or empty are dropped. Removing a card only uncovers the cards below it, so
every surviving card's visible region can only grow: one removal round plus one update of the
cards near the removed ones is exact.
"""

from __future__ import annotations

import cv2
import numpy as np

from .camera import Camera
from .cards import fill_ids
from .labels import VisibleStats, visible_stats
from .occluders import Occluder, fill_occluders


def _owner(camera: Camera, maps, polys_canvas, alive: list[int], occluders) -> np.ndarray:
    cw, ch = camera.canvas_wh
    ids = np.full((ch, cw), -1, np.int16)
    fill_ids(ids, [polys_canvas[i] for i in alive], alive)  # value = layout index
    fill_occluders(ids, occluders)
    if maps is None:
        m = camera.margin_px
        w, h = camera.image_wh
        return ids[m:m + h, m:m + w].copy()
    return cv2.remap(ids, maps[0], maps[1], cv2.INTER_NEAREST, borderMode=cv2.BORDER_CONSTANT,
                     borderValue=-1)


def _overlaps(a, b) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def filter_visible(
    camera: Camera,
    maps,
    polys_canvas: list[np.ndarray],
    bboxes: list[tuple[int, int, int, int]],
    areas_px: list[float],
    min_strip_px: float,
    min_fraction: list[float],
    alive: list[int],
    occluders: list[Occluder] = (),  # type: ignore[assignment]
) -> tuple[list[int], np.ndarray, dict[int, VisibleStats]]:
    """Keep the cards that satisfy the rules; returns (kept layout indices in z-order,
    owner map indexing that list, -1 table; stats by layout index). ``occluders`` (hands,
    pens above the cards) hide what they cover."""
    owner = _owner(camera, maps, polys_canvas, alive, occluders)
    stats: dict[int, VisibleStats] = {}
    bad = []
    for i in alive:
        st = visible_stats(owner, i, bboxes[i])
        if (st is None or st.strip_px < min_strip_px
                or st.visible_px / max(areas_px[i], 1.0) < min_fraction[i]):
            bad.append(i)
        else:
            stats[i] = st
    if bad:
        alive = [i for i in alive if i in stats]
        owner = _owner(camera, maps, polys_canvas, alive, occluders)
        for i in alive:
            if any(_overlaps(bboxes[i], bboxes[j]) for j in bad):
                st = visible_stats(owner, i, bboxes[i])
                assert st is not None  # visibility only grows when cards above are removed
                stats[i] = st
    lut = np.full(max(len(polys_canvas), 1) + 1, -1, np.int32)
    for pos, i in enumerate(alive):
        lut[i + 1] = pos
    return alive, lut[owner.astype(np.int32) + 1], stats
