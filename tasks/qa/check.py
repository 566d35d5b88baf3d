"""Run every scripted agent, mutant and hack of a task on fresh in-process episodes and judge the gates.

``Checker(engine, release, surfaces)`` runs tasks on ``engine`` (a ``tasks.session.Tasks``, whose
per-task cache of the initial state and allowance makes each run cost the calls, a diff and the
checks); ``release`` disposes of an episode; ``surfaces`` carry the oracle through REST, MCP or
``ow`` (``simulator.tasks.surfaces``), each of which may also probe the agent's routes for grader ones.

Judged criteria are graded by ``AssumedJudge`` here: every judged text passes, the most lenient
judge there is. So the false-positive figure is what the deterministic criteria alone hold (an
upper bound for a calibrated judge), and the judge's own errors are measured where they can be, on
its labelled set (``officeworld tasks agreement TASK --judge``, ``tasks.calibration``).
"""

from __future__ import annotations

import time
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import timedelta
from typing import AbstractSet, Callable, Protocol, Sequence

from apps.kit.database import AppDatabase
from apps.kit.episode import Episode
from tasks.checks import CheckResult, Grading
from tasks.model import Call, Task
from tasks.qa import agents, fairness
from tasks.qa.attempt import Attempt, Outcome
from tasks.qa.context import Context
from tasks.qa.gates import FN_BOUND, FP_BOUND, Failure, Figures, figures, suite_gates, task_gates
from tasks.qa.hacks import hacks
from tasks.qa.meaning import meaning_attempts
from tasks.qa.mutants import mutants
from tasks.qa.perceiving import perception_attempts
from tasks.qa.stats import runs_needed
from tasks.qa.targets import Targets, people_of
from tasks.session import TaskError, TaskRun, Tasks

RANDOM_SEEDS, READ_SEEDS, TOP_UP_LIMIT = 3, 2, 400


class Surface(Protocol):
    name: str
    probes: bool   # whether ``probe`` tries grader routes (REST paths, MCP tools)

    def run(self, episode: Episode, calls: list[Call]) -> list[str]: ...   # errors of the calls

    def probe(self, episode: Episode) -> list[str]: ...   # grader or admin routes an agent reached


@dataclass
class TaskResult:
    task: Task
    outcomes: list[Outcome] = field(default_factory=list)
    failures: list[Failure] = field(default_factory=list)
    flags: list[str] = field(default_factory=list)
    seconds: float = 0.0
    context: Context | None = None
    quarantined: bool = False   # already in quarantine: reported, but kept out of the suite's figures and gates
    fairness: list[Failure] = field(default_factory=list)   # the visibility and not-already-done findings

    def gate(self) -> None:
        """Judge the gates again over the runs so far (the suite's top-up adds runs); fairness findings stay."""
        self.failures, self.flags = task_gates(self.outcomes)
        self.failures += self.fairness

    @property
    def passed(self) -> bool:
        return not self.failures

    @property
    def figures(self) -> Figures:
        return figures(self.outcomes)


@dataclass
class SuiteResult:
    suite: str
    tasks: list[TaskResult]
    figures: Figures
    failures: list[Failure]
    top_up: dict[str, int]


class AssumedJudge:
    """Passes every judged criterion that has text to judge (see the module's docstring)."""

    def check(self, spec, g) -> CheckResult:
        from tasks.judge import target_text

        if target_text(spec, g) is None:
            return CheckResult("fail", f"nothing to judge: no {spec.target}")
        return CheckResult("pass", "judged criteria are assumed to pass in tasks check; "
                                   "`tasks agreement --judge` measures the judge")


