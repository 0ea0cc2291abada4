"""Back-identification benchmark on rendered scenes with designs never used in training.

Each trial calibrates every deck from one rendered calibration photo (light 6500 K), then
identifies the cards of a rendered mixed-layout game photo under another light (2700 K) using
ground-truth card outlines (``--detector real`` uses ``vision.detect.detect_cards`` instead).

    python benchmarks/identify_bench.py --trials 10

Scenarios: 4 and 8 procedural decks (fresh seeds), a Ligretto-style family of 4 (same design
and colour, different symbol), 4 real designs from /work/shared/data/backs, and 4 calibrated
decks with an uncalibrated fifth one and 10 % face-up cards mixed in. Prints a Markdown table.
"""

from __future__ import annotations

import argparse
import pickle
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from cardtally.errors import CardtallyError
from cardtally.models.embedder.scenes import (
    calibrate_from_scene,
    cards_under_centres,
    expected_owner,
    gt_detections,
    real_back_paths,
)
from cardtally.models.synth.designs import design_family, load_design, random_back_design
from cardtally.models.synth.photo import Lighting
from cardtally.models.synth.scene import Scene, SceneOptions, render_calibration_photo, render_scene
from cardtally.vision.calibration_cards import (
    CALIBRATION_DETECTOR_SETTINGS,
    find_card_shapes,
    find_cards,
    keep_card_sized,
)
from cardtally.vision.consensus import ConsensusSettings
from cardtally.vision.decks import DeckSet
from cardtally.vision.detect import CardDetector, survey_detector
from cardtally.vision.detections import FACE_UP, UNKNOWN, CardDetections
from cardtally.vision.embed import EMBEDDER_FILE, BackEmbedder, Embeddings
from cardtally.vision.identify import IdentifySettings, decide_owners, deck_similarities
from cardtally.vision.onnx_session import load_packaged_model, model_session
from cardtally.vision.rectify import CardCrops, card_crops

CALIBRATION_K = 6500.0
TEST_K = 2700.0
IMAGE_WH = (1600, 1200)
#: Seeds far from anything the training used (training draws designs from its own seed).
SEED_BASE = 900_000


@dataclass
class Tally:
    """Counts over all trials of one scenario."""

    backs: int = 0
    correct: int = 0
    unknown: int = 0
    wrong: int = 0
    strips: int = 0
    strips_correct: int = 0
    whole: int = 0
    whole_correct: int = 0
    uncal: int = 0
    uncal_rejected: int = 0
    face_up: int = 0
    face_up_as_deck: int = 0
    face_up_found: int = 0
    backs_as_face_up: int = 0
    warnings: list[str] = field(default_factory=list)
    calibration_failures: list[str] = field(default_factory=list)
    missed: int = 0
    false_detections: int = 0
    #: With the real detector, every detection identified together as ``count`` does: the
    #: decks' counts off by this many cards in all, and detections counted for a deck that are
    #: no card of their own (off every card, or a second piece of a card already counted).
    count_error: int = 0
    pieces_counted: int = 0

    def pct(self, a: int, b: int) -> str:
        """``a`` of ``b`` as a percentage with its counts, or '-' when there is nothing."""
        return f"{100 * a / b:.2f}% ({a}/{b})" if b else "-"


def distinct_real_designs(rng: np.random.Generator, n: int) -> list[np.ndarray]:
    """``n`` real designs that differ visibly (the sets repeat some backs under other names)."""
    paths = real_back_paths()
    chosen: list[np.ndarray] = []
    thumbs: list[np.ndarray] = []
    for index in rng.permutation(len(paths)):
        design = load_design(paths[int(index)])
        thumb = cv2.resize(design, (16, 24), interpolation=cv2.INTER_AREA).astype(np.float32)
        if any(np.abs(thumb - t).mean() < 12 for t in thumbs):
            continue
        chosen.append(design)
        thumbs.append(thumb)
        if len(chosen) == n:
            break
    return chosen


