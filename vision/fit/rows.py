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
from .strip_costs import band_lab, band_windows, strip_costs_both_ways


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
    unknown_cost: float = 0.95
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
    #: The embedder's face-up head called it a front (``face_up``): no deck, whatever it matched.
    face_up: bool = False


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
                settings: RowFitSettings) -> tuple[np.ndarray, np.ndarray]:
    """(decks, L, W + 1): each deck's best-turn strip cost, the band read as laid and read
    mirrored (cards stacked the other way)."""
    width = templates_by_deck[0][0].shape[1]
    windows = band_windows(band, width)
    # (readings, decks, W + 1, L): the costs' memory runs along x
    best = np.empty((2, len(templates_by_deck), width + 1, band.shape[1]))
    for deck, templates in enumerate(templates_by_deck):
        for turn, template in enumerate(templates):
            for reading, costs in enumerate(strip_costs_both_ways(windows, template)):
                # these costs are this loop's own: the penalty is added in place
                penalty = np.maximum(costs.continuation, 0, out=costs.continuation)
                penalty *= settings.continuation_weight
                cost = np.add(costs.mismatch, penalty, out=costs.mismatch).T
                if turn == 0:
                    best[reading, deck] = cost
                else:
                    np.minimum(best[reading, deck], cost, out=best[reading, deck])
    laid, mirrored = best.transpose(0, 1, 3, 2)
    return laid, mirrored


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
    # the maximum within EDGE_CREST_PX either side (edge probabilities are >= 0: zero padding
    # changes no maximum)
    crest_max = np.lib.stride_tricks.sliding_window_view(
        np.pad(edge, EDGE_CREST_PX), 2 * EDGE_CREST_PX + 1).max(axis=1)
    crests = np.where(edge >= crest_max - 1e-9, edge, 0.0)
    # a start may sit a pixel either side of the crest, and the crest of column x - 1 is the
    # boundary at x as much as column x's
    padded = np.pad(crests, 2)
    return np.max(np.stack([padded[k: k + length + 1] for k in range(1, 4)]), axis=0)


def _cheapest_count(to_start: np.ndarray, step: np.ndarray, first_cost: np.ndarray,
                    ends: np.ndarray, closing_cost: np.ndarray, shortest: int) -> int:
    """The count (strips before the top card) of one cheapest explanation of any count: the
    program without its count dimension. The best count is at most this (it is the fewest of
    the cheapest), so the counted program need not go past one more."""
    length = to_start.shape[0] - 1
    pad = to_start.shape[1] + shortest - 1  # the card width
    best = np.full(pad + length + 1, np.inf)  # best[pad + x]: the cheapest way to a start at x
    best[pad: pad + len(first_cost)] = first_cost
    cards = np.zeros(length + 1, np.int64)
    reach = np.lib.stride_tricks.sliding_window_view(best, to_start.shape[1])[:, ::-1]
    # a strip is at least ``shortest`` wide: the starts of one block depend only on earlier ones
    for x0 in range(shortest, ends[-1] + 1, shortest):
        xs = np.arange(x0, min(x0 + shortest, ends[-1] + 1))
        candidates = reach[xs] + to_start[xs]
        pick = np.argmin(candidates, axis=1)
        value = candidates[np.arange(len(xs)), pick] + step[xs]
        through = value < best[pad + xs]
        best[pad + xs[through]] = value[through]
        cards[xs] = np.where(through, cards[xs - shortest - pick] + 1, 0)
    return int(cards[ends[np.argmin(best[pad + ends] + closing_cost)]])


def _program(cost: np.ndarray, edge: np.ndarray, width: int, settings: RowFitSettings
             ) -> tuple[np.ndarray, list[int]]:
    """Best total cost for each card count, and the starts of the best count's explanation.

    ``cost`` (L, W + 1) is the best deck's strip cost. ``total[n]`` explains the whole band with
    n cards (inf where impossible), for the counts up to one past the cheapest (the rest cost
    more and bound neither the best count nor its margin)."""
    length = cost.shape[0]
    slack = settings.end_slack_px
    shortest = settings.min_strip_px
    # the latest start of the top card (a band shorter than a card, a region cut off, still
    # holds the one card it shows)
    last = max(0, length - width)
    max_cards = max(1, (length - width) // shortest + 2)
    widths = np.arange(shortest, width + 1)
    # a start where the edge head sees no edge costs as much as one on a sure edge gains
    edge_cost = settings.edge_weight * np.clip(1.0 - edge / settings.edge_level, -1.0, 1.0)
    step = settings.card_cost + edge_cost
    # to_start[x, i]: the strip of width widths[i] that ends where the next starts, at x
    strip_starts = np.arange(length + 1)[:, None] - widths[None, :]
    to_start = np.where(strip_starts >= 0, cost[np.maximum(strip_starts, 0), widths[None, :]],
                        np.inf)
    ends = np.arange(max(0, last - slack), last + 1)
    closing_cost = cost[ends, width] + settings.card_cost
    cheapest = _cheapest_count(to_start, step, edge_cost[: slack + 1], ends, closing_cost, shortest)
    rows = min(max_cards, cheapest + 1) + 1
    # f[n, W + x]: n strips done, next starts at x (W padding columns first: no strip there)
    f = np.full((rows, width + length + 1), np.inf)
    parent = np.zeros((rows, length + 1), np.int64)
    f[0, width: width + slack + 1] = edge_cost[: slack + 1]  # the first card's own edge
    for n in range(1, rows):
        # n strips reach at least n * shortest, at most the first card's slack + n cards
        lo, hi = max(shortest, n * shortest), min(last, slack + n * width)
        if lo > hi:
            continue
        reach = np.lib.stride_tricks.sliding_window_view(f[n - 1], len(widths))[lo: hi + 1, ::-1]
        candidates = reach + to_start[lo: hi + 1]  # (x, widths)
        pick = np.argmin(candidates, axis=1)
        f[n, width + lo: width + hi + 1] = candidates[np.arange(hi - lo + 1), pick] + step[lo: hi + 1]
        parent[n, lo: hi + 1] = np.arange(lo, hi + 1) - widths[pick]
    closing = f[:, width + ends] + closing_cost[None, :]
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
    for reverse, deck_cost in zip((False, True), _deck_costs(lab, templates, settings),
                                  strict=True):
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
    return top_card_match(band, backs)[0]


def top_card_match(band: RowBand, backs: Sequence[CalibratedBack]) -> tuple[float, float]:
    """The stretch of :func:`top_card_stretch` and its whole-card correlation (-inf where the
    band is shorter than a card)."""
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
    return best, best_ncc
