"""The command-line options `officeworld run` and `officeworld learnability` share, written once."""

from __future__ import annotations

from enum import Enum

import typer

CONCURRENCY = typer.Option(8, min=1, help="Rollouts at once")
MAX_TURNS = typer.Option(30, min=1, help="Model turns per rollout before it is cut off")
MODEL_NAME = typer.Option("default", help="The model name sent in each request")
API_KEY = typer.Option(None, envvar="OFFICEWORLD_MODEL_API_KEY", help="Bearer key for the model server")
TIMEOUT = typer.Option(120.0, help="Seconds to wait for one model reply")
RETRIES = typer.Option(3, min=0, help="Tries again after the model endpoint fails (refused, timed out, 5xx); "
                                      "a rollout still failing is not scored and runs again on resume")
BACKOFF = typer.Option(1.0, min=0.0, help="Seconds before the first retry, doubled for each next one")
class Observation(str, Enum):
    snapshot = "snapshot"
    pixels = "pixels"
    marks = "marks"


OBSERVATION = typer.Option(None, help="Offer the browser tools too, the pages shown as: snapshot (the accessibility "
                                      "tree), pixels (a screenshot, sent to the model as an image) or marks (a "
                                      "screenshot with numbered set-of-marks)")


class Toolset(str, Enum):
    task = "task"
    all = "all"


TOOLSET = typer.Option(Toolset.task, help="The tools the model is offered: task (its apps' and the answer, a fraction "
                                    "of the prompt) or all (every app's, some 27k tokens)")
SERVER = typer.Option(None, help="An officeworld server to use (default: one in this process)")
TOKEN = typer.Option(None, envvar="OFFICEWORLD_TOKEN", help="The server's control token")
