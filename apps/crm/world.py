"""The world's CRM data: one YAML file per object under ``crm/``, records keyed by a stable name.

Layout (every file optional; each maps a key such as ``globex-logistics`` to a record)::

    crm/accounts.yaml        name, owner, industry, type, parent (account key), billing {street, city,
                             state, postal_code, country}, annual_revenue, employees, website, phone
    crm/contacts.yaml        account, first_name, last_name, title, email, phone, reports_to (contact key)
    crm/leads.yaml           first_name, last_name, company, status, source, owner, email, title
    crm/opportunities.yaml   account, name, owner, stage, amount, close_date, probability, next_step,
                             type, lead_source, loss_reason, history [{field, old, new, by, at}]
    crm/cases.yaml           account, contact, subject, description, status, priority, origin, owner
    crm/activities.yaml      tasks: {key: task}, events: {key: event}; each on ``related: <object>/<key>``
    crm/notes.yaml           related, owner (the author), title, body

Owners are people of the world; ``created`` times (naive ones in the world's zone) default to its now.
Records are derived from the entities (``apps.crm.records``); reading and checking is
``apps.crm.worldfiles``; generating is ``apps.crm.generate``. ``SECTION`` is the CRM app's ``world``.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import TYPE_CHECKING

from apps.crm import worldfiles
from apps.crm.records import CrmData, OpportunityRecord
from worlds.lines import Lines
from worlds.model import WorldInfo
from worlds.writer import dump_yaml

if TYPE_CHECKING:
    from faker import Faker

    from apps.crm.generate import CrmBuilder


class CrmSection:
    """The CRM's section of a world (``worlds.sections.WorldSection``)."""

    folder = "crm"
    # What generating depends on beside this module: a change here writes generated worlds again.
    sources = tuple(str(Path(__file__).with_name(f"{name}.py"))
                    for name in ("generate", "records", "models", "picklists", "worldfiles"))

    def load(self, root: Path, info: WorldInfo, problems: list[str]) -> CrmData:
        return worldfiles.load(root, info, problems)

    def addresses(self, data: CrmData) -> list[tuple[str, str]]:
        """Every owner and history author that ``load`` found to be a person, with its ``file:line``."""
        return data._owners

    def write(self, data: CrmData, out: Path) -> None:
        raw = data.model_dump(mode="json", exclude_defaults=True)
        for name in ("accounts", "contacts", "leads", "opportunities", "cases", "notes"):
            if raw.get(name):
                dump_yaml(raw[name], out / self.folder / f"{name}.yaml")
        activities = {name: raw[name] for name in ("tasks", "events") if raw.get(name)}
        if activities:
            dump_yaml(activities, out / self.folder / "activities.yaml")

    def generate(self, rng: random.Random, info: WorldInfo, size: str) -> CrmData:
        """CRM data alone (the world generator calls ``records_builder`` instead, to share its faker and stories)."""
        from faker import Faker

        from apps.crm.generate import CrmBuilder
        from worlds.generate.sizes import SIZES

        fake = Faker("en_US")
        fake.seed_instance(rng.randrange(2**32))
        return CrmBuilder(fake, rng, info, {p.email for p in info.people}).build(SIZES[size].accounts)

    def records_builder(self, fake: Faker, rng: random.Random, info: WorldInfo, taken: set[str]) -> CrmBuilder:
        """The generator of a world's CRM records; its ``outsiders`` are the contacts, for ``world.yaml``."""
        from apps.crm.generate import CrmBuilder

        return CrmBuilder(fake, rng, info, taken)

    def deals(self, data: CrmData) -> dict[str, OpportunityRecord]:
        """The opportunities (name, amount, stage, close_date, amount history) for the cross-app checks."""
        return data.opportunities

    def deal_at(self, data: CrmData, key: str) -> str:
        """``crm/opportunities.yaml:<line>`` of a deal."""
        return data._lines.get("opportunities.yaml", Lines()).at("crm/opportunities.yaml", (key,))


SECTION = CrmSection()
