"""The runner over Ray, on a local Ray instance this module starts (2 CPUs) and shuts down: the same
rewards as the single-process runner for the scripted policy, and an actor killed mid-run whose
rollouts are run again elsewhere, none lost and none counted twice."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from simulator.gateway.client import AsyncClient
from simulator.gateway.server import build_app
from simulator.runner.distributed import WorldPool, run_on_ray
from simulator.runner.run import RunSettings, report, run_rollouts
from simulator.runner.scripted import OraclePolicy
from simulator.service.serve import serve_in_thread
from simulator.store.episodes import EpisodeStore
from simulator.trajectories.files import files_in, read

ray = pytest.importorskip("ray")

TASKS = ["crm-close-globex-renewal", "crm-contoso-note", "crm-reassign-tyrell"]
K = 3
POLICY = dict(slip=0.4, seed=7)


@pytest.fixture(scope="module")
def pool():
    """Two world server actors on a local Ray instance, kept for both tests (actors take seconds to start)."""
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        with WorldPool(2) as pool:
            yield pool
    finally:
        ray.shutdown()


@pytest.fixture(scope="module")
def single(tmp_path_factory) -> dict:
    """The single-process runner's results for the same policy and seeds: (task, sample) -> reward."""
    out = tmp_path_factory.mktemp("single")
    settings = RunSettings(name="single", k=K, concurrency=4)

    async def go(base):
        async with AsyncClient(base, "tok") as ow:
            return await run_rollouts(ow, OraclePolicy(**POLICY), TASKS, settings, out, out / "trajectories")
    with serve_in_thread(build_app(EpisodeStore(trajectory_dir=out / "trajectories"), token="tok")) as base:
        results = asyncio.run(go(base))
    return {(r["task"], r["sample"]): r["reward"] for r in results}


def _files(folder: Path) -> dict[tuple[str, int], object]:
    files = [read(p) for p in files_in(folder)]
    keyed = {(f.header.meta["task"], f.header.meta["sample"]): f for f in files}
    assert len(keyed) == len(files), "two trajectory files for one rollout"
    return keyed


def test_two_actors_give_the_single_process_rewards(pool, single, tmp_path):
    assert 0 < sum(r == 1.0 for r in single.values()) < len(single), "the scripted policy should give mixed rewards"
    settings = RunSettings(name="on-ray", k=K, concurrency=4)
    gathered = run_on_ray(OraclePolicy(**POLICY), TASKS, settings, tmp_path, pool=pool)
    assert (gathered.ran, gathered.retried, gathered.replaced) == (len(TASKS) * K, 0, 0)
    assert {(r["task"], r["sample"]): r["reward"] for r in gathered.results} == single
    result = report(gathered.results, settings, {})
    per_task = {t: m["reward_mean"] for t, m in result["tasks"].items()}
    assert per_task == {t: round(sum(single[t, s] for s in range(K)) / K, 4) for t in TASKS}
    files = _files(tmp_path / "trajectories")
    assert set(files) == set(single)
    assert all(f.footer.reason == "finish" and f.footer.total == single[key] for key, f in files.items())
    logged = [json.loads(line) for line in (tmp_path / "rollouts.jsonl").read_text().splitlines()]
    assert sorted((r["task"], r["sample"]) for r in logged) == sorted(single)


def test_a_killed_actor_loses_and_doubles_no_rollout(pool, single, tmp_path):
    settings = RunSettings(name="killed", k=K, concurrency=4)
    killed = []

    def progress(advance: int, total: int | None) -> None:
        if total is None and not killed:   # the first rollout is back: kill the first actor mid-run
            name = pool.names()[0]
            ray.kill(ray.get_actor(name))
            killed.append(name)
    gathered = run_on_ray(OraclePolicy(**POLICY), TASKS, settings, tmp_path, pool=pool, progress=progress)
    assert killed and gathered.replaced == 1 and gathered.retried >= 1
    assert gathered.actors[0] != killed[0] and gathered.actors[1] == pool.names()[1]
    keys = [(r["task"], r["sample"]) for r in gathered.results]
    assert sorted(keys) == sorted(single) and gathered.ran == len(single)
    assert {(r["task"], r["sample"]): r["reward"] for r in gathered.results} == single
    assert set(_files(tmp_path / "trajectories")) == set(single)
    logged = [json.loads(line) for line in (tmp_path / "rollouts.jsonl").read_text().splitlines()]
    assert len(logged) == len(single)

    # The same run again: everything is done, nothing runs, the same results come back from the files.
    again = run_on_ray(OraclePolicy(**POLICY), TASKS, settings, tmp_path, pool=pool)
    assert again.ran == 0 and {(r["task"], r["sample"]): r["reward"] for r in again.results} == single


def test_a_world_server_can_be_the_client_of_a_gateway(single, tmp_path):
    """The actor's body, without Ray: rollouts against a gateway, whose own folder keeps the files."""
    from simulator.runner.distributed import WorldServer

    folder = tmp_path / "gateway"
    with serve_in_thread(build_app(EpisodeStore(trajectory_dir=folder), token="gw")) as base:
        server = WorldServer(server=base, token="gw")
        settings = RunSettings(name="via-gateway", k=1)

        async def go():
            return [await server.rollout(OraclePolicy(**POLICY), settings, t, 0) for t in TASKS]
        got = asyncio.run(go())
    assert all(g["trajectory"] is None for g in got)
    assert {g["result"]["task"]: g["result"]["reward"] for g in got} == {t: single[t, 0] for t in TASKS}
    assert {k: f.footer.total for k, f in _files(folder).items()} == {(t, 0): single[t, 0] for t in TASKS}


def test_the_cli_wants_exactly_one_policy():
    from typer.testing import CliRunner

    from simulator.cli.main import cli

    def run(*argv: str) -> tuple[int, str]:
        result = CliRunner().invoke(cli, ["run", *argv])
        return result.exit_code, " ".join(result.output.replace("│", " ").split())   # the box rich draws, unwrapped

    for argv in (["--task", TASKS[0]], ["--task", TASKS[0], "--scripted", "--model", "http://x/v1"]):
        code, output = run(*argv)
        assert code == 2 and "--model URL or --scripted" in output, output
    code, output = run("--task", "no-such-task", "--scripted", "--ray", "local")
    assert code == 2 and "no task 'no-such-task'" in output, output
