"""The benchmark's control-plane and live-episodes figures, run small against a real server process."""

from __future__ import annotations

from simulator.bench import scale


def test_scale_figures_count_what_they_made_and_read_the_server_memory():
    out = scale.run("acme", repeat=3, live=3)
    control = out["control_plane"]
    assert control["control_call_mail_get_message"]["samples"] == 3 and control["health"]["samples"] == 3
    by_rest = control["rest_mail_get_message"]   # measured on the same server, interleaved with the call
    assert by_rest["samples"] == 3 and by_rest["server_cpu_us_per_call"] > 0
    assert control["control_call_mail_get_message"]["server_cpu_us_per_call"] > 0
    assert control["control_above_rest_us"] == round(
        control["control_call_mail_get_message"]["median_us"] - by_rest["median_us"], 1)
    live = out["live_episodes"]
    assert live["asked"] == 3 and live["live_episodes"] == 3
    assert live["server_rss_mb_after"] > 0 and live["mb_per_episode"] is not None
    assert live["rest_mail_get_message_among_them"]["samples"] == 3


def test_world_size_times_each_stage_and_leaves_nothing_behind(tmp_path, monkeypatch):
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", None)  # TMPDIR is read again
    out = scale.world_size("s", seed=3, starts=1)
    assert out["size"] == "s" and out["files"] > 200  # 200 messages, CRM, docs, calendar
    compiled = out["compile"]
    assert set(compiled["build"]) >= {"mail", "crm", "docs", "calendar"}
    assert compiled["cpu_s"] >= compiled["load_world"]["cpu_s"] > 0
    assert len(out["server_ready"]) == 1 and out["server_ready"][0]["cpu_s"] > 0
    assert len(out["world_ready"]) == 1 and set(out["world_ready"][0]) == {"wall_s", "cpu_s"}
    assert 0 < out["world_ready"][0]["wall_s"] < out["server_ready"][0]["wall_s"]
    assert list(tmp_path.iterdir()) == []  # the world and its cache were temporary


def test_the_start_figure_says_how_many_modules_it_compiled_from_source(tmp_path, monkeypatch):
    import py_compile

    package = tmp_path / "simulator"
    package.mkdir()
    (package / "compiled.py").write_text("X = 1\n")
    (package / "plain.py").write_text("Y = 2\n")
    py_compile.compile(str(package / "compiled.py"), doraise=True)
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    assert scale.modules_without_bytecode(tmp_path) == 1
    (package / "compiled.py").write_text("X = 10\n")   # changed since: its .pyc no longer matches
    assert scale.modules_without_bytecode(tmp_path) == 2
    monkeypatch.delenv("PYTHONDONTWRITEBYTECODE")   # Python writes them at the first start
    assert scale.modules_without_bytecode(tmp_path) == 0
