"""The app-service protocol (``apps.kit.service_protocol``) is what both sides speak: the gateway's
``RemoteHost`` sends and reads its models, the app service serves its paths with them."""

from datetime import datetime, timezone

import httpx
import pytest

from apps.kit import service_protocol as protocol
from apps.kit.errors import Unavailable
from apps.kit.remote import RemoteHost
from simulator.service.app_service import build_app_service
from simulator.service.serve import serve_in_thread
from simulator.store.registry import APPS

SEARCH = APPS["mail"].operations.operations["search"]
NOW = datetime(2026, 3, 20, 9, 30, tzinfo=timezone.utc)


def _host(answer) -> tuple[RemoteHost, list[httpx.Request]]:
    sent: list[httpx.Request] = []

    def handle(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        return answer(request)

    return RemoteHost("mail", "http://mail.internal", transport=httpx.MockTransport(handle), token="t"), sent


def test_the_client_sends_the_protocols_bodies_and_reads_its_answers():
    result = {"result": {"messages": [], "total": 0}, "state_changed": False, "requests": [{"app": "docs"}]}
    host, sent = _host(lambda request: httpx.Response(200, json=result) if request.method == "POST"
                       else httpx.Response(204))
    host.open("ep_1", "acme", fork_from="ep_0")
    outcome = host.call("ep_1", SEARCH, SEARCH.validate({"query": "globex"}), "sam@acme.test", NOW)
    opened, called = sent
    assert opened.url.path == protocol.EPISODE.format(episode_id="ep_1")
    assert protocol.OpenEpisode.model_validate_json(opened.content) == protocol.OpenEpisode(world="acme",
                                                                                            fork_from="ep_0")
    assert called.url.path == protocol.CALL.format(episode_id="ep_1", operation="search")
    body = protocol.CallRequest.model_validate_json(called.content)  # extra fields would be refused
    assert body.actor == "sam@acme.test" and body.now == NOW
    assert body.arguments == {"query": "globex", "limit": 20, "offset": 0}
    assert (outcome.result, outcome.error, outcome.state_changed, outcome.requests) == (
        result["result"], None, False, [{"app": "docs"}])


@pytest.mark.parametrize("answer, field", [({"result": 1}, "state_changed"),
                                           ({"state_changed": "perhaps"}, "state_changed"),
                                           ({"state_changed": True, "requests": "none"}, "requests")])
def test_a_call_answered_outside_the_protocol_is_unavailable_naming_the_field(answer, field):
    host, _ = _host(lambda request: httpx.Response(200, json=answer))
    with pytest.raises(Unavailable) as refused:
        host.call("ep_1", SEARCH, SEARCH.validate({}), "sam@acme.test", NOW)
    assert f"({field}:" in refused.value.message and "mail service" in refused.value.message


def test_a_digest_answered_outside_the_protocol_is_unavailable_naming_the_field():
    host, _ = _host(lambda request: httpx.Response(200, json={"hash": "abc"}))
    with pytest.raises(Unavailable, match=r"digest outside the protocol \(digest:"):
        host.digest("ep_1")


@pytest.fixture(scope="module")
def service(tmp_path_factory):
    app = build_app_service(APPS["mail"], cache_dir=tmp_path_factory.mktemp("cache"), token="s3cret")
    with serve_in_thread(app) as url:
        yield app, url


def test_the_service_serves_the_protocols_paths_with_its_models(service):
    app, _ = service
    spec = app.openapi()
    schemas = spec["components"]["schemas"]
    for path in (protocol.EPISODE, protocol.IMAGE, protocol.DIGEST, protocol.CALL, protocol.HEALTH):
        assert path in spec["paths"], path

    def body(path, method):
        return spec["paths"][path][method]["requestBody"]["content"]["application/json"]["schema"]["$ref"]

    def answer(path, method):
        return spec["paths"][path][method]["responses"]["200"]["content"]["application/json"]["schema"]["$ref"]

    assert body(protocol.EPISODE, "put").endswith("/OpenEpisode")
    assert body(protocol.CALL, "post").endswith("/CallRequest")
    assert answer(protocol.CALL, "post").endswith("/CallResult")
    assert answer(protocol.DIGEST, "get").endswith("/Digest")
    for model in (protocol.OpenEpisode, protocol.CallRequest, protocol.CallResult, protocol.Digest):
        assert set(schemas[model.__name__]["properties"]) == set(model.model_fields), model


def test_the_client_and_the_service_speak_it_end_to_end_and_extra_fields_are_refused(service, world_dir):
    _, url = service
    host = RemoteHost("mail", url, token="s3cret")
    host.open("ep_e2e", str(world_dir))
    outcome = host.call("ep_e2e", SEARCH, SEARCH.validate({"query": "from:sam"}), "sam@acme.test", NOW)
    assert outcome.error is None and outcome.state_changed is False and "messages" in outcome.result
    body = {"arguments": {}, "actor": "sam@acme.test", "now": NOW.isoformat(), "as": "someone"}
    refused = httpx.post(url + protocol.CALL.format(episode_id="ep_e2e", operation="search"),
                         json=body, headers={"authorization": "Bearer s3cret"})
    assert refused.status_code == 422 and refused.json()["error"]["field"] == "as", refused.text
    host.close("ep_e2e")
