"""The agent CLI ``ow`` against a live server: commands come from operations, errors exit non-zero."""

import json
import os
import subprocess
import sys

import httpx
import pytest
from surfaces import CONTROL, new_episode, run_ow


@pytest.fixture
def ow(live_server, world_dir):
    episode = new_episode(live_server, world_dir)

    def run(*args: str) -> subprocess.CompletedProcess:
        return run_ow(live_server, episode["id"], *args)

    run.episode = episode
    run.base = live_server
    return run


def test_search_with_a_positional_query_prints_json(ow):
    done = ow("mail", "search", "from:sam is:unread", "--json")
    assert done.returncode == 0, done.stderr
    assert [m["subject"] for m in json.loads(done.stdout)["messages"]] == ["Globex renewal pricing"]


def test_send_with_options_delivers_and_is_recorded_as_cli(ow):
    done = ow("mail", "send", "--to", "ravi@small.test,mei@small.test", "--subject", "Standup", "--body", "At 10.")
    assert done.returncode == 0, done.stderr
    assert "Standup" in done.stdout
    steps = httpx.get(f"{ow.base}/v1/episodes/{ow.episode['id']}/trajectory", headers=CONTROL).json()["steps"]
    assert (steps[-1]["surface"], steps[-1]["operation"]) == ("cli", "send")
    assert steps[-1]["arguments"]["to"] == ["ravi@small.test", "mei@small.test"]


def test_human_output_is_a_table(ow):
    done = ow("mail", "search", "in:inbox")
    assert done.returncode == 0 and "Outage postmortem for Initech" in done.stdout


def test_errors_go_to_stderr_with_the_kind_as_exit_code(ow):
    missing = ow("mail", "get-message", "4242")
    assert missing.returncode == 4 and "no message 4242" in missing.stderr and missing.stdout == ""
    invalid = ow("mail", "send", "--to", "bogus", "--subject", "s", "--body", "b")
    assert invalid.returncode == 2 and "not an email address" in invalid.stderr


def test_structured_arguments_take_json(ow):
    files = json.dumps([{"filename": "notes.txt", "mime_type": "text/plain", "text": "hello"}])
    done = ow("mail", "send", "--to", "mei@small.test", "--subject", "Notes", "--body", "see file",
              "--attachments", files, "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["attachments"][0]["filename"] == "notes.txt"
    bad = ow("mail", "send", "--to", "mei@small.test", "--subject", "x", "--body", "y", "--attachments", "[oops")
    assert bad.returncode == 2 and "not valid JSON" in bad.stderr


def test_without_an_episode_it_says_what_to_set(ow, monkeypatch):
    done = subprocess.run([sys.executable, "-m", "simulator.agent.ow", "mail", "list-labels"], capture_output=True,
                          text=True, env={k: v for k, v in os.environ.items() if k != "OW_EPISODE"}, timeout=60)
    assert done.returncode == 2 and "OW_EPISODE" in done.stderr


def test_an_id_is_taken_by_position_or_by_its_option_alike(ow):
    by_place = ow("mail", "get-message", "1", "--json")
    by_option = ow("mail", "get-message", "--message-id", "1", "--json")
    assert by_place.returncode == 0 and by_option.returncode == 0, by_option.stderr
    assert json.loads(by_place.stdout) == json.loads(by_option.stdout)
    search = ow("mail", "search", "--query", "from:sam is:unread", "--json")
    assert [m["subject"] for m in json.loads(search.stdout)["messages"]] == ["Globex renewal pricing"]
    twice = ow("mail", "get-message", "1", "--message-id", "2")
    assert twice.returncode == 2 and "given twice" in twice.stderr
    neither = ow("mail", "get-message")
    assert neither.returncode == 2 and "MESSAGE_ID (or --message-id)" in neither.stderr
    steps = httpx.get(f"{ow.base}/v1/episodes/{ow.episode['id']}/trajectory", headers=CONTROL).json()["steps"]
    assert [s["arguments"] for s in steps if s["operation"] == "get_message"] == [{"message_id": 1}] * 2
