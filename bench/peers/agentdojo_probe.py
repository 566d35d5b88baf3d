"""Run with AgentDojo's venv: the workspace suite (v1) called the way AgentDojo's own benchmark calls it.

Reset is what ``TaskSuite.run_task_with_pipeline`` does before the agent's first turn: load the default,
injection-free environment (``load_and_inject_default_environment({})``) and the user task's
``init_environment``. Tool calls go through ``FunctionsRuntime.run_function`` on that environment, as
its ``ToolsExecutor`` does (argument validation, dependency injection, the tool itself); the YAML the
executor then writes for the model is timed apart. Every tool result is checked for an error before
timing. Prints JSON."""

import json
import sys
import time

from agentdojo.agent_pipeline.tool_execution import tool_result_to_str
from agentdojo.functions_runtime import FunctionsRuntime
from agentdojo.task_suite.load_suites import get_suite

WARMUP = 5


def times(fn, repeat, what, setup=None):
    """Median and p90 of ``fn`` in µs (wall), median of this process's CPU time; ``setup`` (untimed)
    runs before each call."""
    for _ in range(WARMUP):
        setup and setup()
        fn()
    samples, cpu = [], []
    for _ in range(repeat):
        setup and setup()
        started, started_cpu = time.perf_counter(), time.process_time()
        fn()
        cpu.append((time.process_time() - started_cpu) * 1e6)
        samples.append((time.perf_counter() - started) * 1e6)
    samples.sort()
    return {"median_us": round(samples[len(samples) // 2], 1), "p90_us": round(samples[int(len(samples) * 0.9) - 1], 1),
            "cpu_median_us": round(sorted(cpu)[len(cpu) // 2], 1), "samples": repeat, "measured": what}


def main(repeat: int) -> dict:
    suite = get_suite("v1", "workspace")
    task = suite.get_user_task_by_id("user_task_0")
    runtime = FunctionsRuntime(suite.tools)
    env = suite.load_and_inject_default_environment({})
    pristine = env.model_copy(deep=True)

    def call(name, args):
        result, error = runtime.run_function(env, name, args)
        if error:
            raise SystemExit(f"AgentDojo probe: {name}({args}) failed: {error}")
        return result

    hits = len(call("search_emails", {"query": "meeting"}))
    unread = [e for e in env.inbox.emails.values() if not e.read]

    def mark_unread():
        for email in unread:
            email.read = False

    mark_unread()
    return {
        "suite": {"name": "workspace v1", "emails": len(env.inbox.emails), "unread": len(unread),
                  "files": len(env.cloud_drive.files), "events": len(env.calendar.events)},
        "reset": times(lambda: task.init_environment(suite.load_and_inject_default_environment({})),
                       max(repeat // 10, 5), "load_and_inject_default_environment({}) + init_environment, "
                       "as run_task_with_pipeline resets before each task"),
        "reset_deep_copy": times(lambda: pristine.model_copy(deep=True), max(repeat // 10, 5),
                                 "model_copy(deep=True) of a loaded environment (not what AgentDojo does; "
                                 "the cheapest reset a user could write)"),
        "tool_search_emails": times(lambda: call("search_emails", {"query": "meeting"}), repeat,
                                    f"run_function search_emails('meeting'), {hits} of {len(env.inbox.emails)} "
                                    "emails match (a substring scan)"),
        "tool_search_emails_formatted": times(
            lambda: tool_result_to_str(call("search_emails", {"query": "meeting"})), repeat,
            "the same plus tool_result_to_str, the YAML ToolsExecutor hands the model"),
        "tool_get_unread_emails": times(lambda: call("get_unread_emails", {}), repeat,
                                        f"run_function get_unread_emails: returns the {len(unread)} unread and marks "
                                        "them read (they are marked unread again, untimed, before each call)",
                                        setup=mark_unread),
        "tool_get_file_by_id": times(lambda: call("get_file_by_id", {"file_id": "0"}), repeat,
                                     "run_function get_file_by_id('0'): one file with its content"),
        "tool_share_file": times(
            lambda: call("share_file", {"file_id": "0", "email": "alex.martin@bluesparrowtech.com", "permission": "r"}),
            repeat, "run_function share_file: an idempotent write of one record"),
    }


if __name__ == "__main__":
    print(json.dumps(main(int(sys.argv[1]))))
