"""Which officeworld figure is compared with which peer figure, and the ratios (pure; no timing here).

Each pair compares like with like: an in-process call with an in-process call (on this process's CPU
time, steadier than wall time on a shared machine), a reset with an episode create, an HTTP or MCP call
with an HTTP or MCP call, each server in its own process (wall time as the client sees it). Below 1:
officeworld is faster.

The MCP pairs of ``SAME_CLIENT`` put the same client before both servers (``ours_probe.py`` and
``openenv_probe.py``), so their ratio is the servers' and not the clients': a bare JSON-RPC ``tools/call``
in a session from httpx and from Node's fetch, and the official Python and TypeScript SDK clients, which
OpenEnv's ``/mcp`` refuses (its own JSON-RPC endpoint, not MCP's streamable HTTP); such a row says
NOT REACHABLE and why, with no ratio. Each also gives both servers' CPU per call, read from /proc.

``FLOOR`` puts each client before ``canned.py``, an endpoint that answers from memory: that client's wall
time with no server work behind it, against the peer's. Its ratio is the least that client's ratio could
be with any server on this machine (a client whose floor is above a third of the peer's cannot be brought
under a third by the server)."""

from __future__ import annotations

from typing import Any, NamedTuple

IN_PROCESS, HTTP = "in process (CPU µs)", "server in its own process (wall µs)"
START = "server start: from the process's start until /health answers (best wall of 3 starts, µs; CPU by then)"
SAME_CLIENT = "MCP tools/call, the same client on both servers, each in its own process (wall µs; server CPU per call)"
FLOOR = ("MCP tools/call, each client alone: answered from memory by canned.py, so the least any server could "
         "give that client here (wall µs)")

# Each officeworld figure once: (group, its path in `officeworld bench`'s JSON, what it measured).
OURS: dict[str, tuple[str, tuple[str, ...], str]] = {
    "create": (IN_PROCESS, ("episode_create",), "EpisodeStore.create: copy-on-write, each app cloned on first use"),
    "create_all": (IN_PROCESS, ("episode_create_and_clone_all_apps",),
                   "create + clone every app (a fully built environment)"),
    "search_text": (IN_PROCESS, ("op_in_process", "mail.search(renewal)"), "invoke mail.search free text (recorded step)"),
    "search_unread": (IN_PROCESS, ("op_in_process", "mail.search(is:unread)"),
                      "invoke mail.search is:unread (recorded step)"),
    "get_file": (IN_PROCESS, ("op_in_process", "docs.get_file"), "invoke docs.get_file by id (recorded step)"),
    "get_message": (IN_PROCESS, ("op_in_process", "mail.get_message"),
                    "invoke mail.get_message by id, with body (recorded step)"),
    "star": (IN_PROCESS, ("op_in_process", "mail.star"), "invoke mail.star: an idempotent write of one record"),
    "server_ready": (START, ("server_ready",), "officeworld up on acme (four apps, the world's images opened)"),
    "health": (HTTP, ("served", "health"), "GET /health (httpx, keep-alive)"),
    "http_create": (HTTP, ("served_episode_create", "control_episode_create"), "POST /v1/episodes (a new episode)"),
    "rest_call": (HTTP, ("served", "rest_mail_get_message"),
                  "POST /episodes/{id}/api/mail/get_message (one JSON POST)"),
    "control_call": (HTTP, ("served_scale", "control_plane", "control_call_mail_get_message"),
                     "POST /v1/episodes/{id}/call mail_get_message (one JSON POST)"),
    "mcp_call": (HTTP, ("served", "mcp_mail_get_message"), "MCP tools/call, official SDK client, streamable HTTP"),
    "mcp_session_call": (HTTP, ("served", "mcp_session_mail_get_message"),
                         "MCP tools/call, official ClientSession in a 2025 session, streamable HTTP"),
    # ours_probe.py, run next to the peers' probes: the clients openenv_probe.py measures OpenEnv's server with.
    "same_jsonrpc": (SAME_CLIENT, ("same_client", "jsonrpc_session_call"),
                     "httpx: a JSON-RPC tools/call POSTed in a session (Mcp-Session-Id)"),
    "same_ts_jsonrpc": (SAME_CLIENT, ("same_client", "ts_jsonrpc_session_call"),
                        "Node fetch: a JSON-RPC tools/call POSTed in a session (Mcp-Session-Id)"),
    "same_python_sdk": (SAME_CLIENT, ("same_client", "official_python_client_call"),
                        "official Python SDK ClientSession, streamable HTTP"),
    "same_ts_sdk": (SAME_CLIENT, ("same_client", "ts_sdk_call"),
                    "official TypeScript SDK Client, streamable HTTP"),
    "same_python_2026": (SAME_CLIENT, ("same_client", "official_python_client_2026_call"),
                         "official Python SDK mcp.Client (its default, the 2026 revision), streamable HTTP"),
    # The same clients before canned.py (ours_probe.py's "floor"): each client's own cost.
    "floor_jsonrpc": (FLOOR, ("same_client", "floor", "jsonrpc_session_call"),
                      "httpx: a JSON-RPC tools/call in a session, answered from memory"),
    "floor_ts_jsonrpc": (FLOOR, ("same_client", "floor", "ts_jsonrpc_session_call"),
                         "Node fetch: a JSON-RPC tools/call in a session, answered from memory"),
    "floor_python_sdk": (FLOOR, ("same_client", "floor", "official_python_client_call"),
                         "official Python SDK ClientSession, answered from memory"),
    "floor_python_2026": (FLOOR, ("same_client", "floor", "official_python_client_2026_call"),
                          "official Python SDK mcp.Client (2026), answered from memory"),
    "floor_ts_sdk": (FLOOR, ("same_client", "floor", "ts_sdk_call"),
                     "official TypeScript SDK Client, answered from memory"),
}

