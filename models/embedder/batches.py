"""Training data of the back embedder, without torch: each step's batch of views, and the
fixed validation views.

Every step draws fresh designs (``cardtally.models.synth.designs``): 32 random backs and two
Ligretto-style families of 4 (same base, different symbol; ``families`` sets how many), 4 views
each, plus 32 views of face-up fronts. Data for step ``s`` is drawn from
``default_rng([seed, s])``, the camera noise from OpenCV's generator restarted for the step, so
a step's batch is the same whatever ran before it in the process.
"""

from __future__ import annotations

import cv2
import numpy as np

from .views import render_view, seed_camera_noise

RANDOM_DESIGNS = 32
FAMILIES = 2
FAMILY_SIZE = 4
VIEWS_PER_DESIGN = 4
FRONT_DESIGNS = 16
VIEWS_PER_FRONT = 2
#: A sibling's view shows its symbol when the cards on top leave at least this share of one of
#: its symbols visible (``telling_masks``: where the siblings differ).
SHOWS_SYMBOL_SHARE = 0.4


def telling_masks(family: list[np.ndarray]) -> list[np.ndarray]:
    """Where the designs of one family differ, one 0/1 float mask per symbol place (the centre,
    and the corners on backs that repeat the symbol there)."""
    first = family[0].astype(np.int16)
    differs = np.zeros(first.shape[:2], np.uint8)
    for sibling in family[1:]:
        differs |= (np.abs(sibling.astype(np.int16) - first).max(axis=2) > 8).astype(np.uint8)
    # A symbol's parts (a crown's points, a heart drawn thin) join into one place.
    joined = cv2.dilate(differs, np.ones((15, 15), np.uint8))
    n, places = cv2.connectedComponents(joined)
    return [((places == k) & (differs > 0)).astype(np.float32) for k in range(1, n)]


def _fronts(rng: np.random.Generator, n: int) -> list[np.ndarray]:
    from .fronts import random_front as own_front

    try:  # the scene renderer's fronts, when it has them, widen what "face up" means
        from ..synth.fronts import random_front as synth_front
    except ImportError:
        synth_front = None
    return [synth_front(rng) if synth_front is not None and i % 2 else own_front(rng)
            for i in range(n)]


def make_batch(seed: int, step: int, spill_share: float = 0.0,
               families: int = FAMILIES, calibration_views: int = 0) -> dict[str, np.ndarray]:
    """All crops of one training step (deterministic in ``seed``, ``step``, ``spill_share``, the
    share of views whose outline spills over a side: ``views.render_view``, and ``families``, the
    number of Ligretto-style families of FAMILY_SIZE siblings among the designs).

    Besides crops, labels (design index, -1 for face-up fronts) and face-up flags, a batch says
    which family each view's design belongs to (-1 for none), its symbol (index in
    ``synth.symbols.SYMBOL_NAMES``, -1 for none) and whether a sibling's view shows its symbol
    (1 for views of designs without siblings), so that the loss can leave alone the pairs of
    siblings that no eye could tell apart.

    The first ``calibration_views`` views of each back design are seen as a calibration photo
    shows a card (``render_view(calibration_like=True)``): the loss then pulls each design's
    sharp, whole, large view and its small, blurred, covered ones together, the pairing that
    identification needs (git history of docs/BENCHMARKS.md, "A common sharpness for calibration and play")."""
    from ..synth.designs import named_design_family, random_back_design
    from ..synth.symbols import SYMBOL_NAMES

    rng = _views_rng([seed, step])
    backs = [random_back_design(rng) for _ in range(RANDOM_DESIGNS)]
    family_of, masks = [-1] * RANDOM_DESIGNS, [None] * RANDOM_DESIGNS
    symbols = [-1] * RANDOM_DESIGNS
    for family in range(families):
        named = named_design_family(rng, n=FAMILY_SIZE)
        siblings = [design for _, design in named]
        backs += siblings
        family_of += [family] * FAMILY_SIZE
        masks += [telling_masks(siblings)] * FAMILY_SIZE
        symbols += [SYMBOL_NAMES.index(name) for name, _ in named]
    fronts = _fronts(rng, FRONT_DESIGNS)
    everything = backs + fronts
    crops, labels, face_up, shows = [], [], [], []
    for label, design in enumerate(backs):
        for view in range(VIEWS_PER_DESIGN):
            crop, told = render_view(rng, design, everything, spill_share, masks[label],
                                     calibration_like=view < calibration_views)
            crops.append(crop)
            labels.append(label)
            face_up.append(0.0)
            shows.append(masks[label] is None or told >= SHOWS_SYMBOL_SHARE)
    for design in fronts:
        for _ in range(VIEWS_PER_FRONT):
            crops.append(render_view(rng, design, everything, spill_share)[0])
            labels.append(-1)
            face_up.append(1.0)
            shows.append(True)
    n_fronts = FRONT_DESIGNS * VIEWS_PER_FRONT
    return {
        "crops": np.stack(crops).astype(np.float32),
        "labels": np.array(labels, np.int64),
        "face_up": np.array(face_up, np.float32),
        "family": np.array([f for f in family_of for _ in range(VIEWS_PER_DESIGN)]
                           + [-1] * n_fronts, np.int64),
        "shows_symbol": np.array(shows, bool),
        "symbol": np.array([k for k in symbols for _ in range(VIEWS_PER_DESIGN)]
                           + [-1] * n_fronts, np.int64),
    }


def validation_set(seed: int, n_designs: int = 48, views: int = 5) -> tuple[np.ndarray, np.ndarray]:
    """Fixed held-out views (designs from a seed never used for training batches)."""
    from ..synth.designs import random_back_design

    rng = _views_rng([seed, 10**9])
    designs = [random_back_design(rng) for _ in range(n_designs)]
    return _views_of(rng, designs, views)


def family_validation_set(seed: int, n_families: int = 12,
                          views: int = 5) -> tuple[np.ndarray, np.ndarray]:
    """Fixed held-out views of Ligretto-style families (labels: family * FAMILY_SIZE + sibling),
    to follow how well siblings, which differ only by their symbol, are told apart."""
    from ..synth.designs import design_family

    rng = _views_rng([seed, 10**9 + 1])
    parts = [_views_of(rng, design_family(rng, n=FAMILY_SIZE), views)
             for _ in range(n_families)]
    crops = np.concatenate([c for c, _ in parts])
    labels = np.concatenate([family * FAMILY_SIZE + lab for family, (_, lab) in enumerate(parts)])
    return crops, labels


def _views_of(rng: np.random.Generator, designs: list[np.ndarray],
              views: int) -> tuple[np.ndarray, np.ndarray]:
    """``views`` views of each design (label: its index), the others lying on top."""
    crops = [render_view(rng, design, designs)[0] for design in designs for _ in range(views)]
    return np.stack(crops), np.repeat(np.arange(len(designs)), views)


def _views_rng(entropy: list[int]) -> np.random.Generator:
    """``default_rng(entropy)`` for drawing views, with the views' camera noise (OpenCV's
    generator) restarted from a seed of its own stream, so the other draws stay as they were."""
    seed_camera_noise(int(np.random.default_rng([*entropy, 1]).integers(1, 2**31 - 1)))
    return np.random.default_rng(entropy)