def scenario_designs(kind: str, rng: np.random.Generator, n: int) -> list[np.ndarray]:
    """``n`` back designs of a scenario's kind: procedural, one family, or real."""
    if kind == "procedural":
        return [random_back_design(rng) for _ in range(n)]
    if kind == "family":
        return design_family(rng, n=n)
    if kind == "real":
        return distinct_real_designs(rng, n)
    raise ValueError(kind)


def calibration_photos(rng: np.random.Generator, designs: list[np.ndarray], names: list[str],
                       white_balance: tuple[float, float]) -> list:
    """One rendered calibration photo per deck, under the calibration light."""
    return [render_calibration_photo(
        int(rng.integers(2**31)), design, image_wh=(1280, 960), deck_name=name,
        colour_temp_k=(CALIBRATION_K, CALIBRATION_K), white_balance=white_balance)
        for name, design in zip(names, designs, strict=True)]


def more_calibration_photos(photos: list, designs: list[np.ndarray], names: list[str],
                            white_balance: tuple[float, float], per_deck: int,
                            seed: list[int]) -> list[list]:
    """Per deck, a list of its photo and ``per_deck - 1`` more, drawn from their own ``seed`` so
    that the game photos stay those of the one-photo benchmark."""
    rng = np.random.default_rng(seed)
    extra = [calibration_photos(rng, designs, names, white_balance) for _ in range(per_deck - 1)]
    return [[photo, *(more[k] for more in extra)] for k, photo in enumerate(photos)]


def calibrate_decks(photos: list, names: list[str], embedder: BackEmbedder,
                    with_detector: bool,
                    find: Callable[[np.ndarray], CardDetections] = find_cards,
                    second_try: bool = True,
                    find_shapes: Callable[[np.ndarray], CardDetections] | None = None
                    ) -> tuple[DeckSet, list, list[str]]:
    """Calibrate each deck in turn (later decks are compared with the earlier ones) from its
    list of photos in ``photos``.

    With the detector, calibration finds its cards with ``find`` (by default as `cardtally
    calibrate` does) and, with ``second_try``, tries a refused deck again with the cards that
    ``find_shapes`` finds by their shape (by default in the shipped calibration network's map,
    as `cardtally calibrate` does); otherwise it uses the true outlines. Returns the decks, the
    calibration results and the messages of the refused calibrations (those decks' cards can
    then only miss).
    """
    decks, results, refusals = DeckSet(()), [], []
    for name, deck_photos in zip(names, photos, strict=True):
        try:
            found = [find(p.image) for p in deck_photos] if with_detector else None
            result = calibrate_from_scene(name, deck_photos, decks, embedder, found,
                                          second_try=with_detector and second_try,
                                          find_shapes=find_shapes)
        except CardtallyError as exc:
            refusals.append(str(exc).split(";")[0])
            continue
        results.append(result)
        decks = DeckSet((*decks.profiles, result.profile))
    return decks, results, refusals


def game_scene(rng: np.random.Generator, designs: list[np.ndarray], names: list[str],
               face_up_fraction: float, white_balance: tuple[float, float],
               image_wh: tuple[int, int] = IMAGE_WH):
    """The rendered game photo: a mixed layout of every deck under the test light."""
    options = SceneOptions(
        preset="mixed", n_decks=len(names), designs=designs, deck_names=names,
        n_cards=(40, 150), face_up_fraction=face_up_fraction, image_wh=image_wh,
        lighting=Lighting(colour_temp_k=(TEST_K, TEST_K), white_balance=white_balance),
    )
    return render_scene(int(rng.integers(2**31)), options)


def identify_as_scenario_decks(crops: CardCrops | None, embeddings, decks: DeckSet,
                               names: list[str],
                               settings: IdentifySettings | None = None) -> np.ndarray:
    """What identify() does, with each card's deck as an index into ``names`` (or UNKNOWN /
    FACE_UP), so that decks whose calibration was refused keep their places (``crops`` may be
    None when the settings turn the templates off: ``identify.decide_owners``)."""
    got = decide_owners(crops, embeddings, decks, settings or IdentifySettings())
    index_of = {i: names.index(n) for i, n in enumerate(decks.names)}
    return np.array([index_of[int(g)] if g >= 0 else int(g) for g in got.deck_index], np.int64)


