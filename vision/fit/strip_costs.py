"""How well every strip of a band is explained as the leading part of one back.

In a shingled row each card shows its leading part: from its own start to the next card's
start. For a back template T (one turn, already oriented along the band) and a band B, the
strip that starts at band column x and is w columns wide is compared with T's first w columns
by normalised cross-correlation over the Lab channels (each channel's mean removed: the
photo's white balance and exposure differ from the calibration's), so
``mismatch(x, w) = 1 - ncc``.

All (x, w) pairs come from one matrix product per template: ``P[x', j] = B[:, x'] . T[:, j]``,
then the diagonal ``P[x + j, j]`` summed over j < w by a cumulative sum; the means and
variances come from cumulative sums the same way.

**Continuation.** Repeating designs match their own leading part at almost any offset, so a
strip that is too short still fits well. But if the strip really ends at x + w, the band just
after it shows the next card, not T's next columns; when T keeps matching past the strip's end,
the strip probably goes on. That correlation, over ``CONTINUATION_PX`` columns, is returned
beside the mismatch and the program adds it as a penalty.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

#: Band columns past a strip's end over which the template's continuation is checked.
CONTINUATION_PX = 6
#: Rows are not perfectly straight: each template is also tried shifted by up to this many rows.
SHIFT_ROWS = 1
#: The colour channels (a, b) weigh this much against lightness (L): decks printed alike in
#: another colour differ only there.
CHROMA_WEIGHT = 1.0
#: Below this variance (Lab units squared, per pixel) a window is flat and its correlation 0.
FLAT_VARIANCE = 4.0


@dataclass(frozen=True)
class StripCosts:
    """For every strip start x (band column) and width w (0..card width): ``mismatch[x, w]``
    (1 - ncc, inf where the strip leaves the band) and ``continuation[x, w]`` (the ncc of the
    template's next columns with the band past the strip's end; 0 where nothing follows)."""

    mismatch: np.ndarray
    continuation: np.ndarray


def band_lab(band_bgr: np.ndarray) -> np.ndarray:
    """The image in float32 Lab with each channel's mean removed (correlation ignores the
    means, and small numbers keep the window sums exact)."""
    lab = cv2.cvtColor(band_bgr.astype(np.float32) / 255.0, cv2.COLOR_BGR2Lab)
    lab = lab - lab.reshape(-1, 3).mean(axis=0)
    lab[..., 1:] *= CHROMA_WEIGHT
    return lab


def _prefix(values: np.ndarray) -> np.ndarray:
    """Cumulative sums over the last axis with a leading 0: prefix[..., w] sums the first w."""
    out = np.zeros((*values.shape[:-1], values.shape[-1] + 1), np.float64)
    np.cumsum(values, axis=-1, out=out[..., 1:])
    return out


@dataclass(frozen=True)
class _Windows:
    """Sums over a set of windows (one per strip start x and width w): per channel
    ``channel_sums[c][x, w]`` and the sum of squared deviations from the window's means."""

    channel_sums: tuple[np.ndarray, ...]
    deviation_sq: np.ndarray
    pixels: np.ndarray


@dataclass(frozen=True)
class BandWindows:
    """The band's own window sums, shared by every template it is compared with: the strips
    (columns x .. x + w - 1) and their continuations (the ``CONTINUATION_PX`` columns after
    them, inside the card); ``columns`` (L + W, H * C) is the band column-major, zero-padded."""

    columns: np.ndarray
    strips: _Windows
    tails: _Windows
    width: int

    @property
    def length(self) -> int:
        """Band columns."""
        return self.strips.deviation_sq.shape[0]


def _tail_ends(width: int) -> tuple[np.ndarray, np.ndarray]:
    widths = np.arange(width + 1)
    return widths, np.minimum(widths + CONTINUATION_PX, width)


def _windows(col_sums: np.ndarray, col_sq: np.ndarray, lo: np.ndarray, hi: np.ndarray,
             pixels_per_col: int) -> _Windows:
    """Sums over columns [x + lo, x + hi) from per-column prefix sums."""
    sums = tuple(col_sums[:, c, hi] - col_sums[:, c, lo] for c in range(col_sums.shape[1]))
    square = col_sq[:, hi] - col_sq[:, lo]
    pixels = np.maximum((hi - lo) * pixels_per_col, 1)[None, :].astype(np.float64)
    deviation = square - sum(s * s for s in sums) / pixels
    return _Windows(channel_sums=sums, deviation_sq=deviation, pixels=pixels)


