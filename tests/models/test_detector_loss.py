"""The detector's training loss: the centre weight scales only the centre part."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from cardtally.models.detector.loss import detector_loss  # noqa: E402
from cardtally.models.detector.targets import detector_targets  # noqa: E402


def _batch():
    owner = np.full((64, 64), -1, np.int32)
    owner[8:56, 12:44] = 0
    quads = [np.array([[12, 8], [44, 8], [44, 56], [12, 56]], np.float32)]
    maps = detector_targets(owner, quads).loss_maps()
    out = torch.from_numpy(np.random.default_rng(0).normal(size=(1, 6, 32, 32)).astype(np.float32))
    return out, {key: torch.from_numpy(value)[None] for key, value in maps.items()}


def test_centre_weight_adds_its_multiple_of_the_centre_loss_and_nothing_else():
    out, maps = _batch()
    plain, parts = detector_loss(out, maps)
    weighted, weighted_parts = detector_loss(out, maps, centre_weight=3.0)
    assert weighted_parts == parts
    assert float(weighted - plain) == pytest.approx(2.0 * parts["centre"], rel=1e-5)
    assert parts["centre"] > 0
