"""A phone-size photo of many small cards, whose size the first 640 px survey misreads."""

from __future__ import annotations

import pytest

import cardtally.vision.detect as detect_module
from cardtally.models.synth.scene import SceneOptions, render_scene
from cardtally.vision.detect import CardDetector


@pytest.fixture(scope="module")
def phone_photo():
    # The `count` benchmark's photo-4: 93 cards ~100 px long in shingled rows on 4032x3024.
    options = SceneOptions(preset="rows", n_decks=4, n_cards=(100, 100), image_wh=(4032, 3024),
                           face_up_fraction=0.0, min_strip_px=16.0)
    return render_scene(970_104, options)


def _cards_found(scene, detections) -> int:
    """How many different true cards the detections land on."""
    owners = {int(scene.owner_map[int(y), int(x)]) for x, y in detections.centre_xy}
    return len(owners - {-1})


def test_the_fine_survey_finds_the_small_cards_of_a_phone_photo(phone_photo) -> None:
    detections = CardDetector().detect(phone_photo.image)
    assert len(phone_photo.cards) == 93
    assert _cards_found(phone_photo, detections) >= 90  # 91 today
    assert abs(len(detections) - 93) <= 6  # 97 today: a few cards split


def test_without_the_fine_survey_the_photo_is_processed_far_too_small(phone_photo, monkeypatch) -> None:
    # The first survey alone reads the rows of tiny cards as cards ~14 times too long.
    monkeypatch.setattr(detect_module, "FINE_SURVEY_LONG_SIDE_PX", 0)
    detections = CardDetector().detect(phone_photo.image)
    assert _cards_found(phone_photo, detections) <= 10  # 5
