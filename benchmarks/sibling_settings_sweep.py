"""Sibling decks under other decision settings: the family scenario's cards decided again.

    python benchmarks/sibling_settings_sweep.py [--first-trial 0] [--trials 16]

Runs ``identify_bench.py``'s family scenario through the detector once, keeping each game
photo's crops, embeddings and decks, then decides the matched cards again with
``identify.decide_owners`` under each of a few ``IdentifySettings``: the templates on or off,
the sibling tie window, the templates' required separation. Prints right / UNKNOWN / wrong deck
for each; the first line is the shipped settings, as the benchmark prints them.
"""

from __future__ import annotations

import argparse

import identify_bench

from cardtally.models.synth.photo import Lighting
from cardtally.vision.embed import BackEmbedder
from cardtally.vision.identify import IdentifySettings

FAMILY = "family of 4 (same colour, symbol differs)"
SETTINGS = {
    "shipped": IdentifySettings(),
    "no templates": IdentifySettings(sibling_templates=False),
    "no tie window": IdentifySettings(sibling_tie_window=0.0),
    "tie window 0.02": IdentifySettings(sibling_tie_window=0.02),
    "tie window 0.08": IdentifySettings(sibling_tie_window=0.08),
    "tie window 0.12": IdentifySettings(sibling_tie_window=0.12),
    "separation 0.05": IdentifySettings(min_separation=0.05),
    "separation 0.25": IdentifySettings(min_separation=0.25),
    "separation 0.35": IdentifySettings(min_separation=0.35),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--first-trial", type=int, default=0)
    parser.add_argument("--trials", type=int, default=16)
    args = parser.parse_args()
    photos: list[identify_bench.TrialPhoto] = []
    kind, n_decks, uncalibrated, face_up = identify_bench.SCENARIOS[FAMILY]
    tally = identify_bench.Tally()
    for trial in range(args.first_trial, args.first_trial + args.trials):
        identify_bench.run_trial(tally, trial, kind, n_decks, uncalibrated, face_up, BackEmbedder(),
                                 "real", Lighting().white_balance, observe=photos.append)
    print(f"family scenes {args.first_trial}-{args.first_trial + args.trials - 1} through the "
          f"detector, {tally.backs} matched backs-up cards")
    print("| settings | right | UNKNOWN | wrong deck |\n|---|---|---|---|")
    for name, settings in SETTINGS.items():
        right = unknown = wrong = 0
        for photo in photos:
            got = identify_bench.identify_as_scenario_decks(
                photo.crops, photo.embeddings, photo.decks, photo.names, settings)
            counts = identify_bench.right_unknown_wrong(got, photo.want)
            right, unknown, wrong = right + counts[0], unknown + counts[1], wrong + counts[2]
        print(f"| {name} | {right} | {unknown} | {wrong} |", flush=True)


if __name__ == "__main__":
    main()
