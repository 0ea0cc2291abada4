"""Re-decide dumped game cards under other scene-consensus cuts, without re-rendering anything.

    python benchmarks/identify_bench.py --trials 16 --detector real --dump runs/dump-0.pkl
    python benchmarks/consensus_sweep.py runs/dump-0.pkl [more dumps] --cuts 0.8 0.75 0.7

Each dumped card (``identify_bench.py --dump``: its vector, the decks' prototypes and
thresholds, the true deck) goes through ``identify.decide_owners`` again (as
``identify_bench.identify_as_scenario_decks`` calls it) with
``ConsensusSettings.cluster_similarity`` set to each cut.
Two steps of ``identify`` are left out, so the figures are a guide for choosing, not the
benchmark's own: the sibling templates (they need the crops; ``--no-templates`` runs of the
benchmark match), and the decks' own face-up limits (a card the benchmark called face up stays
face up, no other becomes one).
"""

from __future__ import annotations

import argparse
import pickle
from dataclasses import replace
from pathlib import Path

import numpy as np
from identify_bench import identify_as_scenario_decks, right_unknown_wrong

from cardtally.vision.consensus import ConsensusSettings
from cardtally.vision.decks import DeckProfile, DeckSet
from cardtally.vision.detections import FACE_UP, UNKNOWN
from cardtally.vision.embed import Embeddings
from cardtally.vision.identify import IdentifySettings


def redecide(scene: dict, settings: IdentifySettings) -> np.ndarray:
    """One dumped game photo's cards decided again: indices into its scenario's deck names."""
    # The dump keeps what the decision reads; the rest of a profile plays no part in it.
    decks = DeckSet(tuple(
        DeckProfile(name, prototypes, threshold, embedder_version="dumped", n_cards=0, created="")
        for name, prototypes, threshold
        in zip(scene["deck_names"], scene["prototypes"], scene["thresholds"], strict=True)))
    embeddings = Embeddings(vectors=scene["vectors"],
                            face_up_prob=np.zeros(len(scene["vectors"]), np.float32))
    got = identify_as_scenario_decks(None, embeddings, decks, scene["names"], settings)
    got[scene["got"] == FACE_UP] = FACE_UP
    return got


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dumps", type=Path, nargs="+")
    parser.add_argument("--cuts", type=float, nargs="+", default=[0.8, 0.75, 0.7])
    args = parser.parse_args()
    scenes = [scene for path in args.dumps for scene in pickle.loads(path.read_bytes())]
    print("| cut | scenario | right | UNKNOWN | wrong deck | uncalibrated rejected |")
    print("|---|---|---|---|---|---|")
    for cut in args.cuts:
        settings = IdentifySettings(sibling_templates=False, consensus=replace(
            ConsensusSettings(), cluster_similarity=cut))
        tallies: dict[str, np.ndarray] = {}
        for scene in scenes:
            got, want = redecide(scene, settings), scene["want"]
            name = f"{scene['kind']} x{len(scene['names'])}" + (" + stranger" if (want == -1).any() else "")
            strangers = want == -1
            tallies.setdefault(name, np.zeros(5, np.int64))
            tallies[name] += [*right_unknown_wrong(got, want),
                              int((got[strangers] == UNKNOWN).sum()), int(strangers.sum())]
        for name, (right, unknown, wrong, rejected, strangers) in tallies.items():
            rejection = f"{rejected} / {strangers}" if strangers else "-"
            print(f"| {cut} | {name} | {right} | {unknown} | {wrong} | {rejection} |")


if __name__ == "__main__":
    main()
