"""Uploaded PDF, DOCX and XLSX files are searched by the text their libraries extract, over REST."""

import base64
import io
import zlib

from docx import Document
from openpyxl import Workbook
from surfaces import call


def _pdf(text: str) -> bytes:
    """A real one-page PDF whose content stream is Flate-compressed (no literal text in the bytes)."""
    stream = zlib.compress(f"BT /F1 12 Tf 72 720 Td ({text}) Tj ET".encode())
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
               b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
               b"/Resources << /Font << /F1 5 0 R >> >> >>",
               b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(stream) + stream + b"\nendstream",
               b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"]
    out, offsets = io.BytesIO(), []
    out.write(b"%PDF-1.4\n")
    for number, body in enumerate(objects, 1):
        offsets.append(out.tell())
        out.write(b"%d 0 obj\n" % number + body + b"\nendobj\n")
    xref = out.tell()
    out.write(b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1))
    out.write(b"".join(b"%010d 00000 n \n" % o for o in offsets))
    out.write(b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref))
    return out.getvalue()


def _docx(text: str) -> bytes:
    document = Document()
    document.add_paragraph("Master services agreement")
    document.add_table(rows=1, cols=1).rows[0].cells[0].text = text
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def _xlsx(text: str) -> bytes:
    book = Workbook()
    book.active.append(["Account", "Note"])
    book.active.append(["Globex", text])
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def _upload(api, episode, name, content):
    response = call(api, episode, "docs", "upload_file", name=name, content_base64=base64.b64encode(content).decode())
    assert response.status_code == 200, response.text
    return response.json()["id"]


def _found(api, episode, query):
    response = call(api, episode, "docs", "search", query=query)
    assert response.status_code == 200, response.text
    return sorted(f["name"] for f in response.json()["files"])


def test_office_files_are_searched_by_their_text(api, episode):
    pdf = _pdf("Indemnification capped at twelve months")
    assert b"Indemnification" not in pdf
    _upload(api, episode, "msa.pdf", pdf)
    _upload(api, episode, "terms.docx", _docx("Termination for convenience"))
    _upload(api, episode, "notes.xlsx", _xlsx("Procurement wants quarterly billing"))
    _upload(api, episode, "broken.pdf", b"%PDF-1.4 not really a pdf")
    assert _found(api, episode, "indemnification") == ["msa.pdf"]
    assert _found(api, episode, "convenience") == ["terms.docx"]
    assert _found(api, episode, "quarterly billing") == ["notes.xlsx"]
