"""How well one card's visible part matches every calibrated back, either way up.

A card lying alone, or one whose visible part is known (a card in a pile under others), is
warped into the card frame. Its visible pixels are compared with each calibrated back in both
180-degree turns by normalised cross-correlation over the Lab channels, each channel's mean
removed (the photo's light differs from the calibration's by a gain and an offset per
channel), each pixel weighted by how little it varied between the deck's calibration cards.
The card's outline is a few pixels off, so the best of small shifts counts.

The comparison runs at half the card frame: the fine print that aliases differently in every
photo is gone there, the symbols of a family and a back's layout are not.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from ..rectify import CARD_FRAME_WH
from .backs import CalibratedBack

#: Size (W, H) at which a card is compared with the backs: half the card frame.
MATCH_WH = (CARD_FRAME_WH[0] // 2, CARD_FRAME_WH[1] // 2)
#: Largest shift (px at MATCH_WH) searched: outlines off by up to ~4 card-frame px.
SHIFT_PX = 2
#: Every pixel's noise (grey levels) on top of its calibration spread: JPEG, sensor, sheen.
SPREAD_FLOOR = 8.0
#: Fewer visible pixels (at MATCH_WH) than this and nothing is compared.
MIN_VISIBLE_PX = 48
#: Below this weighted variance (Lab units squared) a side is flat and its correlation 0.
FLAT_VARIANCE = 4.0
#: Lab's L per grey level.
GREY_TO_L = 100.0 / 255.0


@dataclass(frozen=True)
class BackTemplates:
    """The calibrated backs prepared for matching: per deck and turn (0: as calibrated, 1:
    turned by 180 degrees), ``lab`` (D, 2, H, W, 3) float32 and ``weight`` (D, 2, H, W) float32
    at :data:`MATCH_WH`."""

    deck_names: tuple[str, ...]
    lab: np.ndarray
    weight: np.ndarray

    def __len__(self) -> int:
        return len(self.deck_names)


def to_lab(bgr: np.ndarray) -> np.ndarray:
    """float32 Lab (L 0-100) of a BGR uint8 or float 0-255 image."""
    return cv2.cvtColor(np.ascontiguousarray(bgr, np.float32) / 255.0, cv2.COLOR_BGR2Lab)


def _small(image: np.ndarray) -> np.ndarray:
    return cv2.resize(np.ascontiguousarray(image), MATCH_WH, interpolation=cv2.INTER_AREA)


def back_templates(backs: Sequence[CalibratedBack]) -> BackTemplates:
    """Prepare ``backs`` for :func:`card_correlations` (once per photo)."""
    labs, weights = [], []
    for back in backs:
        lab = to_lab(_small(back.back_bgr))
        # The spread shrinks as an RMS: average the variances, not the deviations.
        variance = np.sqrt(_small(back.spread.astype(np.float32) ** 2)) ** 2 + SPREAD_FLOOR ** 2
        weight = (1.0 / variance).astype(np.float32)
        labs.append(np.stack([lab, lab[::-1, ::-1]]))
        weights.append(np.stack([weight, weight[::-1, ::-1]]))
    height, width = MATCH_WH[1], MATCH_WH[0]
    if not backs:
        return BackTemplates((), np.zeros((0, 2, height, width, 3), np.float32),
                             np.zeros((0, 2, height, width), np.float32))
    return BackTemplates(tuple(b.deck_name for b in backs), np.stack(labs), np.stack(weights))


@dataclass(frozen=True)
class CardView:
    """A card at :data:`MATCH_WH`: ``lab`` (H, W, 3) float32 and ``mask`` (H, W) bool, the
    pixels that show the card (whole at this size)."""

    lab: np.ndarray
    mask: np.ndarray

    @property
    def visible_px(self) -> int:
        """Pixels that show the card."""
        return int(self.mask.sum())


def card_view(card_bgr: np.ndarray, mask: np.ndarray) -> CardView:
    """The card frame ``card_bgr`` (``CARD_FRAME_WH``) and its visible ``mask`` at
    :data:`MATCH_WH`; a pixel counts as visible only where all of it is."""
    small_mask = _small(mask.astype(np.float32)) > 0.99
    return CardView(to_lab(_small(card_bgr)), small_mask)


def _shifted(image: np.ndarray, dx: int, dy: int) -> np.ndarray:
    """``image`` moved by (dx, dy), zeros where nothing moves in."""
    out = np.zeros_like(image)
    height, width = image.shape[:2]
    ys, yd = (slice(0, height - dy), slice(dy, height)) if dy >= 0 else (slice(-dy, height), slice(0, height + dy))
    xs, xd = (slice(0, width - dx), slice(dx, width)) if dx >= 0 else (slice(-dx, width), slice(0, width + dx))
    out[yd, xd] = image[ys, xs]
    return out


@dataclass(frozen=True)
class CardMatch:
    """One card against every back and turn, each (D, 2) float32: ``ncc`` the correlation of
    the card's visible part with the back, the best over shifts of up to :data:`SHIFT_PX` (0
    where too little shows or either side is flat); ``expected`` the correlation a card of the
    deck would reach if it differed from its back only by the calibration cards' spread;
    ``colour_gap`` the distance (Lab a, b) between the card's mean colour and the back's over
    the same pixels."""

    ncc: np.ndarray
    expected: np.ndarray
    colour_gap: np.ndarray


def card_correlations(view: CardView, templates: BackTemplates) -> CardMatch:
    """How the card behind ``view`` matches every back of ``templates`` (:class:`CardMatch`)."""
    n_decks = len(templates)
    if n_decks == 0 or view.visible_px < MIN_VISIBLE_PX:
        zeros = np.zeros((n_decks, 2), np.float32)
        return CardMatch(zeros, zeros, np.full((n_decks, 2), np.inf, np.float32))
    n_templates = 2 * n_decks
    weight = templates.weight.reshape(n_templates, -1)  # (T, P)
    lab_t = templates.lab.reshape(n_templates, -1, 3)  # (T, P, 3)
    weighted_t = weight[..., None] * lab_t
    # Every weighted sum the correlation needs is a product of a card-side row (the mask m,
    # m x_c, m |x|^2) with a template-side row (W, W t_c, W |t|^2), all shifts at once.
    t_side = np.concatenate([weight[:, None], weighted_t.transpose(0, 2, 1),
                             (weighted_t * lab_t).sum(axis=2)[:, None]], axis=1)  # (T, 5, P)
    t_cross = weighted_t.reshape(n_templates, -1)  # (T, 3P), pixel-major like the card's
    shifts = [(dx, dy) for dy in range(-SHIFT_PX, SHIFT_PX + 1)
              for dx in range(-SHIFT_PX, SHIFT_PX + 1)]
    masks = np.stack([_shifted(view.mask.astype(np.float32), dx, dy).reshape(-1)
                      for dx, dy in shifts])  # (S, P)
    labs = np.stack([_shifted(view.lab, dx, dy).reshape(-1, 3) for dx, dy in shifts])
    labs *= masks[..., None]
    c_side = np.concatenate([masks[:, None], labs.transpose(0, 2, 1),
                             (labs * labs).sum(axis=2)[:, None]], axis=1)  # (S, 5, P)
    n_shifts = len(shifts)
    sums = (c_side.reshape(n_shifts * 5, -1) @ t_side.reshape(n_templates * 5, -1).T)
    sums = sums.reshape(n_shifts, 5, n_templates, 5)
    cross = labs.reshape(n_shifts, -1) @ t_cross.T  # (S, T)
    s0 = np.maximum(sums[:, 0, :, 0], 1e-12)
    sx = sums[:, 1:4, :, 0]  # (S, 3, T)
    st = sums[:, 0, :, 1:4].transpose(0, 2, 1)  # (S, 3, T)
    cov = cross - (sx * st).sum(axis=1) / s0
    var_x = sums[:, 4, :, 0] - (sx * sx).sum(axis=1) / s0
    var_t = sums[:, 0, :, 4] - (st * st).sum(axis=1) / s0
    flat = (var_x < FLAT_VARIANCE * s0) | (var_t < FLAT_VARIANCE * s0)
    with np.errstate(invalid="ignore", divide="ignore"):
        ncc = cov / np.sqrt(np.maximum(var_x * var_t, 1e-30))
    ncc = np.where(flat | ~np.isfinite(ncc), 0.0, ncc)
    best = np.argmax(ncc, axis=0)
    pick = (best, np.arange(n_templates))
    # What a card of the deck would reach if it differed from the back only by the spread
    # the calibration cards showed (signal over signal plus noise, weights cancel the noise).
    noise = masks[best].sum(axis=1) * GREY_TO_L**2
    signal = np.maximum(var_t[pick], 0.0)
    expected = np.sqrt(signal / np.maximum(signal + noise, 1e-12))
    mean_gap = (sx[best, :, np.arange(n_templates)] - st[best, :, np.arange(n_templates)]) \
        / s0[pick][:, None]  # (T, 3)
    colour_gap = np.hypot(mean_gap[:, 1], mean_gap[:, 2])
    return CardMatch(ncc[pick].reshape(n_decks, 2).astype(np.float32),
                     expected.reshape(n_decks, 2).astype(np.float32),
                     colour_gap.reshape(n_decks, 2).astype(np.float32))
