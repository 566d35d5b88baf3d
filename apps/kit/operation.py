"""Operations: one typed, documented function per app action, from which every surface is derived.

An operation's first parameter is the injected ``Ctx`` (hidden from every schema); the rest are its
arguments, each described in the docstring's ``Args:`` section. Its return annotation is its result
schema. ``OperationSet.read`` and ``OperationSet.write`` register one and check it at import: a
missing docstring, argument description or annotation raises ``OperationDefinitionError``.
"""

from __future__ import annotations

import inspect
import json
import math
import types
import typing
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

from pydantic import BaseModel, ConfigDict, TypeAdapter, ValidationError, create_model
from pydantic import Field as PydanticField
from pydantic.json_schema import DEFAULT_REF_TEMPLATE

from apps.kit import docstrings, limits, nonfinite
from apps.kit.entity import spread
from apps.kit.errors import Invalid
from apps.kit.wire import Wire

_PLAIN = (int, str, bool, float)   # argument types a value of exactly that type passes unchanged

_DEFS = DEFAULT_REF_TEMPLATE.split("{")[0]   # "#/$defs/"


class OperationDefinitionError(TypeError):
    """An operation is not fully typed or documented."""


@dataclass(frozen=True)
class Param:
    name: str
    annotation: Any
    default: Any
    description: str
    field: Any = None  # the entity field this argument was spread from (keeps its constraints)

    @property
    def required(self) -> bool:
        return self.default is inspect.Parameter.empty


