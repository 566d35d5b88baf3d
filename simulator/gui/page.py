"""What every GUI page shares: the episode, templates, and calls through the one invoker.

Pages read by invoking read operations and forms submit by invoking write operations, all with
surface ``gui``, so a click in the browser is recorded and graded exactly like an MCP call.
"""

from __future__ import annotations

import traceback
from datetime import datetime
from pathlib import Path
from typing import Any, Callable
from urllib.parse import quote, unquote
from zoneinfo import ZoneInfo

from fastapi import Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from fastapi.routing import APIRoute
from jinja2 import ChoiceLoader, Environment, FileSystemLoader, PrefixLoader, pass_context, select_autoescape
from starlette.exceptions import HTTPException

from apps.kit.errors import Invalid, OpError, from_dict
from apps.kit.invoker import invoke
from apps.kit.operation import invalid_from
from apps.kit.trajectory import Step

HERE = Path(__file__).parent


class Gui:
    """The GUI's view of the server: the episode store, the operations by name, the templates."""

    def __init__(self, store, operations, with_pages=()):
        self.store = store
        self.ops = {op.qualified_name: op for op in operations}
        self.titles = {name: app.title for name, app in store.apps.items() if name in with_pages}
        apps = {name: FileSystemLoader(app.source_dir / "templates") for name, app in store.apps.items()}
        self.env = Environment(loader=ChoiceLoader([PrefixLoader(apps), FileSystemLoader(HERE / "templates")]),
                               autoescape=select_autoescape(["html"]), trim_blocks=True, lstrip_blocks=True)
        self.env.filters["ago"] = _when
        self.env.filters["money"] = lambda v: "" if v is None else f"${v:,.0f}"

    def call(self, episode, app: str, op: str, **arguments: Any) -> Step:
        """Invoke ``app_op`` with the arguments given (None means left out), recorded as surface gui."""
        args = {k: v for k, v in arguments.items() if v is not None}
        return invoke(episode, self.ops[f"{app}_{op}"], args, "gui")

    def read(self, episode, app: str, op: str, **arguments: Any) -> Any:
        """The result of a read; an error becomes the page's error (shown, never a stack trace)."""
        step = self.call(episode, app, op, **arguments)
        if step.error:
            raise from_dict(step.error)
        return step.result

    def render(self, request: Request, template: str, status: int = 200, **context: Any) -> HTMLResponse:
        episode = request.state.episode
        tz = ZoneInfo(episode.world.info.timezone)
        context = {"episode": episode, "base": f"/episodes/{episode.id}/gui", "request": request,
                   "now": episode.clock.now().astimezone(tz), "tz": tz, "app_titles": self.titles, **context}
        return HTMLResponse(self.env.get_template(template).render(**context), status_code=status)


@pass_context
def _when(context, value) -> str:
    """A timestamp from a result (ISO text) in the world's time zone, as a list shows it."""
    if not value:
        return ""
    moment = datetime.fromisoformat(value) if isinstance(value, str) else value
    if isinstance(moment, datetime) and moment.tzinfo and context.get("tz"):
        moment = moment.astimezone(context["tz"])
    return moment.strftime("%b %d, %H:%M") if isinstance(moment, datetime) else moment.strftime("%b %d, %Y")


def errors_of(step: Step) -> dict[str, str]:
    """A failed step's error keyed by the field it names ("" when it names none), for the form."""
    if not step.error:
        return {}
    return {step.error.get("field") or "": step.error["message"]}


def see_other(url: str) -> RedirectResponse:
    """A redirect after a form, to a path of this server only (a full URL or ``//host`` is refused; Starlette
    percent-encodes what a header may not hold)."""
    if not url.startswith("/") or url.startswith("//"):
        raise Invalid(f"back: {url[:80]!r} is not a page of this episode", field="back")
    return RedirectResponse(url, status_code=303)