# Which officeworld figure is compared with which peer figure: (ours, peer, peer figure).
AGAINST = [
    ("create", "agentdojo", "reset"),
    ("create_all", "agentdojo", "reset"),
    ("create_all", "agentdojo", "reset_deep_copy"),
    ("search_text", "agentdojo", "tool_search_emails"),
    ("search_unread", "agentdojo", "tool_get_unread_emails"),
    ("get_file", "agentdojo", "tool_get_file_by_id"),
    ("get_message", "agentdojo", "tool_get_file_by_id"),
    ("star", "agentdojo", "tool_share_file"),
    ("server_ready", "openenv", "server_ready"),
    ("health", "openenv", "health"),
    ("http_create", "openenv", "client_reset"),
    ("http_create", "openenv", "http_reset"),
    ("rest_call", "openenv", "mcp_session_call"),
    ("control_call", "openenv", "mcp_session_call"),
    ("mcp_call", "openenv", "client_call_tool"),
    ("mcp_call", "openenv", "mcp_session_call"),
    ("mcp_call", "openenv", "mcp_stateless_call"),
    ("mcp_session_call", "openenv", "client_call_tool"),
    ("mcp_session_call", "openenv", "mcp_session_call"),
    ("same_jsonrpc", "openenv", "jsonrpc_session_call"),
    ("same_ts_jsonrpc", "openenv", "ts_jsonrpc_session_call"),
    ("same_python_sdk", "openenv", "official_python_client_call"),
    ("same_ts_sdk", "openenv", "ts_sdk_call"),
    # Not the same client: each server with an official MCP client it accepts (OpenEnv's is its own).
    ("same_python_sdk", "openenv", "client_call_tool"),
    ("same_python_2026", "openenv", "client_call_tool"),
    ("same_ts_sdk", "openenv", "client_call_tool"),
    # Each client's floor against the peer's figure for that client (or, for the SDK clients OpenEnv refuses, its own).
    ("floor_jsonrpc", "openenv", "jsonrpc_session_call"),
    ("floor_ts_jsonrpc", "openenv", "ts_jsonrpc_session_call"),
    ("floor_python_sdk", "openenv", "client_call_tool"),
    ("floor_python_2026", "openenv", "client_call_tool"),
    ("floor_ts_sdk", "openenv", "client_call_tool"),
]

# (group, officeworld figure's path, what it measured, peer, peer figure), one per comparison.
PAIRS: list[tuple[str, tuple[str, ...], str, str, str]] = [(*OURS[ours], peer, key) for ours, peer, key in AGAINST]


class Ratio(NamedTuple):
    group: str
    ours: str
    ours_measured: str
    ours_us: float | None
    peer: str
    peer_measured: str
    peer_us: float | None
    ratio: float | None
    ours_cpu_us: float | None = None   # each server's CPU per call, where its probe read it from /proc
    peer_cpu_us: float | None = None
    cpu_ratio: float | None = None


def dig(figures: dict, path: tuple[str, ...]) -> Any:
    for key in path:
        if not isinstance(figures, dict) or key not in figures:
            return None
        figures = figures[key]
    return figures


