"""Every GUI route (the OpenAPI leaves them out, so schemathesis never reaches them) under bad path
parts, bad query and form fields, deep nesting and malformed bodies: never a 500, always an answer
in the error shape (the error page, or the JSON error for a body that is not a form)."""

from __future__ import annotations

import re
from typing import Iterator

import pytest
from starlette.routing import BaseRoute

from apps.kit.trajectory import Surface  # noqa: F401  (the GUI records as surface "gui")
from simulator.store.registry import all_operations

BAD = ["abc", "١٢", "²", "9" * 5000, "-1", "1e999", "inf", "NaN", "[" * 1000 + "]" * 1000,
       '{"a": ' * 500 + "1" + "}" * 500, "\r\nX-Injected: 1", "\x00", "x" * 200_000, "", " "]
PATH_BAD = ["abc", "١٢", "²", "9" * 5000, "-1", "1e999", "0"]
EXTRA_FIELDS = ["action", "back", "message_ids", "mode", "q", "label", "view", "cell", "number", "done", "stage",
                "ref", "value", "comment_id", "general_role", "sort", "desc", "answer", "status", "kind"]


def gui_routes(api) -> list[tuple[str, str]]:
    """(method, path) of every GUI route, found in the app's router (included routers walked)."""
    return sorted({(m, p) for m, p in _walk(api.router.routes, "") if "/gui" in p})


def _walk(routes: list[BaseRoute], prefix: str) -> Iterator[tuple[str, str]]:
    for route in routes:
        included = getattr(route, "original_router", None)   # an included router, kept whole (FastAPI 0.16x)
        if included is not None:
            yield from _walk(included.routes, prefix + route.include_context.prefix)
        elif hasattr(route, "methods") and hasattr(route, "path"):
            yield from ((m, prefix + route.path) for m in route.methods if m in ("GET", "POST"))


@pytest.fixture
def routes(api, episode):
    assert api.get(f"/episodes/{episode['id']}/gui/").status_code == 200   # the GUI mounts on first use
    found = gui_routes(api.app.api)
    assert len(found) >= 30, found
    return found


def fill(path: str, episode_id: str, value: str) -> str:
    path = path.replace("{episode_id}", episode_id).replace("{obj}", "Account")
    return re.sub(r"\{[a-z_]+\}", value, path)


def shaped(response) -> bool:
    if response.headers.get("content-type", "").startswith("application/json"):
        return set(response.json().get("error", {})) >= {"type", "message"}
    return 'role="alert"' in response.text   # the error page, or the form again with the error at its field


def fields(api) -> list[str]:
    names = {p.name for op in all_operations(api.app.store.apps) for p in op.params}
    return sorted(names | set(EXTRA_FIELDS))


def check(response, what: str) -> None:
    assert response.status_code < 500, (what, response.status_code, response.text[:300])
    if response.status_code >= 400:
        assert shaped(response), (what, response.status_code, response.text[:300])


@pytest.mark.parametrize("value", PATH_BAD, ids=range(len(PATH_BAD)))
def test_bad_path_parts_on_every_route(api, episode, routes, value):
    for method, path in routes:
        if "{" not in path.replace("{episode_id}", ""):
            continue
        url = fill(path, episode["id"], value)
        check(api.request(method, url, data={} if method == "POST" else None), f"{method} {url[:120]}")


@pytest.mark.parametrize("value", BAD, ids=range(len(BAD)))
def test_bad_fields_on_every_route(api, episode, routes, value):
    names = fields(api)
    for method, path in routes:
        url = fill(path, episode["id"], "1")
        if method == "GET":
            query = {name: value for name in names} if len(value) < 100 else {"q": value[:5000]}
            response = api.get(url, params=query)
        else:
            response = api.post(url, data={name: value for name in names})
        check(response, f"{method} {url}")


def test_malformed_bodies_on_every_form(api, episode, routes):
    bodies = [("multipart/form-data; boundary=xyz", b"--xyz\r\nContent-Disposition: form-data; name=\"a\r\n\r\nb"),
              ("multipart/form-data", b"no boundary"),
              ("multipart/form-data; boundary=xyz", b"--xyz\r\nContent-Disposition: form-data; name=\"f\"; "
               b"filename=\"\xff\xfe.txt\"\r\nContent-Type: text/plain\r\n\r\nx\r\n--xyz--\r\n"),
              ("application/x-www-form-urlencoded", b"a=%ZZ&message_ids=%ED%A0%80&name=%C0%AF&" + b"x=" * 2000),
              ("application/json", b"[" * 100_000)]
    for method, path in routes:
        if method != "POST":
            continue
        for media, body in bodies:
            url = fill(path, episode["id"], "1")
            check(api.post(url, content=body, headers={"content-type": media}), f"POST {url} {media}")
