"""The shipped back embedder: masked card crops in, unit embeddings and face-up odds out."""

from __future__ import annotations

import functools
import hashlib
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import numpy as np
import onnxruntime as ort

from cardtally.errors import CardtallyError

from .onnx_session import damaged_model, load_packaged_model, model_session
from .rectify import CROP_PX, INPUT_CHANNELS, CardCrops

EMBEDDER_FILE = "back_embedder.onnx"
#: Embeddings of random procedural backs, made with the model at export (impostor cohort).
BACKGROUND_FILE = "back_embedder_background.npy"
#: An exported embedder ``NAME.onnx`` has its impostor cohort beside it in ``NAME`` + this.
BACKGROUND_SUFFIX = "_background.npy"
#: Crops per ``session.run``: bounds memory on photos with hundreds of cards.
BATCH_CROPS = 256
#: Share of the similarity that comes from the network; the rest from the colour histogram.
NETWORK_WEIGHT = 0.6
#: Bins per channel of the colour histogram of the normalised crop.
COLOUR_BINS = 6


def colour_descriptor(pixels: np.ndarray) -> np.ndarray:
    """(n, COLOUR_BINS**3) unit Hellinger vectors of the visible pixels' normalised colours.

    The crops are already divided by the card's own white level, so the histogram ignores the
    colour of the light; it adds the palette, which a small network under-weights, to the
    network's embedding (a card of another palette drops in similarity).
    """
    n = len(pixels)
    colours = pixels[:, :3].reshape(n, 3, -1)  # values in [-0.5, 0.75]
    visible = pixels[:, 3].reshape(n, -1) > 0.5
    bins = np.clip(((colours + 0.5) / 1.25 * COLOUR_BINS).astype(np.int64), 0, COLOUR_BINS - 1)
    index = (bins[:, 0] * COLOUR_BINS + bins[:, 1]) * COLOUR_BINS + bins[:, 2]
    index = index + np.arange(n)[:, None] * COLOUR_BINS**3
    counts = np.bincount(index[visible], minlength=n * COLOUR_BINS**3).reshape(n, -1)
    hist = np.sqrt(counts.astype(np.float32))
    return hist / np.maximum(np.linalg.norm(hist, axis=1, keepdims=True), 1e-12)


def combine(network: np.ndarray, colour: np.ndarray) -> np.ndarray:
    """Concatenate weighted unit parts: the dot product becomes the weighted sum of both."""
    return np.concatenate(
        [network * np.sqrt(NETWORK_WEIGHT), colour * np.sqrt(1.0 - NETWORK_WEIGHT)], axis=1
    ).astype(np.float32)


@dataclass(frozen=True)
class Embeddings:
    """``vectors`` (n, embedding_dim) unit rows; ``face_up_prob`` (n,) in [0, 1].

    ``background`` is the impostor cohort of the embedder that made them (its embeddings of
    backs of no deck, :func:`background_embeddings`); None: the shipped embedder's.
    """

    vectors: np.ndarray
    face_up_prob: np.ndarray
    background: np.ndarray | None = None

    def __post_init__(self) -> None:
        n = len(self.face_up_prob)
        if self.vectors.ndim != 2 or len(self.vectors) != n:
            raise ValueError(f"vectors must have shape ({n}, d), got {self.vectors.shape}")

    def __len__(self) -> int:
        return len(self.face_up_prob)

    def __getitem__(self, index: np.ndarray | slice | list[int]) -> Embeddings:
        """The embeddings of the cards picked by ``index`` (a mask, indices or a slice)."""
        picked = np.arange(len(self))[index]
        return Embeddings(self.vectors[picked], self.face_up_prob[picked], self.background)

    def background_vectors(self) -> np.ndarray:
        """The impostor cohort in these embeddings' space (the shipped one by default)."""
        return background_embeddings() if self.background is None else self.background

    @property
    def embedding_dim(self) -> int:
        """Length of each card's embedding vector."""
        return int(self.vectors.shape[1])


