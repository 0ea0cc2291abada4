"""A round write killed (SIGKILL) at seeded random moments, or cut short by a full disk
(RLIMIT_FSIZE: writes past the limit fail as on a full disk), leaves the ledger whole, with
the round count it had or one more; a killed ``score`` leaves no review images (nor their cards)
behind.

Each command runs in a child process (cli_child.py) that prints ``ready`` once imported; the
kill comes a random time after that, up to as long as an unkilled run of the same command took.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from photo_fakes import calibrate, fake_vision, write_photo  # noqa: F401  (fixture)
from typer.testing import CliRunner

from cardtally.cli import app
from cardtally.rounds.review import new_review_dir
from cardtally.rounds.unsaved_review import MARKER, UnsavedReview

CHILD = Path(__file__).resolve().parent / "cli_child.py"
SAMPLES = Path(__file__).resolve().parents[2] / "samples"
ROUND_ADD = ("round", "add", "--center", "Anna=3", "--center", "Ben=2", "--center", "Cleo=1",
             "--leftover", "Anna=0", "--leftover", "Ben=1", "--leftover", "Cleo=4")
KILLS = 24


@pytest.fixture
def home_with_game(cardtally_home: Path, tmp_path: Path) -> Path:
    calibrate("red", "blue", "yellow")
    result = CliRunner().invoke(app, ["game", "new", "-p", "Anna=red", "-p", "Ben=blue",
                                      "-p", "Cleo=yellow"])  # fmt: skip
    assert result.exit_code == 0, result.output
    write_photo(tmp_path / "centre.png", ["red"] * 5 + ["blue"] * 3 + ["yellow"] * 2)
    write_photo(tmp_path / "left.png", ["blue"] * 2 + ["yellow"] * 4)
    return cardtally_home


def start(*args: str, options: tuple[str, ...] = ()) -> subprocess.Popen[str]:
    child = subprocess.Popen([sys.executable, str(CHILD), *options, "--", *args],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert child.stdout is not None and child.stdout.readline() == "ready\n"
    return child


def timed_run(*args: str, options: tuple[str, ...] = ()) -> float:
    """Seconds an unkilled run takes after ``ready`` (the window the kills are spread over)."""
    child = start(*args, options=options)
    began = time.monotonic()
    _, stderr = child.communicate(timeout=120)
    assert child.returncode == 0, stderr
    return time.monotonic() - began


def kill_at_random(rng: np.random.Generator, window_s: float, *args: str,
                   options: tuple[str, ...] = ()) -> None:
    child = start(*args, options=options)
    time.sleep(float(rng.uniform(0.0, window_s)))
    child.send_signal(signal.SIGKILL)
    _, stderr = child.communicate(timeout=120)
    assert "Traceback" not in stderr


def ledger_state(home: Path) -> tuple[str, int]:
    """``PRAGMA integrity_check`` and the number of rounds (a hot journal is rolled back first)."""
    with sqlite3.connect(home / "cardtally.db") as conn:
        check = conn.execute("PRAGMA integrity_check").fetchone()[0]
        rounds = conn.execute("SELECT count(*) FROM rounds").fetchone()[0]
    conn.close()
    return check, rounds


def test_round_writes_killed_at_random_moments_leave_the_ledger_whole(home_with_game: Path) -> None:
    rng = np.random.default_rng(47)
    window_s = timed_run(*ROUND_ADD)
    for _ in range(KILLS):
        _, before = ledger_state(home_with_game)
        kill_at_random(rng, window_s, *ROUND_ADD)
        check, after = ledger_state(home_with_game)
        assert check == "ok"
        assert after in (before, before + 1)
    assert CliRunner().invoke(app, ["game", "show"]).exit_code == 0


def test_killed_scores_leave_no_review_images_behind(home_with_game: Path, tmp_path: Path) -> None:
    rng = np.random.default_rng(48)
    score = ("score", "--center", str(tmp_path / "centre.png"),
             "--leftover", str(tmp_path / "left.png"), "--yes")
    window_s = timed_run(*score, options=("--fake-vision",))
    for _ in range(4):
        kill_at_random(rng, window_s, *score, options=("--fake-vision",))
        assert ledger_state(home_with_game)[0] == "ok"
    # One more score, in a child so that it is the only process holding a marker.
    child = start(*score, options=("--fake-vision",))
    assert child.wait(timeout=120) == 0
    with sqlite3.connect(home_with_game / "cardtally.db") as conn:
        kept = {image for (evidence,) in conn.execute("SELECT evidence FROM rounds")
                for image in _review_images(evidence)}
    conn.close()
    on_disk = {str(p) for p in (home_with_game / "reviews").rglob("*") if p.is_file()}
    assert on_disk == kept


def _review_images(evidence: str) -> list[str]:
    saved = json.loads(evidence)
    return [photo[key] for label in ("center", "leftover") for photo in saved[label]
            for key in ("review_image", "cards_file")]


def test_leftover_of_a_killed_score_is_cleaned_but_a_live_one_and_snapped_photos_stay(
    fake_vision, home_with_game: Path, tmp_path: Path  # noqa: F811
) -> None:
    live = new_review_dir(1, 1)
    live_marker = UnsavedReview(live)  # this process may still save its round
    (live / "centre-1-live-review.jpg").write_bytes(b"review")
    made = subprocess.run(
        [sys.executable, "-c", (
            "import os, signal; from pathlib import Path\n"
            "from cardtally.rounds.review import new_review_dir\n"
            "from cardtally.rounds.unsaved_review import UnsavedReview\n"
            "for snapped in (False, True):\n"
            "    folder = new_review_dir(1, 1); UnsavedReview(folder)\n"
            "    (folder / 'centre-1-killed-review.jpg').write_bytes(b'review')\n"
            "    (folder / '.centre-1-killed-review-x1.jpg.tmp').write_bytes(b'half')\n"
            "    (folder / 'centre-1-killed-cards.npz').write_bytes(b'cards')\n"
            "    (folder / '.centre-1-killed-cards-x1.tmp').write_bytes(b'half')\n"
            "    if snapped: (folder / 'snapped.jpg').write_bytes(b'photo')\n"
            "os.kill(os.getpid(), signal.SIGKILL)\n")],
        capture_output=True, text=True, timeout=60, check=False)
    assert made.returncode == -signal.SIGKILL, made.stderr
    reviews = home_with_game / "reviews"
    assert len(list(reviews.rglob("*killed-review*"))) == 4
    assert len(list(reviews.rglob("*killed-cards*"))) == 4

    result = CliRunner().invoke(app, ["score", "--center", str(tmp_path / "centre.png"),
                                      "--leftover", str(tmp_path / "left.png"), "--yes"])
    assert result.exit_code == 0, result.output
    assert list(reviews.rglob("*killed-review*")) == []
    assert list(reviews.rglob("*killed-cards*")) == []
    assert [p.name for p in reviews.rglob("snapped.jpg")] == ["snapped.jpg"]
    assert sorted(p.name for p in live.iterdir()) == [MARKER, "centre-1-live-review.jpg"]
    live_marker.settled()


# -- a full disk ---------------------------------------------------------------------------------


def run_limited(fsize: int, *args: str, options: tuple[str, ...] = ()) -> tuple[int, str]:
    child = start(*args, options=("--fsize", str(fsize), *options))
    _, stderr = child.communicate(timeout=120)
    return child.returncode, stderr


def test_round_writes_on_a_full_disk_fail_cleanly(home_with_game: Path) -> None:
    ledger = home_with_game / "cardtally.db"
    # Below a page and a journal header every write fails; above, a write that fits the free
    # pages of the file may succeed: then it is simply saved.
    limits = [512, 2048, 4096, *np.random.default_rng(49).integers(4096, ledger.stat().st_size, 5)]
    failed = 0
    for fsize in limits:
        before = ledger.read_bytes()
        _, rounds = ledger_state(home_with_game)
        returncode, stderr = run_limited(int(fsize), *ROUND_ADD)
        if returncode == 0:
            assert ledger_state(home_with_game) == ("ok", rounds + 1)
            continue
        failed += 1
        assert returncode == 1
        assert stderr.startswith(f"Error: Cannot write the game ledger {ledger}: ")
        assert stderr.endswith("(is the disk full?). Nothing was changed; free some space and "
                               "try again.\n") and stderr.count("\n") == 1
        assert ledger_state(home_with_game) == ("ok", rounds)
        assert ledger.read_bytes() == before
    assert failed >= 3


def test_review_image_on_a_full_disk_fails_cleanly(home_with_game: Path, tmp_path: Path) -> None:
    before = (home_with_game / "cardtally.db").read_bytes()
    returncode, stderr = run_limited(
        8000, "score", "--center", str(tmp_path / "centre.png"), "--leftover",
        str(tmp_path / "left.png"), "--yes", options=("--fake-vision",))
    assert returncode == 1
    error = stderr.splitlines()[-1]
    assert error.startswith(f"Error: Cannot write the review image {home_with_game}/reviews/")
    assert error.endswith("-review.jpg: File too large.") and stderr.count("Error") == 1
    assert (home_with_game / "cardtally.db").read_bytes() == before
    assert [p for p in (home_with_game / "reviews").rglob("*") if p.is_file()] == []


def test_calibration_on_a_full_disk_fails_cleanly(cardtally_home: Path) -> None:
    # The real pipeline (a small sample photo); only the profile write hits the limit.
    returncode, stderr = run_limited(3000, "calibrate", "teal", str(SAMPLES / "calibration" /
                                                                   "teal-ben.jpg"))
    assert returncode == 1
    assert stderr == (f"Error: Cannot write the deck profile {cardtally_home}/decks/teal.json: "
                      "File too large.\n")
    assert list((cardtally_home / "decks").iterdir()) == []


def test_the_child_sees_the_test_data_home(cardtally_home: Path) -> None:
    assert os.environ["CARDTALLY_HOME"] == str(cardtally_home)
