"""The review image, on a synthetic table with hand-made detections and identities."""

from __future__ import annotations

import os
from pathlib import Path

import cv2
import numpy as np
import pytest

from cardtally.errors import CardtallyError
from cardtally.vision.annotate import (
    FACE_UP_BGR,
    MAX_REVIEW_LONG_SIDE_PX,
    WARNING_BGR,
    annotate,
    assign_deck_colours,
    card_numbers,
    write_review_image,
)
from cardtally.vision.detections import FACE_UP, UNKNOWN, CardDetections, CardIdentities

DOCS_EXAMPLE = Path(__file__).resolve().parents[2] / "docs" / "review-example.jpg"
DECKS = ("red-star", "blue-moon", "anna")


def make_detections(
    centres_xy: list[tuple[float, float]], card_wh: tuple[float, float], image_wh: tuple[int, int]
) -> CardDetections:
    """Upright cards of size ``card_wh`` centred at ``centres_xy``, fully visible."""
    half = np.array(card_wh, np.float32) / 2
    corners = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]], np.float32) * half
    quads = np.array([np.asarray(c, np.float32) + corners for c in centres_xy], np.float32)
    n = len(centres_xy)
    return CardDetections(
        quad_xy=quads.reshape(n, 4, 2),
        visible_polygons_xy=tuple(q.copy() for q in quads),
        centre_xy=np.array(centres_xy, np.float32).reshape(n, 2),
        angle_deg=np.full((n,), 90.0, np.float32),
        score=np.ones((n,), np.float32),
        image_wh=image_wh,
    )


def identities(deck_index: list[int], names: tuple[str, ...] = DECKS) -> CardIdentities:
    return CardIdentities(
        deck_index=np.array(deck_index, np.int64),
        confidence=np.full((len(deck_index),), 0.9, np.float32),
        deck_names=names,
    )


@pytest.fixture
def table() -> np.ndarray:
    """A brownish 'wood' table, 800x600, with a little texture."""
    rng = np.random.default_rng(1)
    image = np.full((600, 800, 3), (60, 100, 140), np.uint8)
    return cv2.add(image, rng.integers(0, 20, image.shape, dtype=np.uint8))


def scene_cards() -> tuple[CardDetections, CardIdentities]:
    centres = [(150, 150), (300, 160), (450, 140), (150, 420), (300, 430), (450, 410), (620, 420)]
    dets = make_detections(centres, (100, 150), (800, 600))
    return dets, identities([0, 0, 1, 2, UNKNOWN, FACE_UP, 1])


def colour_pixels(image: np.ndarray, bgr: tuple[int, int, int], tol: int = 2) -> int:
    return int(np.count_nonzero(np.all(np.abs(image.astype(int) - bgr) <= tol, axis=2)))


def test_annotate_shape_dtype_and_legend_below(table: np.ndarray):
    dets, ids = scene_cards()
    out = annotate(table, dets, ids, title="centre.jpg")
    assert out.dtype == np.uint8 and out.ndim == 3 and out.shape[2] == 3
    assert out.shape[1] == table.shape[1] and out.shape[0] > table.shape[0]  # photo + strip
    legend = out[table.shape[0] :]
    colours = assign_deck_colours(DECKS)
    for name in DECKS:  # a swatch in the legend for every deck, zero counts included
        assert colour_pixels(legend, colours[name]) > 50, name
    assert colour_pixels(legend, WARNING_BGR) > 50
    assert colour_pixels(legend, FACE_UP_BGR) > 50


def test_cards_are_outlined_in_their_deck_colour(table: np.ndarray):
    dets, ids = scene_cards()
    photo = annotate(table, dets, ids)[: table.shape[0]]
    colours = assign_deck_colours(DECKS)
    assert colour_pixels(photo, colours["red-star"]) > 200
    assert colour_pixels(photo, WARNING_BGR) > 100  # the unknown card's dashes
    unused = identities([1] * 7)
    assert colour_pixels(annotate(table, dets, unused)[:600], colours["red-star"]) == 0


def test_annotate_is_deterministic_and_leaves_the_input_alone(table: np.ndarray):
    dets, ids = scene_cards()
    before = table.copy()
    first = annotate(table, dets, ids, title="t")
    assert np.array_equal(first, annotate(table, dets, ids, title="t"))
    assert np.array_equal(table, before)


def test_explicit_deck_colours_win(table: np.ndarray):
    dets, ids = scene_cards()
    out = annotate(table, dets, ids, deck_colours={"anna": (255, 0, 255)})
    assert colour_pixels(out[:600], (255, 0, 255)) > 100


def test_big_photo_is_downscaled_and_detections_follow(table: np.ndarray):
    big = cv2.resize(table, (4032, 3024), interpolation=cv2.INTER_NEAREST)
    dets, ids = scene_cards()
    out = annotate(big, dets.scaled(4032 / 800), ids)
    assert out.shape[1] == MAX_REVIEW_LONG_SIDE_PX
    photo_h = round(3024 * MAX_REVIEW_LONG_SIDE_PX / 4032)
    # Detections made on a 800-px copy land on the same cards of the 4032-px photo.
    small = annotate(big, dets, ids)
    assert np.array_equal(out[:photo_h], small[:photo_h])


