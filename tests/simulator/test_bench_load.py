"""``officeworld bench --load`` runs by itself against a server in its own process and reports its fields.
No figure is asserted: only that the run works, its calls succeed, and every episode is gone after."""

import json
import subprocess
import sys

import pytest
from surfaces import ROOT

from simulator.service.router import haproxy_binary

RUN = {"achieved_per_s", "calls", "p50_ms", "p99_ms", "max_ms", "errors", "dropped",
       "client_cpu_ms_per_call", "server_cpu_ms_per_call", "client_cpu_pct", "server_cpu_pct"}


def test_the_load_run_reports_paced_and_saturation_runs_cpu_and_memory():
    done = subprocess.run([sys.executable, "-m", "simulator.cli", "bench", "--load", "--episodes", "3",
                           "--seconds", "0.5", "--rest-rate", "30", "--mcp-rate", "20"],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout)
    said = [line for line in done.stderr.splitlines() if line.startswith("bench --load: ")]   # progress, as it goes
    assert said[0] == "bench --load: starting a server on 'acme'" and len(said) == 6
    assert any("creating 3 episodes" in line for line in said)
    assert report["episodes"] == 3 and report["episodes_left"] == 0
    for kind in ("paced", "saturation"):
        for surface in ("rest", "mcp"):
            figures = report[kind][surface]
            assert set(figures) >= RUN, (kind, surface, figures)
            assert figures["calls"] > 0 and figures["errors"] == 0 and figures["dropped"] == 0, (kind, surface, figures)
            assert figures["server_cpu_ms_per_call"] > 0 and figures["client_cpu_ms_per_call"] > 0
    assert report["paced"]["rest"]["offered_per_s"] == 30 and report["paced"]["mcp"]["offered_per_s"] == 20
    assert {"late_calls", "send_lag_p99_ms"} <= set(report["paced"]["mcp"])
    assert set(report["memory_mb"]) >= {"start", "peak", "after_delete", "after_vs_start_pct"}
    assert report["memory_mb"]["peak"] >= report["memory_mb"]["start"] > 0 and "per_process" not in report["memory_mb"]
    assert set(report["targets_met"]) == {"rest_500_per_s", "mcp_300_per_s", "p99_under_200ms", "no_errors",
                                          "no_dropped_session", "memory_within_10pct"}
    assert not report["targets_met"]["rest_500_per_s"]   # judged on the paced run: 30 calls/s offered is short of 500
    assert report["memory_mb"]["allocator"] == "malloc"   # officeworld up ran again with PYTHONMALLOC=malloc


def test_only_the_serving_commands_run_again_with_the_system_allocator(monkeypatch):
    from simulator.cli import ahead

    ran = []
    monkeypatch.setattr(ahead.os, "execve", lambda path, argv, env: ran.append((argv, env["PYTHONMALLOC"])))
    monkeypatch.delenv("PYTHONMALLOC", raising=False)
    for argv in (["python", "-m", "simulator.cli", "up", "--world", "acme"], ["python", "/venv/bin/officeworld", "app-service"],
                 ["python", "-m", "simulator.cli", "bench"], ["python", "/venv/bin/officeworld", "up", "--help"],
                 ["python", "-m", "pytest", "up"], ["python", "-m", "simulator.cli"]):
        ahead.serve_with_system_malloc(argv)
    assert ran == [(["python", "-m", "simulator.cli", "up", "--world", "acme"], "malloc"),
                   (["python", "/venv/bin/officeworld", "app-service"], "malloc")]
    monkeypatch.setenv("PYTHONMALLOC", "pymalloc")   # the user's choice stands
    ahead.serve_with_system_malloc(["python", "-m", "simulator.cli", "up"])
    assert len(ran) == 2


