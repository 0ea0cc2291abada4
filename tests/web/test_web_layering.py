"""The web page is a front end beside the CLI: it reaches the round, game and calibration use
cases directly and never through a CLI module (``cardtally.cli``), typer or click."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

WEB = Path(__file__).resolve().parents[2] / "src" / "cardtally" / "web"


def imported(path: Path) -> set[str]:
    """The modules ``path`` imports (relative imports as written, with their dots)."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            names.add("." * node.level + (node.module or ""))
    return names


@pytest.mark.parametrize("module", sorted(p.name for p in WEB.glob("*.py")))
def test_the_page_imports_no_cli_module(module: str) -> None:
    front_ends = {name for name in imported(WEB / module)
                  if name.split(".")[0] in ("typer", "click", "rich")
                  or name.startswith(("..cli", "cardtally.cli"))}
    assert front_ends == set()


def test_the_modules_are_found() -> None:
    assert {"app.py", "table.py"} <= {p.name for p in WEB.glob("*.py")}
