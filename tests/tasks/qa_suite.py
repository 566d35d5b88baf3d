"""A small task suite on the small test world: two sound tasks and two deliberately weak ones."""

from __future__ import annotations

from pathlib import Path

GOOD = {
    "reply-sam": """
id: mail-reply-sam
world: {world}
prompt: Reply to Sam's email about the Globex renewal pricing; tell him the quote will be sent by March 27.
bindings:
  msg: {{from: mail.message, where: {{owner: $actor, rfc_id: "<g1@globex.example>"}}}}
criteria:
  - id: replied
    records:
      from: mail.outbound
      count: 1
      expect: {{recipient: sam@globex.example, in_reply_to: "<g1@globex.example>", body: {{phrase: "sent by March 27"}}}}
oracle:
  - {{op: mail.reply, args: {{message_id: $msg.id, body: "Hi Sam, the quote will be sent by March 27."}}}}
""",
    "outage-minutes": """
id: mail-outage-minutes
world: {world}
outcome: answer
prompt: How many minutes did the Initech dashboard outage last?
criteria:
  - id: minutes
    answer: {{type: number, expect: 42}}
oracle:
  - {{op: mail.search, args: {{query: outage}}}}
  - {{op: task.submit_answer, args: {{answer: "42 minutes"}}}}
""",
}

WEAK = {
    # The goal reads a record that exists whatever the agent does: doing nothing passes.
    "weak-archive": """
id: mail-weak-archive
world: {world}
prompt: Archive Mei's outage postmortem email.
bindings:
  msg: {{from: mail.message, where: {{owner: $actor, subject: {{tokens: [outage]}}}}}}
criteria:
  - id: found
    records: {{from: mail.message, where: {{id: $msg.id}}, expect: {{subject: {{tokens: [postmortem]}}}}}}
oracle:
  - {{op: mail.archive, args: {{message_ids: [$msg.id]}}}}
""",
    # A substring-style answer check: any answer that mentions 42 somewhere passes.
    "weak-minutes": """
id: mail-weak-minutes
world: {world}
outcome: answer
prompt: How many minutes did the Initech dashboard outage last?
criteria:
  - id: minutes
    answer: {{type: text, tokens: ["42"]}}
oracle:
  - {{op: task.submit_answer, args: {{answer: "42"}}}}
""",
}

# Sound runs, unfair task: Ravi asked Mei, not Dana, when the interview is, so Dana cannot read the answer; only
# the visibility gate catches it (one finding for the binding, one for the answer).
UNFAIR = {
    "hidden-day": """
id: mail-hidden-day
world: {world}
outcome: answer
prompt: When is the interview loop?
bindings:
  ask: {{from: mail.message, where: {{owner: mei@small.test, rfc_id: "<h1@small.test>"}}}}
criteria:
  - id: day
    answer: {{type: text, expect: Friday}}
oracle:
  - {{op: mail.search, args: {{query: interview}}}}
  - {{op: task.submit_answer, args: {{answer: Friday}}}}
""",
}


def write_suite(root: Path, world: Path, tasks: dict[str, str], suite: str = "mail") -> Path:
    folder = root / suite
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in tasks.items():
        (folder / f"{name}.yaml").write_text(text.format(world=world))
    return root
