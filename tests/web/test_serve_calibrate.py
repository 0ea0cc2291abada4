"""A deck calibrated from ``cardtally serve``'s page: photos of its backs uploaded one by one,
then calibrated by ``cardtally calibrate``'s own use case (``deck_calibration``), giving the
same profile and the same messages as the command for the same photos."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cardtally.cli import app
from cardtally.vision.decks import profile_path

pytest.importorskip("starlette", reason="the serve extra is not installed")
from serve_setup import SAMPLES, sample_bytes  # noqa: E402
from starlette.testclient import TestClient  # noqa: E402

from cardtally.web.app import create_app  # noqa: E402

runner = CliRunner()
TOKEN = "test-token"
DECK = "red-anna"


@pytest.fixture
def client() -> TestClient:
    return TestClient(create_app(TOKEN))


def calibration_photo(deck: str = DECK) -> bytes:
    """The bundled calibration photo of a sample deck (the one ``cardtally demo`` uses)."""
    return SAMPLES.joinpath("calibration", f"{deck}.jpg").read_bytes()


def add_photo(client: TestClient, data: bytes, content_type: str = "image/jpeg"):
    return client.post(f"/api/calibration/photo?token={TOKEN}", content=data,
                       headers={"Content-Type": content_type})


def calibrate(client: TestClient, deck: str = DECK, replace: bool = False):
    return client.post(f"/api/calibrate?token={TOKEN}", json={"deck": deck, "replace": replace})


def profile_without_date(path: Path) -> dict:
    profile = json.loads(path.read_text())
    profile.pop("created")
    return profile


def test_a_deck_calibrated_on_the_page_is_the_deck_calibrate_makes(
    client: TestClient, calibrated_decks: Path,
) -> None:
    before = client.get(f"/api/state?token={TOKEN}").json()
    assert before["decks"] == [] and before["calibration"] == {"photos": []}
    added = add_photo(client, calibration_photo())
    assert added.status_code == 200, added.text
    assert added.json()["calibration"] == {"photos": ["photo-1.jpg"]}
    response = calibrate(client)
    assert response.status_code == 200, response.text
    state = response.json()
    n_cards = json.loads(profile_path(DECK).read_text())["n_cards"]
    assert n_cards >= 5
    assert state["done"] == {
        "summary": f"Calibrated deck 'red-anna' from {n_cards} cards in 1 photo.", "warning": None}
    assert state["decks"] == [DECK] and state["calibration"] == {"photos": []}
    assert state["version"] != before["version"]
    # The session's decks were calibrated by `cardtally calibrate` from the same photo, this
    # one first, in a data home with no deck yet: the same profile but for its date.
    assert profile_without_date(profile_path(DECK)) == profile_without_date(
        calibrated_decks / f"{DECK}.json")


def test_the_command_says_the_same_for_the_same_photo(client: TestClient, tmp_path: Path) -> None:
    photo = tmp_path / "photo-1.jpg"
    photo.write_bytes(calibration_photo())
    assert add_photo(client, photo.read_bytes()).status_code == 200
    page = calibrate(client).json()["done"]["summary"]
    cli = runner.invoke(app, ["calibrate", "other", str(photo)])
    # The photo already calibrated red-anna on the page: the command refuses it for another deck.
    assert cli.exit_code == 1
    assert cli.stderr == (
        f"Error: {photo} already calibrated deck 'red-anna'; calibrate each deck from photos of "
        "its own cards (or deck 'red-anna' again with 'cardtally calibrate red-anna PHOTO... "
        "--replace').\n")
    cli = runner.invoke(app, ["calibrate", DECK, str(photo), "--replace"])
    assert (cli.exit_code, cli.stdout) == (0, page + "\n")


def test_a_refusal_of_the_photos_is_the_one_calibrate_gives(
    client: TestClient, tmp_path: Path,
) -> None:
    # The sample round's centre: several decks mixed, more cards than a calibration photo holds.
    centre = tmp_path / "photo-1.jpg"
    centre.write_bytes(sample_bytes("centre.jpg"))
    assert add_photo(client, centre.read_bytes()).status_code == 200
    response = calibrate(client, "mixed")
    cli = runner.invoke(app, ["calibrate", "mixed", str(centre)])
    assert cli.exit_code == 1 and cli.stderr.startswith("Error: ")
    assert (response.status_code, response.json()) == (
        400, {"error": cli.stderr.removeprefix("Error: ").rstrip("\n")})
    assert not profile_path("mixed").exists()
    # Refused photos stay, to be dropped (or added to).
    assert client.get(f"/api/state?token={TOKEN}").json()["calibration"]["photos"] == [
        "photo-1.jpg"]
    dropped = client.post(f"/api/calibration/drop?token={TOKEN}")
    assert dropped.json()["calibration"] == {"photos": []}


def test_an_existing_deck_needs_replace_and_a_bad_name_is_refused(client: TestClient) -> None:
    assert add_photo(client, calibration_photo()).status_code == 200
    assert calibrate(client).status_code == 200
    assert add_photo(client, calibration_photo()).status_code == 200
    again = calibrate(client)
    assert again.json() == {
        "error": "Deck 'red-anna' is already calibrated; add --replace to calibrate it again."}
    bad = calibrate(client, "a/b")
    assert bad.status_code == 400 and bad.json()["error"].startswith("Invalid deck name 'a/b'")
    replaced = calibrate(client, replace=True)
    assert replaced.status_code == 200, replaced.text
    assert replaced.json()["done"]["summary"].startswith("Calibrated deck 'red-anna' from ")


@pytest.mark.parametrize(
    ("data", "content_type", "status", "error"),
    [
        (b"shopping list", "text/plain", 415, "Only photos can be uploaded (this file is text/plain)."),
        (b"shopping list", "image/jpeg", 400,
         "photo-1.jpg is not an image cardtally can read (JPEG, PNG, ...)."),
        (b"\xff\xd8" + b"\0" * (30 * 1024 * 1024), "image/jpeg", 413,
         "The photo is larger than 25 MB; take it at a lower resolution."),
    ],
    ids=["text-file", "text-as-jpeg", "30-MB"],
)
def test_a_bad_upload_is_refused_and_not_kept(
    client: TestClient, data: bytes, content_type: str, status: int, error: str,
) -> None:
    response = add_photo(client, data, content_type)
    assert (response.status_code, response.json()) == (status, {"error": error})
    assert client.get(f"/api/state?token={TOKEN}").json()["calibration"] == {"photos": []}


def test_at_most_five_photos_and_at_least_one(client: TestClient) -> None:
    assert calibrate(client).json() == {
        "error": "Photograph the deck's backs first (1 to 5 photos)."}
    for _ in range(5):
        assert add_photo(client, calibration_photo()).status_code == 200
    sixth = add_photo(client, calibration_photo())
    assert (sixth.status_code, sixth.json()) == (
        400, {"error": "Give at most 5 calibration photos; got 6."})
    photos = client.get(f"/api/state?token={TOKEN}").json()["calibration"]["photos"]
    assert photos == [f"photo-{n}.jpg" for n in range(1, 6)]