def test_the_write_mix_runs_sessions_that_read_and_write_over_fresh_episodes_and_reports_its_fields():
    """Small and recorded: every call answered, each one a step in its episode's trajectory file."""
    # The warm-up runs the whole session once over each surface, the appended document's id read from the answer
    done = subprocess.run([sys.executable, "-m", "simulator.cli", "bench", "--load", "--mix", "write", "--episodes", "3",
                           "--seconds", "1", "--rest-rate", "12", "--mcp-rate", "12", "--record"],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout)
    said = [line for line in done.stderr.splitlines() if line.startswith("bench --load: ")]
    assert any("REST: creating 3 episodes at once" in line for line in said)
    assert any("MCP: creating 3 episodes at once" in line for line in said)
    assert report["mix"] == "write" and report["episodes"] == 3 and report["episodes_left"] == 0
    assert report["session"] == ["mail.search", "mail.get_message", "mail.reply", "crm.update_opportunity",
                                 "docs.create_document", "docs.append_to_document", "mail.send"]
    assert set(report["setup"]) == {"create_rest_episodes_s", "create_mcp_episodes_s", "open_mcp_sessions_s"}
    for kind in ("paced", "saturation"):
        for surface in ("rest", "mcp"):
            figures = report[kind][surface]
            assert set(figures) >= RUN, (kind, surface, figures)
            # every call answered, the writes included (a failed append would count as an error)
            assert figures["calls"] > 0 and figures["errors"] == 0 and figures["dropped"] == 0, (kind, surface, figures)
    assert report["warm_up"] == {"rest": "7 of 7 calls answered", "mcp": "7 of 7 calls answered", "episodes": 1,
                                 "episodes_per_worker": {"w0": 1}}
    assert set(report["memory_mb"]) >= {"start", "peak", "loaded", "after_delete", "after_vs_start_pct",
                                        "server_busy_after_delete_s"}
    assert report["memory_mb"]["peak"] >= report["memory_mb"]["start"] > 0 and "per_process" not in report["memory_mb"]
    assert set(report["targets_met"]) == {"rest_300_per_s", "mcp_300_per_s", "p99_under_500ms", "no_errors",
                                          "no_dropped_session", "memory_within_10pct"}
    assert not report["targets_met"]["rest_300_per_s"]   # 12 calls/s offered is short of 300
    assert report["targets_met"]["no_errors"] and report["targets_met"]["no_dropped_session"]
    # --record: the server kept a file per episode (the warm-up's, 3 over REST, 3 over MCP), a step line per call
    files = report["trajectory_files"]
    assert files["files"] == 7 and files["step_lines"] == files["calls_answered"] and files["every_answered_call_written"]


def test_a_mix_the_bench_does_not_know_is_refused_by_name():
    done = subprocess.run([sys.executable, "-m", "simulator.cli", "bench", "--load", "--mix", "heavy"],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode != 0 and "--mix" in done.stderr


@pytest.mark.skipif(haproxy_binary() is None, reason="haproxy is not installed (./dev.sh setup installs it as root)")
def test_the_write_mix_runs_against_workers_behind_haproxy():
    """``--mix write --workers 2``: the same sessions through the router, each worker keeping its episodes' files."""
    done = subprocess.run([sys.executable, "-m", "simulator.cli", "bench", "--load", "--mix", "write", "--episodes", "4",
                           "--seconds", "1", "--rest-rate", "12", "--mcp-rate", "12", "--record", "--workers", "2"],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout)
    assert report["workers"] == 2 and report["episodes_left"] == 0 and "shards" not in report
    for kind in ("paced", "saturation"):
        for surface in ("rest", "mcp"):
            figures = report[kind][surface]
            assert figures["calls"] > 0 and figures["errors"] == 0 and figures["dropped"] == 0, (kind, surface, figures)
    # The warm-up ran the session on every worker before the start was read (the router alternates between idle
    # workers, so two episodes did), each a step per call
    warm_up = report["warm_up"]
    assert set(warm_up["episodes_per_worker"]) == {"w0", "w1"}
    assert warm_up["episodes"] == sum(warm_up["episodes_per_worker"].values()) >= 2
    calls = 7 * warm_up["episodes"]
    assert warm_up["rest"] == warm_up["mcp"] == f"{calls} of {calls} calls answered"
    files = report["trajectory_files"]
    # the warm-up's episodes + 4 over REST + 4 over MCP, spread over both workers' folders, a step line per call
    assert files["files"] == warm_up["episodes"] + 8 and files["folders"] == 2
    assert files["step_lines"] == files["calls_answered"] and files["every_answered_call_written"]
    memory = report["memory_mb"]
    assert memory["peak"] >= memory["start"] > 0
    # per process, and they add up to the whole tree's figures
    assert set(memory["per_process"]) == {"supervisor", "w0", "w1", "haproxy"}
    for moment in ("start", "loaded", "after_delete"):
        parts = sum(figures[moment] for figures in memory["per_process"].values())
        assert abs(parts - memory[moment]) < 1.0, moment
    assert all(f["peak"] >= f["start"] > 0 for f in memory["per_process"].values())
