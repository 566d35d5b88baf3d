"""Calendar pages, like Google Calendar: a week or a day of your agenda, an event's page with its guests and
their answers, forms to create and edit events, and answering invitations. Every read and change goes through
the calendar's operations (surface ``gui``), so a click is the same step as an MCP call."""

from __future__ import annotations

from datetime import date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from fastapi import APIRouter, Depends, Request

from apps.kit import Invalid
from simulator.gui.mail import form_data
from simulator.gui.page import GuiRoute, errors_of, form_value, see_other, split_addresses

router = APIRouter(route_class=GuiRoute)
ANSWERS = [("accepted", "Yes"), ("tentative", "Maybe"), ("declined", "No")]
# The event form: (argument of create_event's fields, label, kind); attendees and scope are arguments of their own.
FIELDS = [("title", "Title *", "text"), ("start", "Start *", "datetime-local"), ("end", "End *", "datetime-local"),
          ("all_day", "All day", "check"), ("location", "Location", "text"), ("description", "Description", "area"),
          ("show_as", "Show as", "choice")]


def _gui(request: Request):
    return request.app.state.gui, request.state.episode


def _day(request: Request, text: str | None) -> date:
    """The day asked for (YYYY-MM-DD), else today in the world's zone; a bad date names the field."""
    if text:
        try:
            return date.fromisoformat(text)
        except ValueError:
            raise Invalid(f"day: {text[:20]!r} is not a date like 2026-03-16", field="day") from None
    episode = request.state.episode
    return episode.clock.now().astimezone(ZoneInfo(episode.world.info.timezone)).date()


def _local(request: Request, value) -> datetime:
    moment = datetime.fromisoformat(value) if isinstance(value, str) else value
    return moment.astimezone(ZoneInfo(request.state.episode.world.info.timezone))


def _on_day(request: Request, event: dict, day: date) -> bool:
    if event.get("all_day") and event.get("start_date"):
        return date.fromisoformat(str(event["start_date"])) <= day < date.fromisoformat(str(event["end_date"]))
    start, end = _local(request, event["start"]), _local(request, event["end"])
    return start.date() <= day and (end.date() > day or (end.date() == day and end.time() > time(0)) or start == end)


@router.get("", include_in_schema=False)
def agenda(request: Request, episode_id: str, day: str | None = None, view: str = "week"):
    """The week (Monday first) or the day holding ``day``, your agenda's events under each day."""
    gui, episode = _gui(request)
    shown = _day(request, day)
    view = "day" if view == "day" else "week"
    first = shown if view == "day" else shown - timedelta(days=shown.weekday())
    days = [first + timedelta(days=i) for i in range(1 if view == "day" else 7)]
    zone = episode.world.info.timezone
    found = gui.read(episode, "calendar", "list_events", start=f"{days[0].isoformat()}T00:00:00",
                     end=f"{(days[-1] + timedelta(days=1)).isoformat()}T00:00:00", limit=500)
    columns = [(d, [e for e in found["events"] if _on_day(request, e, d)]) for d in days]
    step = timedelta(days=1 if view == "day" else 7)
    return gui.render(request, "calendar/agenda.html", columns=columns, view=view, day=shown, zone=zone,
                      before=(shown - step).isoformat(), after=(shown + step).isoformat(),
                      local=lambda v: _local(request, v), message=request.query_params.get("done"))


def _event(gui, episode, event_id: str) -> dict:
    return gui.read(episode, "calendar", "get_event", event_id=event_id)


def _event_page(request, gui, episode, event_id: str, status: int = 200, errors: dict | None = None):
    event = _event(gui, episode, event_id)
    me = next((a for a in event.get("attendees", []) if a["email"] == episode.actor), None)
    return gui.render(request, "calendar/event.html", status, event=event, me=me, answers=ANSWERS,
                      organizer=event["organizer"] == episode.actor, errors=errors or {},
                      local=lambda v: _local(request, v), message=request.query_params.get("done"))


@router.get("/events/{event_id}", include_in_schema=False)
def event_page(request: Request, episode_id: str, event_id: str):
    gui, episode = _gui(request)
    return _event_page(request, gui, episode, event_id)