@dataclass(frozen=True)
class TrialPhoto:
    """One game photo of a trial as the benchmark identified it (handed to an ``Observer``).

    ``all_detections`` and ``all_matched`` are every detection and the card under its centre
    (-1: none); ``detections``, ``matched``, ``crops`` and ``embeddings`` are those on a card,
    identified against ``decks`` as ``got`` (indices into ``names``, or UNKNOWN / FACE_UP),
    with the true decks ``want``.
    """

    scene: Scene
    all_detections: CardDetections
    all_matched: np.ndarray
    detections: CardDetections
    matched: np.ndarray
    crops: CardCrops
    embeddings: Embeddings
    decks: DeckSet
    names: list[str]
    got: np.ndarray
    want: np.ndarray


def right_unknown_wrong(got: np.ndarray, want: np.ndarray) -> tuple[int, int, int]:
    """Of the backs-up cards of calibrated decks (``want`` >= 0): how many got their deck, how
    many came out UNKNOWN and how many went to another deck."""
    backs = want >= 0
    got, want = got[backs], want[backs]
    return (int((got == want).sum()), int((got == UNKNOWN).sum()),
            int(((got != want) & (got >= 0)).sum()))


#: Called once per game photo with its outlines and decisions (``run_trial``'s ``observe``).
Observer = Callable[[TrialPhoto], None]


