"""How well every strip of a band is explained as the leading part of one back.

In a shingled row each card shows its leading part: from its own start to the next card's
start. For a back template T (one turn, already oriented along the band) and a band B, the
strip that starts at band column x and is w columns wide is compared with T's first w columns
by normalised cross-correlation over the Lab channels (each channel's mean removed: the
photo's white balance and exposure differ from the calibration's), so
``mismatch(x, w) = 1 - ncc``.

**Both stacking directions from one product.** Cards stacked the other way show their leading
parts in the band mirrored: read mirrored, the band's strips are compared with the mirrored
template's first columns, i.e. the template's *last* columns. Both readings pair band column
d + j with template column j for some offset d, so one matrix product per template,
``P[j, x'] = T[:, j] . B[:, x']``, serves both: its diagonals ``P[j, d + j]`` summed by a
cumulative sum over j give every window's cross sum, the band as laid taking a diagonal's
first w columns and the band mirrored its last w. Each image's window means and variances come
from cumulative sums over its columns, the band's once per band, the template's once per
template.

The product is taken in float32 over columns whose own channel means are removed (their share,
rank 3, is added in float64): what is left is small, so the correlations stay within ~1e-7 of
an exact computation although the windows' means are often far larger than their spread.

**Continuation.** Repeating designs match their own leading part at almost any offset, so a
strip that is too short still fits well. But if the strip really ends at x + w, the band just
after it shows the next card, not T's next columns; when T keeps matching past the strip's end,
the strip probably goes on. That correlation, over ``CONTINUATION_PX`` columns, is returned
beside the mismatch and the program adds it as a penalty.
"""

from __future__ import annotations

from dataclasses import dataclass, field

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


def _cumulated(values: np.ndarray, length: int) -> np.ndarray:
    """Cumulative sums over the last axis with a leading 0, out[..., n] summing the first n,
    continued flat to ``length`` + 1 entries (zero columns past the end)."""
    out = np.zeros((*values.shape[:-1], length + 1), np.float64)
    np.cumsum(values, axis=-1, out=out[..., 1: values.shape[-1] + 1])
    out[..., values.shape[-1] + 1:] = out[..., values.shape[-1], None]
    return out


def _column_sums(image: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each column's channel sums (..., C, N) and sum of squares (..., N) of ``image``
    (..., H, N, C), in float64."""
    values = image.astype(np.float64)
    return np.swapaxes(values.sum(axis=-3), -1, -2), np.einsum("...hnc,...hnc->...n", values,
                                                                values)


@dataclass(frozen=True)
class _Windows:
    """An image's windows at every start x and width w, the strips (columns x .. x + w - 1)
    or their tails (the ``CONTINUATION_PX`` columns after them, inside the card):
    ``means`` (..., C, W + 1, X) per channel over ``pixels`` (W + 1, 1), ``inverse_root``
    (..., W + 1, X) the reciprocal root of the squared deviation from the window's means (0
    where the window is flat: its correlation is then 0), ``outside`` (W + 1, X) where the
    window is empty or leaves the image (a tail: or its strip does)."""

    means: np.ndarray
    pixels: np.ndarray
    inverse_root: np.ndarray
    outside: np.ndarray


def _windows(col_sums: np.ndarray, col_sq: np.ndarray, height: int, width: int, starts: int
             ) -> tuple[_Windows, _Windows]:
    """The strips and tails that start at x = 0 .. ``starts`` - 1 of an image ``height`` rows
    high with column sums ``col_sums`` (..., C, N) and ``col_sq`` (..., N)."""
    length = col_sums.shape[-1]
    widths = np.arange(width + 1)
    ends = np.minimum(widths + CONTINUATION_PX, width)
    # at_sums[..., k, x] = the sum over columns 0 .. x + k - 1 (zero columns past the image)
    at_sums = np.lib.stride_tricks.sliding_window_view(
        _cumulated(col_sums, starts + width), starts, axis=-1)
    at_sq = np.lib.stride_tricks.sliding_window_view(
        _cumulated(col_sq, starts + width), starts, axis=-1)
    starts_past = np.arange(starts)[None, :]
    strip_inside = (starts_past + widths[:, None] <= length) & (widths > 0)[:, None]
    out = []
    for lo, hi, inside in ((np.zeros_like(widths), widths, strip_inside),
                           (widths, ends, strip_inside & (starts_past + ends[:, None] <= length)
                            & (ends > widths)[:, None])):
        pixels = np.maximum((hi - lo) * height, 1).astype(np.float64)[:, None]
        means = at_sums[..., hi, :] - at_sums[..., lo, :]
        means /= pixels
        deviation = at_sq[..., hi, :] - at_sq[..., lo, :]
        deviation -= pixels * np.einsum("...cwx,...cwx->...wx", means, means)
        flat = deviation < FLAT_VARIANCE * pixels
        deviation[flat] = 1.0
        inverse_root = np.divide(1.0, np.sqrt(deviation, out=deviation), out=deviation)
        inverse_root[flat] = 0.0
        out.append(_Windows(means=means, pixels=pixels, inverse_root=inverse_root,
                            outside=~inside))
    return out[0], out[1]


def _centred_columns(image: np.ndarray, col_sums: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The columns of ``image`` (..., H, N, C) as float32 rows (..., N, H * C), each column's
    channel means removed (in float64: only the small remainder is rounded), and those means
    (..., N, C)."""
    means = np.swapaxes(col_sums, -1, -2) / image.shape[-3]
    centred = (np.swapaxes(image, -3, -2) - means[..., None, :]).astype(np.float32)
    return centred.reshape(*centred.shape[:-2], -1), means


