"""Real files of the formats Precis reads, built in the test's temporary folder."""
from __future__ import annotations

import json
from pathlib import Path


def minimal_pdf(path: Path, pages: list[str]) -> Path:
    """A valid PDF with a text layer (Helvetica, one line per page), written by hand: no PDF writer needed."""
    objects = ["<< /Type /Catalog /Pages 2 0 R >>", None,
               "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"]
    kids = []
    for text in pages:
        safe = text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
        stream = f"BT /F1 12 Tf 72 720 Td ({safe}) Tj ET"
        objects.append(f"<< /Length {len(stream)} >>\nstream\n{stream}\nendstream")
        objects.append(f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents {len(objects)} 0 R "
                       "/Resources << /Font << /F1 3 0 R >> >> >>")
        kids.append(f"{len(objects)} 0 R")
    objects[1] = f"<< /Type /Pages /Kids [{' '.join(kids)}] /Count {len(kids)} >>"
    out = b"%PDF-1.4\n"
    offsets = []
    for i, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += f"{i} 0 obj\n{body}\nendobj\n".encode("latin-1")
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += "".join(f"{o:010d} 00000 n \n" for o in offsets).encode()
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    path.write_bytes(out)
    return path


def word_document(path: Path) -> Path:
    import docx
    d = docx.Document()
    d.add_heading("Quarterly review", level=1)
    d.add_paragraph("Revenue grew 12% to EUR 4.2 million.")
    d.add_heading("Decisions", level=2)
    d.add_paragraph("Hire two engineers by 2027-01-15.", style="List Bullet")
    table = d.add_table(rows=2, cols=2)
    table.cell(0, 0).text, table.cell(0, 1).text = "Owner", "Task"
    table.cell(1, 0).text, table.cell(1, 1).text = "Priya", "Budget"
    d.save(path)
    return path


def claude_code_session(path: Path) -> Path:
    lines = [
        {"type": "summary", "summary": "Fix the login bug"},
        {"type": "user", "timestamp": "2026-11-27T08:41:00Z", "sessionId": "s1",
         "message": {"role": "user", "content": "The login page crashes on Safari."}},
        {"type": "assistant", "timestamp": "2026-11-27T08:42:00Z", "sessionId": "s1",
         "message": {"role": "assistant", "content": [
             {"type": "thinking", "thinking": "private"},
             {"type": "text", "text": "Let me read the handler."},
             {"type": "tool_use", "name": "Read", "input": {"file_path": "src/login.ts"}}]}},
        {"type": "user", "timestamp": "2026-11-27T08:42:05Z", "sessionId": "s1",
         "message": {"role": "user", "content": [{"type": "tool_result", "content": "export function login() {}"}]}},
    ]
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n", encoding="utf-8")
    return path


def chatgpt_export(path: Path) -> Path:
    conv = {"title": "Trip to Kyoto", "create_time": 1764230400, "current_node": "c",
            "mapping": {
                "root": {"id": "root", "message": None, "parent": None, "children": ["a"]},
                "a": {"id": "a", "parent": "root", "children": ["b"], "message": {
                    "author": {"role": "user"}, "create_time": 1764230400,
                    "content": {"content_type": "text", "parts": ["Plan three days in Kyoto in April."]}}},
                "b": {"id": "b", "parent": "a", "children": ["c", "x"], "message": {
                    "author": {"role": "assistant"}, "content": {"parts": ["Day 1: Fushimi Inari at 7:00."]}}},
                "x": {"id": "x", "parent": "b", "children": [], "message": {
                    "author": {"role": "user"}, "content": {"parts": ["an abandoned branch"]}}},
                "c": {"id": "c", "parent": "b", "children": [], "message": {
                    "author": {"role": "user"}, "content": {"parts": ["Budget is 60,000 yen."]}}}}}
    path.write_text(json.dumps([conv]), encoding="utf-8")
    return path
