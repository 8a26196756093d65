"""What `pip install .` ships: every package of bot/, and the rule packs as `bot.packs` resources."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import yaml

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    tomllib = None

ROOT = Path(__file__).resolve().parents[1]


def _listed_packages() -> set[str]:
    text = (ROOT / "pyproject.toml").read_text()
    if tomllib is not None:
        return set(tomllib.loads(text)["tool"]["setuptools"]["packages"])
    block = text.split("packages = [", 1)[1].split("]", 1)[0]
    return {p.strip().strip('"') for p in block.replace("\n", " ").split(",") if p.strip()}


def test_every_package_of_bot_is_listed():
    on_disk = {".".join(init.parent.relative_to(ROOT).parts) for init in (ROOT / "bot").rglob("__init__.py")}
    listed = _listed_packages()
    assert on_disk - listed == set(), "packages pip install would leave out"
    assert listed - on_disk == {"bot.packs"}


def test_the_wheel_holds_every_module_and_every_pack(tmp_path):
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--quiet",
            "--no-deps",
            "-w",
            str(tmp_path),
            str(ROOT),
        ],
        check=True,
        capture_output=True,
    )
    (wheel,) = tmp_path.glob("docs_sync-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())

    modules = {str(p.relative_to(ROOT)) for p in (ROOT / "bot").rglob("*.py")}
    assert modules - names == set()
    packs = {f"bot/packs/{p.name}" for p in (ROOT / "rules").glob("*.yml")}
    assert packs and packs <= names
    for pack in packs:
        assert yaml.safe_load(zipfile.ZipFile(wheel).read(pack))["pack"] == Path(pack).stem
    assert not any(n.startswith("tests/") for n in names)
    assert "bot/docs-sync.schema.json" in names  # the config's JSON Schema, for editors
