"""Results built in their dumped form (``apps.kit.wire``), and arguments that skip pydantic: both give exactly
what the general path gives."""

import itertools
import json
import typing
from datetime import date, datetime, timezone

import pytest
from pydantic import BaseModel, TypeAdapter

from apps.kit import Ctx, Invalid, OperationSet, wire
from apps.kit.limits import recordable
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


def test_a_shape_converts_a_row_as_the_pairs_do_whatever_it_holds():
    class Row(BaseModel):
        flag: bool | None
        at: datetime | None
        name: str
        day: date | None

    spec = wire.shape(Row)
    pairs = tuple(spec)   # a plain tuple of the same pairs: the general comprehension
    rows = [(1, "2026-03-16 13:00:00.000000", "x", "2026-03-16"), (0, None, "y", None),
            (None, "2026-03-16 13:00:00.250000", "", "2026-03-17"),
            (1, "2026-03-16T13:00:00+02:00", "z", "2026-03-18", "an extra column", 7)]
    for values in rows:
        got = wire.row(spec, values)
        assert json.dumps(got) == json.dumps(wire.row(pairs, values)) and list(got) == ["flag", "at", "name", "day"]
    assert wire.row(spec, rows[0]) == Row(flag=True, at=datetime(2026, 3, 16, 13, tzinfo=timezone.utc), name="x",
                                          day=date(2026, 3, 16)).model_dump(mode="json")
    assert wire.row(spec, (1, None)) == {"flag": True, "at": None}   # a short row: as zip leaves it


def _argument_sets(op):
    """Arguments to try on ``op``: each parameter missing, given a value of its type, of another type, or None."""
    # Values past ``limits`` too: the plain path must refuse them as the general one does, naming the field.
    samples: dict = {int: [3, -1, 2**62, True, "4", 2.0, 2**63, -(2**63) - 1],
                     str: ["text", "", "ünï", 5, None, "a\x00b", "x\ud800", "y" * (op.text_limit + 1)],
                     bool: [True, False, 1, "yes"], float: [1.5, 2, "x", float("nan"), float("-inf")]}
    for item in (int, str, bool, float):   # lists: empty, of the item's type, mixed, a tuple, bare, one other
        good = [v for v in samples[item] if type(v) is item]
        samples[list[item]] = [[], good, [*good, *samples[item]], tuple(good), good[0], [[good[0]]],
                               *([v] for v in samples[item] if type(v) is not item)]
    for p in op.params:
        kinds = [k for k in getattr(p.annotation, "__args__", (p.annotation,)) if k is not type(None)]
        kinds = [p.annotation] if typing.get_origin(p.annotation) is list else kinds
        for value in [v for k in kinds for v in samples.get(k, [])] + [None]:
            yield {q.name: value if q is p else next(iter(samples.get(q.annotation, [1])))
                   for q in op.params if q.required or q is p}
    yield {}
    yield {"unknown": 1}


def _outcome(op, arguments):
    try:
        taken, recorded = op.accept(arguments)
        # What a step records of plain arguments is what ``recordable`` makes of them: equal, and copied.
        assert recorded is None or (recorded == recordable(arguments, op.text_limit) and recorded is not arguments
                                    and all(v is not arguments[k] for k, v in recorded.items() if type(v) is list))
        assert all(v is not arguments[k] for k, v in taken.items() if type(v) is list)   # a list is a new one
        return json.dumps({name: repr(value) for name, value in taken.items()})   # values, types and order
    except Invalid as exc:
        return json.dumps(exc.to_dict())


def _compare(op, patch) -> tuple[int, int, int]:
    """Each argument set through the plain path and through pydantic's model: (sets, taken, lists among them)."""
    checked, quick, listed = 0, 0, 0
    for arguments in itertools.islice(_argument_sets(op), 80):
        got = _outcome(op, arguments)
        with patch.context() as inner:
            inner.setattr(op, "_plain", None)   # the general path: pydantic's model
            assert got == _outcome(op, arguments), (op.qualified_name, arguments)
        checked += 1
        quick += "type" not in json.loads(got)
        listed += "type" not in json.loads(got) and any(type(v) is list for v in arguments.values())
    return checked, quick, listed


def test_plain_arguments_validate_as_pydantic_does_for_every_operation_of_every_app(monkeypatch):
    checked, quick, listed = 0, 0, 0
    for app in APPS.values():
        for op in app.operations:
            if op._plain is not None:
                found = _compare(op, monkeypatch)
                checked, quick, listed = checked + found[0], quick + found[1], listed + found[2]
    assert checked > 200 and quick > 50 and listed > 20


def test_plain_numbers_and_lists_of_every_kind_validate_as_pydantic_does(monkeypatch):
    ops = OperationSet("demo")

    @ops.read
    def plain(ctx: Ctx, x: float, flags: list[bool], xs: list[float] | None = None, tags: list[str] | None = None,
              n: int | None = 3) -> int:
        """Plain arguments of every kind.

        Args:
            x: A number.
            flags: Flags.
            xs: Numbers.
            tags: Texts.
            n: A count.
        """
        return 0

    op = ops["plain"]
    assert op._plain is not None
    checked, quick, listed = _compare(op, monkeypatch)
    assert checked > 40 and quick > 5 and listed > 3
