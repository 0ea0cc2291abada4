"""Explain a row band as a sequence of cards: a dynamic program over strip starts.

Choose strip starts x0 < x1 < ... < xn and a deck for each strip to minimise

    sum over strips [mismatch + w_cont * max(0, continuation) + c_card] - lambda * sum edge(x_k)

(see ``strip_costs``). The last card lies on top and shows whole. The program runs in both
stacking directions (the band mirrored, templates mirrored) and keeps the cheaper. It keeps a
count dimension, so the cost of the best explanation with one card more or fewer is known:
that difference is the count's margin, and the second-best deck's cost at a strip is that
strip's deck margin (DESIGN §3.3, §3.4).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Literal

import cv2
import numpy as np

from .backs import CalibratedBack
from .band import BAND_END_MARGIN_PX, RowBand
from .strip_costs import band_lab, band_windows, strip_costs


@dataclass(frozen=True)
class RowFitSettings:
    """The program's weights. ``card_cost`` is negative: a right strip still mismatches
    0.3-0.5, and a non-negative per-card cost would merge strips."""

    card_cost: float = -0.6
    continuation_weight: float = 0.5
    #: Weight of the edge cue (unused without one).
    edge_weight: float = 0.5
    #: Edge probability at which a start costs nothing: above it a start gains, up to
    #: ``edge_weight`` at twice it; below it a start pays, up to ``edge_weight`` with no edge.
    edge_level: float = 0.3
    min_strip_px: int = 5
    #: A strip that matches no calibrated back better than this is a card of no known deck
    #: (face up, or a stranger's back): it still counts as a card, for nobody.
    unknown_cost: float = 0.8
    end_slack_px: int = 2 * BAND_END_MARGIN_PX


#: What named a strip's deck: its whole-strip costs, a family window that shows in it
#: (``siblings``), or its row's other strips (a sorted row is one player's).
DeckSource = Literal["strip", "window", "row"]


@dataclass(frozen=True)
class StripFit:
    """One card of a row: where its visible strip starts and ends in the band, its deck ("" for
    a card of no calibrated deck: face up or a stranger's), its best mismatch, and the
    decision's margin (to the runner-up deck, or to "no deck").

    ``deck_costs`` is every fitted deck's cost for this strip, (deck name, cost) in the order of
    the backs. ``candidates`` are the decks the strip could still be (siblings whose whole-strip
    costs are close), ``doubtful`` says none of them could be chosen with a clear margin, and
    ``decided_by`` what named ``deck_name``; the sibling step (``siblings``) sets these three."""

    start_px: int
    width_px: int
    deck_name: str
    mismatch: float
    deck_margin: float
    deck_costs: tuple[tuple[str, float], ...] = ()
    candidates: tuple[str, ...] = ()
    doubtful: bool = False
    decided_by: DeckSource = "strip"


@dataclass(frozen=True)
class RowFit:
    """The row's cards in band order (``reversed``: the band was read mirrored, i.e. cards lie
    on top of their right-hand neighbours) and the count's margin."""

    strips: tuple[StripFit, ...]
    reversed: bool
    cost: float
    count_margin: float

    @property
    def count(self) -> int:
        """How many cards the row holds."""
        return len(self.strips)


def oriented_templates(back: CalibratedBack, band: RowBand) -> list[np.ndarray]:
    """The back's two turns as Lab templates in the band's card size and orientation."""
    turns = [back.back_bgr, back.turned_bgr]
    if band.landscape:
        turns = [cv2.rotate(np.ascontiguousarray(t), cv2.ROTATE_90_CLOCKWISE) for t in turns]
    return [band_lab(cv2.resize(np.ascontiguousarray(t), band.card_wh, interpolation=cv2.INTER_AREA))
            for t in turns]