def test_zero_cards_gives_the_photo_and_the_legend(table: np.ndarray):
    out = annotate(table, CardDetections.empty((800, 600)), identities([]), title="empty")
    assert np.array_equal(out[:600], table)
    assert colour_pixels(out[600:], WARNING_BGR) > 50


def test_small_photo_stays_readable(table: np.ndarray):
    small = cv2.resize(table, (640, 480))
    dets, ids = scene_cards()
    out = annotate(small, dets.scaled(0.8), ids, title="a.jpg")
    assert out.shape[1] == 640
    assert 40 < out.shape[0] - 480 < 200  # a legend strip with legible text, not a sliver


def test_a_long_title_stays_inside_a_portrait_photo(table: np.ndarray):
    portrait = cv2.resize(table, (450, 600))
    title = "centre: IMG_20260101_123456.jpg (12 given by hand)"
    out = annotate(portrait, CardDetections.empty((450, 600)), identities([]), title=title)
    header = out[600:630]  # the legend's first line
    assert header.max() > 200  # the title is drawn ...
    assert header[:, -8:].max() == header[0, -1].max()  # ... and ends before the right edge


def test_mismatched_inputs_are_rejected(table: np.ndarray):
    dets, _ = scene_cards()
    with pytest.raises(ValueError, match="7 detections but 2 identities"):
        annotate(table, dets, identities([0, 1]))


def test_card_numbers_read_rows_left_to_right():
    # Row 1 slants upwards to the right; the numbers must still go left to right.
    centres = [(450, 120), (150, 150), (300, 135), (300, 430), (150, 420)]
    dets = make_detections(centres, (100, 150), (800, 600))
    assert card_numbers(dets).tolist() == [3, 1, 2, 5, 4]
    assert card_numbers(CardDetections.empty((10, 10))).tolist() == []


def test_write_review_image_is_atomic_jpeg(tmp_path: Path, table: np.ndarray):
    path = write_review_image(tmp_path / "review" / "a.jpg", table)
    assert path.read_bytes()[:2] == b"\xff\xd8"
    assert cv2.imread(str(path)).shape == table.shape
    assert [p.name for p in path.parent.iterdir()] == ["a.jpg"]  # no temp file left


def test_write_review_image_into_a_file_fails_clearly(tmp_path: Path, table: np.ndarray):
    blocker = tmp_path / "review"
    blocker.write_text("")
    with pytest.raises(CardtallyError) as caught:
        write_review_image(blocker / "a.jpg", table)
    assert str(caught.value) == (
        f"Cannot write the review image {blocker / 'a.jpg'}: {blocker} is a file, not a folder."
    )


def render_docs_example() -> np.ndarray:
    """The docs' example: a rendered scene, its ground truth as detections, two cards unknown."""
    from cardtally.models.synth.scene import SceneOptions, render_scene
    from cardtally.vision.geometry import quad_long_axis_deg

    options = SceneOptions(
        preset="mixed",
        n_decks=4,
        n_cards=(40, 50),
        image_wh=(1120, 840),
        camera_tilt_deg=(0, 10),
        table_kind="felt",
        face_up_fraction=0.06,
    )
    scene = render_scene(22, options)
    cards = scene.cards
    n = len(cards)
    dets = CardDetections(
        quad_xy=np.array([c.quad_xy for c in cards], np.float32).reshape(n, 4, 2),
        visible_polygons_xy=tuple(np.asarray(c.visible_polygon_xy, np.float32) for c in cards),
        centre_xy=np.array([c.centre_xy for c in cards], np.float32).reshape(n, 2),
        angle_deg=np.array([quad_long_axis_deg(c.quad_xy) for c in cards], np.float32),
        score=np.ones((n,), np.float32),
        image_wh=(scene.image.shape[1], scene.image.shape[0]),
    )
    deck_index = np.array([FACE_UP if c.face_up else c.deck_id for c in cards], np.int64)
    face_down = np.flatnonzero(deck_index >= 0)
    deck_index[face_down[[3, len(face_down) // 2]]] = UNKNOWN  # show the warning style too
    ids = CardIdentities(deck_index, np.full((n,), 0.9, np.float32), tuple(scene.deck_names))
    return annotate(scene.image, dets, ids, title="centre-1.jpg")


@pytest.mark.slow
@pytest.mark.skipif(
    not os.environ.get("CARDTALLY_REGENERATE_DOCS"), reason="set CARDTALLY_REGENERATE_DOCS=1"
)
def test_regenerate_docs_example():
    write_review_image(DOCS_EXAMPLE, render_docs_example())
    assert DOCS_EXAMPLE.stat().st_size < 300_000


def test_docs_example_is_small_enough_for_the_readme():
    if not DOCS_EXAMPLE.exists():
        pytest.skip("docs/review-example.jpg not generated")
    assert DOCS_EXAMPLE.stat().st_size < 300_000
