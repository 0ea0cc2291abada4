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


def test_cards_are_listed_by_their_review_image_numbers() -> None:
    # three cards found right-to-left in one row, and one in a row below
    xs_ys = [(250, 40), (150, 40), (50, 40), (150, 200)]
    quads = np.array([[[x - 30, y - 45], [x + 30, y - 45], [x + 30, y + 45], [x - 30, y + 45]]
                      for x, y in xs_ys], np.float32)  # fmt: skip
    detections = CardDetections(quad_xy=quads, visible_polygons_xy=tuple(quads),
                                centre_xy=np.array(xs_ys, np.float32),
                                angle_deg=np.zeros((4,), np.float32),
                                score=np.ones((4,), np.float32), image_wh=(300, 260))
    identities = CardIdentities(np.array([0, 1, -1, -2]), np.array([0.9, 0.8, 0.2, 0.7],
                                                                   np.float32), ("red", "blue"))
    entry = PhotoCount(Path("p.jpg"), (300, 260), detections, identities).to_json()
    listed = [(c["deck"], c["face_up"], c["confidence"]) for c in entry["cards"]]
    assert listed == [(None, False, None), ("blue", False, 0.8), ("red", False, 0.9),
                      (None, True, 0.7)]  # fmt: skip
    assert entry["cards"][0]["doubt"] == {"candidates": ["red", "blue"], "margin": None}


def test_each_photo_reports_its_stages_in_order(tmp_path: Path, monkeypatch) -> None:
    """``on_stage`` (the progress bar's feed) names every photo's stages as they begin."""
    import cv2

    from cardtally.vision import count as count_module
    from cardtally.vision.count import STAGES, count_photos
    from cardtally.vision.decks import DeckSet

    calls: list[tuple[str, str]] = []
    monkeypatch.setattr(count_module, "detect_cards",
                        lambda bgr: CardDetections.empty((bgr.shape[1], bgr.shape[0])))
    paths = []
    for name in ("a.png", "b.png"):
        cv2.imwrite(str(tmp_path / name), np.zeros((40, 60, 3), np.uint8))
        paths.append(tmp_path / name)
    result = count_photos(paths, DeckSet(()), on_stage=lambda p, s: calls.append((p.name, s)))
    assert result.total_cards == 0
    assert calls == [(name, stage) for name in ("a.png", "b.png") for stage in STAGES]
