"""Live refresh on ``cardtally serve``'s page: every phone polls a small version tag
(``/api/version``, with an ETag) and fetches the state when it changes, so a photo, a
correction or a saved round on one phone (or a round saved on the laptop) shows on the others
without a reload."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from cardtally.cli import app

pytest.importorskip("starlette", reason="the serve extra is not installed")
from serve_setup import TRUTH, new_game, sample_bytes  # noqa: E402
from starlette.testclient import TestClient  # noqa: E402

from cardtally.web.app import create_app  # noqa: E402

runner = CliRunner()
TOKEN = "test-token"


@pytest.fixture
def phones(calibrated_decks: Path, cardtally_home: Path) -> tuple[TestClient, TestClient]:
    """Two phones on the same page (one app, as one `cardtally serve`)."""
    new_game(cardtally_home, calibrated_decks)
    page = create_app(TOKEN)
    return TestClient(page), TestClient(page)


def version(phone: TestClient) -> str:
    response = phone.get(f"/api/version?token={TOKEN}")
    assert response.status_code == 200
    assert response.headers["etag"] == f'"{response.json()["version"]}"'
    return response.json()["version"]


def state(phone: TestClient) -> dict:
    return phone.get(f"/api/state?token={TOKEN}").json()


def test_the_version_stays_while_nothing_changes(phones) -> None:
    phone, _ = phones
    first = state(phone)["version"]
    assert version(phone) == first
    assert state(phone)["version"] == first  # reading the ledger changes nothing
    assert version(phone) == first
    again = phone.get(f"/api/version?token={TOKEN}", headers={"If-None-Match": f'"{first}"'})
    assert again.status_code == 304 and again.content == b""
    assert phone.get("/api/version").status_code == 403


def test_a_round_saved_on_one_phone_shows_on_the_other(phones) -> None:
    anna, ben = phones
    seen = state(ben)
    assert seen["round"] is None

    upload = anna.post(f"/api/photo?set=centre&token={TOKEN}", content=sample_bytes("centre.jpg"),
                       headers={"Content-Type": "image/jpeg"})
    assert upload.status_code == 200
    assert version(ben) != seen["version"]
    seen = state(ben)
    assert seen["version"] == upload.json()["version"]
    assert [p["name"] for p in seen["round"]["photos"]["centre"]] == ["centre.jpg"]

    settled = anna.post(f"/api/settle?token={TOKEN}",
                        json={"caller": TRUTH["caller"], "leftovers": "none"})
    assert version(ben) == settled.json()["version"] != seen["version"]
    assert state(ben)["round"]["caller"] == TRUTH["caller"]

    saved = anna.post(f"/api/save?token={TOKEN}").json()
    now = state(ben)
    assert version(ben) == now["version"] == saved["version"]
    assert now["round"] is None and len(now["game"]["rounds"]) == 1
    assert now["game"]["standings"] == saved["game"]["standings"]


def test_a_round_saved_on_the_laptop_changes_the_version(phones) -> None:
    phone, _ = phones
    before = state(phone)
    counts = [f"{p}={n}" for p, n in zip(TRUTH["players"], (10, 8, 7), strict=True)]
    left = [f"{p}={n}" for p, n in zip(TRUTH["players"], (0, 3, 4), strict=True)]
    result = runner.invoke(app, ["round", "add", *(f"--center={c}" for c in counts),
                                 *(f"--leftover={x}" for x in left), "--caller", "Anna"])
    assert result.exit_code == 0, result.output
    after = state(phone)
    assert version(phone) == after["version"] != before["version"]
    assert len(after["game"]["rounds"]) == 1
