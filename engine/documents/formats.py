"""Rich formats turned into text with their structure kept: HTML, PDF, Word.

Headings become Markdown headings (the chunker's best seam), paragraphs stay blank-line separated,
PDF pages are marked. Each failure names the file and says what to do.
"""
from __future__ import annotations

import io
import logging
import re
from html.parser import HTMLParser

from precis.engine.errors import UnreadableDocument

_BLOCK_TAGS = {"p", "div", "br", "li", "tr", "section", "article", "header", "footer", "blockquote", "pre",
               "table", "ul", "ol", "dd", "dt", "hr"}
_SKIP_TAGS = {"script", "style", "noscript", "template", "head", "svg"}


class _HTMLText(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag, attrs):  # noqa: ARG002 - HTMLParser signature
        if tag in _SKIP_TAGS:
            self._skip += 1
        elif re.fullmatch(r"h[1-6]", tag):
            self.parts.append("\n\n" + "#" * int(tag[1]) + " ")
        elif tag == "li":
            self.parts.append("\n- ")
        elif tag in ("td", "th"):
            self.parts.append(" | ")
        elif tag in _BLOCK_TAGS:
            self.parts.append("\n\n" if tag in ("p", "div", "section", "article", "table", "blockquote") else "\n")

    def handle_endtag(self, tag):
        if tag in _SKIP_TAGS:
            self._skip = max(0, self._skip - 1)
        elif re.fullmatch(r"h[1-6]", tag) or tag in ("p", "div", "section", "article", "table"):
            self.parts.append("\n\n")

    def handle_data(self, data):
        if not self._skip:
            self.parts.append(re.sub(r"\s+", " ", data))


def _tidy(text: str) -> str:
    lines = [line.strip() for line in text.split("\n")]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip() + "\n"


# Data a page carries inline as base64 (an image, a font, an attachment), not in an attribute or a script
# where the parser skips it: a page with a megabyte of it in a paragraph was planned as 290 rounds of it.
_BASE64_RUN = re.compile(r"(?:data:[\w/+.-]+;base64,)?[A-Za-z0-9+/]{200,}={0,2}")


def html_to_text(html: str) -> tuple[str, tuple[str, ...]]:
    """(the page's text, what was left out: inline base64 data, said with its size)."""
    parser = _HTMLText()
    parser.feed(html)
    parser.close()
    text = "".join(parser.parts)
    removed = sum(len(m.group(0)) for m in _BASE64_RUN.finditer(text))
    if not removed:
        return _tidy(text), ()
    return _tidy(_BASE64_RUN.sub(" ", text)), (f"left out {removed:,} characters of inline base64 data",)


class _Collect(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


def pdf_to_text(raw: bytes, name: str) -> tuple[str, tuple[str, ...]]:
    """(text with page markers, what pypdf warned about). pypdf's warnings about damaged parts are the
    document's business, not stderr's: they are collected and shown with the document."""
    logger = logging.getLogger("pypdf")
    collect = _Collect()
    logger.addHandler(collect)
    propagate, logger.propagate = logger.propagate, False
    try:
        return _pdf_text(raw, name), tuple(dict.fromkeys(f"PDF: {m}" for m in collect.messages))
    finally:
        logger.removeHandler(collect)
        logger.propagate = propagate


def _pdf_text(raw: bytes, name: str) -> str:
    from pypdf import PdfReader
    from pypdf.errors import PdfReadError
    try:
        reader = PdfReader(io.BytesIO(raw))
        if reader.is_encrypted:
            try:
                reader.decrypt("")
            except Exception as exc:  # pypdf raises several kinds for wrong passwords
                raise UnreadableDocument(f"{name} is a password-protected PDF; save an unprotected copy "
                                         "first.") from exc
        pages = [(page.extract_text() or "").strip() for page in reader.pages]
    except UnreadableDocument:
        raise
    except (PdfReadError, ValueError, KeyError, TypeError) as exc:
        raise UnreadableDocument(f"{name} is not a readable PDF ({exc}). It may be damaged or only partly "
                                 "downloaded; open it in a PDF viewer and save it again.") from exc
    if not any(pages):
        raise UnreadableDocument(f"{name} has no text layer (a scanned PDF?). Run OCR on it first, then drop the "
                                 "result here.")
    # A page marker is a heading-class seam: chunks prefer to start on a new page.
    return "\n\n".join(f"--- page {i} ---\n{text}" for i, text in enumerate(pages, 1) if text) + "\n"


# A Word file is a zip: python-docx reads every part into memory and parses the XML whole. A document of
# 750 KB whose XML unpacked to 300 MB (a zip bomb) ran past two minutes and 850 MB of memory without an
# end (issue 40); a long book's document.xml is some tens of MB. The sizes a zip declares bound what
# Python's zipfile unpacks (a part that unpacks to more fails its check), so they are checked first.
MAX_DOCX_XML_BYTES = 64 * 2**20          # all XML parts, unpacked
MAX_DOCX_UNPACKED_BYTES = 256 * 2**20    # everything, images included


def _check_docx_size(raw: bytes, name: str) -> None:
    import zipfile
    try:
        with zipfile.ZipFile(io.BytesIO(raw)) as package:
            parts = package.infolist()
    except (zipfile.BadZipFile, ValueError) as exc:
        raise UnreadableDocument(f"{name} is not a readable Word document ({exc}). It may be damaged or an old "
                                 ".doc file; save it as .docx or text first.") from exc
    xml = sum(p.file_size for p in parts if p.filename.endswith((".xml", ".rels")))
    total = sum(p.file_size for p in parts)
    if xml > MAX_DOCX_XML_BYTES or total > MAX_DOCX_UNPACKED_BYTES:
        raise UnreadableDocument(
            f"{name} unpacks to {max(xml, total) / 2**20:,.0f} MiB (from {len(raw) / 2**20:,.1f} MiB): a Word file "
            f"that large is damaged or a zip bomb. Precis reads Word files of up to {MAX_DOCX_XML_BYTES // 2**20} "
            "MiB of text and markup; save it as text first.")


def docx_to_text(raw: bytes, name: str) -> str:
    import zipfile

    import docx
    _check_docx_size(raw, name)
    try:
        document = docx.Document(io.BytesIO(raw))
    except (zipfile.BadZipFile, KeyError, ValueError) as exc:
        raise UnreadableDocument(f"{name} is not a readable Word document ({exc}). It may be damaged or an old "
                                 ".doc file; save it as .docx or text first.") from exc
    blocks: list[str] = []
    body = document.element.body
    for child in body.iterchildren():
        tag = child.tag.rsplit("}", 1)[-1]
        if tag == "p":
            paragraph = docx.text.paragraph.Paragraph(child, document)
            text = paragraph.text.strip()
            if not text:
                continue
            style = (paragraph.style.name if paragraph.style is not None else "") or ""
            level = re.match(r"Heading (\d)", style)
            if level:
                text = "#" * int(level.group(1)) + " " + text
            elif style == "Title":
                text = "# " + text
            elif style.startswith("List"):
                text = "- " + text
            blocks.append(text)
        elif tag == "tbl":
            table = docx.table.Table(child, document)
            rows = [" | ".join(cell.text.strip() for cell in row.cells) for row in table.rows]
            blocks.append("\n".join(rows))
    if not blocks:
        raise UnreadableDocument(f"{name} is an empty Word document: there is nothing to summarize.")
    return "\n\n".join(blocks) + "\n"
