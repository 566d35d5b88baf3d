"""Every example of the README runs as written, against a live server on the acme world.

Each command line of the README's ``bash`` blocks is either run here (with the server's address
and a fresh episode's id in place of ``localhost:8000`` and ``ep_…``) and its output checked, or
listed as not run, with the reason; a new README example that is neither fails the test. Each
``python`` block is taken from the README, written to a file and run by Python as a user would
paste it (``PYTHON``), or listed with the reason it is not run here (``PYTHON_NOT_RUN``).
"""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from surfaces import CONTROL, TOKEN

from simulator.gateway.server import build_app
from simulator.service.serve import serve_in_thread
from simulator.store.episodes import EpisodeStore

ROOT = Path(__file__).parents[1]
README = (ROOT / "README.md").read_text()
INSPECTOR = ROOT / "tools" / "inspector" / "node_modules" / ".bin" / "mcp-inspector"

EXPORT = "export OW_URL=http://127.0.0.1:8000 OW_EPISODE=ep_…"
RUN = {  # a README command line -> what its output must contain
    """curl -s -XPOST localhost:8000/v1/episodes -H "authorization: Bearer $OFFICEWORLD_TOKEN" """
    """-H 'content-type: application/json' -d '{"world": "acme"}'""": '"actor":"dana.whitfield@acmeanalytics.com"',
    """curl -s -XPOST localhost:8000/v1/episodes -H "authorization: Bearer $OFFICEWORLD_TOKEN" """
    """-H 'content-type: application/json' -d '{"task": "crm-close-globex-renewal"}'""": '"prompt":"Tanya at Globex',
    "officeworld tasks list --suite crm": "crm-close-globex-renewal",
    "officeworld tasks run-oracle crm-close-globex-renewal": '"passed": true',
    "tools/inspector/node_modules/.bin/mcp-inspector --cli http://127.0.0.1:8000/episodes/ep_…/mcp --transport http "
    "--method tools/list": '"mail_reply_all"',
    """curl -s -XPOST localhost:8000/episodes/ep_…/api/mail/search -H 'content-type: application/json' """
    """-d '{"query": "from:lauren is:unread"}'""": "Pinnacle RFP response team",
    "curl -s localhost:8000/episodes/ep_…/api/tools": '"input_schema"',
    "ow mail search 'from:lauren is:unread'": "Pinnacle RFP response team",
    "ow mail get-message 12 --json": '"subject": "Re: SKO 2026 agenda',
    "ow mail send --to kevin.liu@acmeanalytics.com --subject 'Globex' --body 'Quote is out.'": "kevin.liu@acmeanalytics.com",
    "ow mail reply-all --message-id 12 --body 'Thanks, all.'": "Re: SKO 2026 agenda",
    "ow --help": "mail",
    "officeworld worlds list": "acme",
    "officeworld worlds show acme": "dana.whitfield@acmeanalytics.com",
}
NOT_RUN = {
    """curl -s -XPOST localhost:8000/v1/episodes/ep_…/finish -H "authorization: Bearer $OFFICEWORLD_TOKEN" """
    """-H 'content-type: application/json' -d '{"answer": "done"}'""":
        "finishes the task episode made just above; tests/simulator/test_tasks_api.py finishes task episodes",
    "officeworld run --suite crm --model http://127.0.0.1:8080/v1 --k 8 --out runs/model":
        "needs a model endpoint; tests/simulator/test_runner.py drives the runner with a scripted model server",
    "officeworld run --suite people-security --scripted --slip 0 --k 1 --out runs/sec-oracle":
        "50 rollouts; tests/simulator/test_security_run.py runs the scripted oracle over security pairs",
    "python -m bench.baselines.obedient --port 8765 &":
        "serves until stopped; tests/simulator/test_security_run.py serves the same app on a free port",
    "officeworld run --suite people-security --model http://127.0.0.1:8765/v1 --k 1 --out runs/sec-obedient":
        "needs the baseline above; tests/simulator/test_security_run.py runs the runner against it",
    "officeworld run --suite crm --scripted --k 4 --out runs/smoke":
        "a minute of rollouts; tests/simulator/test_runner_ray.py runs the scripted policy in one process and on Ray",
    "officeworld run --suite crm --scripted --k 4 --ray local --actors 2 --out runs/smoke-ray":
        "starts Ray; tests/simulator/test_runner_ray.py runs the same over two actors on a local Ray",
    "ray start --head --port 6379": "starts a Ray head that outlives the test; the tests start Ray with ray.init",
    "officeworld run --suite crm --model http://gpu-box:8080/v1 --k 16 --ray auto --actors 16 --out runs/x":
        "needs a Ray cluster and a model endpoint",
    "officeworld run --suite crm --scripted --k 4 --ray HEAD:6379 --actors 4 --out runs/y":
        "needs a Ray cluster; tests/simulator/test_runner_ray_nodes.py runs it against a two-node cluster's head",
    "python examples/learn_from_rewards.py --out runs/learn":
        "about a minute on a shared CPU; tests/trainers/test_learn_from_rewards.py runs a short seeded version",
    "python examples/learn_from_rewards.py --model http://127.0.0.1:8080/v1 --rounds 4 --out runs/learn-llm":
        "needs a model endpoint; the runner it uses is tested in tests/simulator/test_runner.py",
    "python examples/learn_from_rewards.py --trl Qwen/Qwen3-0.6B --rounds 50 --out runs/learn-trl":
        "needs a GPU and the model's weights; trainers/trl.py has its own tests",
    "officeworld learnability --suite crm --model http://127.0.0.1:8080/v1 --k 16 --out runs/crm-learn":
        "needs a model endpoint; tests/simulator/test_learnability.py drives it with a scripted model",
    "python -m trainers.openenv_package /tmp/officeworld_env":
        "writes into /tmp; tests/trainers/test_openenv_package.py writes the package and validates it",
    ".venv-openenv/bin/openenv validate /tmp/officeworld_env":
        "reads the package above; tests/trainers/test_openenv_package.py runs openenv's validator on one",
    ".venv-openenv/bin/openenv build /tmp/officeworld_env":
        "needs a Docker engine; tests/trainers/test_openenv_package.py runs it with a stand-in docker and "
        ".ci/openenv-image builds the Dockerfile with Podman",
    "docker run -p 8000:8000 -e OFFICEWORLD_SUITE=mail openenv-officeworld":
        "needs a Docker engine; .ci/openenv-image runs the image with Podman",
    ".venv-openenv/bin/openenv push /tmp/officeworld_env --repo-id YOU/officeworld":
        "needs the Hugging Face Hub and a login: not run anywhere",
    "officeworld openenv --suite crm --port 8001":
        "serves until stopped; tests/trainers/test_openenv.py starts it and drives it with OpenEnv's own client",
    "./dev.sh up": "serves until stopped; the server it starts is the one started here",
    "./dev.sh test": "it runs this suite",
    "officeworld worlds check path/to/world": "a placeholder path; tests/worlds/test_cli.py checks worlds",
    "officeworld worlds generate --seed 7 --size m --out /tmp/w7": "minutes here; tests/worlds generate worlds",
    "officeworld worlds generate --seed 3 --size s --kind legal --out /tmp/law":
        "writes into /tmp; tests/worlds/test_kinds.py generates a law firm and a logistics firm",
    "officeworld tasks corpus": "the whole plan writes three generated worlds; tests/scenarios/test_corpus_surfaces.py "
                                "runs it on a smaller plan",
    "officeworld tasks list --split test": "as above: tests/scenarios/test_corpus_surfaces.py lists a split",
    "officeworld tasks export train.jsonl --split train": "as above: tests/scenarios/test_corpus_surfaces.py exports",
    "officeworld tasks export test.parquet --split test --format parquet":
        "as above; tests/scenarios/test_corpus_surfaces.py exports jsonl",
    "python -c \"import datasets; print(datasets.load_dataset('json', data_files='train.jsonl'))\"":
        "reads the export above; the layout is tests/scenarios/test_corpus_surfaces.py's",
    "OFFICEWORLD_ADMIN_TOKEN=$(openssl rand -hex 16) docker compose up --wait":
        "needs a Docker engine; tests/sandbox/test_compose_file.py checks the file",
    "OFFICEWORLD_ADMIN_TOKEN=$(openssl rand -hex 16) OFFICEWORLD_GATEWAYS=4 docker compose -f compose.yaml -f "
    "compose.scale.yaml up --wait": "needs a Docker engine; .ci/compose runs the same two files with Podman and 2 "
                                    "replicas (tests/deploy/test_compose_scale_live.py)",
    "officeworld up --backend processes": "serves until stopped; tests/sandbox/test_processes.py runs the command",
    ".venv-side/bin/vf-validate officeworld-verifiers --taskset.suite crm --runtime.type subprocess":
        "the whole crm suite takes minutes; tests/trainers/test_verifiers.py runs vf-validate on a few tasks",
    ".venv-side/bin/vf-eval officeworld-verifiers --env.taskset.suite crm --env.agent.runtime.type subprocess "
    "--env.agent.max-turns 30 --model my-model --client.base-url http://127.0.0.1:8080/v1 "
    "--client.api-key-var MY_KEY -r 8 --no-push":
        "needs a model endpoint; tests/trainers/test_verifiers.py runs vf-eval with a scripted model server",
    "sudo .ci/compose": "CI's last step (.ci/run); needs root and Podman, and minutes",
    "OFFICEWORLD_TRAJECTORY_DIR=runs/live officeworld up --resume":
        "serves until stopped; tests/hardening/test_resume.py kills a server and resumes it",
    "export OFFICEWORLD_JUDGE_URL=https://api.example.com/v1 OFFICEWORLD_JUDGE_MODEL=your-model OFFICEWORLD_JUDGE_KEY=…":
        "needs a real judge endpoint; tests/tasks/test_calibration.py runs the calibration against a stand-in server",
    "officeworld tasks agreement legal-memo-ridgeway-consent --judge":
        "needs a real judge endpoint; tests/tasks/test_calibration.py runs the command against a stand-in server",
    "OFFICEWORLD_TRAJECTORY_DIR=trajectories officeworld up --workers 4 --port 8000":
        "serves until stopped; tests/simulator/test_shards.py runs two workers behind HAProxy and kills one",
    "officeworld bench --load --episodes 500 --seconds 10":
        "minutes of load on a shared machine; tests/simulator/test_bench_load.py runs it with 3 episodes",
    "pip install ./environments/officeworld_env ./trainers/verifiers_taskset":
        "installs into the venv it runs in; tests/trainers/test_verifiers_hub.py builds both wheels and installs "
        "them into a folder of their own",
    "vf-eval OWNER/officeworld-env --env.taskset.suite crm --env.agent.runtime.type subprocess --env.agent.max-turns 30 "
    "--model my-model --client.base-url http://127.0.0.1:8080/v1 -r 8 --no-push":
        "needs a model endpoint; tests/trainers/test_verifiers_hub.py runs vf-eval by the Hub id with a stand-in model",
    "officeworld bench --load --mix write --episodes 500 --seconds 10":
        "minutes of load on a shared machine; tests/simulator/test_bench_load.py runs the write mix with 3 episodes",
}


