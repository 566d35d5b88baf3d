"""The generated corpus: families write the same tasks for the same seed on every world, each valid, measured,
and served by a catalog only when asked for (``OFFICEWORLD_CORPUS``)."""

from __future__ import annotations

import pytest

from apps.kit import Invalid
from scenarios.corpus import Plan, write
from scenarios.registry import FAMILIES
from scenarios.view import WorldView
from simulator.store.episodes import EpisodeStore
from simulator.store.registry import APPS, all_operations, world_sections
from simulator.tasks.catalog import plan_of, task_catalog
from tasks.corpus import build, difficulty
from worlds.loader import load_world

OPERATIONS = {f"{op.app}.{op.name}": op for op in all_operations(APPS)}


@pytest.fixture(scope="module")
def acme() -> WorldView:
    return WorldView(load_world("acme", world_sections()))


def test_the_same_seed_writes_the_same_tasks_and_another_seed_others(acme):
    first, again, other = (write(acme, FAMILIES, 2, seed) for seed in (0, 0, 1))
    assert first.tasks == again.tasks and not first.problems
    assert first.tasks != other.tasks
    assert {t["family"] for t in first.tasks} == {f.id for f in FAMILIES}


@pytest.mark.parametrize("world", ["acme", "harbor-legal"])
def test_every_family_writes_valid_measured_tasks_on_the_shipped_worlds(world):
    corpus = build(world_sections(), OPERATIONS, Plan(worlds=((world, 2),)))
    assert not corpus.problems, corpus.problems
    written = {t.family for t in corpus.tasks}
    skipped = {line.split(" on ")[0] for line in corpus.skipped}
    assert written | skipped == {f.id for f in FAMILIES}
    for task in corpus.tasks:
        assert task.split in ("train", "validation", "test") and task.suite == task.family
        assert task.figures["oracle_calls"] == len(task.oracle)
        assert task.difficulty == difficulty(task.figures)


def test_difficulty_is_measured_from_the_figures():
    assert difficulty({"oracle_calls": 3, "apps": 1, "distractors": 0}) == "easy"
    assert difficulty({"oracle_calls": 3, "apps": 1, "distractors": 1}) == "medium"
    assert difficulty({"oracle_calls": 9, "apps": 2, "distractors": 1}) == "hard"
    assert difficulty({"oracle_calls": 16, "apps": 1, "distractors": 0}) == "hard"


def test_a_family_that_fails_is_named_with_its_world_and_number_and_the_others_go_on(acme):
    from scenarios.family import Family

    def broken(draft):
        raise KeyError("no such person")

    made = write(acme, [Family("broken-family", "fails", ("crm",), "train", broken), FAMILIES[0]], 1, seed=3)
    assert made.problems == ["broken-family on acme #0 (seed 3): KeyError: 'no such person'"]
    assert [t["family"] for t in made.tasks] == [FAMILIES[0].id]


def test_the_corpus_setting_reads_on_off_or_a_plan():
    assert plan_of("off") is None and plan_of("on") is not None
    assert plan_of("acme:3,harbor-legal:1").worlds == (("acme", 3), ("harbor-legal", 1))
    with pytest.raises(Invalid, match="'acme' is not WORLD:COUNT"):
        plan_of("acme")


def test_a_catalog_writes_the_corpus_on_its_first_listing_only(monkeypatch):
    calls = []
    catalog = task_catalog(EpisodeStore(), corpus="acme:1")
    writer = catalog._corpus
    monkeypatch.setattr(catalog, "_corpus", lambda: calls.append(1) or writer())
    assert catalog.get("crm-close-globex-renewal").suite == "crm" and not calls   # a written task: no corpus
    assert len(catalog.select(suite="crm")) == len([t for t in catalog.written.values() if t.suite == "crm"])
    assert not calls
    generated = catalog.select(split="train")
    assert calls == [1] and generated and all(t.split == "train" for t in generated)
    catalog.select()
    assert calls == [1]
    assert task_catalog(EpisodeStore(), corpus="off").tasks.keys() == catalog.written.keys()
