"""The apps this simulator serves, by name. Add an app here and every surface serves it."""

from apps.calendar import APP as CALENDAR
from apps.crm import APP as CRM
from apps.docs import APP as DOCS
from apps.kit import App, Operation
from apps.mail import APP as MAIL
from apps.task import APP as TASK
from worlds.sections import WorldSection

APPS: dict[str, App] = {app.name: app for app in (MAIL, CRM, DOCS, CALENDAR, TASK)}


def service_apps(apps: dict[str, App] = APPS) -> dict[str, App]:
    """The apps that run as their own services under compose (the others live in the gateway)."""
    return {name: app for name, app in apps.items() if app.service}


def all_operations(apps: dict[str, App] = APPS) -> list[Operation]:
    return [op for app in apps.values() for op in app.operations]


def world_sections(apps: dict[str, App] = APPS) -> dict[str, WorldSection]:
    """The world sections the apps bring themselves (``worlds.sections``), by app name."""
    return {name: app.world for name, app in apps.items() if app.world is not None}
