"""Card-frame templates of calibrated backs: tell apart designs the embedder cannot.

The decks of one Ligretto box share colour and pattern and differ only by a symbol (in the
middle, on some backs also in two corners). The embedder sees a strip or a whole card as a bag
of colours and textures, so such siblings come out equally similar. A template keeps *where*
things are: the per-pixel median of the deck's calibration cards, rectified into a small card
frame and colour-normalised like the embedder's crops, with the per-pixel spread of those cards
around it.

A card whose embedding leaves several decks in the running is placed on the card frame by
sliding its visible part over the candidates' mean template (both ways round, since a card can
lie either way and a strip's place on its card is unknown). There each candidate is scored by
its squared difference to the card, weighted per pixel by how much the candidates differ there
relative to how much each deck's own cards vary there (a Fisher ratio): the shared pattern,
misregistration of fine stripes and hands or glare on a calibration card weigh nothing, the
symbol everything.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass

import cv2
import numpy as np

from .rectify import divide_by_white

#: Template size (W, H): the 128x196 card frame at 5/16 scale; the middle symbol is ~12 px.
TEMPLATE_WH: tuple[int, int] = (40, 61)
#: Slack around the template (pixels) within which a card's estimated outline may be off.
SEARCH_PAD_PX = 3
#: Calibration cards at least this visible (share of the card frame) make the template.
TEMPLATE_MIN_VISIBLE = 0.5
#: Calibration cards whose frame agrees less than this with the deck's most typical card
#: (correlation of lightly blurred frames, either way round) are left out of the template:
#: through the detector, two cards merged into one outline or a card cut by its print give
#: frames of another layout, and a median over a few cards takes them in.
TEMPLATE_MIN_AGREEMENT = 0.6
#: Blur (template pixels) before frames are compared: a fine printed pattern aliases
#: differently on every card at template size.
AGREEMENT_BLUR_PX = 1.5
#: With fewer cards seen at a pixel, its spread is unknown and taken as this (colour units).
DEFAULT_SPREAD = 0.15
MIN_CARDS_FOR_SPREAD = 3
#: Added to the squared spread: no pixel is trusted beyond what noise allows.
SPREAD_FLOOR_SQ = 0.002
#: A visible part smaller than this in template pixels carries no usable layout.
MIN_PATCH_PX = 4
#: Per-pixel squared differences are capped at this many times the largest difference between
#: a sibling and the siblings' mean (outliers: hands, glare).
OUTLIER_CAP = 4.0
#: Template pixel values: normalised colour in [0, 1.25], stored as uint8.
_STORE_SCALE = 255.0 / 1.25


@dataclass(frozen=True)
class DeckTemplate:
    """``median`` and ``spread`` (H, W, 3) float32 in the template frame (see module doc)."""

    median: np.ndarray
    spread: np.ndarray

    def __post_init__(self) -> None:
        shape = (TEMPLATE_WH[1], TEMPLATE_WH[0], 3)
        for name in ("median", "spread"):
            if getattr(self, name).shape != shape:
                raise ValueError(f"{name} must have shape {shape}, got {getattr(self, name).shape}")


@dataclass(frozen=True)
class SiblingMatch:
    """How one card's visible part compares with the candidate decks' templates.

    ``best`` indexes the candidates (-1: nothing to compare); ``separation`` is how far the
    card is from the runner-up relative to how much the two templates differ where the card
    shows (1: exactly the best template, 0: halfway); ``visible_detail`` is the share of what
    tells those two templates apart that the card shows (near 0: the symbol is hidden).
    """

    best: int
    separation: float
    visible_detail: float


def normalised_frame(card_bgr: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A rectified card (frame size) -> (template-size float32 colours, template-size mask).

    Colours are divided per channel by the visible pixels' bright level, as the embedder's
    crops are, so the light's colour cancels.
    """
    small = cv2.resize(card_bgr, TEMPLATE_WH, interpolation=cv2.INTER_AREA).astype(np.float32)
    small_mask = cv2.resize(mask.astype(np.float32), TEMPLATE_WH, interpolation=cv2.INTER_AREA) > 0.5
    if not small_mask.any():
        return np.zeros_like(small), small_mask
    return divide_by_white(small, small_mask), small_mask


