"""The words a chosen sentence follows in its document, shown beside it when the model says it as a note.

Said alone, a sentence loses what it points back to: "He'd thought so when they'd first hit Mars" became "He
thought Mars was a waste of time" (the "so" is the sentence before); a meeting's "It stays, we agreed on that"
says nothing of what stays. The model is shown the words just before the sentence, to tell who "he" and "it"
are and what a reply answers; the note's checks still hold it to the sentence itself.
"""
from __future__ import annotations

import re

from precis.engine.documents.spoken_text import clean_utterance

BEFORE_CHARS = 240           # about one or two sentences, or a meeting's previous turn or two
RAW_CHARS = 4 * BEFORE_CHARS  # read back this far: a transcript's fillers and empty turns go before counting

_SPEAKER_LINE = re.compile(r"^(?:\[[^\]\n]{1,12}\]\s*)?[A-Z][^\n:.!?]{0,40}:\s")   # "Marketing: ...", "[09:07] Orin: ..."
_LABEL_ONLY = re.compile(r"^(?:\[[^\]\n]{1,12}\]\s*)?[A-Z][^\n:.!?]{0,40}:\s*[.?!]?\s*$")
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"”’']?\s+")


def _said_pieces(text: str) -> list[tuple[int, str, str]]:
    """``text`` as the sentences a reader would see, each with its turn's number and speaker label ("" in
    prose): a paragraph's hard-wrapped lines joined, each transcript turn apart and cleaned of fillers, turns
    with nothing said left out. A turn's first sentence holds its label."""
    pieces: list[tuple[int, str, str]] = []
    turn_number = 0
    for paragraph in re.split(r"\n\s*\n", text):
        turns: list[str] = []
        for line in paragraph.splitlines():
            if turns and not _SPEAKER_LINE.match(line):
                turns[-1] += " " + line
            else:
                turns.append(line)
        for turn in turns:
            said = clean_utterance(" ".join(turn.split()))
            if not said or _LABEL_ONLY.match(said):
                continue
            turn_number += 1
            label = _SPEAKER_LINE.match(said)
            pieces.extend((turn_number, label.group(0) if label else "", sentence)
                          for sentence in _SENTENCE_END.split(said) if sentence)
    return pieces


def words_before(document: str, start: int, max_chars: int = BEFORE_CHARS) -> str:
    """The whole sentences of ``document`` just before ``start``, at most ``max_chars`` of them as said (the
    last words after "…" when the one sentence before is longer), on one line; a turn's sentence shown without
    its turn's first one keeps the speaker's label."""
    begin = max(0, start - RAW_CHARS)
    pieces = _said_pieces(document[begin:start])
    if begin > 0 and pieces:
        pieces = pieces[1:]                  # the first may be cut by the window
    kept: list[tuple[int, str, str]] = []
    for turn, label, sentence in reversed(pieces):
        if sum(len(k[2]) + 1 for k in kept) + len(sentence) > max_chars:
            if not kept:
                tail = sentence[-max_chars:]
                if " " in tail:
                    kept.append((turn, label, "…" + tail[tail.find(" ") + 1:]))
            break
        kept.append((turn, label, sentence))
    kept.reverse()
    said, shown_turn = [], None
    for turn, label, sentence in kept:
        if label and turn != shown_turn and not sentence.startswith(label):
            sentence = label + sentence.lstrip("…")
        said.append(sentence)
        shown_turn = turn
    return " ".join(said)
