"""Build a deck's calibrated back from its calibration cards: register, then take the median.

Each calibration card, rectified into the card frame, is one noisy view of the deck's back:
the detector's outline is off by a pixel or two, the card may lie either way up, and the light
differs a little across the table. The cards are registered on the most visible one (the 180
degree turn and a small shift that correlate best), brought to its colours by a per-channel
gain and offset, and the per-pixel median of the cards that show a pixel is the back; the
robust spread of those cards around it is how much that pixel can be trusted.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from ..rectify import CARD_FRAME_WH
from .backs import CalibratedBack

#: Calibration cards showing at least this share of the card frame make the back.
BACK_MIN_VISIBLE = 0.5
#: Cards whose registered frame correlates less than this with the median of the others are
#: left out (an outline that merged two cards or cut one: its print sits elsewhere in the frame).
BACK_MIN_AGREEMENT = 0.6
#: ... or agree this much less than the median card, where that is lower.
AGREEMENT_SLACK = 0.2
#: Size (W, H) at which cards are compared for agreement: the card frame at 1/4.
AGREEMENT_WH = (32, 49)
#: Largest shift (card-frame px) searched when registering a card on the reference: the
#: detector's outlines are off by about a pixel or two at this frame size.
REGISTER_SHIFT_PX = 3
#: Blur (px) before registering: a fine printed pattern aliases differently on every card.
REGISTER_BLUR_PX = 1.0
#: Fewest cards that show a pixel for its spread to be measured there.
MIN_CARDS_FOR_SPREAD = 3
#: ... or this (grey levels) where no pixel is shown by that many cards.
FEW_CARDS_SPREAD = 32.0
#: MAD to standard deviation for normally distributed values.
MAD_TO_SIGMA = 1.4826
#: Spread (grey levels) of a pixel no card shows: weigh it as nothing.
UNSEEN_SPREAD = 255.0
#: Spread of a pixel fewer than MIN_CARDS_FOR_SPREAD cards show: this percentile of the
#: measured spreads (known as little as the deck's most variable pixels).
FEW_CARDS_SPREAD_PERCENTILE = 90.0


@dataclass(frozen=True)
class RegisteredCard:
    """One calibration card in the reference's frame: float32 colours and the pixels it shows."""

    frame: np.ndarray
    mask: np.ndarray


def build_back(deck_name: str, frames: Sequence[tuple[np.ndarray, np.ndarray]]) -> CalibratedBack | None:
    """The calibrated back of deck ``deck_name`` from its calibration cards (module doc).

    ``frames``: per card, the rectified card (H, W, 3) uint8 in the card frame and its visible
    mask (H, W) bool (``vision.rectify.rectify_card``). None when no card shows at least
    :data:`BACK_MIN_VISIBLE` of the frame.
    """
    width, height = CARD_FRAME_WH
    usable = sorted((fm for fm in frames if fm[1].mean() >= BACK_MIN_VISIBLE),
                    key=lambda fm: -float(fm[1].mean()))
    if not usable:
        return None
    for frame, mask in usable:
        if frame.shape != (height, width, 3) or mask.shape != (height, width):
            raise ValueError(f"frames must be ({height}, {width}, 3) with ({height}, {width}) "
                             f"masks, got {frame.shape} and {mask.shape}")
    cards = [RegisteredCard(f.astype(np.float32), m.astype(bool)) for f, m in usable]
    reference = cards[0]
    for _ in range(2):
        reference = _median_card([_register(card, reference)[0] for card in cards])
    placed = [_register(card, reference) for card in cards]
    agreement = [_agreement(card, reference) for card, _ in placed]
    # An all-over pattern (dots, a maze) has little layout to agree on: there the cards need
    # only agree about as well as the deck's typical card does.
    least = min(BACK_MIN_AGREEMENT, float(np.median(agreement)) - AGREEMENT_SLACK)
    placed = [p for p, a in zip(placed, agreement, strict=True) if a >= least] or placed[:1]
    # Registered on one card's outline, the back would sit wherever that outline put it; moved
    # by the cards' median shift, it sits where the outlines put it on the whole.
    dx, dy = (int(round(float(np.median([shift[k] for _, shift in placed])))) for k in (0, 1))
    registered = [_shifted(card, -dx, -dy) for card, _ in placed]
    median = _median_card(registered)
    back = _fill_unseen(median)
    spread = _spread(registered, median)
    return CalibratedBack(deck_name, back, spread)


def _register(card: RegisteredCard,
              reference: RegisteredCard) -> tuple[RegisteredCard, tuple[int, int]]:
    """``card`` turned and shifted onto ``reference`` and mapped onto its colours; the shift."""
    best = (-np.inf, card, (0, 0))
    for turned in (False, True):
        candidate = (RegisteredCard(np.ascontiguousarray(card.frame[::-1, ::-1]),
                                    np.ascontiguousarray(card.mask[::-1, ::-1]))
                     if turned else card)
        score, shift = _best_shift(candidate, reference)
        if score > best[0]:
            best = (score, candidate, shift)
    _, chosen, (dx, dy) = best
    moved = _shifted(chosen, dx, dy)
    return RegisteredCard(_colours_onto(moved, reference), moved.mask), (dx, dy)


def _grey(frame: np.ndarray) -> np.ndarray:
    grey = cv2.cvtColor(np.clip(frame, 0, 255).astype(np.uint8), cv2.COLOR_BGR2GRAY).astype(np.float32)
    return cv2.GaussianBlur(grey, (0, 0), REGISTER_BLUR_PX)


