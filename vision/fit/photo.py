"""Fit a photo's rows: from the layout stage's groups to each row's cards and decks.

For each group the layout stage reads as a row (or that the caller wants walked as one), the
band is read along the foreground region its cards cover (``spine``), the layout network's edge
head is read across the band at every column, and the row program (``rows``) explains the band
as cards of the calibrated backs, each strip's deck then decided among close siblings by the
family windows that show in it (``siblings``), and fronts told by the back embedder's face-up
head (``face_up``). A band read from a region knows the card's size across the
row but not along it (the camera's tilt shortens the two directions differently), so it is first
stretched along the row until its top card, whole at one end, is as wide as a back.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from ..embed import BackEmbedder
from ..layout.groups import CardGroup
from ..layout.photo import PhotoLayout
from .backs import CalibratedBack
from .band import (
    BAND_END_MARGIN_PX,
    EDGE_TRIM,
    RowBand,
    crop_band,
    row_band,
    stretch_band,
    turned_band,
)
from .face_up import mark_face_up
from .rows import RowFit, RowFitSettings, fit_row, top_card_stretch
from .shear import edge_slant, squared_band
from .siblings import SiblingWindows, decide_siblings
from .spine import FOREGROUND_LEVEL, foreground_regions, group_region, row_band_from_region


@dataclass(frozen=True)
class FittedRow:
    """One group walked as a row: the layout cards it came from, its band and the fit."""

    card_index: tuple[int, ...]
    band: RowBand
    fit: RowFit


@dataclass(frozen=True)
class PhotoFit:
    """The fitted rows of one photo."""

    rows: tuple[FittedRow, ...]

    def counts(self) -> Counter[str]:
        """Cards per deck name ("" for cards of no calibrated deck)."""
        return Counter(strip.deck_name for row in self.rows for strip in row.fit.strips)


def _map_at(layout: PhotoLayout, head: np.ndarray, map_xy: np.ndarray) -> np.ndarray:
    """One of the layout network's maps read at photo points ``map_xy`` (H, W, 2). Cell i covers
    the processed pixels [i, i + 1) * stride: its value sits at its centre (as the regions of
    ``spine`` place their cells)."""
    cells = (np.asarray(map_xy) * layout.scale / layout.maps.stride - 0.5).astype(np.float32)
    return cv2.remap(head.astype(np.float32), cells, None, cv2.INTER_LINEAR,
                     borderMode=cv2.BORDER_REPLICATE)


def edge_at(layout: PhotoLayout, map_xy: np.ndarray) -> np.ndarray:
    """The layout network's edge probability at photo points ``map_xy`` (H, W, 2)."""
    return _map_at(layout, layout.maps.edge, map_xy)


