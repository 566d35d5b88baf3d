"""Text of uploaded office files, for search: PDF with pypdf, DOCX with python-docx, XLSX with openpyxl.

A file that its library cannot read (damaged, encrypted, not what its type says) has no searchable
text rather than failing the upload: Drive, too, stores files it cannot index.
"""

from __future__ import annotations

import io
import logging

PDF = "application/pdf"
DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
MAX_CHARS = 1_000_000  # enough to search; a bound on what one upload can add to the index

logging.getLogger("pypdf").setLevel(logging.ERROR)  # damaged PDFs are expected; their warnings are noise


def text_of(content: bytes, mime_type: str) -> str:
    reader = {PDF: _pdf, DOCX: _docx, XLSX: _xlsx}.get(mime_type)
    if reader is None:
        return ""
    try:
        return reader(io.BytesIO(content))[:MAX_CHARS]
    except Exception:  # any library's failure on a bad file means: nothing to index
        return ""


def _pdf(data: io.BytesIO) -> str:
    from pypdf import PdfReader

    return "\n".join(page.extract_text() or "" for page in PdfReader(data).pages)


def _docx(data: io.BytesIO) -> str:
    from docx import Document

    document = Document(data)
    cells = [cell.text for table in document.tables for row in table.rows for cell in row.cells]
    return "\n".join([p.text for p in document.paragraphs] + cells)


def _xlsx(data: io.BytesIO) -> str:
    from openpyxl import load_workbook  # type: ignore[import-untyped]

    book = load_workbook(data, read_only=True, data_only=True)
    lines = []
    for sheet in book.worksheets:
        lines.append(sheet.title)
        for row in sheet.iter_rows(values_only=True):
            lines.append(",".join("" if v is None else str(v) for v in row))
    book.close()
    return "\n".join(lines)
