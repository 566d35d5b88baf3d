"""CRM pages, like Salesforce Lightning: object tabs, list views, record pages, edit forms, stage path."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Request

from apps.crm.picklists import STAGES
from simulator.gui import forms
from simulator.gui.mail import form_data
from simulator.gui.page import GuiRoute, errors_of, form_value, see_other

router = APIRouter(route_class=GuiRoute)
# Per object: plural, list columns, the field that names a record, and its operations' stem and id argument.
OBJECTS = {
    "Account": ("Accounts", ["name", "industry", "type", "billing_city", "owner"], "name"),
    "Contact": ("Contacts", ["name", "account_name", "title", "email", "phone", "owner"], "name"),
    "Lead": ("Leads", ["name", "company", "status", "source", "email", "owner"], "name"),
    "Opportunity": ("Opportunities", ["name", "account_name", "stage", "amount", "close_date", "owner"], "name"),
    "Case": ("Cases", ["subject", "account_name", "status", "priority", "owner"], "subject"),
}
NAV = [(obj, spec[0]) for obj, spec in OBJECTS.items()]


def _gui(request: Request):
    return request.app.state.gui, request.state.episode


def _obj(obj: str) -> str:
    if obj not in OBJECTS:
        from apps.kit import NotFound
        raise NotFound(f"object: no kind of record {obj!r}; pick one of {', '.join(OBJECTS)}", field="object")
    return obj


def _stem(obj: str) -> str:
    return obj.lower()


def _page(gui, request, template, status=200, **context):
    return gui.render(request, template, status, nav=NAV, objects=OBJECTS, **context)


@router.get("", include_in_schema=False)
def home(request: Request, episode_id: str):
    gui, episode = _gui(request)
    pipeline = gui.read(episode, "crm", "pipeline_by_stage")
    tasks = gui.read(episode, "crm", "my_open_tasks")
    return _page(gui, request, "crm/home.html", pipeline=pipeline, tasks=tasks, active="")


@router.get("/search", include_in_schema=False)
def search(request: Request, episode_id: str, q: str = ""):
    gui, episode = _gui(request)
    step = gui.call(episode, "crm", "search", text=q)
    return _page(gui, request, "crm/search.html", hits=step.result or [], q=q, errors=errors_of(step), active="")


def _soql(obj: str, view: str, actor: str, sort: str, desc: bool) -> str:
    cols = OBJECTS[obj][1]
    where = [f"owner = '{actor}'"] if view == "mine" else []
    if obj == "Lead":
        where.append("is_converted = FALSE")
    if obj in ("Opportunity", "Case") and view == "open":
        where.append("is_closed = FALSE")
    clause = f" WHERE {' AND '.join(where)}" if where else ""
    order = sort if sort in cols else OBJECTS[obj][2]
    return f"SELECT id, {', '.join(cols)} FROM {obj}{clause} ORDER BY {order} {'DESC' if desc else 'ASC'} LIMIT 200"


@router.get("/{obj}", include_in_schema=False)
def list_view(request: Request, episode_id: str, obj: str, view: str = "all", sort: str = "", desc: bool = False):
    gui, episode = _gui(request)
    result = gui.read(episode, "crm", "query", soql=_soql(_obj(obj), view, episode.actor.replace("'", ""), sort, desc))
    return _page(gui, request, "crm/list.html", obj=obj, columns=OBJECTS[obj][1], records=result["records"],
                 total=result["total_size"], view=view, sort=sort, desc=desc, active=obj,
                 message=request.query_params.get("done"))


def _record(gui, episode, obj: str, record_id: int) -> dict:
    return gui.read(episode, "crm", f"get_{_stem(obj)}", **{f"{_stem(obj)}_id": record_id})


def _flat(record: dict) -> dict:
    """A record as form values: the billing address spread into billing_* like the operations take it."""
    out = {k: v for k, v in record.items() if not isinstance(v, (list, dict))}
    for k, v in (record.get("billing_address") or {}).items():
        out[f"billing_{k}"] = v
    return out


def _record_page(request, gui, episode, obj: str, record_id: int, status: int = 200, **extra):
    record = _record(gui, episode, _obj(obj), record_id)
    activities = gui.read(episode, "crm", "list_activities", related_object=obj, related_id=record_id)
    return _page(gui, request, "crm/record.html", status, obj=obj, record=record, fields=_flat(record),
                 activities=activities, stages=STAGES, active=obj, title=record[OBJECTS[obj][2]],
                 message=request.query_params.get("done"), errors=extra.pop("errors", {}), **extra)


@router.get("/{obj}/new", include_in_schema=False)
def new_form(request: Request, episode_id: str, obj: str):
    gui, episode = _gui(request)
    op = gui.ops[f"crm_create_{_stem(_obj(obj))}"]
    values = {p.name: p.default for p in op.params if isinstance(p.default, (str, int, float, bool))}
    values.update({k: v for k, v in request.query_params.items()})
    return _page(gui, request, "crm/edit.html", obj=obj, record=None, form_fields=forms.fields(op), values=values,
                 errors={}, active=obj)


@router.post("/{obj}/new", include_in_schema=False)
def create(request: Request, episode_id: str, obj: str, form=Depends(form_data)):
    gui, episode = _gui(request)
    op = gui.ops[f"crm_create_{_stem(_obj(obj))}"]
    step = gui.call(episode, "crm", op.name, **forms.arguments(op, form))
    if step.error:
        return _page(gui, request, "crm/edit.html", 422, obj=obj, record=None, form_fields=forms.fields(op),
                     values=dict(form), errors=errors_of(step), active=obj)
    return see_other(f"/episodes/{episode.id}/gui/crm/{obj}/{step.result['id']}?done={obj} created")


@router.get("/{obj}/{record_id}", include_in_schema=False)
def record_page(request: Request, episode_id: str, obj: str, record_id: int):
    gui, episode = _gui(request)
    return _record_page(request, gui, episode, obj, record_id)


def _edit_page(request, gui, episode, obj, record_id, values=None, errors=None, status=200):
    record = _record(gui, episode, _obj(obj), record_id)
    op = gui.ops[f"crm_update_{_stem(obj)}"]
    return _page(gui, request, "crm/edit.html", status, obj=obj, record=record, original=_flat(record),
                 form_fields=forms.fields(op, skip=(f"{_stem(obj)}_id",)), values=values or _flat(record),
                 errors=errors or {}, active=obj)


@router.get("/{obj}/{record_id}/edit", include_in_schema=False)
def edit_form(request: Request, episode_id: str, obj: str, record_id: int):
    gui, episode = _gui(request)
    return _edit_page(request, gui, episode, obj, record_id)


@router.post("/{obj}/{record_id}/edit", include_in_schema=False)
def save(request: Request, episode_id: str, obj: str, record_id: int, form=Depends(form_data)):
    """Save only what the person changed (as Lightning does): each field is compared with its original."""
    gui, episode = _gui(request)
    op, key = gui.ops[f"crm_update_{_stem(_obj(obj))}"], f"{_stem(obj)}_id"
    changed = {k: v for k, v in forms.arguments(op, form, skip=(key,)).items()
               if (form.get(k) or "") != (form.get(f"original.{k}") or "")}
    step = gui.call(episode, "crm", op.name, **{key: record_id}, **changed)
    if step.error:
        return _edit_page(request, gui, episode, obj, record_id, values=dict(form), errors=errors_of(step), status=422)
    return see_other(f"/episodes/{episode.id}/gui/crm/{obj}/{record_id}?done=Saved")


@router.post("/Opportunity/{record_id}/stage", include_in_schema=False)
def move_stage(request: Request, episode_id: str, record_id: int, form=Depends(form_data)):
    """A click on the stage path; when the stage needs more (a close date), the edit form says so by the field."""
    gui, episode = _gui(request)
    stage = form_value(form, "stage")
    step = gui.call(episode, "crm", "update_opportunity", opportunity_id=record_id, stage=stage)
    if step.error:
        record = _flat(_record(gui, episode, "Opportunity", record_id))
        return _edit_page(request, gui, episode, "Opportunity", record_id, values={**record, "stage": stage},
                          errors=errors_of(step), status=422)
    return see_other(f"/episodes/{episode.id}/gui/crm/Opportunity/{record_id}?done=Stage: {stage}")


@router.get("/Lead/{record_id}/convert", include_in_schema=False)
def convert_form(request: Request, episode_id: str, record_id: int):
    gui, episode = _gui(request)
    return _convert_page(request, gui, episode, record_id, None, {})


def _convert_page(request, gui, episode, record_id, values, errors, status=200):
    lead = _record(gui, episode, "Lead", record_id)
    op = gui.ops["crm_convert_lead"]
    defaults = {p.name: p.default for p in op.params if isinstance(p.default, (str, bool, int))}
    return _page(gui, request, "crm/convert.html", status, obj="Lead", lead=lead, record=lead,
                 form_fields=forms.fields(op, skip=("lead_id",)), values=values or defaults, errors=errors,
                 active="Lead")


@router.post("/Lead/{record_id}/convert", include_in_schema=False)
def convert(request: Request, episode_id: str, record_id: int, form=Depends(form_data)):
    gui, episode = _gui(request)
    op = gui.ops["crm_convert_lead"]
    step = gui.call(episode, "crm", "convert_lead", lead_id=record_id, **forms.arguments(op, form, skip=("lead_id",)))
    if step.error:
        return _convert_page(request, gui, episode, record_id, dict(form), errors_of(step), 422)
    return see_other(f"/episodes/{episode.id}/gui/crm/Lead/{record_id}?done=Lead converted")


@router.post("/{obj}/{record_id}/activity", include_in_schema=False)
def add_activity(request: Request, episode_id: str, obj: str, record_id: int, form=Depends(form_data)):
    """The record page's activity composer: a new task, or a note."""
    gui, episode = _gui(request)
    about = {"related_object": _obj(obj), "related_id": record_id}
    if form.get("kind") == "note":
        step = gui.call(episode, "crm", "add_note", **about, title=form_value(form, "title"), body=form.get("body"))
    else:
        step = gui.call(episode, "crm", "create_task", **about, subject=form_value(form, "subject"),
                        due_date=form_value(form, "due_date"))
    if step.error:
        return _record_page(request, gui, episode, obj, record_id, 422, errors=errors_of(step))
    return see_other(f"/episodes/{episode.id}/gui/crm/{obj}/{record_id}?done=Activity added")
