"""Training data of the back embedder, without torch: each step's batch of views, and the
fixed validation views.

Every step draws fresh designs (``cardtally.models.synth.designs``): 32 random backs and two
Ligretto-style families of 4 (same base, different symbol; ``families`` sets how many), 4 views
each, plus 32 views of face-up fronts. Data for step ``s`` is drawn from
``default_rng([seed, s])`` (the camera noise from OpenCV's own generator).
"""

from __future__ import annotations

import numpy as np

from .views import render_view

RANDOM_DESIGNS = 32
FAMILIES = 2
FAMILY_SIZE = 4
VIEWS_PER_DESIGN = 4
FRONT_DESIGNS = 16
VIEWS_PER_FRONT = 2


def _fronts(rng: np.random.Generator, n: int) -> list[np.ndarray]:
    from .fronts import random_front as own_front

    try:  # the scene renderer's fronts, when it has them, widen what "face up" means
        from ..synth.fronts import random_front as synth_front
    except ImportError:
        synth_front = None
    return [synth_front(rng) if synth_front is not None and i % 2 else own_front(rng)
            for i in range(n)]


def make_batch(seed: int, step: int, spill_share: float = 0.0,
               families: int = FAMILIES) -> dict[str, np.ndarray]:
    """All crops of one training step (deterministic in ``seed``, ``step``, ``spill_share``, the
    share of views whose outline spills over a side: ``views.render_view``, and ``families``, the
    number of Ligretto-style families of FAMILY_SIZE siblings among the designs)."""
    from ..synth.designs import design_family, random_back_design

    rng = np.random.default_rng([seed, step])
    backs = [random_back_design(rng) for _ in range(RANDOM_DESIGNS)]
    for _ in range(families):
        backs += design_family(rng, n=FAMILY_SIZE)
    fronts = _fronts(rng, FRONT_DESIGNS)
    everything = backs + fronts
    crops, labels, face_up = [], [], []
    for label, design in enumerate(backs):
        for _ in range(VIEWS_PER_DESIGN):
            crops.append(render_view(rng, design, everything, spill_share)[0])
            labels.append(label)
            face_up.append(0.0)
    for design in fronts:
        for _ in range(VIEWS_PER_FRONT):
            crops.append(render_view(rng, design, everything, spill_share)[0])
            labels.append(-1)
            face_up.append(1.0)
    return {
        "crops": np.stack(crops).astype(np.float32),
        "labels": np.array(labels, np.int64),
        "face_up": np.array(face_up, np.float32),
    }


def validation_set(seed: int, n_designs: int = 48, views: int = 5) -> tuple[np.ndarray, np.ndarray]:
    """Fixed held-out views (designs from a seed never used for training batches)."""
    from ..synth.designs import random_back_design

    rng = np.random.default_rng([seed, 10**9])
    designs = [random_back_design(rng) for _ in range(n_designs)]
    return _views_of(rng, designs, views)


def family_validation_set(seed: int, n_families: int = 12,
                          views: int = 5) -> tuple[np.ndarray, np.ndarray]:
    """Fixed held-out views of Ligretto-style families (labels: family * FAMILY_SIZE + sibling),
    to follow how well siblings, which differ only by their symbol, are told apart."""
    from ..synth.designs import design_family

    rng = np.random.default_rng([seed, 10**9 + 1])
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
