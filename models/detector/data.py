"""Training batches for the detector, rendered on the fly by the synthetic scene engine.

Each sample is a random crop of a freshly rendered scene; card sizes span what the detector
sees after inference-time rescaling (long side ~60-280 px); the seed alone fixes each sample.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import cv2
import numpy as np
import torch

from ..synth.scene import SceneOptions, render_scene
from .targets import detector_targets

#: Fans show the thinnest strips and are the weakest layout (recall 48% after run 2): they get
#: two shares of eight since run 3.
PRESETS = ("mixed", "mixed", "rows", "rows", "pile", "fan", "fan", "spread")
#: One render in five has many face-up cards, four in ten of them ordinary white fronts. Run 17
#: tried one in three and seven in ten (commit 53b4c25): the real photos got worse, their
#: keyboard keys above all (git history of models/MODEL_CARD.md), so the earlier mixture is back.
FACE_UP_RENDER_SHARE = 0.2
ORDINARY_FRONT_SHARE = 0.4


#: Since run 15, a third of the renders are stretched along x or y by up to 1.9x: photos seen
#: at a low angle foreshorten cards that much, and photos resized without keeping their aspect
#: (the real webcam set is 16:9 frames stored as 640x640) squash them; the renders' camera
#: tilts 35 degrees at most (x0.82).
STRETCH_SHARE = 0.35
STRETCH = (1.0, 1.9)
#: Since run 14: a chunky knit blanket under one render in four (white cards on a cream knit
#: were the commonest missed cards in the real photos).
KNIT_SHARE = 0.25
#: Since run 19 (opt-in): single black and white pixels over 0.1-1% of a render, JPEG-coded
#: again. The real photo set (../shared/data/real-photos, exported by a labelling tool) has
#: such speckle on most photos, and the renders never showed it.
IMPULSE_SHARE = 0.3
IMPULSE_FRACTION = (0.001, 0.01)
#: Card long sides of the crop-sized views, and the share of them drawn at the survey's small
#: sizes instead (16-64 px): one network read the survey and did the processing pass until
#: run 19 shipped behind run 8's survey.
CARD_PX = (60.0, 280.0)
SMALL_CARD_PX = (16.0, 64.0)
SMALL_CARD_SHARE = 0.4
#: Every view drops cards thinner than this (px); at the survey's card sizes it drops most of
#: a shingled row (an 8 px strip is half of a 16 px card), so the survey-sized views of runs up
#: to 27 never showed the thin rows that a 12 MP photo of shingled rows gives the survey.
MIN_STRIP_PX = 8.0


@dataclass(frozen=True)
class TrainingMix:
    """What a run's renders and targets hold beyond the fixed recipe; the defaults are the
    current recipe (run 15's renders). Run 8, the shipped detector, saw neither knit nor
    stretched renders: ``TrainingMix(knit_share=0, stretch_share=0)``."""

    knit_share: float = KNIT_SHARE
    stretch_share: float = STRETCH_SHARE
    #: Each card's centre peak stays inside its own visible part (``detector_targets``).
    centre_in_own_part: bool = False
    #: Share of renders with salt-and-pepper speckle (``with_impulse_noise``).
    impulse_share: float = 0.0
    #: Card long sides (px) of the crop-sized views that are not small-card views.
    card_px: tuple[float, float] = CARD_PX
    #: Share of crop-sized views with survey-sized cards (:data:`SMALL_CARD_PX`).
    small_card_share: float = SMALL_CARD_SHARE
    #: When set, a survey-sized view keeps strips down to this fraction of its card's long
    #: side (at least 1 px), as a 12 MP photo's shingled rows look to the 640 px survey,
    #: instead of :data:`MIN_STRIP_PX`. 0: off (every run up to 27).
    small_card_strip_frac: float = 0.0
    #: Also give the training loss the edge cells where two cards meet (``edge_between``).
    between_edges: bool = False


def _training_options(
    rng: np.random.Generator, crop_px: int, mix: TrainingMix = TrainingMix()
) -> tuple[SceneOptions, int]:
    """Scene options for one training render, and how many crops to take from it.

    Half the renders are whole small scenes (the card size follows the scene), half are
    crop-sized views at a fixed card scale (``mix.card_px``, by default long side 60-280 px),
    so the detector sees every card size it meets after the inference-time rescaling. By
    default one in five renders shows small cards (16-64 px), as the low-resolution survey pass
    sees them, so that the size head can tell the processing scale from any photo.
    """
    preset = PRESETS[int(rng.integers(len(PRESETS)))]
    # Real tables show face-up cards too (played piles, ordinary decks), so that white fronts
    # with printed pips are seen as whole cards.
    face_up = float(rng.uniform(0.3, 1.0)) if rng.random() < FACE_UP_RENDER_SHARE else 0.05
    common = {
        "face_up_fraction": face_up,
        "ordinary_front_share": ORDINARY_FRONT_SHARE,
        # Since run 6: keyboards with raised keys, and court cards with printed pictures (the
        # commonest false cards in the real photos), in every training render.
        "busy_clutter": True,
        "court_style": "figure",
        "knit_share": mix.knit_share,
        "preset": preset,
        "n_decks": int(rng.integers(2, 9)),
        "families": bool(rng.random() < 0.3),
        "min_strip_px": MIN_STRIP_PX,
    }
    if rng.random() < 0.5:
        side = int(rng.integers(crop_px, int(2.5 * crop_px)))
        image_wh = (side, max(crop_px, int(side * float(rng.uniform(0.6, 1.0)))))
        n_max = int(rng.integers(6, 60))
        return SceneOptions(n_cards=(3, n_max), image_wh=image_wh, **common), 2
    n_max = int(rng.integers(10, 100))
    small = rng.random() < mix.small_card_share
    card_px = SMALL_CARD_PX if small else mix.card_px
    # Drawn only when the option is set, so that earlier mixes keep their samples.
    if small and mix.small_card_strip_frac:
        card_long_px = float(rng.uniform(*SMALL_CARD_PX))
        card_px = (card_long_px, card_long_px)
        common["min_strip_px"] = max(1.0, mix.small_card_strip_frac * card_long_px)
    options = SceneOptions(n_cards=(3, n_max), image_wh=(crop_px, crop_px), card_px=card_px, **common)
    return options, 1


def stretched(image: np.ndarray, owner_map: np.ndarray, quads_xy: list[np.ndarray], axis: int,
              factor: float) -> tuple[np.ndarray, np.ndarray, list[np.ndarray]]:
    """A render and its labels scaled by ``factor`` along ``axis`` (0: x, 1: y); scaling up
    keeps every crop size available."""
    height, width = owner_map.shape
    scale = np.array([factor, 1.0] if axis == 0 else [1.0, factor], np.float32)
    size_wh = (int(round(width * scale[0])), int(round(height * scale[1])))
    image = cv2.resize(image, size_wh, interpolation=cv2.INTER_LINEAR)
    owner_map = cv2.resize(owner_map, size_wh, interpolation=cv2.INTER_NEAREST)
    return image, owner_map, [np.asarray(quad, np.float32) * scale for quad in quads_xy]


def with_impulse_noise(image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """``image`` (BGR uint8) with a random 0.1-1% of its pixels set to black or white, then
    JPEG-coded at quality 75-95, as a photo's exported copy carries them."""
    noisy = image.copy()
    height, width = noisy.shape[:2]
    n_pixels = int(height * width * float(rng.uniform(*IMPULSE_FRACTION)))
    ys, xs = rng.integers(0, height, n_pixels), rng.integers(0, width, n_pixels)
    noisy[ys, xs] = np.where(rng.random(n_pixels) < 0.5, 0, 255).astype(np.uint8)[:, None]
    quality = int(rng.integers(75, 96))
    _, jpeg = cv2.imencode(".jpg", noisy, [cv2.IMWRITE_JPEG_QUALITY, quality])
    return cv2.imdecode(jpeg, cv2.IMREAD_COLOR)


def render_samples(
    seed: int, crop_px: int, mix: TrainingMix = TrainingMix()
) -> list[tuple[np.ndarray, dict[str, np.ndarray]]]:
    """Training crops of one rendered scene: RGB float (3, crop, crop) and target maps each."""
    rng = np.random.default_rng(seed)
    options, crops_per_scene = _training_options(rng, crop_px, mix)
    scene = render_scene(seed, options)
    image_full, owner_full = scene.image, scene.owner_map
    quads_full = [card.quad_xy for card in scene.cards]
    if rng.random() < mix.stretch_share:
        image_full, owner_full, quads_full = stretched(
            image_full, owner_full, quads_full, int(rng.integers(2)), float(rng.uniform(*STRETCH)))
    # Drawn only when the share is set, so that earlier mixes keep their samples.
    if mix.impulse_share and rng.random() < mix.impulse_share:
        image_full = with_impulse_noise(image_full, rng)
    height, width = image_full.shape[:2]
    samples = []
    for _ in range(crops_per_scene):
        y0 = int(rng.integers(0, height - crop_px + 1))
        x0 = int(rng.integers(0, width - crop_px + 1))
        image = image_full[y0 : y0 + crop_px, x0 : x0 + crop_px]
        owner = owner_full[y0 : y0 + crop_px, x0 : x0 + crop_px]
        quads = [quad - np.array([x0, y0], np.float32) for quad in quads_full]
        maps = detector_targets(owner, quads, centre_in_own_part=mix.centre_in_own_part,
                                between_edges=mix.between_edges).loss_maps()
        rgb = image[:, :, ::-1].astype(np.float32) / 255.0
        samples.append((np.ascontiguousarray(rgb.transpose(2, 0, 1)), maps))
    return samples


class RenderedCrops(torch.utils.data.IterableDataset):
    """An endless, seeded stream of rendered crops starting at sample ``start``."""

    def __init__(self, base_seed: int, start: int, crop_px: int, mix: TrainingMix = TrainingMix()) -> None:
        super().__init__()
        self.base_seed = base_seed
        self.start = start
        self.crop_px = crop_px
        self.mix = mix

    def __iter__(self) -> Iterator[tuple[torch.Tensor, dict[str, torch.Tensor]]]:
        info = torch.utils.data.get_worker_info()
        worker, n_workers = (info.id, info.num_workers) if info else (0, 1)
        index = self.start + worker
        while True:
            for image, maps in render_samples(self.base_seed * 10_000_000 + index, self.crop_px, self.mix):
                yield torch.from_numpy(image), {k: torch.from_numpy(v) for k, v in maps.items()}
            index += n_workers