def build_template(frames: list[tuple[np.ndarray, np.ndarray]]) -> DeckTemplate | None:
    """A deck's template from its calibration cards' (normalised frame, mask) pairs.

    Cards showing less than :data:`TEMPLATE_MIN_VISIBLE` are left out, and so are cards whose
    frame disagrees with the most typical card's (:data:`TEMPLATE_MIN_AGREEMENT`). Each card
    is turned (180 degrees) to agree best with that card, then with the median, before the
    final per-pixel median over the cards that show each pixel. None without usable cards.
    """
    usable = sorted((fm for fm in frames if fm[1].mean() >= TEMPLATE_MIN_VISIBLE),
                    key=lambda fm: -fm[1].mean())
    if not usable:
        return None
    usable = _agreeing_frames(usable)
    reference, reference_mask = usable[0]
    for _ in range(2):
        aligned = [_turned_to_match(f, m, reference, reference_mask) for f, m in usable]
        stack = np.stack([f for f, _ in aligned])
        shown = np.stack([m for _, m in aligned])
        values = np.where(shown[..., None], stack, np.nan)
        seen = shown.any(axis=0)
        reference = np.nanmedian(values[:, seen], axis=0)
        full = np.full(stack.shape[1:], float(np.nanmean(reference)), np.float32)
        full[seen] = reference
        reference, reference_mask = full, seen
    spread = np.full(reference.shape, DEFAULT_SPREAD, np.float32)
    enough = shown.sum(axis=0) >= MIN_CARDS_FOR_SPREAD
    if enough.any():
        spread[enough] = np.nanmedian(np.abs(values[:, enough] - reference[enough]), axis=0)
    return DeckTemplate(reference.astype(np.float32), spread)


def _agreeing_frames(frames: list[tuple[np.ndarray, np.ndarray]]) -> list[tuple[np.ndarray, np.ndarray]]:
    """The frames that agree with the most typical one (:data:`TEMPLATE_MIN_AGREEMENT`), that
    one first."""
    if len(frames) < 2:
        return frames
    blurred = [(cv2.GaussianBlur(f, (0, 0), AGREEMENT_BLUR_PX), m) for f, m in frames]
    n = len(frames)
    agreement = np.eye(n)
    for a in range(n):
        for b in range(a + 1, n):
            (fa, ma), (fb, mb) = blurred[a], blurred[b]
            agreement[a, b] = agreement[b, a] = max(
                _masked_correlation(fa, fb, ma & mb),
                _masked_correlation(fa[::-1, ::-1], fb, ma[::-1, ::-1] & mb))
    typical = int(np.argmax(agreement.sum(axis=1)))
    keep = [typical] + [k for k in range(n) if k != typical and agreement[typical, k] >= TEMPLATE_MIN_AGREEMENT]
    return [frames[k] for k in keep]