class BackEmbedder:
    """Holds only the ONNX session (and, for a model other than the shipped one, its impostor
    cohort ``background``); :meth:`embed` returns results instead of storing them.

    ``version`` is what deck profiles calibrated with it record (:func:`embedder_version` for
    the shipped model, the default without a ``session``); an embedder built on a bare
    ``session`` has none and cannot calibrate.
    """

    def __init__(self, session: ort.InferenceSession | None = None,
                 background: np.ndarray | None = None, version: str | None = None) -> None:
        if session is None:
            session, version = load_packaged_model(EMBEDDER_FILE), embedder_version()
        self.session = session
        self.input_name = self.session.get_inputs()[0].name
        self.output_names = [o.name for o in self.session.get_outputs()]
        self.background = background
        self.version = version

    @classmethod
    def from_file(cls, model_path: Path, threads: int | None = None) -> BackEmbedder:
        """A candidate embedder exported to ``model_path`` (``NAME.onnx``) with its impostor
        cohort beside it (``NAME`` + :data:`BACKGROUND_SUFFIX`, written by the export)."""
        background_path = model_path.with_name(model_path.stem + BACKGROUND_SUFFIX)
        try:
            model_bytes = model_path.read_bytes()
            session = model_session(model_bytes, model_path.name, threads)
            vectors = np.load(background_path)
        except (OSError, ValueError) as exc:
            raise CardtallyError(f"Cannot read the embedder {model_path} ({exc}).") from None
        return cls(session, _read_only_unit_rows(vectors), _model_version(model_bytes))

    def embed(self, crops: CardCrops | np.ndarray) -> Embeddings:
        """Embed (n, 4, 64, 64) crops (see :func:`cardtally.vision.rectify.normalise_crop`)."""
        pixels = crops.pixels if isinstance(crops, CardCrops) else np.asarray(crops, np.float32)
        if pixels.ndim != 4 or pixels.shape[1:] != (INPUT_CHANNELS, CROP_PX, CROP_PX):
            raise ValueError(
                f"crops must have shape (n, {INPUT_CHANNELS}, {CROP_PX}, {CROP_PX}), got {pixels.shape}"
            )
        vectors, logits = [], []
        for start in range(0, len(pixels), BATCH_CROPS):
            batch = np.ascontiguousarray(pixels[start : start + BATCH_CROPS], np.float32)
            out = dict(zip(self.output_names, self.session.run(None, {self.input_name: batch}),
                           strict=True))
            vectors.append(out["embedding"])
            logits.append(out["face_up_logit"])
        if not vectors:
            return Embeddings(np.zeros((0, self.embedding_dim), np.float32), np.zeros((0,), np.float32),
                              self.background)
        stacked = np.concatenate(vectors).astype(np.float32)
        # Re-normalise: the graph already does, but float rounding must not move thresholds.
        stacked /= np.maximum(np.linalg.norm(stacked, axis=1, keepdims=True), 1e-12)
        prob = 1.0 / (1.0 + np.exp(-np.concatenate(logits).astype(np.float32)))
        return Embeddings(vectors=combine(stacked, colour_descriptor(pixels)), face_up_prob=prob,
                          background=self.background)

    @property
    def embedding_dim(self) -> int:
        """Size of :attr:`Embeddings.vectors`: the network's output plus the colour histogram."""
        return int(self.session.get_outputs()[0].shape[1]) + COLOUR_BINS**3


@functools.lru_cache(maxsize=1)
def embedder_version() -> str:
    """Short content hash of the shipped model: deck profiles record it and are checked against it.

    Any retrained model changes the embedding space, so old prototypes would be meaningless.
    """
    try:
        data = resources.files("cardtally.models").joinpath(EMBEDDER_FILE).read_bytes()
    except OSError:
        raise CardtallyError(
            f"The model file {EMBEDDER_FILE} is missing from the installation; reinstall cardtally."
        ) from None
    return _model_version(data)


def _model_version(model_bytes: bytes) -> str:
    return "sha256:" + hashlib.sha256(model_bytes).hexdigest()[:16]


@functools.lru_cache(maxsize=1)
def default_embedder() -> BackEmbedder:
    """The shipped embedder, created once per process."""
    return BackEmbedder()


@functools.lru_cache(maxsize=1)
def background_embeddings() -> np.ndarray:
    """(b, embedding_dim) unit embeddings of random backs that belong to no deck.

    Calibration sets each deck's threshold above what such impostors reach; identification
    keeps such look-alikes out of a deck. Read once; callers must not modify the array.
    """
    try:
        with resources.files("cardtally.models").joinpath(BACKGROUND_FILE).open("rb") as handle:
            vectors = np.load(handle)
    except OSError:
        raise CardtallyError(
            f"The model file {BACKGROUND_FILE} is missing from the installation; reinstall cardtally."
        ) from None
    except (ValueError, EOFError):  # not an .npy file (np.load never unpickles here)
        vectors = None
    if not (isinstance(vectors, np.ndarray) and vectors.ndim == 2 and len(vectors)
            and np.issubdtype(vectors.dtype, np.floating) and np.isfinite(vectors).all()):
        raise damaged_model(BACKGROUND_FILE)
    return _read_only_unit_rows(vectors)


def _read_only_unit_rows(vectors: np.ndarray) -> np.ndarray:
    """``vectors`` as float32 rows of unit length, frozen (callers share the array)."""
    rows = vectors.astype(np.float32)
    rows /= np.maximum(np.linalg.norm(rows, axis=1, keepdims=True), 1e-12)
    rows.setflags(write=False)
    return rows
