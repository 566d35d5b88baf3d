"""Proof that a world's rewards teach: a policy improves from them alone, with group-relative advantages.

    python examples/learn_from_rewards.py                          # the small tool policy, on this CPU
    python examples/learn_from_rewards.py --model http://host:8080/v1    # the same rounds through an endpoint
    python examples/learn_from_rewards.py --trl Qwen/Qwen3-0.6B    # GRPO with TRL (a GPU machine)

Writes OUT/curve.json, OUT/learning-curve.png and the server's trajectory files (OUT/trajectories,
with the in-process server). The logic is in ``trainers/learn.py`` (the loop) and
``trainers/tool_policy.py`` (the policy), so that tests and other scripts import it; this is the
command line.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))   # run from a checkout without installing

from simulator.gateway.client import Client  # noqa: E402
from trainers import learn  # noqa: E402


def arguments(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--task", action="append", help=f"a task (repeatable; default {', '.join(learn.TASKS)})")
    parser.add_argument("--rounds", type=int, default=12, help="rounds (one update each); TRL: steps")
    parser.add_argument("--k", type=int, default=8, help="rollouts per task per round (the group)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--lr", type=float, default=2.0, help="the tool policy's step size")
    parser.add_argument("--out", type=Path, default=Path("runs/learn"))
    parser.add_argument("--png", type=Path, help="where the curve goes (default OUT/learning-curve.png)")
    parser.add_argument("--server", help="an officeworld server (default: one in this process)")
    parser.add_argument("--token", help="its control token (default $OFFICEWORLD_TOKEN)")
    policy = parser.add_mutually_exclusive_group()
    policy.add_argument("--model", help="an OpenAI-compatible endpoint to run the rounds through instead")
    policy.add_argument("--trl", metavar="MODEL", help="train this model with TRL's GRPO instead (needs a GPU)")
    parser.add_argument("--model-name", default="default", help="the model name sent to --model")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> list[dict]:
    args = arguments(argv)
    tasks = args.task or learn.TASKS

    def log(row: dict) -> None:
        print(f"round {row['round']:>3}  mean reward {row['reward_mean']:.3f}  pass@1 {row['pass@1']:.3f}  "
              + "  ".join(f"{t}={m['pass@1']:.2f}" for t, m in row["tasks"].items()), flush=True)

    with learn.world_server(args.out, args.server, args.token) as (base, token):
        if args.trl:
            from trainers.trl import train  # imported here: TRL and a GPU are needed only for this path

            steps = train(args.trl, tasks, server=base, token=token, steps=args.rounds, k=args.k, out=args.out)
            rows = [{"round": r["step"], "reward_mean": r["reward_mean"], "pass@1": r["pass_rate"], "tasks": {}}
                    for r in steps]
            title = f"GRPO with TRL: {args.trl}"
        elif args.model:
            rows = learn.evaluate_endpoint(base, token, args.model, tasks, args.rounds, args.k, args.out,
                                           args.model_name, log)
            title = f"{args.model_name} at {args.model}"
        else:
            with Client(base, token) as ow:
                rows = learn.train(ow, tasks, args.rounds, args.k, args.seed, args.lr, run=args.out.name, log=log)
            title = f"tool policy, {len(tasks)} tasks, k={args.k}, seed {args.seed}"
    learn.save(rows, args.out)
    png = args.png or args.out / "learning-curve.png"
    learn.plot(rows, png, title)
    print(f"curve: {args.out / 'curve.json'}  plot: {png}", file=sys.stderr)
    return rows


if __name__ == "__main__":
    main()
