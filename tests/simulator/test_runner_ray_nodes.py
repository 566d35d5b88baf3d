"""The runner past one machine: ``officeworld run --ray ADDRESS`` against a two-node Ray cluster
(``ray.cluster_utils.Cluster``: a head and a second node, 1 CPU each, on this machine), as a user
points it at a real cluster's head. The two world server actors land on different nodes, the
driver (this process) keeps the queue and writes every file, and the results are those of the
same command run in one process."""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

import pytest
from typer.testing import CliRunner

from simulator.trajectories.files import files_in, read

ray = pytest.importorskip("ray")

TASKS = ["crm-close-globex-renewal", "crm-contoso-note"]
K = 2
POLICY = ["--scripted", "--slip", "0.5", "--seed", "3"]


@pytest.fixture
def cluster(monkeypatch):
    """A head node and one more, each with 1 CPU and a small object store; torn down after the test. Its files
    go to a folder of its own (``RAY_TMPDIR``, short: Ray's socket paths must stay short): a ``Cluster``
    writes its address where ``ray.init()`` looks for one to join, and another test or run on this machine
    must not join this cluster (nor, were this process killed, a dead one)."""
    from ray.cluster_utils import Cluster

    if ray.is_initialized():   # another module's local instance: this test's driver joins the cluster instead
        ray.shutdown()
    folder = tempfile.mkdtemp(prefix="owray-", dir="/tmp")
    monkeypatch.setenv("RAY_TMPDIR", folder)
    small = {"num_cpus": 1, "object_store_memory": 80 * 1024 * 1024, "include_dashboard": False}
    nodes = Cluster(initialize_head=True, head_node_args=small)
    try:
        assert (Path(folder) / "ray" / "ray_current_cluster").is_file(), "the address is in the folder of its own"
        nodes.add_node(**{k: v for k, v in small.items() if k != "include_dashboard"})
        nodes.wait_for_nodes()
        yield nodes
    finally:
        ray.shutdown()
        nodes.shutdown()
        shutil.rmtree(folder, ignore_errors=True)


def _run(out: Path, *extra: str) -> dict:
    from simulator.cli.main import cli

    argv = ["run", *(a for t in TASKS for a in ("--task", t)), *POLICY, "--k", str(K), "--concurrency", "2",
            "--name", "same-run", "--out", str(out), *extra]
    result = CliRunner().invoke(cli, argv)
    assert result.exit_code == 0, result.output + repr(result.exception)
    return json.loads((out / "results.json").read_text())


def _outcomes(out: Path) -> dict[tuple[str, int], tuple[float, str, float]]:
    """(task, sample) -> (reward logged, the trajectory's end reason, the trajectory's total)."""
    logged = {(r["task"], r["sample"]): r["reward"]
              for r in map(json.loads, (out / "rollouts.jsonl").read_text().splitlines())}
    files = {(f.header.meta["task"], f.header.meta["sample"]): f for f in map(read, files_in(out / "trajectories"))}
    assert set(files) == set(logged) and len(logged) == len(TASKS) * K
    return {key: (reward, files[key].footer.reason, files[key].footer.total) for key, reward in logged.items()}


def test_a_run_over_two_nodes_gives_the_one_process_results(cluster, tmp_path):
    alone = _run(tmp_path / "one-process")
    assert not ray.is_initialized()
    spread = _run(tmp_path / "two-nodes", "--ray", cluster.address, "--actors", "2")

    # Placement: one actor on each node of the cluster, and each ran rollouts the driver handed it.
    nodes = {cluster.head_node.node_id, *(n.node_id for n in cluster.worker_nodes)}
    placement = spread["ray"]["placement"]
    assert len(placement) == 2 and {p["node"] for p in placement.values()} == nodes
    assert all(p["rollouts"] >= 1 for p in placement.values())
    assert sum(p["rollouts"] for p in placement.values()) == len(TASKS) * K

    # The driver kept the queue and wrote every file: the same rewards, trajectories and table.
    one, two = _outcomes(tmp_path / "one-process"), _outcomes(tmp_path / "two-nodes")
    assert two == one
    assert 0 < sum(reward == 1.0 for reward, _, _ in one.values()) < len(one), "the seeded slips should mix rewards"
    assert spread["tasks"] == alone["tasks"]
