"""Tell a strip from its siblings by the family windows that show in it (DESIGN §3.3 "Families").

Decks of one Ligretto box share design and colour and differ by a symbol, so the row program's
whole-strip costs leave them all but tied wherever the symbol is covered. For each strip whose
whole-strip costs leave several decks close (its candidates), the strip is compared with each
candidate only inside the windows where the candidates' backs differ (``family.family_windows``)
and only where such a window shows in the strip: the strip is the leading part of its card, the
template's columns [0, width), so a window mapped through the band's orientation, the card's
turn and the band's mirroring shows if enough of its width lies in those columns (a third of a
symbol already tells most apart). In each showing window the candidates are aligned together,
a few pixels of search on the print they share, and each candidate's score is its normalised
cross-correlation with the band over the pixels where the candidates differ (over the whole
window the shared print would dilute the symbol); the card's better turn counts. The best
score's lead over the next candidate is the decision's margin.

A strip where no window shows (or none with a clear margin) is "family known, deck unknown".
Its row decides: when every identified strip of the row names one deck, the row is one
player's sorted cards and the strip takes that deck; otherwise the strip stays doubtful with
its candidates.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from ..rectify import CARD_FRAME_WH
from .backs import CalibratedBack
from .band import RowBand
from .family import FrameWindow, family_windows, merged_windows
from .rows import RowFit, StripFit, oriented_templates
from .strip_costs import band_lab


@dataclass(frozen=True)
class SiblingSettings:
    """When decks count as candidates for a strip, when a window shows, and when a window's
    decision is clear."""

    #: Decks whose whole-strip cost is within this of the best deck's are candidates.
    candidate_cost: float = 0.1
    #: A window shows if at least this share of its width lies inside the strip.
    min_showing: float = 0.3
    #: Narrower visible parts of a window (band px) say nothing.
    min_window_px: int = 4
    #: Search (band px) either way along and across the band when matching a window.
    search_px: int = 3
    #: Pixels where the candidates' templates spread more than this (Lab units, summed over
    #: the channels) are where they differ; only those are compared ...
    differ_lab: float = 6.0
    #: ... where there are at least this many of them.
    min_differ_px: int = 12
    #: A window decision with a smaller lead of the best candidate's correlation is unclear.
    clear_margin: float = 0.06
    #: A strip whose windows correlate less than this with the family's shared print (a
    #: face-up card, something on the card) identifies no deck.
    min_family_fit: float = 0.6
    #: A strip whose whole-strip mismatch is larger does not vouch for its row's deck (on
    #: the tuning rows backs reached 0.77, face-up cards' median was 0.93).
    max_vouching_mismatch: float = 0.75


class SiblingWindows:
    """The family windows between pairs of calibrated backs, each pair computed once, when
    first asked for (~25 ms a pair); one per set of backs, shared by the rows of a photo."""

    def __init__(self, backs: Sequence[CalibratedBack]) -> None:
        self._backs = {back.deck_name: back for back in backs}
        self._cache: dict[tuple[str, str], tuple[FrameWindow, ...]] = {}

    def between(self, deck_a: str, deck_b: str) -> tuple[FrameWindow, ...]:
        """The windows where the two decks' backs differ, found from either back's side
        (each misses faint parts of a symbol the other finds), overlapping ones merged."""
        key = (min(deck_a, deck_b), max(deck_a, deck_b))
        if key not in self._cache:
            a, b = self._backs[key[0]], self._backs[key[1]]
            self._cache[key] = merged_windows(family_windows(a, b) + family_windows(b, a))
        return self._cache[key]


def template_box(window: FrameWindow, turned: bool, band: RowBand, mirrored: bool
                 ) -> tuple[int, int, int, int]:
    """The window's rectangle (x0, y0, x1, y1, end exclusive) in the back's template as
    ``rows.oriented_templates`` orients it (turn, then a quarter turn clockwise on a landscape
    band, then the band's card size), mirrored left to right where the band is read mirrored."""
    frame_w, frame_h = CARD_FRAME_WH
    x0, y0, x1, y1 = float(window.x0), float(window.y0), float(window.x1), float(window.y1)
    if turned:
        x0, y0, x1, y1 = frame_w - x1, frame_h - y1, frame_w - x0, frame_h - y0
    if band.landscape:  # cv2.ROTATE_90_CLOCKWISE: (x, y) -> (H - y, x)
        x0, y0, x1, y1 = frame_h - y1, x0, frame_h - y0, x1
        frame_w, frame_h = frame_h, frame_w
    card_w, card_h = band.card_wh
    x0, x1 = x0 * card_w / frame_w, x1 * card_w / frame_w
    y0, y1 = y0 * card_h / frame_h, y1 * card_h / frame_h
    if mirrored:
        x0, x1 = card_w - x1, card_w - x0
    return (max(0, int(np.floor(x0))), max(0, int(np.floor(y0))),
            min(card_w, int(np.ceil(x1))), min(card_h, int(np.ceil(y1))))


@dataclass(frozen=True)
class _WindowVote:
    """The window comparison of one strip: the best candidate, its lead over the next (in
    correlation), and how well the windows fit the family's shared print; no deck where no
    window shows."""

    deck_name: str | None
    margin: float
    family_fit: float = 0.0


def decide_siblings(band: RowBand, fit: RowFit, backs: Sequence[CalibratedBack],
                    settings: SiblingSettings = SiblingSettings(),  # noqa: B008
                    windows: SiblingWindows | None = None) -> RowFit:
    """``fit`` with each strip's deck re-decided among its close siblings (module doc):
    ``candidates``, ``doubtful``, ``decided_by`` and ``deck_margin`` say how. ``backs`` are the
    backs the row was fitted with; ``windows`` may be shared by the rows of one photo."""
    candidates = [_candidates(strip, settings) for strip in fit.strips]
    if all(len(decks) < 2 for decks in candidates):
        return dataclasses.replace(fit, strips=tuple(
            dataclasses.replace(strip, candidates=decks)
            for strip, decks in zip(fit.strips, candidates, strict=True)))
    windows = windows if windows is not None else SiblingWindows(backs)
    by_name = {back.deck_name: back for back in backs}
    lab = band_lab(band.band_bgr)
    band_read = np.ascontiguousarray(lab[:, ::-1] if fit.reversed else lab)
    pad = settings.search_px
    padded = cv2.copyMakeBorder(band_read, pad, pad, pad, pad, cv2.BORDER_REPLICATE)
    templates: dict[str, list[np.ndarray]] = {}

    def oriented(deck_name: str) -> list[np.ndarray]:
        if deck_name not in templates:
            turns = oriented_templates(by_name[deck_name], band)
            templates[deck_name] = [np.ascontiguousarray(t[:, ::-1] if fit.reversed else t)
                                    for t in turns]
        return templates[deck_name]

    votes: list[_WindowVote | None] = []
    for strip, decks in zip(fit.strips, candidates, strict=True):
        if len(decks) < 2:
            votes.append(None)
            continue
        shown = merged_windows([w for other in decks[1:] for w in windows.between(decks[0], other)])
        templates_by_deck = [oriented(deck) for deck in decks]
        votes.append(_window_vote(padded, strip, decks, templates_by_deck, shown, band,
                                  fit.reversed, settings))

    own = [_identified(strip, vote, settings) for strip, vote in zip(fit.strips, votes, strict=True)]
    identified: dict[str, float] = {}  # deck -> its clearest identified strip's margin
    for strip, (deck, margin) in zip(fit.strips, own, strict=True):
        # A strip that fits no back well (a face-up card) does not speak for its row.
        if deck and strip.mismatch <= settings.max_vouching_mismatch:
            identified[deck] = max(identified.get(deck, 0.0), margin)
    row_deck = next(iter(identified)) if len(identified) == 1 else None

    strips = []
    for strip, decks, vote, (deck, margin) in zip(fit.strips, candidates, votes, own, strict=True):
        if vote is None:
            strips.append(dataclasses.replace(strip, candidates=decks))
        elif deck is not None:
            strips.append(dataclasses.replace(strip, deck_name=deck, deck_margin=margin,
                                              candidates=decks, decided_by="window"))
        elif row_deck is not None and row_deck in decks:
            # The row is one player's sorted cards: its identified strips vouch for the deck,
            # as strongly as the clearest of them.
            strips.append(dataclasses.replace(strip, deck_name=row_deck,
                                              deck_margin=identified[row_deck],
                                              candidates=decks, decided_by="row"))
        elif vote.deck_name is not None:
            strips.append(dataclasses.replace(strip, deck_name=vote.deck_name,
                                              deck_margin=vote.margin, candidates=decks,
                                              doubtful=True))
        else:
            strips.append(dataclasses.replace(strip, candidates=decks, doubtful=True))
    return dataclasses.replace(fit, strips=tuple(strips))


def _candidates(strip: StripFit, settings: SiblingSettings) -> tuple[str, ...]:
    """The decks whose whole-strip cost is close to the best, best first; none for a strip
    that matches no calibrated back (face up or a stranger's: it stays of no deck)."""
    if not strip.deck_name:
        return ()
    if not strip.deck_costs:
        return (strip.deck_name,)
    ranked = sorted(strip.deck_costs, key=lambda pair: pair[1])
    best = ranked[0][1]
    return tuple(name for name, cost in ranked if cost <= best + settings.candidate_cost)


def _identified(strip: StripFit, vote: _WindowVote | None, settings: SiblingSettings
                ) -> tuple[str | None, float]:
    """The strip's deck and margin where the strip tells it by itself (its whole-strip costs
    where it has no close sibling, else a clear window vote); None where it cannot."""
    if vote is None:
        return strip.deck_name, strip.deck_margin
    if (vote.deck_name is not None and vote.margin >= settings.clear_margin
            and vote.family_fit >= settings.min_family_fit):
        return vote.deck_name, vote.margin
    return None, 0.0


def _differing(patches: np.ndarray, settings: SiblingSettings) -> np.ndarray | None:
    """(h, w) bool: the pixels where the candidates' patches (D, h, w, 3) differ, a pixel
    around them included; None where too few do."""
    spread = patches.std(axis=0).sum(axis=2)
    differ = cv2.dilate((spread > settings.differ_lab).astype(np.uint8), np.ones((3, 3), np.uint8))
    if int(differ.sum()) < settings.min_differ_px:
        return None
    return differ.astype(bool)


def _ncc_map(region: np.ndarray, patch: np.ndarray) -> np.ndarray:
    """The normalised cross-correlation of ``patch`` at every place in ``region`` (0 where
    undefined: a flat patch)."""
    scores = cv2.matchTemplate(region, patch, cv2.TM_CCOEFF_NORMED)
    return np.where(np.isfinite(scores), scores, 0.0)


def _masked_ncc(here: np.ndarray, patches: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """(D,): the normalised cross-correlation of ``here`` (h, w, 3) with each patch over the
    pixels of ``mask``, each channel's mean over those pixels removed, channels pooled."""
    band = here[mask].astype(np.float64)  # (n, 3)
    band -= band.mean(axis=0)
    templates = patches[:, mask].astype(np.float64)  # (D, n, 3)
    templates -= templates.mean(axis=1, keepdims=True)
    cov = np.einsum("nc,dnc->d", band, templates)
    norm = np.sqrt((band**2).sum() * (templates**2).sum(axis=(1, 2)))
    return np.where(norm > 1e-9, cov / np.maximum(norm, 1e-9), 0.0)


def _showing_boxes(strip: StripFit, shown: tuple[FrameWindow, ...], turned: bool, band: RowBand,
                   mirrored: bool, settings: SiblingSettings) -> list[tuple[int, int, int, int]]:
    """The template rectangles of the windows that show in the strip, cut at its end."""
    boxes = []
    for window in shown:
        x0, y0, x1, y1 = template_box(window, turned, band, mirrored)
        visible_x1 = min(x1, strip.width_px)
        if (x1 > x0 and y1 > y0 and visible_x1 - x0 >= settings.min_window_px
                and (visible_x1 - x0) / (x1 - x0) >= settings.min_showing):
            boxes.append((x0, y0, visible_x1, y1))
    return boxes


def _turn_scores(padded: np.ndarray, strip: StripFit, patches_of: list[np.ndarray],
                 boxes: list[tuple[int, int, int, int]], settings: SiblingSettings
                 ) -> tuple[np.ndarray, float]:
    """For one turn: each candidate's correlation with the strip over the pixels where the
    candidates differ, and how well the windows fit the family at all (the correlation of the
    candidates' mean over the whole windows); both area-weighted over the windows."""
    pad = settings.search_px
    symbol = np.zeros(len(patches_of))
    fit = weight = 0.0
    for x0, y0, x1, y1 in boxes:
        region = padded[y0: y1 + 2 * pad, strip.start_px + x0: strip.start_px + x1 + 2 * pad]
        patches = np.stack([t[y0:y1, x0:x1] for t in patches_of])
        # One alignment for every candidate, where their mean fits best (the print the
        # siblings share): searched per candidate, a wrong symbol would buy itself a shift.
        together = _ncc_map(region, np.ascontiguousarray(patches.mean(axis=0)))
        ay, ax = np.unravel_index(int(np.argmax(together)), together.shape)
        here = region[ay: ay + y1 - y0, ax: ax + x1 - x0]
        differ = _differing(patches, settings)
        scores = _masked_ncc(here, patches, differ if differ is not None
                             else np.ones(here.shape[:2], bool))
        area = (x1 - x0) * (y1 - y0)
        symbol += area * scores
        fit += area * float(together[ay, ax])
        weight += area
    return symbol / weight, fit / weight


def _window_vote(padded: np.ndarray, strip: StripFit, decks: tuple[str, ...],
                 templates_by_deck: list[list[np.ndarray]], shown: tuple[FrameWindow, ...],
                 band: RowBand, mirrored: bool, settings: SiblingSettings) -> _WindowVote:
    """The candidate whose symbol fits the windows that show in the strip best, its lead over
    the next candidate, and how well the windows fit the family. Both turns of the card are
    tried: the print around the windows often does not say which way up a card lies (many
    backs are point-symmetric, and the photo's light gradient can mimic a back's sheen), and
    deciding the turn first, even outside the windows, named the wrong sibling more often
    than taking the better turn per candidate (measured on the tuning rows)."""
    best_by_deck = np.full(len(decks), -np.inf)
    fit_by_turn = {}
    winner_turn = None
    for turn in (0, 1):
        boxes = _showing_boxes(strip, shown, turn == 1, band, mirrored, settings)
        if not boxes:
            continue
        scores, fit_by_turn[turn] = _turn_scores(padded, strip, [t[turn] for t in templates_by_deck],
                                                 boxes, settings)
        if winner_turn is None or scores.max() > best_by_deck.max():
            winner_turn = turn
        best_by_deck = np.maximum(best_by_deck, scores)
    if winner_turn is None:
        return _WindowVote(None, 0.0)
    order = np.argsort(-best_by_deck)
    return _WindowVote(decks[int(order[0])], float(best_by_deck[order[0]] - best_by_deck[order[1]]),
                       float(fit_by_turn[winner_turn]))
