"""A band's card edges made square to it, read from the edge head.

A band read from a row's region runs across the row in the direction the layout's card
rectangles give; where those are a few degrees off, or the camera's tilt shears the cards, every
card edge crosses the band at a slant. The program then averages each edge over several columns
(a weak, wide start) and matches upright templates to slanted cards. The slant shows in the
edge head's map along the band: sheared by the right amount, its columns line up, and the
profile across the band is sharpest (the projection-profile test text readers use to straighten
lines). The slant may drift along a long row, so it is measured piecewise and smoothed.
"""

from __future__ import annotations

import cv2
import numpy as np

from .band import EDGE_TRIM, RowBand, sample_photo

#: Slants tried: band columns an edge moves per band row (0.6 is about 31 degrees).
SHEARS = np.linspace(-0.6, 0.6, 25)
#: The slant is measured over windows this many card widths long.
WINDOW_CARDS = 1.5
#: Windows whose sharpness gains less than this share over the unsheared profile are not read:
#: without clear edges (one card, a blank stretch) the slant is not measured.
MIN_GAIN = 0.05


def _sheared(values: np.ndarray, slope_per_col: np.ndarray) -> np.ndarray:
    """``values`` (H, L, ...) read at (row, column + slope * (row - middle)) for every column."""
    height, length = values.shape[:2]
    rows = np.arange(height, dtype=np.float32) + 0.5 - height / 2
    map_x = np.arange(length, dtype=np.float32)[None, :] + rows[:, None] * slope_per_col[None, :]
    map_y = np.broadcast_to(np.arange(height, dtype=np.float32)[:, None], (height, length))
    return cv2.remap(values, map_x.astype(np.float32), np.ascontiguousarray(map_y), cv2.INTER_LINEAR,
                     borderMode=cv2.BORDER_REPLICATE)


def edge_slant(edge_band: np.ndarray, card_width_px: int) -> np.ndarray:
    """Per band column, the slant of the card edges crossing the band (columns per row, in
    ``SHEARS``' range) from the edge head's map read on the band (H, L); zeros where no window
    shows edges clearly."""
    height, length = edge_band.shape
    trim = int(height * EDGE_TRIM)
    edge = np.ascontiguousarray(edge_band.astype(np.float32))
    window = max(3, int(WINDOW_CARDS * card_width_px))
    energy = []
    for slope in SHEARS:
        profile = _sheared(edge, np.full(length, slope, np.float32))[trim: height - trim].mean(axis=0)
        energy.append(cv2.blur((profile ** 2)[None, :].astype(np.float32), (window, 1))[0])
    energy_arr = np.stack(energy)  # (S, L)
    straight = energy_arr[int(np.argmin(np.abs(SHEARS)))]
    best = energy_arr.max(axis=0)
    gain = (best - straight) / (straight + 1e-6)
    slope = SHEARS[np.argmax(energy_arr, axis=0)]
    samples = np.arange(window // 2, length, max(1, window // 2))
    samples = samples[samples < length]
    weights = np.clip(best[samples] - energy_arr[:, samples].mean(axis=0), 0.0, None)
    read = gain[samples] >= MIN_GAIN
    if read.sum() == 0:
        return np.zeros(length, np.float32)
    degree = 0 if read.sum() < 3 else 1 if read.sum() < 6 else 2
    fit = np.polyfit(samples[read], slope[samples[read]], degree, w=np.sqrt(weights[read] + 1e-9))
    columns = np.clip(np.arange(length), samples[read].min(), samples[read].max())
    return np.clip(np.polyval(fit, columns), SHEARS[0], SHEARS[-1]).astype(np.float32)


def _extended(map_xy: np.ndarray, pad: int) -> np.ndarray:
    """``map_xy`` (H, L, 2) continued straight for ``pad`` columns past each end."""
    if map_xy.shape[1] < 2:
        return np.concatenate([map_xy] * (2 * pad + 1), axis=1)
    steps = np.arange(pad, 0, -1, dtype=np.float32)[None, :, None]
    head = map_xy[:, :1] - steps * (map_xy[:, 1:2] - map_xy[:, :1])
    tail = map_xy[:, -1:] + steps[:, ::-1] * (map_xy[:, -1:] - map_xy[:, -2:-1])
    return np.concatenate([head, map_xy, tail], axis=1).astype(np.float32)


def squared_band(band: RowBand, image_bgr: np.ndarray, slant: np.ndarray) -> RowBand:
    """``band`` read again from the photo with each column sheared by ``slant`` (columns per
    row), so that edges slanting that way stand square to the band."""
    if not np.any(slant):
        return band
    height = band.map_xy.shape[0]
    pad = int(np.ceil(np.abs(slant).max() * height / 2)) + 2
    extended = _extended(band.map_xy, pad)
    rows = np.arange(height, dtype=np.float32) + 0.5 - height / 2
    map_x = (np.arange(band.length_px, dtype=np.float32)[None, :] + pad
             + rows[:, None] * slant[None, :]).astype(np.float32)
    map_y = np.ascontiguousarray(np.broadcast_to(np.arange(height, dtype=np.float32)[:, None],
                                                 map_x.shape))
    map_xy = cv2.remap(extended, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    middle = map_xy[height // 2]
    photo_px = float(np.median(np.linalg.norm(np.diff(middle, axis=0), axis=-1))) if len(middle) > 1 else 1.0
    return RowBand(band_bgr=sample_photo(image_bgr, map_xy, photo_px), map_xy=map_xy,
                   card_wh=band.card_wh, landscape=band.landscape)
