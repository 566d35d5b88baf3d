"""Entities declared once: a table's fields say what agents may set, see, and what the world file holds.

An app declares each entity as one SQLModel table whose fields are made with ``attr``: type,
constraints and description, plus four flags (``create``, ``update``, ``see``, ``world``). ``derive``
builds every other shape from that one declaration:

    EventCreate = derive(Event, "create")   # arguments of a create operation (required as declared)
    EventUpdate = derive(Event, "update")   # arguments of an update operation (all optional)
    EventPublic = derive(Event, "see")      # what an operation returns
    EventRecord = derive(Event, "world")    # one record of the app's world file, with its checks

A ``create``/``update`` model used as an operation argument is spread into the operation's own
arguments (see ``apps.kit.operation``), so surfaces show ``title``, ``start``... rather than one object.
SQLite keeps no time zone: ``UtcDateTime`` stores aware times as sortable UTC text and gives them back aware.
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any, Literal

from pydantic import BaseModel, create_model
from pydantic import Field as PydanticField
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined
from sqlalchemy import String, TypeDecorator
from sqlmodel import Field

from worlds.model import Strict  # the one strict base (unknown fields are errors), defined in the lowest layer

Purpose = Literal["create", "update", "see", "world"]
_FLAGS = "officeworld"


def attr(default: Any = PydanticUndefined, *, description: str, create: bool = True, update: bool = True,
         see: bool = True, world: bool = True, **kwargs: Any) -> Any:
    """A field of an entity table. ``create``/``update``: an agent may set it; ``see``: results show it;
    ``world``: the world file may hold it. Other keywords (``max_length``, ``ge``, ``sa_type``...) go to SQLModel."""
    flags = {"create": create, "update": update, "see": see, "world": world}
    return Field(default, description=description, schema_extra={"json_schema_extra": {_FLAGS: flags}}, **kwargs)


def flags(entity: type[BaseModel], name: str) -> dict[str, Any] | None:
    extra = entity.model_fields[name].json_schema_extra
    found = extra.get(_FLAGS) if isinstance(extra, dict) else None
    return found if isinstance(found, dict) else None


def fields_for(entity: type[BaseModel], purpose: Purpose) -> list[str]:
    """The entity's fields declared for ``purpose``, in declaration order."""
    return [name for name in entity.model_fields if (flags(entity, name) or {}).get(purpose)]


def derive(entity: type[BaseModel], purpose: Purpose, name: str | None = None, base: type[BaseModel] = Strict,
           **extra: Any) -> type[BaseModel]:
    """A pydantic model of the entity's fields for ``purpose`` (see the module docstring); ``extra`` adds
    fields the entity does not hold (``name=(type, Field(...))``), e.g. a record's nested attendees."""
    fields: dict[str, Any] = {field: _field(entity, field, purpose) for field in fields_for(entity, purpose)}
    model = create_model(name or f"{entity.__name__}{purpose.title()}", __base__=base, **fields, **extra)
    # Read back with getattr (apps.kit.operation): a created model's class attributes are not declared.
    setattr(model, "__entity__", entity)
    setattr(model, "__purpose__", purpose)
    return model


def _field(entity: type[BaseModel], field: str, purpose: Purpose) -> tuple[Any, Any]:
    info = entity.model_fields[field]
    annotation: Any = info.annotation
    default: Any  # pydantic types Field(default) as the default's own type, for dataclass-style fields
    if purpose == "update":
        annotation, default, factory = annotation | None, None, None
    else:
        default, factory = info.default, info.default_factory
    new: FieldInfo = (PydanticField(default_factory=factory, description=info.description) if factory
           else PydanticField(default, description=info.description))
    new.metadata = list(info.metadata)  # the declared constraints (max_length, ge...)
    return annotation, new


def spread(model: type[BaseModel]) -> bool:
    """Whether an operation argument of this type is spread into separate arguments."""
    return getattr(model, "__purpose__", None) in ("create", "update")


class UtcDateTime(TypeDecorator):
    """An aware time stored as sortable UTC text (``2026-03-16T13:00:00+00:00``), read back aware."""

    impl = String
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect) -> str | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("a time stored by UtcDateTime needs a time zone")
        return value.astimezone(timezone.utc).isoformat(timespec="seconds")

    def process_result_value(self, value: str | None, dialect) -> datetime | None:
        return None if value is None else datetime.fromisoformat(value)
