"""Synthetic photos of cards on tables with exact ground truth (issue 3).

Public API::

    from cardtally.models.synth import render_scene, SceneOptions, dense_targets, card_crop
    scene = render_scene(seed=1, options=SceneOptions(image_wh=(512, 512)))

numpy and OpenCV only; see docs/SYNTH.md for what is randomised and why.
"""

from .designs import design_family, load_design, random_back_design
from .fronts import random_front
from .photo import Lighting
from .scene import CardLabel, Scene, SceneOptions, render_calibration_photo, render_scene
from .targets import card_crop, dense_targets

__all__ = [
    "CardLabel", "Lighting", "Scene", "SceneOptions", "card_crop", "dense_targets",
    "design_family", "load_design", "random_back_design", "random_front",
    "render_calibration_photo", "render_scene",
]
