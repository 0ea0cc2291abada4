"""A photo's entry in ``count --json`` is in the photo's own pixels."""

from pathlib import Path

import numpy as np

from cardtally.vision.count import PhotoCount
from cardtally.vision.detections import CardDetections, CardIdentities


def _one_card(image_wh: tuple[int, int]) -> CardDetections:
    quad = np.array([[[10, 5], [30, 5], [30, 35], [10, 35]]], np.float32)
    return CardDetections(quad_xy=quad, visible_polygons_xy=(quad[0],),
                          centre_xy=np.array([[20, 20]], np.float32),
                          angle_deg=np.zeros((1,), np.float32), score=np.ones((1,), np.float32),
                          image_wh=image_wh)


def test_a_photo_decoded_at_a_quarter_reports_its_own_size_and_pixels() -> None:
    identities = CardIdentities(np.array([0]), np.array([0.9], np.float32), ("red",))
    photo = PhotoCount(Path("big.jpg"), (100, 75), _one_card((100, 75)), identities,
                       full_wh=(400, 300))
    entry = photo.to_json()
    assert (entry["width"], entry["height"]) == (400, 300)
    assert entry["cards"][0]["polygon"] == [[40.0, 20.0], [120.0, 20.0], [120.0, 140.0],
                                            [40.0, 140.0]]


def test_a_photo_decoded_whole_reports_the_detector_pixels() -> None:
    identities = CardIdentities(np.array([0]), np.array([0.9], np.float32), ("red",))
    entry = PhotoCount(Path("p.jpg"), (100, 75), _one_card((100, 75)), identities).to_json()
    assert (entry["width"], entry["height"]) == (100, 75)
    assert entry["cards"][0]["polygon"][2] == [30.0, 35.0]
