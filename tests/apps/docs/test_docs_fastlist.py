"""The plain-SQL Drive views, folder listings and search give what the ORM paths give, errors included,
in field order, for every person."""

import json
from datetime import date

from apps.docs import access, fastlist
from apps.docs import operations as docs_ops
from apps.docs import search as finder
from apps.docs import store as docs_store
from apps.kit import Ctx, Invalid, NotFound, OpError
from apps.kit.invoker import invoke
from apps.kit.wire import Wire

VIEWS = ["my_drive", "shared_with_me", "recent", "starred", "trash"]
PAGES = [(50, 0), (2, 1), (10, 500)]
SEARCHES = [
    ("", {}), ("renewal", {}), ("pipeline forecast", {}), ('"pipeline forecast"', {}), ("!!!", {}), ("  ", {}),
    ("", {"name": "PLAN"}), ("", {"owner": "me"}), ("renewal", {"owner": "me"}), ("", {"kind": "folder"}),
    ("", {"kind": "spreadsheet"}), ("forecast", {"kind": "document"}), ("", {"after": date(2026, 2, 1)}),
    ("", {"before": date(2026, 2, 1)}), ("", {"after": date(2026, 1, 5), "before": date(2026, 3, 3)}),
    ("", {"shared_with_me": True}), ("", {"starred": True}), ("report", {"starred": True, "name": "q"}),
]


def _outcome(fn, ctx, *args):
    """The dumped result (a plain-SQL path's ``Wire`` as it is), or the error; as JSON text, so that key order counts."""
    try:
        result = fn(ctx, *args)
        return json.dumps(result.data if isinstance(result, Wire) else result.model_dump(mode="json"))
    except OpError as exc:
        return json.dumps(exc.to_dict())
    finally:
        ctx.finish(commit=False)


def _roles_first(session, person):
    """``access.all_roles`` as first written (recursive, objects from the ORM), the reference for the resolver."""
    from sqlmodel import select

    from apps.docs import models as m

    items = {i.id: i for i in session.exec(select(m.Item))}
    granted = {p.item_id: p.role for p in session.exec(select(m.Permission).where(m.Permission.person == person))}
    drives = {d.drive_id: access.DRIVE_TO_ROLE[d.role] for d in session.exec(
        select(m.DriveMember).where(m.DriveMember.person == person))}
    memo = {}

    def resolve(item_id):
        if item_id not in memo:
            item = items[item_id]
            above, trashed = resolve(item.parent_id) if item.parent_id else (drives.get(item.drive_id), False)
            if item.owner == person:
                memo[item_id] = ("owner", trashed or item.trashed_at is not None)
                return memo[item_id]
            own = max((r for r in (granted.get(item_id), item.general_access) if r), key=access.RANK.__getitem__,
                      default=None)
            if above == "owner" and item.drive_id is None:
                above = "editor"
            role = max((r for r in (above, own) if r), key=access.RANK.__getitem__, default=None)
            memo[item_id] = (role, trashed or item.trashed_at is not None)
        return memo[item_id]

    found = {i: resolve(i) for i in items}
    return {i: (role, trashed) for i, (role, trashed) in found.items() if role}


def _orm_view(ctx, view, limit, offset):
    roles = access.all_roles(ctx.session, ctx.actor)
    return docs_ops._listing(ctx, finder.view_items(ctx, view, roles), roles, limit, offset)


def _orm_search(ctx, query, filters, limit, offset):
    roles = access.all_roles(ctx.session, ctx.actor)
    return docs_ops._listing(ctx, finder.find(ctx, query, filters, roles), roles, limit, offset)


def _orm_folder(ctx, folder_id, drive_id, limit, offset):
    """``list_folder`` as the ORM path read it: ``access.require``, every role, ``store.children``."""
    if folder_id is not None:
        folder, _ = access.require(ctx, folder_id, "viewer", "open it", field="folder_id")
        if folder.kind != "folder":
            raise Invalid(f"folder_id: {folder.name!r} is a {folder.kind}, not a folder", field="folder_id")
    elif drive_id is not None and access.drive_role(ctx.session, drive_id, ctx.actor) is None:
        raise NotFound(f"no shared drive {drive_id} that you are a member of", field="drive_id")
    roles = access.all_roles(ctx.session, ctx.actor)
    inside = docs_store.children(ctx.session, folder_id, drive_id, ctx.actor)
    visible = [i for i in inside if i.id in roles and not roles[i.id][1]]
    return docs_ops._listing(ctx, docs_ops._folders_first(visible), roles, limit, offset)


def _compare(episode, people, owner_of_some: str) -> dict:
    db, info = episode.db("docs"), episode.world.info
    seen = {"views": 0, "searches": 0, "errors": 0, "folders": 0, "folder_errors": set()}
    folders = [i for (i,) in db.conn.execute("select id from docs_item where kind = 'folder' order by id")]
    files = [i for (i,) in db.conn.execute("select id from docs_item where kind != 'folder' order by id limit 3")]
    drives = [i for (i,) in db.conn.execute("select id from docs_drive order by id")]
    for person in people:
        def ctx():
            return Ctx(db, person, episode.clock.now(), info, episode.id)
        with db.session() as session:
            first = _roles_first(session, person)
            assert fastlist.roles(ctx()) == access.all_roles(session, person) == first
            assert list(fastlist.roles(ctx())) == list(first)   # the same order too
        for view in VIEWS:
            for limit, offset in PAGES:
                expected = _outcome(_orm_view, ctx(), view, limit, offset)
                assert _outcome(fastlist.list_view, ctx(), view, limit, offset) == expected, (person, view)
                seen["views"] += len(json.loads(expected)["files"])
        for folder_id in [None, *folders, *files, 0, max(folders) + 10_000] if person in people[:8] else []:
            for drive_id in [None, *drives, 0, 999] if folder_id is None else [None, drives[0]]:
                for limit, offset in PAGES[:2] if folder_id is None else PAGES[:1]:
                    expected = _outcome(_orm_folder, ctx(), folder_id, drive_id, limit, offset)
                    got = _outcome(fastlist.list_folder, ctx(), folder_id, drive_id, limit, offset)
                    assert got == expected, (person, folder_id, drive_id)
                    found = json.loads(expected)
                    seen["folders"] += len(found.get("files", []))
                    seen["folder_errors"].add(found.get("type"))
        for query, given in SEARCHES:
            given = {**given, "owner": owner_of_some} if given.get("owner") == "other" else given
            filters = finder.Filters(**given)
            for limit, offset in PAGES[:2]:
                expected = _outcome(_orm_search, ctx(), query, filters, limit, offset)
                assert _outcome(fastlist.search, ctx(), query, filters, limit, offset) == expected, (person, query)
                found = json.loads(expected)
                seen["searches" if "files" in found else "errors"] += len(found.get("files", [1]))
    return seen


