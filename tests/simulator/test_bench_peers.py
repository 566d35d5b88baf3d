"""The side-by-side's pairing and ratios (bench/peers/pairs.py, pure: the peers themselves are installed
and run by hand, never here) and the many-live-episodes figure on a generated world, run small."""

from __future__ import annotations

import asyncio
import importlib.util
import os
from pathlib import Path

from simulator.bench import live
from simulator.bench.figures import PROBES, probe_label

_spec = importlib.util.spec_from_file_location(
    "peer_pairs", Path(__file__).parents[2] / "bench" / "peers" / "pairs.py")
pairs = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(pairs)


def test_in_process_pairs_name_probes_the_bench_makes():
    made = {probe_label(app, name, args) for app, probes in PROBES.items() for name, args in probes}
    wanted = {path[1] for group, path, *_ in pairs.PAIRS if path[0] == "op_in_process"}
    assert wanted and wanted <= made


def test_ratios_use_cpu_time_in_process_and_wall_time_over_http():
    ow = {"episode_create": {"median_us": 900.0, "cpu_median_us": 300.0},
          "served": {"health": {"median_us": 500.0, "cpu_median_us": 1.0}}}
    peers = {"agentdojo": {"reset": {"median_us": 6000.0, "cpu_median_us": 600.0, "measured": "load"}},
             "openenv": {"health": {"median_us": 250.0, "measured": "GET /health"}}}
    rows = {(r.ours, r.peer): r for r in pairs.ratios(ow, peers)}
    reset = rows[("episode_create", "agentdojo reset")]
    assert (reset.ours_us, reset.peer_us, reset.ratio, reset.peer_measured) == (300.0, 600.0, 0.5, "load")
    health = rows[("served.health", "openenv health")]
    assert (health.ours_us, health.peer_us, health.ratio) == (500.0, 250.0, 2.0)
    missing = rows[("served.mcp_mail_get_message", "openenv client_call_tool")]
    assert missing.ratio is None and missing.peer_measured == "not measured"
    assert "n/a" in pairs.table(list(rows.values())) and "0.50" in pairs.table([reset])


def test_same_client_pairs_compare_both_servers_cpu_and_say_which_client_could_not_call():
    ow = {"same_client": {
        "jsonrpc_session_call": {"median_us": 900.0, "server_cpu_us_per_call": 200.0, "measured": "httpx"},
        "ts_sdk_call": {"median_us": 2000.0, "server_cpu_us_per_call_at_most": 300.0, "measured": "ts"}}}
    peers = {"openenv": {
        "jsonrpc_session_call": {"median_us": 3000.0, "server_cpu_us_per_call": 800.0, "measured": "httpx"},
        "ts_sdk_call": {"error": "Method not found: initialize", "measured": "ts sdk"},
        "client_call_tool": {"median_us": 4000.0, "server_cpu_us_per_call": 1000.0, "measured": "/ws"}}}
    rows = {(r.ours, r.peer): r for r in pairs.ratios(ow, peers)}
    same = rows[("same_client.jsonrpc_session_call", "openenv jsonrpc_session_call")]
    assert (same.group, same.ratio, same.ours_cpu_us, same.peer_cpu_us, same.cpu_ratio) == (
        pairs.SAME_CLIENT, 0.3, 200.0, 800.0, 0.25)
    refused = rows[("same_client.ts_sdk_call", "openenv ts_sdk_call")]
    assert refused.ratio is None and refused.peer_us is None and refused.cpu_ratio is None
    assert "NOT REACHABLE (Method not found: initialize)" in refused.peer_measured
    own = rows[("same_client.ts_sdk_call", "openenv client_call_tool")]
    assert (own.ratio, own.cpu_ratio) == (0.5, 0.3)
    shown = pairs.table([same, refused])
    assert "server CPU per call: officeworld 200 µs, openenv 800 µs" in shown and "NOT REACHABLE" in shown


def test_a_failed_probe_gives_no_ratio():
    ow = {"op_in_process": {"mail.star": {"error": "probe failed on this world"}}}
    peers = {"agentdojo": {"tool_share_file": {"median_us": 10.0, "cpu_median_us": 9.0}}}
    star = next(r for r in pairs.ratios(ow, peers) if r.ours == "op_in_process.mail.star")
    assert star.ours_us is None and star.ratio is None


def test_steadier_keeps_each_figure_from_its_quieter_run():
    first = {"reset": {"median_us": 10.0}, "tool": {"median_us": 5.0}, "suite": {"emails": 31}}
    second = {"reset": {"median_us": 8.0}, "tool": {"median_us": 7.0}, "suite": {"emails": 31}}
    assert pairs.steadier(first, second) == {"reset": {"median_us": 8.0}, "tool": {"median_us": 5.0},
                                             "suite": {"emails": 31}}
    assert pairs.steadier(first, None) == first