def run_trial(tally: Tally, trial: int, kind: str, n_decks: int, uncalibrated: int,
              face_up_fraction: float, embedder: BackEmbedder, detector: str,
              white_balance: tuple[float, float], dump: list | None = None,
              settings: IdentifySettings | None = None, photos_per_deck: int = 1,
              candidates: CandidateDetectors | None = None,
              observe: Observer | None = None, second_try: bool = True,
              image_wh: tuple[int, int] = IMAGE_WH) -> None:
    """Calibrate one scene's decks and identify its game photo's cards into ``tally``."""
    rng = np.random.default_rng([SEED_BASE, trial, n_decks, len(kind)])
    designs = scenario_designs(kind, rng, n_decks)
    extra = [random_back_design(rng) for _ in range(uncalibrated)]
    names = [f"deck{k}" for k in range(n_decks)]
    photos = more_calibration_photos(calibration_photos(rng, designs, names, white_balance),
                                     designs, names, white_balance, photos_per_deck,
                                     [SEED_BASE, trial, n_decks, len(kind), 1])
    candidates = candidates or CandidateDetectors()
    decks, results, refusals = calibrate_decks(photos, names, embedder, detector == "real",
                                               candidates.find_calibration_cards, second_try,
                                               candidates.find_calibration_shapes)
    tally.calibration_failures += refusals
    own_percentiles = [(r.own_similarity_percentiles, r.impostor_similarity_percentiles)
                       for r in results]
    tally.warnings += [f"{r.profile.name}~{r.closest.deck}:{r.closest.share:.2f}"
                       for r in results if r.closest is not None]
    all_names = names + [f"uncal{k}" for k in range(uncalibrated)]
    scene = game_scene(rng, designs + extra, all_names, face_up_fraction, white_balance, image_wh)
    if detector == "real":
        detections, matched = real_detections(scene, candidates.game)
        tally.missed += len(scene.cards) - len(set(matched[matched >= 0].tolist()))
        tally.false_detections += int((matched < 0).sum())
    else:
        detections = gt_detections(scene)
        matched = np.arange(len(scene.cards))
    all_detections, all_matched = detections, matched
    if detections.image_wh != (scene.image.shape[1], scene.image.shape[0]):
        raise ValueError("detections do not match the image")
    # Each card's crop and embedding are its own, so the matched cards' are a subset of all.
    crops = card_crops(scene.image, detections, keep_rectified=True)
    embeddings = embedder.embed(crops)
    if detector == "real":
        tally_counts(tally, scene, crops, embeddings, matched, decks, names, settings)
        keep = matched >= 0
        detections, matched = detections[keep], matched[keep]
        crops, embeddings = crops[keep], embeddings[keep]
    got = identify_as_scenario_decks(crops, embeddings, decks, names, settings)
    if dump is not None:
        dump.append({"sims": deck_similarities(embeddings, decks),
                     "vectors": embeddings.vectors,
                     "prototypes": [p.prototypes for p in decks.profiles],
                     "got": got,
                     "deck_names": list(decks.names), "names": names,
                     "face_up_prob": embeddings.face_up_prob,
                     # A candidate embedder's impostor cohort (None: the shipped one).
                     "background": embeddings.background,
                     "want": expected_owner(scene, names)[matched], "strip_px": detections.strip_px,
                     "thresholds": [p.threshold for p in decks.profiles],
                     "own_percentiles": own_percentiles, "kind": kind})
    want = expected_owner(scene, names)[matched]
    if observe is not None:
        observe(TrialPhoto(scene, all_detections, all_matched, detections, matched, crops,
                           embeddings, decks, names, got, want))
    strip = np.array([c.strip_px for c in scene.cards], np.float32)[matched]
    whole = np.array([c.visible_fraction >= 0.9 for c in scene.cards], bool)[matched]
    backs = want >= 0
    tally.backs += int(backs.sum())
    right, unknown, wrong = right_unknown_wrong(got, want)
    tally.correct += right
    tally.unknown += unknown
    tally.wrong += wrong
    tally.backs_as_face_up += int((got[backs] == FACE_UP).sum())
    thin = backs & (strip >= 12) & (strip < 20)
    tally.strips += int(thin.sum())
    tally.strips_correct += int((got[thin] == want[thin]).sum())
    tally.whole += int((backs & whole).sum())
    tally.whole_correct += int((got[backs & whole] == want[backs & whole]).sum())
    uncal = want == -1
    tally.uncal += int(uncal.sum())
    tally.uncal_rejected += int((got[uncal] == UNKNOWN).sum())
    up = want == FACE_UP
    tally.face_up += int(up.sum())
    tally.face_up_as_deck += int((got[up] >= 0).sum())
    tally.face_up_found += int((got[up] == FACE_UP).sum())


def tally_counts(tally: Tally, scene, crops: CardCrops, embeddings: Embeddings,
                 matched: np.ndarray, decks: DeckSet, names: list[str],
                 settings: IdentifySettings | None) -> None:
    """What a user sees: every detection of the photo identified together, each deck's count
    against its true number of backs-up cards, and the counted detections that are no card."""
    got = identify_as_scenario_decks(crops, embeddings, decks, names, settings)
    truth = expected_owner(scene, names)
    for deck in range(len(names)):
        tally.count_error += abs(int((got == deck).sum()) - int((truth == deck).sum()))
    seen: set[int] = set()
    for card in matched[got >= 0].tolist():
        tally.pieces_counted += int(card < 0 or card in seen)
        seen.add(card)


def behind_shipped_survey(path: Path) -> CardDetector:
    """A candidate processing model (ONNX file) behind the shipped survey model, as the
    shipped detector runs its own processing model."""
    return CardDetector(model_session(path.read_bytes(), path.name), survey_detector())


