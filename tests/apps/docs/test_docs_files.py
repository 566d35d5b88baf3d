"""Browsing and organising over REST: the Drive views, folders, create, rename, move, copy, star, trash."""

from docs_factories import error, file_id, ok, start
from surfaces import call


def names(listing: dict) -> list[str]:
    return [f["name"] for f in listing["files"]]


def test_my_drive_lists_folders_first_and_paths_show_where_files_live(api, world_dir):
    ep = start(api, world_dir)
    root = ok(call(api, ep, "docs", "list_folder"))
    assert names(root) == ["Deals"]
    deals = ok(call(api, ep, "docs", "list_folder", folder_id=root["files"][0]["id"]))
    assert names(deals) == ["Globex renewal plan", "quote.csv"]
    assert {f["path"] for f in deals["files"]} == {"My Drive/Deals"}
    assert ok(call(api, ep, "docs", "list_view", view="my_drive"))["files"] == root["files"]


def test_shared_drive_root_and_membership(api, world_dir):
    ep = start(api, world_dir, "ravi@small.test")
    drives = ok(call(api, ep, "docs", "list_drives"))
    assert [(d["name"], d["your_role"]) for d in drives] == [("Sales", "editor")]
    top = ok(call(api, ep, "docs", "list_folder", drive_id=drives[0]["id"]))
    assert names(top) == ["Forecasts"] and top["files"][0]["owner"] is None
    mei = start(api, world_dir, "mei@small.test")
    assert ok(call(api, mei, "docs", "list_drives")) == []
    assert error(call(api, mei, "docs", "list_folder", drive_id=drives[0]["id"]), 404)["field"] == "drive_id"


def test_views_shared_with_me_starred_and_recent(api, world_dir):
    ravi = start(api, world_dir, "ravi@small.test")
    assert names(ok(call(api, ravi, "docs", "list_view", view="shared_with_me"))) == ["Deals"]
    dana = start(api, world_dir)
    assert names(ok(call(api, dana, "docs", "list_view", view="shared_with_me"))) == ["logo.png"]
    assert names(ok(call(api, dana, "docs", "list_view", view="starred"))) == ["Globex renewal plan"]
    recent = names(ok(call(api, ravi, "docs", "list_view", view="recent")))
    assert recent[0] == "Globex renewal plan" and "Deals" not in recent
    doc = ok(call(api, ravi, "docs", "create_document", name="Call notes", text="Sam called."))
    assert names(ok(call(api, ravi, "docs", "list_view", view="recent")))[0] == "Call notes"
    assert doc["path"] == "My Drive" and doc["owner"] == "ravi@small.test"


def test_create_in_folders_and_drives_then_rename(api, world_dir):
    ep = start(api, world_dir)
    folder = ok(call(api, ep, "docs", "create_folder", name="Renewals 2026"))
    sheet = ok(call(api, ep, "docs", "create_spreadsheet", name="Seats", folder_id=folder["id"],
                    rows=[["Team", "Seats"], ["Ops", 12], ["Sales", 30], ["Total", "=SUM(B2:B3)"]]))
    assert sheet["path"] == "My Drive/Renewals 2026" and sheet["type"] == "spreadsheet"
    assert ok(call(api, ep, "docs", "read_file", file_id=sheet["id"]))["content"].splitlines()[-1] == "Total,42"
    drive = ok(call(api, ep, "docs", "list_drives"))[0]["id"]
    memo = ok(call(api, ep, "docs", "create_document", name="Team memo", drive_id=drive))
    assert (memo["owner"], memo["drive_id"], memo["path"]) == (None, drive, "Sales (shared drive)")
    renamed = ok(call(api, ep, "docs", "rename", file_id=memo["id"], name="Team memo (final)"))
    assert renamed["name"] == "Team memo (final)"
    assert error(call(api, ep, "docs", "rename", file_id=memo["id"], name="a/b"), 422)["field"] == "name"
    assert error(call(api, ep, "docs", "create_document", name="x", folder_id=sheet["id"]), 422)["field"] == "folder_id"


def test_upload_and_read_text_and_binary_files(api, world_dir):
    ep = start(api, world_dir)
    up = ok(call(api, ep, "docs", "upload_file", name="terms.txt", text="Net 30 payment terms."))
    assert (up["mime_type"], up["size"]) == ("text/plain", 21)
    read = ok(call(api, ep, "docs", "read_file", file_id=up["id"]))
    assert (read["encoding"], read["content"]) == ("text", "Net 30 payment terms.")
    logo = ok(call(api, ep, "docs", "read_file", file_id=file_id(api, ep, "logo.png")))
    assert logo["encoding"] == "base64" and logo["file"]["mime_type"] == "image/png"
    bad = call(api, ep, "docs", "upload_file", name="x.bin", content_base64="***")
    assert error(bad, 422)["field"] == "content_base64"
    both = call(api, ep, "docs", "upload_file", name="x.bin", text="a", content_base64="YQ==")
    assert error(both, 422)["field"] == "content_base64"