@dataclass
class Operation:
    app: str
    name: str
    fn: Callable[..., Any]
    mutates: bool
    description: str
    params: list[Param]
    result_type: Any
    text_limit: int = limits.TEXT_LIMIT
    final: bool = False   # the agent's final answer: once it succeeds, the agent's writes are refused (invoker)

    def __post_init__(self) -> None:
        self._input_model: type[BaseModel] | None = None   # made on first use (``input_model``)
        self._result = TypeAdapter(self.result_type)
        # The result's JSON schema is made on first use, once (it costs milliseconds; at import, for every
        # operation, it was a quarter of a server's start): by the MCP tool list, or by the first ``dump``.
        self._result_schema: tuple[dict, bool] | None = None
        self._nonfinite: Callable[[Any], bool] | None = self._first_nonfinite
        self._input_schemas: dict[str, str] = {}   # ref template -> the input schema's JSON
        self._plain = _plain(self.params)

    @property
    def input_model(self) -> type[BaseModel]:
        """The arguments as a pydantic model (extra fields forbidden), made on first use: for 118 operations
        at import it was a tenth of a server's start, and plain arguments are checked without it."""
        model = self._input_model
        if model is None:
            fields: dict[str, Any] = {
                p.name: (p.annotation if p.field is not None else limits.bounded(p.annotation, self.text_limit),
                         p.field or PydanticField(... if p.required else p.default, description=p.description))
                for p in self.params
            }
            name = "".join(part.title() for part in self.qualified_name.split("_")) + "Input"
            model = create_model(name, __config__=ConfigDict(extra="forbid"), **fields)
            if self._input_model is None:   # two threads may both make one: the first one kept stays
                self._input_model = model
            return self._input_model or model
        return model

    def _schema(self) -> tuple[dict, bool]:
        if self._result_schema is None:
            schema = self._result.json_schema(mode="serialization")
            # Only where a result may hold a float (or untyped values) is it looked at for NaN/Infinity on the way out.
            finder = nonfinite.finder(schema)   # keeps no part of the schema
            self._result_schema = _object_schema(schema)
            self._nonfinite = finder
        return self._result_schema

    def _first_nonfinite(self, data: Any) -> bool:
        """``dump``'s check before the schema is made: makes it, then asks the finder it gave (if any)."""
        self._schema()
        return self._nonfinite is not None and self._nonfinite(data)

    @property
    def output_schema(self) -> dict:
        """The result's JSON schema as an object (a non-object result wrapped as ``{"result": ...}``)."""
        return self._schema()[0]

    @property
    def wrapped(self) -> bool:
        """Whether the result had to be wrapped as ``{"result": ...}`` to make an object."""
        return self._schema()[1]

    @property
    def qualified_name(self) -> str:
        return f"{self.app}_{self.name}"

    @property
    def summary(self) -> str:
        return self.description.split("\n\n")[0].replace("\n", " ")

    def input_schema(self, ref_template: str = DEFAULT_REF_TEMPLATE) -> dict:
        """The input model's JSON schema (``$ref``s written by ``ref_template``): a fresh copy each time,
        made from the model once (the catalogue, MCP, OpenAPI and the OpenAI form each ask for it)."""
        text = self._input_schemas.get(ref_template)
        if text is None:
            if ref_template == DEFAULT_REF_TEMPLATE:
                schema = self.input_model.model_json_schema()
            else:   # the same schema with its references written another way (pydantic names the $defs alike)
                schema = _refs_as(self.input_schema(), ref_template)
            text = self._input_schemas[ref_template] = json.dumps(schema)
        return json.loads(text)

    def structured(self, data: Any) -> dict:
        """A dumped result as the JSON object MCP's structured content carries."""
        return {"result": data} if self.wrapped else data

    def validate(self, arguments: dict[str, Any] | None) -> dict[str, Any]:
        """Check arguments against the signature and ``limits``; ``Invalid`` names the first bad field."""
        return self.accept(arguments)[0]

    def accept(self, arguments: dict[str, Any] | None) -> tuple[dict[str, Any], dict[str, Any] | None]:
        """``validate``'s arguments, and, when they were all plain (``_take``), a copy of them as a step
        records them: what ``limits.recordable`` gives for arguments ``limits.check`` let through (the same
        text and numbers, lists copied), without walking them again; else ``None``, for ``recordable`` to make."""
        if self._plain is not None and type(arguments) is dict:
            taken = _take(self._plain, arguments, self.text_limit)
            if taken is not None:
                return taken, {k: list(v) if type(v) is list else v for k, v in arguments.items()}
        # Anything else, refusals included, the general way: ``limits.check``, then pydantic.
        if arguments is not None and not isinstance(arguments, dict):
            raise Invalid("arguments: must be a JSON object", field="arguments")
        arguments = arguments or {}
        limits.check(arguments, self.text_limit)
        try:
            model = self.input_model.model_validate(arguments or {})
        except ValidationError as exc:
            raise invalid_from(exc.errors()) from None
        limits.check_finite(model.__dict__)   # "1e999" and "inf" are text to ``check``, Infinity to pydantic
        return model.__dict__, None   # exactly the parameters (extra="forbid"), in order; the model itself is dropped

    def dump(self, result: Any) -> Any:
        """The result in its JSON form, NaN and Infinity as ``None`` (JSON has neither): what leaves as JSON."""
        data = self.dumped(result)
        if self._nonfinite is not None and self._nonfinite(data):
            return limits.finite(data)   # only a result that holds one (or cannot be encoded) is walked and rebuilt
        return data

    def dumped(self, result: Any) -> Any:
        """The result in its JSON form, not looked at for NaN: for a step, whose ``encode`` writes it ``null``
        as ``dump`` would (``trajectory.kept``); a ``Wire`` result already is in that form (``apps.kit.wire``)."""
        return result.data if type(result) is Wire else self._result.dump_python(result, mode="json")

    def openai_tool(self) -> dict:
        """The tool in the OpenAI function-calling format."""
        return {
            "type": "function",
            "function": {"name": self.qualified_name, "description": self.description,
                         "parameters": self.input_schema()},
        }


def _refs_as(schema: Any, ref_template: str) -> Any:
    """``schema`` with each ``{"$ref": "#/$defs/<name>"}`` written by ``ref_template`` instead."""
    if isinstance(schema, list):
        return [_refs_as(item, ref_template) for item in schema]
    if not isinstance(schema, dict):
        return schema
    ref = schema.get("$ref")
    out = {key: _refs_as(value, ref_template) for key, value in schema.items()}
    if isinstance(ref, str) and ref.startswith(_DEFS):
        out["$ref"] = ref_template.format(model=ref[len(_DEFS):])
    return out


def _object_schema(schema: dict) -> tuple[dict, bool]:
    """An object schema, and whether a non-object result had to be wrapped as ``{"result": ...}``."""
    if schema.get("type") == "object":
        return schema, False
    defs = schema.pop("$defs", None)
    wrapped = {"type": "object", "properties": {"result": schema}, "required": ["result"]}
    return ({**wrapped, "$defs": defs} if defs else wrapped), True


