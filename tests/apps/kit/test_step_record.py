"""``Step.built`` makes what ``model_construct`` makes, so a recorded step is the same step."""

from datetime import datetime, timezone

from apps.kit.trajectory import Step, Trajectory

NOW = datetime(2026, 3, 16, 9, 30, tzinfo=timezone.utc)
FIELDS = dict(index=3, surface="mcp", app="mail", operation="star", actor=None, arguments={"message_ids": [1, 2]},
              result={"updated": [1, 2]}, error=None, mutates=True, state_changed=True, virtual_time=NOW,
              wall_time=NOW, duration_ms=0.125, requested_by=None, cause=None)


def test_built_equals_model_construct_in_every_way_a_step_is_read():
    built, constructed = Step.built(**FIELDS), Step.model_construct(**FIELDS)
    assert built == constructed and built.__dict__ == constructed.__dict__
    assert built.model_fields_set == constructed.model_fields_set == set(FIELDS)
    assert built.model_dump_json() == constructed.model_dump_json()
    assert built.model_dump(exclude_unset=True) == constructed.model_dump(exclude_unset=True)
    assert Step.model_validate_json(built.model_dump_json()) == built
    assert built.model_copy(update={"index": 4}).index == 4 and built.index == 3
    assert built.tool == "mail_star"
    episode = type("E", (), {"id": "e1", "world": type("W", (), {"name": "acme"})(), "actor": "a@x.test",
                             "trajectory": [built]})()
    assert Trajectory.of(episode).model_dump()["steps"][0] == constructed.model_dump()


def test_the_invokers_complete_step_is_the_built_step():
    complete = Step.complete(dict(FIELDS))
    assert complete == Step.built(**FIELDS) and complete.__dict__ == Step.model_construct(**FIELDS).__dict__
    assert complete.model_fields_set == set(FIELDS) and complete.model_dump_json() == Step.built(**FIELDS).model_dump_json()


def test_an_invoked_step_holds_every_field_in_order(store, world_dir):
    from apps.kit.invoker import invoke
    step = invoke(store.create(str(world_dir)), store.apps["mail"].operations["get_message"], {"message_id": 1}, "rest")
    assert list(step.__dict__) == list(Step.model_fields) and step.model_fields_set == set(Step.model_fields)
    assert step == Step.model_construct(**step.__dict__) and Step.model_validate_json(step.model_dump_json()) == step


def test_a_step_missing_a_field_is_built_as_model_construct_builds_it():
    partial = {k: v for k, v in FIELDS.items() if k != "requested_by"}
    built = Step.built(**partial)
    assert built.requested_by is None and built.model_fields_set == set(partial)
    assert built == Step.model_construct(**partial)
