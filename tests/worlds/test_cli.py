"""``officeworld worlds``: check, list, show, generate and dump through the command line."""

from __future__ import annotations

from factories import make_world, message
from typer.testing import CliRunner

from simulator.cli.main import cli
from simulator.store.registry import world_sections
from worlds import load_world, world_names

runner = CliRunner()


def run(*args):
    return runner.invoke(cli, ["worlds", *args])


def test_check_passes_a_clean_world_and_lists_every_problem_of_a_broken_one(tmp_path, world_dir):
    ok = run("check", str(world_dir))
    assert ok.exit_code == 0 and "OK" in ok.output
    broken = make_world(tmp_path / "b", extra_mail={"x/1.eml": message(
        "x1@small.test", "ghost@nowhere.test", "dana@small.test", "Hi", "Tue, 10 Mar 2026 09:00:00 -0400", "x",
        In_Reply_To="<gone@x>")})
    result = run("check", str(broken))
    assert result.exit_code == 1 and "2 problem(s)" in result.output
    assert "mail/x/1.eml:1: ghost@nowhere.test" in result.output and "mail/x/1.eml:6: In-Reply-To" in result.output


def test_show_and_list(world_dir):
    shown = run("show", str(world_dir))
    assert shown.exit_code == 0
    assert "mail: 4 messages, 3 threads, 1 attachments" in shown.output and "Ravi Patel <ravi@small.test>" in shown.output
    listed = run("list")
    assert listed.exit_code == 0 and "harbor-legal" in listed.output
    assert run("show", "atlantis").exit_code == 1


def test_generate_then_dump(tmp_path):
    out = tmp_path / "gen"
    assert run("generate", "--seed", "3", "--size", "s", "--out", str(out), "--no-progress").exit_code == 0
    assert len(load_world(out, world_sections()).sections["mail"].messages) == 200
    again = run("generate", "--seed", "3", "--size", "s", "--out", str(out))
    # The message sits in a box that wraps at the terminal's width (a long tmp path, as under xdist, wraps it).
    assert again.exit_code != 0 and "not empty" in " ".join(again.output.replace("│", " ").split())
    assert run("generate", "--seed", "3", "--size", "huge", "--out", str(tmp_path / "x")).exit_code != 0
    assert run("dump", str(out), str(tmp_path / "copy")).exit_code == 0
    assert len(load_world(tmp_path / "copy", world_sections()).sections["mail"].messages) == 200


def test_every_shipped_world_checks_clean():
    assert "harbor-legal" in world_names()
    for name in world_names():
        assert run("check", name).exit_code == 0, name
