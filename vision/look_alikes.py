"""A newly calibrated deck against the decks already calibrated: look-alikes and refusals.

Decks of one family (a Ligretto box: one colour and pattern, a symbol apart) can be told apart
only where their backs differ (``vision.fit.family``). ``calibrate`` names those windows when
they are small, so that players lay their cards out with the symbol showing, and refuses a deck
that no window tells from a calibrated one: its cards could never be counted apart.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from cardtally.errors import CardtallyError

from .decks import DeckSet
from .fit.back_median import AGREEMENT_WH, UNSEEN_SPREAD
from .fit.backs import CalibratedBack
from .fit.family import FrameWindow, describe_windows, family_windows
from .rectify import CARD_FRAME_WH

#: Two decks differ "only in small windows" when their windows cover at most this share of
#: the card frame (the windows of rendered Ligretto-like siblings cover 5-12% of it, the
#: corner symbols included; decks of different designs differ over most of the card).
SMALL_WINDOWS_SHARE = 0.25


#: Refuse only where the two backs were compared on at least this share of the card frame
#: (pixels that some calibration card of each deck showed); elsewhere nothing is known.
MIN_COMPARED_SHARE = 0.5


#: ... and where their layouts (grey, at 1/4 of the card frame) correlate at least this well:
#: backs so uncertain that nothing stands out (a fine all-over pattern calibrated from loose
#: outlines) are no proof that two decks look the same.
MIN_SAME_LAYOUT = 0.8


@dataclass(frozen=True)
class LookAlike:
    """A calibrated deck whose back differs from the new deck's only in ``windows`` (in the
    new deck's card frame)."""

    deck: str
    windows: tuple[FrameWindow, ...]

    @property
    def where(self) -> str:
        """The windows in a player's words ("the middle and the top-left corner")."""
        return describe_windows(self.windows)


@dataclass(frozen=True)
class LookAlikes:
    """The calibrated decks the new deck differs from only in small windows, and those that
    could not be compared (calibrated before cardtally kept the back)."""

    decks: tuple[LookAlike, ...] = ()
    unchecked: tuple[str, ...] = ()


def look_alikes(back: CalibratedBack | None, existing: DeckSet) -> LookAlikes:
    """Compare ``back`` (a new calibration of deck ``back.deck_name``) with every other
    calibrated deck's back; refuse it where no window tells the two apart."""
    if back is None:
        return LookAlikes()
    width, height = CARD_FRAME_WH
    found, unchecked = [], []
    for profile in existing.profiles:
        if profile.name == back.deck_name:
            continue
        if profile.back is None:
            unchecked.append(profile.name)
            continue
        windows = family_windows(back, profile.back)
        if (not windows and compared_share(back, profile.back) >= MIN_COMPARED_SHARE
                and layout_correlation(back, profile.back) >= MIN_SAME_LAYOUT):
            raise CardtallyError(
                f"No part of the card back tells deck {back.deck_name!r} from deck "
                f"{profile.name!r}, so their cards could not be counted apart; use decks whose "
                "backs differ, or, "
                "if they differ by a small symbol, photograph the cards lying apart, flat and in "
                "focus, and calibrate again."
            )
        if sum(w.area_px for w in windows) <= SMALL_WINDOWS_SHARE * width * height:
            found.append(LookAlike(profile.name, windows))
    return LookAlikes(tuple(found), tuple(unchecked))


def compared_share(back_a: CalibratedBack, back_b: CalibratedBack) -> float:
    """Share of the card frame that calibration cards of both decks showed (either way up)."""
    seen_a = back_a.spread < UNSEEN_SPREAD
    seen_b = back_b.spread < UNSEEN_SPREAD
    return float(max((seen_a & seen_b).mean(), (seen_a & seen_b[::-1, ::-1]).mean()))


def layout_correlation(back_a: CalibratedBack, back_b: CalibratedBack) -> float:
    """Grey correlation of the two backs at 1/4 of the card frame, the better way up."""
    def small(bgr: np.ndarray) -> np.ndarray:
        grey = cv2.cvtColor(np.ascontiguousarray(bgr), cv2.COLOR_BGR2GRAY).astype(np.float32)
        grey = cv2.resize(grey, AGREEMENT_WH, interpolation=cv2.INTER_AREA).ravel()
        return grey - grey.mean()

    a = small(back_a.back_bgr)
    best = -1.0
    for b in (small(back_b.back_bgr), small(back_b.turned_bgr)):
        best = max(best, float(a @ b / max(np.sqrt((a @ a) * (b @ b)), 1e-9)))
    return best
