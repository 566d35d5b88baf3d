"""Cross-app consistency: the facts one app states about another's records, checked against them.

- A meeting the mail names (``"Demo: Globex" on Tuesday, March 10 at 2:00 PM``) is on the calendar
  with that title on that day (and at that time, when given), and everyone the message went to, and
  its sender, is invited.
- An amount a sentence of mail (or of a document) quotes for an opportunity named in it equals the
  CRM's amount for it at the time the message was sent (the amount history walked back).
- A sheet with Opportunity and Amount columns lists each opportunity at the CRM's amount; its Total
  row equals its rows; a ``Forecast Q<n> <year>`` sheet lists exactly the CRM pipeline closing that
  quarter (Closed Lost aside), so its total is the pipeline's; and mail quoting a sheet's total
  (``the "Forecast Q1 2026" sheet totals $1,087,000``) quotes that total.
- An offer a document names (a line ``Option B: 3-year at 5% off list, ..., 174800``) is called by that name
  in mail quoting its amount: ``we accept option 1: ... $174,800`` is named when no document calls the
  $174,800 offer option 1 but one calls it Option B.

What mail states comes from the sections that declare ``writings(data)`` (``{source, text, date, people}``
each: the mail app's messages); the meetings from those that declare ``meetings`` (``worlds.sections``).
Quoted lines (``>``) are someone else's earlier words and are not read again. Each problem is written
``file:line: what is wrong``, naming the other side's file too. ``check(world, sections)`` runs them all.
"""

from __future__ import annotations

import re
from datetime import date, datetime
from typing import Any
from zoneinfo import ZoneInfo

from worlds import sheets
from worlds.model import World
from worlds.sections import Sections

MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December"]
DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
MEETING = re.compile(rf'"(?P<title>[^"\n]{{3,120}})" on (?P<weekday>{"|".join(DAYS)}), (?P<month>{"|".join(MONTHS)}) '
                     r"(?P<day>\d{1,2})(?: at (?P<time>\d{1,2}:\d{2} [AP]M))?")
SHEET_TOTAL = re.compile(r'"(?P<sheet>[^"\n]{1,120})" sheet totals \$(?P<amount>\d[\d,]*(?:\.\d{1,2})?)')
# A dollar amount written out in full ("$1.2M" and "$40k" are rounded talk, not figures to check).
AMOUNT = re.compile(r"\$(\d{1,3}(?:,\d{3})+|\d+)(\.\d{1,2})?(?![\d.]*\s?(?:[kKmMbB]\b|million|thousand|billion))")
SENTENCE = re.compile(r"(?<=[.!?;])\s+")
# An offer as a document declares it (a line starting ``Option B:``), and as mail names it (``option 1``).
DECLARED = re.compile(r"^\W*option (?P<label>[A-Z0-9])\b\s*[:.)-]", re.IGNORECASE)
NAMED = re.compile(r"\boption (?P<label>[A-Z0-9])(?=[\s:,.)]|$)", re.IGNORECASE)
FIGURE = re.compile(r"(?<![\d.])\$?(\d{1,3}(?:,\d{3})+|\d{4,})(\.\d{1,2})?(?![\d%])")


def check(world: World, sections: Sections | None = None) -> list[str]:
    """Every cross-app disagreement in ``world``, one ``file:line: ...`` line each."""
    facts = _Facts(world, sections or {})
    problems: list[str] = []
    docs = world.sections.get("docs")
    for item in docs.items if docs is not None else []:  # sheets first: mail quotes their totals
        if item.type == "spreadsheet" and item.rows:
            problems += sheets.check_sheet(facts, item)
        elif item.type == "document" and item.text and "$" in item.text:
            problems += facts.amounts_quoted(item.text, item.modified, lambda *n, i=item: _doc_line(i, *n))
    offers = declared_offers(docs.items if docs is not None else [])
    for text, moment, people, source in facts.writings:
        text = _own_lines(text)
        if not any(mark in text for mark in ('" on ', "$")):
            continue
        where = lambda *needles, s=source: _line(world, s, *needles)  # noqa: E731
        problems += facts.meetings_named(text, moment.astimezone(facts.zone), people, where)
        problems += facts.amounts_quoted(text, moment, where)
        problems += facts.sheet_totals(text, where)
        problems += offers_named(offers, text, where)
    return problems