@dataclass(frozen=True)
class CandidateDetectors:
    """Processing models to measure instead of the shipped one, each behind the shipped survey
    model: one for the calibration photos, one for the game photos (None: the shipped one)."""

    calibration: CardDetector | None = None
    game: CardDetector | None = None

    @classmethod
    def from_files(cls, calibration: Path | None, game: Path | None) -> CandidateDetectors:
        """Candidates from ONNX files (``None``: the shipped model for those photos)."""
        return cls(*(behind_shipped_survey(path) if path else None for path in (calibration, game)))

    def find_calibration_cards(self, image: np.ndarray) -> CardDetections:
        """The cards a calibration keeps, as :func:`find_cards` finds them."""
        if self.calibration is None:
            return find_cards(image)
        return keep_card_sized(self.calibration.detect(image, CALIBRATION_DETECTOR_SETTINGS))

    def find_calibration_shapes(self, image: np.ndarray) -> CardDetections:
        """The whole cards a refused calibration tries again with, as :func:`find_card_shapes`
        finds them, in the candidate calibration model's foreground map where there is one."""
        return find_card_shapes(image, self.calibration)


def real_detections(scene, detector: CardDetector | None = None
                    ) -> tuple[CardDetections, np.ndarray]:
    """The detector's cards (default: the shipped one), each matched to the rendered card under
    its centre (-1: none)."""
    from cardtally.vision.detect import detect_cards

    detections = detector.detect(scene.image) if detector else detect_cards(scene.image)
    return detections, cards_under_centres(scene, detections)


def embed_timing(n: int = 200, repeats: int = 9,
                 model_path: Path | None = None) -> tuple[float, float, float]:
    """Embedding ``n`` crops on 2 threads with the shipped embedder (or the one exported to
    ``model_path``): best and median wall-clock ms, median CPU ms.

    On a shared machine the wall-clock figure depends on the other jobs; the best of several
    runs is the closest to an idle machine, CPU time (both threads) is load-independent.
    """
    embedder = (BackEmbedder.from_file(model_path, threads=2) if model_path
                else BackEmbedder(load_packaged_model(EMBEDDER_FILE, threads=2)))
    crops = np.random.default_rng(0).normal(0, 0.3, (n, 4, 64, 64)).astype(np.float32)
    embedder.embed(crops)
    wall, cpu = [], []
    for _ in range(repeats):
        start, start_cpu = time.perf_counter(), time.process_time()
        embedder.embed(crops)
        wall.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    return 1000 * min(wall), 1000 * float(np.median(wall)), 1000 * float(np.median(cpu))


SCENARIOS = {
    # name: (design kind, calibrated decks, uncalibrated decks, face-up fraction)
    "4 procedural decks": ("procedural", 4, 0, 0.0),
    "8 procedural decks": ("procedural", 8, 0, 0.0),
    "family of 4 (same colour, symbol differs)": ("family", 4, 0, 0.0),
    "4 real designs (PySolFC backs)": ("real", 4, 0, 0.0),
    "4 procedural + 1 uncalibrated + 10% face up": ("procedural", 4, 1, 0.1),
}


