"""Sharing roles, general access and ownership over REST; every refusal names what is missing."""

from docs_factories import error, file_id, handover, ok, start
from surfaces import call


def test_each_role_allows_what_drive_allows_and_refuses_the_rest(api, world_dir):
    mei = start(api, world_dir, "mei@small.test")
    plan = file_id(api, mei, "Globex renewal plan")
    assert "184,000" in ok(call(api, mei, "docs", "read_file", file_id=plan))["content"]
    ok(call(api, mei, "docs", "add_comment", file_id=plan, text="Looks good"))
    refused = error(call(api, mei, "docs", "write_document", file_id=plan, text="mine now"), 403)
    assert refused["field"] == "file_id" and "you are a commenter" in refused["message"] and "editor" in refused["message"]
    assert error(call(api, mei, "docs", "share", file_id=plan, email="ravi@small.test", role="viewer"), 403)
    assert error(call(api, mei, "docs", "list_revisions", file_id=plan), 403)
    assert error(call(api, mei, "docs", "rename", file_id=plan, name="x"), 403)


def test_no_access_is_refused_and_hidden_from_search(api, world_dir):
    dana = start(api, world_dir)
    ravi = start(api, world_dir, "ravi@small.test")
    notes = file_id(api, ravi, "Private notes")
    refused = error(call(api, dana, "docs", "read_file", file_id=notes), 403)
    assert "no access" in refused["message"] and "share" in refused["message"]
    assert ok(call(api, dana, "docs", "search", query="Tuesdays"))["total"] == 0
    assert error(call(api, dana, "docs", "read_file", file_id=999), 404)["field"] == "file_id"


def test_folder_sharing_reaches_the_files_inside(api, world_dir):
    ravi = start(api, world_dir, "ravi@small.test")
    plan = file_id(api, ravi, "Globex renewal plan")
    detail = ok(call(api, ravi, "docs", "get_file", file_id=plan))
    assert detail["your_role"] == "editor"
    inherited = {p["person"]: (p["role"], p["inherited_from"]) for p in detail["permissions"]}
    assert inherited["ravi@small.test"] == ("editor", file_id(api, ravi, "Deals"))
    assert inherited["dana@small.test"] == ("owner", None) and inherited["mei@small.test"] == ("commenter", None)
    ok(call(api, ravi, "docs", "replace_in_document", file_id=plan, find="Budget freeze", replace_with="No freeze"))


def test_sharing_gives_and_unsharing_takes_back_access(api, world_dir):
    ravi = start(api, world_dir, "ravi@small.test")
    notes = file_id(api, ravi, "Private notes")
    shared = ok(call(api, ravi, "docs", "share", file_id=notes, email="mei@small.test", role="viewer"))
    assert {"person": "mei@small.test", "name": "Mei Chen", "role": "viewer", "inherited_from": None} in shared["permissions"]
    assert shared["shared"] is True
    mei = handover(api, ravi, "mei@small.test")
    assert {f["name"] for f in ok(call(api, mei, "docs", "list_view", view="shared_with_me"))["files"]} == {
        "Private notes", "Globex renewal plan"}
    assert "Tuesdays" in ok(call(api, mei, "docs", "read_file", file_id=notes))["content"]
    assert error(call(api, mei, "docs", "list_comments", file_id=notes), 403)
    ok(call(api, ravi, "docs", "unshare", file_id=notes, email="mei@small.test"))
    mei_again = handover(api, ravi, "mei@small.test")
    assert error(call(api, mei_again, "docs", "read_file", file_id=notes), 403)


def test_sharing_checks_people_and_roles(api, world_dir):
    dana = start(api, world_dir)
    plan = file_id(api, dana, "Globex renewal plan")
    outside = error(call(api, dana, "docs", "share", file_id=plan, email="sam@globex.example", role="viewer"), 422)
    assert outside["field"] == "email" and "outside the organisation" in outside["message"]
    assert error(call(api, dana, "docs", "share", file_id=plan, email="mei@small.test", role="owner"), 422)["field"] == "role"
    assert error(call(api, dana, "docs", "share", file_id=plan, email="dana@small.test", role="viewer"), 409)
    ravi = start(api, world_dir, "ravi@small.test")
    hint = error(call(api, ravi, "docs", "unshare", file_id=plan, email="ravi@small.test"), 404)
    assert "comes from folder" in hint["message"]


def test_anyone_in_the_organisation_access(api, world_dir):
    ravi = start(api, world_dir, "ravi@small.test")
    runbook = file_id(api, ravi, "Support runbook")
    assert ok(call(api, ravi, "docs", "get_file", file_id=runbook))["general_access"] == "viewer"
    assert error(call(api, ravi, "docs", "append_to_document", file_id=runbook, text="x"), 403)
    mei = start(api, world_dir, "mei@small.test")
    ok(call(api, mei, "docs", "set_general_access", file_id=runbook, role="editor"))
    ok(call(api, handover(api, mei, "ravi@small.test"), "docs", "append_to_document", file_id=runbook, text="x"))
    ok(call(api, mei, "docs", "set_general_access", file_id=runbook, role="none"))
    assert error(call(api, handover(api, mei, "ravi@small.test"), "docs", "read_file", file_id=runbook), 403)
    assert error(call(api, mei, "docs", "set_general_access", file_id=runbook, role="owner"), 422)["field"] == "role"


def test_transfer_of_ownership_leaves_the_old_owner_an_editor(api, world_dir):
    ravi = start(api, world_dir, "ravi@small.test")
    notes = file_id(api, ravi, "Private notes")
    assert error(call(api, ravi, "docs", "transfer_ownership", file_id=notes, new_owner="x@small.test"), 422)
    done = ok(call(api, ravi, "docs", "transfer_ownership", file_id=notes, new_owner="dana@small.test"))
    assert done["owner"] == "dana@small.test" and done["your_role"] == "editor"
    assert error(call(api, ravi, "docs", "trash", file_id=notes), 403)
    assert error(call(api, ravi, "docs", "transfer_ownership", file_id=notes, new_owner="mei@small.test"), 403)
    dana = start(api, world_dir)
    sheet = file_id(api, dana, "Pipeline forecast")
    assert error(call(api, dana, "docs", "transfer_ownership", file_id=sheet, new_owner="ravi@small.test"), 409)


def test_drive_roles_decide_what_members_may_do(api, world_dir):
    ravi = start(api, world_dir, "ravi@small.test")
    sheet = file_id(api, ravi, "Pipeline forecast")
    ok(call(api, ravi, "docs", "update_cells", file_id=sheet, cells={"A6": "note"}))
    assert "need to be an owner" in error(call(api, ravi, "docs", "trash", file_id=sheet), 403)["message"]
    dana = handover(api, ravi, "dana@small.test")
    assert ok(call(api, dana, "docs", "get_spreadsheet", file_id=sheet, range="A6"))["rows"] == [["note"]]
    assert ok(call(api, dana, "docs", "trash", file_id=sheet))["trashed"] is True
    mei = start(api, world_dir, "mei@small.test")
    assert error(call(api, mei, "docs", "get_file", file_id=sheet), 403)
