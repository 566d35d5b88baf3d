"""The invoker's own calls are not walked for NaN and Infinity: the step's encoding writes them ``null``, so
what a step keeps (and every surface answers) is byte for byte what ``Operation.dump``'s result encodes to,
while the host's ordinary call (the app service's) still returns them as ``None``."""

import json
import math

from apps.kit.invoker import invoke
from apps.kit.trajectory import Step, encode, kept
from apps.kit.wire import Wire

NAN, INF = float("nan"), float("inf")


def test_a_non_finite_result_is_recorded_as_dump_makes_it_and_the_host_call_still_cleans_it(store, monkeypatch):
    episode = store.create("acme")
    op = store.apps["crm"].operations["get_opportunity"]
    real = invoke(episode, op, {"opportunity_id": 1}, "python").result
    assert isinstance(real["amount"], float) and real["history"]
    broken = {**real, "amount": NAN, "history": [{**real["history"][0], "extra": [INF, {"x": -INF}]}]}
    monkeypatch.setattr(op, "fn", lambda ctx, opportunity_id: Wire(broken))
    step = invoke(episode, op, {"opportunity_id": 1}, "python")
    assert step.error is None and step.result_json == encode(op.dump(Wire(broken)))
    assert step.result["amount"] is None and step.result["history"][0]["extra"] == [None, {"x": None}]
    assert list(step.result) == list(real)   # the fields in their order
    host = episode.host("crm")
    outcome = host.call(episode.id, op, {"opportunity_id": 1}, episode.actor, episode.clock.now())
    json.dumps(outcome.result, allow_nan=False)   # what the app service answers with is JSON
    assert outcome.result == step.result
    raw = host.call(episode.id, op, {"opportunity_id": 1}, episode.actor, episode.clock.now(), finite=False)
    assert math.isnan(raw.result["amount"])   # the invoker's call: left for the step's encoding


def test_a_result_that_cannot_be_encoded_is_kept_with_its_non_finite_numbers_as_none():
    class Odd:
        pass

    odd = Odd()
    assert kept({"a": NAN, "b": [INF, odd]}) == {"a": None, "b": [None, odd]}
    step = Step.model_construct(result={"n": NAN}, index=0)
    assert step.result == {"n": None} and step.result_json == b'{"n":null}'
