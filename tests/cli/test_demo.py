"""``cardtally demo``: the whole photo flow on the bundled samples, in its own data home."""

import json
import os
import subprocess

import pytest
from typer.testing import CliRunner

from cardtally.cli import app

runner = CliRunner()


@pytest.fixture(scope="module")
def demo_run(tmp_path_factory: pytest.TempPathFactory):
    """One demo run (the models are slow enough to share it), with a game of the user's."""
    home = tmp_path_factory.mktemp("home")
    env = {"CARDTALLY_HOME": str(home)}
    assert runner.invoke(app, ["game", "new", "-p", "Zoe=z", "-p", "Yan=y"], env=env).exit_code == 0
    before = (home / "cardtally.db").read_bytes()
    result = runner.invoke(app, ["demo", "--json"], env=env)
    return home, before, result


def test_demo_runs_the_whole_flow(demo_run) -> None:
    home, _, result = demo_run
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert [p["player"] for p in data["players"]] == ["Anna", "Ben", "Cleo"]
    assert len(data["rounds"]) == 1
    assert "1. Calibrating the three decks from one photo each:" in result.stderr
    reviews = sorted((home / "demo" / "reviews").rglob("*.jpg"))
    assert [p.name for p in reviews] == ["centre-1-centre-review.jpg", "leftover-2-leftover-review.jpg"]


def test_demo_leaves_the_users_data_alone(demo_run) -> None:
    home, before, _ = demo_run
    assert (home / "cardtally.db").read_bytes() == before
    assert not (home / "decks").exists()


@pytest.mark.xfail(
    strict=True,
    reason="the shipped detector is below its targets (issue 4): shingled rows are under-counted",
)
def test_demo_counts_match_the_rendered_truth(demo_run) -> None:
    _, _, result = demo_run
    data = json.loads(result.stdout)
    counts = data["rounds"][0]["counts"]
    expected = data["expected_counts"]
    assert {p: c["center"] for p, c in counts.items()} == expected["centre"]
    assert {p: c["leftover"] for p, c in counts.items()} == expected["leftover"]


def test_closing_hint_works_as_printed(demo_run) -> None:
    """The printed command runs from a shell whose PATH lacks the virtual environment."""
    home, _, result = demo_run
    hint = "Look at the demo game with: "
    (line,) = [line for line in result.stderr.splitlines() if line.startswith(hint)]
    command = line.removeprefix(hint)
    env = {"PATH": "/usr/bin:/bin", "HOME": str(home)}
    shown = subprocess.run(["sh", "-c", command], env=env, capture_output=True, text=True,
                           timeout=120, check=False)
    assert shown.returncode == 0, shown.stderr
    assert "Anna" in shown.stdout and "Cleo" in shown.stdout
    assert command.endswith(" game show") and os.path.isabs(command.split()[1].strip("'"))
