"""A plain-SQL version of the hottest docs read (a file's details, ``get_file``).

It returns exactly what the ORM path (``access.require`` then ``search.detail``) returns, errors
included (``tests/apps/docs/test_docs_fastpath.py`` compares both for every item and several people of a
world); it exists because the ORM costs ~100 µs a statement and that path takes a dozen.
"""

from __future__ import annotations

from apps.docs import schemas as s
from apps.docs.access import DRIVE_TO_ROLE, RANK, stronger
from apps.kit import Ctx, Forbidden, NotFound
from apps.kit.database import utc_time

# The item and every folder above it, nearest first.
_CHAIN = (
    "with recursive chain(id, parent_id, drive_id, owner, general_access, trashed_at, name, depth) as ("
    " select id, parent_id, drive_id, owner, general_access, trashed_at, name, 0 from docs_item where id = ?"
    " union all select i.id, i.parent_id, i.drive_id, i.owner, i.general_access, i.trashed_at, i.name, c.depth + 1"
    " from docs_item i join chain c on i.id = c.parent_id where c.depth < 10000)"
    " select id, parent_id, drive_id, owner, general_access, trashed_at, name from chain order by depth")
_ITEM = ("select kind, mime_type, size, created_at, created_by, modified_at, modified_by from docs_item"
         " where id = ?")
_GRANTS = "select person, role from docs_permission where item_id = ?"   # the order the ORM path reads them in
_DRIVE_ROLE = "select role from docs_drive_member where drive_id = ? and person = ?"
_STARRED = "select 1 from docs_star where item_id = ? and person = ?"
_COUNTS = ("select (select count(*) from docs_revision where item_id = ?1), (select count(*) from docs_comment"
           " where item_id = ?1 and parent_id is null and resolved = 0)")


def file_detail(ctx: Ctx, file_id: int) -> s.FileDetail:
    """``get_file``: the item's details, if the acting user may see it."""
    conn, actor = ctx.sql, ctx.actor
    chain = conn.execute(_CHAIN, (file_id,)).fetchall()
    if not chain:
        raise NotFound(f"no file or folder with id {file_id}", field="file_id")
    kind, mime_type, size, created_at, created_by, modified_at, modified_by = conn.execute(
        _ITEM, (file_id,)).fetchone()
    grants = [conn.execute(_GRANTS, (node[0],)).fetchall() for node in chain]
    item_id, parent_id, drive_id, owner, _, _, name = chain[0]
    role = _role(conn, actor, chain, grants)
    if role is None:
        raise Forbidden(f"you have no access to {kind} {file_id}; ask its owner to share it with you", field="file_id")
    revisions, open_comments = conn.execute(_COUNTS, (file_id,)).fetchone()
    general = None
    for node in chain:
        general = stronger(general, node[4])
    return s.FileDetail(
        id=item_id, name=name, type=kind, mime_type=mime_type, path=_path(conn, chain), folder_id=parent_id,
        drive_id=drive_id, owner=owner, size=size, created_at=utc_time(created_at), modified_at=utc_time(modified_at),
        modified_by=modified_by, starred=conn.execute(_STARRED, (file_id, actor)).fetchone() is not None,
        shared=bool(chain[0][4]) or bool(grants[0]), your_role=role,
        trashed=any(node[5] is not None for node in chain), created_by=created_by,
        permissions=_permissions(ctx, chain, grants), general_access=general, revisions=revisions,
        open_comments=open_comments)


def _role(conn, person: str, chain: list, grants: list) -> str | None:
    """``access.role_of``: the drive's role, ownership, then grants and general access up the folders."""
    item = chain[0]
    role = None
    if item[2] is not None:
        member = conn.execute(_DRIVE_ROLE, (item[2], person)).fetchone()
        role = DRIVE_TO_ROLE.get(member[0] if member else "")
    if item[3] == person:
        return "owner"
    for node, granted in zip(chain, grants):
        if node[3] == person:
            role = stronger(role, "editor")
        role = stronger(role, next((r for p, r in granted if p == person), None))
        role = stronger(role, node[4])
    return role


def _path(conn, chain: list) -> str:
    """``store.path_of``: the folders above, from the drive's root."""
    item = chain[0]
    names = [node[6] for node in chain[1:]]
    if item[2] is not None:
        root = f"{conn.execute('select name from docs_drive where id = ?', (item[2],)).fetchone()[0]} (shared drive)"
    else:
        root = "My Drive" if item[3] else "?"
    return "/".join([root, *reversed(names)])


def _permissions(ctx: Ctx, chain: list, grants: list) -> list[s.PermissionInfo]:
    """``search.permissions``: the owner, then everyone with access here or above, strongest grant kept."""
    people = ctx.world.people_by_email()

    def name(address: str) -> str:
        person = people.get(address)
        return person.name if person else address

    found: dict[str, s.PermissionInfo] = {}
    owner = chain[0][3]
    if owner:
        found[owner] = s.PermissionInfo(person=owner, name=name(owner), role="owner")
    for depth, (node, granted) in enumerate(zip(chain, grants)):
        for person, role in granted:
            if person not in found or RANK[role] > RANK[found[person].role]:
                found[person] = s.PermissionInfo(person=person, name=name(person), role=role,
                                                 inherited_from=None if depth == 0 else node[0])
    return list(found.values())
