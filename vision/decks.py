"""Calibrated deck profiles: what each player's card back looks like to the embedder.

One JSON file per deck in the data home (``decks/<name>.json``): a few prototype embeddings
(whole cards and thin strips), the deck's acceptance threshold, the version of the embedder
that made them and, where the calibration photos showed cards at least half visible, a small
card-frame template of the back (``vision.templates``) and the back itself at the card frame's
size with its per-pixel spread (``vision.fit.backs``; profiles without them still load). Files
are written atomically; a corrupt file, or one made by another embedder version, is refused
with an error that names the file and says how to fix it.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

from cardtally.errors import CardtallyError
from cardtally.home import decks_dir, ensure_data_home

from ..scoring.names import check_deck_name
from .fit.backs import CalibratedBack, decode_back, encode_back
from .templates import DeckTemplate, decode_template, encode_template

FORMAT_VERSION = 1
PROFILE_SUFFIX = ".json"


@dataclass(frozen=True)
class DeckProfile:
    """One calibrated deck. ``prototypes`` (k, embedding_dim) float32 unit rows."""

    name: str
    prototypes: np.ndarray
    threshold: float
    embedder_version: str
    n_cards: int
    created: str
    #: Face-up head probability below which a card matching this deck still counts for it
    #: (decks with white, front-like backs make the head fire on their own cards).
    face_up_prob_limit: float = 0.4
    #: Card-frame template of the back (tells sibling decks apart), or None.
    template: DeckTemplate | None = None
    #: SHA-256 of the calibration photos (hex), so one photo cannot calibrate two decks.
    photo_sha256: tuple[str, ...] = ()
    #: The rectified back and its per-pixel spread (``vision.fit``); None in profiles made
    #: before cardtally kept it.
    back: CalibratedBack | None = None

    def __post_init__(self) -> None:
        if self.prototypes.ndim != 2 or len(self.prototypes) == 0:
            raise ValueError(f"prototypes must have shape (k, d) with k >= 1, got {self.prototypes.shape}")

    @property
    def embedding_dim(self) -> int:
        """Length of the embedding vectors the prototypes live in."""
        return int(self.prototypes.shape[1])

    def to_json(self) -> dict:
        """The profile as the JSON object stored in the deck's file."""
        data = {
            "format_version": FORMAT_VERSION,
            "name": self.name,
            "embedder_version": self.embedder_version,
            "threshold": round(float(self.threshold), 6),
            "n_cards": int(self.n_cards),
            "created": self.created,
            "face_up_prob_limit": round(float(self.face_up_prob_limit), 6),
            "prototypes": [[round(float(v), 6) for v in row] for row in self.prototypes],
        }
        if self.template is not None:
            data["template"] = encode_template(self.template)
        if self.photo_sha256:
            data["photo_sha256"] = list(self.photo_sha256)
        if self.back is not None:
            data["back"] = encode_back(self.back)
        return data


@dataclass(frozen=True)
class DeckSet:
    """The decks to tell apart in a photo, in a fixed order (``CardIdentities.deck_names``)."""

    profiles: tuple[DeckProfile, ...]

    def __post_init__(self) -> None:
        dims = {p.embedding_dim for p in self.profiles}
        if len(dims) > 1:
            raise ValueError(f"all profiles must share one embedding size, got {sorted(dims)}")
        names = [p.name for p in self.profiles]
        if len(set(names)) != len(names):
            raise ValueError(f"deck names must be unique, got {names}")

    def __len__(self) -> int:
        return len(self.profiles)

    @property
    def names(self) -> tuple[str, ...]:
        """The decks' names, in the set's order."""
        return tuple(p.name for p in self.profiles)


def now_iso() -> str:
    """Current UTC time, second precision, for the ``created`` field."""
    return datetime.now(timezone.utc).replace(microsecond=0).isoformat()


def profile_path(name: str) -> Path:
    """Where the profile of deck ``name`` lives in the data home."""
    return decks_dir() / f"{check_deck_name(name)}{PROFILE_SUFFIX}"


