"""``cardtally serve``'s page through Starlette's TestClient: the bundled sample photos are
uploaded, counted by the shipped models, corrected and saved; the ledger must then hold what
``cardtally score`` writes for the same photos and corrections."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from cardtally.cli import app
from cardtally.home import ledger_path
from cardtally.rounds.games import read_game, round_json

pytest.importorskip("starlette", reason="the serve extra is not installed")
from serve_setup import TRUTH, comparable, new_game, read_game_in, sample_bytes  # noqa: E402
from starlette.testclient import TestClient  # noqa: E402

from cardtally.web.app import MAX_PHOTO_BYTES, create_app  # noqa: E402

runner = CliRunner()
TOKEN = "test-token"


@pytest.fixture
def client(calibrated_decks: Path, cardtally_home: Path) -> TestClient:
    new_game(cardtally_home, calibrated_decks)
    return TestClient(create_app(TOKEN))


def upload(client: TestClient, label: str, data: bytes, content_type: str = "image/jpeg",
           token: str = TOKEN):
    return client.post(f"/api/photo?set={label}&token={token}", content=data,
                       headers={"Content-Type": content_type})


def post(client: TestClient, path: str, data: dict | None = None):
    return client.post(f"{path}?token={TOKEN}", json=data or {})


def test_the_page_is_served_with_its_inputs_and_no_external_assets(client: TestClient) -> None:
    page = client.get(f"/?token={TOKEN}")
    assert page.status_code == 200
    html = page.text
    assert html.count('accept="image/*" capture="environment"') == 3
    assert "<noscript>" in html and "http" not in html.replace('http-equiv', '')
    for asset in ("/static/app.js", "/static/style.css"):
        assert asset in html
        served = client.get(asset)
        assert served.status_code == 200 and "http://" not in served.text
    state = client.get(f"/api/state?token={TOKEN}").json()
    assert [p["player"] for p in state["game"]["players"]] == list(TRUTH["players"])
    assert state["round"] is None


@pytest.mark.parametrize("path", ["/", "/api/state", "/api/review/centre/0"])
@pytest.mark.parametrize("query", ["", "?token=wrong", "?token="])
def test_a_missing_or_wrong_token_is_refused(client: TestClient, path: str, query: str) -> None:
    response = client.get(path + query)
    assert response.status_code == 403
    assert response.json() == {
        "error": "Forbidden: open the address cardtally serve printed (with its token)."}


def test_an_upload_without_the_token_is_refused_and_counts_nothing(client: TestClient) -> None:
    response = upload(client, "centre", sample_bytes("centre.jpg"), token="wrong")
    assert response.status_code == 403
    assert client.get(f"/api/state?token={TOKEN}").json()["round"] is None


@pytest.mark.parametrize(
    ("data", "content_type", "status", "error"),
    [
        (b"these are not the photos you are looking for\n", "text/plain", 415,
         "Only photos can be uploaded (this file is text/plain)."),
        (b"these are not the photos you are looking for\n", "image/jpeg", 400,
         "centre.jpg is not an image cardtally can read (JPEG, PNG, ...)."),
        ("truncated", "image/jpeg", 400,
         "centre.jpg is truncated (the JPEG data ends early); copy it again."),
        (b"\xff\xd8" + b"\0" * (30 * 1024 * 1024), "image/jpeg", 413,
         "The photo is larger than 25 MB; take it at a lower resolution."),
        (b"", "image/jpeg", 400, "centre.jpg is empty (0 bytes); it is not a photo."),
    ],
    ids=["text-file", "text-as-jpeg", "truncated-jpeg", "30-MB", "empty"],
)
def test_a_bad_upload_gets_a_clear_message_and_leaves_no_photo(
    client: TestClient, cardtally_home: Path, data, content_type: str, status: int, error: str,
) -> None:
    if data == "truncated":
        whole = sample_bytes("centre.jpg")
        data = whole[: len(whole) // 2]
    response = upload(client, "centre", data, content_type)
    assert (response.status_code, response.json()) == (status, {"error": error})
    assert not list((cardtally_home / "reviews").rglob("centre*.jpg"))
    round_now = client.get(f"/api/state?token={TOKEN}").json()["round"]
    assert round_now is None or round_now["photos"]["centre"] == []


def test_the_limit_is_the_one_tested() -> None:
    assert MAX_PHOTO_BYTES == 25 * 1024 * 1024


def test_the_same_photo_twice_is_refused(client: TestClient) -> None:
    leftover = sample_bytes("leftover.jpg")
    assert upload(client, "leftover", leftover).status_code == 200
    again = upload(client, "centre", leftover)
    assert again.status_code == 400
    assert again.json()["error"].endswith(
        "are the same photo (identical bytes); each photo may be counted only once.")
    state = client.get(f"/api/state?token={TOKEN}").json()
    assert state["round"]["photos"]["centre"] == []
    assert len(state["round"]["photos"]["leftover"]) == 1


def test_saving_needs_the_centre_and_the_leftovers(client: TestClient) -> None:
    refused = post(client, "/api/save")
    assert refused.json() == {
        "error": "There is no round to save: photograph the centre cards first."}
    assert upload(client, "centre", sample_bytes("centre.jpg")).status_code == 200
    refused = post(client, "/api/save")
    assert refused.status_code == 400
    assert refused.json() == {"error": "Not saved: photograph the leftover piles, type their "
                                       "counts, or say that every pile is empty."}
    settled = post(client, "/api/settle", {"caller": "anna", "leftovers": "none"})
    assert settled.json()["round"]["caller"] == "Anna"
    saved = post(client, "/api/save")
    assert saved.status_code == 200 and saved.json()["done"] == 1
    game, _ = read_game(None)
    assert [c.pile_cards for c in game.rounds[0].entry.counts] == [0, 0, 0]
    assert game.rounds[0].evidence["leftover_source"] == "none"


def test_a_round_from_the_phone_is_saved_as_score_saves_it(
    client: TestClient, calibrated_decks: Path, cardtally_home: Path, tmp_path: Path,
) -> None:
    for label in ("centre", "leftover"):
        response = upload(client, label, sample_bytes(f"{label}.jpg"))
        assert response.status_code == 200, response.text
    state = response.json()["round"]
    (centre,) = state["photos"]["centre"]
    assert centre["name"] == "centre.jpg" and len(centre["cards"]) > 10
    assert [c["number"] for c in centre["cards"]] == list(range(1, len(centre["cards"]) + 1))
    review = client.get(f"/api/review/centre/0?token={TOKEN}")
    assert review.status_code == 200 and review.content[:2] == b"\xff\xd8"
    # Give card 1 of the centre to a player it is not counted for now.
    first = centre["cards"][0]
    other = next(p for p in TRUTH["players"] if p != first["player"])
    before = {p["player"]: p["centre"] for p in state["players"]}
    corrected = post(client, "/api/card",
                     {"set": "centre", "photo": "centre.jpg", "number": 1, "player": other})
    assert corrected.status_code == 200, corrected.text
    after = corrected.json()["round"]
    assert after["corrections"] == [f"centre:centre.jpg:1={other}"]
    now = {p["player"]: p["centre"] for p in after["players"]}
    assert now[other] == before[other] + 1
    assert after["photos"]["centre"][0]["cards"][0]["player"] == other
    bad = post(client, "/api/card", {"set": "centre", "photo": "centre.jpg", "number": 999,
                                     "player": other})
    assert bad.json() == {"error": f"--card 'centre:centre.jpg:999={other}': the centre photo "
                                   f"centre.jpg has {len(centre['cards'])} cards."}
    assert post(client, "/api/settle", {"caller": TRUTH["caller"]}).status_code == 200
    saved = post(client, "/api/save")
    assert saved.status_code == 200, saved.text
    assert saved.json()["done"] == 1 and saved.json()["round"] is None
    web_game, _ = read_game(None)
    web_round = round_json(web_game, 1)

    # The same photos, names and correction through `cardtally score`, in another data home.
    score_home = tmp_path / "score-home"
    new_game(score_home, calibrated_decks)
    photos = tmp_path / "photos"
    photos.mkdir()
    for name in ("centre.jpg", "leftover.jpg"):
        (photos / name).write_bytes(sample_bytes(name))
    result = runner.invoke(app, [
        "score", "--center", str(photos / "centre.jpg"), "--leftover", str(photos / "leftover.jpg"),
        "--caller", TRUTH["caller"], "--card", f"centre:centre.jpg:1={other}", "--yes",
    ], env={"CARDTALLY_HOME": str(score_home)})
    assert result.exit_code == 0, result.output
    assert ledger_path() != score_home / "cardtally.db"
    score_game, _ = read_game_in(score_home)
    assert comparable(web_round) == comparable(round_json(score_game, 1))
    assert Path(web_round["evidence"]["center"][0]["path"]).read_bytes() == sample_bytes(
        "centre.jpg")
