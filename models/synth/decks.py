"""The decks of one scene: random designs, a Ligretto-style family, or designs given by the user."""

from __future__ import annotations

import numpy as np

from .designs import CARD_WH, named_design_family, random_back_design
from .palette import colour_name


def unique_names(names: list[str]) -> list[str]:
    """Append -2, -3 ... to repeated names so every deck name is unique."""
    seen: dict[str, int] = {}
    out = []
    for n in names:
        seen[n] = seen.get(n, 0) + 1
        out.append(n if seen[n] == 1 else f"{n}-{seen[n]}")
    return out


def make_decks(rng: np.random.Generator, options, design_wh: tuple[int, int] = CARD_WH
               ) -> tuple[list[np.ndarray], list[str]]:
    """Deck designs and names for a scene described by ``options`` (a SceneOptions).

    Random designs are drawn at ``design_wh``; given designs are used as they are.
    """
    if options.designs is not None:
        designs = [np.ascontiguousarray(d[..., :3]) for d in options.designs]
        names = list(options.deck_names or [f"deck{i}" for i in range(len(designs))])
        if len(names) != len(designs):
            raise ValueError(f"{len(designs)} designs but {len(names)} deck names")
        return designs, unique_names(names)
    if options.families:
        pairs = named_design_family(rng, options.n_decks, design_wh)
        return [d for _, d in pairs], [s for s, _ in pairs]
    designs = [random_back_design(rng, design_wh) for _ in range(options.n_decks)]
    return designs, unique_names([colour_name(d) for d in designs])
