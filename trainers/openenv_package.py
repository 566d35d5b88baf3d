"""officeworld as an OpenEnv package: the directory ``openenv validate``, ``openenv build`` and ``openenv push``
(openenv 0.10) take, written from a checkout.

    python -m trainers.openenv_package OUT     # then: openenv validate OUT; openenv build OUT; openenv push OUT

OUT gets the template ``trainers/openenv_env/`` (``openenv.yaml`` with its ``validation:`` block, ``server/app.py``
with ``main()``, ``pyproject.toml`` with the ``server`` script, ``client.py``, ``__init__.py``, ``README.md``, a
``Dockerfile`` at the root, where ``openenv push`` wants it), the project's source in ``OUT/officeworld`` (the image
installs it from there: a package's build context is its own directory) and an empty ``OUT/wheelhouse`` (filled
only for a build without network access, ``--build-arg DEPS=wheelhouse``). Nothing here imports ``openenv``.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TEMPLATE = Path(__file__).resolve().parent / "openenv_env"
# What officeworld's own Dockerfile copies to install the project: its metadata and its rooms.
PROJECT_FILES = ("pyproject.toml", "README.md", "constraints.txt")
PROJECT_ROOMS = ("apps", "scenarios", "simulator", "sandbox", "tasks", "trainers", "worlds")
SKIP = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info", ".mypy_cache", "openenv_env")
WHEELHOUSE_NOTE = ("Wheels of officeworld's dependencies for a build without network access "
                   "(--build-arg DEPS=wheelhouse); empty otherwise.\n")


class PackageError(Exception):
    """The package cannot be written (no checkout to copy, or OUT holds something already)."""


def write_package(out: Path, root: Path = ROOT) -> Path:
    """Write the OpenEnv package into ``out`` (absent or empty) from the checkout at ``root``; returns ``out``."""
    missing = [name for name in (*PROJECT_FILES, *PROJECT_ROOMS) if not (root / name).exists()]
    if missing:
        raise PackageError(f"{root} is not an officeworld checkout (no {', '.join(missing)})")
    if out.exists() and any(out.iterdir()):
        raise PackageError(f"{out} is not empty")
    shutil.copytree(TEMPLATE, out, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"), dirs_exist_ok=True)
    source = out / "officeworld"
    source.mkdir()
    for name in PROJECT_FILES:
        shutil.copy2(root / name, source / name)
    for room in PROJECT_ROOMS:
        shutil.copytree(root / room, source / room, ignore=SKIP)
    (out / "wheelhouse").mkdir()
    (out / "wheelhouse" / "README.txt").write_text(WHEELHOUSE_NOTE)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m trainers.openenv_package", description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path, help="the package's directory (absent or empty)")
    args = parser.parse_args(argv)
    try:
        written = write_package(args.out)
    except PackageError as error:
        print(f"openenv_package: {error}", file=sys.stderr)
        return 2
    print(f"wrote the OpenEnv package {written} (openenv validate / build / push it)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
