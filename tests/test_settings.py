"""One settings object (``apps/kit/settings.py``): each variable reaches its point of use, read when used,
no module reads an ``OFFICEWORLD_*`` variable behind its back, and the README's table lists them all."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from pydantic import ValidationError

from apps.kit.settings import Settings, settings
from sandbox.config import admin_token
from simulator.gateway.auth import control_token
from simulator.gateway.client import _Origin
from simulator.gateway.server import allowed_hosts
from simulator.store.compile import cache_dir
from simulator.store.episodes import EpisodeStore, app_urls_from_env
from simulator.store.registry import APPS
from tasks.judge import Judge

ROOT = Path(__file__).parents[1]


def test_each_variable_reaches_its_point_of_use(monkeypatch, tmp_path):
    monkeypatch.setenv("OFFICEWORLD_TOKEN", "  tok-1 ")
    monkeypatch.setenv("OFFICEWORLD_ADMIN_TOKEN", "adm-1")
    monkeypatch.setenv("OFFICEWORLD_ALLOWED_HOSTS", "gw.internal:8000, other:1 ,")
    monkeypatch.setenv("OFFICEWORLD_TRAJECTORY_DIR", str(tmp_path / "traj"))
    monkeypatch.setenv("OFFICEWORLD_IDLE_TIMEOUT", "12.5")
    monkeypatch.setenv("OFFICEWORLD_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("OFFICEWORLD_MAIL_URL", " http://mail:9000 ")
    monkeypatch.setenv("OFFICEWORLD_JUDGE_URL", "http://judge/v1")
    monkeypatch.setenv("OFFICEWORLD_JUDGE_MODEL", "m")
    monkeypatch.setenv("OFFICEWORLD_JUDGE_KEY", "k")

    assert control_token() == "tok-1"
    assert _Origin("http://x/", None, 1.0).headers == {"Authorization": "Bearer tok-1"}
    assert admin_token() == {"OFFICEWORLD_ADMIN_TOKEN": "adm-1"}
    assert allowed_hosts()[-2:] == ["gw.internal:8000", "other:1"]
    assert cache_dir() == tmp_path / "cache"
    assert app_urls_from_env(APPS) == {"mail": "http://mail:9000"}
    store = EpisodeStore(app_urls={})
    assert store.trajectory_dir == tmp_path / "traj" and store.idle_timeout == 12.5
    judge = Judge.from_env()
    assert judge is not None and (judge.base_url, judge.model) == ("http://judge/v1", "m")
    assert judge.client.headers["authorization"] == "Bearer k"


def test_the_generator_and_the_gym_suites_read_the_settings(monkeypatch, tmp_path):
    from trainers.gym import suites
    from worlds.generate import cache_root

    (tmp_path / "tasks" / "mine").mkdir(parents=True)
    (tmp_path / "tasks" / "mine" / "t.yaml").write_text("id: t\n")
    monkeypatch.setenv("OFFICEWORLD_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("OFFICEWORLD_TASKS_DIR", str(tmp_path / "tasks"))
    assert cache_root() == tmp_path / "cache" / "worlds"
    assert suites() == ["mine"]
    monkeypatch.setenv("OFFICEWORLD_CACHE_DIR", "")   # empty is unset: the XDG default
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_root() == tmp_path / "xdg" / "officeworld" / "worlds"


def test_unset_and_empty_mean_the_defaults(monkeypatch, tmp_path):
    for name in ("TOKEN", "TRAJECTORY_DIR", "IDLE_TIMEOUT", "CACHE_DIR", "JUDGE_URL", "JUDGE_MODEL"):
        monkeypatch.setenv(f"OFFICEWORLD_{name}", "")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    now = settings()
    assert (now.token, now.trajectory_dir, now.idle_timeout) == ("", None, 3600)
    assert cache_dir() == tmp_path / "officeworld"
    assert Judge.from_env() is None
    store = EpisodeStore(app_urls={})
    assert store.trajectory_dir is None and store.idle_timeout == 3600   # a leak is bounded by default
    monkeypatch.setenv("OFFICEWORLD_IDLE_TIMEOUT", "0")
    assert EpisodeStore(app_urls={}).idle_timeout is None   # 0: never


def test_a_bad_value_names_the_setting(monkeypatch):
    monkeypatch.setenv("OFFICEWORLD_IDLE_TIMEOUT", "soon")
    with pytest.raises(ValidationError, match="idle_timeout"):
        settings()


def test_no_module_reads_an_officeworld_variable_itself():
    """Every ``OFFICEWORLD_*`` read goes through the settings (typer options and child environments aside).
    ``trainers/verifiers_taskset`` is left out: it runs in the side venv, which cannot import the kit, and
    reads ``OFFICEWORLD_URL`` itself (the README says so)."""
    direct = re.compile(r"(environ\.get|getenv|environ\[)\(?\s*f?[\"']OFFICEWORLD_")
    found = [f"{path.relative_to(ROOT)}:{n}"
             for package in ("apps", "scenarios", "simulator", "sandbox", "tasks", "trainers", "worlds")
             for path in sorted((ROOT / package).rglob("*.py"))
             if "verifiers_taskset" not in path.parts and path.name != "settings.py"
             for n, line in enumerate(path.read_text().splitlines(), 1) if direct.search(line)]
    assert found == [], found


def test_the_readme_lists_every_setting():
    readme = (ROOT / "README.md").read_text()
    for name, field in Settings.model_fields.items():
        variable = field.validation_alias or f"OFFICEWORLD_{name.upper()}"
        assert f"`{variable}`" in readme, variable
    assert "`OFFICEWORLD_<APP>_URL`" in readme
