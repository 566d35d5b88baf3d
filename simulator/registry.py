"""The apps this simulator serves, by name. Add an app here and every surface serves it."""

from apps.crm import APP as CRM
from apps.docs import APP as DOCS
from apps.kit import App, Operation
from apps.mail import APP as MAIL
from apps.task import APP as TASK

APPS: dict[str, App] = {app.name: app for app in (MAIL, CRM, DOCS, TASK)}


def all_operations(apps: dict[str, App] = APPS) -> list[Operation]:
    return [op for app in apps.values() for op in app.operations]
