"""Evidence criteria: an answer that cites the records it rests on (``[kind#id]``) passes only when each cited
record exists, was read by the agent, and shows the numbers the answer states; the viewer links the steps
that read them."""

from __future__ import annotations

import pytest
import yaml
from gui_world import make_gui_world

from simulator.store.episodes import EpisodeStore
from simulator.tasks.catalog import task_catalog
from simulator.trajectories.files import read
from simulator.viewer.episode import episode_view
from tasks.model import Call

SEARCH = {"op": "mail.search", "args": {"query": "outage"}}


@pytest.fixture(scope="module")
def catalog(tmp_path_factory):
    root = tmp_path_factory.mktemp("evidence")
    world = make_gui_world(root / "worlds")
    task = {"id": "outage-cited", "world": str(world), "outcome": "answer",
            "prompt": "How many minutes did the Initech dashboard outage last? Cite the email as [mail.message#id].",
            "criteria": [{"id": "minutes", "answer": {"type": "number", "expect": 42}},
                         {"id": "cited", "role": "diagnostic", "weight": 0, "trajectory": {"evidence": True}}],
            "oracle": [SEARCH, {"op": "task.submit_answer", "args": {"answer": "42"}}]}
    seen = {"id": "outage-seen", "world": str(world), "outcome": "answer",
            "prompt": "How many minutes did the Initech dashboard outage last? Describe what you see first.",
            "criteria": [{"id": "minutes", "answer": {"type": "number", "expect": 42}},
                         {"id": "saw", "role": "perception", "perception": {}}],
            "oracle": [SEARCH, {"op": "task.describe_view", "args": {"description": "42 minutes"}},
                       {"op": "task.submit_answer", "args": {"answer": "42"}}]}
    (root / "suites" / "e").mkdir(parents=True)
    (root / "suites" / "e" / "outage-cited.yaml").write_text(yaml.safe_dump(task))
    (root / "suites" / "e" / "outage-seen.yaml").write_text(yaml.safe_dump(seen))
    store = EpisodeStore(cache_dir=root / "cache", trajectory_dir=root / "trajectories", idle_timeout=None)
    yield task_catalog(store, root / "suites"), store


def answer(catalog, calls: list[dict], text, task: str = "outage-cited", criterion: str = "cited"):
    """Run ``calls``, then answer ``text`` (a function of the steps so far, for the ids they returned); the
    criterion ``criterion``, and the trajectory file (or, for a perception, the reward)."""
    catalog, store = catalog
    episode = store.create(catalog.get(task).world, task=catalog.get(task))
    run = catalog.start(task, episode=episode)
    steps = catalog.engine.run_calls(run, [Call.model_validate(c) for c in calls])
    catalog.engine.run_calls(run, [Call.model_validate({"op": "task.submit_answer", "args": {"answer": text(steps)}})])
    reward = catalog.finish(episode)
    store.finished(episode, reward)
    store.delete(episode.id)
    graded = next(c for c in reward.criteria if c.id == criterion)
    return graded, (reward if task == "outage-seen" else store.trajectory_dir / f"{episode.id}.jsonl")


def outage_id(steps) -> int:
    return next(m["id"] for m in steps[0].result["messages"] if "outage" in m["subject"].lower())


def test_a_cited_record_that_was_read_and_shows_the_figure_passes_and_the_viewer_links_its_read(catalog):
    cited, path = answer(catalog, [SEARCH], lambda steps: f"42 minutes [mail.message#{outage_id(steps)}]")
    assert (cited.status, cited.score) == ("pass", 1.0), cited.message
    view = episode_view(read(path), diffs=False)
    search = next(sv.step.index for sv in view.steps if sv.step.operation == "search")
    assert search in view.citations["cited"]


