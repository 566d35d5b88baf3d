"""Mail pages, like Gmail: labels with counts, search, the list by thread, a thread, compose and reply."""

from __future__ import annotations

import base64

from anyio import to_thread
from fastapi import APIRouter, Depends, Request

from simulator.gui.forms import lf_lines
from simulator.gui.page import GuiRoute, download, errors_of, form_ids, form_value, see_other, split_addresses, within

router = APIRouter(route_class=GuiRoute)
SYSTEM = [("INBOX", "Inbox", "in:inbox"), ("STARRED", "Starred", "is:starred"), ("SENT", "Sent", "in:sent"),
          ("DRAFT", "Drafts", "in:drafts"), ("SPAM", "Spam", "in:spam"), ("TRASH", "Trash", "in:trash")]
ACTIONS = {"star", "unstar", "archive", "move_to_inbox", "trash", "restore", "mark_read", "mark_unread",
           "mark_spam", "delete_forever", "add_label", "remove_label"}
PAGE = 50


async def form_data(request: Request):
    """The submitted form, text with LF line endings (``forms.lf_lines``)."""
    return lf_lines(await request.form())


def _gui(request: Request):
    return request.app.state.gui, request.state.episode


def _sidebar(gui, episode, active: str) -> dict:
    labels = {lab["name"]: lab for lab in gui.read(episode, "mail", "list_labels")}
    system = [{"name": n, "title": t, "unread": labels.get(n, {}).get("unread", 0),
               "total": labels.get(n, {}).get("total", 0)} for n, t, _ in SYSTEM]
    user = [lab for lab in labels.values() if lab["type"] == "user"]
    return {"system": system, "user_labels": user, "active": active}


def _query_for(label: str) -> str:
    return next((q for n, _, q in SYSTEM if n == label), f'label:"{label}"')


def _by_thread(messages: list[dict]) -> list[dict]:
    """Gmail's list: one row per thread, its newest matching message, with how many matched."""
    rows: dict[int, dict] = {}
    for m in messages:
        row = rows.setdefault(m["thread_id"], {**m, "count": 0, "ids": []})
        row["count"] += 1
        row["ids"].append(m["id"])
        row["unread"] = row["unread"] or m["unread"]
    return list(rows.values())


@router.get("", include_in_schema=False)
def mailbox(request: Request, episode_id: str, label: str = "INBOX", q: str = "", page: int = 0):
    gui, episode = _gui(request)
    query = q.strip() or _query_for(label)
    result = gui.call(episode, "mail", "search", query=query, limit=PAGE, offset=max(page, 0) * PAGE)
    found = result.result or {"total": 0, "messages": []}
    return gui.render(request, "mail/list.html", **_sidebar(gui, episode, "" if q else label), q=q, label=label,
                      rows=_by_thread(found["messages"]), total=found["total"], page=page, page_size=PAGE,
                      errors=errors_of(result), message=request.query_params.get("done"))


@router.get("/thread/{thread_id}", include_in_schema=False)
def thread(request: Request, episode_id: str, thread_id: int):
    gui, episode = _gui(request)
    found = gui.read(episode, "mail", "get_thread", thread_id=thread_id)
    unread = [m["id"] for m in found["messages"] if m["unread"]]
    if unread:  # opening a thread reads it, as in Gmail
        gui.call(episode, "mail", "mark_read", message_ids=unread)
    return gui.render(request, "mail/thread.html", **_sidebar(gui, episode, ""), thread=found,
                      message=request.query_params.get("done"))


@router.post("/act", include_in_schema=False)
def act(request: Request, episode_id: str, form=Depends(form_data)):
    """A button on the list or a thread: star, archive, trash, label... on the messages ticked."""
    gui, episode = _gui(request)
    action, ids = form.get("action", ""), form_ids(form, "message_ids")
    back = within(request, form.get("back") or f"/episodes/{episode.id}/gui/mail")
    if action not in ACTIONS:
        return _list_error(request, gui, episode, f"action: {action!r} is not something this page can do")
    label = {"label": form_value(form, "label")} if action in ("add_label", "remove_label") else {}
    step = gui.call(episode, "mail", action, message_ids=ids, **label)
    if step.error:
        return _list_error(request, gui, episode, step.error["message"])
    sep = "&" if "?" in back else "?"
    return see_other(f"{back}{sep}done={action.replace('_', ' ')}: {len(step.result['updated'])} message(s)")


@router.post("/labels", include_in_schema=False)
def create_label(request: Request, episode_id: str, form=Depends(form_data)):
    gui, episode = _gui(request)
    step = gui.call(episode, "mail", "create_label", name=form_value(form, "name"))
    if step.error:
        return _list_error(request, gui, episode, step.error["message"])
    return see_other(f"/episodes/{episode.id}/gui/mail?label={step.result['name']}")


def _list_error(request, gui, episode, message: str):
    """The mailbox page with nothing listed and the reason the last action failed."""
    return gui.render(request, "mail/list.html", 422, **_sidebar(gui, episode, ""), rows=[], total=0, q="",
                      label="INBOX", page=0, page_size=PAGE, errors={"": message})


