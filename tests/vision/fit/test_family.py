"""Family windows: where two calibrated backs differ, from rendered Ligretto-like siblings."""

import cv2
import numpy as np
import pytest

from cardtally.models.synth.designs import named_design_family
from cardtally.vision.fit.back_median import build_back
from cardtally.vision.fit.family import FrameWindow, describe_windows, family_windows
from cardtally.vision.rectify import CARD_FRAME_WH

from .test_back_median import card_frames


def design_difference(design_a: np.ndarray, design_b: np.ndarray) -> np.ndarray:
    """(H, W) bool: where the two designs differ at the card frame's size (the symbols)."""
    def small(design):
        return cv2.resize(design, CARD_FRAME_WH, interpolation=cv2.INTER_AREA).astype(np.float32)

    return np.sqrt(((small(design_a) - small(design_b)) ** 2).mean(axis=2)) > 30


def covered(windows, height: int, width: int) -> np.ndarray:
    inside = np.zeros((height, width), bool)
    for w in windows:
        inside[w.y0 : w.y1, w.x0 : w.x1] = True
    return inside


@pytest.mark.parametrize(("family", "symbols", "where"), [
    (1, ("heart", "clover"), "the middle"),
    (6, ("star", "moon"), "the middle"),
    (11, ("moon", "cross"), "the middle, the top-left corner and the bottom-right corner"),
])
def test_the_windows_of_two_siblings_cover_their_symbols(family, symbols, where):
    (name_a, design_a), (name_b, design_b) = named_design_family(np.random.default_rng(family), n=2)
    assert (name_a, name_b) == symbols
    back_a = build_back(name_a, card_frames(1000 + family, design_a))
    back_b = build_back(name_b, card_frames(3000 + family, design_b))
    windows = family_windows(back_a, back_b)
    assert describe_windows(windows) == where
    height, width = back_a.spread.shape
    inside = covered(windows, height, width)
    differs = design_difference(design_a, design_b)
    # The back keeps the way up of its reference card: the design may lie turned in it.
    if inside[differs].mean() < inside[differs[::-1, ::-1]].mean():
        differs = differs[::-1, ::-1]
    middle = np.zeros_like(differs)
    middle[height // 3 : 2 * height // 3, width // 4 : 3 * width // 4] = True
    # Measured on families 0-11: 89-100% of the middle symbols' differing pixels lie inside the
    # windows (family 4's two photos differ in colour over the whole card: one window, all of
    # it). Corner symbols are found on family 11 but missed on 1, 8 and 10 (small hearts).
    assert inside[differs & middle].mean() >= 0.85
    # Small windows: a sibling is no other design (measured 7-17% of the card).
    assert inside.mean() <= 0.2


def test_one_design_photographed_twice_has_no_window():
    (_, design), _ = named_design_family(np.random.default_rng(6), n=2)
    first = build_back("a", card_frames(1006, design))
    again = build_back("b", card_frames(2006, design))
    assert family_windows(first, again) == ()
    assert family_windows(first, first) == ()


@pytest.mark.parametrize(("window", "words"), [
    (FrameWindow(44, 70, 84, 126), "the middle"),
    (FrameWindow(10, 10, 30, 40), "the top-left corner"),
    (FrameWindow(100, 160, 120, 190), "the bottom-right corner"),
    (FrameWindow(50, 0, 80, 30), "the top edge"),
    (FrameWindow(0, 80, 20, 110), "the left edge"),
    (FrameWindow(0, 0, 128, 150), "most of the card"),
])
def test_windows_in_words(window, words):
    assert window.words() == words


def test_several_windows_in_words():
    corners = (FrameWindow(10, 10, 30, 40), FrameWindow(100, 160, 120, 190))
    assert describe_windows(()) == ""
    assert describe_windows(corners) == "the top-left corner and the bottom-right corner"
    assert describe_windows((FrameWindow(44, 70, 84, 126), *corners)) == (
        "the middle, the top-left corner and the bottom-right corner")
