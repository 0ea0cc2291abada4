"""Enrol a deck from photos of its backs: crops, embeddings, prototypes, threshold, warnings.

Each detected card gives its whole visible part plus thin strips and L-shapes cut from it (the
views the card will show in a played round), so the deck's prototypes cover what a finger-width
strip of the back looks like, not only the whole card.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from cardtally.errors import CardtallyError, UsageError

from .calibration_cards import MIN_USABLE_CARDS, find_cards, with_second_try
from .clustering import average_linkage
from .decks import DeckProfile, DeckSet, check_embedding_dim, now_iso
from .detections import CardDetections
from .embed import BackEmbedder, Embeddings, default_embedder
from .fit.back_median import build_back
from .load import load_distinct_images
from .look_alikes import LookAlikes, look_alikes
from .rectify import CROP_PX, INPUT_CHANNELS, normalise_crop, rectify_card
from .templates import build_template, normalised_frame

#: Photos one calibration takes, and cards each photo must show (``calibrate``'s help).
MAX_PHOTOS = 5
CARDS_PER_PHOTO = (5, 40)
#: How to take a calibration photo (the end of every refusal about the cards found).
HOW_TO_PHOTOGRAPH = (
    f"Photograph {CARDS_PER_PHOTO[0]}-{CARDS_PER_PHOTO[1]} cards of the deck backs up on a "
    "plain table, each card fully or mostly visible."
)
#: Strip widths cut from each card, as a fraction of the card side they run along.
STRIP_FRACTIONS = (0.1, 0.2, 0.35)
#: L-shape arm width, as a fraction of the card width.
L_SHAPE_FRACTION = 0.2
#: A sub-view is used only if this share of it is visible in the calibration photo.
MIN_SUBVIEW_VISIBLE = 0.8
#: Cards at least this visible decide whether the photos show one design.
CLEAR_CARD_FRACTION = 0.35
#: Most prototypes kept per deck (spherical k-means centres).
MAX_PROTOTYPES = 48
#: Two whole-card crops closer than this (cosine) are the same design.
SAME_DESIGN_SIMILARITY = 0.5
#: Second design group of at least this many cards (and share) means the photo mixes designs.
MIXED_MIN_CARDS = 2
MIXED_MIN_SHARE = 0.15
#: Deck threshold: low percentile of the crops' similarity to other cards of the deck, minus a
#: slack for the change of light and camera between calibration and play, clipped to a range.
#: The floor: a calibration whose crops disagree (fragments of split cards) would otherwise
#: get a threshold that takes in every other deck's cards. Measured with
#: benchmarks/identify_bench.py --dump: procedural decks calibrated from true outlines stay
#: above 0.62; real designs go down to 0.29 but none of their cards in play is that far off,
#: so the floor changes no result there; through the detector it turns cards of decks whose
#: calibration failed from a wrong deck to UNKNOWN. Raised from 0.65 to 0.7 (a deck
#: calibrated from cut-up pieces got 0.67 and took another deck's cards): through the detector
#: about as many wrong-deck cards become UNKNOWN as right ones do (git history of docs/BENCHMARKS.md).
THRESHOLD_PERCENTILE = 2.0
THRESHOLD_SLACK = 0.12
THRESHOLD_RANGE = (0.7, 0.95)
#: ... and above this quantile (plus margin) of random other backs' similarity to the deck.
IMPOSTOR_PERCENTILE = 99.5
IMPOSTOR_MARGIN = 0.02
#: Warn when this share of the new deck's crops are about as close to another deck.
CONFUSABLE_SHARE = 0.03
CONFUSABLE_MARGIN = 0.04
#: Face-up head probability from which a calibration card is left out as lying face up.
FACE_UP_PROB = 0.9
#: A deck's own views may reach the face-up head's 99th percentile + this, within the range.
FACE_UP_LIMIT_MARGIN = 0.1
FACE_UP_LIMIT_RANGE = (0.4, 0.95)


@dataclass(frozen=True)
class CalibrationCrops:
    """Model inputs of one deck's calibration: ``pixels`` (m, 4, 64, 64).

    ``card_index`` (m,) numbers the physical cards across all photos; ``whole`` (m,) marks the
    whole-visible-part crop of each card (one per card); ``turned`` (m,) marks the copy of a
    crop turned by 180 degrees (every crop has one, right after it).
    """

    pixels: np.ndarray
    card_index: np.ndarray
    whole: np.ndarray
    photo_index: np.ndarray
    visible_fraction: np.ndarray
    turned: np.ndarray
    #: Per physical card: its normalised template-size frame and mask (``vision.templates``).
    card_frames: tuple[tuple[np.ndarray, np.ndarray], ...] = ()
    #: Per physical card: the rectified card (card frame, uint8) and its visible mask.
    card_backs: tuple[tuple[np.ndarray, np.ndarray], ...] = ()

    def __post_init__(self) -> None:
        m = len(self.card_index)
        if self.pixels.shape != (m, INPUT_CHANNELS, CROP_PX, CROP_PX):
            raise ValueError(
                f"pixels must have shape ({m}, {INPUT_CHANNELS}, {CROP_PX}, {CROP_PX}), "
                f"got {self.pixels.shape}"
            )
        for name in ("whole", "photo_index", "visible_fraction", "turned"):
            if getattr(self, name).shape != (m,):
                raise ValueError(f"{name} must have shape ({m},), got {getattr(self, name).shape}")


@dataclass(frozen=True)
class Confusion:
    """How much a newly calibrated deck overlaps an existing one (``share`` of its crops)."""

    deck: str
    share: float


@dataclass(frozen=True)
class Calibration:
    """Result of enrolling one deck: the profile to store and what the user should hear."""

    profile: DeckProfile
    n_cards: int
    n_face_up: int
    n_outliers: int
    confusions: tuple[Confusion, ...] = field(default=())
    #: 1st, 2nd, 5th, 10th percentile of the crops' similarity to other cards of the deck.
    own_similarity_percentiles: tuple[float, ...] = field(default=())
    #: 90, 95, 99, 99.5, 100th percentile of random other backs' similarity to the deck.
    impostor_similarity_percentiles: tuple[float, ...] = field(default=())
    #: Calibrated decks whose backs differ from this one only in small windows.
    look_alikes: LookAlikes = field(default=LookAlikes())

    @property
    def closest(self) -> Confusion | None:
        """The existing deck most confusable with the new one, if any is confusable."""
        return max(self.confusions, key=lambda c: c.share) if self.confusions else None

    @property
    def closest_unexplained(self) -> Confusion | None:
        """:attr:`closest`, unless the look-alikes already say where the two decks differ."""
        closest = self.closest
        if closest is None or closest.deck in {a.deck for a in self.look_alikes.decks}:
            return None
        return closest


def _subview_masks(mask: np.ndarray) -> list[np.ndarray]:
    """Strips along each side and L-shapes, each intersected with the visible mask."""
    height, width = mask.shape
    views = []
    for fraction in STRIP_FRACTIONS:
        wx, wy = max(2, round(width * fraction)), max(2, round(height * fraction * 0.65))
        for sl in (np.s_[:, :wx], np.s_[:, width - wx :], np.s_[:wy, :], np.s_[height - wy :, :]):
            region = np.zeros_like(mask)
            region[sl] = True
            views.append(region)
    arm = max(2, round(width * L_SHAPE_FRACTION))
    for rows, cols in ((np.s_[:arm], np.s_[:arm]), (np.s_[:arm], np.s_[width - arm :]),
                       (np.s_[height - arm :], np.s_[:arm]),
                       (np.s_[height - arm :], np.s_[width - arm :])):
        region = np.zeros_like(mask)
        region[rows, :] = True
        region[:, cols] = True
        views.append(region)
    kept = []
    for region in views:
        inside = region & mask
        if inside.sum() >= MIN_SUBVIEW_VISIBLE * region.sum():
            kept.append(inside)
    return kept


def calibration_crops(images_bgr: list[np.ndarray],
                      detections: list[CardDetections]) -> CalibrationCrops:
    """Whole-card and strip crops of every detected card in the calibration photos."""
    pixels, card_index, whole, photo_index, fraction, turned = [], [], [], [], [], []
    frames: list[tuple[np.ndarray, np.ndarray]] = []
    backs: list[tuple[np.ndarray, np.ndarray]] = []
    card = 0
    for p, (image, dets) in enumerate(zip(images_bgr, detections, strict=True)):
        for i in range(len(dets)):
            frame, mask = rectify_card(image, dets.quad_xy[i], dets.visible_polygons_xy[i])
            if not mask.any():
                continue
            frames.append(normalised_frame(frame, mask))
            backs.append((frame, mask))
            for k, view in enumerate([mask, *_subview_masks(mask)]):
                crop = normalise_crop(frame, view)
                # A card can lie either way round and the detector cannot tell which: keep
                # both, so a card turned 180 degrees in play still meets its prototype.
                for is_turned, pixels_k in ((False, crop), (True, crop[:, ::-1, ::-1])):
                    pixels.append(np.ascontiguousarray(pixels_k))
                    card_index.append(card)
                    whole.append(k == 0 and not is_turned)
                    photo_index.append(p)
                    fraction.append(float(mask.mean()))
                    turned.append(is_turned)
            card += 1
    if not pixels:
        empty = np.zeros((0, INPUT_CHANNELS, CROP_PX, CROP_PX), np.float32)
        return CalibrationCrops(empty, np.zeros((0,), np.int64), np.zeros((0,), bool),
                                np.zeros((0,), np.int64), np.zeros((0,), np.float32),
                                np.zeros((0,), bool))
    return CalibrationCrops(np.stack(pixels), np.array(card_index), np.array(whole),
                            np.array(photo_index), np.array(fraction, np.float32),
                            np.array(turned), tuple(frames), tuple(backs))


def design_groups(vectors: np.ndarray, similarity: float = SAME_DESIGN_SIMILARITY,
                  turned: np.ndarray | None = None) -> np.ndarray:
    """Average-linkage clustering of whole-card embeddings; returns a group label per card.

    ``turned`` (optional, same shape) are the embeddings of the same crops turned 180 degrees:
    two cards compare by their better-matching orientation.
    """
    sims = vectors @ vectors.T
    if turned is not None:
        sims = np.maximum(sims, vectors @ turned.T)
        sims = np.maximum(sims, sims.T)
    return average_linkage(sims, similarity)


def spherical_kmeans(vectors: np.ndarray, k: int, iterations: int = 20) -> np.ndarray:
    """k unit centres of unit ``vectors`` (deterministic farthest-point start)."""
    k = min(k, len(vectors))
    centres = [vectors[int(np.argmax(vectors @ vectors.mean(axis=0)))]]
    for _ in range(1, k):
        nearest = (vectors @ np.array(centres).T).max(axis=1)
        centres.append(vectors[int(np.argmin(nearest))])
    c = np.array(centres)
    for _ in range(iterations):
        assign = np.argmax(vectors @ c.T, axis=1)
        for j in range(k):
            members = vectors[assign == j]
            if len(members):
                mean = members.sum(axis=0)
                c[j] = mean / max(np.linalg.norm(mean), 1e-12)
    return c.astype(np.float32)


def nearest_other_card(vectors: np.ndarray, card_index: np.ndarray) -> np.ndarray:
    """Each crop's best similarity to a crop of a *different* card (leave-one-card-out)."""
    sims = vectors @ vectors.T
    sims[card_index[:, None] == card_index[None, :]] = -1.0
    return sims.max(axis=1)


