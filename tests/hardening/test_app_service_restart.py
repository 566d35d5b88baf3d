"""An app service that restarts gets its episodes back: the gateway re-sends each episode's recorded writes."""

import socket

from fastapi.testclient import TestClient
from surfaces import CONTROL, call

from apps.mail import APP as MAIL
from simulator.gateway.server import build_app
from simulator.service.app_service import build_app_service
from simulator.service.serve import serve_in_thread
from simulator.store.episodes import EpisodeStore

TOKEN = "admin-test-token"


def test_a_restarted_app_service_is_rebuilt_from_the_gateways_steps(tmp_path, world_dir, monkeypatch):
    monkeypatch.setenv("OFFICEWORLD_ADMIN_TOKEN", TOKEN)
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    mail_url = f"http://127.0.0.1:{port}"
    store = EpisodeStore(cache_dir=tmp_path / "cache", app_urls={"mail": mail_url}, trajectory_dir=None,
                         idle_timeout=None)
    service = lambda: build_app_service(MAIL, [str(world_dir)], cache_dir=tmp_path / "mail-cache", token=TOKEN)  # noqa: E731
    with TestClient(build_app(store), base_url="http://localhost:8000", headers=CONTROL) as api:
        with serve_in_thread(service(), port=port):
            episode = api.post("/v1/episodes", json={"world": str(world_dir)}).json()
            sent = call(api, episode, "mail", "send", to=["mei@small.test"], subject="Kept", body="across a restart")
            assert sent.status_code == 200, sent.text
            assert call(api, episode, "mail", "star", message_ids=[sent.json()["id"]]).status_code == 200
            doc = call(api, episode, "docs", "create_document", name="Plan", text="Launch in May.").json()["id"]
            # A peer step: docs (in this process) asks the remote mail app to mail the person mentioned.
            assert call(api, episode, "docs", "add_comment", file_id=doc, text="@mei can you check?").status_code == 200
            fork = api.post(f"/v1/episodes/{episode['id']}/fork").json()
            assert call(api, fork, "mail", "send", to=["mei@small.test"], subject="Fork only", body="x").status_code == 200
            before = {e["id"]: api.get(f"/v1/episodes/{e['id']}/digest").json() for e in (episode, fork)}
        down = call(api, episode, "mail", "search", query="Kept")
        assert down.status_code == 503 and down.json()["error"]["type"] == "unavailable"
        with serve_in_thread(service(), port=port):   # a fresh service: it holds no episode
            lost = api.get(f"/v1/episodes/{episode['id']}").json()
            assert lost["status"] == "error" and "lost" in lost["app_errors"]["mail"]
            found = call(api, episode, "mail", "search", query="Kept")
            assert found.status_code == 200 and found.json()["total"] == 1, found.text
            for e in (episode, fork):
                assert api.get(f"/v1/episodes/{e['id']}/digest").json() == before[e["id"]]
            assert api.get(f"/v1/episodes/{episode['id']}").json()["status"] == "ready"
            mentioned = call(api, episode, "mail", "search", query="in:sent subject:mentioned").json()
            assert mentioned["total"] == 1
