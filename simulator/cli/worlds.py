"""``officeworld worlds``: check, list, show, generate and dump world folders."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import typer

from simulator.store.registry import world_sections
from worlds import WorldError, load_world, world_names
from worlds.model import World

cli = typer.Typer(help="Check, list, show, generate and dump worlds.", no_args_is_help=True, add_completion=False)


def _load_or_exit(name_or_path: str) -> World:
    try:
        return load_world(name_or_path, world_sections())
    except WorldError as exc:
        typer.echo(f"{exc.root}: {len(exc.problems)} problem(s)", err=True)
        for problem in exc.problems:
            typer.echo(f"  {problem}", err=True)
        raise typer.Exit(1) from None


def counts(world: World) -> dict[str, dict[str, int]]:
    """Records per app and kind: mail messages and threads, each CRM object, each docs collection."""
    found = {}
    if "mail" in world.sections:
        mail = world.sections["mail"].messages
        found["mail"] = {"messages": len(mail), "threads": len({m.source.rsplit("/", 1)[0] for m in mail}),
                         "attachments": sum(len(m.attachments) for m in mail)}
    for app, data in world.sections.items():
        if app != "mail":
            found[app] = {name: len(value) for name, value in data if isinstance(value, (dict, list))}
    return found


@cli.command()
def check(world: str = typer.Argument(..., help="A world folder, or the name of a shipped world")) -> None:
    """Load a world and report every problem with file and line, then check the facts one app states about
    another's records (meetings the mail names, amounts it quotes, forecast totals); exit 1 if any."""
    from worlds.consistency import check as consistency

    started = time.perf_counter()
    loaded = _load_or_exit(world)
    problems = consistency(loaded, world_sections())
    if problems:
        typer.echo(f"{loaded.root}: {len(problems)} cross-app problem(s)", err=True)
        for problem in problems:
            typer.echo(f"  {problem}", err=True)
        raise typer.Exit(1)
    total = sum(sum(kinds.values()) for kinds in counts(loaded).values())
    typer.echo(f"{loaded.root}: OK ({len(loaded.info.people)} people, {total} records, "
               f"{time.perf_counter() - started:.1f}s)")


@cli.command("list")
def list_worlds() -> None:
    """The shipped worlds, one line each."""
    for name in world_names():
        try:
            w = load_world(name, world_sections())
        except WorldError as exc:
            typer.echo(f"{name:16} BROKEN ({len(exc.problems)} problems: run `officeworld worlds check {name}`)")
            continue
        messages = counts(w).get("mail", {}).get("messages", 0)
        typer.echo(f"{name:16} {w.info.company} — {len(w.info.people)} people, {messages} messages, "
                   f"now {w.info.now.isoformat()}")


@cli.command()
def show(world: str = typer.Argument(..., help="A world folder, or the name of a shipped world")) -> None:
    """Company, date, people and record counts per app."""
    w = _load_or_exit(world)
    info = w.info
    typer.echo(f"{info.name}: {info.company} ({info.domain})\n  now {info.now.isoformat()} {info.timezone}, "
               f"acting as {info.default_actor}\n  content {w.content_hash[:16]}")
    for app, kinds in counts(w).items():
        typer.echo(f"  {app}: " + (", ".join(f"{n} {kind}" for kind, n in kinds.items()) or "none"))
    typer.echo(f"  people ({len(info.people)}):")
    for p in info.people:
        typer.echo(f"    {p.name} <{p.email}>, {p.title}, {p.team}" + (f" (reports to {p.manager})" if p.manager else ""))
    typer.echo(f"  outsiders: {len(info.outsiders)}")


@cli.command()
def generate(seed: int = typer.Option(..., help="Random seed: the same seed writes the same bytes"),
             size: str = typer.Option("s", help="s, m, l or xl"),
             kind: str = typer.Option("software", help="What the company does: software, legal or logistics"),
             out: Path = typer.Option(..., help="Folder to write (must not exist, or be empty)"),
             progress: bool = typer.Option(True, help="Show a progress bar")) -> None:
    """Write a synthetic world (mail, CRM, docs and each app's own section) with faker, deterministic for a seed."""
    from worlds.generate import SIZES
    from worlds.generate import generate as run
    from worlds.generate.kinds import KINDS

    if size not in SIZES:
        raise typer.BadParameter(f"size must be one of {', '.join(SIZES)}", param_hint="--size")
    if kind not in KINDS:
        raise typer.BadParameter(f"kind must be one of {', '.join(KINDS)}", param_hint="--kind")
    if out.exists() and any(out.iterdir()):
        raise typer.BadParameter(f"{out} is not empty; choose a new folder", param_hint="--out")
    started = time.perf_counter()
    run(seed, size, out, progress=progress, sections=world_sections(), kind=kind)
    typer.echo(f"wrote {out} (seed {seed}, size {size}, {kind}) in {time.perf_counter() - started:.1f}s", err=True)


@cli.command()
def dump(world: str = typer.Argument(..., help="A world folder, or the name of a shipped world"),
         out: Path = typer.Argument(..., help="Folder to write (must not exist, or be empty)")) -> None:
    """Re-write a world through the loader and the writer (a normalised copy that loads the same)."""
    from worlds.writer import write_world

    if out.exists() and any(out.iterdir()):
        raise typer.BadParameter(f"{out} is not empty; choose a new folder", param_hint="OUT")
    write_world(_load_or_exit(world), out, world_sections())
    print(f"wrote {out}", file=sys.stderr)
