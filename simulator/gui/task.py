"""The task page: where an agent in the browser gives its final answer (``task_submit_answer``)."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Request

from simulator.gui import forms
from simulator.gui.mail import form_data
from simulator.gui.page import GuiRoute, errors_of, see_other

router = APIRouter(route_class=GuiRoute)


def _page(request: Request, status: int = 200, values: dict | None = None, errors: dict | None = None):
    gui = request.app.state.gui
    op = gui.ops["task_submit_answer"]
    defaults = {p.name: p.default for p in op.params if isinstance(p.default, str)}
    return gui.render(request, "task/answer.html", status, form_fields=forms.fields(op, areas=("answer",)),
                      values=values or defaults, errors=errors or {}, message=request.query_params.get("done"))


@router.get("", include_in_schema=False)
def answer_form(request: Request, episode_id: str):
    return _page(request)


@router.post("", include_in_schema=False)
def submit(request: Request, episode_id: str, form=Depends(form_data)):
    gui, episode = request.app.state.gui, request.state.episode
    op = gui.ops["task_submit_answer"]
    step = gui.call(episode, "task", "submit_answer", **forms.arguments(op, form))
    if step.error:
        return _page(request, 422, dict(form), errors_of(step))
    return see_other(f"/episodes/{episode.id}/gui/task?done=Answer submitted")
