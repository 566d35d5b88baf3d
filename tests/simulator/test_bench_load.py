"""``officeworld bench --load`` runs by itself against a server in its own process and reports its fields.
No figure is asserted: only that the run works, its calls succeed, and every episode is gone after."""

import json
import subprocess
import sys

from surfaces import ROOT


def test_the_load_run_reports_throughput_latency_errors_and_memory():
    done = subprocess.run([sys.executable, "-m", "simulator.cli", "bench", "--load", "--episodes", "3", "--seconds", "1"],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout)
    assert report["episodes"] == 3 and report["episodes_left"] == 0
    for surface in ("rest", "mcp"):
        figures = report[surface]
        assert figures["calls"] > 0 and figures["errors"] == 0, figures
        assert set(figures) >= {"calls_per_s", "p50_ms", "p99_ms"}
    assert report["mcp"]["dropped_sessions"] == 0
    assert set(report["memory_mb"]) >= {"start", "peak", "after_delete", "after_vs_start_pct"}
    assert report["memory_mb"]["peak"] >= report["memory_mb"]["start"] > 0
    assert set(report["targets_met"]) == {"rest_500_per_s", "mcp_300_per_s", "p99_under_200ms",
                                          "no_dropped_session", "memory_within_10pct"}