def corrupt_profile(path: Path, why: str) -> CardtallyError:
    """The error for a deck profile that cannot be used as it is: name the file, say to redo it."""
    return CardtallyError(
        f"The deck profile {path} is corrupt ({why}); remove it with "
        f"'cardtally decks remove {path.stem}' and calibrate the deck again."
    )


def check_embedding_dim(profile: DeckProfile, embedding_dim: int) -> None:
    """Refuse a profile whose prototypes cannot be compared with the embedder's vectors (a
    hand-edited file: the embedder version alone does not catch it)."""
    if profile.embedding_dim != embedding_dim:
        raise corrupt_profile(profile_path(profile.name), f"its prototypes have "
                              f"{profile.embedding_dim} values, this embedder's {embedding_dim}")


def read_profile(path: Path, embedder_version: str | None = None) -> DeckProfile:
    """Load one profile file; check its embedder version when ``embedder_version`` is given."""
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise CardtallyError(f"Cannot read the deck profile {path}: {exc.strerror}.") from None
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise corrupt_profile(path, "not valid JSON") from None
    if not isinstance(raw, dict):
        raise corrupt_profile(path, "not a JSON object")
    if raw.get("format_version") != FORMAT_VERSION:
        raise CardtallyError(
            f"The deck profile {path} has format version {raw.get('format_version')!r}, "
            f"this cardtally reads version {FORMAT_VERSION}; calibrate the deck again with "
            f"'cardtally calibrate {path.stem} PHOTO... --replace'."
        )
    try:
        prototypes = np.asarray(raw["prototypes"], np.float32)
        profile = DeckProfile(
            name=str(raw["name"]),
            prototypes=prototypes,
            threshold=float(raw["threshold"]),
            embedder_version=str(raw["embedder_version"]),
            n_cards=int(raw["n_cards"]),
            created=str(raw["created"]),
            face_up_prob_limit=float(raw.get("face_up_prob_limit", 0.4)),
            template=decode_template(raw["template"]) if "template" in raw else None,
            photo_sha256=tuple(str(h) for h in raw.get("photo_sha256", ())),
            back=decode_back(str(raw["name"]), raw["back"]) if "back" in raw else None,
        )
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise corrupt_profile(path, f"bad or missing field: {exc}") from None
    if not np.all(np.isfinite(prototypes)) or not -1.0 <= profile.threshold <= 1.0:
        raise corrupt_profile(path, "values out of range")
    if profile.name != path.stem:
        raise corrupt_profile(path, f"it names the deck {profile.name!r}, its file {path.stem!r}")
    if embedder_version is not None:
        check_compatible(profile, path, embedder_version)
    return profile


def check_compatible(profile: DeckProfile, path: Path, embedder_version: str) -> None:
    """Refuse a profile made by a different embedder: its prototypes live in another space."""
    if profile.embedder_version != embedder_version:
        # A damaged model file has another hash too: say so rather than "calibrate again".
        from .embed import default_embedder

        default_embedder()
        raise CardtallyError(
            f"The deck profile {path} was made with embedder {profile.embedder_version}, but this "
            f"cardtally uses {embedder_version}; calibrate the deck again with "
            f"'cardtally calibrate {profile.name} PHOTO... --replace'."
        )


def write_profile(profile: DeckProfile, replace: bool = False) -> Path:
    """Store ``profile`` atomically (temp file + rename); refuse to overwrite unless ``replace``."""
    ensure_data_home()
    path = profile_path(profile.name)
    if path.exists() and not replace:
        raise CardtallyError(
            f"Deck {profile.name!r} is already calibrated; add --replace to calibrate it again."
        )
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{profile.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(profile.to_json(), handle)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        raise CardtallyError(f"Cannot write the deck profile {path}: {exc.strerror}.") from None
    return path


def profile_paths() -> list[Path]:
    """Every profile file in the data home, sorted by deck name."""
    folder = decks_dir()
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.glob(f"*{PROFILE_SUFFIX}") if not p.name.startswith("."))


