"""The formula language people write daily, on the evaluator and over REST (virtual clock, deep chains)."""

import pytest
from surfaces import call

from apps.docs.formulas import FormulaError, Sheet, parse_ref

DATA = dict(A1="Globex", B1="184000", C1="Proposal", A2="Initech", B2="50000", C2="Negotiation",
            A3="Hooli", B3="9000", C3="Closed Lost", A4="Globex", B4="20000", C4="Closed Won", D1="2026-03-16")


def value(formula: str, **cells: str):
    sheet = Sheet({parse_ref(ref): text for ref, text in {**DATA, **cells, "Z1": formula}.items()})
    found = sheet.value(1, 26)
    return found.code if isinstance(found, FormulaError) else found


@pytest.mark.parametrize("formula, expected", [
    ('=IF(B1>100000, "big", "small")', "big"), ('=IF(B3>100000, "big")', False),
    ('=IFS(B2>100000, "big", B2>10000, "mid", TRUE, "small")', "mid"),
    ("=AND(B1>0, B2>0)", True), ("=OR(B1<0, B2<0)", False), ("=NOT(B1=184000)", False),
    ('=A1="globex"', True), ('=A1<>A2', True), ("=B2<=50000", True), ('="a"<"b"', True),
    ('=A1&" / "&C1', "Globex / Proposal"), ('=CONCATENATE(A1, "-", B3)', "Globex-9000"),
    ("=VLOOKUP(\"Initech\", A1:C4, 2, FALSE)", 50000), ('=VLOOKUP("Nope", A1:C4, 2, FALSE)', "#N/A"),
    ('=VLOOKUP("Initech", A1:C4, 9, FALSE)', "#REF!"),
    ('=XLOOKUP("Hooli", A1:A4, C1:C4)', "Closed Lost"), ('=XLOOKUP("Nope", A1:A4, C1:C4, "none")', "none"),
    ('=XLOOKUP("Globex", A1:A4, B1:B4, 0, 0, -1)', 20000),
    ('=INDEX(B1:B4, MATCH("Hooli", A1:A4, 0))', 9000), ("=INDEX(A1:C4, 2, 3)", "Negotiation"),
    ('=MATCH(60000, B2:B2, 1)', 1),
    ('=SUMIF(A1:A4, "Globex", B1:B4)', 204000), ('=SUMIF(B1:B4, ">=20000")', 254000),
    ('=SUMIFS(B1:B4, A1:A4, "Glo*", C1:C4, "<>Closed Won")', 184000),
    ('=COUNTIF(C1:C4, "Closed*")', 2), ('=COUNTIFS(A1:A4, "Globex", B1:B4, ">100000")', 1),
    ('=AVERAGEIF(A1:A4, "Globex", B1:B4)', 102000),
    ("=ROUND(2.5, 0)", 3), ("=ROUND(-2.5, 0)", -3), ("=ROUND(2.675, 2)", 2.68), ("=ROUND(1234, -2)", 1200),
    ("=ROUNDUP(1.21, 1)", 1.3), ("=ROUNDDOWN(-1.29, 1)", -1.2),
    ("=YEAR(D1)", 2026), ("=MONTH(DATE(2026, 14, 1))", 2), ("=DAY(EOMONTH(D1, 0))", 31),
    ('=TEXT(EDATE(D1, 1), "yyyy-mm-dd")', "2026-04-16"), ('=TEXT(DATE(2026,3,5), "mmm d, yyyy")', "Mar 5, 2026"),
    ('=TEXT(1234.5, "$#,##0.00")', "$1,234.50"), ('=TEXT(0.125, "0.0%")', "12.5%"), ('=TEXT(B2, "#,##0")', "50,000"),
    ("=DAYS(DATE(2026,4,1), D1)", 16), ('=DATEDIF(DATE(2025,1,15), D1, "M")', 14),
    ("=1/0", "#DIV/0!"), ("=NOSUCH(1)", "#NAME?"), ("=Z9999", None), ("=ZZZ1", "#REF!"),
    ("=IFERROR(1/0, \"n/a\")", "n/a"), ("=IF(TRUE, 1, 1/0)", 1), ("=-2^2", 4), ("=2^-1", 0.5), ("=10%", 0.1),
    ("=SUM(A1:B4)", 263000), ("=0^-1", "#DIV/0!"), ("=1e308*10", "#NUM!"), ("=ROUND(1e300, 2)", 1e300),
    ("=ROUND(1e300, -400)", 0), ("=(-8)^0.5", "#NUM!"), ("=" + "9" * 400 + "&\"\"", "#NUM!"),
    ("=LEN(A1)&UPPER(C3)", "6CLOSED LOST"),
])
def test_formula_language(formula, expected):
    assert value(formula) == expected


def test_chains_and_nesting_need_no_recursion_and_cycles_show_ref():
    chain = {(1, 1): "1", **{(r, 1): f"=A{r - 1}+1" for r in range(2, 3001)}}
    assert Sheet(chain).value(3000, 1) == 3000
    deep = "=" + "(" * 5000 + "1" + ")" * 5000
    assert Sheet({(1, 1): deep}).value(1, 1) == 1
    ring = {(r, 1): f"=A{r % 3000 + 1}" for r in range(1, 3001)}
    found = Sheet(ring).value(1, 1)
    assert found.code == "#REF!" and "circular" in found.detail


def test_ranges_are_read_once_but_never_mid_cycle():
    sheet = Sheet({(1, 1): "=IF(TRUE, 1, SUM(A1:A2))", (2, 1): "2", (1, 2): "=SUM(A1:A2)", (2, 2): "=SUM(A1:A2)*2"})
    assert sheet.value(1, 1) == 1 and sheet.value(1, 2) == 3 and sheet.value(2, 2) == 6


def _sheet_over_rest(api, episode, cells):
    made = call(api, episode, "docs", "create_spreadsheet", name="Pipeline")
    assert made.status_code == 200, made.text
    file_id = made.json()["id"]
    updated = call(api, episode, "docs", "update_cells", file_id=file_id, cells=cells)
    assert updated.status_code == 200, updated.text
    return call(api, episode, "docs", "get_spreadsheet", file_id=file_id)


def test_today_reads_the_virtual_clock_and_deep_sheets_do_not_crash_the_server(api, episode):
    cells = {"A1": "=TODAY()", "B1": '=TEXT(NOW(), "yyyy-mm-dd hh:mm")', "C1": "=A1+1", "D1": "=A1>DATE(2026,1,1)",
             "A2": "=" + "(" * 5000 + "2" + ")" * 5000, **{f"E{r}": f"=E{r - 1}+1" for r in range(2, 3001)}, "E1": "1"}
    response = _sheet_over_rest(api, episode, cells)
    assert response.status_code == 200, response.text
    rows = response.json()["rows"]
    # The world's clock is 2026-03-16 09:00 in New York.
    assert rows[0][:4] == ["2026-03-16", "2026-03-16 09:00", "2026-03-17", "TRUE"]
    assert rows[1][0] == 2 and rows[2999][4] == 3000
