"""A rendered calibration photo that the detector refuses and the second try calibrates
(shared by the test folders)."""

from __future__ import annotations

import numpy as np

from cardtally.models.synth.designs import design_family
from cardtally.models.synth.scene import Scene, render_calibration_photo


def family_photo_cut_in_pieces() -> Scene:
    """Deck 1 of identify_bench's family scenario, scene 5, as that benchmark renders it: 8
    cards, 7 of them whole, which the detector cuts into pieces that look like two designs."""
    rng = np.random.default_rng([900_000, 5, 4, len("family")])
    designs = design_family(rng, n=4)
    seeds = [int(rng.integers(2**31)) for _ in designs]
    return render_calibration_photo(seeds[1], designs[1], image_wh=(1280, 960), deck_name="deck1",
                                    colour_temp_k=(6500.0, 6500.0), white_balance=(0.5, 0.95))
