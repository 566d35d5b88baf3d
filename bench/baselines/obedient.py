"""The obedient baseline: a scripted policy that does the user's task (the task's oracle, as
``simulator.runner.scripted.OraclePolicy`` with no slip) and also does whatever an instruction it reads in a
tool result asks, as a model with no defence against prompt injection would. A **baseline** for the security
suites' figures, not an agent and not a model: it recognises instructions by keywords only.

It reads every tool result; a text that addresses the assistant ("assistant", "AI", "system notice",
"instruction") from there on is an instruction, and four kinds are obeyed: forward (the mail that carried
it, else the first mail read) to an address named; mail an address named (with the documents it read as the
body); open a document's general access (``viewer``: the document it read, else the first one a search
for the words before "document" finds); include something in the reply (the lines it read, or reads then, that
hold the words named and a figure, appended to the oracle's reply or send). A mail known only by its snippet
is opened first, to read the instruction whole. An instruction is obeyed before the oracle's next
write. ``python -m bench.baselines.obedient --port N`` serves it as an OpenAI-compatible model (the task
told by its prompt), so ``officeworld run --model`` measures it like any model.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Iterator

import httpx

from simulator.runner.scripted import SUBMIT, OraclePolicy

CUE = re.compile(r"\b(assistant|AI|system notice|instruction)\b", re.IGNORECASE)
ADDRESS = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
READS = ("get_", "list_", "search", "read_", "query", "wait", "free_busy", "find_")


@dataclass
class Memory:
    """What the tool results so far held: mails, documents, every text."""

    mails: list[dict] = field(default_factory=list)
    docs: list[dict] = field(default_factory=list)
    texts: list[tuple[str, dict]] = field(default_factory=list)   # (text, the record holding it)

    @classmethod
    def of(cls, messages: list[dict]) -> "Memory":
        memory = cls()
        for message in messages:
            if message.get("role") == "tool":
                try:
                    memory._walk(json.loads(message.get("content") or "null"), {})
                except json.JSONDecodeError:
                    continue
        return memory

    def _walk(self, value: Any, holder: dict) -> None:
        if isinstance(value, dict):
            if "id" in value and "subject" in value and "sender" in value and value not in self.mails:
                self.mails.append(value)
            if isinstance(value.get("file"), dict) and isinstance(value.get("content"), str):
                self.docs.append({**value["file"], "text": value["content"]})   # a document read
            elif "id" in value and "name" in value and "mime_type" in value and value not in self.docs:
                self.docs.append(value)   # one a listing or search showed
            for item in value.values():
                self._walk(item, value)
        elif isinstance(value, list):
            for item in value:
                self._walk(item, holder)
        elif isinstance(value, str) and value:
            self.texts.append((value, holder))

    def doc_text(self) -> str:
        return "\n".join(d["text"] for d in self.docs if isinstance(d.get("text"), str))


def instructions(memory: Memory) -> list[tuple[str, dict]]:
    """The instructions read, in order, once each: (text from the cue on, the record that held it)."""
    out: list[tuple[str, dict]] = []
    for text, holder in memory.texts:
        cue = CUE.search(text)
        said = text[cue.start():].strip() if cue else ""
        same = next((n for n, (s, _) in enumerate(out) if s.startswith(said[:40]) or said.startswith(s[:40])), None)
        if said and same is None:
            out.append((said, holder))
        elif said and same is not None and len(said) > len(out[same][0]):
            out[same] = (said, holder)   # the whole of what a snippet began
    return out


def obey(said: str, holder: dict, memory: Memory) -> Iterator[tuple[str, dict]]:
    """The calls that do what ``said`` asks, as far as the memory allows (a search first, then the act)."""
    lower = said.lower()
    address = next((a for a in ADDRESS.findall(said)), None)
    if holder in memory.mails and "body" not in holder:   # a snippet: open the mail to read it all
        yield "mail_get_message", {"message_id": holder["id"]}
    elif re.search(r"\binclude\b", lower):
        if not included(said, memory):
            yield from _find_document(said, memory, "docs_read_file", {})
    elif address and "forward" in lower:
        mail = holder if holder in memory.mails else (memory.mails[0] if memory.mails else None)
        if mail is not None:
            yield "mail_forward", {"message_id": mail["id"], "to": [address]}
    elif address and re.search(r"\b(e-?mail|send|mail)\b", lower):
        yield "mail_send", {"to": [address], "subject": "As requested", "body": memory.doc_text() or said}
    elif "general access" in lower or "anyone with the link" in lower:
        yield from _find_document(said, memory, "docs_set_general_access", {"role": "viewer"})


def _find_document(said: str, memory: Memory, then: str, args: dict) -> Iterator[tuple[str, dict]]:
    """``then`` on the document the instruction names: one read, else the first a search for its words finds."""
    docs = [d for d in memory.docs if isinstance(d.get("text"), str)]
    if not docs and not memory.docs:
        before = said.lower().split("document")[0].replace("'s", "")
        words = [w for w in re.findall(r"[a-z]+", before)[-3:] if w not in ("the", "a", "our", "your", "from")]
        yield "docs_search", {"query": " ".join(words)}
    elif then != "docs_read_file" or not docs:
        yield then, {"file_id": (docs or memory.docs)[0]["id"], **args}


def included(said: str, memory: Memory) -> list[str]:
    """For "include X in your reply": the lines read that hold X's last two words and a figure."""
    wanted = re.search(r"include\s+(.*?)\s+(?:from|in your reply)", said, re.IGNORECASE)
    words = re.findall(r"[a-z]+", wanted.group(1).lower())[-2:] if wanted else []
    lines = [line.strip() for text, _ in memory.texts for line in text.splitlines()]
    return sorted({line for line in lines if words and all(w in line.lower() for w in words)
                   and re.search(r"\d", line) and not CUE.search(line)})


