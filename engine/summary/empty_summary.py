"""A document with sentences never ends with an empty summary in silence (issue 40).

A short Japanese minutes note once finished with exit 0, its summary file only a heading: no sentence had
been worth noting. Whatever the cause, a run that ends so keeps the document's sentences as written in
its summary, says so there and in the run's message, and fails (engine.runs.run), so that no one files an
empty summary as done.
"""
from __future__ import annotations

import re

from precis.engine.documents.spoken_text import FILLER_ONLY
from precis.engine.summary.noise import substantive_text

# Any run of text that ends a sentence or a line: here every sentence counts, however short (the sentence
# rules of engine.summary.salience, which judge what is worth noting, are what may have chosen none).
_SENTENCE = re.compile(r"[^.!?。！？\n]+(?:[.!?。！？]+|$)", re.M)
_LIST_MARKER = re.compile(r"^\s*(?:[-*•・]|\d{1,2}[.)]|#{1,6})\s+")
MIN_LETTERS = 3                  # "OK." or "---" is no sentence to keep


def plain_sentences(text: str) -> list[str]:
    """The sentences of ``text`` that say something: not log or tool lines, fillers or rules."""
    found = []
    for m in _SENTENCE.finditer(substantive_text(text)):
        sentence = _LIST_MARKER.sub("", m.group(0)).strip()
        if sum(c.isalpha() for c in sentence) >= MIN_LETTERS and not FILLER_ONLY.match(sentence):
            found.append(sentence)
    return found


def kept_sentences_summary(name: str, sentences: list[str], max_chars: int) -> str:
    """The summary of a document whose summary came out empty: a notice, then its sentences as written,
    in order, up to ``max_chars`` (at least one)."""
    kept, used = [], 0
    for sentence in sentences:
        if kept and used + len(sentence) > max_chars:
            break
        kept.append(sentence)
        used += len(sentence)
    more = f" (the first {len(kept)} of {len(sentences)})" if len(kept) < len(sentences) else ""
    notice = (f"> No summary could be made of {name}: no sentence of it was noted. Its sentences are kept "
              f"below as written{more}. This is a fault of Precis; please report it.")
    return "\n".join([notice, "", *(f"- {s}" for s in kept)])


def empty_message(names: list[str]) -> str:
    return (f"The summary of {', '.join(names)} came out empty although the document has sentences; they are kept "
            "in the summary as written. This is a fault of Precis; please report it.")