def test_views_and_search_match_the_orm_path_for_every_person_of_acme(store):
    episode = store.create("acme")
    people = [p.email for p in episode.world.info.people]
    seen = _compare(episode, people, people[1])
    assert seen["views"] and seen["searches"] and seen["errors"] and seen["folders"]
    assert seen["folder_errors"] == {None, "not_found", "forbidden", "invalid"}


def test_views_and_search_after_sharing_starring_trashing_and_editing(store, world_dir):
    episode = store.create(str(world_dir))
    docs = store.apps["docs"].operations
    info = episode.world.info
    for name in ("Renewal plan", "Pipeline forecast", "Board deck"):
        assert invoke(episode, docs["create_document"], {"name": name, "text": name.lower()}, "python").error is None
    folder = invoke(episode, docs["create_folder"], {"name": "Plans"}, "python").result["id"]
    inside = invoke(episode, docs["create_document"], {"name": "Q2 plan", "folder_id": folder}, "python")
    assert inside.error is None
    mine = [f["id"] for f in invoke(episode, docs["list_view"], {"view": "my_drive"}, "python").result["files"]
            if f["type"] != "folder"]
    other = next(p.email for p in info.people if p.email != episode.actor)
    assert len(mine) >= 3
    assert invoke(episode, docs["share"], {"file_id": folder, "email": other, "role": "editor"}, "python").error is None
    for file_id in mine[:3]:
        assert invoke(episode, docs["share"], {"file_id": file_id, "email": other, "role": "commenter"},
                      "python").error is None
        assert invoke(episode, docs["star"], {"file_id": file_id}, "python").error is None
    assert invoke(episode, docs["trash"], {"file_id": mine[0]}, "python").error is None
    seen = _compare(episode, [p.email for p in info.people], other)
    assert seen["views"] and seen["searches"] and seen["folders"]
    trash = invoke(episode, docs["list_view"], {"view": "trash"}, "python").result
    assert [f["id"] for f in trash["files"]] == [mine[0]] and trash["files"][0]["trashed"]
    starred = invoke(episode, docs["list_view"], {"view": "starred"}, "python").result
    assert set(mine[1:3]) <= {f["id"] for f in starred["files"]} and mine[0] not in {f["id"] for f in starred["files"]}
    theirs = invoke(episode, docs["list_view"], {"view": "shared_with_me"}, "python", actor=other).result
    assert {f["id"] for f in theirs["files"]} >= {folder, *mine[1:3]}


def _same_as_the_orm(episode, people) -> None:
    """Every view and a few searches against the ORM path, for ``people``."""
    db, info = episode.db("docs"), episode.world.info
    for person in people:
        def ctx():
            return Ctx(db, person, episode.clock.now(), info, episode.id)
        for view in VIEWS:
            expected = _outcome(_orm_view, ctx(), view, 50, 0)
            assert _outcome(fastlist.list_view, ctx(), view, 50, 0) == expected, (person, view)
        for query in ("", "plan", "renewal"):
            expected = _outcome(_orm_search, ctx(), query, finder.Filters(), 50, 0)
            assert _outcome(fastlist.search, ctx(), query, finder.Filters(), 50, 0) == expected, (person, query)


def test_views_and_search_after_every_kind_of_write(store, world_dir):
    """Views and searches match the ORM path after creating, sharing, starring, moving, trashing, restoring,
    transferring and renaming."""
    episode = store.create(str(world_dir))
    docs = store.apps["docs"].operations
    people = [p.email for p in episode.world.info.people]
    other = next(p for p in people if p != episode.actor)

    def do(op, **args):
        outcome = invoke(episode, docs[op], args, "python")
        assert outcome.error is None, outcome.error
        _same_as_the_orm(episode, [episode.actor, other])
        return outcome.result

    _same_as_the_orm(episode, [episode.actor, other])
    folder = do("create_folder", name="Plans")["id"]
    inner = do("create_folder", name="Renewal plans", folder_id=folder)["id"]
    plan = do("create_document", name="Renewal plan", text="renewal plan", folder_id=inner)["id"]
    do("share", file_id=folder, email=other, role="editor")
    do("star", file_id=plan)
    do("set_general_access", file_id=inner, role="viewer")
    do("unshare", file_id=folder, email=other)
    do("move", file_id=plan, folder_id=None)
    do("move", file_id=plan, folder_id=inner)
    do("trash", file_id=inner)
    do("restore", file_id=inner)
    do("transfer_ownership", file_id=folder, new_owner=other)
    do("rename", file_id=plan, name="Renewal plan v2")
