"""Documents as Precis reads them: a name, the text (structure kept), its kind and size.

Text formats (.txt .md .log .csv ...) are read as they are; HTML, PDF and Word go through
engine.documents.formats, chat exports (.json/.jsonl) through engine.documents.chat_exports. Plain
text is decoded as UTF-8 (with or without BOM) or UTF-16 (by BOM); anything else is handed
to charset-normalizer, which detects legacy encodings (Shift_JIS, EUC-JP, cp1252, ...) from the
bytes instead of guessing. Binary and empty files are refused with a message naming the file.
"""
from __future__ import annotations

import codecs
import os
import re
import stat
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
    warnings: tuple[str, ...] = ()   # what reading had to guess or skip, for the person to see

    @property
    def name(self) -> str:
        return display_name(self.path)

    @property
    def chars(self) -> int:
        return len(self.text)


@dataclass(frozen=True)
class Decoded:
    text: str
    encoding: str
    warnings: tuple[str, ...] = ()


# Text has a few stray NULs at most (a log with one); more than this share of the bytes means binary.
MAX_NUL_SHARE = 0.001


def decode_bytes(raw: bytes, name: str) -> tuple[str, str]:
    """(text, encoding) for the raw bytes of file ``name``; UnreadableDocument if it is not text."""
    decoded = decode_document_bytes(raw, name)
    return decoded.text, decoded.encoding


