"""The benchmark's control-plane and live-episodes figures, run small against a real server process."""

from __future__ import annotations

from simulator.bench import scale


def test_scale_figures_count_what_they_made_and_read_the_server_memory():
    out = scale.run("acme", repeat=3, live=3)
    control = out["control_plane"]
    assert control["control_call_mail_get_message"]["samples"] == 3 and control["health"]["samples"] == 3
    live = out["live_episodes"]
    assert live["asked"] == 3 and live["live_episodes"] == 3
    assert live["server_rss_mb_after"] > 0 and live["mb_per_episode"] is not None
    assert live["rest_mail_get_message_among_them"]["samples"] == 3
