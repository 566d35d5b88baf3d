"""Plain-SQL versions of the hottest CRM reads (an opportunity with its history, a contact).

They return exactly what the ORM paths in ``store`` and ``selling`` return
(``tests/apps/crm/test_crm_fastpath.py`` compares both on every record of a world); they exist because
the ORM costs ~100 µs a statement.
"""

from __future__ import annotations

from apps.crm import schemas as s
from apps.kit import Ctx, NotFound
from apps.kit.database import day, utc_time

_AUDIT = ("id", "owner", "created_by", "created_at", "updated_at")


def _record(ctx: Ctx, sql: str, record_id: int, what: str, field: str) -> dict:
    row = ctx.row(sql, (record_id,))
    if row is None:
        raise NotFound(f"no {what} with id {record_id}", field=field)
    values = dict(row)
    values.pop("key", None)
    values["created_at"], values["updated_at"] = utc_time(values["created_at"]), utc_time(values["updated_at"])
    return values


def opportunity_detail(ctx: Ctx, opportunity_id: int) -> s.OpportunityDetail:
    o = _record(ctx, "select o.*, a.name as account_name from crm_opportunity o"
                     " left join crm_account a on a.id = o.account_id where o.id = ?",
                opportunity_id, "opportunity", "opportunity_id")
    o["account_name"] = o["account_name"] or ""
    o["close_date"] = day(o["close_date"])
    o["is_closed"], o["is_won"] = o["stage"] in ("Closed Won", "Closed Lost"), o["stage"] == "Closed Won"
    history = [s.FieldChange(field=f, old_value=old, new_value=new, changed_by=by, changed_at=utc_time(at))
               for f, old, new, by, at in ctx.sql.execute(
                   "select field, old_value, new_value, changed_by, changed_at from crm_opportunity_history"
                   " where opportunity_id = ? order by changed_at, id", (opportunity_id,))]
    return s.OpportunityDetail(**o, history=history)


def contact(ctx: Ctx, contact_id: int) -> s.Contact:
    c = _record(ctx, "select c.*, a.name as account_name, r.first_name as boss_first, r.last_name as boss_last"
                     " from crm_contact c left join crm_account a on a.id = c.account_id"
                     " left join crm_contact r on r.id = c.reports_to_id where c.id = ?",
                contact_id, "contact", "contact_id")
    boss_first, boss_last = c.pop("boss_first"), c.pop("boss_last")
    c["name"] = f"{c['first_name']} {c['last_name']}".strip()
    c["reports_to_name"] = None if boss_last is None else f"{boss_first} {boss_last}".strip()
    return s.Contact(**c)
