"""Deck profiles: round trip, atomic writes, and every corrupt or incompatible file."""

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest

from cardtally.errors import CardtallyError
from cardtally.vision.decks import (
    DeckProfile,
    DeckSet,
    check_deck_name,
    load_decks,
    profile_path,
    read_profile,
    remove_deck,
    write_profile,
)
from cardtally.vision.templates import DeckTemplate


def make_profile(name: str = "red", version: str = "sha256:test", k: int = 3) -> DeckProfile:
    rng = np.random.default_rng(0)
    protos = rng.normal(size=(k, 8)).astype(np.float32)
    protos /= np.linalg.norm(protos, axis=1, keepdims=True)
    return DeckProfile(name=name, prototypes=protos, threshold=0.5, embedder_version=version,
                       n_cards=7, created="2026-01-01T00:00:00+00:00")


def test_round_trip(cardtally_home: Path):
    profile = make_profile()
    path = write_profile(profile)
    assert path == cardtally_home / "decks" / "red.json"
    back = read_profile(path, "sha256:test")
    assert back.name == "red" and back.n_cards == 7 and back.threshold == 0.5
    np.testing.assert_allclose(back.prototypes, profile.prototypes, atol=1e-6)
    assert [p.name for p in path.parent.iterdir()] == ["red.json"]  # no temp file left behind


def test_load_decks_keeps_order_and_checks_names(cardtally_home: Path):
    write_profile(make_profile("red"))
    write_profile(make_profile("blue"))
    assert load_decks().names == ("blue", "red")
    assert load_decks(["red", "blue"]).names == ("red", "blue")
    with pytest.raises(CardtallyError, match="^No such deck: green$"):
        load_decks(["green"])


def test_refuses_overwrite_without_replace(cardtally_home: Path):
    write_profile(make_profile())
    with pytest.raises(CardtallyError) as err:
        write_profile(make_profile())
    assert str(err.value) == "Deck 'red' is already calibrated; add --replace to calibrate it again."
    write_profile(make_profile(k=5), replace=True)
    assert len(read_profile(profile_path("red")).prototypes) == 5


@pytest.mark.parametrize(
    ("content", "why"),
    [
        ("{not json", "not valid JSON"),
        ("[1, 2]", "not a JSON object"),
        (b"\xff\xfe\x00garbage", "not valid JSON"),
    ],
)
def test_corrupt_profile_names_the_file(cardtally_home: Path, content, why):
    path = cardtally_home / "decks" / "red.json"
    path.parent.mkdir(parents=True)
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    with pytest.raises(CardtallyError) as err:
        read_profile(path)
    assert str(err.value) == (
        f"The deck profile {path} is corrupt ({why}); remove it with "
        "'cardtally decks remove red' and calibrate the deck again."
    )


def test_missing_field_is_corrupt(cardtally_home: Path):
    path = write_profile(make_profile())
    raw = json.loads(path.read_text())
    del raw["prototypes"]
    path.write_text(json.dumps(raw))
    with pytest.raises(CardtallyError, match=r"is corrupt \(bad or missing field: 'prototypes'\)"):
        read_profile(path)


def test_incompatible_embedder_version(cardtally_home: Path):
    path = write_profile(make_profile(version="sha256:old"))
    with pytest.raises(CardtallyError) as err:
        read_profile(path, "sha256:new")
    assert str(err.value) == (
        f"The deck profile {path} was made with embedder sha256:old, but this cardtally uses "
        "sha256:new; calibrate the deck again with 'cardtally calibrate red PHOTO... --replace'."
    )


def test_other_format_version(cardtally_home: Path):
    path = write_profile(make_profile())
    raw = json.loads(path.read_text())
    raw["format_version"] = 99
    path.write_text(json.dumps(raw))
    with pytest.raises(CardtallyError, match="has format version 99, this cardtally reads version 1"):
        read_profile(path)


@pytest.mark.parametrize("name", ["", "a/b", "../x", ".hidden", "x" * 41, "two words"])
def test_bad_deck_names(name: str):
    with pytest.raises(CardtallyError, match="^Invalid deck name"):
        check_deck_name(name)


def test_remove(cardtally_home: Path):
    path = write_profile(make_profile())
    assert remove_deck("red") == path
    assert not path.exists()
    with pytest.raises(CardtallyError, match="^No such deck: red$"):
        remove_deck("red")


def test_deckset_rejects_duplicates():
    with pytest.raises(ValueError, match="unique"):
        DeckSet((make_profile(), make_profile()))


def test_template_round_trip_and_corrupt_template(cardtally_home: Path):
    rng = np.random.default_rng(1)
    template = DeckTemplate(rng.uniform(0, 1.2, (61, 40, 3)).astype(np.float32),
                            rng.uniform(0, 0.2, (61, 40, 3)).astype(np.float32))
    path = write_profile(dataclasses.replace(make_profile(), template=template))
    back = read_profile(path)
    np.testing.assert_allclose(back.template.median, template.median, atol=1.25 / 255)
    assert read_profile(write_profile(make_profile("plain"))).template is None  # optional
    raw = json.loads(path.read_text())
    raw["template"]["median"] = raw["template"]["median"][:-8]
    path.write_text(json.dumps(raw))
    with pytest.raises(CardtallyError) as err:
        read_profile(path)
    assert str(err.value) == (
        f"The deck profile {path} is corrupt (bad or missing field: template median has 7314 "
        "values, expected 7320); remove it with 'cardtally decks remove red' and calibrate the "
        "deck again."
    )


def test_the_deck_checks_of_the_commands(cardtally_home: Path):
    """``usable_decks``, ``players_decks``, ``current_decks``: one home for the checks that
    ``count``, ``score``, ``round recount``, ``calibrate`` and ``decks`` make."""
    from cardtally.vision.decks import current_decks, is_current, players_decks, usable_decks
    from cardtally.vision.embed import embedder_version

    with pytest.raises(CardtallyError, match="^No decks are calibrated yet. Calibrate each"):
        usable_decks()
    write_profile(make_profile("red", embedder_version()))
    write_profile(make_profile("old", "sha256:old"))
    assert is_current(read_profile(profile_path("red"))) is True
    assert is_current(read_profile(profile_path("old"))) is False
    assert current_decks().names == ("red",)
    assert usable_decks(["red"]).names == ("red",)
    with pytest.raises(CardtallyError, match="^The deck profile .*old.json was made with embedder"):
        usable_decks()
    with pytest.raises(CardtallyError, match="^Ben's deck 'blue', Cleo's deck 'green' are not "
                                             "calibrated. Calibrate each deck first"):
        players_decks({"Anna": "red", "Ben": "blue", "Cleo": "green"})
    assert players_decks({"Anna": "red"}).names == ("red",)
