"""Per-cell training targets of the layout network, from a rendered scene's owner map and quads.

Everything comes from the renderer's exact labels: the owner map (which card is on top at each
pixel, -1 for the table) and each card's full quadrilateral. So a printed line inside a design is
never an edge, and a card's pieces share one centre however many there are. Needs no torch.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from ...vision.layout.maps import LAYOUT_STRIDE, OFFSET_SCALE, LayoutMaps
from ..synth.scene import Scene
from ..synth.targets import any_at_stride, boundary_map, sample_at_stride

#: Exposed-corner peaks: Gaussian sigma in output cells.
CORNER_SIGMA = 1.0
#: A corner counts as exposed when its card owns the point this far in towards the card centre
#: (a share of the half-diagonal: past the rounding of a 4 mm corner radius).
CORNER_INSET = 0.07
#: Sobel magnitude (grey levels a pixel) that makes a cell inside a card a printed line.
PRINT_GRADIENT = 60.0
#: A printed cell lies at least this many cells from any card boundary.
PRINT_EDGE_CLEARANCE = 2


def printed_cells(image_bgr: np.ndarray, owner: np.ndarray, edge_cells: np.ndarray,
                  stride: int = LAYOUT_STRIDE) -> np.ndarray:
    """(h, w) bool: cells wholly inside a card, clear of every card boundary (``edge_cells``,
    (h, w): the cells a boundary crosses), that hold a strong line of the design's print:
    where an edge detector that reads print would fire."""
    h, w = edge_cells.shape
    grey = cv2.cvtColor(image_bgr, cv2.COLOR_BGR2GRAY).astype(np.float32)
    grad = cv2.magnitude(cv2.Sobel(grey, cv2.CV_32F, 1, 0), cv2.Sobel(grey, cv2.CV_32F, 0, 1))
    grad_cells = grad[: h * stride, : w * stride].reshape(h, stride, w, stride).max(axis=(1, 3))
    on_card = (owner[: h * stride, : w * stride].reshape(h, stride, w, stride) >= 0).all(axis=(1, 3))
    reach = 2 * PRINT_EDGE_CLEARANCE + 1
    near_edge = cv2.dilate(edge_cells.astype(np.uint8), np.ones((reach, reach), np.uint8)) > 0
    return on_card & ~near_edge & (grad_cells >= PRINT_GRADIENT)


@dataclass(frozen=True)
class LayoutTargets:
    """Targets at output resolution (h, w) = input // LAYOUT_STRIDE; float32 throughout."""

    foreground: np.ndarray  # (h, w) 0/1: a card on top at the cell's centre pixel
    edge: np.ndarray  # (h, w) 0/1: a physical card boundary in the cell (card/table, card/card)
    edge_orient: np.ndarray  # (2, h, w) cos, sin of twice the boundary's direction (on edges)
    corner: np.ndarray  # (h, w) Gaussian peaks at the exposed corners of cards
    offset: np.ndarray  # (2, h, w) (dx, dy) to the owning card's centre / OFFSET_SCALE cells
    log_size: np.ndarray  # (h, w) log2 of the owning card's long side in cells (0 off cards)
    #: (h, w) 0/1: foreground cells whose card has a plausible quad (offset and size valid)
    quad_ok: np.ndarray
    #: (2, h, w) cos, sin of four times the owning card's side direction (0 off cards): the
    #: rectangle's turn up to a quarter turn, which its edges show locally (whether a side is
    #: the long one needs the whole card). Cards of a fan share nearly one centre and differ by
    #: their turn.
    card_orient: np.ndarray
    #: (h, w) 0/1: printed lines inside cards (``printed_cells``), where the edge head must
    #: stay silent; the loss weighs them up as hard negatives.
    printed: np.ndarray

    def as_dict(self) -> dict[str, np.ndarray]:
        """The maps by name, as the training batches carry them."""
        return {
            "foreground": self.foreground, "edge": self.edge, "edge_orient": self.edge_orient,
            "corner": self.corner, "offset": self.offset, "log_size": self.log_size,
            "quad_ok": self.quad_ok, "card_orient": self.card_orient, "printed": self.printed,
        }


