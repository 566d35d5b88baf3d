"""The formula evaluator on its own: arithmetic, functions, ranges, and spreadsheet error values."""

import pytest

from apps.docs.formulas import FormulaError, Sheet, parse_number, parse_ref


def grid(**cells: str) -> Sheet:
    return Sheet({parse_ref(ref): text for ref, text in cells.items()})


def shown(sheet: Sheet, ref: str):
    value = sheet.value(*parse_ref(ref))
    return value.code if isinstance(value, FormulaError) else value


@pytest.mark.parametrize("formula, expected", [
    ("=1+2*3", 7), ("=(1+2)*3", 9), ("=-A1+10", 6), ("=A1/A2", 2), ("=SUM(A1:A3)", 12),
    ("=AVERAGE(A1:A3)", 4), ("=MIN(A1:A3, 1)", 1), ("=MAX(A1:A3)", 6), ("=COUNT(A1:A4)", 3),
    ("=ROUND(A1/3, 2)", 1.33), ("=SUM(A1, A2) - 1", 5), ("=A4", "total"), ("=B9", None),
])
def test_formulas_evaluate(formula, expected):
    sheet = grid(A1="4", A2="2", A3="6", A4="total", B1=formula)
    assert shown(sheet, "B1") == expected


@pytest.mark.parametrize("formula, code", [
    ("=A1/0", "#DIV/0!"), ("=AVERAGE(C1:C3)", "#DIV/0!"), ("=FOO(1)", "#NAME?"), ("=pipeline", "#NAME?"),
    ("=A4*2", "#VALUE!"), ("=AAAA1", "#NAME?"), ("=AAA1", "#REF!"), ("=1+", "#ERROR!"), ("=(1", "#ERROR!"),
    ("=B1", "#REF!"), ("=B2", "#REF!"), ("=A1:A3", "#VALUE!"), ("=1 # 2", "#ERROR!"),
])
def test_errors_show_as_spreadsheets_show_them(formula, code):
    sheet = grid(A1="4", A4="total", B1=formula, B2="=B3", B3="=B2")
    assert shown(sheet, "B1") == code


def test_a_cycle_is_named_and_errors_spread_to_dependants():
    sheet = grid(A1="=A2", A2="=A1", B1="=A1+1", C1="=1/0", C2="=SUM(C1, 5)")
    cycle = sheet.value(1, 1)
    assert cycle.code == "#REF!" and "circular" in cycle.detail
    assert shown(sheet, "B1") == "#REF!" and shown(sheet, "C2") == "#DIV/0!"


def test_typed_numbers_are_read_as_spreadsheets_read_them():
    assert [parse_number(t) for t in ("1,200", "$45.50", "12%", "-3", ".5")] == [1200, 45.5, 0.12, -3, 0.5]
    assert parse_number("12 units") is None and parse_number("1,2") is None
    assert shown(grid(A1="$1,000", A2="=A1*2"), "A2") == 2000


@pytest.mark.parametrize("formula, expected", [
    ("=SUM(B:B)", 35), ("=SUM($B:$B)", 35), ("=SUM(B3:B)", 25), ("=COUNTA(A:A)", 4), ("=SUM(B:C)", 38),
    ("=SUM(3:3)", 23), ("=MAX(2:3)", 20), ("=SUM(C:B)", 38),
])
def test_whole_columns_and_rows_reach_the_last_filled_cell(formula, expected):
    # Google Sheets: B:B is the whole column, 2:2 the whole row, B3:B from B3 down; here the grid ends at the
    # last filled row and column, so what they hold is the same.
    sheet = grid(A1="Name", B1="Amount", A2="a", B2="10", A3="b", B3="20", C3="3", A4="c", B4="5", E1=formula)
    assert shown(sheet, "E1") == expected


def test_a_whole_column_grows_with_the_sheet_and_sees_its_own_cycle():
    sheet = grid(B1="1", B2="2", B9="=SUM(B:B)")
    assert shown(sheet, "B9") == "#REF!"   # B9 is in column B, as in a spreadsheet
    assert shown(grid(B1="1", B2="2", B500="4", C1="=SUM(B:B)"), "C1") == 7
    assert shown(grid(A1="=SUM(B:A3)"), "A1") == "#ERROR!"


def test_a_colon_inside_text_is_text_not_a_range():
    assert shown(grid(A1='="10:30"', A2='=LEN("B:B")'), "A1") == "10:30"
    assert shown(grid(A2='=LEN("B:B")'), "A2") == 3
