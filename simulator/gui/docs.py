"""Docs pages, like Drive: views, folders, a document editor, a sheet grid, sharing, comments, revisions."""

from __future__ import annotations

import re
from urllib.parse import urlencode

from fastapi import APIRouter, Depends, Request

from simulator.gui.mail import form_data
from simulator.gui.page import GuiRoute, errors_of, form_value, see_other

router = APIRouter(route_class=GuiRoute)
VIEWS = [("my_drive", "My Drive"), ("shared_with_me", "Shared with me"), ("recent", "Recent"),
         ("starred", "Starred"), ("trash", "Trash")]
FILE_ACTIONS = {"star", "unstar", "trash", "restore"}
_NUMBER = re.compile(r"^-?\d+(\.\d+)?$")


def _gui(request: Request):
    return request.app.state.gui, request.state.episode


def _page(gui, request, template, status=200, **context):
    episode = request.state.episode
    drives = gui.read(episode, "docs", "list_drives")
    tree = [f for f in gui.read(episode, "docs", "list_folder", limit=200)["files"] if f["type"] == "folder"]
    context.setdefault("errors", {})
    return gui.render(request, template, status, views=VIEWS, drives=drives, tree=tree,
                      message=request.query_params.get("done"), **context)


def _home(episode) -> str:
    return f"/episodes/{episode.id}/gui/docs"


@router.get("", include_in_schema=False)
def view(request: Request, episode_id: str, view: str = "my_drive", q: str = ""):
    gui, episode = _gui(request)
    if q.strip():
        step = gui.call(episode, "docs", "search", query=q, limit=100)
        title = f"Search: {q}"
    else:
        step = gui.call(episode, "docs", "list_view", view=view, limit=200)
        title = dict(VIEWS).get(view, view)
    found = step.result or {"files": [], "total": 0}
    return _page(gui, request, "docs/list.html", files=found["files"], total=found["total"], title=title,
                 active="" if q else view, q=q, errors=errors_of(step), folder=None, drive=None)


@router.get("/folders/{folder_id}", include_in_schema=False)
def folder(request: Request, episode_id: str, folder_id: int):
    gui, episode = _gui(request)
    info = gui.read(episode, "docs", "get_file", file_id=folder_id)
    found = gui.read(episode, "docs", "list_folder", folder_id=folder_id, limit=200)
    return _page(gui, request, "docs/list.html", files=found["files"], total=found["total"],
                 title=f"{info['path']}/{info['name']}".lstrip("/"), active="", folder=info, drive=None, q="")


@router.get("/drives/{drive_id}", include_in_schema=False)
def drive(request: Request, episode_id: str, drive_id: int):
    gui, episode = _gui(request)
    found = gui.read(episode, "docs", "list_folder", drive_id=drive_id, limit=200)
    return _page(gui, request, "docs/list.html", files=found["files"], total=found["total"], title="Shared drive",
                 active=f"drive-{drive_id}", folder=None, drive=drive_id, q="")


@router.post("/new", include_in_schema=False)
def create(request: Request, episode_id: str, form=Depends(form_data)):
    """The New menu: a folder, a document or a spreadsheet, in the folder (or drive) being shown."""
    gui, episode = _gui(request)
    kind = form.get("kind", "document")
    op = {"folder": "create_folder", "spreadsheet": "create_spreadsheet"}.get(kind, "create_document")
    step = gui.call(episode, "docs", op, name=form_value(form, "name"), folder_id=form_value(form, "folder_id", int),
                    drive_id=form_value(form, "drive_id", int))
    if step.error:
        return _page(gui, request, "docs/list.html", 422, files=[], total=0, title="New", active="", folder=None,
                     drive=None, q="", errors=errors_of(step))
    where = "folders" if kind == "folder" else "files"
    return see_other(f"{_home(episode)}/{where}/{step.result['id']}?done=Created {step.result['name']}")


