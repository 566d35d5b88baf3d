"""The small world with mail, crm and docs data, so every operation has records to act on."""

import sys
from pathlib import Path

import yaml

for folder in ("crm", "docs"):
    sys.path.insert(0, str(Path(__file__).parents[1] / "apps" / folder))

from crm_factories import FILES  # noqa: E402
from docs_factories import make_docs_world  # noqa: E402


def make_full_world(root: Path) -> Path:
    world = make_docs_world(root)
    (world / "crm").mkdir()
    for file, records in FILES.items():
        (world / "crm" / f"{file}.yaml").write_text(yaml.safe_dump(records, sort_keys=False))
    return world
