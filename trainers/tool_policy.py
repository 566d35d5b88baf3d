"""A small policy over the tools' action space: a log-linear softmax over tool calls, no model weights.

What it is given: the task's prompt, its public ``apps`` (``GET /v1/tasks/{id}``), the tools' JSON
schemas (as an agent gets them from the episode) and the results of its own calls. Never the oracle,
the bindings or the criteria. Each step is a few choices, each a softmax over candidates scored by a
weight vector over sparse features plus a fixed prior:

- the tool, among ``task_submit_answer`` and the task's apps' tools that search or share a word with
  the prompt, and whose required arguments it can fill (an id needs an id seen in a result);
- each required argument's value, then at most one optional argument (or none) and its value.
  Candidate values: phrases of the prompt (quoted text, capitalised names, file names) for text,
  the schema's enum values, ids and short strings seen in the last result (named by where they
  were: ``messages[0].sender_name``) for ids and answers.

Features name the choice both for every task (``mail_search>task_submit_answer``,
``task_submit_answer.answer<-messages[0].sender_name``) and for this task alone; all weights start
at zero. The prior, so that the first rollouts are better than a uniform draw: words of a tool's name
in the prompt (its verb twice), its app named there, searching before anything is seen and
answering after; a schema's first argument, a quoted phrase, an enum value the prompt says, a
list's first item and a key the prompt names. A rollout ends at ``task_submit_answer`` or after
``max_steps`` calls; the reward is the world's.
"""

from __future__ import annotations

import json
import math
import random
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TypedDict

SUBMIT = "task_submit_answer"
STOP = frozenset("the and for with from that this into your you are was has have had our who what when which "
                 "please just been will all any its not but can out how answer".split())
TEXT_LIMIT = 80      # longest result string offered as a value
LIST_ITEMS = 3       # items of a result list looked at
PHRASES = 12         # prompt phrases kept
ARG_PRIOR = 2.0      # for a tool's first argument, a quoted phrase, an enum value the prompt says
LEAD = {"the", "a", "an", "my", "our", "who", "what", "please"}   # not part of a name at a sentence's start


Option = tuple[str, object, float]   # (source, value, prior) of an argument's candidate value


class Values(TypedDict):
    """The candidate values of one observation (``ToolPolicy._values``)."""

    ids: list[tuple[str, int, float]]        # ids in the last result
    texts: list[tuple[str, str, float]]      # short strings in the last result
    said: set[str]                           # the prompt's words
    phrases: list[tuple[str, str, float]]    # the prompt's phrases


def words(text: str) -> set[str]:
    """Content words, lower-cased, cut to their first four letters (a crude stem: doc/docs/document)."""
    return {w[:4] for w in re.findall(r"[a-z]{3,}", text.lower().replace("_", " ")) if w not in STOP}


def toolbox(prompt: str, tools: dict[str, dict], apps: list[str]) -> dict[str, dict]:
    """The tools the policy considers: ``task_submit_answer`` and, of the apps the task names (its public
    ``apps``), the search tools (the way to find what a prompt names) and those whose name shares a
    word with the prompt."""
    said = words(prompt)
    return {n: t for n, t in tools.items() if n == SUBMIT or (
        n.split("_", 1)[0] in apps and ("search" in n or said & words(n.split("_", 1)[-1])))}


def phrases(prompt: str) -> list[str]:
    """Quoted text, file-like tokens and runs of capitalised words, in order, without repeats."""
    found = re.findall(r'"([^"]+)"', prompt) + re.findall(r"(?<!\w)'([^']+)'(?!\w)", prompt)
    found += re.findall(r"\b\w+(?:[._]\w+)+\b", prompt)
    found += re.findall(r"\b[A-Z][\w&-]*(?:\s+(?:of\s+)?[A-Z][\w&-]*)*", prompt)
    seen: list[str] = []
    for p in (p.strip() for p in found):
        head, _, rest = p.partition(" ")
        p = rest if rest and head.lower() in LEAD else p
        if p and p not in seen:
            seen.append(p)
    return seen[:PHRASES]