def _side_segments(quads_xy: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(n, 4, 2) start and end points of each card's four sides."""
    return quads_xy, np.roll(quads_xy, -1, axis=1)


def _point_segment_distance(p: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Distances from points ``p`` (..., 2) to segments ``a``-``b`` (..., 2), broadcast."""
    ab = b - a
    t = np.clip(((p - a) * ab).sum(-1) / np.maximum((ab * ab).sum(-1), 1e-9), 0.0, 1.0)
    closest = a + t[..., None] * ab
    return np.linalg.norm(p - closest, axis=-1)


def layout_targets(scene: Scene, stride: int = LAYOUT_STRIDE) -> LayoutTargets:
    """The layout network's targets for ``scene`` (cells of ``stride`` input pixels)."""
    owner = scene.owner_map
    h, w = owner.shape[0] // stride, owner.shape[1] // stride
    cell_owner = sample_at_stride(owner, stride)[:h, :w]
    foreground = (cell_owner >= 0).astype(np.float32)
    edge_mask = any_at_stride(boundary_map(owner), stride)
    n = len(scene.cards)
    edge_orient = np.zeros((2, h, w), np.float32)
    corner = np.zeros((h, w), np.float32)
    offset = np.zeros((2, h, w), np.float32)
    log_size = np.zeros((h, w), np.float32)
    quad_ok = np.zeros((h, w), np.float32)
    card_orient = np.zeros((2, h, w), np.float32)
    printed = printed_cells(scene.image, owner, edge_mask[:h, :w], stride).astype(np.float32)
    if n == 0:
        return LayoutTargets(foreground, edge_mask.astype(np.float32), edge_orient, corner,
                             offset, log_size, quad_ok, card_orient, printed)
    quads = np.stack([c.quad_xy for c in scene.cards]).astype(np.float64) / stride  # cells
    centres = quads.mean(axis=1)
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float64)
    cell_xy = np.stack([xs + 0.5, ys + 0.5], axis=-1)  # cell centres in output cells

    on = cell_owner >= 0
    k = cell_owner[on]
    offset[0][on] = (centres[k, 0] - cell_xy[on][:, 0]) / OFFSET_SCALE
    offset[1][on] = (centres[k, 1] - cell_xy[on][:, 1]) / OFFSET_SCALE
    sides = np.linalg.norm(quads - np.roll(quads, -1, axis=1), axis=-1)  # (n, 4)
    log_size[on] = np.log2(np.maximum(sides.max(axis=1), 1.0))[k]
    # opposite sides within 1.5x of each other: a card seen in perspective, not a broken quad
    plausible = ((np.maximum(sides[:, 0], sides[:, 2]) <= 1.5 * np.minimum(sides[:, 0], sides[:, 2]))
                 & (np.maximum(sides[:, 1], sides[:, 3]) <= 1.5 * np.minimum(sides[:, 1], sides[:, 3])))
    quad_ok[on] = plausible[k]
    along = np.where((sides[:, 0] + sides[:, 2] >= sides[:, 1] + sides[:, 3])[:, None],
                     (quads[:, 1] - quads[:, 0] + quads[:, 2] - quads[:, 3]) / 2,
                     (quads[:, 2] - quads[:, 1] + quads[:, 3] - quads[:, 0]) / 2)
    long_axis = np.arctan2(along[:, 1], along[:, 0])
    card_orient[0][on] = np.cos(4 * long_axis)[k]
    card_orient[1][on] = np.sin(4 * long_axis)[k]

    _edge_orientation(edge_mask, cell_owner, cell_xy, quads, edge_orient)
    _exposed_corners(owner, scene.cards, stride, corner)
    return LayoutTargets(foreground, edge_mask.astype(np.float32), edge_orient, corner, offset,
                         log_size, quad_ok, card_orient, printed)


def _edge_orientation(edge_mask, cell_owner, cell_xy, quads, out) -> None:
    """Each edge cell takes the direction of the nearest side among the cards around it."""
    ey, ex = np.nonzero(edge_mask)
    if len(ey) == 0:
        return
    h, w = cell_owner.shape
    padded = np.pad(cell_owner, 1, constant_values=-1)
    # candidate cards: the owners of the cell and its 8 neighbours
    cands = np.stack([padded[ey + 1 + dy, ex + 1 + dx]
                      for dy in (-1, 0, 1) for dx in (-1, 0, 1)], axis=1)  # (m, 9)
    a, b = _side_segments(quads)
    safe = np.maximum(cands, 0)
    p = cell_xy[ey, ex][:, None, None, :]  # (m, 1, 1, 2)
    dist = _point_segment_distance(p, a[safe], b[safe])  # (m, 9, 4)
    dist[cands < 0] = np.inf
    flat = dist.reshape(len(ey), -1)
    best = flat.argmin(axis=1)
    has = np.isfinite(flat[np.arange(len(ey)), best])
    card = safe[np.arange(len(ey)), best // 4]
    side = best % 4
    d = b[card, side] - a[card, side]
    angle = np.arctan2(d[:, 1], d[:, 0])
    out[0, ey[has], ex[has]] = np.cos(2 * angle[has])
    out[1, ey[has], ex[has]] = np.sin(2 * angle[has])


def _exposed_corners(owner, cards, stride, out) -> None:
    """Gaussian peaks (max over corners) where a card's own corner shows."""
    h_px, w_px = owner.shape
    h, w = out.shape
    radius = int(np.ceil(3 * CORNER_SIGMA))
    for index, card in enumerate(cards):
        quad = np.asarray(card.quad_xy, np.float64)
        centre = quad.mean(axis=0)
        probe = quad + CORNER_INSET * (centre - quad)
        for (cx, cy), (px, py) in zip(quad, probe, strict=True):
            ix, iy = int(round(px)), int(round(py))
            if not (0 <= ix < w_px and 0 <= iy < h_px) or owner[iy, ix] != index:
                continue
            gx, gy = cx / stride, cy / stride
            x0, x1 = max(0, int(gx) - radius), min(w, int(gx) + radius + 1)
            y0, y1 = max(0, int(gy) - radius), min(h, int(gy) + radius + 1)
            if x0 >= x1 or y0 >= y1:
                continue
            yy, xx = np.mgrid[y0:y1, x0:x1]
            g = np.exp(-((xx + 0.5 - gx) ** 2 + (yy + 0.5 - gy) ** 2) / (2 * CORNER_SIGMA ** 2))
            np.maximum(out[y0:y1, x0:x1], g.astype(np.float32), out=out[y0:y1, x0:x1])
            # the cell holding the corner is the one positive of the focal loss
            if 0 <= int(gx) < w and 0 <= int(gy) < h:
                out[int(gy), int(gx)] = 1.0


def oracle_maps(scene: Scene) -> LayoutMaps:
    """The maps a perfect layout network would give for ``scene``: the decoder's ceiling."""
    t = layout_targets(scene)
    height, width = scene.owner_map.shape
    return LayoutMaps(foreground=t.foreground, edge=t.edge, corner=t.corner,
                      edge_orient=t.edge_orient, offset_xy=t.offset * OFFSET_SCALE,
                      card_long_cells=np.exp2(t.log_size), card_orient=t.card_orient,
                      image_wh=(width, height))
