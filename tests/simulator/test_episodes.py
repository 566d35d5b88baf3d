"""Episodes through the control API: isolation, forks, snapshots, digests, the clock, the trajectory."""

import json
import os

import pytest
from surfaces import call

from simulator.store.compile import compile_world
from simulator.store.episodes import EpisodeStore
from simulator.store.registry import APPS
from worlds import load_world


def digest(api, ep):
    return api.get(f"/v1/episodes/{ep['id']}/digest").json()["digest"]


def test_create_returns_urls_and_the_default_actor(api, episode):
    assert episode["actor"] == "dana@small.test"
    assert episode["mcp_url"].endswith(f"/episodes/{episode['id']}/mcp")
    assert episode["api_url"].endswith(f"/episodes/{episode['id']}/api")
    assert episode["now"] == "2026-03-16T13:00:00Z"
    assert api.get(f"/v1/episodes/{episode['id']}").json()["id"] == episode["id"]


def test_acting_as_another_person(api, world_dir):
    ep = api.post("/v1/episodes", json={"world": str(world_dir), "as": "mei@small.test"}).json()
    subjects = [m["subject"] for m in call(api, ep, "mail", "search", query="in:sent").json()["messages"]]
    assert subjects == ["Outage postmortem for Initech"]
    bad = api.post("/v1/episodes", json={"world": str(world_dir), "as": "ghost@small.test"})
    assert bad.status_code == 422 and "ghost@small.test" in bad.json()["error"]["message"]


def test_unknown_world_and_bad_bodies_get_clear_errors(api):
    missing = api.post("/v1/episodes", json={"world": "atlantis"})
    assert missing.status_code == 404 and "atlantis" in missing.json()["error"]["message"]
    extra = api.post("/v1/episodes", json={"world": "acme", "colour": "red"})
    assert extra.status_code == 422 and extra.json()["error"]["field"] == "colour"
    broken = api.post("/v1/episodes", content=b"{not json", headers={"content-type": "application/json"})
    assert broken.status_code == 422


def test_two_episodes_never_see_each_others_changes(api, world_dir):
    a = api.post("/v1/episodes", json={"world": str(world_dir)}).json()
    b = api.post("/v1/episodes", json={"world": str(world_dir)}).json()
    assert digest(api, a) == digest(api, b)
    call(api, a, "mail", "send", to=["ravi@small.test"], subject="Only in A", body="x")
    assert digest(api, a) != digest(api, b)
    assert call(api, b, "mail", "search", query="Only in A").json()["total"] == 0
    assert call(api, a, "mail", "search", query='"Only in A"').json()["total"] == 1


def test_a_fork_starts_equal_then_diverges_from_its_parent(api, episode):
    call(api, episode, "mail", "create_label", name="Before-fork")
    child = api.post(f"/v1/episodes/{episode['id']}/fork").json()
    assert digest(api, child) == digest(api, episode)
    assert len(api.get(f"/v1/episodes/{child['id']}/trajectory").json()["steps"]) == 1
    call(api, child, "mail", "create_label", name="Child-only")
    call(api, episode, "mail", "create_label", name="Parent-only")
    names = lambda ep: {lab["name"] for lab in call(api, ep, "mail", "list_labels").json()}  # noqa: E731
    assert {"Before-fork", "Child-only"} <= names(child) and "Parent-only" not in names(child)
    assert "Child-only" not in names(episode)


def test_restore_returns_the_exact_digest(api, episode):
    before = digest(api, episode)
    snapshot = api.get(f"/v1/episodes/{episode['id']}/snapshot")
    assert snapshot.headers["content-type"] == "application/zip"
    call(api, episode, "mail", "send", to=["ravi@small.test"], subject="After snapshot", body="x")
    assert digest(api, episode) != before
    restored = api.post(f"/v1/episodes/{episode['id']}/restore", content=snapshot.content)
    assert restored.status_code == 200
    assert digest(api, episode) == before
    garbage = api.post(f"/v1/episodes/{episode['id']}/restore", content=b"not a zip")
    assert garbage.status_code == 422 and digest(api, episode) == before


def test_digest_is_independent_of_row_order(store, world_dir):
    a, b = store.create(str(world_dir)), store.create(str(world_dir))
    conn = b.db("mail").conn
    rows = conn.execute("select * from mail_label").fetchall()
    conn.execute("delete from mail_label")
    conn.executemany("insert into mail_label values (?, ?, ?)", list(reversed(rows)))
    assert a.digest() == b.digest()
    conn.execute("update mail_label set name = 'Changed'")
    assert a.digest() != b.digest()


def test_same_actions_give_the_same_state_byte_for_byte(api, world_dir):
    def play():
        ep = api.post("/v1/episodes", json={"world": str(world_dir)}).json()
        call(api, ep, "mail", "send", to=["ravi@small.test"], subject="Same", body="same")
        first = call(api, ep, "mail", "search", query="subject:outage").json()["messages"][0]
        call(api, ep, "mail", "reply_all", message_id=first["id"], body="ok")
        return digest(api, ep)

    assert play() == play()


def test_the_virtual_clock_moves_per_step_and_on_request(api, episode):
    sent = call(api, episode, "mail", "send", to=["ravi@small.test"], subject="t", body="t").json()
    assert sent["date"] == "2026-03-16T13:00:00Z"
    moved = api.post(f"/v1/episodes/{episode['id']}/clock", json={"seconds": 3600}).json()
    assert moved["now"] == "2026-03-16T14:00:05Z"
    assert api.post(f"/v1/episodes/{episode['id']}/clock", json={"seconds": -1}).status_code == 422