def _file_page(request, gui, episode, file_id: int, status: int = 200, errors: dict | None = None, tab: str = "",
               **extra):
    detail = gui.read(episode, "docs", "get_file", file_id=file_id)
    context = {"file": detail, "errors": errors or {}, "active": "", **extra}
    if detail["type"] == "spreadsheet":
        context["sheet"] = gui.read(episode, "docs", "get_spreadsheet", file_id=file_id, tab=tab or None)
        context["grid"] = _grid(context["sheet"])
    elif detail["type"] in ("document", "file"):
        context["content"] = gui.read(episode, "docs", "read_file", file_id=file_id)
    if detail["type"] != "folder":
        context["comments"] = gui.read(episode, "docs", "list_comments", file_id=file_id, include_resolved=True)
    return _page(gui, request, "docs/file.html", status, **context)


def _grid(sheet: dict) -> dict:
    """The sheet as rows of cells with their A1 names, what was typed and what shows."""
    inputs = {c["ref"]: c for c in sheet["cells"]}
    width = max([len(r) for r in sheet["rows"]] + [1])
    letters = [chr(ord("A") + i) for i in range(min(width + 1, 26))]
    rows = []
    for n, values in enumerate(sheet["rows"] + [[]], start=1):
        rows.append([{"ref": f"{col}{n}", "value": values[i] if i < len(values) else None,
                      "input": inputs.get(f"{col}{n}", {}).get("input", ""),
                      "error": inputs.get(f"{col}{n}", {}).get("error")} for i, col in enumerate(letters)])
    return {"letters": letters, "rows": rows}


@router.get("/files/{file_id}", include_in_schema=False)
def file_page(request: Request, episode_id: str, file_id: int, cell: str = "", tab: str = ""):
    gui, episode = _gui(request)
    return _file_page(request, gui, episode, file_id, cell=cell.upper(), tab=tab)


def _after(episode, file_id: int, step, done: str, request, gui, tab: str = "", **extra):
    if step.error:
        return _file_page(request, gui, episode, file_id, 422, errors_of(step), tab=tab, **extra)
    return see_other(f"{_home(episode)}/files/{file_id}?{urlencode({'done': done, **({'tab': tab} if tab else {})})}")


@router.post("/files/{file_id}/text", include_in_schema=False)
def save_text(request: Request, episode_id: str, file_id: int, form=Depends(form_data)):
    gui, episode = _gui(request)
    step = gui.call(episode, "docs", "write_document", file_id=file_id, text=form.get("text", ""))
    return _after(episode, file_id, step, "Saved", request, gui)


def _cell_input(text: str):
    """What a typed cell holds: a number when it reads as one (as in Sheets), else the text or formula."""
    text = text.strip()
    if _NUMBER.match(text):
        return float(text) if "." in text else int(text)
    return text


@router.post("/files/{file_id}/cells", include_in_schema=False)
def set_cell(request: Request, episode_id: str, file_id: int, form=Depends(form_data)):
    gui, episode = _gui(request)
    ref = (form_value(form, "ref") or "").upper()
    if not ref:
        return _file_page(request, gui, episode, file_id, 422, {"ref": "ref: pick a cell, e.g. B2"})
    tab = form_value(form, "tab") or ""
    step = gui.call(episode, "docs", "update_cells", file_id=file_id, cells={ref: _cell_input(form.get("input", ""))},
                    tab=tab or None)
    return _after(episode, file_id, step, f"{ref} updated", request, gui, cell=ref, tab=tab)


@router.post("/files/{file_id}/tabs", include_in_schema=False)
def tab_action(request: Request, episode_id: str, file_id: int, form=Depends(form_data)):
    """A spreadsheet's tabs: add one, or rename or delete the tab shown (``docs.add_tab``/``rename_tab``/
    ``delete_tab``)."""
    gui, episode = _gui(request)
    action, tab, name = form.get("action", "add"), form_value(form, "tab"), form_value(form, "name")
    if action == "add":
        step = gui.call(episode, "docs", "add_tab", file_id=file_id, name=name)
    elif action == "rename":
        step = gui.call(episode, "docs", "rename_tab", file_id=file_id, tab=tab, new_name=name)
    elif action == "delete":
        step = gui.call(episode, "docs", "delete_tab", file_id=file_id, tab=tab)
    else:
        return _file_page(request, gui, episode, file_id, 422, {"": f"action: {str(action)[:40]!r} is not offered here"})
    shown = step.result["tab"] if step.result else (tab or "")
    return _after(episode, file_id, step, f"Tab {action}", request, gui, tab=shown)


