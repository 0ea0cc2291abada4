"""The CLI's layering, read from the source's imports: a command module never imports another
command module (shared code lives in the ``_`` helpers or in ``cardtally.rounds``), and the
round use case never imports the CLI, typer or rich (a web page reuses it)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[2] / "src" / "cardtally"
CLI = SRC / "cli"
#: The modules that define commands (each registers on the app); ``app`` holds the app itself.
COMMANDS = sorted(p.stem for p in CLI.glob("*.py") if not p.stem.startswith("_") and p.stem != "app")


def imported_modules(path: Path, package: str) -> set[str]:
    """Every module ``path`` imports, as absolute dotted names (``from . import x`` counts x)."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                module = f"{base}.{node.module}" if node.module else base
            else:
                module = node.module or ""
            names.add(module)
            names.update(f"{module}.{alias.name}" for alias in node.names)
    return names


def test_the_commands_are_found():
    assert {"count", "score", "round", "demo", "calibrate"} <= set(COMMANDS)


@pytest.mark.parametrize("command", COMMANDS)
def test_no_command_module_imports_another(command: str):
    imported = imported_modules(CLI / f"{command}.py", "cardtally.cli")
    others = {f"cardtally.cli.{name}" for name in COMMANDS if name != command}
    assert imported & others == set()


@pytest.mark.parametrize("helper", sorted(p.stem for p in CLI.glob("_*.py")
                                           if p.stem != "__init__"))  # it registers them
def test_no_helper_imports_a_command_module(helper: str):
    imported = imported_modules(CLI / f"{helper}.py", "cardtally.cli")
    assert imported & {f"cardtally.cli.{name}" for name in COMMANDS} == set()


@pytest.mark.parametrize("module", sorted(p.stem for p in (SRC / "rounds").glob("*.py")))
def test_the_round_use_case_knows_no_front_end(module: str):
    imported = imported_modules(SRC / "rounds" / f"{module}.py", "cardtally.rounds")
    front_end = {name for name in imported
                 if name.split(".")[0] in ("typer", "rich", "click")
                 or name.startswith("cardtally.cli")}
    assert front_end == set()


def test_the_check_sees_an_import_of_a_command_module(tmp_path: Path):
    sample = tmp_path / "demo.py"
    sample.write_text("from .score import score_command\nfrom . import count\n")
    imported = imported_modules(sample, "cardtally.cli")
    assert {"cardtally.cli.score", "cardtally.cli.count"} <= imported