def confusions(name: str, vectors: np.ndarray, own_similarity: np.ndarray,
               existing: DeckSet) -> tuple[Confusion, ...]:
    """Existing decks that would take (or tie with) a noticeable share of the new deck's crops."""
    found = []
    for profile in existing.profiles:
        if profile.name == name:
            continue
        check_embedding_dim(profile, vectors.shape[1])
        other = (vectors @ profile.prototypes.T).max(axis=1)
        share = float(np.mean(other >= own_similarity - CONFUSABLE_MARGIN))
        if share >= CONFUSABLE_SHARE:
            found.append(Confusion(profile.name, share))
    return tuple(found)


def whole_back_rows(crops: CalibrationCrops, face_up_prob: np.ndarray) -> tuple[np.ndarray, set[int]]:
    """Rows of the whole-card crops of the cards taken for backs, and the cards taken for
    fronts (``face_up_prob``: the face-up head's output per crop)."""
    whole_idx = np.flatnonzero(crops.whole)
    face_up_cards = set(crops.card_index[whole_idx[face_up_prob[whole_idx] >= FACE_UP_PROB]].tolist())
    if 2 * len(face_up_cards) >= len(whole_idx):
        # The user says these are backs; a head that calls most of them fronts is wrong here
        # (a white, number-like back), and a second design would still be caught below.
        face_up_cards = set()
    rows = np.array([i for i in whole_idx if crops.card_index[i] not in face_up_cards], np.int64)
    return rows, face_up_cards