IN_ORDER = [  # README command lines run one after the other in one fresh folder (each reads what the last wrote)
    ("officeworld run --task crm-close-globex-renewal --scripted --k 2 --out runs/x", "crm-close-globex-renewal"),
    ("officeworld replay $(ls runs/x/trajectories/*.jsonl | head -1)", "no divergence"),
    ("officeworld grade runs/x/trajectories/", "crm-close-globex-renewal"),
    ("officeworld trajectories export runs/x/trajectories/ --format jsonl --out runs/sft.jsonl", "2 conversation(s)"),
    ("officeworld view runs/x/trajectories/ --out runs/view.html", "-> runs/view.html"),
    ("officeworld view $(ls runs/x/trajectories/*.jsonl | head -1) --no-diffs --out runs/ep.html", "-> runs/ep.html"),
]
PYTHON = {  # a line of a README python block -> what its output must contain when run as a script
    "from simulator.gateway.client import Client": "0.0",
    "from mcp import Client": "@globexlogistics.com",
    "import gymnasium as gym, json, trainers.gym": "0.0 False False",
    "from openenv import GenericEnvClient     # OpenEnv's own client, in .venv-side": "Globex",
}
PYTHON_NOT_RUN = {
    "from trainers.trl import train": "downloads Qwen3-0.6B and trains for minutes; tests/trainers/test_trl.py runs "
                                      "GRPO steps on CPU with a tiny model it builds",
    "import skyrl_gym, trainers.skyrl": "needs the skyrl extra and a world's url and token in the snippet's names; "
                                        "tests/trainers/test_skyrl.py drives the same calls through skyrl_gym.make",
}


