"""Plain-SQL versions of the hottest docs reads (a file's details, ``get_file``; its content, ``read_file``),
built in their dumped form (``apps.kit.wire``).

They return exactly what the ORM paths (``access.require`` then ``search.detail``, or ``read_file``'s own)
dump to, errors included (``tests/apps/docs/test_docs_fastpath.py`` compares both, in field order, for every
item and several people of a world); they exist because the ORM costs ~100 µs a statement and those paths
take a dozen. ``chain`` and ``role_of`` (``access.role_of``) serve ``fastlist.list_folder`` too.
"""

from __future__ import annotations

from apps.docs import schemas as s
from apps.docs.access import DRIVE_TO_ROLE, RANK, stronger
from apps.kit import Ctx, Forbidden, Invalid, NotFound
from apps.kit.content import encode
from apps.kit.wire import Wire, time

# The item and every folder above it, nearest first: ``_CHAIN`` in one statement (kept as the reference the
# tests compare with), ``_NODE`` one row at a time, which ``chain`` walks (a point read costs a third of the
# recursive statement, and most items sit one to three folders deep).
_CHAIN = (
    "with recursive chain(id, parent_id, drive_id, owner, general_access, trashed_at, name, depth) as ("
    " select id, parent_id, drive_id, owner, general_access, trashed_at, name, 0 from docs_item where id = ?"
    " union all select i.id, i.parent_id, i.drive_id, i.owner, i.general_access, i.trashed_at, i.name, c.depth + 1"
    " from docs_item i join chain c on i.id = c.parent_id where c.depth < 10000)"
    " select id, parent_id, drive_id, owner, general_access, trashed_at, name from chain order by depth")
_NODE = "select id, parent_id, drive_id, owner, general_access, trashed_at, name from docs_item where id = ?"
_DEEPEST = 10000   # _CHAIN's bound: a loop of folders (which no operation makes) ends there too
# The item's node (``_NODE``'s columns) and the rest of what the reads show, in one statement (?1 the item, ?2 the
# person): the item's columns, whether the person starred it, their drive role, the drive's name, revisions, open
# comments, the current revision, then the grants on the item (``_GRANTED``).
_GRANTED = "(select group_concat(person || x'1f' || role, x'1e') from docs_permission where item_id = i.id)"
_ITEM = ("select id, parent_id, drive_id, owner, general_access, trashed_at, name,"
         " kind, mime_type, size, created_at, created_by, modified_at, modified_by,"
         " exists(select 1 from docs_star where item_id = ?1 and person = ?2),"
         " (select role from docs_drive_member m where m.drive_id = i.drive_id and m.person = ?2),"
         " (select name from docs_drive d where d.id = i.drive_id),"
         " (select count(*) from docs_revision where item_id = ?1),"
         " (select count(*) from docs_comment where item_id = ?1 and parent_id is null and resolved = 0),"
         " (select max(number) from docs_revision where item_id = ?1), "
         + _GRANTED + " from docs_item i where id = ?1")
# A folder above: its node and the grants on it.
_PARENT = f"select id, parent_id, drive_id, owner, general_access, trashed_at, name, {_GRANTED} from docs_item i where id = ?"
_BODY = "select body, content from docs_item where id = ?"
GRANTS = "select person, role from docs_permission where item_id = ?"   # the order the ORM path reads them in
# (``_GRANTED`` aggregates the same rows in the same order: by person, the primary key's index)
DRIVE_ROLE = "select role from docs_drive_member where drive_id = ? and person = ?"
_people: tuple = (None, {})   # (a world's people, by address): built again only for another list of people


def _names(ctx: Ctx) -> dict:
    global _people
    people, by_email = _people
    if people is not ctx.world.people:
        people, by_email = _people = (ctx.world.people, ctx.world.people_by_email())
    return by_email


def chain(ctx: Ctx, item_id: int, field: str) -> list[tuple]:
    """The item and every folder above it, nearest first (``_CHAIN``'s columns); ``NotFound`` when there is none."""
    conn = ctx.sql
    node = conn.execute(_NODE, (item_id,)).fetchone()
    if node is None:
        raise NotFound(f"no file or folder with id {item_id}", field=field)
    found = [node]
    while node[1] is not None and len(found) <= _DEEPEST:
        node = conn.execute(_NODE, (node[1],)).fetchone()
        if node is None:
            break
        found.append(node)
    return found


def _grants(packed: str | None) -> list[tuple]:
    """``_GRANTED``'s text as ``GRANTS``' rows: a grant's person is a person of the world, whose address holds
    no control character (``worlds.model.Address``), and its role is one of three words."""
    return [tuple(grant.split("\x1f")) for grant in packed.split("\x1e")] if packed else []


