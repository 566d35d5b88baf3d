"""The server's viewer pages (``GET /v1/view``): the trajectory folder's rollouts, one episode, or one task's rollouts.

A worker of ``officeworld up --workers N`` (or a replica of compose's scaled gateway) keeps its files in
``<folder>/<tag>``, the other workers theirs beside it (``simulator.service.shards``): its viewer lists the
folder above, so that whichever worker answers, the listing and a task's rollouts span every worker's
episodes, and an episode is found in the folder of the worker its id names (``ep_w1_...``: ``w1/``; the router sends
``?episode=`` to that worker).

Replay for the state diffs runs on a store of the viewer's own that keeps no files, so viewing never adds a
file to the folder it lists; it and its task catalog are made on the first page that needs them.
"""

from __future__ import annotations

import re
import threading
from pathlib import Path
from typing import Any

from apps.kit.errors import Conflict, Invalid, NotFound
from simulator.store.episodes import worker_of
from simulator.trajectories.files import TrajectoryFile, TrajectoryFileError, files_in, read
from simulator.viewer.episode import episode_view
from simulator.viewer.render import page, queries

_ID = re.compile(r"[A-Za-z0-9_.-]{1,128}")


def viewed_folder(folder: Path | None, worker: str = "") -> Path | None:
    """What the viewer lists: the server's trajectory folder, or, for worker ``worker`` whose folder is
    ``<root>/<worker>``, the root that holds every worker's."""
    if folder is not None and worker and folder.name == worker:
        return folder.parent
    return folder


class Viewer:
    def __init__(self, folder: Path | None, worker: str = ""):
        """``folder``: the server's trajectory folder (``None``: it keeps none); ``worker``: its tag when it is
        one worker of several (``viewed_folder``)."""
        self.folder = viewed_folder(folder, worker)
        self._replayer: tuple[Any, Any] | None = None
        self._lock = threading.Lock()

    def page(self, episode: str | None = None, task: str | None = None, diffs: bool = True) -> str:
        """The listing (every file, passes and fails of each task side by side); ``episode``: that one's
        timeline; ``task``: that task's rollouts compared, with their timelines."""
        if self.folder is None:
            raise Conflict("this server keeps no trajectory files: start it with OFFICEWORLD_TRAJECTORY_DIR set")
        if episode is not None:
            file = self._file(episode)
            return page(f"episode {episode}", [file], [self._view(file, diffs)], queries)
        files = self._files()
        if task is not None:
            files = [f for f in files if f.header.task and f.header.task.id == task]
            if not files:
                raise NotFound(f"task: no trajectory file of task {task!r} in the folder", field="task")
            return page(f"task {task}: {len(files)} rollout(s)", files, [self._view(f, diffs) for f in files], queries)
        return page(f"trajectories in {self.folder.name}: {len(files)}", files, [], queries, listing=True)

    def _file(self, episode: str) -> TrajectoryFile:
        if not _ID.fullmatch(episode) or episode.startswith("."):
            raise Invalid("episode: not an episode id (letters, digits, '_', '-', '.')", field="episode")
        assert self.folder is not None
        tag = worker_of(episode)
        places = [self.folder, *([self.folder / tag] if tag else [])]
        path = next((p for p in (place / f"{episode}.jsonl" for place in places) if p.is_file()), None)
        if path is None:
            raise NotFound(f"episode: no trajectory file for {episode!r}", field="episode")
        try:
            return read(path)
        except TrajectoryFileError as exc:
            raise Conflict(f"episode: {exc}", field="episode") from None

    def _files(self) -> list[TrajectoryFile]:
        assert self.folder is not None
        out = []
        for path in files_in(self.folder) if self.folder.is_dir() else []:
            try:
                out.append(read(path))
            except (TrajectoryFileError, OSError):  # a file being created, or not a trajectory: left out
                continue
        return out

    def _view(self, file: TrajectoryFile, diffs: bool):
        if not diffs:
            return episode_view(file, diffs=False)
        store, catalog = self._replay_with()
        return episode_view(file, store, catalog)

    def _replay_with(self) -> tuple[Any, Any]:
        with self._lock:
            if self._replayer is None:
                from simulator.store.episodes import EpisodeStore
                from simulator.tasks.catalog import task_catalog

                store = EpisodeStore(trajectory_dir=None, idle_timeout=None)
                self._replayer = (store, task_catalog(store))
            return self._replayer
