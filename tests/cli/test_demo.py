"""``cardtally demo``: a typed-in game in its own ledger, never the user's."""

import json
from pathlib import Path

from typer.testing import CliRunner

from cardtally.cli import app

runner = CliRunner()


def test_demo_plays_a_typed_in_game(cardtally_home: Path):
    result = runner.invoke(app, ["demo"])
    assert result.exit_code == 0, result.output
    assert "round      Anna       Ben      Cleo  called out\n" in result.stdout
    assert result.stdout.endswith(
        "place  player  deck        total\n"
        "    1  Anna    red-star       31\n"
        "    2  Ben     red-moon       15\n"
        "    2  Cleo    green-star     15\n"
        "\n"
        "Winner: Anna (31 points).\n"
        "Finished after round 3.\n"
    )
    demo_dir = cardtally_home / "demo"
    assert result.stderr == (
        "This was a typed-in demo game (scoring from photos comes later); your own games are "
        f"untouched. Its ledger: {demo_dir / 'cardtally.db'}; look at it with: "
        f"CARDTALLY_HOME='{demo_dir}' cardtally game show\n"
    )
    assert not (cardtally_home / "cardtally.db").exists()


def test_demo_leaves_the_users_games_alone(cardtally_home: Path):
    assert runner.invoke(app, ["game", "new", "-p", "Zoe=z", "-p", "Yan=y"]).exit_code == 0
    before = (cardtally_home / "cardtally.db").read_bytes()
    for _ in range(2):  # a second run replaces the demo ledger
        result = runner.invoke(app, ["demo", "--json"])
        assert result.exit_code == 0, result.output
        data = json.loads(result.stdout)
        assert (data["game"], data["winners"]) == (1, ["Anna"])
    assert (cardtally_home / "cardtally.db").read_bytes() == before
    shown = json.loads(runner.invoke(app, ["game", "show", "--json"]).stdout)
    assert [p["player"] for p in shown["players"]] == ["Zoe", "Yan"]
