"""``cardtally count``: exact errors for bad input, odd photo formats, warnings, JSON shape.

The vision stage is the stand-in of photo_fakes.py (classical detector + colour lookup); the
shipped models are exercised in test_score_e2e.py.
"""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest
from photo_fakes import (
    BAD_PHOTO_IDS,
    BAD_PHOTOS,
    DECK_BGR,
    calibrate,
    card_centres,
    fake_vision,  # noqa: F401  (fixture)
    odd_format_writers,
    picture,
    write_photo,
)
from typer.testing import CliRunner

from cardtally.cli import app

runner = CliRunner()
CARDS = ["red"] * 5 + ["blue"] * 3 + ["yellow"] * 2
COUNTS = {"blue": 3, "red": 5, "yellow": 2}

#: The ``count --json`` object of DESIGN.md §4, as a JSON Schema.
COUNT_SCHEMA = {
    "type": "object",
    "required": ["photos", "counts", "unknown", "face_up"],
    "additionalProperties": False,
    "properties": {
        "photos": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["path", "width", "height", "cards"],
                "additionalProperties": False,
                "properties": {
                    "path": {"type": "string"},
                    "width": {"type": "integer", "minimum": 1},
                    "height": {"type": "integer", "minimum": 1},
                    "cards": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "required": ["deck", "confidence", "face_up", "polygon"],
                            "additionalProperties": False,
                            "properties": {
                                "deck": {"type": ["string", "null"]},
                                "confidence": {
                                    "type": ["number", "null"], "minimum": 0, "maximum": 1,
                                },
                                "face_up": {"type": "boolean"},
                                "doubt": {
                                    "type": "object",
                                    "required": ["candidates", "margin"],
                                    "additionalProperties": False,
                                    "properties": {
                                        "candidates": {
                                            "type": "array", "minItems": 1,
                                            "items": {"type": "string"},
                                        },
                                        "margin": {"type": ["number", "null"]},
                                    },
                                },
                                "polygon": {
                                    "type": "array",
                                    "minItems": 4,
                                    "maxItems": 4,
                                    "items": {
                                        "type": "array",
                                        "minItems": 2,
                                        "maxItems": 2,
                                        "items": {"type": "number"},
                                    },
                                },
                            },
                        },
                    },
                },
            },
        },
        "counts": {"type": "object", "additionalProperties": {"type": "integer", "minimum": 0}},
        "unknown": {"type": "integer", "minimum": 0},
        "face_up": {"type": "integer", "minimum": 0},
    },
}

_TYPES = {
    "object": dict,
    "array": list,
    "string": str,
    "integer": int,
    "number": (int, float),
    "boolean": bool,
    "null": type(None),
}


def check_schema(value, schema: dict, where: str = "$") -> None:
    """A small JSON Schema check (the keywords used above), for when jsonschema is missing."""
    types = schema.get("type")
    if types is not None:
        names = types if isinstance(types, list) else [types]
        is_bool = isinstance(value, bool)
        ok = any(
            isinstance(value, _TYPES[t]) and (t == "boolean" or not is_bool) for t in names
        )
        assert ok, f"{where}: {value!r} is not of type {types}"
    if value is None:
        return
    if "minimum" in schema:
        assert value >= schema["minimum"], f"{where}: {value} < {schema['minimum']}"
    if "maximum" in schema:
        assert value <= schema["maximum"], f"{where}: {value} > {schema['maximum']}"
    if isinstance(value, dict):
        for key in schema.get("required", []):
            assert key in value, f"{where}: missing {key!r}"
        props = schema.get("properties", {})
        extra = schema.get("additionalProperties", True)
        for key, item in value.items():
            if key in props:
                check_schema(item, props[key], f"{where}.{key}")
            elif extra is False:
                raise AssertionError(f"{where}: unexpected {key!r}")
            elif isinstance(extra, dict):
                check_schema(item, extra, f"{where}.{key}")
    if isinstance(value, list):
        assert len(value) >= schema.get("minItems", 0), f"{where}: too few items"
        assert len(value) <= schema.get("maxItems", len(value)), f"{where}: too many items"
        for i, item in enumerate(value):
            check_schema(item, schema.get("items", {}), f"{where}[{i}]")


def validate(data) -> None:
    try:
        import jsonschema
    except ImportError:
        check_schema(data, COUNT_SCHEMA)
    else:
        jsonschema.validate(data, COUNT_SCHEMA)


def count(*args: str):
    return runner.invoke(app, ["count", *args])


@pytest.fixture(autouse=True)
def setup(fake_vision, cardtally_home: Path):  # noqa: F811
    calibrate("red", "blue", "yellow")


def test_counts_and_table(tmp_path: Path):
    photo = write_photo(tmp_path / "table.png", CARDS)
    result = count(str(photo))
    assert result.exit_code == 0, result.output
    assert result.stdout == (
        "deck     cards\n"
        "blue         3\n"
        "red          5\n"
        "yellow       2\n"
        "unknown      0\n"
        "face up      0\n"
        "total       10\n"
    )
    assert result.stderr == "[1/1] table.png: 10 cards\n"


