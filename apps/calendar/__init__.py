"""Calendar: a Google Calendar clone. Everyone's own calendar and shared ones, events with guests and
answers, recurrence, invitations by mail (.ics), free/busy and finding a time."""

from pathlib import Path

from apps.calendar import models, operations, scheduling
from apps.calendar.seed import seed
from apps.calendar.world import CalendarSection
from apps.kit import App, OperationSet

APP = App(
    name="calendar",
    title="Calendar",
    operations=OperationSet("calendar").include(operations.ops).include(scheduling.ops),
    tables=models.TABLES,
    seed=seed,
    source_dir=Path(__file__).parent,
    world=CalendarSection(),
)
