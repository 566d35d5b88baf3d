"""Two engine behaviours the task check leans on: grading opens no app the episode left alone, and
the episodes the engine makes for itself (to learn what the oracle changes) leave the store."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from qa_suite import GOOD, write_suite  # noqa: E402

from simulator.store.episodes import EpisodeStore  # noqa: E402
from simulator.tasks.check import catalog_over  # noqa: E402
from tasks.model import Call  # noqa: E402


def test_grading_reads_only_opened_apps_and_releases_its_probe_episodes(tmp_path, world_dir):
    root = write_suite(tmp_path / "suites", world_dir, {"reply-sam": GOOD["reply-sam"]})
    store = EpisodeStore(cache_dir=tmp_path / "cache")
    catalog = catalog_over(store, root)
    run = catalog.start("mail-reply-sam")
    catalog.engine.run_calls(run, [Call(op="task.submit_answer", args={"answer": "done"})])
    reward = catalog.finish(run.episode)
    assert not reward.passed and reward.total == 0.0
    assert run.episode.opened == ["task"]          # mail, crm and docs were never cloned to grade it
    assert [e.id for e in store.list()] == [run.episode.id]   # the oracle's probe episode is gone
