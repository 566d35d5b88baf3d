"""Runs that fork a task's template episode (``Tasks.fork``, what ``tasks check`` uses) start where a fresh
episode with the setup run starts, and end with the same state and reward; templates are kept for the last few
tasks only and released on close."""

from __future__ import annotations

from simulator.store.episodes import EpisodeStore
from simulator.tasks.catalog import task_catalog
from tasks import session


def test_a_forked_run_starts_and_ends_as_a_fresh_one(monkeypatch):
    store = EpisodeStore()
    catalog = task_catalog(store, corpus="acme:1")
    engine = catalog.engine
    task = next(t for t in catalog.select(family="x-renewal-campaign"))
    fresh = engine.begin(task)
    engine.fork = lambda episode: store.fork(episode.id)
    forked, again = engine.begin(task), engine.begin(task)
    assert len(store) == 4   # the fresh run, the template, two forks of it
    assert forked.episode.id != again.episode.id and forked.scope == fresh.scope
    assert forked.episode.digest() == fresh.episode.digest() and forked.agent_from == fresh.agent_from
    assert [s.operation for s in forked.episode.trajectory] == [s.operation for s in fresh.episode.trajectory]
    for run in (fresh, forked):
        engine.run_calls(run, task.oracle)
    assert engine.grade(forked).total == engine.grade(fresh).total == 1.0
    assert forked.episode.digest() == fresh.episode.digest()
    assert engine.grade(again).total == 0.0   # the other fork did not see the first one's work
    monkeypatch.setattr(session, "TEMPLATES", 1)
    other = next(t for t in catalog.select(family="crm-pipeline-total"))
    engine.begin(other)   # a second task's template evicts the first
    assert len(engine._templates) == 1
    engine.close()
    assert not engine._templates
