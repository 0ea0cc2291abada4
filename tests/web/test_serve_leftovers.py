"""The leftover piles and count corrections on ``cardtally serve``'s page: photographed, typed
(``score --left NAME=N``) or all empty (``--no-leftover``), and ``--fix`` corrections; the
ledger then holds what ``cardtally score`` writes for the same inputs, and bad input gets
``score``'s own messages."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from cardtally.cli import app
from cardtally.rounds.games import read_game, round_json

pytest.importorskip("starlette", reason="the serve extra is not installed")
from serve_setup import TRUTH, comparable, new_game, read_game_in, sample_bytes  # noqa: E402
from starlette.testclient import TestClient  # noqa: E402

from cardtally.web.app import create_app  # noqa: E402

runner = CliRunner()
TOKEN = "test-token"
CALLER = TRUTH["caller"]


@pytest.fixture
def client(calibrated_decks: Path, cardtally_home: Path) -> TestClient:
    new_game(cardtally_home, calibrated_decks)
    return TestClient(create_app(TOKEN))


def post(client: TestClient, path: str, data: dict | None = None):
    return client.post(f"{path}?token={TOKEN}", json=data or {})


def upload(client: TestClient, label: str):
    return client.post(f"/api/photo?set={label}&token={TOKEN}",
                       content=sample_bytes(f"{label}.jpg"), headers={"Content-Type": "image/jpeg"})


# Each case: the leftovers as the page gives them, the count corrections, and the same round's
# options for `cardtally score`.
CASES = {
    "typed": ({"leftovers": "typed", "left": {"Ben": 3, "cleo": "5"}},
              ["Ben=centre:+1", "Cleo=pile:-1"],
              ["--left", "Ben=3", "--left", "cleo=5", "--fix", "Ben=centre:+1",
               "--fix", "Cleo=pile:-1"]),
    "none": ({"leftovers": "none"}, ["Cleo=centre:+2"],
             ["--no-leftover", "--fix", "Cleo=centre:+2"]),
    "photos": ({"leftovers": "photos"}, ["Ben=pile:+1", "Anna=centre:-1"],
               ["--leftover", "leftover.jpg", "--fix", "Ben=pile:+1", "--fix", "Anna=centre:-1"]),
}


@pytest.mark.parametrize("case", list(CASES))
def test_leftovers_and_fixes_are_saved_as_score_saves_them(
    client: TestClient, calibrated_decks: Path, tmp_path: Path, case: str,
) -> None:
    leftovers, fixes, options = CASES[case]
    settled = post(client, "/api/settle", {"caller": CALLER, **leftovers})
    assert settled.status_code == 200, settled.text
    assert settled.json()["round"]["leftovers"] == leftovers["leftovers"]
    for label in ("centre", "leftover") if case == "photos" else ("centre",):
        assert upload(client, label).status_code == 200
    before = {p["player"]: p for p in client.get(f"/api/state?token={TOKEN}").json()["round"]["players"]}
    for fix in fixes:
        response = post(client, "/api/fix", {"fix": fix})
        assert response.status_code == 200, response.text
        assert response.json()["done"] == fix
    shown = response.json()["round"]
    assert shown["fixes"] == fixes and shown["missing"] is None
    after = {p["player"]: p for p in shown["players"]}
    if case == "typed":
        assert shown["left"] == {"Anna": 0, "Ben": 3, "Cleo": 5}
        assert after["Ben"]["centre"] == before["Ben"]["centre"] + 1
        assert [after[p]["leftover"] for p in ("Anna", "Ben", "Cleo")] == [0, 3, 4]
    saved = post(client, "/api/save")
    assert saved.status_code == 200, saved.text
    web_game, _ = read_game(None)
    web_round = round_json(web_game, 1)
    assert web_round["counts"] == {p: {"center": v["centre"], "leftover": v["leftover"]}
                                   for p, v in after.items()}

    score_home = tmp_path / "score-home"
    new_game(score_home, calibrated_decks)
    photos = tmp_path / "photos"
    photos.mkdir()
    for name in ("centre.jpg", "leftover.jpg"):
        (photos / name).write_bytes(sample_bytes(name))
    options = [str(photos / o) if o.endswith(".jpg") else o for o in options]
    result = runner.invoke(app, ["score", "--center", str(photos / "centre.jpg"), *options,
                                 "--caller", CALLER, "--yes"],
                           env={"CARDTALLY_HOME": str(score_home)})
    assert result.exit_code == 0, result.output
    score_game, _ = read_game_in(score_home)
    assert comparable(web_round) == comparable(round_json(score_game, 1))


@pytest.mark.parametrize(
    ("settle", "options"),
    [
        ({"leftovers": "typed", "left": {"Ben": 3}}, ["--left", "Ben=3"]),
        ({"leftovers": "typed", "left": {"Ben": -1, "Cleo": 2}}, ["--left", "Ben=-1", "--left", "Cleo=2"]),
        ({"leftovers": "typed", "left": {"Ben": "lots", "Cleo": 2}},
         ["--left", "Ben=lots", "--left", "Cleo=2"]),
        ({"leftovers": "typed", "left": {"Dora": 1, "Ben": 1, "Cleo": 2}},
         ["--left", "Dora=1", "--left", "Ben=1", "--left", "Cleo=2"]),
        ({"leftovers": "typed", "left": {"Ben": 1001, "Cleo": 2}},
         ["--left", "Ben=1001", "--left", "Cleo=2"]),
        ({"leftovers": "none", "caller": "Zoe"}, ["--no-leftover", "--caller", "Zoe"]),
    ],
    ids=["missing-count", "negative", "not-a-number", "unknown-player", "too-many", "bad-caller"],
)
def test_bad_leftovers_get_the_error_score_gives(
    client: TestClient, tmp_path: Path, settle: dict, options: list[str],
) -> None:
    response = post(client, "/api/settle", {"caller": CALLER, **settle})
    centre = tmp_path / "centre.jpg"
    centre.write_bytes(sample_bytes("centre.jpg"))
    caller = [] if "--caller" in options else ["--caller", CALLER]
    cli = runner.invoke(app, ["score", "--center", str(centre), *options, *caller, "--yes"])
    assert cli.exit_code == 1 and cli.stderr.startswith("Error: ")
    assert (response.status_code, response.json()) == (
        400, {"error": cli.stderr.removeprefix("Error: ").rstrip("\n")})


@pytest.mark.parametrize("fix", ["Ben=centre:1", "Zoe=centre:+1", "Ben=middle:+1"])
def test_a_bad_fix_gets_the_error_score_gives(client: TestClient, tmp_path: Path, fix: str) -> None:
    assert post(client, "/api/settle", {"caller": CALLER, "leftovers": "none"}).status_code == 200
    response = post(client, "/api/fix", {"fix": fix})
    centre = tmp_path / "centre.jpg"
    centre.write_bytes(sample_bytes("centre.jpg"))
    cli = runner.invoke(app, ["score", "--center", str(centre), "--no-leftover", "--fix", fix,
                              "--yes"])
    assert cli.exit_code == 1 and cli.stderr.startswith("Error: ")
    assert (response.status_code, response.json()) == (
        400, {"error": cli.stderr.removeprefix("Error: ").rstrip("\n")})
    assert client.get(f"/api/state?token={TOKEN}").json()["round"]["fixes"] == []


def test_a_fix_cannot_make_a_count_negative(client: TestClient) -> None:
    # No photo yet: every count is 0.
    assert post(client, "/api/settle", {"leftovers": "none"}).status_code == 200
    response = post(client, "/api/fix", {"fix": "Ben=pile:-1"})
    assert response.json() == {
        "error": "--fix 'Ben=pile:-1' would leave Ben with -1 cards; counts cannot be negative."}


def test_the_piles_are_given_one_way_only(client: TestClient) -> None:
    assert post(client, "/api/settle", {"leftovers": "none"}).status_code == 200
    refused = upload(client, "leftover")
    assert (refused.status_code, refused.json()) == (400, {"error": (
        "The round gives the leftover piles as all empty; choose photos for them first.")})
    assert post(client, "/api/settle", {"leftovers": "photos"}).status_code == 200
    assert upload(client, "leftover").status_code == 200
    refused = post(client, "/api/settle", {"leftovers": "typed", "left": {"Ben": 1, "Cleo": 1}})
    assert refused.json() == {"error": "The round has leftover photos, so the piles are counted "
                                       "from them; start the round again to drop them."}
    refused = post(client, "/api/settle", {"leftovers": "guessed"})
    assert refused.json() == {"error": "Unknown way of giving the leftover piles 'guessed': give "
                                       "photos, typed, none."}
    state = client.get(f"/api/state?token={TOKEN}").json()["round"]
    assert state["leftovers"] == "photos" and len(state["photos"]["leftover"]) == 1
