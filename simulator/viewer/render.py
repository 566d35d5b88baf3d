"""HTML pages of the viewer: one self-contained page (inline CSS and script, screenshots as data URIs), no network."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable
from urllib.parse import quote

from jinja2 import Environment, FileSystemLoader, select_autoescape

from simulator.trajectories.files import TrajectoryFile, files_in, read
from simulator.viewer.compare import compare
from simulator.viewer.episode import EpisodeView, episode_view

Link = Callable[..., str]   # (file, step index or None) -> href

_env = Environment(loader=FileSystemLoader(Path(__file__).parent / "templates"), autoescape=select_autoescape(["html"]),
                   trim_blocks=True, lstrip_blocks=True)


def _pretty(value: Any, indent: int = 1) -> str:
    """Text as it is; JSON on one line when short, else indented."""
    if isinstance(value, str):
        return value
    flat = json.dumps(value, ensure_ascii=False, default=str)
    return flat if not indent or len(flat) <= 100 else json.dumps(value, indent=indent, ensure_ascii=False, default=str)


_env.filters["pretty"] = _pretty


def anchors(file: TrajectoryFile, step: int | None = None) -> str:
    """Links within one page that holds every episode."""
    episode = file.header.episode
    return f"#ep-{episode}" if step is None else f"#e-{episode}-s-{step}"


def queries(file: TrajectoryFile, step: int | None = None) -> str:
    """Links to the server's ``/v1/view?episode=ID`` pages."""
    episode = quote(file.header.episode)
    return f"?episode={episode}" + ("" if step is None else f"#e-{episode}-s-{step}")


def page(title: str, files: list[TrajectoryFile], views: list[EpisodeView], link: Link = anchors,
         listing: bool = False) -> str:
    """A page: the rollouts' list and side-by-side comparisons (with more than one file), then each view."""
    return _env.get_template("page.html").render(title=title, files=files, episodes=views, link=link,
                                                 comparisons=compare(files), listing=listing)


def view_target(target: Path, diffs: bool = True, store: Any = None, catalog: Any = None) -> str:
    """The page for a trajectory file, or for every ``*.jsonl`` under a folder."""
    files = [read(p) for p in files_in(target)]
    if diffs and store is None:
        from simulator.store.episodes import EpisodeStore
        from simulator.tasks.catalog import task_catalog

        store = EpisodeStore(trajectory_dir=None, idle_timeout=None)
        catalog = task_catalog(store) if any(f.header.task for f in files) else None
    views = [episode_view(f, store, catalog, diffs) for f in files]
    return page(f"officeworld trajectories: {target.name}", files, views)
