"""Follow-ups: an app asks for another app's operation; the gateway's invoker runs and records it,
also when the asking app runs as its own service (the request crosses the admin API as JSON)."""

from fastapi.testclient import TestClient
from surfaces import CONTROL, call

from apps.docs import APP as DOCS
from simulator.gateway.server import build_app
from simulator.service.app_service import build_app_service
from simulator.service.serve import serve_in_thread
from simulator.store.episodes import EpisodeStore


def test_a_mention_in_a_remote_docs_service_mails_through_the_local_mail_app(tmp_path, world_dir, monkeypatch):
    monkeypatch.setenv("OFFICEWORLD_ADMIN_TOKEN", "admin-test-token")
    with serve_in_thread(build_app_service(DOCS, cache_dir=tmp_path / "docs-cache", token="admin-test-token")) as docs_url:
        store = EpisodeStore(cache_dir=tmp_path / "cache", app_urls={"docs": docs_url})
        with TestClient(build_app(store), base_url="http://localhost:8000", headers=CONTROL) as api:
            episode = api.post("/v1/episodes", json={"world": str(world_dir)}).json()
            doc = call(api, episode, "docs", "create_document", name="Plan", text="Launch in May.").json()["id"]
            made = call(api, episode, "docs", "add_comment", file_id=doc, text="@mei can you check?")
            assert made.status_code == 200, made.text
            steps = api.get(f"/v1/episodes/{episode['id']}/trajectory").json()["steps"]
            assert [(s["app"], s["operation"], s["requested_by"]) for s in steps[-2:]] == [
                ("docs", "add_comment", None), ("mail", "send", steps[-2]["index"])]
            inbox = call(api, episode, "mail", "search", query="in:sent subject:mentioned").json()
            assert inbox["total"] == 1 and inbox["messages"][0]["to"] == ["mei@small.test"]