def _deck_costs(band: np.ndarray, templates_by_deck: list[list[np.ndarray]],
                settings: RowFitSettings) -> np.ndarray:
    """(decks, L, W + 1): each deck's best-turn strip cost."""
    windows = band_windows(band, templates_by_deck[0][0].shape[1])
    out = []
    for templates in templates_by_deck:
        best = None
        for template in templates:
            costs = strip_costs(windows, template)
            cost = costs.mismatch + settings.continuation_weight * np.maximum(costs.continuation, 0)
            best = cost if best is None else np.minimum(best, cost)
        out.append(best)
    return np.stack(out)


#: The edge head's response to one physical edge is several band pixels wide; only its crest
#: (the maximum within this many pixels either side) counts as an edge, so that one edge
#: cannot pay for two starts.
EDGE_CREST_PX = 3


def _edge_evidence(edge_along: np.ndarray | None, length: int) -> np.ndarray:
    """(L + 1,): for a start at x (the boundary between columns x - 1 and x), the strength of
    the edge crest within a pixel of it; 0 away from crests."""
    if edge_along is None:
        return np.zeros(length + 1)
    edge = np.zeros(length + 1)
    edge[:length] = edge_along[:length]
    window = 2 * EDGE_CREST_PX + 1
    crest_max = np.array([edge[max(0, x - EDGE_CREST_PX): x + EDGE_CREST_PX + 1].max()
                          for x in range(length + 1)])
    crests = np.where(edge >= crest_max - 1e-9, edge, 0.0)
    # a start may sit a pixel either side of the crest, and the crest of column x - 1 is the
    # boundary at x as much as column x's
    padded = np.pad(crests, 2)
    del window
    return np.max(np.stack([padded[k: k + length + 1] for k in range(1, 4)]), axis=0)


