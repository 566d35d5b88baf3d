"""``officeworld tasks``: list and show tasks, run an oracle, grade a sequence of calls."""

from __future__ import annotations

import json
import sys
from enum import Enum
from pathlib import Path

import typer

from tasks.loader import TaskFileError

cli = typer.Typer(help="List, show, run and grade tasks.", no_args_is_help=True, add_completion=False)


def _catalog():
    from apps.kit import Invalid
    from simulator.store.episodes import EpisodeStore
    from simulator.tasks.catalog import task_catalog

    try:
        return task_catalog(EpisodeStore())
    except (TaskFileError, Invalid) as exc:
        typer.echo(str(exc), err=True)
        raise typer.Exit(1) from None


class SplitName(str, Enum):
    train = "train"
    validation = "validation"
    test = "test"


class Format(str, Enum):
    jsonl = "jsonl"
    parquet = "parquet"


@cli.command("list")
def list_tasks(suite: str = typer.Option(None, help="Only this suite (or family)"),
               tag: str = typer.Option(None, help="Only this tag"),
               world: str = typer.Option(None, help="Only this world"),
               split: SplitName = typer.Option(None, help="Only this split"),
               family: str = typer.Option(None, help="Only this scenario family"),
               quarantined: bool = typer.Option(False, help="Include quarantined tasks")) -> None:
    """One line per task: id, suite, world, split, difficulty, oracle calls, tags."""
    catalog = _catalog()
    for t in catalog.select(suite, tag, world, include_quarantined=quarantined, split=split and split.value,
                            family=family):
        mark = " [quarantined]" if t.id in catalog.quarantined else ""
        typer.echo(f"{t.id}  {t.suite}  {t.world}  {t.split}  {t.difficulty}  {t.figures.get('oracle_calls', 0)} calls"
                   f"  {','.join(t.tags)}{mark}")


@cli.command()
def corpus() -> None:
    """What the generated corpus holds (tasks per split, world and difficulty, oracle lengths), what was skipped
    and why, and any family that failed (exit 1)."""
    from simulator.bench.corpus import held

    catalog = _catalog()
    made = catalog.corpus
    if made is None:
        typer.echo("no generated corpus (OFFICEWORLD_CORPUS=off)")
        return
    typer.echo(json.dumps({"held": held(made.tasks), "skipped": made.skipped, "problems": made.problems}, indent=1))
    raise typer.Exit(1 if made.problems else 0)


@cli.command()
def export(out: Path = typer.Argument(..., help="File to write"),
           split: SplitName = typer.Option(None, help="Only this split"),
           fmt: Format = typer.Option(Format.jsonl, "--format", help="jsonl or parquet"),
           world: str = typer.Option(None, help="Only this world"),
           family: str = typer.Option(None, help="Only this scenario family")) -> None:
    """The tasks as a dataset, one row per task (what a trainer may see, and the difficulty figures)."""
    from simulator.tasks.export import export as write

    catalog = _catalog()
    try:
        count = write(catalog.select(world=world, split=split and split.value, family=family), out, fmt.value)
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint="--format") from None
    typer.echo(f"wrote {count} task(s) to {out}")


@cli.command()
def show(task_id: str, full: bool = typer.Option(False, help="Also criteria, bindings and oracle (never for agents)")) -> None:
    """A task's prompt and metadata as JSON (with --full, the whole definition)."""
    task = _get(_catalog(), task_id)
    typer.echo(json.dumps(task.model_dump(mode="json", by_alias=True) if full else task.public(), indent=1))


@cli.command("run-oracle")
def run_oracle(task_id: str, alternative: int = typer.Option(0, help="0 for the oracle, N for the Nth alternative")) -> None:
    """Run the oracle on a fresh episode and print its reward (exit 1 unless it passes)."""
    catalog = _catalog()
    task = _get(catalog, task_id)
    calls = task.oracle if alternative == 0 else task.alternatives[alternative - 1]
    _grade_calls(catalog, task, [c.model_dump(by_alias=True, exclude_none=True) for c in calls])


