"""The apps' browser GUI: server-rendered pages per episode under ``/episodes/{id}/gui``.

    /episodes/{id}/gui/          the world's home: apps, who the agent acts as, the virtual time
    /episodes/{id}/gui/mail      Gmail-like mail          (simulator/gui/mail.py)
    /episodes/{id}/gui/crm       Salesforce-like CRM      (simulator/gui/crm.py)
    /episodes/{id}/gui/docs      Drive-like docs          (simulator/gui/docs.py)
    /episodes/{id}/gui/calendar  Google-Calendar-like     (simulator/gui/calendar.py)
    /episodes/{id}/gui/task      the final answer         (simulator/gui/task.py)

Templates live with each app (``apps/<app>/templates``); the layout in ``simulator/gui/templates``.
Every read and every form goes through ``apps.kit.invoker.invoke`` with surface ``gui``.
"""

from __future__ import annotations

from fastapi import APIRouter, FastAPI, Request

BLURBS = {"mail": "Inbox, labels, search, compose", "crm": "Accounts, leads, opportunities, cases",
          "docs": "My Drive, shared files, documents and sheets",
          "calendar": "Your week, events, guests and invitations",
          "task": "Give your final answer when you are done"}


def mount_gui(api: FastAPI, store, operations) -> None:
    """Serve the GUI of every app of ``store`` that has pages, on ``api``. The pages (and jinja2) are imported
    here, not with this package: the gateway mounts them when a GUI path is first asked for."""
    from simulator.gui import calendar, crm, docs, mail, task
    from simulator.gui.page import Gui, GuiRoute

    pages = {"mail": mail.router, "crm": crm.router, "docs": docs.router, "calendar": calendar.router,
             "task": task.router}
    api.state.gui = Gui(store, operations, with_pages=pages)
    home = APIRouter(route_class=GuiRoute)

    @home.get("/", include_in_schema=False)
    def world_home(request: Request, episode_id: str):
        episode = request.state.episode
        person = episode.world.info.people_by_email().get(episode.actor)
        return api.state.gui.render(request, "home.html", company=episode.world.info.company,
                                    person=person.name if person else episode.actor, blurbs=BLURBS,
                                    apps=[store.apps[name] for name in episode.apps if name in pages])

    prefix = "/episodes/{episode_id}/gui"
    api.include_router(home, prefix=prefix, tags=["gui"])
    for name, router in pages.items():
        if name in store.apps:
            api.include_router(router, prefix=f"{prefix}/{name}", tags=["gui"])
