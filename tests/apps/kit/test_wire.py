"""Results built in their dumped form (``apps.kit.wire``), and arguments that skip pydantic: both give exactly
what the general path gives."""

import itertools
import json
from datetime import date, datetime, timezone

import pytest
from pydantic import BaseModel, TypeAdapter

from apps.kit import Ctx, Invalid, OperationSet, wire
from apps.kit.wire import Wire
from simulator.store.registry import APPS


class Out(BaseModel):
    n: int
    at: datetime
    score: float | None = None


def test_a_wire_operation_declares_its_argument_and_passes_the_data_through():
    ops = OperationSet("demo")

    @ops.read
    def plain(ctx: Ctx) -> Out:
        """A model."""
        return Out(n=1, at=datetime(2026, 3, 16, tzinfo=timezone.utc))

    @ops.read
    def built(ctx: Ctx) -> Wire[Out]:
        """The same, built dumped."""
        return Wire({"n": 1, "at": "2026-03-16T00:00:00Z", "score": None})

    @ops.read
    def many(ctx: Ctx) -> Wire[list[Out]]:
        """A list, built dumped."""
        return Wire([{"n": 1, "at": "2026-03-16T00:00:00Z", "score": float("nan")}])

    assert ops["built"].result_type is Out and ops["many"].result_type == list[Out]
    assert ops["built"].output_schema == ops["plain"].output_schema and not ops["built"].wrapped
    assert ops["many"].wrapped
    assert ops["built"].dump(built(None)) == ops["plain"].dump(plain(None))
    assert ops["many"].dump(many(None)) == [{"n": 1, "at": "2026-03-16T00:00:00Z", "score": None}]   # NaN still caught


@pytest.mark.parametrize("stored", ["2026-03-16 13:00:00.000000", "2026-03-16 13:00:00.120000",
                                    "2026-03-16 13:00:00.000001", "2026-01-02 03:04:05.123456",
                                    "2026-03-16T13:00:00+00:00", "2026-03-16 13:00:00", "2026-03-16T13:00:00.5"])
def test_a_stored_time_dumps_as_pydantic_dumps_it(stored):
    moment = datetime.fromisoformat(stored)
    moment = moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)
    assert wire.time(stored) == TypeAdapter(datetime).dump_python(moment, mode="json")
    assert wire.time(None) is None


def test_shapes_convert_rows_to_the_dumped_form_and_refuse_what_a_row_cannot_hold():
    class Row(BaseModel):
        flag: bool
        at: datetime | None
        day: date
        name: str
        n: int | None

    spec = wire.shape(Row)
    values = (1, "2026-03-16 13:00:00.000000", "2026-03-16", "x", None)
    model = Row(flag=True, at=datetime(2026, 3, 16, 13, tzinfo=timezone.utc), day=date(2026, 3, 16), name="x", n=None)
    assert json.dumps(wire.row(spec, values)) == json.dumps(model.model_dump(mode="json"))
    assert [name for name, _ in wire.shape(Row, ["n", "flag"])] == ["flag", "n"]   # the model's order
    for annotation in (Out, list[int], int | str):
        with pytest.raises(ValueError, match="no stored form"):
            wire.converter(annotation)


def _argument_sets(op):
    """Arguments to try on ``op``: each parameter missing, given a value of its type, of another type, or None."""
    samples = {int: [3, -1, 2**62, True, "4", 2.0], str: ["text", "", "ünï", 5, None], bool: [True, False, 1, "yes"],
               float: [1.5, 2, "x"]}
    for p in op.params:
        kinds = [k for k in getattr(p.annotation, "__args__", (p.annotation,)) if k is not type(None)]
        for value in [v for k in kinds for v in samples.get(k, [])] + [None]:
            yield {q.name: value if q is p else next(iter(samples.get(q.annotation, [1])))
                   for q in op.params if q.required or q is p}
    yield {}
    yield {"unknown": 1}


def _outcome(op, arguments):
    try:
        taken = op.validate(arguments)
        return json.dumps({name: repr(value) for name, value in taken.items()})   # values, types and order
    except Invalid as exc:
        return json.dumps(exc.to_dict())


def test_plain_arguments_validate_as_pydantic_does_for_every_operation_of_every_app(monkeypatch):
    checked, quick = 0, 0
    for app in APPS.values():
        for op in app.operations:
            if op._plain is None:
                continue
            for arguments in itertools.islice(_argument_sets(op), 60):
                got = _outcome(op, arguments)
                with monkeypatch.context() as patch:
                    patch.setattr(op, "_plain", None)   # the general path: pydantic's model
                    assert got == _outcome(op, arguments), (op.qualified_name, arguments)
                checked += 1
                quick += "type" not in json.loads(got)
    assert checked > 200 and quick > 50
