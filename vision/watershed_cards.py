"""From the detector's network maps to cards: centre peaks seed a watershed over the edge map.

Each centre peak is one card; the marker-controlled watershed over the edge map gives each card
its visible region, which the clean-up rules of ``regions`` merge where the network put two peaks
on one card. From each region come the visible polygon, the strip width, the orientation
(the orientation head, snapped to the region's straight sides) and an estimate of the whole
card's outline. Works on any maps of the network's layout (tests use hand-made ones).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import cv2
import numpy as np

from .contact import grown_part_masks
from .detections import CardDetections
from .geometry import CARD_ASPECT, order_quad
from .regions import absorb_enclosed_regions, merge_regions, merge_split_lone_cards
from .small_parts import small_part_clusters, typical_card_long_px

#: The detector network's maps are at half the input resolution (the training targets in
#: ``cardtally.models.detector`` import this: vision never imports models).
OUTPUT_STRIDE = 2


@dataclass(frozen=True)
class DetectorSettings:
    """Thresholds of the map-to-cards step (probabilities in [0, 1], sizes in output pixels)."""

    centre_threshold: float = 0.16
    #: The centre map is smoothed with a Gaussian of this sigma (output pixels; 0: not at all)
    #: before its peaks are read: two ripples on one card's peak, which the network leaves on
    #: printed bands and pips, become one (git history of docs/BENCHMARKS.md).
    centre_blur_px: float = 0.0
    foreground_threshold: float = 0.5
    peak_window_px: int = 5
    min_region_px: int = 12
    #: Regions whose shared boundary has a lower mean edge probability are one card (0 turns
    #: merging off: best on the validation scenes with detector run 2).
    merge_edge_threshold: float = 0.0
    #: Regions with a lower mean foreground probability are table texture, not a card.
    min_region_foreground: float = 0.5
    #: A region that one other region surrounds, and smaller than this share of that card's
    #: area (size head), is a printed motif and joins it (0 turns this off).
    max_enclosed_card_fraction: float = 0.6
    #: Each region grows by this many output pixels before its outline is traced: the
    #: watershed leaves a one-pixel boundary line between regions, and a contour through the
    #: outer pixels' centres misses half a pixel more.
    region_grow_px: int = 1
    #: The orientation head is a few degrees off where the visible part's own straight edges
    #: are exact: within this many degrees, the card's axis is the visible rectangle's side.
    snap_angle_deg: float = 15.0
    #: Touching regions that lie apart from all others and together make one card's shape,
    #: within this fraction of the card length expected there, are one card: a lone card its
    #: own print cuts in pieces (0 turns this off) ...
    lone_card_size_tolerance: float = 0.15
    #: ... unless the edge head marks the boundary where they meet as a card edge (mean edge
    #: probability above this; 1 turns the check off): a whole card with a sliver of the one
    #: beneath, a small shingled stack. With it, the rule cuts the count error of spread
    #: layouts by a fifth for 0.4-0.7 points of recall in mixed, rows and fans
    #: (git history of docs/BENCHMARKS.md).
    lone_card_max_boundary_edge: float = 0.45
    #: A photo where at least this share of the cards lie alone (no other card within a few
    #: pixels) is a spread layout; its maps are read again with the centre threshold below,
    #: which there leaves fewer cards cut in pieces and misses hardly any more ...
    spread_lone_share: float = 0.7
    #: ... (0, or not above ``centre_threshold``, turns this off), unless that keeps fewer
    #: than this share of the cards: then their own peaks are weak (a photo unlike the
    #: renders, where the detector found few cards and each lies "alone").
    spread_centre_threshold: float = 0.20
    spread_min_kept: float = 0.8
    #: Parts shorter, along their longer side, than this share of a card width (the size
    #: head's median reading over the photo's cards; 0 turns this off) ...
    small_part_max_width_share: float = 0.4
    #: ... with at least this many other such parts within ...
    small_part_min_neighbours: int = 2
    #: ... this many card widths, and touching no part at least this many card widths long,
    #: are keyboard keys, not cards (``small_parts``).
    small_part_reach_widths: float = 1.0
    small_part_sparing_widths: float = 1.2


def find_peaks(centre: np.ndarray, threshold: float, window_px: int) -> np.ndarray:
    """(n, 2) integer x, y of local maxima above ``threshold``, strongest first."""
    dilated = cv2.dilate(centre, np.ones((window_px, window_px), np.uint8))
    is_peak = ((centre >= dilated) & (centre >= threshold)).astype(np.uint8)
    # Touching maxima are a plateau of equal values (an int8 model's coarse steps make them
    # common): one card, one peak, the plateau pixel listed first.
    _, plateau_of = cv2.connectedComponents(is_peak, connectivity=8)
    ys, xs = np.nonzero(is_peak)
    _, first = np.unique(plateau_of[ys, xs], return_index=True)
    ys, xs = ys[first], xs[first]
    order = np.argsort(-centre[ys, xs], kind="stable")
    return np.stack([xs[order], ys[order]], axis=1)


def cards_from_maps(
    maps: np.ndarray, image_wh: tuple[int, int], settings: DetectorSettings = DetectorSettings()
) -> CardDetections:
    """Turn the network maps into cards: one per centre peak, regions by watershed; a spread
    layout's maps (``DetectorSettings.spread_lone_share``) are read at its own threshold;
    clusters of parts too small for a card (keyboard keys) are dropped."""
    if settings.centre_blur_px:
        maps = maps.copy()
        maps[2] = cv2.GaussianBlur(maps[2], (0, 0), settings.centre_blur_px)
    cards = _cards_at_threshold(maps, image_wh, settings)
    if settings.spread_centre_threshold > settings.centre_threshold \
            and lone_card_share(cards) >= settings.spread_lone_share:
        spread = replace(settings, centre_threshold=settings.spread_centre_threshold)
        spread_cards = _cards_at_threshold(maps, image_wh, spread)
        if len(spread_cards) >= settings.spread_min_kept * len(cards):
            cards = spread_cards
    keys = small_part_clusters(
        cards, typical_card_long_px(maps[5], cards, OUTPUT_STRIDE), settings.small_part_max_width_share,
        settings.small_part_min_neighbours, settings.small_part_reach_widths,
        settings.small_part_sparing_widths)
    return cards[np.flatnonzero(~keys)] if keys.any() else cards


def lone_card_share(cards: CardDetections, touch_px: float = 8.0) -> float:
    """Share of the cards whose visible part comes within ``touch_px`` of no other card's
    (0 without cards)."""
    if len(cards) == 0:
        return 0.0
    shape, grown = grown_part_masks(cards, touch_px)
    cover = np.zeros(shape, np.int32)
    for rows, cols, mask in grown:
        cover[rows, cols] += mask
    alone = sum(bool((cover[rows, cols][mask] <= 1).all()) for rows, cols, mask in grown)
    return alone / len(cards)


def _cards_at_threshold(
    maps: np.ndarray, image_wh: tuple[int, int], settings: DetectorSettings
) -> CardDetections:
    foreground, edge, centre = maps[0], maps[1], maps[2]
    peaks = find_peaks(centre, settings.centre_threshold, settings.peak_window_px)
    peaks = peaks[foreground[peaks[:, 1], peaks[:, 0]] >= 0.3] if len(peaks) else peaks
    if len(peaks) == 0:
        return CardDetections.empty(image_wh)
    out_h, out_w = foreground.shape
    markers = np.zeros((out_h, out_w), np.int32)
    markers[foreground < settings.foreground_threshold * 0.6] = 1  # table
    for k, (x, y) in enumerate(peaks):
        markers[y, x] = k + 2
    # Watershed floods from the peaks; card edges are the ridges where floods meet.
    relief = np.clip(edge * 255.0, 0, 255).astype(np.uint8)
    cv2.watershed(cv2.merge([relief, relief, relief]), markers)
    markers = merge_regions(markers, edge, settings.merge_edge_threshold)
    markers = absorb_enclosed_regions(markers, maps[5], settings.max_enclosed_card_fraction)
    markers = merge_split_lone_cards(markers, maps[5], settings.lone_card_size_tolerance,
                                     edge=edge, max_boundary_edge=settings.lone_card_max_boundary_edge)

    polygons, quads, centres, angles, scores, strips = [], [], [], [], [], []
    for _, (y0, x0), region in _regions(markers, len(peaks)):
        if int(region.sum()) < settings.min_region_px:
            continue
        box = (slice(y0, y0 + region.shape[0]), slice(x0, x0 + region.shape[1]))
        inside = region > 0
        if foreground[box][inside].mean() < settings.min_region_foreground:
            continue
        cos2, sin2 = maps[3][box][inside].mean(), maps[4][box][inside].mean()
        contour = _outline(region, settings.region_grow_px) + np.array([x0, y0], np.int32)
        polygon = cv2.approxPolyDP(contour, 1.0, True).reshape(-1, 2).astype(np.float32)
        rect = cv2.minAreaRect(contour.astype(np.float32))
        # After merging, a region may hold several peaks: the strongest is its centre.
        x, y = _strongest_peak(peaks, centre, region, (y0, x0))
        rect_axis_deg = _rect_long_axis_deg(rect)
        if np.hypot(cos2, sin2) >= 0.5:
            head_deg = np.degrees(0.5 * np.arctan2(sin2, cos2))
            theta = np.radians(_snapped_axis_deg(head_deg, rect_axis_deg, settings.snap_angle_deg))
        else:  # the orientation head is unsure: fall back to the visible part's own long axis
            theta = np.radians(rect_axis_deg)
        # Region pixels are output-pixel centres: +0.5 before scaling back to input pixels.
        polygons.append((polygon + 0.5) * OUTPUT_STRIDE)
        quads.append((_full_card_quad(rect, theta) + 0.5) * OUTPUT_STRIDE)
        centres.append(((x + 0.5) * OUTPUT_STRIDE, (y + 0.5) * OUTPUT_STRIDE))
        angles.append(np.degrees(theta) % 180.0)
        scores.append(float(centre[y, x]))
        strips.append(min(rect[1]) * OUTPUT_STRIDE)
    if not polygons:
        return CardDetections.empty(image_wh)
    return CardDetections(
        quad_xy=np.stack(quads).astype(np.float32),
        visible_polygons_xy=tuple(polygons),
        centre_xy=np.array(centres, np.float32),
        angle_deg=np.array(angles, np.float32),
        score=np.array(scores, np.float32),
        image_wh=image_wh,
        strip_px=np.array(strips, np.float32),
    )


def _strongest_peak(
    peaks: np.ndarray, centre: np.ndarray, region: np.ndarray, origin_yx: tuple[int, int]
) -> tuple[int, int]:
    y0, x0 = origin_yx
    local = peaks - np.array([x0, y0])
    height, width = region.shape
    ok = (local[:, 0] >= 0) & (local[:, 0] < width) & (local[:, 1] >= 0) & (local[:, 1] < height)
    ok[ok] = region[local[ok, 1], local[ok, 0]] > 0
    if not ok.any():  # the peak pixel itself became a boundary: take the deepest region pixel
        ys, xs = np.nonzero(region)
        k = int(np.argmax(centre[ys + y0, xs + x0]))
        return int(xs[k] + x0), int(ys[k] + y0)
    inside = peaks[ok]
    k = int(np.argmax(centre[inside[:, 1], inside[:, 0]]))
    return int(inside[k, 0]), int(inside[k, 1])


def _regions(markers: np.ndarray, n_peaks: int):
    """Yield (peak index, (y0, x0), uint8 mask of its bounding box) per watershed region.

    Sorting the labelled pixels once keeps this linear in the image size, however many cards.
    """
    flat = markers.ravel()
    index = np.flatnonzero(flat >= 2)
    labels = flat[index]
    order = np.argsort(labels, kind="stable")
    index, labels = index[order], labels[order]
    bounds = np.searchsorted(labels, np.arange(2, n_peaks + 3))
    width = markers.shape[1]
    for k in range(n_peaks):
        pixels = index[bounds[k] : bounds[k + 1]]
        if len(pixels) == 0:
            continue
        ys, xs = np.divmod(pixels, width)
        y0, x0 = int(ys.min()), int(xs.min())
        region = np.zeros((int(ys.max()) - y0 + 1, int(xs.max()) - x0 + 1), np.uint8)
        region[ys - y0, xs - x0] = 1
        yield k, (y0, x0), region


def _outline(region: np.ndarray, grow_px: int) -> np.ndarray:
    """The region's outer contour (k, 1, 2) in its box's pixels, grown by ``grow_px``."""
    if grow_px:
        region = cv2.copyMakeBorder(
            region, grow_px, grow_px, grow_px, grow_px, cv2.BORDER_CONSTANT, value=0
        )
        kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * grow_px + 1, 2 * grow_px + 1))
        region = cv2.dilate(region, kernel)
    contours, _ = cv2.findContours(region, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    return max(contours, key=cv2.contourArea) - grow_px


def _snapped_axis_deg(head_deg: float, rect_axis_deg: float, tolerance_deg: float) -> float:
    """The visible rectangle's side nearest the orientation head, if within the tolerance.

    Such a rectangle is bounded by card edges, so its sides are exact where the head is a few
    degrees off. (Telling by the size head whether a strip runs along or across the card was
    measured and turns more cards the wrong way than the orientation head does.)
    """
    for side_deg in (rect_axis_deg, rect_axis_deg + 90.0):
        if abs((side_deg - head_deg + 90.0) % 180.0 - 90.0) <= tolerance_deg:
            return side_deg
    return head_deg


def _rect_long_axis_deg(rect: tuple) -> float:
    """Long-axis direction of an OpenCV rotated rectangle, in degrees."""
    (_, _), (rect_w, rect_h), angle = rect
    return float(angle if rect_w >= rect_h else angle + 90.0)


def _full_card_quad(rect: tuple, theta_rad: float) -> np.ndarray:
    """Estimate the whole card's outline from its visible rectangle and orientation.

    The visible part's extent along the card's long axis is the card's length when a strip is
    shown (shingled rows); the width follows from the card aspect. Where the visible part is
    longer across than along, the card is at least as large as what is seen.
    """
    (cx, cy), _, _ = rect
    box = cv2.boxPoints(rect)
    along = np.array([np.cos(theta_rad), np.sin(theta_rad)])
    across = np.array([-along[1], along[0]])
    rel = box - np.array([cx, cy])
    length = float(np.ptp(rel @ along))
    breadth = float(np.ptp(rel @ across))
    length = max(length, breadth / CARD_ASPECT)
    breadth = max(breadth, length * CARD_ASPECT)
    half_l, half_b = along * length / 2, across * breadth / 2
    centre = np.array([cx, cy])
    quad = np.array(
        [centre - half_l - half_b, centre + half_l - half_b, centre + half_l + half_b, centre - half_l + half_b]
    )
    return order_quad(quad)