@cli.command()
def grade(task_id: str, calls: Path = typer.Argument(..., help="JSON file: a list of {op: app.name, args: {...}}"),
          answer: str = typer.Option(None, help="A final answer, submitted after the calls")) -> None:
    """Run a sequence of calls on a fresh episode of the task and print the reward."""
    catalog = _catalog()
    task = _get(catalog, task_id)
    try:
        steps = json.loads(calls.read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise typer.BadParameter(f"{calls}: {exc}", param_hint="CALLS") from None
    if answer is not None:
        steps.append({"op": "task.submit_answer", "args": {"answer": answer}})
    _grade_calls(catalog, task, steps)


@cli.command()
def generate(world: str = typer.Option("acme", help="World whose mail the questions are about"),
             count: int = typer.Option(30, min=1, help="How many tasks to write"),
             seed: int = typer.Option(0, help="Which messages are chosen"),
             actor: str = typer.Option(None, "--as", help="Whose mailbox (default: the world's acting person)"),
             out: Path = typer.Option(None, help="Folder to write to (default: tasks/suites/email-qa-WORLD)")) -> None:
    """Write email-search question-answering tasks whose answers are known by construction."""
    from simulator.store.episodes import EpisodeStore
    from tasks import generate as gen
    from tasks.loader import SUITES_DIR
    from tasks.records import State

    store = EpisodeStore()
    episode = store.create(world, actor)
    info = episode.world.info
    names = {p.email: p.name for p in info.people} | {o.email: o.name for o in info.outsiders}
    state = State({app: episode.read_db(app).conn for app in episode.apps})
    tasks = gen.questions(state, world, episode.actor, info.timezone, names, count, seed)
    paths = gen.write(tasks, out or SUITES_DIR / f"email-qa-{world}")
    typer.echo(f"wrote {len(paths)} task(s) to {paths[0].parent if paths else out}")


def _grade_calls(catalog, task, calls: list[dict]) -> None:
    from pydantic import ValidationError

    from tasks.model import Call

    try:
        parsed = [Call.model_validate(c) for c in calls]
    except ValidationError as exc:
        raise typer.BadParameter(str(exc)) from None
    run = catalog.start(task.id, include_quarantined=True)
    for step in catalog.engine.run_calls(run, parsed):
        if step.error:
            typer.echo(f"step {step.index} {step.app}.{step.operation}: {step.error['message']}", err=True)
    reward = catalog.finish(run.episode)
    typer.echo(reward.model_dump_json(indent=1))
    raise typer.Exit(0 if reward.passed else 1)


@cli.command()
def check(targets: list[str] = typer.Argument(None, help="Suites or task ids (default: every task)"),
          report: Path = typer.Option(None, help="Write tasks-check.json and tasks-check.md into this folder"),
          quarantine: bool = typer.Option(False, help="Quarantine the tasks that fail, release those that pass"),
          surfaces: str = typer.Option("rest,mcp,ow", help="Surfaces the oracle also runs through (rest, mcp, ow; "
                                                           "'none' for none)"),
          ow_all: bool = typer.Option(False, help="Run ow on every task (default: the first of each suite)"),
          top_up: bool = typer.Option(True, help="Add runs until each suite's sample can meet the bounds"),
          root: Path = typer.Option(None, help="The suites folder (default: the shipped suites)"),
          everything: bool = typer.Option(False, "--all", help="With no target: the whole generated corpus too "
                                                                 "(default: a stratified sample of it)"),
          sample: int = typer.Option(1, min=0, help="With no target: generated tasks checked per family")) -> None:
    """Prove every written task and a sample of each generated family (--all: every task): oracle, do-nothing,
    claims, random agents, mutants and hacks against its verifier.

    Exit 1 when any task or suite fails a gate."""
    from simulator.tasks.check import SURFACES, run_check, update_quarantine
    from tasks.loader import SUITES_DIR
    from tasks.qa.report import markdown, write

    names = [] if surfaces.strip() in ("", "none") else [s.strip() for s in surfaces.split(",")]
    unknown = sorted(set(names) - set(SURFACES))
    if unknown:
        raise typer.BadParameter(f"unknown surface(s) {unknown}; choose from {', '.join(SURFACES)}",
                                 param_hint="--surfaces")
    root = root or SUITES_DIR
    try:
        data, results = run_check(root, targets or [], names, ow_all, top_up, everything=everything, sample=sample,
                                  progress=lambda line: typer.echo(line, err=True))
    except TaskFileError as exc:
        typer.echo(str(exc), err=True)
        raise typer.Exit(1) from None
    except KeyError as exc:
        typer.echo(f"no suite or task {exc.args[0]!r}; `officeworld tasks list` shows them", err=True)
        raise typer.Exit(2) from None
    typer.echo(markdown(data))
    if report is not None:
        for path in write(data, report):
            typer.echo(f"wrote {path}", err=True)
    if quarantine:
        entries = update_quarantine(root, results)
        typer.echo(f"quarantine: {len(entries)} task(s) in {root / 'QUARANTINE.yaml'}", err=True)
    raise typer.Exit(0 if data["ok"] else 1)


@cli.command()
def agreement(task_id: str,
              trajectories: list[Path] = typer.Argument(None, help="Trajectory or calls JSON files (ranking mode)"),
              ranking: Path = typer.Option(None, help="A person's ranking: names best first, or name: score"),
              judge: bool = typer.Option(False, "--judge", help="Measure the judge on each judged criterion's "
                                                                 "labelled set instead (OFFICEWORLD_JUDGE_URL/MODEL)"),
              root: Path = typer.Option(None, help="The suites folder (default: the shipped suites)")) -> None:
    """Rank trajectories of one task by reward and compare with a person's ranking (Kendall's tau); or,
    with --judge, the judge's accuracy and false-positive rate on its labelled sets (counted only at the bar)."""
    from simulator.store.episodes import EpisodeStore
    from simulator.tasks.check import catalog_over
    from tasks.loader import SUITES_DIR
    from tasks.qa.agreement import AgreementError, load_calls, load_ranking
    from tasks.qa.agreement import agreement as measure

    store = EpisodeStore()
    catalog = catalog_over(store, root or SUITES_DIR)
    task = _get(catalog, task_id)
    if judge:
        _judge_agreement(task)
        return
    if not trajectories or ranking is None:
        raise typer.BadParameter("give trajectory files and --ranking (or --judge)", param_hint="TRAJECTORIES")
    try:
        calls = {path.stem: load_calls(path) for path in trajectories}
        people = load_ranking(ranking, list(calls))
        result = measure(catalog.engine, task, calls, people, release=lambda e: store.delete(e.id))
    except AgreementError as exc:
        raise typer.BadParameter(str(exc)) from None
    typer.echo(json.dumps(result, indent=1))


def _judge_agreement(task) -> None:
    from tasks.calibration import CalibrationError
    from tasks.judge import Judge, judged

    found = Judge.from_env()
    if found is None:
        typer.echo("no judge: set OFFICEWORLD_JUDGE_URL and OFFICEWORLD_JUDGE_MODEL", err=True)
        raise typer.Exit(2)
    if not judged(task):
        typer.echo(f"{task.id} has no judged criterion", err=True)
        raise typer.Exit(2)
    calibrating = Judge(found.base_url, found.model, client=found.client, require_calibration=False)
    try:
        results = [calibrating.calibrate(task, criterion) for criterion in judged(task)]
    except CalibrationError as exc:
        typer.echo(str(exc), err=True)
        raise typer.Exit(2) from None
    typer.echo(json.dumps(results, indent=1))
    raise typer.Exit(0 if all(r["counted"] for r in results) else 1)


def _get(catalog, task_id: str):
    if task_id not in catalog.tasks:
        typer.echo(f"no task {task_id!r}; `officeworld tasks list` shows them", err=True)
        raise typer.Exit(2)
    return catalog.tasks[task_id]


if __name__ == "__main__":  # pragma: no cover
    sys.exit(cli())
