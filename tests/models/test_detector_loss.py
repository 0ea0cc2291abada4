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


def test_between_edge_weight_weighs_only_the_edges_where_cards_meet():
    owner = np.full((64, 64), -1, np.int32)
    owner[8:56, 4:36] = 0
    owner[8:56, 30:60] = 1  # card 1 over card 0's right side
    quads = [np.array([[4, 8], [36, 8], [36, 56], [4, 56]], np.float32),
             np.array([[30, 8], [60, 8], [60, 56], [30, 56]], np.float32)]
    maps = {key: torch.from_numpy(value)[None] for key, value in
            detector_targets(owner, quads, between_edges=True).loss_maps().items()}
    out = torch.from_numpy(np.random.default_rng(1).normal(size=(1, 6, 32, 32)).astype(np.float32))
    plain, parts = detector_loss(out, maps)
    same, same_parts = detector_loss(out, maps, between_edge_weight=1.0)
    weighted, weighted_parts = detector_loss(out, maps, between_edge_weight=4.0)
    assert float(same) == float(plain) and same_parts == parts
    assert weighted_parts["edge"] > parts["edge"]
    assert {k: v for k, v in weighted_parts.items() if k != "edge"} == {
        k: v for k, v in parts.items() if k != "edge"}
    # without any edge between cards, the weight changes nothing
    alone = {key: torch.from_numpy(value)[None] for key, value in
             detector_targets(np.where(owner == 1, -1, owner), quads[:1], between_edges=True)
             .loss_maps().items()}
    assert float(detector_loss(out, alone, between_edge_weight=4.0)[0]) == pytest.approx(
        float(detector_loss(out, alone)[0]))