def _program(cost: np.ndarray, edge: np.ndarray, width: int, settings: RowFitSettings
             ) -> tuple[np.ndarray, list[int]]:
    """Best total cost for each card count, and the starts of the best count's explanation.

    ``cost`` (L, W + 1) is the best deck's strip cost. ``total[n]`` explains the whole band with
    n cards (inf where impossible)."""
    length = cost.shape[0]
    slack = settings.end_slack_px
    max_cards = max(1, (length - width) // settings.min_strip_px + 2)
    f = np.full((max_cards + 1, length + 1), np.inf)  # f[n, x]: n strips done, next starts at x
    parent = np.zeros((max_cards + 1, length + 1), np.int64)
    widths = np.arange(settings.min_strip_px, width + 1)
    # a start where the edge head sees no edge costs as much as one on a sure edge gains
    edge_cost = settings.edge_weight * np.clip(1.0 - edge / settings.edge_level, -1.0, 1.0)
    step = settings.card_cost + edge_cost
    f[0, : slack + 1] = edge_cost[: slack + 1]  # the first card's own edge
    for x in range(settings.min_strip_px, length - width + 1):
        prev = x - widths
        ok = prev >= 0
        prev, w = prev[ok], widths[ok]
        if len(prev) == 0:
            continue
        # only counts that can reach x: at least x / W strips, at most x / min_strip
        lo = max(0, (x - slack) // width - 1)
        hi = min(max_cards, x // settings.min_strip_px + 1)
        candidates = f[lo:hi, prev] + cost[prev, w][None, :]  # (n, widths)
        best = np.argmin(candidates, axis=1)
        f[lo + 1:hi + 1, x] = candidates[np.arange(hi - lo), best] + step[x]
        parent[lo + 1:hi + 1, x] = prev[best]
    # a band shorter than a card (a cut-off region) still holds the one card it shows
    ends = np.arange(max(0, length - width - slack), max(0, length - width) + 1)
    closing = f[:, ends] + cost[ends, width][None, :] + settings.card_cost
    total = np.min(closing, axis=1)
    best_n = int(np.argmin(total))
    x = int(ends[np.argmin(closing[best_n])])
    starts = [x]
    for n in range(best_n, 0, -1):
        x = int(parent[n, x])
        starts.append(x)
    return total, starts[::-1]


def fit_row(band: RowBand, backs: Sequence[CalibratedBack],
            edge_along: np.ndarray | None = None,
            settings: RowFitSettings = RowFitSettings()) -> RowFit:  # noqa: B008
    """Explain ``band`` as cards of ``backs``; ``edge_along`` (L,) is the physical-edge
    probability of each band column (the layout network's edge head read along the band)."""
    if edge_along is None:
        settings = replace(settings, edge_weight=0.0)
    lab = band_lab(band.band_bgr)
    width = band.card_wh[0]
    templates = [oriented_templates(back, band) for back in backs]
    fits: list[RowFit] = []
    for reverse in (False, True):
        band_read = lab[:, ::-1] if reverse else lab
        deck_templates = [[t[:, ::-1] for t in ts] if reverse else ts for ts in templates]
        deck_cost = _deck_costs(np.ascontiguousarray(band_read),
                                [[np.ascontiguousarray(t) for t in ts] for ts in deck_templates],
                                settings)
        cost = np.minimum(deck_cost.min(axis=0), settings.unknown_cost)
        edge = None if edge_along is None else (edge_along[::-1] if reverse else edge_along)
        total, starts = _program(cost, _edge_evidence(edge, band.length_px), width, settings)
        n_best = int(np.argmin(total))
        neighbours = [total[n] for n in (n_best - 1, n_best + 1) if 0 <= n < len(total)]
        count_margin = float(min(neighbours) - total[n_best]) if neighbours else float("inf")
        strips = []
        for k, start in enumerate(starts):
            strip_w = (starts[k + 1] - start) if k + 1 < len(starts) else width
            per_deck = deck_cost[:, start, strip_w]
            options = np.append(per_deck, settings.unknown_cost)  # the last: no known deck
            order = np.argsort(options)
            best = int(order[0])
            strips.append(StripFit(start_px=start, width_px=strip_w,
                                   deck_name=backs[best].deck_name if best < len(backs) else "",
                                   mismatch=float(per_deck.min()),
                                   deck_margin=float(options[order[1]] - options[best]),
                                   deck_costs=tuple((back.deck_name, float(cost)) for back, cost
                                                    in zip(backs, per_deck, strict=True))))
        fits.append(RowFit(strips=tuple(strips), reversed=reverse, cost=float(total[n_best]),
                           count_margin=count_margin))
    forward, backward = fits
    return forward if forward.cost <= backward.cost else backward


#: Stretches tried when the top card's width in a band is measured (a band read from the row's
#: region knows the card's size across the row, not along it: the camera's tilt shortens the
#: two directions differently).
WIDTH_STRETCHES = tuple(np.round(np.arange(0.8, 1.21, 0.04), 2))


def top_card_stretch(band: RowBand, backs: Sequence[CalibratedBack]) -> float:
    """How much to stretch ``band`` along the row so that its top card (whole, at one of the
    band's ends) is as wide as the backs' templates: the stretch whose whole-card correlation at
    either end is best."""
    lab = band_lab(band.band_bgr)
    width, height = band.card_wh
    margin = BAND_END_MARGIN_PX
    templates = [t for back in backs for t in oriented_templates(back, band)]
    best, best_ncc = 1.0, -np.inf
    for stretch in WIDTH_STRETCHES:
        seen = int(round(width / stretch))  # the card's width in the band as it is
        if seen + 2 * margin > lab.shape[1]:
            continue
        for end in (lab[:, margin: margin + seen], lab[:, lab.shape[1] - margin - seen: lab.shape[1] - margin]):
            window = cv2.resize(end, (width, height), interpolation=cv2.INTER_LINEAR)
            window = window - window.reshape(-1, 3).mean(axis=0)
            for template in templates:
                for flip in (template, template[:, ::-1]):
                    t = flip - flip.reshape(-1, 3).mean(axis=0)
                    ncc = float((window * t).sum() / np.sqrt((window ** 2).sum() * (t ** 2).sum() + 1e-9))
                    if ncc > best_ncc:
                        best, best_ncc = float(stretch), ncc
    return best
