"""Training targets computed from a Scene in memory (no files): dense maps and card crops."""

from __future__ import annotations

import math

import cv2
import numpy as np

from ...vision.geometry import CARD_LONG_OVER_SHORT
from .scene import Scene


def sample_at_stride(owner: np.ndarray, stride: int) -> np.ndarray:
    """Nearest sample at each stride cell's centre pixel: output (i, j) <- (s*i + s//2, ...)."""
    h, w = owner.shape
    oh, ow = h // stride, w // stride
    o = stride // 2
    return owner[o: o + oh * stride: stride, o: o + ow * stride: stride]


def boundary_map(owner: np.ndarray, cards_only: bool = False) -> np.ndarray:
    """bool, True where a pixel's owner differs from its right or lower neighbour (both sides);
    with ``cards_only``, only where both are cards (no card's edge against the table)."""
    b = np.zeros(owner.shape, bool)
    dx = owner[:, 1:] != owner[:, :-1]
    dy = owner[1:, :] != owner[:-1, :]
    if cards_only:
        on_card = owner >= 0
        dx &= on_card[:, 1:] & on_card[:, :-1]
        dy &= on_card[1:, :] & on_card[:-1, :]
    b[:, 1:] |= dx
    b[:, :-1] |= dx
    b[1:, :] |= dy
    b[:-1, :] |= dy
    return b


def any_at_stride(mask: np.ndarray, stride: int) -> np.ndarray:
    """bool (H // stride, W // stride): whether any pixel of each stride cell is set."""
    oh, ow = mask.shape[0] // stride, mask.shape[1] // stride
    return mask[: oh * stride, : ow * stride].reshape(oh, stride, ow, stride).any(axis=(1, 3))


def dense_targets(scene: Scene, stride: int = 2, centre_sigma_cap: float = 4.0
                  ) -> dict[str, np.ndarray]:
    """Dense maps at (H // stride, W // stride) for a detector.

    - ``foreground`` float32 0/1: any card on top at the cell's centre pixel.
    - ``edge`` float32 0/1: physical card boundaries (card vs table or card vs card), taken from
      the owner map, so printed lines inside a design are never edges. A 1-2 px band at full
      resolution, max-pooled over each stride cell.
    - ``centre`` float32: a Gaussian peak (max over cards) at each card's ``centre_xy``, the
      visible point farthest from the visible boundary; sigma = strip_px / (6 * stride), clipped
      to [0.75, ``centre_sigma_cap``] output pixels, so thin strips get sharp peaks that stay
      inside the strip.
    - ``instance`` int32: index into ``scene.cards`` (-1 table), nearest-sampled.
    - ``deck`` int32: deck id of the card on top (-1 table, -2 face-up card).
    """
    if stride < 1:
        raise ValueError(f"stride must be >= 1, got {stride}")
    owner = scene.owner_map
    h, w = owner.shape
    oh, ow = h // stride, w // stride
    instance = sample_at_stride(owner, stride).astype(np.int32)
    foreground = (instance >= 0).astype(np.float32)
    # cells made of only table pixels never get an edge (boundary map marks both sides)
    edge = any_at_stride(boundary_map(owner) & (owner >= 0), stride).astype(np.float32)
    centre = np.zeros((oh, ow), np.float32)
    for c in scene.cards:
        sigma = float(np.clip(c.strip_px / (6.0 * stride), 0.75, centre_sigma_cap))
        cx = (c.centre_xy[0] - (stride - 1) / 2) / stride
        cy = (c.centre_xy[1] - (stride - 1) / 2) / stride
        r = int(math.ceil(3 * sigma))
        x0, x1 = max(0, int(cx) - r), min(ow, int(cx) + r + 2)
        y0, y1 = max(0, int(cy) - r), min(oh, int(cy) + r + 2)
        if x1 <= x0 or y1 <= y0:
            continue
        xs = np.arange(x0, x1, dtype=np.float32) - cx
        ys = np.arange(y0, y1, dtype=np.float32) - cy
        g = np.exp(-(ys[:, None] ** 2 + xs[None, :] ** 2) / (2 * sigma * sigma))
        np.maximum(centre[y0:y1, x0:x1], g, out=centre[y0:y1, x0:x1])
    lut = np.array([-2 if c.face_up else c.deck_id for c in scene.cards] + [-1], np.int32)
    deck = lut[instance]  # index -1 picks the trailing -1 (table)
    return {"foreground": foreground, "edge": edge, "centre": centre, "instance": instance,
            "deck": deck}


def card_crop(scene: Scene, card_index: int, size: int = 80, fill_hidden: bool = False
              ) -> np.ndarray:
    """The card's visible part rectified into its own frame, ``size`` x ``size`` BGR uint8.

    The card quad is warped to a size x size*91/59 patch (upright card), cropped to the
    bounding box of the card's visible pixels in that frame, and resized to size x size.
    ``fill_hidden`` paints pixels of other cards and the table inside that box mid-grey.
    """
    card = scene.cards[card_index]
    pw, ph = size, int(round(size * CARD_LONG_OVER_SHORT))
    dst = np.array([[0, 0], [pw - 1, 0], [pw - 1, ph - 1], [0, ph - 1]], np.float32)
    M = cv2.getPerspectiveTransform(card.quad_xy.astype(np.float32), dst)
    patch = cv2.warpPerspective(scene.image, M, (pw, ph), flags=cv2.INTER_AREA,
                                borderMode=cv2.BORDER_REPLICATE)
    own = cv2.warpPerspective((scene.owner_map == card_index).astype(np.uint8), M, (pw, ph),
                              flags=cv2.INTER_NEAREST)
    ys, xs = np.nonzero(own)
    if len(xs) == 0:  # sub-pixel sliver after resampling: fall back to the whole card
        x0, y0, x1, y1 = 0, 0, pw, ph
    else:
        x0, x1, y0, y1 = xs.min(), xs.max() + 1, ys.min(), ys.max() + 1
    crop = patch[y0:y1, x0:x1]
    if fill_hidden:
        crop = crop.copy()
        crop[own[y0:y1, x0:x1] == 0] = 128
    return cv2.resize(crop, (size, size), interpolation=cv2.INTER_AREA)
