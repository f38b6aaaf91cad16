"""Documents as Precis reads them: a name, the text, and its size in characters.

Plain text is decoded as UTF-8 (with or without BOM) or UTF-16 (by BOM); anything else is handed
to charset-normalizer, which detects legacy encodings (Shift_JIS, EUC-JP, cp1252, ...) from the
bytes instead of guessing. Binary and empty files are refused with a message naming the file.
"""
from __future__ import annotations

import codecs
from dataclasses import dataclass
from pathlib import Path

from engine.errors import UnreadableDocument

# Control bytes other than tab/newline/carriage return/form feed/escape: text never has many.
_BINARY_CONTROL_BYTES = set(range(0, 9)) | {11} | set(range(14, 27)) | set(range(28, 32))
MAX_DOCUMENT_BYTES = 256 * 2**20


@dataclass(frozen=True)
class Document:
    path: Path
    text: str
    encoding: str

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
    from charset_normalizer import from_bytes
    best = from_bytes(raw).best()
    if best is None:
        raise UnreadableDocument(f"{name}: its bytes are not text in any encoding Precis recognises. "
                                 "Save it as UTF-8 and try again.")
    return str(best), best.encoding


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
    text, encoding = decode_bytes(raw, path.name)
    text = text.replace("\r\n", "\n")
    return Document(path=path, text=text, encoding=encoding)
