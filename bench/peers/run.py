"""Side by side, by hand (not in CI): officeworld's bench and its peers' in one run, as ratios.

    python bench/peers/run.py [--repeat 200] [--venvs DIR]

Installs AgentDojo 0.1.35 and openenv-core 0.3.0 from the package registry into their own virtual
environments (under ``--venvs``, default ``~/.cache/officeworld/peers``; kept for the next run), then
measures, one after the other on this machine: ``officeworld bench`` (this interpreter), AgentDojo's
reset and tool calls in process (``agentdojo_probe.py``) and OpenEnv's reset and MCP tool call over
HTTP with its server in its own process (``openenv_probe.py``). Prints every figure and each
officeworld figure as a ratio to the peer's (below 1: officeworld is faster). Nothing is asserted.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).parent
PEERS = {"agentdojo": "agentdojo==0.1.35", "openenv": "openenv-core==0.3.0"}


def venv(root: Path, name: str) -> Path:
    python = root / name / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(root / name)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "-q", PEERS[name], "httpx", "uvicorn"], check=True)
    return python


def probe(python: Path, script: str, *args: str) -> dict:
    done = subprocess.run([str(python), str(HERE / script), *args], capture_output=True, text=True, timeout=900)
    if done.returncode != 0:
        raise SystemExit(f"{script} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def ours(repeat: int) -> dict:
    done = subprocess.run([sys.executable, "-m", "simulator.cli", "bench", "--repeat", str(repeat)],
                          capture_output=True, text=True, timeout=1800, cwd=HERE.parents[1])
    if done.returncode != 0:
        raise SystemExit(f"officeworld bench failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout)


def ratios(ow: dict, ad: dict, oe: dict) -> list[tuple[str, float, str, float]]:
    ops = ow["op_in_process"]
    served = ow["served"]
    pairs = [
        ("episode_create", ow["episode_create"], "agentdojo reset", ad["reset"]),
        ("episode_create", ow["episode_create"], "openenv reset (HTTP)", oe["reset"]),
        ("mail.get_message in process", ops["mail.get_message"], "agentdojo search_emails", ad["tool_search_emails"]),
        ("mail.star in process", ops["mail.star"], "agentdojo get_unread_emails", ad["tool_get_unread_emails"]),
        ("REST mail_get_message", served["rest_mail_get_message"], "openenv MCP tools/call", oe["mcp_tool_call"]),
        ("MCP mail_get_message", served["mcp_mail_get_message"], "openenv MCP tools/call", oe["mcp_tool_call"]),
        ("/health", served["health"], "openenv /health", oe["health"]),
    ]
    return [(a, x["median_us"], b, y["median_us"]) for a, x, b, y in pairs]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=200)
    parser.add_argument("--venvs", type=Path, default=Path.home() / ".cache" / "officeworld" / "peers")
    args = parser.parse_args()
    args.venvs.mkdir(parents=True, exist_ok=True)
    pythons = {name: venv(args.venvs, name) for name in PEERS}
    ow = ours(args.repeat)
    ad = probe(pythons["agentdojo"], "agentdojo_probe.py", str(args.repeat))
    with tempfile.TemporaryDirectory() as work:
        oe = probe(pythons["openenv"], "openenv_probe.py", str(args.repeat), work)
    print(json.dumps({"officeworld": ow, "agentdojo": ad, "openenv": oe}, indent=1))
    print(f"\n{'officeworld':32} {'µs':>9}   {'peer':28} {'µs':>9}  ratio")
    for a, x, b, y in ratios(ow, ad, oe):
        print(f"{a:32} {x:9.1f}   {b:28} {y:9.1f}  {x / y:5.2f}")


if __name__ == "__main__":
    main()