@router.get("/compose", include_in_schema=False)
def compose(request: Request, episode_id: str, mode: str = "new", message_id: int | None = None,
            draft_id: int | None = None):
    """The compose form: a new message, a reply, reply-all or forward of ``message_id``, or a draft."""
    gui, episode = _gui(request)
    original = gui.read(episode, "mail", "get_message", message_id=message_id) if message_id else None
    draft = gui.read(episode, "mail", "get_message", message_id=draft_id) if draft_id else None
    values = _prefill(mode, original, draft)
    return gui.render(request, "mail/compose.html", **_sidebar(gui, episode, ""), mode=mode, original=original,
                      draft_id=draft_id, values=values, errors={})


def _prefill(mode: str, original: dict | None, draft: dict | None) -> dict:
    if draft:
        return {"to": ", ".join(draft["to"]), "cc": ", ".join(draft["cc"]), "bcc": ", ".join(draft["bcc"]),
                "subject": draft["subject"], "body": draft["body"]}
    if not original:
        return {}
    prefix = "Fwd: " if mode == "forward" else "Re: "
    subject = original["subject"] if original["subject"].lower().startswith(prefix.lower()) else prefix + original["subject"]
    return {"to": original["sender"] if mode != "forward" else "", "subject": subject, "body": ""}


@router.post("/compose", include_in_schema=False)
async def send(request: Request, episode_id: str, form=Depends(form_data)):
    gui, episode = _gui(request)
    mode, action = form.get("mode", "new"), form.get("action", "send")
    attachments = [a for a in [await _attachment(f) for f in form.getlist("attachments")] if a]
    op, args = _send_call(mode, action, form, attachments)
    if op == "send_draft":  # what was typed since the draft was opened is saved first, then sent
        people = {k: split_addresses(form_value(form, k)) for k in ("to", "cc", "bcc")}
        await to_thread.run_sync(lambda: gui.call(episode, "mail", "update_draft", draft_id=args["draft_id"], **people,
                                                  subject=form.get("subject"), body=form.get("body")))
    step = await to_thread.run_sync(lambda: gui.call(episode, "mail", op, **args))
    if step.error:
        values = {k: form.get(k, "") for k in ("to", "cc", "bcc", "subject", "body")}
        original_id = form_value(form, "message_id", int)
        original = await to_thread.run_sync(
            lambda: gui.read(episode, "mail", "get_message", message_id=original_id)) if original_id else None
        sidebar = await to_thread.run_sync(lambda: _sidebar(gui, episode, ""))
        return gui.render(request, "mail/compose.html", 422, **sidebar, mode=mode, original=original,
                          draft_id=form_value(form, "draft_id", int), values=values, errors=errors_of(step))
    where = "DRAFT" if action == "draft" else "SENT"
    return see_other(f"/episodes/{episode.id}/gui/mail?label={where}&done="
                     + ("Draft saved" if action == "draft" else "Message sent"))


async def _attachment(upload) -> dict | None:
    if not hasattr(upload, "read") or not upload.filename:
        return None
    data = await upload.read()
    mime = upload.content_type or "application/octet-stream"
    try:
        return {"filename": upload.filename, "mime_type": mime, "text": data.decode()} if mime.startswith("text/") \
            else {"filename": upload.filename, "mime_type": mime, "content_base64": base64.b64encode(data).decode()}
    except UnicodeDecodeError:
        return {"filename": upload.filename, "mime_type": mime, "content_base64": base64.b64encode(data).decode()}


def _send_call(mode: str, action: str, form, attachments: list[dict]) -> tuple[str, dict]:
    """Which operation a press of Send (or Save draft) is, with its arguments from the form."""
    body, message_id, draft_id = form.get("body", ""), form_value(form, "message_id", int), form_value(form, "draft_id", int)
    people = {k: split_addresses(form_value(form, k)) for k in ("to", "cc", "bcc")}
    if draft_id and action == "send":
        return "send_draft", {"draft_id": draft_id}
    if draft_id or action == "draft":
        extra = {"draft_id": draft_id} if draft_id else {"reply_to_message_id": message_id}
        return ("update_draft" if draft_id else "create_draft"), {
            **extra, **people, "subject": form.get("subject"), "body": body}
    if mode in ("reply", "reply_all"):
        return mode, {"message_id": message_id, "body": body, "attachments": attachments or None}
    if mode == "forward":
        return "forward", {"message_id": message_id, "to": people["to"] or [], "cc": people["cc"], "body": body}
    return "send", {**people, "to": people["to"] or [], "subject": form.get("subject", ""), "body": body,
                    "attachments": attachments or None}


@router.get("/attachment/{message_id}/{attachment_id}", include_in_schema=False)
def attachment(request: Request, episode_id: str, message_id: int, attachment_id: int):
    gui, episode = _gui(request)
    a = gui.read(episode, "mail", "get_attachment", message_id=message_id, attachment_id=attachment_id)
    data = a["content"].encode() if a["encoding"] == "text" else base64.b64decode(a["content"])
    return download(data, a["mime_type"], a["filename"])