class _Scratch:
    """Working arrays kept from one template to the next: fresh ones of a few MB each cost a
    page fault per 4 kB every time, as much as the arithmetic done in them."""

    def __init__(self) -> None:
        self._arrays: dict[str, np.ndarray] = {}

    def get(self, name: str, shape: tuple[int, ...], dtype: type = np.float64) -> np.ndarray:
        """The array kept under ``name``, (re)made if its shape or type differs."""
        array = self._arrays.get(name)
        if array is None or array.shape != shape or array.dtype != dtype:
            array = self._arrays[name] = np.empty(shape, dtype)
        return array


@dataclass(frozen=True)
class BandWindows:
    """The band's own windows, shared by every template it is compared with: ``laid`` the band
    as it is, ``mirrored`` the band read from its far end (cards stacked the other way), each
    (strips, tails). ``columns`` (L + 2 W, H * C) float32 is the band column-major, each
    column's channel means (``column_means``, (L + 2 W, C)) removed, with W zero columns either
    side (a diagonal of the product may start before the band or run past its end)."""

    columns: np.ndarray
    column_means: np.ndarray
    laid: tuple[_Windows, _Windows]
    mirrored: tuple[_Windows, _Windows]
    width: int
    scratch: _Scratch = field(default_factory=_Scratch, compare=False, repr=False)

    @property
    def length(self) -> int:
        """Band columns."""
        return self.columns.shape[0] - 2 * self.width


def band_windows(band: np.ndarray, width: int) -> BandWindows:
    """Window sums of ``band`` (H, L, C Lab, channel means removed) up to ``width`` columns."""
    height, length, channels = band.shape
    col_sums, col_sq = _column_sums(band)
    columns = np.zeros((length + 2 * width, height * channels), np.float32)
    column_means = np.zeros((length + 2 * width, channels), np.float64)
    columns[width: width + length], column_means[width: width + length] = _centred_columns(
        band, col_sums)
    return BandWindows(
        columns=columns, column_means=column_means,
        laid=_windows(col_sums, col_sq, height, width, length),
        mirrored=_windows(col_sums[..., ::-1], col_sq[::-1], height, width, length), width=width)


def _shifted(template: np.ndarray, shift: int) -> np.ndarray:
    """The template moved down by ``shift`` rows (up where negative), its edge row repeated."""
    shifted = np.roll(template, shift, axis=0)
    if shift > 0:
        shifted[:shift] = template[:1]
    elif shift < 0:
        shifted[shift:] = template[-1:]
    return shifted


def _diagonal_sums(windows: BandWindows, centred: np.ndarray, means: np.ndarray, height: int
                   ) -> np.ndarray:
    """``cross[k, j, d + W]`` (K, W + 1, L + W + 1): the sum over the first j columns of
    template k (of ``centred`` (K, W, H * C) and ``means`` (K, W, C), its centred columns and
    their means) of band column d + i times template column i, for offsets d = -W .. L."""
    templates, width = centred.shape[:2]
    # column . column = centred . centred + H * means . means
    scratch = windows.scratch
    shape = (templates * width, windows.columns.shape[0])
    products = np.matmul(height * means.reshape(templates * width, -1), windows.column_means.T,
                         out=scratch.get("products", shape))
    products += np.matmul(centred.reshape(templates * width, -1), windows.columns.T,
                          out=scratch.get("centred products", shape, np.float32))
    item, row = products.itemsize, products.strides[0]
    cross = scratch.get("cross", (templates, width + 1, windows.length + width + 1))
    cross[:, 0] = 0.0
    for k in range(templates):
        # diagonal[j, e] = products[k W + j, j + e]: offset d = e - W
        diagonal = np.lib.stride_tricks.as_strided(
            products[k * width:], shape=(width, cross.shape[2]), strides=(row + item, item),
            writeable=False)
        np.cumsum(diagonal, axis=0, out=cross[k, 1:])
    return cross


def _tail_cross(cross: np.ndarray, out: np.ndarray) -> np.ndarray:
    """From cross sums over the template's first w columns (..., W + 1, X), those over its
    columns w .. e - 1, e = min(w + ``CONTINUATION_PX``, W)."""
    k = CONTINUATION_PX
    np.subtract(cross[..., k:, :], cross[..., :-k, :], out=out[..., :-k, :])
    np.subtract(cross[..., -1:, :], cross[..., -k:, :], out=out[..., -k:, :])
    return out


