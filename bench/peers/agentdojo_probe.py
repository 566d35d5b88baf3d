"""Run with AgentDojo's venv: its reset (load the workspace suite's environment) and tool calls,
called the way its agent pipeline calls them (``FunctionsRuntime.run_function``). Prints JSON."""

import json
import sys
import time

from agentdojo.functions_runtime import FunctionsRuntime
from agentdojo.task_suite.load_suites import get_suite


def times(fn, repeat):
    for _ in range(5):
        fn()
    samples = []
    for _ in range(repeat):
        started = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - started) * 1e6)
    samples.sort()
    return {"median_us": round(samples[len(samples) // 2], 1), "samples": repeat}


repeat = int(sys.argv[1])
suite = get_suite("v1", "workspace")
runtime = FunctionsRuntime(suite.tools)
env = suite.load_and_inject_default_environment({})
email_id = env.inbox.emails and next(iter(env.inbox.emails))
print(json.dumps({
    "reset": times(lambda: suite.load_and_inject_default_environment({}), max(repeat // 10, 5)),
    "tool_search_emails": times(lambda: runtime.run_function(env, "search_emails", {"query": "meeting"}), repeat),
    "tool_get_unread_emails": times(lambda: runtime.run_function(env, "get_unread_emails", {}), repeat),
}))