def within(request: Request, url: Any) -> str:
    """``url`` (a form's ``back``) when it is a page of this episode's GUI, else the GUI's home: a form never
    sends the browser elsewhere (``http://…``, ``//…``, ``javascript:``)."""
    home = f"/episodes/{request.state.episode.id}/gui"
    text = url if isinstance(url, str) else ""
    inside = text == home or text.startswith(home + "/") or text.startswith(home + "?")
    # A browser resolves "." and ".." segments, percent-encoded ones too, and reads "\\" as "/".
    segments = unquote(text.split("?", 1)[0]).split("/")
    if not inside or "\\" in text or any(s in (".", "..") for s in segments) or any(c < " " for c in text):
        return home + "/"
    return text


def form_value(form, name: str, kind: Callable = str) -> Any:
    """A form field as the operation wants it: blank means left out; a value ``kind`` cannot read (a number
    that is not one) is ``Invalid`` naming the field."""
    value = form.get(name)
    if value is None or str(value).strip() == "":
        return None
    try:
        return kind(str(value).strip())
    except (ValueError, OverflowError):
        raise Invalid(f"{name}: {str(value).strip()[:40]!r} is not a {getattr(kind, '__name__', 'value')}",
                      field=name) from None


def form_ids(form, name: str) -> list[int]:
    """The ids ticked in a form (each an ASCII number in 64 bits); anything else is ``Invalid`` naming the field."""
    out = []
    for value in form.getlist(name):
        text = str(value).strip()
        if not (text.isascii() and text.isdigit() and len(text) < 20):
            raise Invalid(f"{name}: {text[:40]!r} is not an id", field=name)
        out.append(int(text))
    return out


def download(data: bytes, media_type: str, filename: str) -> Response:
    """A file to save: its name in ``Content-Disposition`` as RFC 6266 writes any name (an ASCII fallback and
    the UTF-8 name percent-encoded), so a name outside Latin-1, or holding quotes or CR/LF, is still a header."""
    plain = "".join(c if " " <= c < "\x7f" and c not in '"\\' else "_" for c in filename) or "download"
    disposition = f"attachment; filename=\"{plain}\"; filename*=UTF-8''{quote(filename.encode('utf-8', 'replace'), safe='')}"
    media = media_type if media_type.isascii() and media_type.isprintable() else "application/octet-stream"
    return Response(data, media_type=media, headers={"Content-Disposition": disposition})


def split_addresses(value: str | None) -> list[str] | None:
    return [a.strip() for a in value.replace(";", ",").split(",") if a.strip()] if value else None


class GuiRoute(APIRoute):
    """Every GUI route: finds the episode, and turns any error into a page that names it."""

    def get_route_handler(self):
        handler = super().get_route_handler()

        async def route(request: Request) -> Response:
            gui = request.app.state.gui
            try:
                request.state.episode = gui.store.get(request.path_params["episode_id"])
                return await handler(request)
            except OpError as exc:
                return _error_page(request, gui, exc.status, exc.to_dict())
            except HTTPException as exc:   # a body Starlette cannot read as a form (a bad multipart)
                kind = "invalid" if exc.status_code in (400, 413, 415, 422) else "error"
                return _error_page(request, gui, exc.status_code, {"type": kind, "message": str(exc.detail)})
            except RequestValidationError as exc:  # a bad id or number in the address
                error = invalid_from(exc.errors(), unknown="is not known here")
                return _error_page(request, gui, 422, error.to_dict())
            except Exception as exc:  # a bug: logged with its trace, shown without one
                traceback.print_exc()
                return _error_page(request, gui, 500, {"type": "internal", "message": type(exc).__name__})

        return route


def _error_page(request: Request, gui: Gui, status: int, error: dict) -> HTMLResponse:
    episode = getattr(request.state, "episode", None)
    html = gui.env.get_template("error.html").render(
        error=error, status=status, episode=episode, base=f"/episodes/{episode.id}/gui" if episode else "")
    return HTMLResponse(html, status_code=status)
