"""The agent runner: any OpenAI-compatible chat endpoint as the policy, K rollouts per task.

    model.py     one chat completion over plain httpx, its failures named
    rollout.py   one episode: create, chat with tool calls until the answer, finish, delete
    metrics.py   reward mean, pass@1, pass@k, pass^k, learnable tasks
    run.py       a suite's rollouts in parallel (bounded), resume from trajectory files, results
    cli.py       ``officeworld run``
"""
