"""Name the deck of one card from what of it shows: a calibrated deck, face up, or unknown.

The card's visible part is correlated with every calibrated back (``card_match``). The best
back names the deck when its correlation reaches that deck's threshold: a share of what a
card of the deck would reach given how much its own calibration cards varied
(``CardMatch.expected``: a low-contrast or busy back, or a card showing little of it, expects
less), and never below a floor that unrelated backs rarely reach. Below it the card is
unknown: a stranger deck, a front, or a back too damaged to tell.

A card lying face up is told by the back embedder's face-up head (the caller passes its
probability): a front matches no back, but so does a stranger, and nothing in the correlation
tells those two apart; the head does (on rendered val scenes: 97% of fronts at >= 0.4,
no back above it). A face-up card never counts for a deck.

Decks of one family (a Ligretto box: one back, a symbol apart) correlate almost equally over
the whole card. Among the best deck and its siblings the card is decided only inside the
windows where their backs differ (``family.family_windows``) that show; where none shows the
family is known, the deck is not, and the card is doubtful with its candidate decks.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..look_alikes import SMALL_WINDOWS_SHARE, layout_correlation
from ..rectify import CARD_FRAME_WH
from .backs import CalibratedBack
from .card_match import (
    MATCH_WH,
    BackTemplates,
    CardView,
    back_templates,
    card_correlations,
)
from .family import FrameWindow, family_windows

#: A card names a deck when it correlates at least this share of what a card of the deck is
#: expected to reach (val scenes: 0.75 rejected 97% of strangers and named no card wrongly;
#: 0.65 let 7% of strangers in) ...
EXPECTED_SHARE = 0.75
#: ... and at least this much (fronts and strangers reached 0.5-0.7 on backs with a large
#: plain shape, such as an oval).
MIN_CORRELATION = 0.5
#: A decision whose correlation beats the runner-up's, or the threshold, by less is doubtful.
DOUBT_MARGIN = 0.1
#: Face-up head probability from which a card lies face up (as ``identify``).
FACE_UP_PROB = 0.4
#: Two backs whose layouts correlate less than this are not compared for family windows
#: (siblings correlate 0.9 and more; the windows cost a quarter second a pair).
SIBLING_LAYOUT = 0.6
#: A window shows when at least this share of it is visible (val: 0.35 decided 49 of 69 family
#: cards against 45 at 0.6, none more wrong).
WINDOW_SHOWN = 0.35


@dataclass(frozen=True)
class CardFit:
    """What one card is: ``deck_name`` (None: unknown, face up, or a family's deck that its
    visible part cannot tell), ``face_up``, the best ``correlation``, the decision's ``margin``
    (over the runner-up deck, or over the threshold where that is smaller; for an unknown card
    how far below the threshold it stayed), the ``candidates`` it may be (best first; the
    named deck alone when sure) and whether the decision is ``doubtful``."""

    deck_name: str | None
    face_up: bool
    correlation: float
    margin: float
    candidates: tuple[str, ...]
    doubtful: bool


@dataclass(frozen=True)
class FitBacks:
    """The calibrated backs prepared for fitting one photo: the templates, and per deck its
    siblings (indices) and the windows of its card frame where it differs from them."""

    templates: BackTemplates
    siblings: tuple[tuple[int, ...], ...]
    windows: tuple[tuple[FrameWindow, ...], ...]

    @property
    def deck_names(self) -> tuple[str, ...]:
        """The decks, in the order of the templates."""
        return self.templates.deck_names


def fit_backs(backs: Sequence[CalibratedBack]) -> FitBacks:
    """Prepare ``backs`` for :func:`fit_card` (once per photo)."""
    width, height = CARD_FRAME_WH
    n = len(backs)
    siblings: list[list[int]] = [[] for _ in range(n)]
    windows: list[list[FrameWindow]] = [[] for _ in range(n)]
    for a in range(n):
        for b in range(n):
            if a == b or layout_correlation(backs[a], backs[b]) < SIBLING_LAYOUT:
                continue
            found = family_windows(backs[a], backs[b])
            if sum(w.area_px for w in found) <= SMALL_WINDOWS_SHARE * width * height:
                siblings[a].append(b)
                windows[a].extend(found)
    return FitBacks(back_templates(backs), tuple(tuple(s) for s in siblings),
                    tuple(tuple(w) for w in windows))


def fit_card(view: CardView, backs: FitBacks, face_up_prob: float = 0.0) -> CardFit:
    """The deck of the card behind ``view`` (module doc); ``face_up_prob`` is the back
    embedder's face-up probability for the same visible part."""
    match = card_correlations(view, backs.templates)
    turn = match.ncc.argmax(axis=1)
    score = match.ncc[np.arange(len(turn)), turn]
    expected = match.expected[np.arange(len(turn)), turn]
    names = backs.deck_names
    if len(names) == 0:
        return CardFit(None, face_up_prob >= FACE_UP_PROB, 0.0, 0.0, (), True)
    order = np.argsort(-score)
    best = int(order[0])
    threshold = max(MIN_CORRELATION, EXPECTED_SHARE * float(expected[best]))
    above = float(score[best]) - threshold
    if face_up_prob >= FACE_UP_PROB:
        # A front: never a deck, but doubtful where a back also fits.
        candidates = (names[best],) if above >= 0 else ()
        return CardFit(None, True, float(score[best]), float(face_up_prob - FACE_UP_PROB),
                       candidates, bool(candidates))
    if above < 0:
        return CardFit(None, False, float(score[best]), above, (), False)
    family = (best, *backs.siblings[best])
    if len(family) > 1:
        return _family_fit(view, backs, family, int(turn[best]), float(score[best]), above)
    runner_up = float(score[order[1]]) if len(order) > 1 else -1.0
    margin = min(float(score[best]) - runner_up, above)
    return CardFit(names[best], False, float(score[best]), margin, (names[best],),
                   margin < DOUBT_MARGIN)