def _turned_to_match(frame: np.ndarray, mask: np.ndarray, reference: np.ndarray,
                     reference_mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    turned, turned_mask = frame[::-1, ::-1], mask[::-1, ::-1]
    same = _masked_correlation(frame, reference, mask & reference_mask)
    if same >= _masked_correlation(turned, reference, turned_mask & reference_mask):
        return frame, mask
    return np.ascontiguousarray(turned), np.ascontiguousarray(turned_mask)


def _masked_correlation(a: np.ndarray, b: np.ndarray, mask: np.ndarray) -> float:
    if mask.sum() < 2:
        return -1.0
    a, b = a[mask], b[mask]
    a = a - a.mean(axis=0)
    b = b - b.mean(axis=0)
    return float((a * b).sum() / max(np.sqrt((a * a).sum() * (b * b).sum()), 1e-12))


@dataclass(frozen=True)
class SiblingSet:
    """What matching needs from several decks' templates, computed once per set of decks.

    ``medians`` (k, H + 2 pad, W + 2 pad, 3) padded, ``mean`` their mean, ``fisher`` (H', W')
    the per-pixel weight: how much the decks differ there over how much their cards vary.
    """

    medians: np.ndarray
    mean: np.ndarray
    fisher: np.ndarray

    @classmethod
    def of(cls, templates: list[DeckTemplate]) -> SiblingSet:
        """The padded medians, their mean and the blurred per-pixel Fisher weight of
        ``templates`` (several decks' templates of one size)."""
        pad = SEARCH_PAD_PX

        def padded(image: np.ndarray) -> np.ndarray:
            return cv2.copyMakeBorder(image, pad, pad, pad, pad, cv2.BORDER_REPLICATE)

        medians = np.stack([padded(t.median) for t in templates]).astype(np.float32)
        mean = medians.mean(axis=0)
        within = np.mean(np.stack([padded(t.spread) for t in templates]) ** 2, axis=0) + SPREAD_FLOOR_SQ
        fisher = ((medians - mean) ** 2).sum(axis=(0, 3)) / within.sum(axis=2)
        return cls(medians, mean, cv2.GaussianBlur(fisher.astype(np.float32), (0, 0), 1.0))


def match_siblings(templates: list[DeckTemplate] | SiblingSet, frame: np.ndarray,
                   mask: np.ndarray) -> SiblingMatch:
    """Which of several similar decks' templates one card's visible part is (module doc)."""
    none = SiblingMatch(-1, 0.0, 0.0)
    siblings = templates if isinstance(templates, SiblingSet) else SiblingSet.of(templates)
    ys, xs = np.nonzero(mask)
    if len(xs) == 0 or len(siblings.medians) < 2:
        return none
    y0, y1, x0, x1 = ys.min(), ys.max() + 1, xs.min(), xs.max() + 1
    if min(x1 - x0, y1 - y0) < MIN_PATCH_PX:
        return none
    patch = np.ascontiguousarray(frame[y0:y1, x0:x1])
    patch_mask = mask[y0:y1, x0:x1]
    if float(patch[patch_mask].std()) < 1e-3:
        return none
    medians, mean, fisher = siblings.medians, siblings.mean, siblings.fisher
    # OpenCV's masked matching is several times slower; whole cards need no mask.
    match_mask = None if patch_mask.all() else patch_mask.astype(np.float32)
    best_score, place = -np.inf, (False, 0, 0)
    for turned in (False, True):
        image = np.ascontiguousarray(mean[::-1, ::-1]) if turned else mean
        scores = cv2.matchTemplate(image, patch, cv2.TM_CCOEFF_NORMED, mask=match_mask)
        scores[~np.isfinite(scores)] = -np.inf
        k = int(np.argmax(scores))
        if scores.flat[k] > best_score:
            best_score, place = float(scores.flat[k]), (turned, *np.unravel_index(k, scores.shape))
    if not np.isfinite(best_score):
        return none
    turned, top, left = place
    h, w = patch.shape[:2]

    def window(image: np.ndarray) -> np.ndarray:
        image = image[::-1, ::-1] if turned else image
        return image[top : top + h, left : left + w][patch_mask]

    weight = window(fisher)  # (m,)
    mean_px = window(mean)  # (m, 3)
    sibling_px = [window(m) for m in medians]
    fitted = _fit_colours(patch[patch_mask], mean_px)
    # Squared differences are capped at a few times what the siblings differ by: a hand, a
    # glare spot or a neighbour's corner on the card must not outweigh the symbol.
    sibling_sq = max(float(((s - mean_px) ** 2).sum(axis=1).max()) for s in sibling_px)
    cap = OUTLIER_CAP * sibling_sq + 1e-9
    errors = np.array([_weighted_capped(fitted - s, weight, cap) for s in sibling_px])
    first, second = (int(i) for i in np.argsort(errors)[:2])
    difference = _weighted_capped(sibling_px[first] - sibling_px[second], weight, cap)
    whole = float((fisher * ((medians[first] - medians[second]) ** 2).sum(axis=2)).sum())
    shown = float((weight * ((sibling_px[first] - sibling_px[second]) ** 2).sum(axis=1)).sum())
    separation = (errors[second] - errors[first]) / max(difference, 1e-12)
    return SiblingMatch(first, float(separation), shown / max(whole, 1e-12))


def _weighted_capped(residual: np.ndarray, weight: np.ndarray, cap: float) -> float:
    return float((weight * np.minimum((residual**2).sum(axis=1), cap)).sum())


def _fit_colours(values: np.ndarray, reference: np.ndarray) -> np.ndarray:
    """``values`` (m, 3) mapped per channel by the least-squares gain and offset onto ``reference``."""
    v = values - values.mean(axis=0)
    r_mean = reference.mean(axis=0)
    var = (v * v).mean(axis=0)
    gain = np.where(var > 1e-9, (v * (reference - r_mean)).mean(axis=0) / np.maximum(var, 1e-9), 0.0)
    return (gain * v + r_mean).astype(np.float32)


def encode_template(template: DeckTemplate) -> dict[str, str]:
    """The template as base64 text of uint8 pixels (for the deck profile's JSON)."""
    return {name: base64.b64encode(
                np.clip(np.round(getattr(template, name) * _STORE_SCALE), 0, 255)
                .astype(np.uint8).tobytes()).decode("ascii")
            for name in ("median", "spread")}


def decode_template(data: dict[str, str]) -> DeckTemplate:
    """Inverse of :func:`encode_template`; raises ValueError (or TypeError) on bad data."""
    width, height = TEMPLATE_WH
    arrays = {}
    for name in ("median", "spread"):
        raw = np.frombuffer(base64.b64decode(data[name].encode("ascii"), validate=True), np.uint8)
        if raw.size != width * height * 3:
            raise ValueError(f"template {name} has {raw.size} values, expected {width * height * 3}")
        arrays[name] = raw.reshape(height, width, 3).astype(np.float32) / _STORE_SCALE
    return DeckTemplate(**arrays)