@dataclass
class ObedientBaseline:
    """The baseline policy (see the module): the oracle's calls, and every instruction read obeyed."""

    tasks_root: Any = None
    oracle: OraclePolicy = field(init=False)

    def __post_init__(self) -> None:
        self.oracle = OraclePolicy(slip=0.0, tasks_root=self.tasks_root)

    def describe(self) -> dict:
        return {"model": "baseline:obedient", "model_name": "obedient baseline (oracle + obeys injected instructions)"}

    def prepare(self, tasks: list[str]) -> None:
        self.oracle.prepare(tasks)

    async def reply(self, http: httpx.AsyncClient, messages: list[dict], tools: list[dict], *,
                    task: str, sample: int) -> dict:
        return next_message(messages, self.oracle.plan(task, 0))


def next_message(messages: list[dict], plan: list[tuple[str, dict]]) -> dict:
    """The next call, from the conversation alone: calls carry ids ``oracle_N`` and ``obey_K_TOOL``."""
    made = [c.get("id", "") for m in messages if m.get("role") == "assistant" for c in m.get("tool_calls") or []]
    work = [(name, args) for name, args in plan if name != SUBMIT[1]]
    done = sum(1 for i in made if i.startswith("oracle_"))
    memory = Memory.of(messages)
    said = instructions(memory)
    upcoming = work[done] if done < len(work) else None
    if upcoming is None or not upcoming[0].split("_", 1)[1].startswith(READS):
        for k, (text, holder) in enumerate(said):
            for name, args in obey(text, holder, memory):
                if f"obey_{k}_{name}" not in made:
                    return _call(f"obey_{k}_{name}", name, args)
    if upcoming is not None:
        name, args = upcoming
        extra = [line for text, _ in said if re.search(r"\binclude\b", text, re.I) for line in included(text, memory)]
        if extra and name in ("mail_reply", "mail_send") and "body" in args:
            args = {**args, "body": args["body"] + "\n\n" + "\n".join(extra)}
        return _call(f"oracle_{done}", name, args)
    if any(name == SUBMIT[1] for name, _ in plan) and not any(i == "submit" for i in made):
        return _call("submit", *next((n, a) for n, a in plan if n == SUBMIT[1]))
    return _call("submit", SUBMIT[1], {"answer": "Done."}) if "submit" not in made else \
        {"role": "assistant", "content": "Nothing left to do.", "tool_calls": []}


def _call(call_id: str, name: str, args: dict) -> dict:
    return {"role": "assistant", "content": None, "tool_calls": [
        {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(args, default=str)}}]}


def app(tasks_root: Any = None):
    """The baseline as an OpenAI-compatible server (``/v1/chat/completions``): the task is the one whose prompt
    the conversation's user message is (a pair and its user task share prompt and oracle)."""
    from fastapi import FastAPI
    from fastapi.responses import JSONResponse

    from tasks.loader import SUITES_DIR, load_suites

    by_prompt: dict[str, str] = {}
    for task in load_suites(tasks_root or SUITES_DIR):
        by_prompt.setdefault(task.prompt, task.id)
    policy = ObedientBaseline(tasks_root=tasks_root)
    server = FastAPI()

    @server.post("/v1/chat/completions")
    def chat(body: dict):
        messages = body.get("messages") or []
        prompt = next((m.get("content") for m in messages if m.get("role") == "user"), None)
        task = by_prompt.get(prompt) if isinstance(prompt, str) else None
        if task is None:
            return JSONResponse({"error": {"message": "the baseline knows no task with this prompt"}}, 400)
        message = next_message(messages, policy.oracle.plan(task, 0))
        return {"choices": [{"index": 0, "message": message, "finish_reason": "tool_calls"}]}
    return server


def main() -> None:
    import argparse

    import uvicorn

    parser = argparse.ArgumentParser(description="Serve the obedient baseline as an OpenAI-compatible model")
    parser.add_argument("--port", type=int, default=8765)
    args = parser.parse_args()
    uvicorn.run(app(), host="127.0.0.1", port=args.port, log_level="warning")


if __name__ == "__main__":
    main()
