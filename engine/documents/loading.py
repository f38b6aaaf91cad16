"""Documents as Precis reads them: a name, the text (structure kept), its kind and size.

Text formats (.txt .md .log .csv ...) are read as they are; HTML, PDF and Word go through
engine.documents.formats, chat exports (.json/.jsonl) through engine.documents.chat_exports. Plain
text is decoded as UTF-8 (with or without BOM) or UTF-16 (by BOM); anything else is handed
to charset-normalizer, which detects legacy encodings (Shift_JIS, EUC-JP, cp1252, ...) from the
bytes instead of guessing. Binary and empty files are refused with a message naming the file.
"""
from __future__ import annotations

import codecs
import re
from dataclasses import dataclass
from pathlib import Path

from precis.engine.documents.chat_exports import chat_export_to_text
from precis.engine.documents.formats import docx_to_text, html_to_text, pdf_to_text
from precis.engine.errors import UnreadableDocument

# Control bytes other than tab/newline/carriage return/form feed/escape: text never has many.
_BINARY_CONTROL_BYTES = set(range(0, 9)) | {11} | set(range(14, 27)) | set(range(28, 32))
MAX_DOCUMENT_BYTES = 256 * 2**20


@dataclass(frozen=True)
class Document:
    path: Path
    text: str
    encoding: str
    kind: str = "text"     # "text", "markdown", "transcript", "chat log", "log", "csv", "html", "pdf", "word"

    @property
    def name(self) -> str:
        return self.path.name

    @property
    def chars(self) -> int:
        return len(self.text)


def decode_bytes(raw: bytes, name: str) -> tuple[str, str]:
    """(text, encoding) for the raw bytes of file ``name``; UnreadableDocument if it is not text."""
    if not raw.strip():
        raise UnreadableDocument(f"{name} is empty: there is nothing to summarize.")
    for bom, enc in ((codecs.BOM_UTF8, "utf-8-sig"), (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16")):
        if raw.startswith(bom):
            return raw.decode(enc), enc
    sample = raw[:65536]
    if b"\x00" in sample or sum(b in _BINARY_CONTROL_BYTES for b in sample) > len(sample) // 100:
        raise UnreadableDocument(f"{name} looks like a binary file, not text. Precis reads text, Markdown, "
                                 "logs and chat exports; convert this file to text first.")
    try:
        return raw.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        pass
    best = _detect(raw)
    if best is None:
        raise UnreadableDocument(f"{name}: its bytes are not text in any encoding Precis recognises. "
                                 "Save it as UTF-8 and try again.")
    return str(best), best.encoding


# charset-normalizer ranks by "chaos" (mess in the decoded text) first. On short Western texts several
# single-byte code pages decode with little mess (measured: French cp1252 text came out as cp1257,
# "déją vu"); among those close in chaos, the one whose letters fit a language best is right.
_CHAOS_TOLERANCE = 0.15


def _detect(raw: bytes):
    from charset_normalizer import from_bytes
    results = list(from_bytes(raw))
    if not results:
        return None
    least = min(r.chaos for r in results)
    close = [r for r in results if r.chaos <= least + _CHAOS_TOLERANCE]
    return max(close, key=lambda r: (r.coherence, -r.chaos))


def load_document(path: str | Path) -> Document:
    path = Path(path)
    try:
        if path.is_dir():
            raise UnreadableDocument(f"{path.name} is a folder; drop the files inside it instead.")
        size = path.stat().st_size
        if size > MAX_DOCUMENT_BYTES:
            raise UnreadableDocument(f"{path.name} is {size / 2**20:.0f} MiB; Precis reads documents up to "
                                     f"{MAX_DOCUMENT_BYTES // 2**20} MiB. Split it first.")
        raw = path.read_bytes()
    except OSError as exc:
        raise UnreadableDocument(f"{path.name} could not be read: {exc.strerror or exc}.") from exc
    return document_from_bytes(path, raw)


def document_from_bytes(path: Path, raw: bytes) -> Document:
    name, suffix = path.name, path.suffix.lower()
    if suffix == ".pdf":
        return Document(path, _nonempty(pdf_to_text(_nonblank(raw, name), name), name), "binary", "pdf")
    if suffix == ".docx":
        return Document(path, _nonempty(docx_to_text(_nonblank(raw, name), name), name), "binary", "word")
    if suffix == ".doc":
        raise UnreadableDocument(f"{name} is an old Word .doc file; save it as .docx or text first.")
    text, encoding = decode_bytes(raw, name)
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if suffix in (".html", ".htm", ".xhtml"):
        return Document(path, _nonempty(html_to_text(text), name), encoding, "html")
    if suffix in (".json", ".jsonl", ".ndjson"):
        text, kind = chat_export_to_text(text, name)
        return Document(path, _nonempty(text, name), encoding, kind)
    return Document(path, text, encoding, _text_kind(suffix, text))


def _nonblank(raw: bytes, name: str) -> bytes:
    if not raw.strip():
        raise UnreadableDocument(f"{name} is empty: there is nothing to summarize.")
    return raw


def _nonempty(text: str, name: str) -> str:
    if not text.strip():
        raise UnreadableDocument(f"{name} has no text in it: there is nothing to summarize.")
    return text


_SPEAKER_LINE = re.compile(r"^\s*(\[[^\]\n]{1,40}\]\s*)?[\w .'\-]{1,40}[:：]\s|^\[(user|assistant)\b", re.M)


def _text_kind(suffix: str, text: str) -> str:
    if suffix in (".md", ".markdown"):
        return "markdown"
    if suffix in (".csv", ".tsv"):
        return "csv"
    if suffix == ".log":
        return "log"
    lines = max(1, text.count("\n"))
    turns = len(_SPEAKER_LINE.findall(text[:200_000]))
    if re.search(r"^\[(user|assistant)\b", text[:200_000], re.M) and turns >= 4:
        return "chat log"
    return "transcript" if turns >= 10 and turns >= lines * 0.2 else "text"