@router.post("/events/{event_id}/respond", include_in_schema=False)
def respond(request: Request, episode_id: str, event_id: str, form=Depends(form_data)):
    gui, episode = _gui(request)
    step = gui.call(episode, "calendar", "respond", event_id=event_id, response=form_value(form, "response"),
                    comment=form_value(form, "comment"), scope=form_value(form, "scope"))
    if step.error:
        return _event_page(request, gui, episode, event_id, 422, errors_of(step))
    return see_other(f"/episodes/{episode.id}/gui/calendar/events/{step.result['id']}?done=Answer+sent")


@router.post("/events/{event_id}/cancel", include_in_schema=False)
def cancel(request: Request, episode_id: str, event_id: str, form=Depends(form_data)):
    gui, episode = _gui(request)
    step = gui.call(episode, "calendar", "cancel_event", event_id=event_id, scope=form_value(form, "scope"),
                    message=form_value(form, "message"))
    if step.error:
        return _event_page(request, gui, episode, event_id, 422, errors_of(step))
    return see_other(f"/episodes/{episode.id}/gui/calendar?done=Event+cancelled")


def _values(request: Request, event: dict) -> dict:
    """An event's fields as its form shows them: times in the world's zone, to the minute."""
    values = {name: event.get(name) for name, _, _ in FIELDS}
    for name in ("start", "end"):
        values[name] = _local(request, event[name]).strftime("%Y-%m-%dT%H:%M")
    values["attendees"] = ", ".join(a["email"] for a in event.get("attendees", []) if a["email"] != event["organizer"])
    return values


def _form(request, gui, template_values: dict, event: dict | None, status: int = 200, errors: dict | None = None):
    fields = [{"name": n, "label": label, "kind": kind, "required": label.endswith("*"), "options":
               ["busy", "free"] if n == "show_as" else []} for n, label, kind in FIELDS]
    fields.append({"name": "attendees", "label": "Guests (addresses, comma-separated)", "kind": "text",
                   "required": False, "options": []})
    if event and (event.get("recurrence") or event.get("recurring_event_id") or "_" in event["id"]):
        fields.append({"name": "scope", "label": "Change", "kind": "choice", "required": False,
                       "options": ["this", "following", "all"]})
    shown = {k.removeprefix("fields."): v for k, v in (errors or {}).items()}
    return gui.render(request, "calendar/form.html", status, event=event, form_fields=fields,
                      values=template_values, errors=shown)


def _fields(form) -> dict:
    """The form's event fields (blank ones left out: the operation's default, or unchanged)."""
    out = {name: form_value(form, name) for name, _, kind in FIELDS if kind != "check"}
    out["all_day"] = form.get("all_day") in ("on", "true", "1")
    return {k: v for k, v in out.items() if v is not None}


@router.get("/new", include_in_schema=False)
def new_form(request: Request, episode_id: str, day: str | None = None):
    shown = _day(request, day)
    values = {"start": f"{shown.isoformat()}T09:00", "end": f"{shown.isoformat()}T09:30"}
    return _form(request, request.app.state.gui, values, None)


@router.post("/new", include_in_schema=False)
def create(request: Request, episode_id: str, form=Depends(form_data)):
    gui, episode = _gui(request)
    step = gui.call(episode, "calendar", "create_event", **_fields(form),
                    attendees=split_addresses(form_value(form, "attendees")))
    if step.error:
        return _form(request, gui, dict(form), None, 422, errors_of(step))
    return see_other(f"/episodes/{episode.id}/gui/calendar/events/{step.result['id']}?done=Event+created")


@router.get("/events/{event_id}/edit", include_in_schema=False)
def edit_form(request: Request, episode_id: str, event_id: str):
    gui, episode = _gui(request)
    event = _event(gui, episode, event_id)
    return _form(request, gui, _values(request, event), event)


@router.post("/events/{event_id}/edit", include_in_schema=False)
def save(request: Request, episode_id: str, event_id: str, form=Depends(form_data)):
    gui, episode = _gui(request)
    event = _event(gui, episode, event_id)
    typed = form_value(form, "attendees")
    step = gui.call(episode, "calendar", "update_event", event_id=event_id, **_fields(form),
                    attendees=split_addresses(typed) or ([] if typed is None else None),
                    scope=form_value(form, "scope"))
    if step.error:
        return _form(request, gui, dict(form), event, 422, errors_of(step))
    return see_other(f"/episodes/{episode.id}/gui/calendar/events/{step.result['id']}?done=Saved")