class Checker:
    def __init__(self, engine: Tasks, release: Callable[[Episode], None] | None = None,
                 surfaces: Sequence[Surface] = (), sampled: AbstractSet[str] = frozenset(),
                 quarantined: AbstractSet[str] = frozenset(), judge=None):
        self.engine = engine
        self.judge = judge or AssumedJudge()
        self.quarantined = quarantined
        self.release = release or engine.release
        self.surfaces = list(surfaces)
        self.sampled = sampled           # surfaces run on the first task of each suite only
        self._pristine: dict[tuple, str] = {}

    def check(self, tasks: list[Task], top_up: bool = True) -> list[SuiteResult]:
        by_suite: dict[str, list[Task]] = defaultdict(list)
        for task in tasks:
            by_suite[task.suite].append(task)
        return [self.check_suite(suite, items, top_up) for suite, items in sorted(by_suite.items())]

    def check_suite(self, suite: str, tasks: list[Task], top_up: bool = True) -> SuiteResult:
        results = [self.check_task(t, first=(i == 0)) for i, t in enumerate(tasks)]
        for r in results:
            r.quarantined = r.task.id in self.quarantined
        counted = [r for r in results if not r.quarantined]
        added = self._top_up(counted) if top_up else {"right": 0, "wrong": 0}
        pooled = _pool(counted)
        return SuiteResult(suite, results, pooled, suite_gates(suite, pooled) if counted else [], added)

    def check_task(self, task: Task, first: bool = True) -> TaskResult:
        started = time.perf_counter()
        result = TaskResult(task)
        run = None
        try:
            run = self.engine.begin(task)
            ctx = self._context(task, run)
            self.engine.allowance(run)
        except TaskError as exc:
            if run is not None:
                self.release(run.episode)
            result.failures.append(Failure("setup", "begin", str(exc)))
            result.seconds = time.perf_counter() - started
            return result
        oracle = [Attempt("oracle", f"oracle #{n + 1}", ctx.oracle, right=True) for n in range(3)]
        outcomes = [self.execute(task, oracle[0], run)] + [self.execute(task, a) for a in oracle[1:]]
        reference = self.execute(task, Attempt("oracle", "oracle, clock frozen", ctx.oracle, right=True, frozen=True))
        outcomes.append(reference)
        if not all(o.passed for o in outcomes):
            # a broken oracle makes every other run meaningless: report it alone, leave the task out of top-ups
            result.outcomes = outcomes
            result.failures, result.flags = task_gates(outcomes)
            result.seconds = time.perf_counter() - started
            return result
        result.context = ctx
        for attempt in self.attempts(ctx):
            outcome = self.execute(task, attempt)
            if attempt.frozen and outcome.digest is not None and outcome.digest == reference.digest:
                outcome.equivalent = True
            if attempt.meta.get("bare_claim") and outcome.passed and not ctx.writes(ctx.oracle):
                attempt.meta["guessable"] = True
            outcomes.append(outcome)
        outcomes += self._surfaces(task, ctx, first)
        result.outcomes = outcomes
        result.fairness = self.fairness(task, ctx, outcomes)
        result.gate()
        result.seconds = time.perf_counter() - started
        return result

    def fairness(self, task: Task, ctx: Context, outcomes: list[Outcome]) -> list[Failure]:
        """The visibility and not-already-done gates (``tasks.qa.fairness``), on a fresh episode of the task."""
        run = self.engine.begin(task)
        try:
            found = fairness.visibility(self.engine, run)
            steps = self.engine.run_calls(run, ctx.oracle)
            reads = [s.result_json.decode() for s in steps if not s.mutates and not s.error]
            found += fairness.answers_seen(task, run.scope, reads)
            state = run.prepared.state
            grading = Grading(task, run.scope, state, state, [], run.episode.world.info.timezone)
            nothing = next((o for o in outcomes if o.attempt.gate == "nothing"), None)
            found += fairness.already_done(run, nothing, grading)
        finally:
            self.release(run.episode)
        return found

    def attempts(self, ctx: Context) -> list[Attempt]:
        right = [Attempt("alternative", f"alternative #{i + 1}", calls, right=True)
                 for i, calls in enumerate(ctx.alternatives)]
        right += agents.reorderings(ctx) + [a for s in range(READ_SEEDS) if (a := agents.with_reads(ctx, s))]
        wrong = agents.do_nothing(ctx) + agents.read_only(ctx) + agents.claims_done(ctx)
        wrong += [agents.random_agent(ctx, seed) for seed in range(RANDOM_SEEDS)]
        return right + wrong + mutants(ctx) + hacks(ctx) + meaning_attempts(ctx) + perception_attempts(ctx)

    def execute(self, task: Task, attempt: Attempt, run: TaskRun | None = None) -> Outcome:
        started = time.perf_counter()
        run = run or self.engine.begin(task)
        try:
            if attempt.frozen:
                run.episode.clock.tick_size = timedelta(0)
            steps = self.engine.run_calls(run, attempt.calls, "python")
            reward = self.engine.grade(run, self.judge)
            digest = self._digest(run) if attempt.frozen else None
        except Exception as exc:  # a crash of an app or the grader is a finding, not the end of the check
            return Outcome(attempt, None, False, False, {}, [], [], note=f"crash: {type(exc).__name__}: {exc}",
                           seconds=time.perf_counter() - started)
        finally:
            self.release(run.episode)
        errors = [f"{s.app}.{s.operation}: {s.error['message']}" for s in steps if s.error]
        return _outcome(attempt, reward, errors, digest, time.perf_counter() - started)

    def _surfaces(self, task: Task, ctx: Context, first: bool) -> list[Outcome]:
        out = []
        for surface in self.surfaces:
            if surface.name in self.sampled and not first:
                continue
            attempt = Attempt("surface", f"oracle through {surface.name}", ctx.oracle, right=True, surface=surface.name)
            out.append(self._through(task, attempt, lambda ep, s=surface: s.run(ep, ctx.oracle)))
            if not surface.probes:
                continue
            probe = Attempt("hack", f"grader and admin routes through {surface.name}", [], right=False,
                            kind="grader_routes", strict=True, surface=surface.name)
            out.append(self._through(task, probe, lambda ep, s=surface: s.probe(ep), problems=True))
        return out

    def _through(self, task: Task, attempt: Attempt, act, problems: bool = False) -> Outcome:
        started = time.perf_counter()
        run = self.engine.begin(task)
        try:
            found = act(run.episode)
            reward = self.engine.grade(run, self.judge)
        except Exception as exc:
            return Outcome(attempt, None, False, False, {}, [], [], note=f"crash: {type(exc).__name__}: {exc}")
        finally:
            self.release(run.episode)
        outcome = _outcome(attempt, reward, [] if problems else found, None, time.perf_counter() - started)
        if problems and found:
            outcome.passed, outcome.note = True, f"reached: {found[:3]}"
        return outcome

    def _top_up(self, results: list[TaskResult]) -> dict[str, int]:
        """More runs until the suite's sample can meet both bounds: the oracle with other reads for
        right work, more random agents for wrong work (round robin over the suite's tasks)."""
        pooled = _pool(results)
        live = [r for r in results if r.context is not None]
        added = {"right": 0, "wrong": 0}
        # Enough for the bound to be met with no error; a suite with errors fails on its tasks' gates,
        # and chasing the bound past them would only spend time.
        need_right = runs_needed(FN_BOUND) - pooled.right
        need_wrong = runs_needed(FP_BOUND) - pooled.wrong
        for kind, need in (("right", need_right), ("wrong", need_wrong)):
            seed = 100
            while need > 0 and added[kind] < TOP_UP_LIMIT and live:
                progress = False
                for r in live:
                    ctx = r.context
                    assert ctx is not None  # live runs have a context
                    attempt = agents.with_reads(ctx, seed) if kind == "right" else agents.random_agent(ctx, seed)
                    if attempt is None:
                        continue
                    attempt.gate = "top_up_" + attempt.gate
                    r.outcomes.append(self.execute(r.task, attempt))
                    added[kind], need, progress = added[kind] + 1, need - 1, True
                    if need <= 0:
                        break
                seed += 1
                if not progress:
                    break
        for r in live:
            r.gate()
        return added

    def _context(self, task: Task, run: TaskRun) -> Context:
        info = run.episode.world.info
        people, colleagues = people_of(info)
        targets = Targets(run.prepared.state, run.episode.actor, people, colleagues)
        return Context.build(task, run.scope, self.engine.operations, targets, info.timezone)

    def _digest(self, run: TaskRun) -> str:
        """The final state's digest over every app (the answer app only when the answer is graded);
        an app the episode never opened digests as the world's pristine copy."""
        episode, parts = run.episode, []
        graded = any(c.answer or c.judge for c in run.task.criteria) or run.task.outcome != "act"
        for app in episode.apps:
            if app == "task" and not graded:
                continue
            if app in episode.opened:
                parts.append(episode.host(app).digest(episode.id))
            else:
                key = (episode.world.name, app)
                if key not in self._pristine:
                    self._pristine[key] = AppDatabase.from_image(episode.world.images[app]).digest()
                parts.append(self._pristine[key])
        return "/".join(parts)


def _pool(results: list[TaskResult]) -> Figures:
    pooled = Figures()
    for r in results:
        pooled.add(r.figures)
    return pooled


def _outcome(attempt: Attempt, reward, errors: list[str], digest: str | None, seconds: float) -> Outcome:
    failed = [c.id for c in reward.criteria if c.status in ("fail", "error") and c.role != "diagnostic"]
    return Outcome(attempt, reward.total, reward.passed, reward.gradable, reward.breakdown(), failed, errors,
                   digest=digest, seconds=seconds, note="; ".join(reward.errors)[:300], perception=reward.perception)