def declared_offers(items) -> dict[float, list[tuple[str, str]]]:
    """The offers documents declare, by amount: ``{174800.0: [("B", "docs/files/...csv:7")]}``. A line declares
    one when it starts ``Option <letter or digit>:`` and holds one figure of four digits or more."""
    found: dict[float, list[tuple[str, str]]] = {}
    for item in items:
        for n, line in enumerate(_lines_of(item), start=1):
            declared = DECLARED.match(line)
            figures = {money(f) for f in FIGURE.finditer(line)} if declared else set()
            if declared and len(figures) == 1:
                place = f"docs/{item.source}:{n}" if item.source else f"{item.file} ({item.name!r})"
                found.setdefault(figures.pop(), []).append((declared["label"].upper(), place))
    return found


def offers_named(offers: dict[float, list[tuple[str, str]]], text: str, where) -> list[str]:
    """Sentences of ``text`` naming an offer (``option 1``) by a name no document gives the amount they quote,
    where a document declares an offer of that amount under another name."""
    problems = []
    for sentence in SENTENCE.split(text):
        names = {m["label"].upper(): m.group(0) for m in NAMED.finditer(sentence)}
        amounts = {money(m): m.group(0) for m in AMOUNT.finditer(sentence)}
        if len(names) != 1 or len(amounts) != 1:
            continue
        (label, written), (amount, quoted) = names.popitem(), amounts.popitem()
        declared = offers.get(amount, [])
        if declared and label not in {name for name, _ in declared}:
            problems.append(f"{where(written)}: calls the {quoted} offer {written!r}, but {declared[0][1]} names it "
                            f"Option {declared[0][0]}")
    return problems


def _lines_of(item) -> list[str]:
    """A document's lines: its text, a sheet's rows (cells joined by commas), or a text upload's content."""
    if item.text:
        return item.text.splitlines()
    if item.rows:
        return [",".join(row) for row in item.rows]
    content = getattr(item, "content", None)
    if content and (item.mime_type or "").startswith("text/"):
        return content.decode("utf-8", errors="replace").splitlines()
    return []