_REQUIRED = object()


def _plain(params: list[Param]) -> tuple[tuple[str, tuple[type, ...], tuple[type, ...], Any], ...] | None:
    """For an operation whose arguments are all plain (``int``, ``str``, ``bool``, ``float``, a ``list`` of
    one of them, perhaps ``None``; no constraints; an unchanging default): each one's name, the types it takes
    unchanged, the types a list of it holds (empty when it takes no list) and its default. ``None`` when one
    is not plain: its arguments always go through pydantic."""
    found = []
    for p in params:
        kinds = typing.get_args(p.annotation) if _is_union(p.annotation) else (p.annotation,)
        scalars: list[type] = []
        items: list[Any] = []
        for kind in kinds:
            if typing.get_origin(kind) is list and len(typing.get_args(kind)) == 1 and not items:
                items = [typing.get_args(kind)[0]]
                if items[0] not in _PLAIN:
                    return None
            elif kind in _PLAIN or kind is type(None):
                scalars.append(kind)
            else:
                return None
        if p.field is not None:
            return None
        if not p.required and type(p.default) not in (*_PLAIN, type(None)):
            return None
        found.append((p.name, tuple(scalars), tuple(items), _REQUIRED if p.required else p.default))
    return tuple(found)


def _is_union(annotation: Any) -> bool:
    return typing.get_origin(annotation) in (typing.Union, types.UnionType)


def _take(plain: tuple[tuple[str, tuple[type, ...], tuple[type, ...], Any], ...], arguments: dict[str, Any],
          text_limit: int) -> dict[str, Any] | None:
    """The validated arguments, when every one given has exactly a type its parameter takes unchanged, or is a
    ``list`` of exactly such items, and is within ``limits`` (``_fits``): pydantic would give the same values
    back, a list as a new one, and ``limits.check`` would pass them. Else ``None``, for those two to say."""
    kwargs, given = {}, 0
    for name, kinds, items, default in plain:
        if name in arguments:
            value = arguments[name]
            kind = type(value)
            if kind in kinds:
                if not _fits(value, kind, text_limit):
                    return None
            elif items and kind is list:
                if not all(type(item) in items and _fits(item, type(item), text_limit) for item in value):
                    return None
                value = list(value)
            else:
                return None
            kwargs[name], given = value, given + 1
        elif default is _REQUIRED:
            return None
        else:
            kwargs[name] = default
    return kwargs if given == len(arguments) else None


def _fits(value: Any, kind: type, text_limit: int) -> bool:
    """A plain value ``limits.check`` lets through (text within the limit, without NUL, valid Unicode; an
    integer in 64 bits; a finite float)."""
    if kind is str:
        return len(value) <= text_limit and "\x00" not in value and (value.isascii() or limits.valid_unicode(value))
    if kind is int:
        return limits.INT_MIN <= value <= limits.INT_MAX
    if kind is float:
        return math.isfinite(value)
    return True


def invalid_from(errors: Sequence[Mapping[str, Any]], unknown: str = "is not an argument of this operation",
                 located: bool = False) -> Invalid:
    """One ``Invalid`` for pydantic's validation errors, naming the first bad field. FastAPI's errors are
    ``located``: their path starts with where the value was (body, query, path), which is not a field."""
    first = errors[0]
    loc = list(first["loc"])
    if located and loc and loc[0] in ("body", "query", "path", "header"):
        loc = loc[1:]
    where = ".".join(str(p) if str(p) else '""' for p in loc) or None   # an argument named "" is named too
    message = first["msg"] if first["type"] != "extra_forbidden" else unknown
    more = f" (and {len(errors) - 1} more problem(s))" if len(errors) > 1 else ""
    return Invalid(f"{where}: {message}{more}" if where else message + more, field=where)


