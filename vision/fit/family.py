"""Where two calibrated backs differ: the windows that tell decks of one family apart.

The decks of one Ligretto box share colour and pattern and differ by a symbol (in the middle,
on some backs also in two corners). A card of such a deck can be told from its siblings only
where such a window shows. Two backs are compared pixel by pixel in the card frame after they
are registered (a few pixels of shift) and brought to the same light (a gain and offset per
channel, with a limited colour cast so that a red deck does not pass for a blue one): a pixel differs where
the two backs are further apart, also allowing each a pixel of misregistration, than their
spreads over the calibration cards allow. A card can lie either way up, so a window must
differ from the other back in both of its turns. The windows are the rectangles around the
differing pixels, in the first back's card frame.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from ..rectify import CARD_FRAME_WH
from .backs import CalibratedBack

#: Largest shift (card-frame px) searched to register one back on the other.
REGISTER_SHIFT_PX = 4
#: Blur (px) before comparing.
BLUR_PX = 1.0
#: Each pixel may also be off by this much (px) between the two backs (fine print).
LOCAL_SLACK_PX = 1
#: A pixel differs where the backs are this many spreads apart ...
DIFFER_SPREADS = 3.0
#: ... and a window takes in the pixels around it this many spreads apart ...
GROW_SPREADS = 1.5
#: ... with this floor (grey levels) added to the spreads: JPEG and print noise.
NOISE_FLOOR = 8.0
#: One colour channel's gain may differ from the others' by at most this factor (a colour cast
#: of the light); beyond it the backs differ in colour.
MAX_CAST = 2.0
#: The offset of a channel's light (grey levels) is at most this.
MAX_OFFSET = 48.0
#: Differing pixels closer than this (px) belong to one window.
JOIN_PX = 11
#: Smaller windows (px, after joining) are noise.
MIN_WINDOW_PX = 12
#: Margin (px) added around each window.
WINDOW_MARGIN_PX = 4


@dataclass(frozen=True)
class FrameWindow:
    """A rectangle of the card frame (``CARD_FRAME_WH`` pixels, end exclusive)."""

    x0: int
    y0: int
    x1: int
    y1: int

    @property
    def area_px(self) -> int:
        """Pixels the window covers."""
        return (self.x1 - self.x0) * (self.y1 - self.y0)

    def words(self) -> str:
        """Where on the card the window lies, as a player says it ("the top-left corner")."""
        width, height = CARD_FRAME_WH
        if self.area_px >= 0.5 * width * height:
            return "most of the card"
        column = _third((self.x0 + self.x1) / 2, width)
        row = _third((self.y0 + self.y1) / 2, height)
        vertical, horizontal = ("top", "middle", "bottom")[row], ("left", "middle", "right")[column]
        if row == column == 1:
            return "the middle"
        if row == 1:
            return f"the {horizontal} edge"
        if column == 1:
            return f"the {vertical} edge"
        return f"the {vertical}-{horizontal} corner"


def _third(centre: float, size: int) -> int:
    return min(2, int(3 * centre / size))


def family_windows(back_a: CalibratedBack, back_b: CalibratedBack) -> tuple[FrameWindow, ...]:
    """The windows of ``back_a``'s card frame where it differs from ``back_b`` lying either way
    up (module doc); largest first. None: no part of the card tells the two apart."""
    spreads_apart = np.minimum(_distance(back_a, back_b.back_bgr, back_b.spread),
                               _distance(back_a, back_b.turned_bgr, back_b.spread[::-1, ::-1]))
    return _windows(spreads_apart)


def describe_windows(windows: tuple[FrameWindow, ...]) -> str:
    """The windows in words ("the middle and the top-left corner"), each place once."""
    places = list(dict.fromkeys(w.words() for w in windows))
    if len(places) <= 1:
        return "".join(places)
    return ", ".join(places[:-1]) + " and " + places[-1]


def _distance(back_a: CalibratedBack, other_bgr: np.ndarray, other_spread: np.ndarray) -> np.ndarray:
    """(H, W) float32: how many spreads ``back_a`` is from the other back lying this way up."""
    a = _blurred(back_a.back_bgr)
    b = _blurred(other_bgr)
    dx, dy = _best_shift(a, b)
    b = _shifted(b, dx, dy)
    b_spread = _shifted(np.ascontiguousarray(other_spread, np.float32), dx, dy)
    b = _colours_onto(a, b)
    nearest = np.full(a.shape[:2], np.inf, np.float32)
    slack = LOCAL_SLACK_PX
    for sy in range(-slack, slack + 1):
        for sx in range(-slack, slack + 1):
            moved = _shifted(b, sx, sy)
            # Colour distance per channel (RMS over the channels), in grey levels.
            distance = np.sqrt(((a - moved) ** 2).mean(axis=2))
            nearest = np.minimum(nearest, distance)
    noise = np.sqrt(back_a.spread**2 + b_spread**2 + NOISE_FLOOR**2)
    return (nearest / noise).astype(np.float32)


def _blurred(bgr: np.ndarray) -> np.ndarray:
    # Fine print aliases differently in every photo; the symbols are far larger.
    return cv2.GaussianBlur(bgr.astype(np.float32), (0, 0), BLUR_PX)


def _grey(bgr: np.ndarray) -> np.ndarray:
    grey = 0.114 * bgr[..., 0] + 0.587 * bgr[..., 1] + 0.299 * bgr[..., 2]
    return cv2.GaussianBlur(grey.astype(np.float32), (0, 0), 1.0)


def _best_shift(a: np.ndarray, b: np.ndarray) -> tuple[int, int]:
    """The shift (dx, dy) that moves ``b`` onto ``a`` (grey correlation)."""
    pad = REGISTER_SHIFT_PX
    patch = np.ascontiguousarray(_grey(b)[pad:-pad, pad:-pad])
    if float(patch.std()) < 1e-3:
        return 0, 0
    scores = cv2.matchTemplate(_grey(a), patch, cv2.TM_CCOEFF_NORMED)
    scores[~np.isfinite(scores)] = -np.inf
    y, x = np.unravel_index(int(np.argmax(scores)), scores.shape)
    return int(x) - pad, int(y) - pad


def _shifted(image: np.ndarray, dx: int, dy: int) -> np.ndarray:
    """``image`` moved by (dx, dy), its edge repeated into the uncovered border."""
    if dx == 0 and dy == 0:
        return image
    height, width = image.shape[:2]
    move = np.float32([[1, 0, dx], [0, 1, dy]])
    return cv2.warpAffine(image, move, (width, height), flags=cv2.INTER_NEAREST,
                          borderMode=cv2.BORDER_REPLICATE)


def _colours_onto(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``b`` in ``a``'s light: per channel a gain (the ratio of the channels' standard
    deviations: unlike a regression it does not shrink a noisy channel) and an offset; the gains
    within :data:`MAX_CAST` of their mean either way, the offsets within :data:`MAX_OFFSET`."""
    av, bv = a.reshape(-1, 3), b.reshape(-1, 3)
    gain = np.maximum(av.std(axis=0), 1.0) / np.maximum(bv.std(axis=0), 1.0)
    overall = float(np.exp(np.log(gain).mean()))
    gain = overall * np.clip(gain / overall, 1.0 / MAX_CAST, MAX_CAST)
    offset = np.clip(av.mean(axis=0) - gain * bv.mean(axis=0), -MAX_OFFSET, MAX_OFFSET)
    return (b * gain + offset).astype(np.float32)


