"""Invitations, updates, cancellations and replies as mail with an ``.ics`` attachment (iCalendar,
RFC 5546 methods REQUEST / CANCEL / REPLY), sent by asking the mail app through ``ctx.peers``."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

from apps.calendar.models import Attendee, Event
from apps.kit import Ctx

DOMAIN = "calendar.officeworld"


def ics(ctx: Ctx, event: Event, people: list[Attendee], method: str, start: datetime | None = None) -> str:
    """The iCalendar text of ``event`` (or of its occurrence at ``start``) for ``method``."""
    import icalendar  # here, not at import: ~0.1 s of every server start, for invitations only

    cal = icalendar.Calendar()
    cal.add("prodid", "-//officeworld//calendar//EN")
    cal.add("version", "2.0")
    cal.add("method", method)
    item = icalendar.Event()
    item.add("uid", f"{event.recurring_event_id or event.id}@{DOMAIN}")
    item.add("dtstamp", ctx.now)
    if event.all_day:
        item.add("dtstart", event.start.date())
        item.add("dtend", event.end.date())
    else:
        item.add("dtstart", start or event.start)
        item.add("dtend", (start or event.start) + (event.end - event.start))
    if start is not None:
        item.add("recurrence-id", start)
    elif event.original_start is not None:
        item.add("recurrence-id", event.original_start)
    if event.recurrence and start is None:
        item.add("rrule", icalendar.vRecur.from_ical(event.recurrence))
    item.add("summary", event.title)
    if event.location:
        item.add("location", event.location)
    if event.description:
        item.add("description", event.description)
    item.add("organizer", f"mailto:{event.organizer}")
    for person in people:
        item.add("attendee", f"mailto:{person.email}", parameters={
            "PARTSTAT": person.response.upper().replace("NEEDSACTION", "NEEDS-ACTION"), "RSVP": "TRUE",
            "ROLE": "OPT-PARTICIPANT" if person.optional else "REQ-PARTICIPANT"})
    item.add("sequence", event.sequence)
    item.add("status", "CANCELLED" if method == "CANCEL" else event.status.upper())
    cal.add_component(item)
    return cal.to_ical().decode()


def when(ctx: Ctx, event: Event, start: datetime | None = None) -> str:
    tz = ZoneInfo(event.time_zone or ctx.world.timezone)
    begin = (start or event.start).astimezone(tz)
    if event.all_day:
        return begin.strftime("%A %B %d, %Y (all day)")
    end = begin + (event.end - event.start)
    return f"{begin:%A %B %d, %Y %H:%M}-{end:%H:%M} ({tz.key})"


def notify(ctx: Ctx, event: Event, people: list[Attendee], method: str, note: str = "",
           start: datetime | None = None) -> list[str]:
    """Mail ``people`` (except the actor) about ``event``; returns the addresses asked to be mailed."""
    to = [p.email for p in people if p.email != ctx.actor]
    if not to:
        return []
    label = {"REQUEST": "Invitation" if event.sequence == 0 else "Updated invitation",
             "CANCEL": "Canceled event"}[method]
    subject = f"{label}: {event.title} @ {when(ctx, event, start)}"
    lines = [f"{event.title}", f"When: {when(ctx, event, start)}"]
    lines += [f"Where: {event.location}"] if event.location else []
    lines += [f"Organizer: {event.organizer}", "Guests: " + ", ".join(p.email for p in people)]
    lines += ["", event.description] if event.description and method != "CANCEL" else []
    lines += ["", note] if note else []
    if method == "REQUEST":
        lines += ["", "Reply with calendar respond (accepted, tentative or declined)."]
    _send(ctx, to, subject, "\n".join(lines), ics(ctx, event, people, method, start))
    return to


def reply(ctx: Ctx, event: Event, me: Attendee, start: datetime | None = None) -> None:
    """Tell the organizer the actor's answer (METHOD:REPLY)."""
    if event.organizer == ctx.actor:
        return
    word = {"accepted": "Accepted", "tentative": "Tentatively accepted", "declined": "Declined"}[me.response]
    body = f"{ctx.actor} has {word.lower()} this invitation.\n\n{event.title}\nWhen: {when(ctx, event, start)}"
    body += f"\n\n{me.comment}" if me.comment else ""
    _send(ctx, [event.organizer], f"{word}: {event.title} @ {when(ctx, event, start)}", body,
          ics(ctx, event, [me], "REPLY", start))


def _send(ctx: Ctx, to: list[str], subject: str, body: str, text: str) -> None:
    ctx.peers.request("mail", "send", to=to, subject=subject, body=body,
                      attachments=[{"filename": "invite.ics", "mime_type": "text/calendar", "text": text}])