def readme_blocks(language: str) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```", README, flags=re.S | re.M)


def command_lines() -> list[str]:
    """The command lines of the README's bash blocks, without their trailing comments."""
    lines = (line for block in readme_blocks("bash") for line in block.splitlines())
    return [re.split(r"\s{2,}#", line)[0].strip() for line in lines if line.strip() and not line.startswith("#")]


def test_every_readme_command_is_run_here_or_says_why_not():
    listed = {EXPORT, *RUN, *NOT_RUN, *(line for line, _ in IN_ORDER)}
    assert set(command_lines()) == listed, (set(command_lines()) - listed, listed - set(command_lines()))


@pytest.fixture(scope="module")
def acme(world_cache):
    store = EpisodeStore(cache_dir=world_cache)  # the run's shared compiled worlds
    with serve_in_thread(build_app(store)) as url:
        episode = httpx.post(f"{url}/v1/episodes", json={"world": "acme"}, timeout=600, headers=CONTROL).json()
        yield url, episode


def _substitute(text: str, url: str, episode: dict) -> str:
    netloc = url.split("://", 1)[1]
    return text.replace("ep_…", episode["id"]).replace("localhost:8000", netloc).replace("127.0.0.1:8000", netloc)


def _run(acme, line: str, home: Path, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    url, episode = acme
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}", "HOME": str(home)}
    script = _substitute(f"{EXPORT}\n{line}", url, episode)
    return subprocess.run(["bash", "-c", script], capture_output=True, text=True, env=env, cwd=cwd, timeout=180)


@pytest.mark.parametrize("line", list(RUN))
def test_readme_command_runs_as_written(acme, line, tmp_path):
    if line.startswith("tools/inspector") and not INSPECTOR.exists():
        pytest.skip("the MCP Inspector is not installed (./dev.sh installs it)")
    done = _run(acme, line, tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    assert RUN[line] in done.stdout, done.stdout[-2000:]


def test_the_mail_the_readme_sends_is_delivered(acme, tmp_path):
    url, episode = acme
    [send] = [line for line in RUN if line.startswith("ow mail send")]
    assert _run(acme, send, tmp_path).returncode == 0
    bounces = httpx.post(f"{url}/episodes/{episode['id']}/api/mail/search", json={"query": "from:mailer-daemon"})
    assert bounces.status_code == 200 and bounces.json()["messages"] == []
    sent = httpx.post(f"{url}/episodes/{episode['id']}/api/mail/search", json={"query": "in:sent subject:Globex"})
    assert "kevin.liu@acmeanalytics.com" in json.dumps(sent.json())


def test_the_trajectory_commands_run_in_order_as_written(acme, tmp_path):
    for line, expected in IN_ORDER:
        done = _run(acme, line, tmp_path, cwd=tmp_path)
        assert done.returncode == 0, (line, done.stderr[-2000:])
        assert expected in done.stdout + done.stderr, (line, done.stdout[-2000:], done.stderr[-2000:])
    assert len((tmp_path / "runs" / "sft.jsonl").read_text().splitlines()) == 2
    assert (tmp_path / "runs" / "view.html").read_text().count('class="episode"') == 2


def _python_block(marker: str) -> str:
    [block] = [b for b in readme_blocks("python") if marker in b.splitlines()]
    return block


def test_every_python_block_is_run_here_or_says_why_not():
    for block in readme_blocks("python"):
        marks = [line for line in block.splitlines() if line in PYTHON or line in PYTHON_NOT_RUN]
        assert len(marks) == 1, block


def _run_python(block: str, python: str, env: dict, cwd: Path) -> subprocess.CompletedProcess:
    script = cwd / "snippet.py"   # as pasted into a file and run
    script.write_text(block)
    return subprocess.run([python, str(script)], capture_output=True, text=True, env=env, cwd=cwd, timeout=300)


@pytest.mark.parametrize("marker", [m for m in PYTHON if "openenv" not in m])
def test_readme_python_block_runs_as_written(acme, marker, tmp_path):
    url, episode = acme
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OFFICEWORLD_TOKEN": TOKEN, "HOME": str(tmp_path)}
    done = _run_python(_substitute(_python_block(marker), url, episode), sys.executable, env, tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    assert PYTHON[marker] in done.stdout, done.stdout[-2000:]


def test_the_openenv_block_runs_with_the_side_venvs_python(acme, tmp_path):
    """As the README says: ``officeworld openenv`` serving (here in front of the test's world), the block run by
    ``.venv-side/bin/python``, where OpenEnv's client is installed."""
    side = ROOT / ".venv-side" / "bin" / "python"
    if not side.exists():
        pytest.skip("the side venv is not installed (./dev.sh test installs it)")
    url, _ = acme
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OFFICEWORLD_TOKEN": TOKEN}
    server = subprocess.Popen([sys.executable, "-m", "simulator.cli", "openenv", "--port", str(port), "--server", url],
                              env=env, cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        while True:   # bounded wait for it to answer; no time is asserted
            assert server.poll() is None, server.stderr.read() if server.stderr else ""
            try:
                if httpx.get(f"http://127.0.0.1:{port}/health", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert time.monotonic() < deadline, "officeworld openenv did not start"
            time.sleep(0.1)
        marker = next(m for m in PYTHON if "openenv" in m)
        block = _python_block(marker).replace("127.0.0.1:8001", f"127.0.0.1:{port}")
        done = _run_python(block, str(side), {**os.environ, "HOME": str(tmp_path)}, tmp_path)
    finally:
        server.terminate()
        server.wait(timeout=60)
    assert done.returncode == 0, done.stderr[-3000:]
    assert PYTHON[marker] in done.stdout, done.stdout[-2000:]


def test_the_desktop_client_config_names_the_stdio_command():
    [block] = readme_blocks("json")
    server = json.loads(block)["mcpServers"]["officeworld"]
    assert server["command"].endswith("/.venv/bin/officeworld") and server["args"][0] == "mcp"
    done = subprocess.run([sys.executable, "-m", "simulator.cli", *server["args"], "--help"], capture_output=True,
                          text=True, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=120)
    assert done.returncode == 0 and "--world" in done.stdout, done.stderr