def load_decks(names: list[str] | None = None, embedder_version: str | None = None) -> DeckSet:
    """The calibrated decks (all, or ``names`` in that order), checked against the embedder."""
    if names is None:
        paths = profile_paths()
    else:
        paths = []
        for name in names:
            if names.count(name) > 1:
                raise CardtallyError(f"Deck {name} is named twice; name each deck once.")
            path = profile_path(name)
            if not path.exists():
                raise CardtallyError(f"No such deck: {name}")
            paths.append(path)
    profiles = tuple(read_profile(p, embedder_version) for p in paths)
    dims = [p.embedding_dim for p in profiles]
    if len(set(dims)) > 1:  # a hand-edited profile: name it rather than fail on the arrays
        from .embed import background_embeddings

        shipped = background_embeddings().shape[1]  # breaks a tie between two decks
        usual = max(dims, key=lambda dim: (dims.count(dim), dim == shipped))
        path, dim = next((p, d) for p, d in zip(paths, dims, strict=True) if d != usual)
        raise corrupt_profile(path, f"its prototypes have {dim} values, the other decks' {usual}")
    return DeckSet(profiles)


def check_photos_are_new(deck: str, photos: Sequence[Path], digests: Sequence[str]) -> None:
    """Refuse a calibration photo that already calibrated another deck (the same bytes):
    its cards would then count for both decks. Recalibrating ``deck`` itself may reuse them."""
    for path in profile_paths():
        if path.stem == deck:
            continue
        profile = read_profile(path)
        for photo, digest in zip(photos, digests, strict=True):
            if digest in profile.photo_sha256:
                raise CardtallyError(
                    f"{photo} already calibrated deck {profile.name!r}; calibrate each deck from "
                    f"photos of its own cards (or deck {profile.name!r} again with 'cardtally "
                    f"calibrate {profile.name} PHOTO... --replace')."
                )


def remove_deck(name: str) -> Path:
    """Delete the profile of deck ``name`` (works on corrupt files too); return its path."""
    path = profile_path(name)
    if not path.exists():
        raise CardtallyError(f"No such deck: {name}")
    try:
        path.unlink()
    except OSError as exc:
        raise CardtallyError(f"Cannot remove the deck profile {path}: {exc.strerror}.") from None
    return path


def is_current(profile: DeckProfile) -> bool:
    """Whether ``profile`` was made by this cardtally's embedder (else: calibrate it again)."""
    from .embed import embedder_version  # onnxruntime loads only where a version is needed

    return profile.embedder_version == embedder_version()


def usable_decks(names: Sequence[str] | None = None) -> DeckSet:
    """The calibrated decks to identify cards with (all, or ``names`` in that order); a clear
    error where there are none, a deck is missing, or one was made by another embedder."""
    from .embed import embedder_version

    decks = load_decks(None if names is None else list(names), embedder_version())
    if len(decks) == 0:
        raise CardtallyError(
            "No decks are calibrated yet. Calibrate each deck first: "
            "cardtally calibrate DECK PHOTO..."
        )
    return decks


def players_decks(deck_of: Mapping[str, str]) -> DeckSet:
    """The profiles of the players' decks (``deck_of``: player -> deck, in seat order); one
    error naming every player whose deck is not calibrated."""
    missing = [(player, deck) for player, deck in deck_of.items() if not profile_path(deck).exists()]
    if missing:
        listed = ", ".join(f"{player}'s deck '{deck}'" for player, deck in missing)
        verb = "is" if len(missing) == 1 else "are"
        raise CardtallyError(
            f"{listed} {verb} not calibrated. Calibrate each deck first: "
            "cardtally calibrate DECK PHOTO..."
        )
    return usable_decks(list(deck_of.values()))


def current_decks() -> DeckSet:
    """Every calibrated deck this cardtally's embedder made (e.g. to compare a new deck
    with); profiles of another embedder are left out, not refused."""
    existing = load_decks(embedder_version=None)
    return DeckSet(tuple(p for p in existing.profiles if is_current(p)))
