"""Large processed images run through the network in tiles, with the same cards found."""

from __future__ import annotations

import numpy as np
import pytest

import cardtally.vision.detect as detect_module
from cardtally.models.synth.scene import SceneOptions, render_scene
from cardtally.vision.detect import MAX_TILE_SIDE_PX, CardDetector, _tile_spans
from cardtally.vision.watershed_cards import DetectorSettings, cards_from_maps


@pytest.mark.parametrize("length_px", [100, 1536, 1537, 2304, 3072, 4000])
def test_tiles_cover_the_image_in_aligned_steps_no_longer_than_the_limit(length_px) -> None:
    spans = _tile_spans(length_px)
    assert spans[0][0] == 0 and spans[-1][1] == length_px
    assert all(end == start for (_, end), (start, _) in zip(spans, spans[1:], strict=False))
    assert all(start % 32 == 0 and 0 < end - start <= MAX_TILE_SIDE_PX for start, end in spans)
    assert len(spans) == -(-length_px // MAX_TILE_SIDE_PX)  # the fewest tiles


def test_a_tiled_pass_finds_the_same_cards_as_a_whole_one_away_from_the_seam(monkeypatch) -> None:
    scene = render_scene(4242, SceneOptions(preset="rows", n_cards=(40, 40), image_wh=(1792, 1344),
                                            min_strip_px=16.0))
    detector = CardDetector()
    tiled = detector.predict_maps(scene.image)  # 1792 px: two tiles across (seam at x = 896)
    monkeypatch.setattr(detect_module, "MAX_TILE_SIDE_PX", 4096)
    whole = detector.predict_maps(scene.image)
    assert tiled.shape == whole.shape == (6, 672, 896)
    # The maps differ only near the seam, where each tile sees 96 px of the other's side.
    assert float(np.abs(tiled[:3] - whole[:3]).mean()) < 0.003  # 0.0045 without the margin
    assert float(np.abs(tiled[:3, :, :224] - whole[:3, :, :224]).max()) < 1e-4
    image_wh = (1792, 1344)
    # The lone-card rule is left out: it reads the card length from the photo's lone cards
    # and judges every lone group by it, so a change at the seam can join or keep apart a
    # group anywhere (here two 4-strip groups of the whole pass, with the rule on).
    settings = DetectorSettings(lone_card_size_tolerance=0.0)
    tiled_cards = cards_from_maps(tiled, image_wh, settings)
    whole_cards = cards_from_maps(whole, image_wh, settings)
    far = [np.round(cards.centre_xy[np.abs(cards.centre_xy[:, 0] - 896) > 160]).tolist()
           for cards in (tiled_cards, whole_cards)]
    assert sorted(far[0]) == sorted(far[1])
    # Near the seam a few centre peaks move: 40 cards against 38 with detector run 8
    # (a 160 px margin would make them agree here, at ~15% more pixels per tile).
    assert abs(len(tiled_cards) - len(whole_cards)) <= 2


class _PixelSession:
    """A stand-in network whose maps at each output pixel depend only on the input pixel under
    it: a tiled pass must then give exactly the whole pass's maps."""

    class _Input:
        name = "image"

    def get_inputs(self):
        return [self._Input()]

    def run(self, _outputs, feeds):
        image = feeds["image"]  # (1, 3, H, W), H and W multiples of 32
        under = image[:, :, ::2, ::2]
        return [np.concatenate([under, under * 2.0], axis=1)]  # (1, 6, H/2, W/2)


@pytest.mark.parametrize("image_hw", [(1537, 1601), (3071, 2050), (40, 3100)])
def test_tiles_are_stitched_back_exactly_where_they_belong(monkeypatch, image_hw) -> None:
    rng = np.random.default_rng(7)
    image = rng.integers(0, 256, (*image_hw, 3), dtype=np.uint8)
    detector = CardDetector(session=_PixelSession())
    tiled = detector.predict_maps(image)
    monkeypatch.setattr(detect_module, "MAX_TILE_SIDE_PX", 10_000)
    whole = detector.predict_maps(image)
    assert tiled.shape == whole.shape == (6, image_hw[0] // 2, image_hw[1] // 2)
    np.testing.assert_array_equal(tiled, whole)
