"""Shared fixtures: every test gets its own empty data home."""

from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def cardtally_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Point ``CARDTALLY_HOME`` at a temp dir so no test touches the user's data."""
    home = tmp_path / "cardtally-home"
    monkeypatch.setenv("CARDTALLY_HOME", str(home))
    return home