@router.post("/files/{file_id}/act", include_in_schema=False)
def file_action(request: Request, episode_id: str, file_id: int, form=Depends(form_data)):
    gui, episode = _gui(request)
    action = form.get("action", "")
    if action == "rename":
        step = gui.call(episode, "docs", "rename", file_id=file_id, name=form_value(form, "name"))
    elif action in FILE_ACTIONS:
        step = gui.call(episode, "docs", action, file_id=file_id)
    else:
        return _file_page(request, gui, episode, file_id, 422, {"": f"action: {action!r} is not offered here"})
    return _after(episode, file_id, step, action.capitalize(), request, gui)


@router.get("/files/{file_id}/share", include_in_schema=False)
def share_dialog(request: Request, episode_id: str, file_id: int):
    gui, episode = _gui(request)
    return _share_page(request, gui, episode, file_id)


def _share_page(request, gui, episode, file_id, status=200, errors=None, values=None):
    detail = gui.read(episode, "docs", "get_file", file_id=file_id)
    return _page(gui, request, "docs/share.html", status, file=detail, errors=errors or {}, values=values or {},
                 active="")


@router.post("/files/{file_id}/share", include_in_schema=False)
def share(request: Request, episode_id: str, file_id: int, form=Depends(form_data)):
    """The share dialog: add a person with a role, remove one, or change general access."""
    gui, episode = _gui(request)
    action = form.get("action", "add")
    if action == "remove":
        step = gui.call(episode, "docs", "unshare", file_id=file_id, email=form_value(form, "email"))
    elif action == "general":
        step = gui.call(episode, "docs", "set_general_access", file_id=file_id, role=form_value(form, "general_role"))
    else:
        step = gui.call(episode, "docs", "share", file_id=file_id, email=form_value(form, "email"),
                        role=form_value(form, "role"))
    if step.error:
        return _share_page(request, gui, episode, file_id, 422, errors_of(step), dict(form))
    return see_other(f"{_home(episode)}/files/{file_id}/share?done=Sharing updated")


@router.post("/files/{file_id}/comments", include_in_schema=False)
def comment(request: Request, episode_id: str, file_id: int, form=Depends(form_data)):
    """Add a comment, reply to one, resolve or reopen one."""
    gui, episode = _gui(request)
    action, comment_id = form.get("action", "add"), form_value(form, "comment_id", int)
    if action == "reply":
        step = gui.call(episode, "docs", "reply_to_comment", comment_id=comment_id, text=form_value(form, "text"))
    elif action in ("resolve", "reopen"):
        step = gui.call(episode, "docs", f"{action}_comment", comment_id=comment_id)
    else:
        step = gui.call(episode, "docs", "add_comment", file_id=file_id, text=form_value(form, "text"),
                        quote=form_value(form, "quote"))
    return _after(episode, file_id, step, "Comment saved", request, gui)


@router.get("/files/{file_id}/revisions", include_in_schema=False)
def revisions(request: Request, episode_id: str, file_id: int, number: int | None = None):
    gui, episode = _gui(request)
    detail = gui.read(episode, "docs", "get_file", file_id=file_id)
    history = gui.read(episode, "docs", "list_revisions", file_id=file_id)
    shown = gui.read(episode, "docs", "get_revision", file_id=file_id, revision_number=number) if number else None
    return _page(gui, request, "docs/revisions.html", file=detail, revisions=history, shown=shown, active="")


@router.post("/files/{file_id}/revisions", include_in_schema=False)
def restore_revision(request: Request, episode_id: str, file_id: int, form=Depends(form_data)):
    gui, episode = _gui(request)
    step = gui.call(episode, "docs", "restore_revision", file_id=file_id,
                    revision_number=form_value(form, "revision_number", int))
    return _after(episode, file_id, step, "Version restored", request, gui)
