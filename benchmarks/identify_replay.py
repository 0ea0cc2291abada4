"""Replay identification's decision rules on a saved dump, under variants of their constants.

    python benchmarks/identify_bench.py --trials 32 --detector real --dump runs/dump.pkl
    python benchmarks/identify_replay.py runs/dump.pkl

The dump holds every scene's embeddings and calibrated deck profiles, so ``classify`` and the
scene consensus (``vision.consensus``) run again in seconds without rendering or embedding.
The family scenario is left out: its sibling decks are settled by card-frame templates, which
need the crops. Per variant: cards right / UNKNOWN / wrong deck over the backs-up cards of the
calibrated decks, the uncalibrated deck's cards left UNKNOWN, and face-up cards counted for a
deck; then right / wrong deck per scenario. Choose on one dump and measure on another set of
scenes (``identify_bench --first-trial``).
"""

from __future__ import annotations

import argparse
import dataclasses
import pickle
from collections import defaultdict
from collections.abc import Iterator

import numpy as np

from cardtally.vision.consensus import ConsensusSettings, settle_by_consensus
from cardtally.vision.decks import DeckProfile, DeckSet
from cardtally.vision.detections import FACE_UP, UNKNOWN
from cardtally.vision.embed import Embeddings
from cardtally.vision.identify import IdentifySettings, classify, deck_similarities

#: Columns of a tally row.
BACKS, RIGHT, UNKNOWN_CARDS, WRONG, UNCALIBRATED, REJECTED, FACE_UP_COUNTED = range(7)


@dataclasses.dataclass(frozen=True)
class Scene:
    """One dumped game photo: its embeddings, calibrated decks and the true owners."""

    kind: str
    embeddings: Embeddings
    prototypes: list[np.ndarray]
    thresholds: list[float]
    deck_names: list[str]
    names: list[str]
    want: np.ndarray


def load_scenes(path: str) -> list[Scene]:
    with open(path, "rb") as handle:
        dump = pickle.load(handle)
    # Dumps made with a candidate embedder (``identify_bench --embedder``) keep its impostor
    # cohort; older dumps and the shipped embedder's have none and use the shipped one.
    return [Scene(e["kind"], Embeddings(np.asarray(e["vectors"], np.float32),
                                        np.asarray(e["face_up_prob"], np.float32),
                                        e.get("background")),
                  [np.asarray(p, np.float32) for p in e["prototypes"]],
                  [float(t) for t in e["thresholds"]], list(e["deck_names"]), list(e["names"]),
                  np.asarray(e["want"]))
            for e in dump if e["kind"] != "family"]


def tally(scenes: list[Scene], settings: IdentifySettings,
          threshold_offset: float = 0.0) -> dict[str, np.ndarray]:
    """Per scenario, the tally row of the replayed decisions (thresholds lowered by the offset)."""
    rows: dict[str, np.ndarray] = defaultdict(lambda: np.zeros(7, np.int64))
    for scene in scenes:
        decks = DeckSet(tuple(
            DeckProfile(name, protos, threshold - threshold_offset, "replay", 5,
                        "2026-01-01T00:00:00+00:00")
            for name, protos, threshold in zip(scene.deck_names, scene.prototypes, scene.thresholds,
                                                  strict=True)
        ))
        ids = classify(scene.embeddings, decks, settings, scene.embeddings.background_vectors())
        if settings.consensus is not None:
            ids = settle_by_consensus(scene.embeddings, decks, ids,
                                      deck_similarities(scene.embeddings, decks), settings.consensus)
        # Refused decks are missing from the profiles: map back to the scenario's deck order.
        order = {i: scene.names.index(n) for i, n in enumerate(scene.deck_names)}
        got = np.array([order[int(g)] if g >= 0 else int(g) for g in ids.deck_index], np.int64)
        want = scene.want
        backs, stranger, face_up = want >= 0, want == -1, want == FACE_UP
        key = f"{scene.kind}{len(scene.names)}{'+uncal' if stranger.any() else ''}"
        rows[key] += [backs.sum(), (got[backs] == want[backs]).sum(),
                      (got[backs] == UNKNOWN).sum(),
                      ((got[backs] != want[backs]) & (got[backs] >= 0)).sum(),
                      stranger.sum(), (got[stranger] == UNKNOWN).sum(), (got[face_up] >= 0).sum()]
    return dict(rows)


def summary(rows: dict[str, np.ndarray]) -> str:
    total = np.sum(list(rows.values()), axis=0)
    per_scenario = " ".join(f"{k}:{v[RIGHT]}/{v[WRONG]}" for k, v in sorted(rows.items()))
    return (f"right {total[RIGHT]} unknown {total[UNKNOWN_CARDS]} wrong {total[WRONG]} "
            f"of {total[BACKS]} | uncalibrated rejected {total[REJECTED]}/{total[UNCALIBRATED]} "
            f"| face-up counted {total[FACE_UP_COUNTED]} | {per_scenario}")


def variants() -> Iterator[tuple[str, IdentifySettings, float]]:
    """The shipped settings, then one family of constants changed at a time."""
    base = IdentifySettings()
    yield "shipped", base, 0.0
    for slack in (0.1, 0.15, 0.2):
        for near_margin in (0.1, 0.15):
            for background_margin in (-0.02, 0.0, 0.02):
                yield (f"near slack {slack} margin {near_margin} background {background_margin}",
                       dataclasses.replace(base, near_threshold_slack=slack,
                                           near_threshold_margin=near_margin,
                                           background_margin=background_margin), 0.0)
    for join in (0.1, 0.15, 0.2, 0.25):
        for cut in (0.7, 0.75, 0.8):
            consensus = dataclasses.replace(ConsensusSettings(), join_slack=join,
                                            cluster_similarity=cut)
            yield (f"consensus join {join} cut {cut}",
                   dataclasses.replace(base, consensus=consensus), 0.0)
    for offset in (0.02, 0.04):
        yield f"every threshold -{offset}", base, offset
    for margin in (0.0, 0.02, 0.03):
        yield f"margin {margin}", dataclasses.replace(base, margin=margin), 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dump", help="an identify_bench.py --dump file")
    args = parser.parse_args()
    scenes = load_scenes(args.dump)
    for name, settings, offset in variants():
        print(f"{name}: {summary(tally(scenes, settings, offset))}", flush=True)


if __name__ == "__main__":
    main()
