"""A result's NaN and Infinity become null wherever they stand; results that cannot hold one are not looked at."""

from __future__ import annotations

import json
import math
from typing import Any

from pydantic import BaseModel, Field

from apps.kit import Ctx, OperationSet

NAN, INF = float("nan"), float("inf")


class Line(BaseModel):
    label: str
    amount: float | None = None


class Tree(BaseModel):
    value: float
    children: list[Tree] = []


class Report(BaseModel):
    name: str
    total: float
    lines: list[Line] = []
    extra: dict[str, Any] = {}
    anything: Any = None
    by_key: dict[str, float] = {}
    aliased: float = Field(0.0, serialization_alias="renamed")
    tree: Tree | None = None
    either: Line | Tree | None = None


class Plain(BaseModel):
    id: int
    number: str   # a field named "number" is no number
    tags: list[str]


def _op(result_type):
    ops = OperationSet("demo")

    def read(ctx: Ctx) -> result_type:  # type: ignore[valid-type]
        """Read it."""
    read.__annotations__["return"] = result_type
    ops.read(read)
    return ops["read"]


def test_every_place_a_float_can_stand_is_checked():
    op = _op(Report)
    cases = [
        (Report(name="r", total=NAN), ("total",)),
        (Report(name="r", total=1, lines=[Line(label="a", amount=1.5), Line(label="b", amount=-INF)]), ("lines", 1, "amount")),
        (Report(name="r", total=1, extra={"deep": [{"x": NAN}]}), ("extra", "deep", 0, "x")),
        (Report(name="r", total=1, anything=[1, {"y": INF}]), ("anything", 1, "y")),
        (Report(name="r", total=1, by_key={"k": NAN}), ("by_key", "k")),
        (Report(name="r", total=1, aliased=INF), ("aliased",)),
        (Report(name="r", total=1, tree=Tree(value=1, children=[Tree(value=NAN)])), ("tree", "children", 0, "value")),
        (Report(name="r", total=1, either=Tree(value=INF)), ("either", "value")),
        (Report(name="r", total=1, either=Line(label="x", amount=NAN)), ("either", "amount")),
    ]
    for model, path in cases:
        data = op.dump(model)
        json.dumps(data, allow_nan=False)   # JSON has no NaN: every surface can send it
        at = data
        for part in path:
            at = at[part]
        assert at is None, (path, data)


def test_finite_results_come_back_as_dumped_and_plain_ones_are_never_walked():
    op = _op(Report)
    model = Report(name="r", total=2.5, lines=[Line(label="a", amount=1.0)], extra={"n": 1.5, "s": "x"},
                   by_key={"k": 3.0}, tree=Tree(value=1.0, children=[Tree(value=2.0)]))
    assert op.dump(model) == model.model_dump(mode="json")
    assert all(math.isfinite(v) for v in (op.dump(model)["total"], op.dump(model)["lines"][0]["amount"]))
    plain = _op(Plain)
    assert plain.dump(Plain(id=1, number="7", tags=["a"])) == {"id": 1, "number": "7", "tags": ["a"]}
    assert plain._nonfinite is None   # the first dump made the schema: no float anywhere, so no finder
    listed = _op(list[Line])
    assert listed.dump([Line(label="a", amount=NAN)]) == [{"label": "a", "amount": None}]
