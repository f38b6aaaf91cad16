"""Several dropped files: load each on its own (one bad file loses nothing else), then either join
them into one ordered bundle with clear separators or keep them as separate documents."""
from __future__ import annotations

import bisect
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Iterable

from precis.engine.documents.loading import Document, load_document
from precis.engine.errors import UnreadableDocument

TEXT_SUFFIXES = {".txt", ".md", ".markdown", ".log", ".csv", ".tsv", ".html", ".htm", ".xhtml", ".pdf", ".docx",
                 ".json", ".jsonl", ".ndjson", ".text", ".srt", ".vtt"}


@dataclass
class LoadedDocuments:
    documents: list[Document] = field(default_factory=list)
    errors: list[tuple[Path, str]] = field(default_factory=list)   # (file, what went wrong and what to do)
    skipped: list[Path] = field(default_factory=list)               # files in folders of a type Precis skips


def expand_paths(paths: Iterable[Path], skipped: list[Path] | None = None) -> list[Path]:
    """Files as given; a folder becomes its readable-looking files, sorted by name (hidden ones skipped).
    Files of other types found in folders are added to ``skipped``, so they can be named, not lost. An entry
    with a document's name that is no regular file (a FIFO, a broken or looping link) is kept, for reading
    to refuse by name: dropped here, it was lost in silence."""
    out: list[Path] = []
    for path in map(Path, paths):
        if path.is_dir():
            for p in sorted(path.rglob("*")):
                if p.is_dir() or any(part.startswith(".") for part in p.relative_to(path).parts):
                    continue
                if p.suffix.lower() in TEXT_SUFFIXES:
                    out.append(p)
                elif skipped is not None:
                    skipped.append(p)
        else:
            out.append(path)
    return out


def load_documents(paths: Iterable[Path]) -> LoadedDocuments:
    loaded = LoadedDocuments()
    for path in expand_paths(paths, loaded.skipped):
        try:
            loaded.documents.append(load_document(path))
        except UnreadableDocument as exc:
            loaded.errors.append((path, str(exc)))
    return loaded


@dataclass(frozen=True)
class Part:
    """Where one file's text sits inside a bundle."""
    name: str
    start_char: int      # first character of the file's own text (after its separator)
    end_char: int


@dataclass(frozen=True)
class Bundle:
    text: str
    parts: tuple[Part, ...]
    name: str

    @property
    def chars(self) -> int:
        return len(self.text)

    def locate(self, char: int) -> tuple[str, int]:
        """(file name, offset in that file's text) of a bundle offset; separators map to their file's start."""
        starts = [p.start_char for p in self.parts]
        i = max(0, bisect.bisect_right(starts, char) - 1)
        part = self.parts[i]
        return part.name, max(0, min(char, part.end_char) - part.start_char)


def separator(doc: Document) -> str:
    try:
        day = datetime.fromtimestamp(doc.path.stat().st_mtime).strftime("%Y-%m-%d")
    except OSError:
        day = "date unknown"
    return f"===== {doc.name} · {doc.kind} · {day} =====\n"


def summary_texts(documents: list[Document], per_file: bool) -> list[tuple[str, str, tuple[Part, ...]]]:
    """(name, text, parts) of each summary to make: one per file, or one bundle in order."""
    if per_file:
        return [(d.name, d.text, ()) for d in documents]
    b = bundle_documents(documents)
    return [(b.name, b.text, b.parts)]


def bundle_documents(documents: list[Document]) -> Bundle:
    """One text, in the given order. A single document stays as it is (offsets match the file)."""
    if len(documents) == 1:
        doc = documents[0]
        return Bundle(doc.text, (Part(doc.name, 0, len(doc.text)),), doc.name)
    pieces, parts, pos = [], [], 0
    for doc in documents:
        head = ("\n" if pieces and not pieces[-1].endswith("\n") else "") + ("\n" if pieces else "") + separator(doc)
        pieces.append(head)
        pos += len(head)
        pieces.append(doc.text)
        parts.append(Part(doc.name, pos, pos + len(doc.text)))
        pos += len(doc.text)
    return Bundle("".join(pieces), tuple(parts), f"bundle of {len(documents)} files")
