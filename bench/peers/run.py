"""Side by side, by hand (not in CI): officeworld's bench and its peers' in one run, as ratios.

    python bench/peers/run.py [--repeat 200] [--venvs DIR] [--live 0] [--only openenv] [--json OUT]

Installs AgentDojo 0.1.35 and openenv-core 0.3.0 with pip (as this machine's pip is configured) into their own
virtual environments (under ``--venvs``, default ``~/.cache/officeworld/peers``; kept for the next run), then
measures on this machine: each peer's probe, ``officeworld bench`` (this interpreter), each peer's probe
again. A peer's figure is the lower median (or best start) of its two runs, so a noisy moment of the shared
machine never flatters officeworld. ``agentdojo_probe.py``: AgentDojo's reset and tool calls in process, as
its benchmark makes them; ``openenv_probe.py``: OpenEnv's server start (until ``/health`` answers, best of
three), reset and tool calls with its server in its own process, through its own client and over plain HTTP,
and through the clients ``ours_probe.py`` measures officeworld's MCP server with right after ``officeworld
bench`` (a bare JSON-RPC ``tools/call`` from httpx and from Node's fetch, the official Python and TypeScript
SDK clients, the TypeScript one by ``ts_client.cjs`` from tools/inspector's node_modules): the same client on
both servers, with each server's CPU per call, and each client alone before ``canned.py`` (answers from
memory: the least any server could give that client). ``pairs.py`` says which figure is compared with which,
and prints what each side measured. ``--only`` leaves the other peers (and their installs) out. Nothing is
asserted.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))

from pairs import PAIRS, dig, ratios, steadier, table  # noqa: E402

PEERS = {"agentdojo": "agentdojo==0.1.35", "openenv": "openenv-core==0.3.0"}


def venv(root: Path, name: str) -> Path:
    python = root / name / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(root / name)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "-q", PEERS[name], "httpx", "uvicorn"], check=True)
    return python


def probe(python: Path, script: str, *args: str) -> dict:
    done = subprocess.run([str(python), str(HERE / script), *args], capture_output=True, text=True, timeout=900,
                          cwd=HERE)
    if done.returncode != 0:
        raise SystemExit(f"{script} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def peers(pythons: dict[str, Path], repeat: int) -> dict[str, dict]:
    with tempfile.TemporaryDirectory() as work:
        args = {"agentdojo": ("agentdojo_probe.py", str(repeat)), "openenv": ("openenv_probe.py", str(repeat), work)}
        return {name: probe(python, *args[name]) for name, python in pythons.items()}


def ours(repeat: int, live: int) -> dict:
    done = subprocess.run([sys.executable, "-m", "simulator.cli", "bench", "--repeat", str(repeat), "--live", str(live)],
                          capture_output=True, text=True, timeout=1800, cwd=HERE.parents[1])
    if done.returncode != 0:
        raise SystemExit(f"officeworld bench failed:\n{done.stderr[-3000:]}")
    figures = json.loads(done.stdout)
    figures["same_client"] = probe(Path(sys.executable), "ours_probe.py", str(repeat))
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=200)
    parser.add_argument("--venvs", type=Path, default=Path.home() / ".cache" / "officeworld" / "peers")
    parser.add_argument("--live", type=int, default=0, help="officeworld bench's --live (0: leave it out)")
    parser.add_argument("--only", choices=sorted(PEERS), action="append", help="these peers only (repeatable)")
    parser.add_argument("--json", type=Path, default=None, help="also write every figure of the run here")
    args = parser.parse_args()
    args.venvs.mkdir(parents=True, exist_ok=True)
    pythons = {name: venv(args.venvs, name) for name in (args.only or PEERS)}
    started = time.monotonic()
    before = peers(pythons, args.repeat)
    ow = ours(args.repeat, args.live)
    after = peers(pythons, args.repeat)
    merged = {name: steadier(before[name], after[name]) for name in pythons}
    used = {".".join(path): dig(ow, path) for _, path, *_ in PAIRS}
    print(json.dumps({"officeworld (the figures compared)": used, "world": ow.get("world"),
                      "machine": ow.get("machine"), **merged}, indent=1))
    print(f"\none run, {time.monotonic() - started:.0f} s; each peer probed before and after officeworld's bench")
    print(table(ratios(ow, merged)))
    if args.json:
        args.json.write_text(json.dumps({"officeworld": ow, "peers_before": before, "peers_after": after}, indent=1))


if __name__ == "__main__":
    main()
