"""``officeworld trajectories export``, ``officeworld replay`` and ``officeworld grade``: no server needed."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from simulator.trajectories.files import TrajectoryFileError, files_in, read

cli = typer.Typer(help="Trajectory files: export them as training data.", no_args_is_help=True, add_completion=False)


def _read(path: Path):
    try:
        return read(path)
    except (OSError, TrajectoryFileError) as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None


def _targets(target: Path) -> list[Path]:
    if not target.exists():
        typer.echo(f"error: {target}: no such file or folder", err=True)
        raise typer.Exit(2)
    paths = files_in(target)
    if not paths:
        typer.echo(f"error: {target}: no *.jsonl trajectory files", err=True)
        raise typer.Exit(2)
    return paths


@cli.command()
def export(target: Path = typer.Argument(..., help="A trajectory file or a folder of them"),
           format: str = typer.Option("jsonl", "--format", help="chat: one JSON document (a list of conversations); "
                                      "jsonl: one conversation per line"),
           out: Path = typer.Option(None, help="Write here instead of stdout"),
           tools: bool = typer.Option(True, help="Include the tools in OpenAI form in each conversation"),
           finished_only: bool = typer.Option(False, help="Leave out files without a footer")) -> None:
    """OpenAI chat messages with tool calls and tool results, usable as SFT data."""
    from simulator.store.registry import APPS, all_operations
    from simulator.trajectories.export import chat

    if format not in ("chat", "jsonl"):
        raise typer.BadParameter(f"{format!r}: use chat or jsonl", param_hint="--format")
    schemas = [op.openai_tool() for op in all_operations(APPS)] if tools else None
    files = [_read(p) for p in _targets(target)]
    conversations = [chat(f, schemas) for f in files if f.finished or not finished_only]
    text = (json.dumps(conversations, ensure_ascii=False, indent=1) + "\n" if format == "chat"
            else "".join(json.dumps(c, ensure_ascii=False) + "\n" for c in conversations))
    if out is None:
        typer.echo(text, nl=False)
    else:
        out.write_text(text, encoding="utf-8")
        typer.echo(f"{len(conversations)} conversation(s) -> {out}", err=True)


def replay_command(file: Path = typer.Argument(..., help="A trajectory file")) -> None:
    """Re-run a file's writes on a fresh episode and compare each result and the final state (exit 1 on divergence)."""
    from simulator.trajectories.replay import replay

    done = replay(_read(file))
    for note in done.notes:
        typer.echo(f"note: {note}", err=True)
    for divergence in done.divergences:
        typer.echo(divergence.describe())
    verdict = "no divergence" if done.ok else f"{len(done.divergences)} divergence(s)"
    typer.echo(f"{file}: {done.replayed} write(s) replayed, {done.skipped_reads} read(s) skipped: {verdict}")
    raise typer.Exit(0 if done.ok else 1)


def grade_command(target: Path = typer.Argument(..., help="A trajectory file or a folder of them"),
                  json_out: Path = typer.Option(None, "--json", help="Also write the rows (and rewards) as JSON here")) -> None:
    """Regrade with the current task definitions (state rebuilt by replay): rewards before and after."""
    from rich.table import Table

    from simulator.runner.tables import print_whole
    from simulator.store.episodes import EpisodeStore
    from simulator.tasks.catalog import task_catalog
    from simulator.trajectories.replay import regrade

    store = EpisodeStore(trajectory_dir=None, idle_timeout=None)
    catalog = task_catalog(store)
    rows = [regrade(_read(p), store, catalog) for p in _targets(target)]
    table = Table("file", "task", "version", "before", "after", "divergences", "note")
    for r in rows:
        version = f"{r.recorded_version}->{r.version}" if r.version not in (None, r.recorded_version) else str(r.recorded_version)
        table.add_row(Path(r.path).name, r.task or "-", version, _fmt(r.before), _fmt(r.after), str(r.divergences),
                      r.error or "")
    print_whole(table)
    if json_out is not None:
        data = [{**{k: v for k, v in vars(r).items() if k != "reward"},
                 "reward": r.reward.model_dump(mode="json") if r.reward else None} for r in rows]
        json_out.write_text(json.dumps(data, indent=1))


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"