def _correlations(cross: np.ndarray, band: _Windows, template_sums: np.ndarray,
                  template_root: np.ndarray, out: np.ndarray) -> np.ndarray:
    """(shifts, W + 1, L): each window pair's correlation from its cross sums (shifts, W + 1,
    L) and both sides' window statistics (the template's per shift, (shifts, C, W + 1) and
    (shifts, W + 1))."""
    # sum over pixels of (b - mean b)(t - mean t) = cross - sum_c mean_c(b) * sum_c(t)
    ncc = np.einsum("scw,cwx->swx", template_sums, band.means, out=out)
    np.subtract(cross, ncc, out=ncc)
    ncc *= band.inverse_root
    ncc *= template_root[:, :, None]
    return ncc


def _best_shift(cross: np.ndarray, band: tuple[_Windows, _Windows],
                template: tuple[_Windows, _Windows], scratch: _Scratch) -> StripCosts:
    """The costs of one reading from the cross sums over the first w columns of each shift
    of the template (shifts, W + 1, L) and both sides' windows, each strip's shift the one it
    matches best (the first of a tie)."""
    (band_strips, band_tails), (strips, tails) = band, template
    mismatch = _correlations(cross, band_strips, strips.means[..., 0] * strips.pixels[:, 0],
                             strips.inverse_root[..., 0], scratch.get("strips", cross.shape))
    np.subtract(1.0, mismatch, out=mismatch)
    continuation = _correlations(_tail_cross(cross, scratch.get("tail cross", cross.shape)),
                                 band_tails, tails.means[..., 0] * tails.pixels[:, 0],
                                 tails.inverse_root[..., 0], scratch.get("tails", cross.shape))
    best_mismatch, best_continuation = mismatch[0].copy(), continuation[0].copy()
    for shift in range(1, len(mismatch)):
        # 1 where this shift is better: which shift wins varies from pixel to pixel, and a
        # blend runs several times faster than a masked copy's unpredictable branches
        take = (mismatch[shift] < best_mismatch).astype(np.float64)
        np.minimum(best_mismatch, mismatch[shift], out=best_mismatch)
        best_continuation *= 1.0 - take
        best_continuation += continuation[shift] * take
    np.copyto(best_mismatch, np.inf, where=band_strips.outside)
    np.copyto(best_continuation, 0.0, where=band_tails.outside)
    return StripCosts(mismatch=best_mismatch.T, continuation=best_continuation.T)


def strip_costs_both_ways(windows: BandWindows, template: np.ndarray
                          ) -> tuple[StripCosts, StripCosts]:
    """Mismatch and continuation of every strip of the band behind ``windows`` against the
    leading parts of ``template`` (H, W, 3 Lab, channel means removed), the best over small
    vertical shifts of the template: the band as laid, and the band read mirrored (band and
    template both mirrored: cards stacked the other way; x counts from the band's far end)."""
    height, width = template.shape[:2]
    length = windows.length
    shifted = np.stack([_shifted(template, shift)
                        for shift in range(-SHIFT_ROWS, SHIFT_ROWS + 1)])
    col_sums, col_sq = _column_sums(shifted)
    cross = _diagonal_sums(windows, *_centred_columns(shifted, col_sums), height)
    # the template's windows as laid and mirrored: (2, shifts, ...)
    strips, tails = _windows(np.stack([col_sums, col_sums[..., ::-1]]),
                             np.stack([col_sq, col_sq[..., ::-1]]), height, width, 1)
    # as laid, the strip at x takes the first w columns of the diagonal at offset x
    laid = cross[:, :, width: width + length]
    # mirrored, the strip at x' takes the last w columns of the diagonal at offset L - W - x'
    mirrored = cross[:, :, length: 0: -1]
    mirrored = np.subtract(mirrored[:, width: width + 1], mirrored[:, ::-1],
                           out=windows.scratch.get("mirrored", laid.shape))
    return (_best_shift(laid, windows.laid, (_reading(strips, 0), _reading(tails, 0)),
                        windows.scratch),
            _best_shift(mirrored, windows.mirrored, (_reading(strips, 1), _reading(tails, 1)),
                        windows.scratch))


def _reading(windows: _Windows, index: int) -> _Windows:
    """One reading's share of windows computed for both."""
    return _Windows(means=windows.means[index], pixels=windows.pixels,
                    inverse_root=windows.inverse_root[index], outside=windows.outside)


def strip_costs(windows: BandWindows, template: np.ndarray) -> StripCosts:
    """Mismatch and continuation of every strip of the band behind ``windows`` against the
    leading parts of ``template`` (H, W, 3 Lab, channel means removed), the best over small
    vertical shifts of the template, the band as laid."""
    return strip_costs_both_ways(windows, template)[0]