def test_an_unread_a_missing_an_unsupporting_or_no_citation_fails(catalog):
    _, path = answer(catalog, [SEARCH], lambda steps: "42")
    real = next(m["id"] for m in read(path).steps[0].result["messages"] if "outage" in m["subject"].lower())
    unread, _ = answer(catalog, [], lambda steps: f"42 minutes [mail.message#{real}]")
    assert unread.status == "fail" and "was never read" in unread.message and unread.score == 0.0
    missing, _ = answer(catalog, [SEARCH], lambda steps: f"42 [mail.message#{outage_id(steps)}] [mail.message#999999]")
    assert missing.status == "fail" and "999999 does not exist" in missing.message and missing.score == 0.5
    wrong, _ = answer(catalog, [SEARCH], lambda steps: f"43 minutes [mail.message#{outage_id(steps)}]")
    assert wrong.status == "fail" and "do not show [43.0]" in wrong.message and wrong.score == 0.0
    bare, _ = answer(catalog, [SEARCH], lambda steps: "42 minutes")
    assert bare.status == "fail" and "cites no record" in bare.message
    odd, _ = answer(catalog, [SEARCH], lambda steps: "42 [nosuch.kind#4]")
    assert odd.status == "fail" and "does not exist" in odd.message


def described(catalog, description: str | None, read: bool = True):
    calls = ([SEARCH] if read else []) + ([{"op": "task.describe_view", "args": {"description": description}}]
                                         if description is not None else [])
    return answer(catalog, calls, lambda steps: "42", task="outage-seen", criterion="saw")


def test_a_description_of_what_was_read_that_holds_the_answer_scores_perception_without_moving_the_reward(catalog):
    saw, reward = described(catalog, "The Initech outage email: the dashboard was down for 42 minutes.")
    assert (saw.status, saw.role, saw.weight) == ("pass", "perception", 0.0), saw.message
    assert (reward.total, reward.passed, reward.perception) == (1.0, True, 1.0)


def test_a_description_that_invents_omits_copies_the_prompt_or_comes_before_reading_scores_zero(catalog):
    invented, reward = described(catalog, "The outage lasted 42 minutes and cost 7,300 dollars.")
    assert invented.status == "fail" and "7300" in invented.message and reward.perception == 0.0
    assert reward.passed   # the answer still earns its reward; perception is reported beside it
    omitted, _ = described(catalog, "An email from Initech about the dashboard outage.")
    assert omitted.status == "fail" and "lacks [42]" in omitted.message
    copied, _ = described(catalog, "How many minutes did the Initech dashboard outage last?")
    assert copied.status == "fail" and "repeats the prompt" in copied.message
    unread, _ = described(catalog, "The dashboard was down for 42 minutes.", read=False)
    assert unread.status == "fail" and "no earlier read showed" in unread.message
    none, reward = described(catalog, None)
    assert none.status == "fail" and reward.perception == 0.0


def test_the_viewer_shows_the_perception_score_and_links_the_description(catalog):
    from simulator.viewer.render import page

    _, store = catalog
    before = set(store.trajectory_dir.glob("*.jsonl"))
    described(catalog, "The Initech outage email: the dashboard was down for 42 minutes.")
    (path,) = set(store.trajectory_dir.glob("*.jsonl")) - before
    view = episode_view(read(path), diffs=False)
    describe = next(sv.step.index for sv in view.steps if sv.step.operation == "describe_view")
    assert view.citations["saw"] == [describe]
    html = page("one", [view.file], [view])
    assert "perception <b>1.0</b>" in html and f'href="#e-{view.id}-s-{describe}"' in html


def test_the_evidence_score_is_reported_beside_the_reward_and_the_viewer_shows_it(catalog):
    from simulator.viewer.render import page

    _, path = answer(catalog, [SEARCH], lambda steps: f"42 minutes [mail.message#{outage_id(steps)}]")
    graded = read(path).footer.reward
    assert (graded["evidence"], graded["perception"]) == (1.0, None)
    _, path = answer(catalog, [SEARCH], lambda steps: f"42 [mail.message#{outage_id(steps)}] [mail.message#999999]")
    graded = read(path).footer.reward
    assert graded["evidence"] == 0.5 and [c["kind"] for c in graded["criteria"] if c["id"] == "cited"] == ["evidence"]
    view = episode_view(read(path), diffs=False)
    assert "evidence <b>0.5</b>" in page("one", [view.file], [view])