def _windows(spreads_apart: np.ndarray) -> tuple[FrameWindow, ...]:
    # Hysteresis: pixels clearly apart start a window, which takes in the pixels around them
    # that are less clearly apart (a symbol's faint parts); lone pixels are noise.
    strong = cv2.morphologyEx((spreads_apart > DIFFER_SPREADS).astype(np.uint8), cv2.MORPH_OPEN,
                              np.ones((2, 2), np.uint8))
    weak = ((spreads_apart > GROW_SPREADS) | (strong > 0)).astype(np.uint8)
    joined = cv2.dilate(weak, np.ones((JOIN_PX, JOIN_PX), np.uint8))
    n, labels = cv2.connectedComponents(joined, connectivity=8)
    height, width = spreads_apart.shape
    boxes = []
    for k in range(1, n):
        component = labels == k
        if (component & (strong > 0)).sum() < MIN_WINDOW_PX:
            continue
        ys, xs = np.nonzero(component & (weak > 0))
        m = WINDOW_MARGIN_PX
        boxes.append([max(0, xs.min() - m), max(0, ys.min() - m),
                      min(width, xs.max() + 1 + m), min(height, ys.max() + 1 + m)])
    windows = merged_windows([FrameWindow(*(int(v) for v in box)) for box in boxes])
    return tuple(sorted(windows, key=lambda w: -w.area_px))


def merged_windows(windows: Sequence[FrameWindow]) -> tuple[FrameWindow, ...]:
    """The windows with every overlapping pair replaced by the rectangle around both."""
    boxes = [(w.x0, w.y0, w.x1, w.y1) for w in windows]
    merged = True
    while merged:
        merged = False
        for i in range(len(boxes)):
            for j in range(i + 1, len(boxes)):
                a, b = boxes[i], boxes[j]
                if a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]:
                    boxes[i] = (min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3]))
                    del boxes[j]
                    merged = True
                    break
            if merged:
                break
    return tuple(FrameWindow(*box) for box in boxes)