def design_judges(crops: CalibrationCrops, back_whole: np.ndarray) -> np.ndarray:
    """The rows of ``back_whole`` that judge "one design or several": the clearly visible cards
    (a card showing only a sliver embeds less reliably and, if it does not match, is just left
    out), or all of them when too few are clear."""
    clear = back_whole[crops.visible_fraction[back_whole] >= CLEAR_CARD_FRACTION]
    return clear if len(clear) >= MIN_USABLE_CARDS else back_whole


def mixes_designs(group_sizes: np.ndarray) -> bool:
    """Whether design groups of these sizes (largest first, ``design_groups``) hold a second
    design, not just an odd card."""
    return bool(len(group_sizes) > 1 and group_sizes[1] >= MIXED_MIN_CARDS
                and group_sizes[1] >= MIXED_MIN_SHARE * group_sizes.sum())


def build_calibration(name: str, crops: CalibrationCrops, embeddings: Embeddings,
                      existing: DeckSet, photo_names: list[str], version: str,
                      background: np.ndarray) -> Calibration:
    """Turn embedded calibration crops into a deck profile, or explain why not."""
    photos = ", ".join(photo_names)
    back_whole, face_up_cards = whole_back_rows(crops, embeddings.face_up_prob)
    if len(back_whole) < MIN_USABLE_CARDS:
        raise CardtallyError(
            f"Found {len(back_whole)} usable card back{'s' if len(back_whole) != 1 else ''} in "
            f"{photos}; need at least {MIN_USABLE_CARDS}. {HOW_TO_PHOTOGRAPH}"
        )
    clear = design_judges(crops, back_whole)
    labels = design_groups(embeddings.vectors[clear], turned=embeddings.vectors[clear + 1])
    sizes = np.bincount(labels)
    if mixes_designs(sizes):
        raise CardtallyError(
            f"The photos {photos} mix card designs ({sizes[0]} cards look like one design, "
            f"{sizes[1]} like another); photograph the backs of one deck only."
        )
    main = np.concatenate([embeddings.vectors[clear[labels == 0]],
                           embeddings.vectors[clear[labels == 0] + 1]])
    # Less visible cards join when they are as close to the design's clear cards as those are
    # to each other (either way round).
    cutoff = min(float(np.sort(main @ main.T, axis=1)[:, -2].min()), SAME_DESIGN_SIMILARITY)
    joins = (embeddings.vectors[back_whole] @ main.T).max(axis=1) >= cutoff
    main_cards = set(crops.card_index[clear[labels == 0]].tolist())
    main_cards |= set(crops.card_index[back_whole[joins]].tolist())
    if len(main_cards) < MIN_USABLE_CARDS:
        raise CardtallyError(
            f"Found {len(main_cards)} usable card backs of one design in {photos}; need at "
            f"least {MIN_USABLE_CARDS}."
        )
    use = np.isin(crops.card_index, list(main_cards))
    vectors = embeddings.vectors[use]
    card_index = crops.card_index[use]
    own = nearest_other_card(vectors, card_index)
    prototypes = spherical_kmeans(vectors, MAX_PROTOTYPES)
    threshold, impostor = deck_threshold(own, prototypes, background)
    own_face_up = embeddings.face_up_prob[use]
    face_up_limit = float(np.clip(np.percentile(own_face_up, 99) + FACE_UP_LIMIT_MARGIN,
                                  *FACE_UP_LIMIT_RANGE))
    template_frames = [crops.card_frames[c] for c in sorted(main_cards) if c < len(crops.card_frames)]
    back_frames = [crops.card_backs[c] for c in sorted(main_cards) if c < len(crops.card_backs)]
    profile = DeckProfile(name=name, prototypes=prototypes, threshold=threshold,
                          embedder_version=version, n_cards=len(main_cards), created=now_iso(),
                          face_up_prob_limit=face_up_limit, template=build_template(template_frames),
                          back=build_back(name, back_frames))
    return Calibration(
        profile=profile,
        n_cards=len(main_cards),
        n_face_up=len(face_up_cards),
        n_outliers=len(back_whole) - len(main_cards),
        confusions=confusions(name, vectors, own, existing),
        own_similarity_percentiles=tuple(float(v) for v in np.percentile(own, [1, 2, 5, 10])),
        impostor_similarity_percentiles=tuple(
            float(v) for v in np.percentile(impostor, [90, 95, 99, 99.5, 100])),
    )