def main() -> None:
    """Run the chosen scenarios and print their Markdown table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=10, help="scenes per scenario")
    parser.add_argument("--first-trial", type=int, default=0,
                        help="number of the first scene (held-out scenes for tuning)")
    parser.add_argument("--detector", choices=["gt", "real"], default="gt")
    parser.add_argument("--timing-only", action="store_true")
    parser.add_argument("--only", default="", help="run scenarios whose name contains this")
    parser.add_argument("--dump", default="", help="save per-card similarities (.pkl) for tuning")
    parser.add_argument("--no-templates", action="store_true",
                        help="the embedder alone: no card-frame templates for sibling decks")
    parser.add_argument("--no-consensus", action="store_true",
                        help="each card on its own: no scene consensus for UNKNOWN cards")
    parser.add_argument("--no-white-balance", action="store_true",
                        help="disable the simulated camera white balance (full colour cast)")
    parser.add_argument("--calibration-photos", type=int, default=1,
                        help="calibration photos per deck (the first is the one-photo run's)")
    parser.add_argument("--model", type=Path, default=None,
                        help="a candidate processing model (ONNX) for the game photos, behind "
                             "the shipped survey model (--detector real)")
    parser.add_argument("--calibration-model", type=Path, default=None,
                        help="the same for the calibration photos")
    parser.add_argument("--embedder", type=Path, default=None,
                        help="a candidate back embedder (ONNX, with its impostor cohort "
                             "NAME_background.npy beside it, as the export writes them) in "
                             "place of the shipped one")
    parser.add_argument("--image-wh", type=int, nargs=2, default=IMAGE_WH, metavar=("W", "H"),
                        help="game photo size (the same layouts, rendered at this size; "
                             "default: %(default)s)")
    parser.add_argument("--no-second-try", action="store_true",
                        help="through the detector, leave refused calibrations refused (as before "
                             "the second try) instead of trying the cards found by their shape")
    args = parser.parse_args()
    candidates = CandidateDetectors.from_files(args.calibration_model, args.model)
    if args.timing_only:
        best, median, cpu = embed_timing(model_path=args.embedder)
        print(f"embedding 200 crops on 2 threads: best {best:.0f} ms, median {median:.0f} ms "
              f"wall-clock, median {cpu:.0f} ms CPU (both threads)")
        return
    embedder = BackEmbedder.from_file(args.embedder) if args.embedder else BackEmbedder()
    settings = IdentifySettings(sibling_templates=not args.no_templates,
                                consensus=None if args.no_consensus else ConsensusSettings())
    dump: list | None = [] if args.dump else None
    wb = (0.0, 0.0) if args.no_white_balance else Lighting().white_balance
    print(f"calibration {CALIBRATION_K:.0f} K ({args.calibration_photos} photo(s) per deck), "
          f"test {TEST_K:.0f} K, camera white balance {wb}, "
          f"{args.trials} scenes per scenario, detections: {args.detector}"
          + (f", game photos {args.image_wh[0]}x{args.image_wh[1]}"
             if tuple(args.image_wh) != IMAGE_WH else "") + "\n")
    print("| scenario | backs-up accuracy | became UNKNOWN | wrong deck | strips 12-20 px "
          "| whole cards | uncalibrated rejected | face-up counted for a deck |")
    print("|---|---|---|---|---|---|---|---|")
    for name, (kind, n, uncal, face_up) in SCENARIOS.items():
        if args.only and args.only not in name:
            continue
        t = Tally()
        for trial in range(args.first_trial, args.first_trial + args.trials):
            run_trial(t, trial, kind, n, uncal, face_up, embedder, args.detector, wb, dump,
                      settings, args.calibration_photos, candidates,
                      second_try=not args.no_second_try, image_wh=tuple(args.image_wh))
        print(f"| {name} | {t.pct(t.correct, t.backs)} | {t.pct(t.unknown, t.backs)} "
              f"| {t.pct(t.wrong, t.backs)} | {t.pct(t.strips_correct, t.strips)} "
              f"| {t.pct(t.whole_correct, t.whole)} | {t.pct(t.uncal_rejected, t.uncal)} "
              f"| {t.pct(t.face_up_as_deck, t.face_up)} |", flush=True)
        if t.warnings:
            print(f"<!-- confusable warnings: {' '.join(t.warnings)} -->", flush=True)
        if args.detector == "real":
            print(f"<!-- detector: {t.missed} cards missed, {t.false_detections} false detections; "
                  "accuracy is over matched cards -->", flush=True)
            print(f"<!-- all detections identified together: decks' counts off by "
                  f"{t.count_error} cards in all, {t.pieces_counted} counted detections are no "
                  "card (off every card, or a second piece of one) -->", flush=True)
        if t.calibration_failures:
            print(f"<!-- calibration failures: {t.calibration_failures} -->", flush=True)
    if dump is not None:
        with open(args.dump, "wb") as handle:
            pickle.dump(dump, handle)
    best, median, cpu = embed_timing(model_path=args.embedder)
    print(f"\nembedding 200 crops on 2 threads: best {best:.0f} ms, median {median:.0f} ms "
          f"wall-clock, median {cpu:.0f} ms CPU (both threads)")


if __name__ == "__main__":
    main()
