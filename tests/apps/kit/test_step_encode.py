"""A step's result is written by orjson where it writes what pydantic-core wrote, byte for byte, and by pydantic-core
for the rest (``apps/kit/trajectory.encode``)."""

import dataclasses
import enum
import json
import uuid
from datetime import date, datetime, time, timedelta, timezone

import pydantic_core
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from apps.kit.trajectory import _decoded, encode


def _as_before(content):
    try:
        return pydantic_core.to_json(content, inf_nan_mode="null")
    except Exception as exc:   # noqa: BLE001  (the kind of refusal is compared)
        return type(exc)


def _now(content):
    try:
        return encode(content)
    except Exception as exc:   # noqa: BLE001
        return type(exc)


_json = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-2**70, max_value=2**70) | st.floats()
    | st.text(st.characters(codec=None)),   # every code point: control characters, U+2028, lone surrogates
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=25)


@settings(max_examples=2000, deadline=None)
@given(_json)
def test_json_data_is_written_as_pydantic_core_wrote_it(content):
    assert _now(content) == _as_before(content)


@settings(max_examples=300, deadline=None)
@given(st.floats(allow_nan=True, allow_infinity=True))
def test_every_float_alone_and_as_a_record_field(number):
    for content in (number, {"amount": number}, [number, -number]):
        assert encode(content) == _as_before(content)


@settings(max_examples=1000, deadline=None)
@given(_json)
def test_kept_json_is_read_back_as_json_loads_reads_it(content):
    """``step.result`` decodes with pydantic-core: the same values of the same types as ``json.loads`` (``repr`` tells
    1 from 1.0 and -0.0 from 0.0), big integers and every float included."""
    try:
        kept = encode(content)
    except Exception:   # noqa: BLE001  (not kept as bytes: nothing is decoded)
        return
    assert repr(_decoded(kept)) == repr(json.loads(kept))


def test_what_pydantic_core_refuses_to_read_is_read_by_json_loads():
    deep = b"[" * 300 + b"]" * 300   # deeper than pydantic-core's nesting limit
    assert _decoded(deep) == json.loads(deep)
    assert _decoded(b'"\\ud800"') == "\ud800"   # a lone surrogate's escape (the kit never keeps one, a file might)


class Stage(str, enum.Enum):
    OPEN = "open"


class Level(enum.IntEnum):
    HIGH = 1


class Tag(str):
    pass


class Count(int):
    pass


class Ratio(float):
    pass


@dataclasses.dataclass
class Point:
    x: int
    at: datetime


class Record(BaseModel):
    name: str
    at: datetime


_UTC = timezone.utc
ODD = [
    2**64, -2**63 - 1, {1: "a"}, {None: 1}, {True: 1}, {1.5: 2}, (1, [2, (3,)]), {"s": {1, 2}},
    datetime(2026, 12, 2, 15, 4, 5, 123456, tzinfo=_UTC), datetime(2026, 12, 2, 15, 4, 5),
    datetime(2026, 1, 1, tzinfo=timezone(timedelta(hours=-5))), date(2026, 12, 2), time(9, 30), timedelta(days=1, seconds=5),
    Stage.OPEN, Level.HIGH, {"stage": Stage.OPEN}, Tag("x"), {"t": Tag("y")}, Count(3), Ratio(0.5), [Ratio(1e16)],
    uuid.UUID(int=7), Point(1, datetime(2026, 1, 1, tzinfo=_UTC)), Record(name="n", at=datetime(2026, 1, 1, tzinfo=_UTC)),
    b"bytes", bytearray(b"b"), "\ud800", {"\udc00": 1}, float("nan"), [float("-inf")], -0.0, 5e-324,
    "é\u2028\u2029</script>\x00\x1f\x7f\U0001F600",
]


@pytest.mark.parametrize("content", ODD, ids=[type(c).__name__ + str(i) for i, c in enumerate(ODD)])
def test_what_orjson_would_refuse_or_write_its_own_way_is_written_as_before(content):
    assert _now(content) == _as_before(content)
