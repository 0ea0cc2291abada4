"""A game started from ``cardtally serve``'s page: the same game ``cardtally game new`` starts
(same use case, ``rounds.games.start_game``), and the same error texts for bad input."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cardtally.cli import app
from cardtally.rounds.games import game_json, read_game

pytest.importorskip("starlette", reason="the serve extra is not installed")
from serve_setup import TRUTH  # noqa: E402
from starlette.testclient import TestClient  # noqa: E402

from cardtally.web.app import create_app  # noqa: E402

runner = CliRunner()
TOKEN = "test-token"
DECKS = list(TRUTH["players"].values())


@pytest.fixture
def client(calibrated_decks: Path, cardtally_home: Path) -> TestClient:
    """The page over a data home with the sample decks calibrated and no game yet."""
    shutil.copytree(calibrated_decks, cardtally_home / "decks")
    return TestClient(create_app(TOKEN))


def post_game(client: TestClient, players: list[tuple[str, str]], **rules):
    data = {"players": [{"player": p, "deck": d} for p, d in players], **rules}
    return client.post(f"/api/game?token={TOKEN}", json=data)


def cli_game_new(players: list[tuple[str, str]], *options: str):
    return runner.invoke(app, ["game", "new", *(f"--player={p}={d}" for p, d in players),
                               *options])


def test_with_no_game_the_page_offers_the_calibrated_decks_and_rule_sets(client) -> None:
    state = client.get(f"/api/state?token={TOKEN}").json()
    assert state["game"] is None
    assert state["decks"] == sorted(DECKS)
    assert state["rule_sets"] == ["ligretto", "racing-demon", "dutch-blitz", "ligretto-2"]
    assert state["hint"].startswith("No game yet.")


def test_a_game_started_on_the_page_is_the_game_game_new_starts(
    client: TestClient, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    players = list(TRUTH["players"].items())
    response = post_game(client, players, rules="racing-demon", target=50, rounds=None,
                         penalty="3", bonus=5, pile_size=None, deck_size="")
    assert response.status_code == 200, response.text
    state = response.json()
    assert state["done"] == 1 and state["round"] is None
    web_game, current = read_game(None)
    assert current == 1

    monkeypatch.setenv("CARDTALLY_HOME", str(tmp_path / "cli-home"))
    result = cli_game_new(players, "--rules", "nerts", "--target", "50", "--penalty", "3",
                          "--bonus", "5")
    assert result.exit_code == 0, result.output
    cli_game, _ = read_game(None)

    def same(game) -> dict:
        return {k: v for k, v in game_json(game, 1).items() if k != "created"}

    assert same(web_game) == same(cli_game)
    assert state["game"] == game_json(web_game, 1)


@pytest.mark.parametrize(
    ("players", "options"),
    [
        ([("Anna", DECKS[0]), ("anna", DECKS[1])], {}),
        ([("Anna", DECKS[0]), ("Ben", DECKS[0])], {}),
        ([("Anna", DECKS[0])], {}),
        ([("Anna", DECKS[0]), ("Ben", DECKS[1]), ("Cleo", DECKS[2])], {"rules": "ligretto-2"}),
        ([("Anna", DECKS[0]), ("Ben", DECKS[1])], {"rules": "snap"}),
        ([("Anna", DECKS[0]), ("Ben", DECKS[1])], {"target": -3}),
        ([("Anna", DECKS[0]), ("Ben", DECKS[1])], {"target": 0}),
        ([("Anna", DECKS[0]), ("Ben", DECKS[1])], {"pile_size": 50}),
        ([("Anna", DECKS[0]), ("Ben", "no/such")], {}),
    ],
    ids=["same-player-twice", "same-deck-twice", "one-player", "ligretto-2-for-three",
         "unknown-rules", "negative-target", "no-target-no-rounds", "pile-above-deck",
         "bad-deck-name"],
)
def test_bad_input_gets_the_error_game_new_gives(
    client: TestClient, players: list[tuple[str, str]], options: dict,
) -> None:
    response = post_game(client, players, **options)
    cli = cli_game_new(players, *(f"--{k.replace('_', '-')}={v}" for k, v in options.items()))
    assert cli.exit_code == 1 and cli.stderr.startswith("Error: ")
    assert (response.status_code, response.json()) == (
        400, {"error": cli.stderr.removeprefix("Error: ").rstrip("\n")})
    # Neither of them started a game.
    assert client.get(f"/api/state?token={TOKEN}").json()["game"] is None


def test_a_deck_nobody_calibrated_is_refused_as_score_refuses_it(client: TestClient) -> None:
    response = post_game(client, [("Anna", DECKS[0]), ("Ben", "blue-sun")])
    assert (response.status_code, response.json()) == (400, {"error": (
        "Ben's deck 'blue-sun' is not calibrated. Calibrate each deck first: cardtally "
        "calibrate DECK PHOTO...")})
    assert client.get(f"/api/state?token={TOKEN}").json()["game"] is None


@pytest.mark.parametrize(("body", "error"), [
    ({"players": "Anna=red"}, "Give the players as a list of {player, deck}."),
    ({"players": [{"player": "Anna", "deck": DECKS[0]}, {"player": "Ben", "deck": DECKS[1]}],
      "target": "fifty"}, "--target must be a whole number; got 'fifty'."),
])
def test_a_malformed_request_is_refused(client: TestClient, body: dict, error: str) -> None:
    response = client.post(f"/api/game?token={TOKEN}", json=body)
    assert (response.status_code, response.json()) == (400, {"error": error})


def test_no_new_game_while_a_round_is_being_scored(client: TestClient) -> None:
    players = list(TRUTH["players"].items())
    assert post_game(client, players).status_code == 200
    # Saying who called out opens the round (before any photo).
    opened = client.post(f"/api/settle?token={TOKEN}", json={"caller": TRUTH["caller"]})
    assert opened.json()["round"]["number"] == 1
    response = post_game(client, players)
    assert (response.status_code, response.json()) == (400, {"error": (
        "Round 1 is being scored: save it or start it over before starting a new game.")})
    assert client.post(f"/api/discard?token={TOKEN}").status_code == 200
    assert post_game(client, players).json()["game"]["game"] == 2