def test_uploaded_quote_has_the_same_bytes_as_the_mail_attachment(api, world_dir):
    ep = start(api, world_dir)
    drive_copy = ok(call(api, ep, "docs", "read_file", file_id=file_id(api, ep, "quote.csv")))["content"]
    message = ok(call(api, ep, "mail", "search", query="filename:quote.csv"))["messages"][0]
    attachment = ok(call(api, ep, "mail", "get_message", message_id=message["id"]))["attachments"][0]
    mailed = ok(call(api, ep, "mail", "get_attachment", message_id=message["id"], attachment_id=attachment["id"]))
    assert drive_copy == mailed["content"]


def test_move_between_folders_and_into_a_shared_drive(api, world_dir):
    ep = start(api, world_dir)
    plan = file_id(api, ep, "Globex renewal plan")
    moved = ok(call(api, ep, "docs", "move", file_id=plan))
    assert (moved["folder_id"], moved["path"]) == (None, "My Drive")
    deals = file_id(api, ep, "Deals")
    assert error(call(api, ep, "docs", "move", file_id=deals, folder_id=deals), 422)["field"] == "folder_id"
    drive = ok(call(api, ep, "docs", "list_drives"))[0]["id"]
    into = ok(call(api, ep, "docs", "move", file_id=deals, drive_id=drive))
    assert (into["owner"], into["drive_id"]) == (None, drive)
    inside = ok(call(api, ep, "docs", "list_folder", folder_id=deals))["files"]
    assert {f["owner"] for f in inside} == {None} and {f["drive_id"] for f in inside} == {drive}


def test_an_editor_cannot_move_someone_elses_file_to_another_drive(api, world_dir):
    ravi = start(api, world_dir, "ravi@small.test")
    plan = file_id(api, ravi, "Globex renewal plan")
    drive = ok(call(api, ravi, "docs", "list_drives"))[0]["id"]
    refused = error(call(api, ravi, "docs", "move", file_id=plan, drive_id=drive), 403)
    assert "owner" in refused["message"]


def test_copy_is_owned_by_the_copier_with_content_but_no_comments(api, world_dir):
    mei = start(api, world_dir, "mei@small.test")
    plan = file_id(api, mei, "Globex renewal plan")
    copied = ok(call(api, mei, "docs", "copy", file_id=plan))
    assert (copied["name"], copied["owner"], copied["path"]) == ("Copy of Globex renewal plan", "mei@small.test",
                                                                "My Drive")
    assert "184,000 USD" in ok(call(api, mei, "docs", "read_file", file_id=copied["id"]))["content"]
    assert ok(call(api, mei, "docs", "list_comments", file_id=copied["id"])) == []
    assert error(call(api, mei, "docs", "copy", file_id=file_id(api, mei, "Support runbook"),
                      folder_id=file_id(api, mei, "Globex renewal plan")), 403)["field"] == "folder_id"


def test_stars_are_personal(api, world_dir):
    ravi = start(api, world_dir, "ravi@small.test")
    plan = file_id(api, ravi, "Globex renewal plan")
    assert ok(call(api, ravi, "docs", "star", file_id=plan))["starred"] is True
    assert names(ok(call(api, ravi, "docs", "list_view", view="starred"))) == ["Globex renewal plan"]
    assert ok(call(api, ravi, "docs", "unstar", file_id=plan))["starred"] is False
    assert ok(call(api, ravi, "docs", "list_view", view="starred"))["total"] == 0


def test_trash_hides_a_folder_and_its_files_until_restored(api, world_dir):
    ep = start(api, world_dir)
    deals = file_id(api, ep, "Deals")
    plan = file_id(api, ep, "Globex renewal plan")
    assert ok(call(api, ep, "docs", "trash", file_id=deals))["trashed"] is True
    assert names(ok(call(api, ep, "docs", "list_view", view="trash"))) == ["Deals"]
    assert ok(call(api, ep, "docs", "list_folder"))["total"] == 0
    assert ok(call(api, ep, "docs", "search", query="renewal"))["total"] == 0
    assert ok(call(api, ep, "docs", "get_file", file_id=plan))["trashed"] is True
    assert error(call(api, ep, "docs", "write_document", file_id=plan, text="x"), 409)["field"] == "file_id"
    assert error(call(api, ep, "docs", "restore", file_id=plan), 409)["field"] == "file_id"
    ok(call(api, ep, "docs", "restore", file_id=deals))
    assert names(ok(call(api, ep, "docs", "list_folder"))) == ["Deals"]


def test_delete_forever_only_from_the_trash_and_only_by_the_owner(api, world_dir):
    ep = start(api, world_dir)
    deals = file_id(api, ep, "Deals")
    plan = file_id(api, ep, "Globex renewal plan")
    assert error(call(api, ep, "docs", "delete_forever", file_id=deals), 409)["field"] == "file_id"
    ravi = start(api, world_dir, "ravi@small.test")
    assert error(call(api, ravi, "docs", "trash", file_id=deals), 403)["field"] == "file_id"
    ok(call(api, ep, "docs", "trash", file_id=deals))
    removed = ok(call(api, ep, "docs", "delete_forever", file_id=deals))
    assert "2 item(s) inside" in removed["removed"]
    assert error(call(api, ep, "docs", "get_file", file_id=plan), 404)["field"] == "file_id"
    assert ok(call(api, ep, "docs", "list_view", view="trash"))["total"] == 0
