"""CRM: a Salesforce clone. Accounts, contacts, leads, opportunities, cases, activities and notes,
owned by the company's people, with validation rules, field history, search, SOQL-like queries and
list views."""

from pathlib import Path

from apps.crm import activities, leads, models, operations, recycle, selling, service, views
from apps.crm.seed import seed
from apps.crm.world import SECTION
from apps.kit import App, OperationSet

APP = App(
    name="crm",
    title="CRM",
    operations=(OperationSet("crm").include(operations.ops).include(leads.ops).include(selling.ops)
                .include(service.ops).include(activities.ops).include(views.ops)
                .include(recycle.ops)),
    tables=models.TABLES,
    seed=seed,
    world=SECTION,
    source_dir=Path(__file__).parent,
)
