"""Bad input, one table: every case gives one ``Error: ...`` line (exit 1, never a traceback)
and leaves the ledger, the deck profiles and the review folders byte for byte as they were.

Each case starts from the same data home: red, blue and yellow calibrated (the stand-in vision
of photo_fakes.py), a game of Anna (red), Ben (blue) and Cleo (yellow) with one scored round.
``setup`` then damages something (a photo, a profile, a ledger row, a model file) before the
snapshot is taken; ``{tmp}``, ``{home}`` and ``{big}`` (2**63) are filled in args and message.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from types import SimpleNamespace

import pytest
from photo_fakes import calibrate, fake_vision, write_photo  # noqa: F401  (fixture)
from typer.testing import CliRunner

from cardtally.cli import app
from cardtally.vision import embed, onnx_session
from cardtally.vision.count import sha256_of

SAMPLE_CENTRE = Path(__file__).resolve().parents[2] / "samples" / "round1" / "centre.jpg"
BIG = str(2**63)
CENTRE_CARDS = ["red"] * 5 + ["blue"] * 3 + ["yellow"] * 2
LEFTOVER_CARDS = ["blue"] * 2 + ["yellow"] * 4
runner = CliRunner()

Setup = Callable[[Path, Path, pytest.MonkeyPatch], None]


@dataclass(frozen=True)
class Case:
    id: str
    args: tuple[str, ...]
    message: str
    setup: Setup | None = None


# -- ways to damage things -----------------------------------------------------------------------


def damaged_sample_centre(tmp: Path, home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The sample centre photo with its middle third lost, the end marker kept: libjpeg decodes
    # it with made-up pixels and says only "Corrupt JPEG data" (it used to count and save).
    data = SAMPLE_CENTRE.read_bytes()
    (tmp / "centre.jpg").write_bytes(data[: len(data) // 3] + data[2 * len(data) // 3 :])


def damaged_png(tmp: Path, home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data = bytearray((tmp / "centre.png").read_bytes())
    data[data.index(b"IDAT") + 20] ^= 0xFF
    (tmp / "bad.png").write_bytes(bytes(data))


def edit_profile(**fields: object) -> Setup:
    def setup(tmp: Path, home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        path = home / "decks" / "red.json"
        path.write_text(json.dumps({**json.loads(path.read_text()), **fields}))

    return setup


def edit_ledger(sql: str) -> Setup:
    def setup(tmp: Path, home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        with sqlite3.connect(home / "cardtally.db") as conn:
            conn.execute(sql)
        conn.close()

    return setup


def damaged_model_file(filename: str, data: bytes) -> Setup:
    """The shipped model files, but ``filename`` holds ``data`` (the package is not touched)."""

    def setup(tmp: Path, home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        models = tmp / "models"
        models.mkdir()
        for shipped in resources.files("cardtally.models").iterdir():
            if shipped.name.endswith((".onnx", ".npy")):
                (models / shipped.name).symlink_to(Path(str(shipped)))
        (models / filename).unlink()
        (models / filename).write_bytes(data)
        package = SimpleNamespace(files=lambda name: models)
        monkeypatch.setattr(embed, "resources", package)
        monkeypatch.setattr(onnx_session, "resources", package)
        forget_loaded_models()

    return setup


def forget_loaded_models() -> None:
    embed.embedder_version.cache_clear()
    embed.default_embedder.cache_clear()
    embed.background_embeddings.cache_clear()


def truncated(filename: str) -> bytes:
    data = resources.files("cardtally.models").joinpath(filename).read_bytes()
    return data[: len(data) // 2]


# -- the table -----------------------------------------------------------------------------------

COUNT = ("count", "{tmp}/centre.png")
SCORE = ("score", "--center", "{tmp}/centre.png", "--leftover", "{tmp}/left.png", "--yes")
LEDGER_EDITED = (
    "The game ledger {home}/cardtally.db is damaged: in game 1, {what}. Undo the hand edit, or "
    "move the ledger aside (e.g. mv '{home}/cardtally.db' '{home}/cardtally.db.broken') to "
    "start a new one."
)
PROFILE_CORRUPT = (
    "The deck profile {home}/decks/red.json is corrupt ({why}); remove it with 'cardtally decks "
    "remove red' and calibrate the deck again."
)
DAMAGED_MODEL = (
    "The model file {file} is damaged, so the installation is damaged; reinstall cardtally (pip "
    "install --force-reinstall cardtally)."
)

CASES = [
    # 1. damaged photos never score
    Case("damaged-sample-jpeg-score",
         ("score", "--center", "{tmp}/centre.jpg", "--leftover", "{tmp}/left.png", "--yes"),
         "centre.jpg is damaged (the JPEG data is corrupt); copy it again.",
         damaged_sample_centre),
    Case("damaged-sample-jpeg-count", ("count", "{tmp}/centre.jpg"),
         "centre.jpg is damaged (the JPEG data is corrupt); copy it again.",
         damaged_sample_centre),
    Case("damaged-png-score",
         ("score", "--center", "{tmp}/bad.png", "--leftover", "{tmp}/left.png", "--yes"),
         "bad.png is damaged (the PNG data is corrupt); copy it again.", damaged_png),
    # 2. once tracebacks
    Case("count-deck-twice", ("count", "--decks", "red,red", "{tmp}/centre.png"),
         "Deck red is named twice; name each deck once."),
    *[
        Case(f"game-new-{option}-2**63",
             ("game", "new", "-p", "Dan=red", "-p", "Eve=blue", f"--{option}", "{big}"),
             f"--{option} must be at most 1000000; got {{big}}.")
        for option in ("target", "penalty", "bonus", "rounds", "deck-size")
    ],
    Case("game-show-2**63", ("game", "show", "{big}"),
         "No game {big} in the ledger; see: cardtally game list"),
    Case("game-show-option-2**63", ("game", "show", "--game", "{big}"),
         "No game {big} in the ledger; see: cardtally game list"),
    Case("game-export-2**63", ("game", "export", "{big}"),
         "No game {big} in the ledger; see: cardtally game list"),
    Case("score-game-2**63", (*SCORE, "--game", "{big}"),
         "No game {big} in the ledger; see: cardtally game list"),
    Case("round-undo-game-2**63", ("round", "undo", "--game", "{big}"),
         "No game {big} in the ledger; see: cardtally game list"),
    Case("profile-named-otherwise", COUNT,
         PROFILE_CORRUPT.replace("{why}", "it names the deck 'blue', its file 'red'"),
         edit_profile(name="blue")),
    Case("profile-prototypes-other-length", SCORE,
         PROFILE_CORRUPT.replace("{why}", "its prototypes have 3 values, the other decks' 128"),
         edit_profile(prototypes=[[1.0, 0.0, 0.0]])),
    Case("background-npy-garbage", ("calibrate", "green", "{tmp}/centre.png"),
         DAMAGED_MODEL.replace("{file}", "back_embedder_background.npy"),
         damaged_model_file("back_embedder_background.npy", b"\x93NUMPY garbage" * 40)),
    Case("ledger-count-text", ("game", "show"),
         LEDGER_EDITED.replace("{what}", "round 1 has a count that is not a whole number or a "
                               "player who is not in the game"),
         edit_ledger("UPDATE round_counts SET center_cards = 'abc' WHERE seat = 0")),
    Case("ledger-warnings-bad-json", ("round", "show", "1"),
         LEDGER_EDITED.replace("{what}", "round 1's warnings column is not the JSON cardtally "
                               "writes"),
         edit_ledger("UPDATE rounds SET warnings = '[oops'")),
    Case("ledger-evidence-bad-json", ("game", "list"),
         LEDGER_EDITED.replace("{what}", "round 1's evidence column is not the JSON cardtally "
                               "writes"),
         edit_ledger("UPDATE rounds SET evidence = '{oops'")),
    # 4. names that cannot hurt
    Case("player-name-newline", ("game", "new", "-p", "Dan\nSaved: forged=red", "-p", "Eve=blue"),
         "Invalid player name 'Dan\\nSaved: forged': it holds a control character (a newline, a "
         "terminal escape, ...); use letters, digits, spaces and punctuation."),
    Case("player-name-ansi", ("game", "new", "-p", "\x1b[2JDan=red", "-p", "Eve=blue"),
         "Invalid player name '\\x1b[2JDan': it holds a control character (a newline, a "
         "terminal escape, ...); use letters, digits, spaces and punctuation."),
    Case("player-name-invisible-twin", ("game", "new", "-p", "Dan=red", "-p", "D\u200ban=blue"),
         "Player 'D\\u200ban' is listed twice."),
    Case("player-name-only-invisible", ("game", "new", "-p", "\u200b\u2060=red", "-p", "Eve=blue"),
         "Invalid player name '\\u200b\\u2060': it shows nothing."),
    Case("deck-name-path", ("game", "new", "-p", "Dan=../../x", "-p", "Eve=blue"),
         "Invalid deck name '../../x': use 1-40 letters, digits, '.', '_' or '-', starting with a "
         "letter or digit."),
    Case("deck-name-long", ("game", "new", "-p", "Dan=" + "r" * 41, "-p", "Eve=blue"),
         f"Invalid deck name '{'r' * 41}': use 1-40 letters, digits, '.', '_' or '-', starting "
         "with a letter or digit."),
    *[
        Case(f"count-{label}", ("round", "edit", "1", "--center", f"Anna={value}"),
             f"Bad count in --center Anna={value}: '{value}' is not a whole number of cards.")
        for label, value in (("arabic-digit", "\u0663"), ("underscore", "1_0"), ("plus", "+3"),
                             ("fullwidth", "\uff13"))
    ],
    Case("fix-arabic-digit", (*SCORE, "--fix", "Anna=centre:+\u0663"),
         "Bad --fix 'Anna=centre:+\u0663': write NAME=centre:+N or NAME=pile:-N, e.g. --fix "
         "Anna=centre:+1."),
    # 6. a deck a game uses
    Case("decks-remove-used", ("decks", "remove", "red"),
         "Deck 'red' is played in game 1 (Anna); add --force to remove it anyway (then calibrate "
         "it again before scoring that game)."),
    # 7. one photo, two decks
    Case("calibrate-photo-of-another-deck", ("calibrate", "green", "{tmp}/copy.png"),
         "{tmp}/copy.png already calibrated deck 'red'; calibrate each deck from photos of its "
         "own cards (or deck 'red' again with 'cardtally calibrate red PHOTO... --replace').",
         lambda tmp, home, monkeypatch: (
             (tmp / "copy.png").write_bytes((tmp / "centre.png").read_bytes()),
             edit_profile(photo_sha256=[sha256_of(tmp / "centre.png")])(tmp, home, monkeypatch))),
    # 3. misleading errors
    Case("embedder-onnx-truncated", COUNT, DAMAGED_MODEL.replace("{file}", "back_embedder.onnx"),
         damaged_model_file("back_embedder.onnx", truncated("back_embedder.onnx"))),
]


def run(*args: str):
    return runner.invoke(app, list(args))


@pytest.fixture(autouse=True)
def home_with_a_round(fake_vision, cardtally_home: Path, tmp_path: Path) -> None:  # noqa: F811
    calibrate("red", "blue", "yellow")
    assert run("game", "new", "-p", "Anna=red", "-p", "Ben=blue", "-p", "Cleo=yellow").exit_code == 0
    write_photo(tmp_path / "centre.png", CENTRE_CARDS)
    write_photo(tmp_path / "left.png", LEFTOVER_CARDS)
    result = run("score", "--center", str(tmp_path / "centre.png"),
                 "--leftover", str(tmp_path / "left.png"), "--caller", "Anna", "--yes")
    assert result.exit_code == 0, result.output
    yield
    forget_loaded_models()


def snapshot(home: Path) -> dict[str, bytes]:
    """Every file of the data home (ledger, profiles, review images) by path, with its bytes."""
    return {str(p.relative_to(home)): p.read_bytes() for p in sorted(home.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_bad_input_gives_one_error_line_and_changes_nothing(
    case: Case, tmp_path: Path, cardtally_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if case.setup is not None:
        case.setup(tmp_path, cardtally_home, monkeypatch)
    before = snapshot(cardtally_home)
    fill = {"tmp": str(tmp_path), "home": str(cardtally_home), "big": BIG}
    result = run(*(arg.format(**fill) for arg in case.args))
    assert isinstance(result.exception, SystemExit), result.exception  # no traceback
    assert result.exit_code == 1, result.output
    assert result.stderr.endswith(f"Error: {case.message.format(**fill)}\n"), result.stderr
    assert result.stderr.count("Error: ") == 1
    assert snapshot(cardtally_home) == before


def test_csv_export_quotes_names_a_spreadsheet_would_run(tmp_path: Path) -> None:
    assert run("game", "new", "-p", "@Ann=red", "-p", "+Ben=blue", "-p", "Cleo=yellow").exit_code == 0
    result = run("round", "add", "--center", "@ann=4", "--center", "+ben=1", "--center", "Cleo=0",
                 "--leftover", "@Ann=0", "--leftover", "+Ben=2", "--leftover", "Cleo=3",
                 "--caller", "@Ann")
    assert result.exit_code == 0, result.output
    exported = run("game", "export", "--csv")
    assert exported.exit_code == 0, exported.output
    rows = [line.split(",")[2:] for line in exported.stdout.splitlines()[1:]]
    # Only the names are quoted; negative points stay numbers.
    assert rows == [["'@Ann", "red", "4", "0", "1", "4", "4"],
                    ["'+Ben", "blue", "1", "2", "0", "-3", "-3"],
                    ["Cleo", "yellow", "0", "3", "0", "-6", "-6"]]


def test_decks_remove_force_removes_a_deck_a_game_uses(cardtally_home: Path) -> None:
    result = run("decks", "remove", "red", "--force")
    assert (result.exit_code, result.stderr) == (0, "Removed deck 'red'.\n")
    assert not (cardtally_home / "decks" / "red.json").exists()
