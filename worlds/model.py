"""The in-memory shape of a loaded world: what apps seed their pristine databases from."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path
from typing import Annotated, Any, overload
from zoneinfo import ZoneInfo

from pydantic import AfterValidator, BaseModel, ConfigDict, Field


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


def _address(value: str) -> str:
    if not value or any(c <= " " or c == "\x7f" for c in value):
        raise ValueError(f"{value!r} is not an email address: it is empty or holds a space or a control character")
    return value


# An email address as worlds hold it: no spaces, no control characters (the apps' fast paths join addresses
# with control characters, apps/docs/fastpath.py).
Address = Annotated[str, AfterValidator(_address)]


def unchecked(cls, fields: dict):
    """A model of class ``cls`` taking ``fields`` as its ``__dict__``, not validated: for values already
    checked or guaranteed (a step the invoker built, a row the database holds), every field given in the
    model's order. What ``model_construct`` makes, at a fraction of its cost."""
    made = cls.__new__(cls)
    _set(made, "__dict__", fields)
    # Every field is set, so the set of fields set is the same for all (pydantic only ever adds to it).
    _set(made, "__pydantic_fields_set__", _FIELDS.get(cls) or _FIELDS.setdefault(cls, set(cls.model_fields)))
    _set(made, "__pydantic_extra__", None)
    _set(made, "__pydantic_private__", None)
    return made


_set = object.__setattr__
_FIELDS: dict[type, set[str]] = {}


class Person(Strict):
    """Someone who works at the company and owns a mailbox."""

    name: str
    email: Address
    title: str
    team: str
    manager: str | None = None


class Outsider(Strict):
    """Someone outside the company who appears in the data (a customer, a candidate, a vendor)."""

    name: str
    email: Address
    organisation: str
    title: str | None = None


class WorldInfo(Strict):
    """The contents of ``world.yaml``."""

    name: str
    company: str
    domain: str
    now: datetime
    timezone: str = "UTC"
    default_actor: str
    description: str = ""
    sector: str = ""   # what the company does (generated worlds: software, legal, logistics): generators' vocabulary
    people: list[Person]
    outsiders: list[Outsider] = Field(default_factory=list)

    def people_by_email(self) -> dict[str, Person]:
        return {p.email: p for p in self.people}

    @overload
    def utc(self, moment: datetime) -> datetime: ...
    @overload
    def utc(self, moment: None) -> None: ...

    def utc(self, moment: datetime | None) -> datetime | None:
        """A time of the world's files as aware UTC: a time without a zone is in the world's zone."""
        if moment is None:
            return None
        return (moment if moment.tzinfo else moment.replace(tzinfo=ZoneInfo(self.timezone))).astimezone(timezone.utc)

    @property
    def now_utc(self) -> datetime:
        """The world's "now" as an aware UTC time."""
        return self.utc(self.now)


class World(Strict):
    """A whole world: its info, each app's data, and a digest of its files (the compile cache key)."""

    model_config = ConfigDict(extra="forbid", arbitrary_types_allowed=True)

    root: Path
    info: WorldInfo
    content_hash: str
    sections: dict[str, Any] = Field(default_factory=dict, description="Data of apps that bring their own "
                                     "world section (``worlds.sections``), by app name")

    @property
    def name(self) -> str:
        return self.info.name

    def person(self, email: str) -> Person | None:
        return next((p for p in self.info.people if p.email == email.lower()), None)

    def known_addresses(self) -> set[str]:
        return {p.email for p in self.info.people} | {o.email for o in self.info.outsiders}
