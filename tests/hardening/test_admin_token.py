"""An app service's admin API answers only requests bearing its token; the gateway's RemoteHost sends it."""

import httpx
import pytest

from apps.kit import Forbidden
from apps.kit.remote import RemoteHost
from simulator.service.app_service import build_app_service
from simulator.service.serve import serve_in_thread
from simulator.store.registry import APPS


@pytest.fixture
def mail_service(tmp_path):
    with serve_in_thread(build_app_service(APPS["mail"], cache_dir=tmp_path / "cache", token="s3cret")) as url:
        yield url


@pytest.mark.parametrize("headers", [{}, {"authorization": "Bearer wrong"}, {"authorization": "s3cret"}])
def test_admin_requests_without_the_token_are_refused(mail_service, world_dir, headers):
    response = httpx.put(f"{mail_service}/admin/episodes/ep_1", json={"world": str(world_dir)}, headers=headers)
    assert response.status_code == 403
    assert response.json()["error"]["field"] == "authorization"
    assert httpx.get(f"{mail_service}/health").json()["episodes"] == 0


def test_the_remote_host_with_the_token_drives_the_app_and_without_it_cannot(mail_service, world_dir):
    host = RemoteHost("mail", mail_service, token="s3cret")
    host.open("ep_1", str(world_dir))
    assert len(host.digest("ep_1")) == 64
    with pytest.raises(Forbidden):
        RemoteHost("mail", mail_service).digest("ep_1")


def test_a_service_will_not_start_without_a_token():
    with pytest.raises(ValueError, match="OFFICEWORLD_ADMIN_TOKEN"):
        build_app_service(APPS["mail"], token="")
