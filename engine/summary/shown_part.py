"""A part as the account's model is shown it, and the way back from what it was shown to the document.

Most parts are shown as the document has them. A chat transcript's part is shown as its people's own words
only (engine.documents.transcript_turns: no tool call or tool output, no slash command's prompt, no fenced
code), each piece under its speaker's role ("[assistant] ..."; a Japanese account's "[アシスタント] ...", the
words its lines open with), so the model reads what was said and who said it, and a part of tool output costs
no prompt tokens. Every piece keeps its offset in the document, so a sentence the model's line is linked to is
found where the document has it.
"""
from __future__ import annotations

import bisect
from dataclasses import dataclass

from precis.engine.documents.transcript_turns import prose_spans, turns


@dataclass(frozen=True)
class ShownPart:
    text: str
    # (offset in text, offset in the document, length) of each piece, in order
    pieces: tuple[tuple[int, int, int], ...]

    def document_offset(self, shown: int) -> int:
        """The document offset of ``shown`` (an offset in ``text``); one in the label and line break between two
        pieces is the next piece's start (a sentence found there starts with the next speaker's label)."""
        starts = [p[0] for p in self.pieces]
        i = max(0, bisect.bisect_right(starts, shown) - 1)
        at, doc, length = self.pieces[i]
        if shown >= at + length and i + 1 < len(self.pieces):
            return self.pieces[i + 1][1]
        return doc + min(max(0, shown - at), length)


class PartsShown:
    """The parts of one document as the model is shown them (the transcript's turns read once)."""

    def __init__(self, document: str, labels: dict[str, str] | None = None) -> None:
        self.document = document
        self.labels = labels or {}          # a role as it is shown ("user": "ユーザー"), where not as written
        self.spans = prose_spans(document)
        self.turns = turns(document) if self.spans is not None else []
        self._turn_starts = [t.body_start for t in self.turns]

    def role_at(self, offset: int) -> str:
        i = bisect.bisect_right(self._turn_starts, offset) - 1
        return self.turns[i].role if i >= 0 else ""

    def part(self, start: int, end: int) -> ShownPart:
        """``document[start:end]`` as the model is shown it (see the module's docstring)."""
        if self.spans is None:
            return ShownPart(self.document[start:end], ((0, start, end - start),))
        pieces: list[tuple[int, int, int]] = []
        out: list[str] = []
        at, last_role = 0, None
        for a, b in self.spans.spans:
            a, b = max(a, start), min(b, end)
            if a >= b or not self.document[a:b].strip():
                continue
            role = self.role_at(a)
            label = f"[{self.labels.get(role, role)}] " if role != last_role else ""
            body = self.document[a:b].rstrip("\n")
            out.append(("\n" if out else "") + label)
            at += len(out[-1])
            pieces.append((at, a, len(body)))
            out.append(body)
            at += len(body)
            last_role = role
        if not pieces:
            return ShownPart("", ((0, start, 0),))
        return ShownPart("".join(out), tuple(pieces))
