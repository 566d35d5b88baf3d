"""Rule kinds for co-workers' longer errands (``scenarios.people.model.MailRule``): a review of a document
(``review``) and a request answered only once it is chased (``reminded``).

Both act as the NPC through ``rules.Acts`` (reads included), so what they looked at is recorded with the
reply it led to, and both depend only on the state they read, so a replay answers the same.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone
from typing import Any, Callable

from scenarios.people.model import Review

LOOKBACK = timedelta(days=3)   # a reminder follows its request within days; older mail is another matter


def review(rule: Review, me: str, values: dict[str, Any], acts: Any) -> str:
    """The reviewer opens ``rule.document`` (by name, among the files they can open), comments each change whose
    passage is still there (with comment access; once per change) and returns the reply's text, unrendered
    for ``values`` (``rules.render`` does that) but with ``{document}`` and ``{changes}`` filled."""
    found = acts.act("docs.search", {"name": rule.document, "limit": 20}, me)
    files = [f for f in ((found.result or {}).get("files") or []) if f.get("name") == rule.document] \
        if found.error is None else []
    if not files:
        return _fill(rule.missing, rule.document, [])
    file = files[0]
    read = acts.act("docs.read_file", {"file_id": file["id"]}, me)
    text = str((read.result or {}).get("content", "")) if read.error is None else ""
    open_changes = [c for c in rule.changes if c.quote in text]
    if not open_changes:
        return _fill(rule.done, rule.document, [])
    if file.get("your_role") not in ("commenter", "editor", "owner"):
        return _fill(rule.listed, rule.document, [c.comment for c in open_changes])
    listed = acts.act("docs.list_comments", {"file_id": file["id"]}, me)
    said = {(c.get("author"), c.get("text")) for c in ((listed.result if listed.error is None else None) or [])}
    for change in open_changes:
        if (me, change.comment) not in said:
            acts.act("docs.add_comment", {"file_id": file["id"], "text": change.comment, "quote": change.quote}, me)
    return _fill(rule.reply, rule.document, [c.comment for c in open_changes])


def reminded(message: dict, after_seconds: float, me: str, acts: Any, same_errand: Callable[[dict], bool],
             since: datetime | None = None) -> bool:
    """Whether ``message`` (a search summary from the NPC's mailbox) chases an earlier mail of the same sender
    about the same errand (``same_errand`` of the full message: the rule's patterns) that came at least
    ``after_seconds`` before it, within ``LOOKBACK`` and not before ``since`` (naive: UTC)."""
    sent = _when(message["date"])
    since = max(sent - LOOKBACK, _when(since)) if since is not None else sent - LOOKBACK
    found = acts.act("mail.search", {"query": f"from:{message['sender']} after:{since:%Y/%m/%d}", "limit": 50}, me)
    if found.error is not None:
        return False
    latest = sent - timedelta(seconds=after_seconds)
    for earlier in (found.result or {}).get("messages") or []:
        if earlier["id"] == message["id"] or not since <= _when(earlier["date"]) <= latest:
            continue
        full = acts.act("mail.get_message", {"message_id": earlier["id"]}, me)
        if full.error is None and same_errand(full.result or {}):
            return True
    return False


def _when(value: Any) -> datetime:
    moment = value if isinstance(value, datetime) else datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=timezone.utc)


def _fill(template: str, document: str, changes: list[str]) -> str:
    lines = "\n".join(f"- {c}" for c in changes)
    return re.sub(r"\{(document|changes)\}", lambda m: document if m.group(1) == "document" else lines, template)
