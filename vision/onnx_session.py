"""Load a shipped ONNX model from the package with a CPU-first provider choice."""

from __future__ import annotations

import os
from importlib import resources

import onnxruntime as ort

from cardtally.errors import CardtallyError

#: Override the execution providers, e.g. ``CUDAExecutionProvider,CPUExecutionProvider``.
PROVIDERS_ENV = "CARDTALLY_ORT_PROVIDERS"
#: onnxruntime's errors only (3): its warnings (telemetry with an unwritable $HOME, device
#: discovery, graph clean-ups) are about the runtime, not the user's photos, and would show
#: as coloured lines among cardtally's own on stderr. Sessions without their own level use it.
ORT_LOG_SEVERITY = 3

ort.set_default_logger_severity(ORT_LOG_SEVERITY)


def load_packaged_model(filename: str, threads: int | None = None) -> ort.InferenceSession:
    """An inference session for ``cardtally/models/<filename>`` (shipped as package data)."""
    model_file = resources.files("cardtally.models").joinpath(filename)
    try:
        model_bytes = model_file.read_bytes()
    except (FileNotFoundError, OSError):
        raise CardtallyError(
            f"The model file {filename} is missing from the installation; reinstall cardtally."
        ) from None
    try:
        return model_session(model_bytes, filename, threads)
    except CardtallyError:
        raise damaged_model(filename) from None


def model_session(
    model_bytes: bytes, filename: str, threads: int | None = None
) -> ort.InferenceSession:
    """An inference session for an ONNX model's bytes, with the options cardtally runs on."""
    options = ort.SessionOptions()
    options.log_severity_level = ORT_LOG_SEVERITY
    # The detector runs on photos of every size: an arena sized for the largest one would stay
    # allocated for the whole process (hundreds of MB); plain allocations are returned at once.
    options.enable_cpu_mem_arena = False
    # onnxruntime's threads otherwise spin for a while after every run, taking the cores from
    # OpenCV's decoding and resizing and from numpy in between the runs.
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    if threads:
        options.intra_op_num_threads = threads
    providers = os.environ.get(PROVIDERS_ENV, "CPUExecutionProvider").split(",")
    available = set(ort.get_available_providers())
    chosen = [p for p in providers if p in available] or ["CPUExecutionProvider"]
    try:
        return ort.InferenceSession(model_bytes, options, providers=chosen)
    except Exception as exc:  # onnxruntime raises its own untyped errors for bad files
        detail = " ".join(str(exc).split())
        raise CardtallyError(f"The model file {filename} cannot be loaded ({detail}).") from None


def damaged_model(filename: str) -> CardtallyError:
    """The error for a shipped model file that is there but cannot be read."""
    return CardtallyError(
        f"The model file {filename} is damaged, so the installation is damaged; reinstall "
        "cardtally (pip install --force-reinstall cardtally)."
    )
