"""Property-based probes: every operation's input schema with hypothesis, the gateway's OpenAPI with schemathesis.

Whatever arrives, the answer is never a 5xx, an error is ``{type, message, field}``, and a refused
call leaves the episode's digest as it was. Examples are bounded so both run in well under a minute.
"""

from __future__ import annotations

import datetime as dt
import json
import math
import types
import typing

import pytest
import schemathesis
from fastapi.testclient import TestClient
from full_world import make_full_world
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel
from schemathesis.core import NotSet
from surfaces import CONTROL

from simulator.gateway.server import build_app
from simulator.store.episodes import EpisodeStore
from simulator.store.registry import all_operations

OPERATIONS = all_operations()
HOSTILE_VALUES = [math.nan, math.inf, -math.inf, 2**63, -(2**63) - 1, 10**30, "\x00", "a\ud800b", "(" * 3000,
                  "%_" * 30_000, "NOT " * 2000, "x" * 100_001, "", -1, 0, 1e308, [], {}]
# Drawn by index so that hypothesis never prints the large ones in its reports.


def hostile(index: int):
    return HOSTILE_VALUES[index]


HOSTILE = st.integers(0, len(HOSTILE_VALUES) - 1).map(hostile)
TEXT = st.text(st.characters(exclude_categories=()), max_size=20)


def values(annotation) -> st.SearchStrategy:
    """Mostly well-typed values for ``annotation``, some hostile ones, some of the wrong type."""
    return st.one_of(typed(annotation), typed(annotation), typed(annotation), HOSTILE, st.none(), TEXT)


def typed(annotation) -> st.SearchStrategy:
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin in (typing.Union, types.UnionType):
        return st.one_of(*(typed(a) for a in args))
    if origin is typing.Literal:
        return st.sampled_from(args)
    if origin is list:
        return st.lists(values(args[0]), max_size=3)
    if origin is dict:
        return st.dictionaries(TEXT, values(args[1]), max_size=3)
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        fields = annotation.model_fields
        return st.fixed_dictionaries({n: values(f.annotation) for n, f in fields.items() if f.is_required()},
                                     optional={n: values(f.annotation) for n, f in fields.items()
                                               if not f.is_required()})
    simple = {bool: st.booleans(), int: st.integers(min_value=-3, max_value=12) | st.integers(),
              float: st.floats(), str: TEXT, type(None): st.none(),
              dt.date: st.dates().map(str) | TEXT, dt.datetime: st.datetimes().map(dt.datetime.isoformat) | TEXT}
    return simple.get(annotation, st.nothing())


def arguments(op) -> st.SearchStrategy:
    required = {p.name: values(p.annotation) for p in op.params if p.required}
    optional = {p.name: values(p.annotation) for p in op.params if not p.required}
    return st.fixed_dictionaries(required, optional={**optional, "unexpected": TEXT})


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    root = tmp_path_factory.mktemp("fuzz")
    store = EpisodeStore(cache_dir=root / "cache")
    with TestClient(build_app(store), base_url="http://localhost:8000", headers=CONTROL) as api:
        episode = api.post("/v1/episodes", json={"world": str(make_full_world(root / "worlds"))}).json()
        yield api, episode


def assert_error_shape(response) -> None:
    assert response.status_code < 500, response.text
    if response.status_code >= 400:
        error = response.json()["error"]
        assert set(error) == {"type", "message", "field"} and error["message"]
        if response.status_code == 422:
            assert error["field"], error


@pytest.mark.parametrize("op", OPERATIONS, ids=[op.qualified_name for op in OPERATIONS])
@settings(max_examples=4, deadline=None, database=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_every_operation_answers_any_input_without_a_5xx(world, op, data):
    api, episode = world
    body = json.dumps(data.draw(arguments(op)))  # json writes NaN/Infinity and escapes lone surrogates
    before = api.get(f"/v1/episodes/{episode['id']}/digest").json()["digest"]
    response = api.post(f"/episodes/{episode['id']}/api/{op.app}/{op.name}", content=body,
                        headers={"content-type": "application/json"})
    assert_error_shape(response)
    if response.status_code >= 400:
        assert api.get(f"/v1/episodes/{episode['id']}/digest").json()["digest"] == before


# The document only: building it opens no episode and compiles no world.
SCHEMA = schemathesis.openapi.from_dict(build_app(EpisodeStore()).api.openapi()).include(
    path_regex=r"^/episodes/\{episode_id\}/api/")


@SCHEMA.parametrize()
@settings(max_examples=2, deadline=None, database=None, suppress_health_check=list(HealthCheck))
def test_the_gateway_openapi_holds_under_schemathesis(case, world):
    api, episode = world
    case.path_parameters = {"episode_id": episode["id"]}
    before = api.get(f"/v1/episodes/{episode['id']}/digest").json()["digest"]
    # Sent through the module's client (not case.call) so that every case acts in the one open episode.
    if isinstance(case.body, NotSet):
        body = b""
    elif isinstance(case.body, (bytes, bytearray)):  # negative cases: bodies that are not JSON at all
        body = bytes(case.body)
    else:
        body = json.dumps(case.body).encode()
    response = api.request(case.method, case.formatted_path, content=body, headers={"content-type": "application/json"})
    assert_error_shape(response)
    if response.status_code >= 400:
        assert api.get(f"/v1/episodes/{episode['id']}/digest").json()["digest"] == before