def test_server_start_pairs_best_wall_times_with_the_cpu_by_then_and_keeps_the_quicker_peer_run():
    ow = {"server_ready": {"best_wall_s": 1.2, "best_cpu_s": 1.1, "starts": []}}
    slow = {"server_ready": {"best_wall_s": 3.0, "best_cpu_s": 2.0, "measured": "uvicorn"}}
    quick = {"server_ready": {"best_wall_s": 2.4, "best_cpu_s": 2.2, "measured": "uvicorn"}}
    kept = pairs.steadier(slow, quick)
    assert kept == quick and pairs.steadier(quick, slow) == quick
    start = next(r for r in pairs.ratios(ow, {"openenv": kept}) if r.ours == "server_ready")
    assert (start.group, start.ours_us, start.peer_us, start.ratio) == (pairs.START, 1.2e6, 2.4e6, 0.5)
    assert (start.ours_cpu_us, start.peer_cpu_us, start.cpu_ratio) == (1.1e6, 2.2e6, 0.5)
    assert "server CPU by then: officeworld 1100000 µs, openenv 2200000 µs" in pairs.table([start])


def test_spread_visits_every_episode_once_per_round():
    for count in (1, 3, 100, 7919, 10_000):
        assert sorted(live.spread(count, i) for i in range(count)) == list(range(count))


def test_live_episodes_on_a_generated_world_counts_what_it_made_and_stops_at_its_memory_cap():
    out = live.run("s", count=3, repeat=3, deadline_s=60)
    assert (out["asked"], out["live_episodes"], out["stopped_by"]) == (3, 3, "count")
    assert out["server_rss_mb_after"] > 0 and out["mb_per_episode"] is not None
    assert out["rest_mail_get_message_among_them"]["samples"] == 3
    capped = live.run("s", count=3, repeat=3, deadline_s=60, cap_mb=-1)
    assert capped["live_episodes"] == 0 and capped["stopped_by"].startswith("memory cap")
    assert capped["rest_mail_get_message_among_them"] is None


def test_client_floors_are_their_own_group_compared_with_the_peers_figure_without_a_server_cpu_line():
    ow = {"same_client": {"floor": {
        "official_python_client_call": {"median_us": 1500.0, "server_cpu_us_per_call": 140.0, "measured": "py"},
        "jsonrpc_session_call": {"median_us": 600.0, "server_cpu_us_per_call": 100.0, "measured": "httpx"}}}}
    peers = {"openenv": {"client_call_tool": {"median_us": 2500.0, "server_cpu_us_per_call": 900.0, "measured": "/ws"},
                         "jsonrpc_session_call": {"median_us": 2000.0, "measured": "httpx"}}}
    rows = {(r.ours, r.peer): r for r in pairs.ratios(ow, peers)}
    python = rows[("same_client.floor.official_python_client_call", "openenv client_call_tool")]
    assert (python.group, python.ours_us, python.peer_us, python.ratio) == (pairs.FLOOR, 1500.0, 2500.0, 0.6)
    assert rows[("same_client.floor.jsonrpc_session_call", "openenv jsonrpc_session_call")].ratio == 0.3
    shown = pairs.table([python])
    assert "the least that client's ratio could be" in shown and "server CPU per call" not in shown


def test_calls_in_turns_alternate_and_give_each_its_own_figure():
    spec = importlib.util.spec_from_file_location("peer_common", Path(__file__).parents[2] / "bench" / "peers" / "common.py")
    common = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(common)
    order: list[str] = []
    pids = {"a": os.getpid(), "b": os.getpid()}
    out = common.times_in_turns({"a": lambda: order.append("a"), "b": lambda: order.append("b")}, 5,
                                {"a": "first", "b": "second"}, pids)
    assert order[2 * common.WARMUP:] == ["a", "b"] * 5
    assert {k: (v["samples"], v["measured"]) for k, v in out.items()} == {"a": (5, "first"), "b": (5, "second")}
    assert all(v["server_cpu_us_per_call"] >= 0 for v in out.values())

    async def call(name):
        order.append(name)

    order.clear()
    both = asyncio.run(common.atimes_in_turns({"a": lambda: call("a"), "b": lambda: call("b")}, 4,
                                              {"a": "first", "b": "second"}, pids))
    assert order[2 * common.WARMUP:] == ["a", "b"] * 4
    assert both["b"]["samples"] == 4 and both["b"]["client_cpu_us_per_call"] >= 0
