"""Comments over REST: anchored to passages, replies, resolve and reopen, @mentions."""

from docs_factories import error, file_id, ok, start
from surfaces import call


def test_seeded_comment_has_its_quote_reply_and_mention(api, world_dir):
    ep = start(api, world_dir)
    comments = ok(call(api, ep, "docs", "list_comments", file_id=file_id(api, ep, "Globex renewal plan")))
    assert [(c["author"], c["quote"], c["resolved"]) for c in comments] == [
        ("ravi@small.test", "List price is 184,000 USD", False)]
    assert comments[0]["replies"][0]["mentions"] == ["ravi@small.test"]


def test_comment_anchored_to_a_passage_with_mentions(api, world_dir):
    ep = start(api, world_dir, "mei@small.test")
    plan = file_id(api, ep, "Globex renewal plan")
    made = ok(call(api, ep, "docs", "add_comment", file_id=plan, text="@dana@small.test and @ravi: is this firm?",
                   quote="Budget freeze at Globex."))
    assert made["quote"] == "Budget freeze at Globex." and made["mentions"] == ["dana@small.test", "ravi@small.test"]
    assert made["author"] == "mei@small.test" and made["created_at"].startswith("2026-03-16")
    absent = error(call(api, ep, "docs", "add_comment", file_id=plan, text="?", quote="not in the text"), 422)
    assert absent["field"] == "quote"
    nobody = error(call(api, ep, "docs", "add_comment", file_id=plan, text="ask @zed"), 422)
    assert nobody["field"] == "text" and "@zed" in nobody["message"]


def test_replies_resolve_and_reopen(api, world_dir):
    ep = start(api, world_dir)
    plan = file_id(api, ep, "Globex renewal plan")
    first = ok(call(api, ep, "docs", "list_comments", file_id=plan))[0]
    resolved = ok(call(api, ep, "docs", "resolve_comment", comment_id=first["id"]))
    assert (resolved["resolved"], resolved["resolved_by"]) == (True, "dana@small.test")
    assert ok(call(api, ep, "docs", "list_comments", file_id=plan, include_resolved=False)) == []
    assert ok(call(api, ep, "docs", "get_file", file_id=plan))["open_comments"] == 0
    assert error(call(api, ep, "docs", "resolve_comment", comment_id=first["id"]), 409)["field"] == "comment_id"
    reopened = ok(call(api, ep, "docs", "reopen_comment", comment_id=first["id"]))
    assert reopened["resolved"] is False and reopened["resolved_by"] is None
    reply_id = first["replies"][0]["id"]
    replied = ok(call(api, ep, "docs", "reply_to_comment", comment_id=reply_id, text="Confirmed with Sam."))
    assert replied["id"] == first["id"] and [r["text"] for r in replied["replies"]][-1] == "Confirmed with Sam."
    assert error(call(api, ep, "docs", "reply_to_comment", comment_id=4242, text="x"), 404)["field"] == "comment_id"


def test_viewers_neither_see_nor_write_comments(api, world_dir):
    dana = start(api, world_dir)
    logo = file_id(api, dana, "logo.png")
    assert "commenter" in error(call(api, dana, "docs", "list_comments", file_id=logo), 403)["message"]
    assert error(call(api, dana, "docs", "add_comment", file_id=logo, text="nice"), 403)["field"] == "file_id"