def opened(ctx: Ctx, file_id: int) -> tuple[list, list, tuple, str]:
    """``access.require(..., "viewer", ...)``: the chain, each node's grants, the item's row and the actor's role,
    in one statement for the item and one for each folder above (as ``chain`` walks them)."""
    conn = ctx.sql
    row = conn.execute(_ITEM, (file_id, ctx.actor)).fetchone()
    if row is None:
        raise NotFound(f"no file or folder with id {file_id}", field="file_id")
    nodes, item, grants = [row[:7]], row[7:20], [_grants(row[20])]
    parent = row[1]
    while parent is not None and len(nodes) <= _DEEPEST:
        above = conn.execute(_PARENT, (parent,)).fetchone()
        if above is None:
            break
        nodes.append(above[:7])
        grants.append(_grants(above[7]))
        parent = above[1]
    role = role_of(ctx.actor, nodes, grants, item[8])
    if role is None:
        raise Forbidden(f"you have no access to {item[0]} {file_id}; ask its owner to share it with you", field="file_id")
    return nodes, grants, item, role


def summary(ctx: Ctx, nodes: list, grants: list, item: tuple, role: str) -> dict:
    """``store.summary``'s dumped form, from what ``opened`` read."""
    kind, mime_type, size, created_at, _, modified_at, modified_by, starred, _, drive, *_ = item
    item_id, parent_id, drive_id, owner, general, _, name = nodes[0]
    return {"id": item_id, "name": name, "type": kind, "mime_type": mime_type, "path": _path(nodes, drive),
            "folder_id": parent_id, "drive_id": drive_id, "owner": owner, "size": size,
            "created_at": time(created_at), "modified_at": time(modified_at), "modified_by": modified_by,
            "starred": bool(starred),
            "shared": bool(general) or bool(grants[0]), "your_role": role,
            "trashed": any(node[5] is not None for node in nodes)}


def file_detail(ctx: Ctx, file_id: int) -> Wire[s.FileDetail]:
    """``get_file``: the item's details, if the acting user may see it."""
    nodes, grants, item, role = opened(ctx, file_id)
    found = summary(ctx, nodes, grants, item, role)
    revisions, open_comments = item[10:12]
    general = None
    for node in nodes:
        general = stronger(general, node[4])
    found.update(created_by=item[4], permissions=_permissions(ctx, nodes, grants), general_access=general,
                 revisions=revisions, open_comments=open_comments)
    return Wire(found)


def content(ctx: Ctx, file_id: int) -> Wire[s.FileContent]:
    """``read_file``: the file's content as text (or base64), if the acting user may read it."""
    nodes, grants, item, role = opened(ctx, file_id)
    if item[0] == "folder":
        raise Invalid(f"file_id: {nodes[0][6]!r} is a folder; use list_folder", field="file_id")
    body, data = ctx.sql.execute(_BODY, (file_id,)).fetchone()
    encoding, text = encode(data) if item[0] == "file" else ("text", body)
    return Wire({"file": summary(ctx, nodes, grants, item, role), "encoding": encoding, "content": text,
                 "revision": item[12]})


def role_of(person: str, chain: list, grants: list, drive_role: str | None) -> str | None:
    """``access.role_of``: the drive's role (the person's role as a member of the item's drive), ownership, then
    grants and general access up the folders."""
    item = chain[0]
    role = None
    if item[2] is not None:
        role = DRIVE_TO_ROLE.get(drive_role or "")
    if item[3] == person:
        return "owner"
    for node, granted in zip(chain, grants):
        if node[3] == person:
            role = stronger(role, "editor")
        role = stronger(role, next((r for p, r in granted if p == person), None))
        role = stronger(role, node[4])
    return role


def _path(chain: list, drive: str | None) -> str:
    """``store.path_of``: the folders above, from the drive's root (``drive``, its name)."""
    item = chain[0]
    names = [node[6] for node in chain[1:]]
    if item[2] is not None:
        root = f"{drive} (shared drive)"
    else:
        root = "My Drive" if item[3] else "?"
    return "/".join([root, *reversed(names)])


def _permissions(ctx: Ctx, chain: list, grants: list) -> list[dict]:
    """``search.permissions``: the owner, then everyone with access here or above, strongest grant kept."""
    people = _names(ctx)

    def name(address: str) -> str:
        person = people.get(address)
        return person.name if person else address

    found: dict[str, dict] = {}
    owner = chain[0][3]
    if owner:
        found[owner] = {"person": owner, "name": name(owner), "role": "owner", "inherited_from": None}
    for depth, (node, granted) in enumerate(zip(chain, grants)):
        for person, role in granted:
            if person not in found or RANK[role] > RANK[found[person]["role"]]:
                found[person] = {"person": person, "name": name(person), "role": role,
                                 "inherited_from": None if depth == 0 else node[0]}
    return list(found.values())
