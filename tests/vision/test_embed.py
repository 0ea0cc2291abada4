"""The shipped back embedder and the crop rectification that feeds it."""

from importlib import resources

import numpy as np
import onnx
import pytest

from cardtally.errors import CardtallyError
from cardtally.vision.embed import (
    BACKGROUND_FILE,
    EMBEDDER_FILE,
    BackEmbedder,
    background_embeddings,
    default_embedder,
    embedder_version,
)
from cardtally.vision.rectify import (
    CARD_FRAME_WH,
    CROP_PX,
    normalise_crop,
    order_quad_portrait,
    rectify_card,
)

MODEL = resources.files("cardtally.models").joinpath(EMBEDDER_FILE)


def test_shipped_model_is_small_and_recent_opset():
    data = MODEL.read_bytes()
    assert len(data) <= 4 * 1024 * 1024
    proto = onnx.load_from_string(data)
    assert max(o.version for o in proto.opset_import if o.domain in ("", "ai.onnx")) >= 17
    assert embedder_version().startswith("sha256:")


def test_embed_gives_unit_vectors_and_probabilities():
    crops = np.random.default_rng(0).normal(0, 0.3, (5, 4, CROP_PX, CROP_PX)).astype(np.float32)
    out = default_embedder().embed(crops)
    assert out.vectors.shape == (5, out.embedding_dim)
    np.testing.assert_allclose(np.linalg.norm(out.vectors, axis=1), 1.0, atol=1e-5)
    assert ((out.face_up_prob >= 0) & (out.face_up_prob <= 1)).all()
    again = BackEmbedder().embed(crops)  # a second embedder gives the same numbers
    np.testing.assert_allclose(again.vectors, out.vectors, atol=1e-5)
    assert len(default_embedder().embed(crops[:0])) == 0


def test_candidate_embedder_carries_its_own_impostor_cohort(tmp_path):
    # A candidate model's embeddings live in its own space: calibration and identification
    # must compare them with its cohort, not the shipped one.
    model_dir = resources.files("cardtally.models")
    (tmp_path / "candidate.onnx").write_bytes(MODEL.read_bytes())
    cohort = np.load(model_dir.joinpath(BACKGROUND_FILE).open("rb"))[:7]
    np.save(tmp_path / "candidate_background.npy", cohort * 3.0)
    candidate = BackEmbedder.from_file(tmp_path / "candidate.onnx")
    crops = np.random.default_rng(1).normal(0, 0.3, (3, 4, CROP_PX, CROP_PX)).astype(np.float32)
    out = candidate.embed(crops)
    assert out.background_vectors().shape == (7, out.embedding_dim)
    np.testing.assert_allclose(np.linalg.norm(out.background_vectors(), axis=1), 1.0, atol=1e-5)
    assert out[[0, 2]].background is out.background
    shipped = default_embedder().embed(crops)
    assert shipped.background_vectors() is background_embeddings()
    np.testing.assert_allclose(out.vectors, shipped.vectors, atol=1e-5)


def test_candidate_embedder_without_its_cohort_is_refused(tmp_path):
    (tmp_path / "lonely.onnx").write_bytes(MODEL.read_bytes())
    with pytest.raises(CardtallyError, match=r"Cannot read the embedder .*lonely.onnx"):
        BackEmbedder.from_file(tmp_path / "lonely.onnx")


def test_embed_checks_the_shape():
    with pytest.raises(ValueError, match=r"crops must have shape \(n, 4, 64, 64\), got \(2, 3, 64, 64\)"):
        default_embedder().embed(np.zeros((2, 3, 64, 64), np.float32))


@pytest.mark.parametrize("start", [0, 1, 2, 3])
@pytest.mark.parametrize("reverse", [False, True])
def test_quad_order_is_clockwise_short_edge_first(start: int, reverse: bool):
    portrait = np.array([[10, 10], [70, 10], [70, 100], [10, 100]], np.float32)
    quad = np.roll(portrait, start, axis=0)
    quad = quad[::-1] if reverse else quad
    ordered = order_quad_portrait(quad)
    assert np.linalg.norm(ordered[1] - ordered[0]) < np.linalg.norm(ordered[2] - ordered[1])
    x, y = ordered[:, 0], ordered[:, 1]
    assert np.sum(x * np.roll(y, -1) - np.roll(x, -1) * y) > 0


def test_rectify_masks_the_hidden_part_and_cancels_light_colour():
    rng = np.random.default_rng(1)
    card = rng.integers(0, 256, (90, 60, 3)).astype(np.uint8)
    card[:6] = 255  # a white top edge
    image = np.zeros((200, 200, 3), np.uint8)
    image[50:140, 70:130] = card
    quad = np.array([[70, 50], [130, 50], [130, 140], [70, 140]], np.float32)
    visible = np.array([[70, 50], [130, 50], [130, 80], [70, 80]], np.float32)  # top third
    frame, mask = rectify_card(image, quad, visible)
    assert frame.shape == (CARD_FRAME_WH[1], CARD_FRAME_WH[0], 3)
    assert 0.3 < mask.mean() < 0.37
    warm = (image.astype(np.float32) * np.array([0.45, 0.75, 1.0])).astype(np.uint8)
    crop = normalise_crop(*rectify_card(image, quad, visible))
    crop_warm = normalise_crop(*rectify_card(warm, quad, visible))
    assert crop.shape == (4, CROP_PX, CROP_PX)
    assert crop[3].all()  # the tight crop holds only the visible strip
    # The per-card white reference removes the colour cast (up to 8-bit rounding).
    assert np.abs(crop - crop_warm).mean() < 0.02