class _Facts:
    """The records the checks compare against, indexed once."""

    def __init__(self, world: World, sections: Sections):
        self.world, self.zone = world, ZoneInfo(world.info.timezone)
        self.meetings: dict[str, list[dict]] = {}
        self.writings: list[tuple[str, datetime, set[str], str]] = []  # (text, sent, people, file) of messages
        for app, section in sections.items():
            if hasattr(section, "meetings") and app in world.sections:
                for meeting in section.meetings(world.sections[app], world.info):
                    self.meetings.setdefault(meeting["title"], []).append(meeting)
            if hasattr(section, "writings") and app in world.sections:
                self.writings += [(w["text"], w["date"], w["people"], w["source"])
                                  for w in section.writings(world.sections[app])]
        self.opps: dict = {}  # the deals a section declares (the CRM's opportunities), and where each is written
        self._deals: tuple[Any, Any] | None = None  # (section, data) of the section that declares deals
        for app, section in sections.items():
            if hasattr(section, "deals") and app in world.sections:
                self._deals = section, world.sections[app]
                self.opps = section.deals(world.sections[app])
        self.by_name: dict[str, list[str]] = {}
        self.by_word: dict[str, list[str]] = {}
        for key, opp in self.opps.items():
            self.by_name.setdefault(opp.name, []).append(key)
            self.by_word.setdefault(opp.name.split()[0], []).append(opp.name)
        self.sheet_totals_by_name: dict[str, list[tuple[float, str]]] = {}

    def crm_at(self, key: str) -> str:
        """Where the deal ``key`` is written (``file:line``), as its section says."""
        if self._deals is None:
            return key
        section, data = self._deals
        return section.deal_at(data, key)

    def amount_at(self, key: str, moment: datetime) -> float | None:
        """The opportunity's amount at ``moment``: today's, with later changes of its history undone."""
        opp = self.opps[key]
        amount = opp.amount
        for entry in sorted(opp.history, key=lambda e: e.at, reverse=True):
            if entry.field == "amount" and self.world.info.utc(entry.at) > moment:
                amount = float(entry.old) if isinstance(entry.old, (int, float, str)) else None
        return amount

    def named(self, text: str) -> list[str]:
        """Opportunity names in ``text``, a name inside a longer named one left out."""
        words = set(re.findall(r"[\w'&.-]+", text))
        found = {name for word in words for name in self.by_word.get(word, ()) if name in text}
        return [n for n in found if not any(n != other and n in other for other in found)]

    def amounts_quoted(self, text: str, moment: datetime | None, where) -> list[str]:
        """Amounts ``text`` quotes for an opportunity that it does not have at ``moment`` (None: now)."""
        moment = moment or self.world.info.now_utc
        problems = []
        for sentence in SENTENCE.split(text):
            found = {money(m): m.group(0) for m in AMOUNT.finditer(sentence)}
            names = self.named(sentence) if len(found) == 1 else []
            if len(names) != 1:
                continue
            (quoted, written), keys = found.popitem(), self.by_name[names[0]]
            held = [self.amount_at(k, moment) for k in keys]
            if quoted not in held:
                problems.append(f"{where(names[0], written)}: quotes ${quoted:,.2f} for {names[0]!r}, but {self.crm_at(keys[0])} "
                                f"has it at ${held[0] or 0:,.2f} on {moment.astimezone(self.zone):%Y-%m-%d}")
        return problems

    def meetings_named(self, text: str, local: datetime, people: set[str], where) -> list[str]:
        problems = []
        for m in MEETING.finditer(text):
            at, title = where(m.group(0)), m["title"]
            day = _nearest(local.date(), MONTHS.index(m["month"]) + 1, int(m["day"]))
            if day is None:
                problems.append(f"{at}: {m['month']} {m['day']} is not a date")
                continue
            if DAYS[day.weekday()] != m["weekday"]:
                problems.append(f"{at}: names {m['weekday']}, {m['month']} {m['day']}, but {day} is a {DAYS[day.weekday()]}")
            held = [e for e in self.meetings.get(title, ()) if e["start"].astimezone(self.zone).date() == day]
            if m["time"]:
                hour = datetime.strptime(m["time"], "%I:%M %p").time()
                held = [e for e in held if e["start"].astimezone(self.zone).time() == hour]
            if not held:
                other = [str(e["start"].astimezone(self.zone))[:16] for e in self.meetings.get(title, ())]
                problems.append(f"{at}: names the meeting {title!r} on {day}{' at ' + m['time'] if m['time'] else ''}, "
                                "but the calendar has no such event" + (f" (it has one at {', '.join(other)})" if other else ""))
                continue
            missing = min((people - e["attendees"] for e in held), key=len)
            if missing:
                event = next(e for e in held if people - e["attendees"] == missing)
                problems.append(f"{at}: names the meeting {title!r} on {day}, but {', '.join(sorted(missing))} "
                                f"{'is' if len(missing) == 1 else 'are'} not invited ({event['where']})")
        return problems

    def sheet_totals(self, text: str, where) -> list[str]:
        problems = []
        for m in SHEET_TOTAL.finditer(text):
            quoted = float(m["amount"].replace(",", ""))
            found = self.sheet_totals_by_name.get(m["sheet"])
            if found is None:
                problems.append(f"{where(m.group(0))}: quotes the total of a sheet {m['sheet']!r} that docs do not have")
            elif quoted not in [total for total, _ in found]:
                problems.append(f"{where(m.group(0))}: quotes ${quoted:,.2f} as the {m['sheet']!r} total, but "
                                f"{found[0][1]} totals ${found[0][0]:,.2f}")
        return problems


def money(match: re.Match) -> float:
    return float(match.group(1).replace(",", "") + (match.group(2) or ""))


def _own_lines(body: str) -> str:
    """The message's own words: quoted lines and the attribution line above them left out."""
    return "\n".join(line for line in body.splitlines()
                     if not line.startswith(">") and not (line.startswith("On ") and line.rstrip().endswith("wrote:")))


def _nearest(near: date, month: int, day: int) -> date | None:
    """The date with that month and day closest to ``near`` (mail names dates without a year)."""
    found = []
    for year in (near.year - 1, near.year, near.year + 1):
        try:
            found.append(date(year, month, day))
        except ValueError:
            pass
    return min(found, key=lambda d: abs((d - near).days), default=None)


def _find(lines: list[str], needles: tuple[str, ...]) -> int | None:
    """The 1-based number of the first unquoted line holding every needle (a needle's first 60 characters)."""
    heads = [n.strip()[:60] for n in needles]
    return next((i for i, line in enumerate(lines, 1) if not line.startswith(">") and all(h in line for h in heads)),
                None)


def _line(world: World, source: str, *needles: str) -> str:
    """``source:line`` of the line of the message file holding ``needles``."""
    found = _find((world.root / source).read_text(encoding="utf-8", errors="replace").splitlines(), needles)
    return f"{source}:{found or 1}"


def _doc_line(item, *needles: str) -> str:
    if not item.source:
        return f"{item.file} ({item.name!r})"
    return f"docs/{item.source}:{_find((item.text or '').splitlines(), needles) or 1}"
