"""A plain multi-page PDF with real text on every page, written by hand (no PDF library needed to
make one; pypdf reads it back). For the GUI-stall benchmark's "200-page PDF dropped on the window"."""
from __future__ import annotations

from pathlib import Path

LINES_PER_PAGE = 40


def write_text_pdf(path: Path, pages: int, line: str = "The committee reviewed item {n} and moved on.") -> Path:
    objects: list[bytes] = []

    def add(body: bytes) -> int:
        objects.append(body)
        return len(objects)

    font = add(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    pages_id = len(objects) + 2 * pages + 1          # the Pages object comes after every page and stream
    kids = []
    n = 0
    for _ in range(pages):
        rows = []
        for i in range(LINES_PER_PAGE):
            n += 1
            text = line.format(n=n).replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
            rows.append(f"BT /F1 10 Tf 50 {780 - 18 * i} Td ({text}) Tj ET")
        stream = "\n".join(rows).encode("latin-1")
        content = add(b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream")
        kids.append(add(b"<< /Type /Page /Parent %d 0 R /MediaBox [0 0 612 792] /Contents %d 0 R "
                        b"/Resources << /Font << /F1 %d 0 R >> >> >>" % (pages_id, content, font)))
    add(b"<< /Type /Pages /Kids [" + b" ".join(b"%d 0 R" % k for k in kids) + b"] /Count %d >>" % pages)
    catalog = add(b"<< /Type /Catalog /Pages %d 0 R >>" % pages_id)
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root %d 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, catalog, xref)
    Path(path).write_bytes(bytes(out))
    return Path(path)