def leaves(value, path: str = "") -> list[tuple[str, object]]:
    """(path, value) of every scalar in a result, the first LIST_ITEMS of each list."""
    if isinstance(value, dict):
        return [leaf for k, v in value.items() for leaf in leaves(v, f"{path}.{k}" if path else k)]
    if isinstance(value, list):
        return [leaf for i, v in enumerate(value[:LIST_ITEMS]) for leaf in leaves(v, f"{path}[{i}]")]
    return [(path, value)]


def _schema_type(spec: dict) -> tuple[str | None, list]:
    """The JSON type and the enum of a property (nullable ``anyOf`` unwrapped)."""
    for option in [spec, *spec.get("anyOf", [])]:
        if option.get("type") not in (None, "null"):
            return option["type"], option.get("enum", [])
    return None, []


@dataclass
class Choice:
    features: list[list[str]]   # one feature list per option
    prior: list[float]
    picked: int = 0
    probs: list[float] = field(default_factory=list)


@dataclass
class Observation:
    task: str
    prompt: str
    tools: dict[str, dict]      # name -> {"description", "parameters"}
    apps: list[str]             # the task's apps, as GET /v1/tasks/{id} lists them
    last: object = None         # the last call's result (or error)
    previous: str = "start"
    steps: int = 0


class ToolPolicy:
    """Weights (a dict of feature -> float) and the sampler; ``update`` is one policy-gradient step."""

    def __init__(self, seed: int = 0, max_steps: int = 4):
        self.weights: dict[str, float] = {}
        self.rng = random.Random(seed)
        self.max_steps = max_steps

    # sampling --------------------------------------------------------------------------------------
    def _pick(self, choice: Choice, greedy: bool = False) -> int:
        scores = [p + sum(self.weights.get(f, 0.0) for f in fs)
                  for fs, p in zip(choice.features, choice.prior)]
        top = max(scores)
        exps = [math.exp(s - top) for s in scores]
        total = sum(exps)
        choice.probs = [e / total for e in exps]
        if greedy:
            choice.picked = max(range(len(scores)), key=scores.__getitem__)
        else:
            choice.picked = self.rng.choices(range(len(scores)), weights=choice.probs)[0]
        return choice.picked

    def act(self, obs: Observation, greedy: bool = False) -> tuple[str, dict, list[Choice]]:
        """The next call (tool, arguments) and the choices made for it (kept for the update)."""
        values = self._values(obs)
        tools = [(n, t) for n, t in toolbox(obs.prompt, obs.tools, obs.apps).items() if self._fillable(t["parameters"], values)]
        tool_choice = Choice([self._both(obs, f"{obs.previous}>{n}", f"step{obs.steps}>{n}") for n, _ in tools],
                             [self._tool_prior(obs, n, values["said"]) for n, _ in tools])
        name, spec = tools[self._pick(tool_choice, greedy)]
        choices, args = [tool_choice], {}
        params = spec["parameters"].get("properties", {})
        required = spec["parameters"].get("required") or []
        for arg in required:
            args[arg] = self._value(obs, name, arg, params[arg], values, choices, greedy)
        optional = [a for a in params if a not in required and self._options(params[a], values, a)]
        first = next(iter(params), None)
        which = Choice([self._both(obs, f"{name}.{a}") for a in ["-", *optional]],
                       [0.0, *(ARG_PRIOR if a == first else 0.0 for a in optional)])
        choices.append(which)
        pick = self._pick(which, greedy)
        if pick:
            arg = optional[pick - 1]
            args[arg] = self._value(obs, name, arg, params[arg], values, choices, greedy)
        return name, args, choices

    def _tool_prior(self, obs: Observation, name: str, said: set[str]) -> float:
        """Words of the name in the prompt (its verb counts twice), the app named in the prompt; searching
        before anything is seen; answering once something is."""
        app, _, rest = name.partition("_")
        verb, *others = rest.split("_")
        score = 2.0 * bool(words(verb) & said) + len(words(" ".join(others)) & said)
        score += any(app[:3] == w[:3] or app in w for w in said)
        if obs.steps == 0 and "search" in name:
            score += 2.0
        if obs.steps and name == SUBMIT:
            score += 1.0
        return score

    def _value(self, obs: Observation, tool: str, arg: str, spec: dict, values: Values, choices: list[Choice],
               greedy: bool) -> object:
        options = self._options(spec, values, arg)
        choice = Choice([self._both(obs, f"{tool}.{arg}<-{source}") for source, _, _ in options],
                        [prior for _, _, prior in options])
        choices.append(choice)
        return options[self._pick(choice, greedy)][1]

    def _both(self, obs: Observation, *names: str) -> list[str]:
        """Each feature for every task and for this task alone."""
        return [*names, *(f"{obs.task}|{n}" for n in names)]

    # candidate values ------------------------------------------------------------------------------
    def _values(self, obs: Observation) -> Values:
        found = leaves(obs.last) if obs.last is not None else []
        said = words(obs.prompt)
        # a list's first item (its top hit), a key the prompt says ("full name": sender_name)
        first = [float(p.count("[") == 1 and "[0]" in p) + bool(words(p.rsplit(".", 1)[-1]) & said) for p, _ in found]
        ids = [(p, v, f) for (p, v), f in zip(found, first) if isinstance(v, int) and not isinstance(v, bool)
               and (p.endswith(".id") or p == "id" or p.endswith("_id"))]
        texts: list[tuple[str, str, float]] = []
        seen: set[str] = set()
        for (p, v), f in zip(found, first):
            if isinstance(v, str) and 0 < len(v) <= TEXT_LIMIT and v not in seen:
                seen.add(v)
                texts.append((p, v, f))
        return {"ids": ids, "texts": texts, "said": said,
                "phrases": [(f"prompt#{i}", p, ARG_PRIOR * ('"' + p + '"' in obs.prompt))
                            for i, p in enumerate(phrases(obs.prompt))]}

    def _options(self, spec: dict, values: Values, name: str = "") -> Sequence[Option]:
        """(source, value, prior) for an argument: enum values (prior when the prompt says them), ids
        seen for integer ids, prompt phrases (prior when quoted) and result strings for text."""
        kind, enum = _schema_type(spec)
        if enum:
            return [(f"enum:{v}", v, ARG_PRIOR * (words(str(v)) <= values["said"])) for v in enum]
        if kind == "integer" and name.endswith("_id"):
            return values["ids"]
        if kind == "array" and _schema_type(spec.get("items", {}))[0] == "integer" and name.endswith("_ids"):
            return [(source, [v], prior) for source, v, prior in values["ids"]]
        if kind == "string" and "format" not in json.dumps(spec):
            return values["phrases"] + values["texts"]
        return []

    def _fillable(self, parameters: dict, values: Values) -> bool:
        props = parameters.get("properties", {})
        return all(a in props and self._options(props[a], values, a) for a in parameters.get("required") or [])

    # learning --------------------------------------------------------------------------------------
    def update(self, trajectories: list[list[Choice]], advantages: list[float], lr: float, group: int) -> None:
        """theta += lr * sum_i(A_i * grad log pi(trajectory_i)) / group (the mean within each task's group,
        summed over tasks); for a softmax, grad log pi = phi(picked) - E[phi]."""
        step: dict[str, float] = {}
        for choices, advantage in zip(trajectories, advantages):
            if not advantage:
                continue
            for c in choices:
                for option, (fs, p) in enumerate(zip(c.features, c.probs)):
                    g = advantage * ((option == c.picked) - p)
                    for f in fs:
                        step[f] = step.get(f, 0.0) + g
        for f, g in step.items():
            self.weights[f] = self.weights.get(f, 0.0) + lr * g / group