def _family_fit(view: CardView, backs: FitBacks, family: tuple[int, ...], turn: int,
                score: float, above: float) -> CardFit:
    """Decide among ``family`` (the best deck first) inside the windows that show."""
    names = backs.deck_names
    shown = _shown_windows(view, backs.windows[family[0]], turn)
    if not shown.any():
        candidates = tuple(names[k] for k in family)
        return CardFit(None, False, score, 0.0, candidates, True)
    inside = CardView(view.lab, view.mask & shown)
    subset = BackTemplates(tuple(names[k] for k in family), backs.templates.lab[list(family)],
                           backs.templates.weight[list(family)])
    window_score = card_correlations(inside, subset).ncc.max(axis=1)
    order = np.argsort(-window_score)
    winner = family[int(order[0])]
    margin = float(window_score[order[0]] - window_score[order[1]])
    candidates = tuple(names[family[int(k)]] for k in order)
    doubtful = margin < DOUBT_MARGIN or above < DOUBT_MARGIN
    return CardFit(names[winner], False, score, min(margin, above),
                   candidates[:1] if not doubtful else candidates, doubtful)


def _shown_windows(view: CardView, windows: tuple[FrameWindow, ...], turn: int) -> np.ndarray:
    """(H, W) bool at MATCH_WH: the windows (in the back's frame, the card lying ``turn``) of
    which at least :data:`WINDOW_SHOWN` is visible."""
    width, height = MATCH_WH
    scale = MATCH_WH[0] / CARD_FRAME_WH[0]
    shown = np.zeros((height, width), bool)
    for window in windows:
        x0, y0 = int(window.x0 * scale), int(window.y0 * scale)
        x1, y1 = int(np.ceil(window.x1 * scale)), int(np.ceil(window.y1 * scale))
        if turn == 1:
            x0, x1, y0, y1 = width - x1, width - x0, height - y1, height - y0
        part = view.mask[y0:y1, x0:x1]
        if part.size and part.mean() >= WINDOW_SHOWN:
            shown[y0:y1, x0:x1] = True
    return shown