def deck_threshold(own: np.ndarray, prototypes: np.ndarray,
                   background: np.ndarray) -> tuple[float, np.ndarray]:
    """Acceptance threshold of a deck, and the impostors' similarities it was set against.

    Above nearly every random other back (impostor quantile + margin), but never so high that
    the deck's own calibration views (less a slack for new light and camera) would miss.
    """
    impostor = (background @ prototypes.T).max(axis=1)
    above_impostors = float(np.percentile(impostor, IMPOSTOR_PERCENTILE)) + IMPOSTOR_MARGIN
    own_floor = float(np.percentile(own, THRESHOLD_PERCENTILE)) - THRESHOLD_SLACK
    low, high = THRESHOLD_RANGE
    return float(np.clip(min(above_impostors, own_floor), low, high)), impostor


def calibrate_deck(name: str, photo_paths: list[Path], existing: DeckSet,
                   embedder: BackEmbedder | None = None) -> Calibration:
    """Detect, crop and embed the cards in ``photo_paths`` and build deck ``name``'s profile;
    refuse a deck whose back no window tells from a calibrated deck's (``vision.look_alikes``)."""
    # A photo given twice would count its cards twice, and each card would be its own
    # nearest "other card", raising the deck's threshold.
    images = [loaded.bgr for loaded in load_distinct_images(photo_paths, "calibration photo")]
    names = [p.name for p in photo_paths]
    embedder = embedder or default_embedder()

    def calibrate_cards(detections: list[CardDetections]) -> Calibration:
        crops = calibration_crops(images, detections)
        if len(crops.card_index) == 0:
            raise CardtallyError(f"No cards found in {', '.join(names)}. {HOW_TO_PHOTOGRAPH}")
        check_cards_per_photo(names, [len(found) for found in detections])
        embeddings = embedder.embed(crops.pixels)
        return build_calibration(name, crops, embeddings, existing, names,
                                 calibration_version(embedder), embeddings.background_vectors())

    result = with_second_try(calibrate_cards, images, [find_cards(image) for image in images])
    # After the second try, not inside it: a deck that looks like another is no reason to look
    # for the cards again.
    return replace(result, look_alikes=look_alikes(result.profile.back, existing))


def check_photo_count(n_photos: int) -> None:
    """Refuse more photos than one calibration takes (a usage error: before any work)."""
    if n_photos > MAX_PHOTOS:
        raise UsageError(
            f"Give at most {MAX_PHOTOS} calibration photos; got {n_photos}."
        )


def check_cards_per_photo(photo_names: list[str], n_cards: list[int]) -> None:
    """Refuse a photo showing fewer or more cards than a calibration photo holds (too few
    teach too little of the back; too many lie too close to be found whole)."""
    low, high = CARDS_PER_PHOTO
    for name, n in zip(photo_names, n_cards, strict=True):
        if not low <= n <= high:
            raise CardtallyError(
                f"Found {n} card{'s' if n != 1 else ''} in {name}; a calibration photo must "
                f"show {low}-{high}. {HOW_TO_PHOTOGRAPH}"
            )


def calibration_version(embedder: BackEmbedder) -> str:
    """The embedder version that profiles calibrated with ``embedder`` record."""
    if embedder.version is None:
        raise ValueError("an embedder built on a bare session has no version to calibrate with")
    return embedder.version
