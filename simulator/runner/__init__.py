"""The agent runner: a policy (any OpenAI-compatible chat endpoint, or a scripted one), K rollouts per task.

    policy.py       the Policy seam a rollout asks each turn
    model.py        one chat completion over plain httpx, its failures named; the endpoint's retried (a Policy)
    scripted.py     OraclePolicy: replays each task's oracle, slipping by a seeded chance (tests, smoke runs)
    rollout.py      one episode: create, chat with tool calls until the answer, finish, delete
    metrics.py      reward mean, pass@1, pass@k, pass^k, reward spread, learnable tasks, infrastructure apart
    run.py          a suite's rollouts in parallel (bounded), resume from trajectory files, results
    distributed.py  the same over Ray actors (world servers), with back-pressure and actor replacement
    bench_ray.py    rollouts per second in one process and over 1 and 2 actors
    cli.py          ``officeworld run``
    tables.py       the command line's tables printed whole (run, learnability, replay), never cut
"""
