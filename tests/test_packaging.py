"""Every Python package of the source tree is installed: `pip install .` (not editable) copies
only the packages pyproject.toml lists, so one left out imports in the tests and fails for users."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _setuptools_tables() -> tuple[set[str], dict[str, str]]:
    """pyproject's ``packages`` list and ``package-dir`` map (read by pattern: Python 3.10 has
    no tomllib, and both are written flat)."""
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    listed = re.search(r"^packages = \[(.*?)\]", text, re.S | re.M).group(1)
    package_dir = re.search(r"^package-dir = \{(.*?)\}", text, re.M).group(1)
    return (set(re.findall(r'"([\w.]+)"', listed)),
            dict(re.findall(r'"([\w.]+)" = "([\w/]+)"', package_dir)))


def test_every_package_is_listed_in_pyproject() -> None:
    listed, package_dir = _setuptools_tables()
    assert "cardtally.vision" in package_dir
    missing = []
    for name, folder in package_dir.items():
        for init in sorted((ROOT / folder).rglob("__init__.py")):
            parts = init.parent.relative_to(ROOT / folder).parts
            package = ".".join((name, *parts))
            if package not in listed:
                missing.append(package)
    assert missing == []