def band_windows(band: np.ndarray, width: int) -> BandWindows:
    """Window sums of ``band`` (H, L, C Lab, channel means removed) up to ``width`` columns."""
    height, length, channels = band.shape
    columns = np.zeros((length + width, height * channels), np.float32)
    columns[:length] = band.transpose(1, 0, 2).reshape(length, height * channels)
    index = np.arange(length)[:, None] + np.arange(width)[None, :]
    col_sum = np.zeros((length + width, channels), np.float64)
    col_sum[:length] = band.sum(axis=0)
    col_sq = np.zeros(length + width, np.float64)
    col_sq[:length] = (band.astype(np.float64) ** 2).sum(axis=(0, 2))
    prefix_sum = _prefix(col_sum[index].transpose(0, 2, 1))  # (L, C, W + 1)
    prefix_sq = _prefix(col_sq[index])  # (L, W + 1)
    widths, ends = _tail_ends(width)
    zero = np.zeros_like(widths)
    return BandWindows(columns=columns,
                       strips=_windows(prefix_sum, prefix_sq, zero, widths, height),
                       tails=_windows(prefix_sum, prefix_sq, widths, ends, height), width=width)


def _cross_sums(windows: BandWindows, template: np.ndarray) -> np.ndarray:
    """(L, W + 1): prefix sums over j < w of band column x + j times template column j."""
    height, width, channels = template.shape
    template_cols = template.transpose(1, 0, 2).reshape(width, height * channels)
    products = windows.columns @ template_cols.T.astype(np.float32)  # (L + W, W)
    index = np.arange(windows.length)[:, None] + np.arange(width)[None, :]
    return _prefix(products[index, np.arange(width)[None, :]].astype(np.float64))


def _ncc(cross: np.ndarray, band: _Windows, template: _Windows) -> np.ndarray:
    """Correlation of each window pair from its sums (channel means removed, channels pooled)."""
    cov = cross - sum(b * t for b, t in zip(band.channel_sums, template.channel_sums,
                                              strict=True)) / band.pixels
    flat = ((band.deviation_sq < FLAT_VARIANCE * band.pixels)
            | (template.deviation_sq < FLAT_VARIANCE * template.pixels))
    with np.errstate(invalid="ignore", divide="ignore"):
        ncc = cov / np.sqrt(np.maximum(band.deviation_sq * template.deviation_sq, 1e-12))
    return np.where(flat | ~np.isfinite(ncc), 0.0, ncc)


def strip_costs(windows: BandWindows, template: np.ndarray) -> StripCosts:
    """Mismatch and continuation of every strip of the band behind ``windows`` against the
    leading parts of ``template`` (H, W, 3 Lab, channel means removed), the best over small
    vertical shifts of the template."""
    height, width, channels = template.shape
    length = windows.length
    best_mismatch = np.full((length, width + 1), np.inf)
    best_continuation = np.zeros((length, width + 1))
    widths, ends = _tail_ends(width)
    fits = ((np.arange(length)[:, None] + widths[None, :]) <= length) & (widths[None] > 0)
    inside = ((np.arange(length)[:, None] + ends[None, :]) <= length) & (ends > widths)[None]
    for shift in range(-SHIFT_ROWS, SHIFT_ROWS + 1):
        shifted = np.roll(template, shift, axis=0)
        if shift > 0:
            shifted[:shift] = template[:1]
        elif shift < 0:
            shifted[shift:] = template[-1:]
        cross = _cross_sums(windows, shifted)
        col_sum = _prefix(shifted.sum(axis=0).astype(np.float64).T)[None]  # (1, C, W + 1)
        col_sq = _prefix((shifted.astype(np.float64) ** 2).sum(axis=(0, 2)))[None]
        zero = np.zeros_like(widths)
        strip_t = _windows(col_sum, col_sq, zero, widths, height)
        tail_t = _windows(col_sum, col_sq, widths, ends, height)
        mismatch = np.where(fits, 1.0 - _ncc(cross, windows.strips, strip_t), np.inf)
        cont = np.where(inside, _ncc(cross[:, ends] - cross[:, widths], windows.tails, tail_t),
                        0.0)
        better = mismatch < best_mismatch
        best_mismatch = np.where(better, mismatch, best_mismatch)
        best_continuation = np.where(better, cont, best_continuation)
    return StripCosts(mismatch=best_mismatch, continuation=best_continuation)
