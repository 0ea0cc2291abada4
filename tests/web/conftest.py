"""Fixtures of the page tests: the sample decks calibrated once for all of them."""

from __future__ import annotations

from pathlib import Path

import pytest
from serve_setup import calibrate_samples


@pytest.fixture(scope="session")
def calibrated_decks(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The three sample decks calibrated once (``cardtally calibrate``); their folder."""
    return calibrate_samples(tmp_path_factory.mktemp("calibrated-home"))
