"""Piles and cards lying alone: each card matched on what of it shows.

A pile is fitted top down: the top card shows whole, each card under it only where the cards
above it (card-size quadrilaterals, card size known) leave it visible, and inside the photo.
The caller gives the order, top card first (a z-order from the photo is a later problem). A
card lying alone, or a spread card, is a pile of one; where the layout knows its visible
polygon (a hand over it), that polygon says what shows.
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

from ..embed import BackEmbedder
from ..rectify import CARD_FRAME_WH, normalise_crop, order_quad_portrait, rectify_card
from .card_fit import CardFit, FitBacks, fit_card
from .card_match import card_view


def _frame_corners() -> np.ndarray:
    width, height = CARD_FRAME_WH
    return np.array([[0, 0], [width, 0], [width, height], [0, height]], np.float32)


def visible_in_frame(quad_xy: np.ndarray, above_xy: Sequence[np.ndarray],
                     image_wh: tuple[int, int]) -> np.ndarray:
    """(H, W) bool in the card frame of ``quad_xy`` (as ``rectify_card`` warps it): what the
    quads ``above_xy`` lying on it leave visible inside the photo."""
    width, height = CARD_FRAME_WH
    to_frame = cv2.getPerspectiveTransform(order_quad_portrait(quad_xy), _frame_corners())

    def in_frame(points_xy: np.ndarray) -> np.ndarray:
        points = np.asarray(points_xy, np.float32).reshape(-1, 1, 2)
        return np.round(cv2.perspectiveTransform(points, to_frame)).astype(np.int32)

    image_w, image_h = image_wh
    mask = np.zeros((height, width), np.uint8)
    cv2.fillPoly(mask, [in_frame(np.float32([[0, 0], [image_w, 0], [image_w, image_h],
                                             [0, image_h]]))], 1)
    for quad in above_xy:
        cv2.fillPoly(mask, [in_frame(quad)], 0)
    return mask.astype(bool)


def fit_pile(image_bgr: np.ndarray, quads_xy: Sequence[np.ndarray], backs: FitBacks,
             embedder: BackEmbedder | None = None) -> tuple[CardFit, ...]:
    """Each card of a pile (``quads_xy`` top card first), matched on what the cards above it
    leave visible; ``embedder`` (its face-up head) tells fronts, without it none is face up."""
    height, width = image_bgr.shape[:2]
    masks = [visible_in_frame(quad, quads_xy[:k], (width, height))
             for k, quad in enumerate(quads_xy)]
    return tuple(_fit(image_bgr, quad, mask, backs, embedder)
                 for quad, mask in zip(quads_xy, masks, strict=True))


def fit_lone_card(image_bgr: np.ndarray, quad_xy: np.ndarray, backs: FitBacks,
                  embedder: BackEmbedder | None = None,
                  visible_polygon_xy: np.ndarray | None = None) -> CardFit:
    """A card that no other card covers; ``visible_polygon_xy`` (image px) where something
    else hides part of it, None where it shows whole (inside the photo)."""
    height, width = image_bgr.shape[:2]
    mask = visible_in_frame(quad_xy, (), (width, height))
    if visible_polygon_xy is not None:
        mask &= rectify_card(image_bgr, quad_xy, visible_polygon_xy)[1]
    return _fit(image_bgr, quad_xy, mask, backs, embedder)


def _fit(image_bgr: np.ndarray, quad_xy: np.ndarray, mask: np.ndarray, backs: FitBacks,
         embedder: BackEmbedder | None) -> CardFit:
    frame, _ = rectify_card(image_bgr, quad_xy, None)
    face_up_prob = 0.0
    if embedder is not None and mask.any():
        face_up_prob = float(embedder.embed(normalise_crop(frame, mask)[None]).face_up_prob[0])
    return fit_card(card_view(frame, mask), backs, face_up_prob)
