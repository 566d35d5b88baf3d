"""``officeworld bench --load --workers N``'s saturation with one server and with N workers behind HAProxy runs by
itself and reports both and their ratio. No figure is asserted: only that the runs work, every call
succeeds and the episodes were spread over the workers."""

import pytest

from simulator.service.router import haproxy_binary


@pytest.mark.skipif(haproxy_binary() is None, reason="haproxy is not installed (./dev.sh setup installs it as root)")
def test_saturation_with_one_server_and_two_workers_and_their_ratio():
    from simulator.bench.shards import KEPT, run

    report = run("acme", workers=2, episodes=4, seconds=0.5)
    for setup in ("workers_1", "workers_2"):
        for surface in ("rest", "mcp"):
            figures = report[setup][surface]
            assert set(figures) == set(KEPT)
            assert figures["calls"] > 0 and figures["errors"] == 0 and figures["dropped"] == 0, (setup, surface)
    assert report["workers_1"]["episodes_per_worker"] == {"w0": 4}
    # Where the CPU went, per call and process: the one server; the workers, HAProxy and the supervisor.
    assert set(report["workers_1"]["rest"]["server_cpu_ms_per_call"]) == {"server"}
    per_process = report["workers_2"]["rest"]["server_cpu_ms_per_call"]
    assert {"w0", "w1", "haproxy", "supervisor"} <= set(per_process)
    assert per_process["w0"] > 0 and per_process["haproxy"] > 0
    spread = report["workers_2"]["episodes_per_worker"]
    assert set(spread) == {"w0", "w1"} and sum(spread.values()) == 4   # leastconn takes turns among idle workers
    assert set(report["ratio"]) == {"rest", "mcp"} and all(r > 0 for r in report["ratio"].values())


@pytest.mark.skipif(haproxy_binary() is None, reason="haproxy is not installed (./dev.sh setup installs it as root)")
def test_clients_in_several_processes_share_the_episodes_and_their_figures_add_up():
    from simulator.bench.shards import KEPT, run

    report = run("acme", workers=2, episodes=5, seconds=0.5, clients=2)
    assert report["client_processes"] == 2
    for setup in ("workers_1", "workers_2"):
        assert report[setup]["clients"] == 2
        assert sum(report[setup]["episodes_per_worker"].values()) == 5   # 3 + 2: every episode made once
        for surface in ("rest", "mcp"):
            figures = report[setup][surface]
            assert set(figures) == set(KEPT)
            assert figures["calls"] > 0 and figures["errors"] == 0 and figures["dropped"] == 0, (setup, surface)
