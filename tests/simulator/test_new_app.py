"""A new app is one folder: a throwaway app written to a temporary folder, with its own entity and its
own world section, is served over REST, MCP, ``ow`` and the tool list with no file of the project changed."""

from __future__ import annotations

import asyncio
import json
import sys
import textwrap

import httpx
import pytest
from surfaces import CONTROL, mcp_session, new_episode, run_ow

from simulator.gateway.server import build_app
from simulator.service.serve import serve_in_thread
from simulator.store.episodes import EpisodeStore
from simulator.store.registry import APPS

APP_SOURCE = '''
"""Notes: a throwaway app for the test."""
from pathlib import Path

import yaml
from sqlmodel import SQLModel, select

from apps.kit import App, Ctx, OperationSet
from apps.kit.entity import Strict, attr, derive


class Note(SQLModel, table=True):
    __tablename__ = "notes_note"
    id: int | None = attr(None, primary_key=True, description="Note id", create=False, world=False)
    title: str = attr(description="Title", min_length=1, max_length=80)
    author: str = attr(description="Who wrote it", create=False)


NoteCreate, NoteOut, NoteRecord = derive(Note, "create"), derive(Note, "see"), derive(Note, "world")
ops = OperationSet("notes")


@ops.read
def list_notes(ctx: Ctx) -> list[NoteOut]:
    """Every note."""
    return [NoteOut.model_validate(n, from_attributes=True) for n in ctx.session.exec(select(Note))]


@ops.write
def add_note(ctx: Ctx, fields: NoteCreate) -> NoteOut:
    """Add a note as yourself."""
    note = Note(**fields.model_dump(), author=ctx.actor)
    ctx.session.add(note)
    ctx.session.flush()
    return NoteOut.model_validate(note, from_attributes=True)


class NotesData(Strict):
    notes: list[NoteRecord] = []


class NotesSection:
    folder = "notes"

    def load(self, root, info, problems):
        path = root / "notes" / "notes.yaml"
        return NotesData.model_validate(yaml.safe_load(path.read_text()) if path.is_file() else {})

    def addresses(self, data):
        return [(f"notes/notes.yaml:{i + 1}", n.author) for i, n in enumerate(data.notes)]

    def write(self, data, out):
        (out / "notes").mkdir(parents=True, exist_ok=True)
        (out / "notes" / "notes.yaml").write_text(yaml.safe_dump(data.model_dump()))

    def generate(self, rng, info, size):
        return NotesData()


def seed(session, world):
    data = world.sections.get("notes") or NotesData()
    session.add_all(Note(**n.model_dump()) for n in data.notes)


APP = App(name="notes", title="Notes", operations=ops, tables=[Note], seed=seed,
          source_dir=Path(__file__).parent, world=NotesSection())
'''


@pytest.fixture
def notes_app(tmp_path, monkeypatch):
    package = tmp_path / "code" / "throwaway_notes"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(textwrap.dedent(APP_SOURCE))
    monkeypatch.syspath_prepend(str(tmp_path / "code"))
    import throwaway_notes

    yield throwaway_notes.APP
    sys.modules.pop("throwaway_notes", None)


def test_a_throwaway_app_is_served_on_every_surface(notes_app, world_dir, tmp_path):
    (world_dir / "notes").mkdir()
    (world_dir / "notes" / "notes.yaml").write_text("notes:\n- {title: Kickoff, author: mei@small.test}\n")
    store = EpisodeStore({**APPS, "notes": notes_app}, cache_dir=tmp_path / "cache", app_urls={})
    with serve_in_thread(build_app(store)) as base:
        episode = new_episode(base, world_dir)
        rest = httpx.post(f"{base}/episodes/{episode['id']}/api/notes/add_note", json={"title": "From REST"})
        assert rest.status_code == 200 and rest.json()["author"] == "dana@small.test", rest.text
        tools, (listed, bad) = asyncio.run(mcp_session(episode["mcp_url"], [
            ("notes_list_notes", {}), ("notes_add_note", {"title": ""})]))
        assert {"notes_list_notes", "notes_add_note", "calendar_create_event"} <= {t.name for t in tools}
        assert [n["title"] for n in listed.structured_content["result"]] == ["Kickoff", "From REST"]
        assert bad.is_error and '"field": "title"' in bad.content[0].text
        schemas = {t["function"]["name"] for t in httpx.get(f"{base}/v1/tools", headers=CONTROL).json()}
        assert "notes_add_note" in schemas
        # ow, a separate process, learns the app's commands from the server's catalogue.
        made = run_ow(base, episode["id"], "notes", "add-note", "From ow", "--json")
        assert made.returncode == 0 and json.loads(made.stdout)["author"] == "dana@small.test", made.stderr
        shown = run_ow(base, episode["id"], "notes", "list-notes", "--json")
        assert [n["title"] for n in json.loads(shown.stdout)] == ["Kickoff", "From REST", "From ow"], shown.stderr
        refused = run_ow(base, episode["id"], "notes", "add-note", "")
        assert refused.returncode == 2 and "title" in refused.stderr, refused.stderr
        helped = run_ow(base, episode["id"], "notes", "--help")
        assert "add-note" in helped.stdout and "list-notes" in helped.stdout
