"""Face-up cards in a fitted row: the back embedder's face-up head on each strip.

A front matches no back, but the row program still has to explain its strip, and a busy front
often correlates with some back better than the "no deck" cost (the true-rows benchmark named
50 face-up strips as backs with a perfect edge cue). The correlation cannot tell a front from a
stranger's back; the embedder's face-up head can (``card_fit``), and it reads visible parts of
any width, so each strip of the band is shown to it as the visible part of a card frame. A strip
it calls face up is a card of no deck: it still counts as a card, for nobody.
"""

from __future__ import annotations

import dataclasses

import cv2
import numpy as np

from ..embed import BackEmbedder
from ..rectify import normalise_crop
from .band import RowBand
from .card_fit import FACE_UP_PROB
from .rows import RowFit, StripFit


def strip_inputs(band: RowBand, fit: RowFit) -> np.ndarray:
    """(n, 4, crop, crop) the embedder's input for each strip of ``fit``: the strip's columns of
    the band (read the way the fit read them), turned to a portrait card's frame."""
    band_read = band.band_bgr[:, ::-1] if fit.reversed else band.band_bgr
    inputs = []
    for strip in fit.strips:
        part = np.ascontiguousarray(band_read[:, strip.start_px: strip.start_px + strip.width_px])
        if band.landscape:  # the card's long side runs along the band
            part = cv2.rotate(part, cv2.ROTATE_90_CLOCKWISE)
        inputs.append(normalise_crop(part, np.ones(part.shape[:2], bool)))
    return np.stack(inputs) if inputs else np.zeros((0, 4, 1, 1), np.float32)


def face_up_strip(strip: StripFit) -> StripFit:
    """``strip`` as a front: no deck, no candidates, nothing in doubt."""
    return dataclasses.replace(strip, deck_name="", face_up=True, candidates=(), doubtful=False)


def mark_face_up(band: RowBand, fit: RowFit, embedder: BackEmbedder,
                 threshold: float = FACE_UP_PROB) -> RowFit:
    """``fit`` with the strips that the face-up head calls fronts (probability >= ``threshold``)
    given no deck."""
    if not fit.strips:
        return fit
    face_up_prob = embedder.embed(strip_inputs(band, fit)).face_up_prob
    return dataclasses.replace(fit, strips=tuple(
        face_up_strip(strip) if prob >= threshold else strip
        for strip, prob in zip(fit.strips, face_up_prob, strict=True)))
