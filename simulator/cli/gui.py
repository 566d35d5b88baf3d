"""``officeworld gui``: look at the apps' GUI."""

from __future__ import annotations

from pathlib import Path

import typer

cli = typer.Typer(help="The apps' browser GUI.", no_args_is_help=True)


@cli.command()
def screenshots(out: Path = typer.Option(..., help="Folder to write the PNGs into"),
                world: str = typer.Option("acme", help="World to show"),
                actor: str = typer.Option(None, "--as", help="Person to show it as (the world's default when left out)"),
                width: int = typer.Option(1280, help="Width of the browser window in pixels")) -> None:
    """Write a PNG of each main page (mail, CRM, docs) of a fresh episode, using Debian's Chromium."""
    from simulator.gui.shots import screenshots as take

    for path in take(out, world, actor, width):
        typer.echo(path)