def test_json_follows_the_documented_schema(tmp_path: Path):
    a = write_photo(tmp_path / "a.png", CARDS + ["purple", "face-up"])
    b = write_photo(tmp_path / "b.png", ["red", "blue"])
    result = count(str(a), str(b), "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    validate(data)
    check_schema(data, COUNT_SCHEMA)  # the hand-written check agrees
    assert data["counts"] == {"blue": 4, "red": 6, "yellow": 2}
    assert (data["unknown"], data["face_up"]) == (1, 1)
    assert [p["path"] for p in data["photos"]] == [str(a), str(b)]
    assert [(p["width"], p["height"]) for p in data["photos"]] == [(480, 360)] * 2
    decks = sorted(str(c["deck"]) for c in data["photos"][0]["cards"])
    assert decks == sorted(["red"] * 5 + ["blue"] * 3 + ["yellow"] * 2 + ["None", "None"])
    face_up = [c for c in data["photos"][0]["cards"] if c["face_up"]]
    assert len(face_up) == 1 and face_up[0]["deck"] is None


def test_json_says_whose_a_doubtful_card_could_be(tmp_path: Path):
    """An unknown card has no confidence (the number would say how sure "unknown" is, which
    reads as a sure card) and names its candidate decks, the most similar first, with the
    similarity margin between the first two; a sure card carries no doubt."""
    photo = write_photo(tmp_path / "a.png", ["red", "purple", "face-up"])
    result = count(str(photo), "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    validate(data)
    red, purple, face_up = sorted(data["photos"][0]["cards"], key=lambda c: c["polygon"][0][0])
    assert (red["deck"], red["confidence"], "doubt" in red) == ("red", 0.95, False)
    assert (face_up["face_up"], face_up["confidence"], "doubt" in face_up) == (True, 0.95, False)
    # purple (170, 40, 150) against blue (220, 90, 30): 120 off; red (40, 40, 220): 130 off;
    # yellow (30, 220, 230) 180 off, more than the candidate window (0.15 * 255) further.
    assert (purple["deck"], purple["confidence"]) == (None, None)
    assert purple["doubt"] == {"candidates": ["blue", "red"], "margin": round(10 / 255, 4)}


def test_schema_check_rejects_bad_objects():
    good = {"photos": [], "counts": {"red": 1}, "unknown": 0, "face_up": 0}
    check_schema(good, COUNT_SCHEMA)
    for bad in (
        {**good, "unknown": -1},
        {**good, "counts": {"red": "1"}},
        {**good, "extra": 1},
        {"photos": [], "counts": {}},
        {**good, "face_up": True},
    ):
        with pytest.raises(AssertionError):
            check_schema(bad, COUNT_SCHEMA)


@pytest.mark.parametrize(("name", "make", "message"), BAD_PHOTOS, ids=BAD_PHOTO_IDS)
def test_bad_photos(tmp_path: Path, name: str, make, message: str):
    path = tmp_path / name
    make(path)
    result = count(str(path))
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr == f"Error: {message.format(path=path)}\n"


def test_bad_photo_after_a_good_one(tmp_path: Path):
    good = write_photo(tmp_path / "good.png", CARDS)
    (tmp_path / "empty.jpg").write_bytes(b"")
    result = count(str(good), str(tmp_path / "empty.jpg"))
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr.endswith("Error: empty.jpg is empty (0 bytes); it is not a photo.\n")


def test_missing_photo_is_reported_before_any_counting(tmp_path: Path):
    good = write_photo(tmp_path / "good.png", CARDS)
    result = count(str(good), str(tmp_path / "nope.jpg"))
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr == f"Error: No such file: {tmp_path / 'nope.jpg'}\n"


def test_same_photo_twice(tmp_path: Path):
    good = write_photo(tmp_path / "good.png", CARDS)
    result = count(str(good), str(tmp_path / "." / "good.png"))
    assert result.exit_code == 1
    assert result.stderr == (
        f"Error: {tmp_path / '.' / 'good.png'} is given twice; each photo may be counted only once.\n"
    )


@pytest.mark.parametrize("name", ["deep.png", "alpha.png", "phone.jpg"])
def test_odd_formats_count_right(tmp_path: Path, name: str):
    cards = CARDS + ["purple"]
    path = tmp_path / name
    odd_format_writers(cards)[name](path)
    result = count(str(path), "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["counts"] == COUNTS and data["unknown"] == 1
    photo = data["photos"][0]
    # The phone photo is stored sideways: EXIF turns it upright before anything is counted.
    assert (photo["width"], photo["height"]) == (480, 360)
    centres = sorted(
        (round(np.mean([x for x, _ in c["polygon"]])), round(np.mean([y for _, y in c["polygon"]])))
        for c in photo["cards"]
    )
    expected = sorted(card_centres(len(cards)))
    assert np.abs(np.array(centres) - np.array(expected)).max() <= 3


def test_greyscale_photo_is_counted(tmp_path: Path):
    path = tmp_path / "grey.png"
    cv2.imwrite(str(path), cv2.cvtColor(picture(CARDS), cv2.COLOR_BGR2GRAY))
    result = count(str(path), "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    # Without colour the stand-in cannot tell the decks apart; every card is still found.
    assert sum(data["counts"].values()) + data["unknown"] + data["face_up"] == len(CARDS)
    assert result.stderr.startswith("[1/1] grey.png: 10 cards\n")


def test_no_cards(tmp_path: Path):
    photo = write_photo(tmp_path / "empty-table.png", [])
    result = count(str(photo), "--json")
    assert result.exit_code == 0
    assert json.loads(result.stdout)["counts"] == {"blue": 0, "red": 0, "yellow": 0}
    assert result.stderr == (
        "[1/1] empty-table.png: 0 cards\nWarning: no cards found in the photo(s).\n"
    )


def test_face_up_cards_only(tmp_path: Path):
    photo = write_photo(tmp_path / "fronts.png", ["face-up"] * 4)
    result = count(str(photo), "--json")
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert (data["counts"], data["unknown"], data["face_up"]) == (
        {"blue": 0, "red": 0, "yellow": 0},
        0,
        4,
    )
    assert result.stderr == (
        "[1/1] fronts.png: 4 cards\n"
        "Warning: 4 card(s) lie face up (not counted for any deck).\n"
    )


def test_unknown_cards_are_warned(tmp_path: Path):
    photo = write_photo(tmp_path / "mixed.png", ["red", "purple", "purple"])
    result = count(str(photo))
    assert result.exit_code == 0
    assert "unknown      2\n" in result.stdout
    assert result.stderr == (
        "[1/1] mixed.png: 3 cards\n"
        "Warning: 2 card(s) match no calibrated deck (counted as unknown).\n"
    )


def test_with_review_images_the_unknown_cards_are_named_by_number(tmp_path: Path):
    photo = write_photo(tmp_path / "mixed.png", ["red", "purple", "red", "purple"])
    result = count(str(photo), "--annotate", str(tmp_path / "review"))
    assert result.exit_code == 0
    assert result.stderr == (
        "[1/1] mixed.png: 4 cards\n"
        f"Review image: {tmp_path / 'review' / 'mixed-review.jpg'}\n"
        "Check: mixed.png: cards 2, 4 match no calibrated deck\n"
        "Warning: 2 card(s) match no calibrated deck (counted as unknown).\n"
    )


def test_only_some_decks(tmp_path: Path):
    photo = write_photo(tmp_path / "table.png", CARDS)
    result = count(str(photo), "--decks", "red,blue", "--json")
    data = json.loads(result.stdout)
    assert (data["counts"], data["unknown"]) == ({"red": 5, "blue": 3}, 2)


def test_decks_errors(tmp_path: Path, cardtally_home: Path):
    photo = write_photo(tmp_path / "table.png", CARDS)
    result = count(str(photo), "--decks", "red,green")
    assert (result.exit_code, result.stderr) == (1, "Error: No such deck: green\n")
    result = count(str(photo), "--decks", ",")
    assert result.exit_code == 1
    assert result.stderr == (
        "Error: --decks needs at least one deck name, e.g. --decks red-star,red-moon.\n"
    )
    for name in ("red", "blue", "yellow"):
        assert runner.invoke(app, ["decks", "remove", name]).exit_code == 0
    result = count(str(photo))
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr == (
        "Error: No decks are calibrated yet. Calibrate each deck first: "
        "cardtally calibrate DECK PHOTO...\n"
    )


def test_usage_errors_exit_2():
    assert count().exit_code == 2
    assert count("a.jpg", "--bogus").exit_code == 2


def test_annotate_writes_review_images(tmp_path: Path):
    photo = write_photo(tmp_path / "table.png", CARDS)
    out = tmp_path / "reviews"
    result = count(str(photo), "--annotate", str(out))
    assert result.exit_code == 0, result.output
    review = out / "table-review.jpg"
    assert f"Review image: {review}\n" in result.stderr
    assert cv2.imread(str(review)) is not None


def test_count_never_touches_the_ledger(tmp_path: Path, cardtally_home: Path):
    assert runner.invoke(app, ["game", "new", "-p", "A=red", "-p", "B=blue"]).exit_code == 0
    ledger = cardtally_home / "cardtally.db"
    before = ledger.read_bytes()
    photo = write_photo(tmp_path / "table.png", CARDS)
    assert count(str(photo)).exit_code == 0
    assert count(str(tmp_path / "missing.png")).exit_code == 1
    assert ledger.read_bytes() == before
    assert not (cardtally_home / "reviews").exists()


def test_deck_colours_are_distinct():
    # The stand-in identify relies on it.
    colours = np.array(list(DECK_BGR.values()), np.int64)
    gaps = np.abs(colours[:, None] - colours[None, :]).max(axis=2)
    assert (gaps + np.eye(len(colours), dtype=np.int64) * 999).min() >= 80