def decode_document_bytes(raw: bytes, name: str) -> Decoded:
    """The text of ``raw``, how it was decoded, and what had to be guessed on the way."""
    if not raw or raw.isspace():      # stops at the first non-space byte (strip() would copy 60 MB)
        raise UnreadableDocument(f"{name} is empty: there is nothing to summarize.")
    for bom, enc in ((codecs.BOM_UTF8, "utf-8-sig"), (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16")):
        if raw.startswith(bom):
            return Decoded(raw.decode(enc, errors="replace"), enc)
    utf16 = _utf16_without_bom(raw)
    if utf16 is not None:
        return utf16
    warnings: list[str] = []
    sample = raw[:65536]
    nuls = sample.count(0)
    if nuls > max(1, MAX_NUL_SHARE * len(sample)) or \
            sum(b in _BINARY_CONTROL_BYTES for b in sample if b) > len(sample) // 100:
        raise UnreadableDocument(f"{name} looks like a binary file, not text. Precis reads text, Markdown, "
                                 "logs and chat exports; convert this file to text first.")
    if raw.count(0):
        count = raw.count(0)
        raw = raw.replace(b"\x00", b"")
        warnings.append(f"removed {count} NUL byte{'s' if count != 1 else ''} (not text)")
    try:
        return Decoded(_decode_utf8_in_slices(raw), "utf-8", tuple(warnings))
    except UnicodeDecodeError:
        pass
    best = _detect(raw)
    if best is None:
        raise UnreadableDocument(f"{name}: its bytes are not text in any encoding Precis recognises. "
                                 "Save it as UTF-8 and try again.")
    text, encoding, sure = best
    warnings.append(f"not UTF-8: read as {encoding} ({sure:.0%} sure); if letters look wrong, save it as UTF-8")
    return Decoded(text, encoding, tuple(warnings))


# A single C call on a very long text holds the GIL throughout: decoding or normalising 60 MB at once
# stalled the window's GUI thread 150-260 ms (bench/plan_large.py). In slices, each call is short and the
# loop between them lets the GUI thread in.
SLICE_BYTES = 1 << 20


def _decode_utf8_in_slices(raw: bytes) -> str:
    """raw.decode("utf-8") (strict), a slice at a time."""
    if len(raw) <= SLICE_BYTES:
        return raw.decode("utf-8")
    decoder = codecs.getincrementaldecoder("utf-8")()
    parts = [decoder.decode(raw[i:i + SLICE_BYTES]) for i in range(0, len(raw), SLICE_BYTES)]
    parts.append(decoder.decode(b"", final=True))
    return "".join(parts)


def unix_newlines(text: str) -> str:
    """CRLF and lone CR as LF, a slice at a time for long texts (a slice never ends inside a CRLF)."""
    if "\r" not in text:
        return text
    if len(text) <= SLICE_BYTES:
        return text.replace("\r\n", "\n").replace("\r", "\n")
    parts, i = [], 0
    while i < len(text):
        end = min(len(text), i + SLICE_BYTES)
        if text[end - 1] == "\r" and end < len(text):
            end += 1                                     # keep a CRLF whole
        parts.append(text[i:end].replace("\r\n", "\n").replace("\r", "\n"))
        i = end
    return "".join(parts)


def _utf16_without_bom(raw: bytes) -> Decoded | None:
    """UTF-16 text without a byte-order mark: every other byte is NUL for Latin text. Decoded when one
    byte order gives clean, printable text."""
    sample = raw[:4096]
    if len(sample) < 8 or len(sample) % 2:
        sample = sample[:len(sample) - len(sample) % 2]
    even, odd = sample[0::2], sample[1::2]
    for zeros, encoding in ((odd, "utf-16-le"), (even, "utf-16-be")):
        if zeros and zeros.count(0) >= 0.6 * len(zeros):
            try:
                text = raw[:len(raw) - len(raw) % 2].decode(encoding)
            except UnicodeDecodeError:
                continue
            printable = sum(ch.isprintable() or ch in "\n\r\t" for ch in text[:2000])
            if printable >= 0.95 * min(len(text), 2000):
                return Decoded(text, encoding, (f"read as {encoding.upper()} (it has no byte-order mark)",))
    return None


# charset-normalizer ranks by "chaos" (mess in the decoded text) first. On short Western texts several
# single-byte code pages decode with little mess (measured: French cp1252 text came out as cp1257,
# "déją vu"; Spanish "Begoña" as cp1250 "Begońa"). Among candidates close in chaos, Windows-1252 (by far
# the most common Western legacy encoding) wins when it decodes the bytes; otherwise the most coherent.
_CHAOS_TOLERANCE = 0.15
# Windows-1252 wins when its own mess is within this of the least messy candidate's.
_WESTERN_TOLERANCE = 0.05


def _detect(raw: bytes) -> tuple[str, str, float] | None:
    """(text, encoding, how sure) of legacy-encoded bytes, or None."""
    from charset_normalizer import from_bytes
    results = list(from_bytes(raw))
    if not results:
        return None
    least = min(r.chaos for r in results)
    close = [r for r in results if r.chaos <= least + _CHAOS_TOLERANCE]
    best = max(close, key=lambda r: (r.coherence, -r.chaos))
    western = from_bytes(raw, cp_isolation=["cp1252"]).best()
    if western is not None and best.encoding != "cp1252" and western.chaos <= least + _WESTERN_TOLERANCE:
        return str(western), "cp1252", min(0.99, max(0.0, 1 - western.chaos))
    return str(best), best.encoding, min(0.99, max(0.0, 1 - best.chaos))


_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def display_name(path: Path) -> str:
    """The file's name as text can hold it: bytes that are not UTF-8 (kept by Python as lone surrogates,
    which no UTF-8 text, hash or tokenizer takes) as U+FFFD, a line break or other control character as a
    space (a name with a newline broke the bundle's separator line). The path itself is left as it is."""
    name = Path(path).name.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    return _CONTROL.sub(" ", name)


_NOT_A_FILE = ((stat.S_ISFIFO, "a named pipe (FIFO)"), (stat.S_ISSOCK, "a socket"),
               (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"))


def load_document(path: str | Path) -> Document:
    path = Path(path)
    name = display_name(path)
    try:
        info = path.stat()
        if stat.S_ISDIR(info.st_mode):
            raise UnreadableDocument(f"{name} is a folder; drop the files inside it instead.")
        # Opening a FIFO waits for a writer, forever; a device never ends (/dev/zero): neither is read.
        kind = next((what for test, what in _NOT_A_FILE if test(info.st_mode)), None)
        if kind is not None or not stat.S_ISREG(info.st_mode):
            raise UnreadableDocument(f"{name} is {kind or 'not a regular file'}, not a document; save what it "
                                     "gives to a file and summarize that.")
        raw = _read_bounded(path, name)
    except OSError as exc:
        raise UnreadableDocument(f"{name} could not be read: {exc.strerror or exc}.") from exc
    return document_from_bytes(path, raw)


def _too_big(name: str, size: int) -> UnreadableDocument:
    return UnreadableDocument(f"{name} is {size / 2**20:.0f} MiB; Precis reads documents up to "
                              f"{MAX_DOCUMENT_BYTES // 2**20} MiB. Split it first.")


def _read_bounded(path: Path, name: str) -> bytes:
    """The file's bytes, never more than MAX_DOCUMENT_BYTES: a file that grows while it is read (a live
    log) is refused when it passes the limit, not read without end. O_NONBLOCK: a file swapped for a FIFO
    between the check and the open does not block the open."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    with os.fdopen(fd, "rb") as fh:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise UnreadableDocument(f"{name} is not a regular file, not a document; save what it gives to a "
                                     "file and summarize that.")
        size = os.fstat(fd).st_size
        if size > MAX_DOCUMENT_BYTES:
            raise _too_big(name, size)
        raw = fh.read(MAX_DOCUMENT_BYTES + 1)
    if len(raw) > MAX_DOCUMENT_BYTES:
        raise _too_big(name, len(raw))
    return raw


def document_from_bytes(path: Path, raw: bytes) -> Document:
    name, suffix = display_name(path), path.suffix.lower()
    if suffix == ".pdf":
        text, warnings = pdf_to_text(_nonblank(raw, name), name)
        return Document(path, _nonempty(text, name), "binary", "pdf", warnings)
    if suffix == ".docx":
        return Document(path, _nonempty(docx_to_text(_nonblank(raw, name), name), name), "binary", "word")
    if suffix == ".doc":
        raise UnreadableDocument(f"{name} is an old Word .doc file; save it as .docx or text first.")
    decoded = decode_document_bytes(raw, name)
    text, encoding, warnings = unix_newlines(decoded.text), decoded.encoding, decoded.warnings
    if suffix in (".html", ".htm", ".xhtml"):
        text, left_out = html_to_text(text)
        return Document(path, _nonempty(text, name), encoding, "html", warnings + left_out)
    if suffix in (".json", ".jsonl", ".ndjson"):
        text, kind, skipped = chat_export_to_text(text, name)
        return Document(path, _nonempty(text, name), encoding, kind, warnings + skipped)
    return Document(path, text, encoding, _text_kind(suffix, text), warnings)


def _nonblank(raw: bytes, name: str) -> bytes:
    if not raw or raw.isspace():
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