def value(figure: Any, group: str) -> float | None:
    """The figure's median on the group's clock: CPU time in process where it was measured, else wall; a
    start's best wall time (``best_wall_s``), in µs."""
    if not isinstance(figure, dict):
        return None
    if group == IN_PROCESS and figure.get("cpu_median_us") is not None:
        return figure["cpu_median_us"]
    if figure.get("best_wall_s") is not None:
        return figure["best_wall_s"] * 1e6
    return figure.get("median_us")


def server_cpu(figure: Any) -> float | None:
    """The server's CPU µs per call beside a wall figure (an upper bound where the client's handshake is in it),
    or by the time it answered, for a start."""
    if not isinstance(figure, dict):
        return None
    if figure.get("best_cpu_s") is not None:
        return figure["best_cpu_s"] * 1e6
    return figure.get("server_cpu_us_per_call", figure.get("server_cpu_us_per_call_at_most"))


def described(figure: Any) -> str:
    """What a figure measured, and why there is no figure where its client could not call the server."""
    if not isinstance(figure, dict):
        return "not measured"
    what = figure.get("measured") or "not measured"
    return f"{what}: NOT REACHABLE ({figure['error']})" if figure.get("error") else what


def _ratio(ours: float | None, theirs: float | None) -> float | None:
    return round(ours / theirs, 2) if ours is not None and theirs else None


def steadier(*runs: dict | None) -> dict:
    """One peer's figures from several runs of its probe, each the run with the lower median (the
    quieter moment of a shared machine, so officeworld's ratio is never flattered by a noisy peer run)."""
    runs_ = [r for r in runs if r]
    out: dict = {}
    for run in runs_:
        for key, figure in run.items():
            if key not in out or _lower(figure, out[key]):
                out[key] = figure
    return out


def _lower(figure: Any, kept: Any) -> bool:
    """Whether ``figure`` is below ``kept`` on the clock both have (a median, or a start's best wall time)."""
    for clock in ("median_us", "best_wall_s"):
        if isinstance(figure, dict) and isinstance(kept, dict) and clock in figure and clock in kept:
            return figure[clock] < kept[clock]
    return False


def ratios(ow: dict, peers: dict[str, dict]) -> list[Ratio]:
    out = []
    for group, path, measured, peer, key in PAIRS:
        mine, their = dig(ow, path), dig(peers.get(peer, {}), (key,))
        ours, theirs = value(mine, group), value(their, group)
        if isinstance(mine, dict) and mine.get("error"):
            measured = f"{measured}: NOT REACHABLE ({mine['error']})"
        ours_cpu, peer_cpu = server_cpu(mine), server_cpu(their)
        out.append(Ratio(group, ".".join(path), measured, ours, f"{peer} {key}", described(their), theirs,
                         _ratio(ours, theirs), ours_cpu, peer_cpu, _ratio(ours_cpu, peer_cpu)))
    return out


def table(rows: list[Ratio]) -> str:
    lines = []
    for group in dict.fromkeys(row.group for row in rows):
        if group == FLOOR:
            lines.append(f"\n{group}: the client alone vs the peer, ratio (the least that client's ratio could be)")
        else:
            lines.append(f"\n{group}: officeworld vs peer, ratio (below 1: officeworld is faster)")
        for row in (r for r in rows if r.group == group):
            ours = "n/a" if row.ours_us is None else f"{row.ours_us:.1f}"
            theirs = "n/a" if row.peer_us is None else f"{row.peer_us:.1f}"
            ratio = "n/a" if row.ratio is None else f"{row.ratio:.2f}"
            lines.append(f"  {ratio:>6}  {ours:>10} µs  {row.ours}: {row.ours_measured}")
            lines.append(f"  {'':>6}  {theirs:>10} µs  {row.peer}: {row.peer_measured}")
            if row.group != FLOOR and (row.ours_cpu_us is not None or row.peer_cpu_us is not None):
                cpu = "n/a" if row.cpu_ratio is None else f"{row.cpu_ratio:.2f}"
                per = "by then" if row.group == START else "per call"
                lines.append(f"  {cpu:>6}  server CPU {per}: officeworld {_us(row.ours_cpu_us)}, "
                             f"{row.peer.split()[0]} {_us(row.peer_cpu_us)}")
    return "\n".join(lines)


def _us(figure: float | None) -> str:
    return "n/a" if figure is None else f"{figure:.0f} µs"
