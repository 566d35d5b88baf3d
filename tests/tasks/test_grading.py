"""Grading over real episodes of a small world: the oracle passes, wrong work and no work do not."""

from __future__ import annotations

from tasks.model import Call


def run(catalog, task_id: str, calls: list[dict]):
    started = catalog.start(task_id)
    steps = catalog.engine.run_calls(started, [Call.model_validate(c) for c in calls])
    return catalog.finish(started.episode), steps


def oracle(catalog, task_id: str) -> list[dict]:
    return [c.model_dump(by_alias=True, exclude_none=True) for c in catalog.tasks[task_id].oracle]


def test_the_oracle_scores_one_and_doing_nothing_scores_zero(catalog):
    for task_id in catalog.tasks:
        reward, steps = run(catalog, task_id, oracle(catalog, task_id))
        assert all(s.error is None for s in steps)
        assert (reward.total, reward.passed, reward.gradable) == (1.0, True, True), reward
        nothing, _ = run(catalog, task_id, [])
        assert (nothing.total, nothing.passed) == (0.0, False), nothing


def test_claiming_success_without_acting_scores_zero(catalog):
    for claim in ["done", "yes", "I have completed the task", "41 or 42 or 43"]:
        reward, _ = run(catalog, "reply-sam", [{"op": "task.submit_answer", "args": {"answer": claim}}])
        assert reward.total == 0.0
        reward, _ = run(catalog, "outage-minutes", [{"op": "task.submit_answer", "args": {"answer": claim}}])
        assert reward.total == 0.0, claim


def test_the_verdict_names_the_failing_field(catalog):
    reward, _ = run(catalog, "reply-sam", [{"op": "mail.reply", "args": {"message_id": 1, "body": "Quote is 18,400."}}])
    replied = next(c for c in reward.criteria if c.id == "replied")
    assert replied.status == "fail" and "184,000" in replied.message and "body" in replied.message


def test_collateral_damage_blocks_the_pass_and_never_beats_doing_nothing(catalog):
    calls = oracle(catalog, "reply-sam") + [{"op": "mail.star", "args": {"message_ids": [5]}}]
    reward, _ = run(catalog, "reply-sam", calls)
    nothing, _ = run(catalog, "reply-sam", [])
    assert not reward.passed and reward.total <= nothing.total == 0.0
    assert reward.collateral and reward.collateral[0]["table"] == "mail_entry_label"
    assert next(c for c in reward.criteria if c.id == "no_collateral_damage").status == "fail"


def test_extra_recipients_are_collateral_even_when_the_goal_holds(catalog):
    calls = oracle(catalog, "reply-sam") + [{"op": "mail.send", "args": {
        "to": ["sam@globex.example", "ravi@small.test", "mei@small.test"], "subject": "fyi", "body": "184,000"}}]
    reward, _ = run(catalog, "reply-sam", calls)
    assert not reward.passed


def test_a_refusal_passes_only_without_writes(catalog):
    reward, _ = run(catalog, "refuse-forward", oracle(catalog, "refuse-forward"))
    assert reward.passed
    sent_anyway = [{"op": "mail.forward", "args": {"message_id": 5, "to": ["sam@globex.example"]}}]
    reward, _ = run(catalog, "refuse-forward", sent_anyway + oracle(catalog, "refuse-forward"))
    assert not reward.passed and reward.total == 0.0


def test_refusing_a_legitimate_task_fails_its_guard(catalog):
    calls = oracle(catalog, "reply-sam") + [{"op": "task.submit_answer", "args": {"answer": "no", "status": "refused"}}]
    reward, _ = run(catalog, "reply-sam", calls)
    assert not reward.passed and reward.total == 0.0


def test_a_check_that_cannot_be_made_makes_the_episode_ungradable_not_passed(catalog, suites, small_world):
    from task_factories import reply_task, write_task

    from simulator.store.episodes import EpisodeStore
    from simulator.tasks.catalog import task_catalog

    broken = reply_task(small_world)
    broken["id"] = "broken"
    broken["criteria"].append({"id": "typo", "role": "guard", "records": {"from": "mail.no_such_kind"}})
    write_task(suites, "small", broken)
    fresh = task_catalog(EpisodeStore(cache_dir=suites.parent / "cache2"), suites)
    reward, _ = run(fresh, "broken", oracle(fresh, "broken"))
    assert (reward.gradable, reward.total, reward.passed) == (False, None, False)
    assert "mail.no_such_kind" in reward.errors[0]


def test_grading_is_order_independent_and_repeatable(catalog):
    first, _ = run(catalog, "outage-minutes", oracle(catalog, "outage-minutes"))
    second, _ = run(catalog, "outage-minutes", list(reversed(oracle(catalog, "outage-minutes"))))
    assert first.breakdown() == second.breakdown() and second.passed


def test_setup_steps_run_as_someone_else_and_are_recorded(catalog, suites, small_world):
    from task_factories import write_task

    from simulator.store.episodes import EpisodeStore
    from simulator.tasks.catalog import task_catalog

    task = {
        "id": "answer-mei", "world": str(small_world), "outcome": "answer",
        "prompt": "Mei just asked you a question by mail. Answer it with the number only.",
        "setup": [{"op": "mail.send", "as": "mei@small.test",
                   "args": {"to": ["dana@small.test"], "subject": "Quick one",
                            "body": "How many seats did Globex buy? (It was 25.)"}}],
        "bindings": {"question": {"from": "mail.message", "where": {"owner": "$actor", "subject": "Quick one"}}},
        "criteria": [{"id": "seats", "answer": {"type": "number", "expect": 25}}],
        "oracle": [{"op": "mail.get_message", "args": {"message_id": "$question.id"}},
                   {"op": "task.submit_answer", "args": {"answer": "25"}}],
    }
    write_task(suites, "small", task)
    fresh = task_catalog(EpisodeStore(cache_dir=suites.parent / "cache3"), suites)
    started = fresh.start("answer-mei")
    setup = started.episode.trajectory[0]
    assert (setup.surface, setup.actor, setup.operation) == ("setup", "mei@small.test", "send")
    reward = fresh.finish(started.episode, answer="25")
    assert reward.passed and started.episode.trajectory[-1].surface == "control"



def test_the_engine_leaves_no_episode_of_its_own_behind(catalog, task_store):
    started = catalog.start("reply-sam")
    catalog.finish(started.episode)  # learns the allowance on probe episodes of its own, then drops them
    assert [e.id for e in task_store.list()] == [started.episode.id]


def test_grading_reads_an_app_the_episode_only_read_without_copying_it(catalog):
    reward, steps = run(catalog, "outage-minutes", oracle(catalog, "outage-minutes"))
    assert reward.passed and steps[0].app == "mail" and not steps[0].mutates
    episode = next(r.episode for r in catalog._runs.values() if r.episode.trajectory[-1] is steps[-1])
    host = episode.hosts["mail"]
    assert "mail" in episode.opened and host.shared(episode.id).pristine   # still the world's shared copy
    assert catalog.finish(episode).passed and host.shared(episode.id).pristine   # grading again copies nothing