def test_trajectory_records_errors_too(api, episode):
    call(api, episode, "mail", "get_message", message_id=777)
    step = api.get(f"/v1/episodes/{episode['id']}/trajectory").json()["steps"][-1]
    assert step["error"]["type"] == "not_found" and step["state_changed"] is False and step["surface"] == "rest"


def test_delete_and_unknown_episode(api, episode):
    assert api.delete(f"/v1/episodes/{episode['id']}").status_code == 204
    gone = call(api, episode, "mail", "list_labels")
    assert gone.status_code == 404 and episode["id"] in gone.json()["error"]["message"]


def test_creating_episodes_does_not_rebuild_the_world(store, world_dir, monkeypatch):
    store.create(str(world_dir))
    calls = []
    monkeypatch.setattr(APPS["mail"], "build", lambda world: calls.append(world))
    for _ in range(3):
        store.create(str(world_dir))
    fresh = compile_world(load_world(world_dir), APPS, store.cache_dir)
    assert calls == [] and set(fresh) == set(APPS)


def test_tool_schemas_in_openai_format(api):
    tools = {t["function"]["name"]: t for t in api.get("/v1/tools").json()}
    send = tools["mail_send"]
    assert send["type"] == "function"
    assert send["function"]["parameters"]["properties"]["to"]["type"] == "array"


def test_a_server_on_a_compiled_world_reads_only_world_yaml(store, world_dir, monkeypatch):
    store.create(str(world_dir))
    import simulator.store.compile

    def refuse(root, *args, **kwargs):
        raise AssertionError(f"{root} was loaded again although every app's image is cached")

    monkeypatch.setattr(simulator.store.compile, "load_world", refuse)
    fresh = EpisodeStore(cache_dir=store.cache_dir)
    episode = fresh.create(str(world_dir))
    assert episode.world.info.default_actor == "dana@small.test"
    (world_dir / "mail" / "globex" / "1.eml").write_text("changed")  # a changed world must be loaded again
    with pytest.raises(AssertionError, match="loaded again"):
        EpisodeStore(cache_dir=store.cache_dir).create(str(world_dir))


def test_a_world_is_digested_once_and_recorded_episodes_carry_that_digest(world_cache, world_dir, tmp_path,
                                                                          monkeypatch):
    """The digest that found the world's images is the one trajectory headers carry: a recorded episode
    does not stat the world's files again (an xl world's 105,000)."""
    import json

    from worlds import content_hash, digest

    walks = []
    walk, quick = digest._walk_world, digest._quick_stamp
    monkeypatch.setattr(digest, "_walk_world", lambda root: walks.append(root) or walk(root))
    monkeypatch.setattr(digest, "_quick_stamp", lambda root, listing: walks.append(root) or quick(root, listing))
    store = EpisodeStore(cache_dir=world_cache, trajectory_dir=tmp_path / "runs")
    first = store.create(str(world_dir))
    store.create(str(world_dir))
    assert len(walks) == 1
    header = json.loads((tmp_path / "runs" / f"{first.id}.jsonl").read_text().splitlines()[0])
    assert header["world_hash"] == content_hash(world_dir) == store.world(str(world_dir)).content_hash


def test_images_are_opened_when_the_world_is_ready_and_read_on_first_use(world_dir, tmp_path):
    """``store.world`` opens each app's cached image; an image is read when first asked for, from the file
    opened then (the cache may change meanwhile), and a pickled world carries the images themselves."""
    import pickle

    from simulator.store.compile import Images

    cache = tmp_path / "own-cache"   # its files are deleted below: not the run's shared cache
    EpisodeStore(cache_dir=cache).create(str(world_dir))   # compiled into it
    fresh = EpisodeStore(cache_dir=cache)
    images = fresh.world(str(world_dir)).images
    assert isinstance(images, Images) and list(images) == list(APPS) and len(images) == len(APPS)
    cached = {path.name.split(".")[-3]: path for path in cache.glob("*.sqlite")}
    expected = {app: path.read_bytes() for app, path in cached.items()}
    for path in cached.values():
        path.unlink()   # gone from the cache: the opened files still hold them
    assert {app: images[app] for app in images} == expected
    assert images["mail"] is images["mail"]   # read once
    with pytest.raises(KeyError):
        images["nope"]
    assert pickle.loads(pickle.dumps(images)) == expected
    assert fresh.create(str(world_dir)).actor == "dana@small.test"


def test_images_read_in_a_forked_process_leave_this_ones_whole(world_dir, tmp_path):
    """A process forked after the world was made ready shares its open image files (and their offsets): what
    either reads first, the other still reads whole."""
    cache = tmp_path / "own-cache"
    EpisodeStore(cache_dir=cache).create(str(world_dir))
    images = EpisodeStore(cache_dir=cache).world(str(world_dir)).images
    expected = {path.name.split(".")[-3]: path.read_bytes() for path in cache.glob("*.sqlite")}
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:   # the child: every image read here first, its lengths down the pipe
        code = 1
        try:
            os.close(read)
            os.write(write, json.dumps({app: len(images[app]) for app in images}).encode())
            code = 0
        finally:
            os._exit(code)
    os.close(write)
    with os.fdopen(read) as pipe:
        in_child = json.loads(pipe.read())
    assert os.waitpid(pid, 0)[1] == 0
    assert in_child == {app: len(image) for app, image in expected.items()}
    assert {app: images[app] for app in images} == expected