class OperationSet:
    """The operations of one app, registered by the ``read`` and ``write`` decorators."""

    def __init__(self, app: str):
        self.app = app
        self.operations: dict[str, Operation] = {}

    def read(self, fn: Callable | None = None, *, text_limit: int = limits.TEXT_LIMIT) -> Callable:
        """Register a read operation; ``@ops.read(text_limit=N)`` lets its text arguments be longer."""
        if fn is None:
            return lambda f: self._register(f, mutates=False, text_limit=text_limit)
        return self._register(fn, mutates=False, text_limit=text_limit)

    def write(self, fn: Callable | None = None, *, text_limit: int = limits.TEXT_LIMIT, final: bool = False) -> Callable:
        """Register a write operation; ``@ops.write(text_limit=N)`` lets its text arguments be longer;
        ``final=True`` marks the agent's final answer, after which the invoker refuses the agent's writes."""
        if fn is None:
            return lambda f: self._register(f, mutates=True, text_limit=text_limit, final=final)
        return self._register(fn, mutates=True, text_limit=text_limit, final=final)

    def include(self, other: "OperationSet") -> "OperationSet":
        """Add another set's operations (an app may define its operations in several modules)."""
        for name, op in other.operations.items():
            if name in self.operations or other.app != self.app:
                raise OperationDefinitionError(f"{other.app}.{name}: cannot be included in {self.app}")
            self.operations[name] = op
        return self

    def __iter__(self):
        return iter(self.operations.values())

    def __getitem__(self, name: str) -> Operation:
        return self.operations[name]

    def _register(self, fn: Callable, mutates: bool, text_limit: int = limits.TEXT_LIMIT,
                  final: bool = False) -> Callable:
        where = f"{self.app}.{fn.__name__}"
        if fn.__name__ in self.operations:
            raise OperationDefinitionError(f"{where}: defined twice")
        description, arg_docs = docstrings.parse(fn.__doc__)
        if not description:
            raise OperationDefinitionError(f"{where}: an operation needs a docstring")
        hints = typing.get_type_hints(fn, include_extras=True)
        if "return" not in hints:
            raise OperationDefinitionError(f"{where}: an operation needs a return annotation")
        result = hints["return"]
        if typing.get_origin(result) is Wire:   # built in its dumped form: the result is its argument
            result = typing.get_args(result)[0]
        params, groups = [], {}
        for p in list(inspect.signature(fn).parameters.values())[1:]:
            if isinstance(hints.get(p.name), type) and spread(hints[p.name]):
                groups[p.name] = hints[p.name]
                params += _spread_params(hints[p.name])
            else:
                params.append(_param(where, p, hints, arg_docs))
        unknown = set(arg_docs) - {p.name for p in params}
        if unknown:
            raise OperationDefinitionError(f"{where}: docstring describes unknown argument(s) {sorted(unknown)}")
        if len({p.name for p in params}) != len(params):
            raise OperationDefinitionError(f"{where}: a spread entity field has the name of another argument")
        self.operations[fn.__name__] = Operation(
            app=self.app, name=fn.__name__, fn=_gathering(fn, groups) if groups else fn, mutates=mutates,
            description=description, params=params, result_type=result, text_limit=text_limit, final=final,
        )
        return fn


def _param(where: str, p: inspect.Parameter, hints: dict, arg_docs: dict[str, str]) -> Param:
    if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
        raise OperationDefinitionError(f"{where}: *args and **kwargs are not allowed")
    if p.name not in hints:
        raise OperationDefinitionError(f"{where}: argument {p.name!r} needs a type annotation")
    if not arg_docs.get(p.name):
        raise OperationDefinitionError(f"{where}: argument {p.name!r} is not described in the docstring's Args")
    return Param(p.name, hints[p.name], p.default, arg_docs[p.name])


def _spread_params(model: type[BaseModel]) -> list[Param]:
    """One argument per field of an entity's create/update model, described by the entity."""
    empty = inspect.Parameter.empty
    return [Param(name, info.annotation, empty if info.is_required() else info.get_default(call_default_factory=True),
                  info.description or "", field=info)
            for name, info in model.model_fields.items()]


def _gathering(fn: Callable, groups: dict[str, type[BaseModel]]) -> Callable:
    """``fn`` taking spread arguments back as its models; for an update model only the arguments given
    (not ``None``) count as set, so ``fields.model_dump(exclude_unset=True)`` is the change asked for."""
    def call(ctx, **kwargs):
        for name, model in groups.items():
            given = {field: kwargs.pop(field) for field in model.model_fields if field in kwargs}
            if getattr(model, "__purpose__", None) == "update":  # set by entity.derive
                given = {field: value for field, value in given.items() if value is not None}
            kwargs[name] = model.model_validate(given)
        return fn(ctx, **kwargs)
    call.__name__, call.__doc__ = fn.__name__, fn.__doc__
    return call
