"""Operations are checked at definition: no docstring, no argument description, no types, no entry."""

import pytest
from pydantic import BaseModel

from apps.kit import Ctx, OperationDefinitionError, OperationSet


class Out(BaseModel):
    n: int


def test_a_documented_operation_yields_every_schema():
    ops = OperationSet("demo")

    @ops.write
    def bump(ctx: Ctx, by: int = 1, tags: list[str] = []) -> Out:
        """Raise the counter.

        Longer explanation.

        Args:
            by: How much to add.
            tags: Labels for the change,
                spanning two lines.
        """

    op = ops["bump"]
    assert op.qualified_name == "demo_bump" and op.mutates and op.summary == "Raise the counter."
    props = op.input_schema()["properties"]
    assert props["by"]["description"] == "How much to add."
    assert props["tags"]["description"] == "Labels for the change, spanning two lines."
    assert "ctx" not in props
    assert op.output_schema["properties"]["n"]["type"] == "integer" and not op.wrapped
    assert op.openai_tool()["function"]["name"] == "demo_bump"
    assert op.validate({"by": 3}) == {"by": 3, "tags": []}


def test_list_results_are_wrapped_for_structured_output():
    ops = OperationSet("demo")

    @ops.read
    def many(ctx: Ctx) -> list[Out]:
        """List them."""

    op = ops["many"]
    assert op.wrapped and op.output_schema["required"] == ["result"]
    assert op.structured([{"n": 1}]) == {"result": [{"n": 1}]}


@pytest.mark.parametrize("source, message", [
    ("def f(ctx, x: int) -> Out:\n    pass", "needs a docstring"),
    ('def f(ctx, x: int) -> Out:\n    """Do it."""', "'x' is not described"),
    ('def f(ctx, x) -> Out:\n    """Do it.\n\n    Args:\n        x: A thing.\n    """', "needs a type annotation"),
    ('def f(ctx, x: int):\n    """Do it.\n\n    Args:\n        x: A thing.\n    """', "needs a return annotation"),
    ('def f(ctx) -> Out:\n    """Do it.\n\n    Args:\n        y: Ghost.\n    """', "unknown argument"),
    ('def f(ctx, *xs: int) -> Out:\n    """Do it.\n\n    Args:\n        xs: Many.\n    """', "not allowed"),
])
def test_incomplete_definitions_fail_at_import(source, message):
    namespace = {"Out": Out}
    exec(source, namespace)
    with pytest.raises(OperationDefinitionError, match=message):
        OperationSet("demo").read(namespace["f"])


def test_bad_arguments_name_the_field():
    ops = OperationSet("demo")

    @ops.read
    def get(ctx: Ctx, item_id: int) -> Out:
        """Get one.

        Args:
            item_id: Which one.
        """

    from apps.kit import Invalid

    with pytest.raises(Invalid) as missing:
        ops["get"].validate({})
    assert missing.value.field == "item_id"
    with pytest.raises(Invalid) as wrong:
        ops["get"].validate({"item_id": "seven"})
    assert wrong.value.field == "item_id" and "integer" in wrong.value.message
    with pytest.raises(Invalid) as extra:
        ops["get"].validate({"item_id": 1, "zap": 2})
    assert extra.value.field == "zap"


class Inner(BaseModel):
    x: float


def test_schemas_are_made_once_and_handed_out_as_copies(monkeypatch):
    """The input schema is built from the model once (another ref template rewrites its references);
    every caller gets its own copy (the catalogue, MCP and OpenAPI each take one, OpenAPI's is changed)."""
    ops = OperationSet("demo")

    @ops.read
    def nest(ctx: Ctx, inner: Inner, many: list[Inner] = []) -> list[Inner]:
        """Nest.

        Args:
            inner: One.
            many: Several.
        """

    op = ops["nest"]
    model = op.input_model
    template = "#/components/schemas/{model}"
    assert op.input_schema() == model.model_json_schema()
    assert op.input_schema(template) == model.model_json_schema(ref_template=template)
    other = model.model_json_schema(ref_template="#/other/{model}/x")
    assert op.output_schema["$defs"]["Inner"]["properties"]["x"]["type"] == "number" and op.wrapped
    assert op.dump([Inner(x=float("nan"))]) == [{"x": None}]   # the result's float is still looked at

    def no_building(*args, **kwargs):
        raise AssertionError("the schema was built again")

    monkeypatch.setattr(model, "model_json_schema", no_building)
    first = op.input_schema()
    first["properties"].clear()
    first.pop("$defs")
    assert op.input_schema()["properties"]["inner"]["$ref"] == "#/$defs/Inner"
    assert op.input_schema(template)["properties"]["inner"]["$ref"] == "#/components/schemas/Inner"
    assert op.input_schema("#/other/{model}/x") == other   # another template: the references rewritten