def trim_to_cards(band: RowBand, layout: PhotoLayout) -> RowBand:
    """``band`` cut to where the foreground head sees cards along its middle, plus the band's
    end margin: a region's ends, read from whole map cells, overshoot the row by up to a cell
    or two, and the program takes what lies beyond the row's ends for cards (the top card is
    then measured too narrow and a sliver card fills the rest)."""
    foreground = _map_at(layout, layout.maps.foreground, band.map_xy)
    height = foreground.shape[0]
    along = foreground[height // 4: height - height // 4].mean(axis=0)
    on = np.nonzero(along >= FOREGROUND_LEVEL)[0]
    if len(on) == 0:
        return band
    return crop_band(band, int(on[0]) - BAND_END_MARGIN_PX, int(on[-1]) + 1 + BAND_END_MARGIN_PX)


def edge_across(layout: PhotoLayout, band: RowBand) -> np.ndarray:
    """The edge probability averaged across the band at each of its columns."""
    edge = edge_at(layout, band.map_xy)
    trim = int(edge.shape[0] * EDGE_TRIM)
    return edge[trim: edge.shape[0] - trim].mean(axis=0)


def group_band(image_bgr: np.ndarray, layout: PhotoLayout, group: CardGroup) -> RowBand:
    """The band of one group, read along its region; a group too small for a region (a lone
    card) is read through its card's rectangle."""
    quads = [np.asarray(layout.cards.quad_xy[i], np.float64) for i in group.card_index]
    region = group_region(layout, group.card_index)
    try:
        return row_band_from_region(image_bgr, region, layout.maps.stride / layout.scale,
                                    layout.card_long_px, quads,
                                    edge_at=lambda map_xy: edge_at(layout, map_xy))
    except ValueError:
        return row_band(image_bgr, quads)


def _mean_mismatch(fit: RowFit) -> float:
    """The fit's mismatch per band column (strips weighed by their width): comparable between
    two readings of one band, whatever their lengths and counts."""
    widths = sum(strip.width_px for strip in fit.strips)
    return sum(strip.mismatch * strip.width_px for strip in fit.strips) / max(widths, 1)


def fit_band(image_bgr: np.ndarray, band: RowBand, layout: PhotoLayout,
             backs: Sequence[CalibratedBack], settings: RowFitSettings, windows: SiblingWindows,
             embedder: BackEmbedder | None) -> tuple[RowBand, RowFit]:
    """One band cut to its cards, its card edges squared to it, read both ways the card may
    lie across it, each stretched to its top card and explained by the row program with the
    edge head; the reading whose strips match their backs better is kept, its strips' decks
    decided among close siblings, and fronts given no deck (none is told without
    ``embedder``).

    Both turns are tried because a row's width alone does not say which side of the card lies
    across it where the layout's rectangles are wrong (the card's size read short or turned):
    a band read the wrong way holds cards half again too long, which the templates fit badly.
    The whole row decides, not its top card alone: that one is often cut by the photo's edge
    or face up."""
    band = trim_to_cards(band, layout)
    band = squared_band(band, image_bgr, edge_slant(edge_at(layout, band.map_xy), band.card_wh[0]))
    fitted = []
    for reading in (band, turned_band(band, image_bgr)):
        reading = stretch_band(reading, top_card_stretch(reading, backs))
        fitted.append((reading, fit_row(reading, backs, edge_across(layout, reading), settings)))
    band, fit = min(fitted, key=lambda pair: _mean_mismatch(pair[1]))
    fit = decide_siblings(band, fit, backs, windows=windows)
    return band, fit if embedder is None else mark_face_up(band, fit, embedder)


def fit_rows(image_bgr: np.ndarray, layout: PhotoLayout, groups: Sequence[CardGroup],
             backs: Sequence[CalibratedBack],
             settings: RowFitSettings = RowFitSettings(),  # noqa: B008
             embedder: BackEmbedder | None = None) -> PhotoFit:
    """Walk each of ``groups`` as a row and explain it with ``backs`` (fronts told by
    ``embedder``'s face-up head)."""
    windows = SiblingWindows(backs)
    rows = []
    for group in groups:
        band, fit = fit_band(image_bgr, group_band(image_bgr, layout, group), layout, backs,
                             settings, windows, embedder)
        rows.append(FittedRow(card_index=group.card_index, band=band, fit=fit))
    return PhotoFit(rows=tuple(rows))


def fit_regions(image_bgr: np.ndarray, layout: PhotoLayout, backs: Sequence[CalibratedBack],
                settings: RowFitSettings = RowFitSettings(),  # noqa: B008
                embedder: BackEmbedder | None = None) -> PhotoFit:
    """Walk each separate card region of the photo (``foreground_regions``) as a row (fronts
    told by ``embedder``'s face-up head)."""
    windows = SiblingWindows(backs)
    rows = []
    cell_px = layout.maps.stride / layout.scale
    for points, card_index in foreground_regions(layout):
        quads = [np.asarray(layout.cards.quad_xy[i], np.float64) for i in card_index]
        try:
            band = row_band_from_region(image_bgr, points, cell_px, layout.card_long_px, quads,
                                        edge_at=lambda map_xy: edge_at(layout, map_xy))
        except ValueError:
            continue
        band, fit = fit_band(image_bgr, band, layout, backs, settings, windows, embedder)
        rows.append(FittedRow(card_index=card_index, band=band, fit=fit))
    return PhotoFit(rows=tuple(rows))
