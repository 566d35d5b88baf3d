"""A small world with a docs workspace, and helpers the docs tests share.

(Named ``docs_factories`` because ``factories`` is already the shared world factory on the path.)
Dana (VP Sales) owns the Deals folder, shared with Ravi as editor; Mei may only comment on the
renewal plan; Ravi keeps private notes; the Sales shared drive holds the pipeline forecast.
"""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import yaml
from factories import make_world
from surfaces import call

PLAN_V1 = "# Globex renewal plan\n\nDraft: price to be agreed.\n"
PLAN = ("# Globex renewal plan\n\nSam Ortiz asked for the quote by March 27.\n\n"
        "## Pricing\n\nList price is 184,000 USD for three years.\n\n## Risks\n\nBudget freeze at Globex.\n")
FORECAST = ("Deal,Amount,Probability,Weighted\nGlobex,184000,0.6,=B2*C2\nInitech,50000,0.4,=B3*C3\n"
            "Total,=SUM(B2:B3),,=SUM(D2:D3)\n")

DRIVE = {
    "shared_drives": [{"name": "Sales", "members": {"dana@small.test": "manager", "ravi@small.test": "editor"}}],
    "items": [
        {"name": "Deals", "type": "folder", "owner": "dana@small.test", "created": "2026-02-01T09:00:00",
         "shared": {"ravi@small.test": "editor"}},
        {"name": "Globex renewal plan", "owner": "dana@small.test", "folder": "Deals", "source": "files/plan.md",
         "created": "2026-02-02T10:00:00", "modified": "2026-03-10T16:00:00", "modified_by": "ravi@small.test",
         "shared": {"mei@small.test": "commenter"}, "starred_by": ["dana@small.test"],
         "revisions": [{"by": "dana@small.test", "at": "2026-02-02T10:00:00", "source": "files/plan.v1.md"}],
         "comments": [{"by": "ravi@small.test", "at": "2026-03-10T16:30:00", "text": "Is this with the discount?",
                       "quote": "List price is 184,000 USD",
                       "replies": [{"by": "dana@small.test", "at": "2026-03-10T17:00:00",
                                    "text": "No discount yet. @ravi please confirm with Sam."}]}]},
        {"name": "quote.csv", "owner": "dana@small.test", "folder": "Deals", "source": "files/quote.csv",
         "type": "file", "mime_type": "text/csv", "created": "2026-03-10T14:00:00"},
        {"name": "Pipeline forecast", "drive": "Sales", "folder": "Forecasts", "source": "files/forecast.csv",
         "created": "2026-03-01T09:00:00", "created_by": "dana@small.test"},
        {"name": "Support runbook", "owner": "mei@small.test", "text": "# Runbook\n\nRotate certificates monthly.\n",
         "created": "2026-01-15T09:00:00", "anyone": "viewer"},
        {"name": "Private notes", "owner": "ravi@small.test", "text": "Sam prefers calls on Tuesdays.\n",
         "created": "2026-03-05T09:00:00"},
        {"name": "logo.png", "owner": "ravi@small.test", "source": "files/logo.png", "created": "2026-03-06T09:00:00",
         "shared": {"dana@small.test": "viewer"}},
    ],
}
PNG = bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000") + b"\x00\xff binary"


def make_docs_world(root: Path, drive: dict | None = None, name: str = "small") -> Path:
    """The shared small world plus ``docs/``: one ``drive.yaml`` and the files it names."""
    world = make_world(root, name)
    files = world / "docs" / "files"
    files.mkdir(parents=True)
    (world / "docs" / "drive.yaml").write_text(yaml.safe_dump(drive or DRIVE, sort_keys=False))
    (files / "plan.md").write_text(PLAN)
    (files / "plan.v1.md").write_text(PLAN_V1)
    (files / "forecast.csv").write_text(FORECAST)
    (files / "quote.csv").write_bytes((world / "mail" / "attachments" / "quote.csv").read_bytes())
    (files / "logo.png").write_bytes(PNG)
    return world



def start(api, world_dir: Path, actor: str = "dana@small.test") -> dict:
    response = api.post("/v1/episodes", json={"world": str(world_dir), "as": actor})
    assert response.status_code == 201, response.text
    return {**response.json(), "world_dir": str(world_dir)}


def handover(api, episode: dict, actor: str) -> dict:
    """A new episode in the state ``episode`` reached, acting as ``actor`` (via snapshot and restore)."""
    snapshot = api.get(f"/v1/episodes/{episode['id']}/snapshot").content
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(snapshot)) as old, zipfile.ZipFile(out, "w") as new:
        for name in old.namelist():
            data = old.read(name)
            if name == "episode.json":
                data = json.dumps({**json.loads(data), "actor": actor}).encode()
            new.writestr(name, data)
    target = api.post("/v1/episodes", json={"world": episode["world_dir"], "as": actor}).json()
    restored = api.post(f"/v1/episodes/{target['id']}/restore", content=out.getvalue())
    assert restored.status_code == 200 and restored.json()["actor"] == actor, restored.text
    return {**target, "world_dir": episode["world_dir"]}


def ok(response):
    assert response.status_code == 200, response.text
    return response.json()


def error(response, status: int) -> dict:
    assert response.status_code == status, response.text
    return response.json()["error"]


def file_id(api, episode: dict, name: str) -> int:
    """The id of the one file the actor can find by this exact name."""
    found = [f for f in ok(call(api, episode, "docs", "search", name=name, limit=200))["files"] if f["name"] == name]
    assert len(found) == 1, found
    return found[0]["id"]