def _best_shift(card: RegisteredCard, reference: RegisteredCard) -> tuple[float, tuple[int, int]]:
    """The shift (dx, dy) moving ``card`` onto ``reference`` and its correlation there."""
    pad = REGISTER_SHIFT_PX
    inner = np.s_[pad:-pad, pad:-pad]
    patch = np.ascontiguousarray(_grey(card.frame)[inner])
    patch_mask = card.mask[inner] & reference.mask[inner]
    if patch_mask.sum() < 16 or float(patch[patch_mask].std()) < 1e-3:
        return -1.0, (0, 0)
    # A pixel the reference does not show must not pull the card there: give it the mean.
    image = _grey(reference.frame)
    image[~reference.mask] = float(image[reference.mask].mean())
    mask = None if patch_mask.all() else patch_mask.astype(np.float32)
    scores = cv2.matchTemplate(image, patch, cv2.TM_CCOEFF_NORMED, mask=mask)
    scores[~np.isfinite(scores)] = -np.inf
    y, x = np.unravel_index(int(np.argmax(scores)), scores.shape)
    # The patch taken at (pad, pad) of the card lies best at (x, y) of the reference.
    return float(scores[y, x]), (int(x) - pad, int(y) - pad)


def _shifted(card: RegisteredCard, dx: int, dy: int) -> RegisteredCard:
    if dx == 0 and dy == 0:
        return card
    move = np.float32([[1, 0, dx], [0, 1, dy]])
    height, width = card.mask.shape
    frame = cv2.warpAffine(card.frame, move, (width, height), flags=cv2.INTER_NEAREST,
                           borderMode=cv2.BORDER_CONSTANT)
    mask = cv2.warpAffine(card.mask.astype(np.uint8), move, (width, height),
                          flags=cv2.INTER_NEAREST, borderMode=cv2.BORDER_CONSTANT)
    return RegisteredCard(frame, mask.astype(bool))


def _colours_onto(card: RegisteredCard, reference: RegisteredCard) -> np.ndarray:
    """``card``'s colours scaled per channel onto ``reference``'s where both show: the light
    differs across the table by a gain (a least-squares fit would also shrink the contrast of
    a noisy card towards its mean)."""
    both = card.mask & reference.mask
    if both.sum() < 16:
        return card.frame
    gain = reference.frame[both].mean(axis=0) / np.maximum(card.frame[both].mean(axis=0), 1.0)
    return (card.frame * gain).astype(np.float32)


def _median_card(cards: list[RegisteredCard]) -> RegisteredCard:
    stack = np.stack([c.frame for c in cards])
    shown = np.stack([c.mask for c in cards])
    values = np.where(shown[..., None], stack, np.nan)
    seen = shown.any(axis=0)
    median = np.zeros(stack.shape[1:], np.float32)
    median[seen] = np.nanmedian(values[:, seen], axis=0)
    return RegisteredCard(median, seen)


def _agreement(card: RegisteredCard, reference: RegisteredCard) -> float:
    """Correlation of the two cards' layouts: grey, at :data:`AGREEMENT_WH` (a fine printed
    pattern, misregistered by a pixel, would otherwise decorrelate cards of one design)."""
    both = cv2.resize((card.mask & reference.mask).astype(np.float32), AGREEMENT_WH,
                      interpolation=cv2.INTER_AREA) > 0.99
    if both.sum() < 16:
        return -1.0
    a, b = (cv2.resize(_grey(c.frame), AGREEMENT_WH, interpolation=cv2.INTER_AREA)[both]
            for c in (card, reference))
    a, b = a - a.mean(), b - b.mean()
    return float((a * b).sum() / max(np.sqrt((a * a).sum() * (b * b).sum()), 1e-12))


def _fill_unseen(median: RegisteredCard) -> np.ndarray:
    back = np.clip(np.round(median.frame), 0, 255).astype(np.uint8)
    if median.mask.all():
        return back
    if not median.mask.any():
        return back
    return cv2.inpaint(back, (~median.mask).astype(np.uint8), 3, cv2.INPAINT_TELEA)


def _spread(cards: list[RegisteredCard], median: RegisteredCard) -> np.ndarray:
    """Per pixel, the robust standard deviation of the cards' grey level around the median."""
    grey = np.stack([_plain_grey(c.frame) for c in cards])
    shown = np.stack([c.mask for c in cards])
    centre = _plain_grey(median.frame)
    deviation = np.where(shown, np.abs(grey - centre), np.nan)
    n_shown = shown.sum(axis=0)
    spread = np.full(centre.shape, UNSEEN_SPREAD, np.float32)
    enough = n_shown >= MIN_CARDS_FOR_SPREAD
    if enough.any():
        spread[enough] = MAD_TO_SIGMA * np.nanmedian(deviation[:, enough], axis=0)
    few = (n_shown > 0) & ~enough
    spread[few] = (np.percentile(spread[enough], FEW_CARDS_SPREAD_PERCENTILE) if enough.any()
                   else FEW_CARDS_SPREAD)
    return spread.astype(np.float32)


def _plain_grey(frame: np.ndarray) -> np.ndarray:
    # OpenCV's BGR -> grey weights, on floats (no rounding, no clipping).
    return (0.114 * frame[..., 0] + 0.587 * frame[..., 1] + 0.299 * frame[..., 2]).astype(np.float32)
