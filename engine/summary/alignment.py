"""Evidence after writing: each sentence the model wrote, linked to the sentences of the part it rests on.

The account's model reads a whole part and says what happens in it; nothing it writes carries a quote. Code
finds the quotes afterwards: every sentence of the part is scored by the words and numbers it shares with
what was written, each shared unit weighted by how rare it is in the part (a name said in every line of a
meeting ties a written line to no sentence in particular), and up to MAX_REFERENCES sentences are taken
greedily, each for the units the ones before it did not hold. The references are what the window and the
summary file show under the sentence; how much of the written sentence they hold is what the support check
reads (engine.summary.checks).

Units are content words (stemmed as engine.summary.evidence stems them), numbers, and for Japanese the
character bigrams; a present-tense line ("Maitland wakes") shares fewer words with past-tense narrative
("Maitland woke") than a copied one would, so the thresholds that read these figures are lenient on purpose.
"""
from __future__ import annotations

import bisect
import math
import re
from dataclasses import dataclass

from precis.engine.documents.spoken_text import SPEAKER_PREFIX, TITLE_STOP, speaker_name, speaker_of
from precis.engine.documents.wrapped_lines import unwrapped
from precis.engine.summary.evidence import cjk_bigrams, content_words

MAX_REFERENCES = 3
MIN_SENTENCE_CHARS = 8
MIN_TURNS = 3                   # labelled lines, of two speakers at least, that make a part a transcript
# A sentence as the document has it: up to its full stop (not one inside "3.5" or "Mr. Jones"), or its line
_SENTENCE = re.compile(rf"(?:[^.!?。！？\n]|\.(?=[\w)])|{TITLE_STOP}){{1,600}}[.!?。！？]*[\"”’」)]?")
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_LINE_LABEL = re.compile(SPEAKER_PREFIX.pattern.replace("^\\s*", "^", 1), re.M)   # a turn's label at a line's start


@dataclass(frozen=True)
class SourceSentence:
    start: int          # offset in the part
    end: int
    text: str
    speaker: str = ""   # who says it, in a transcript: the label of the turn it is in ("Industrial Designer")


@dataclass(frozen=True)
class Alignment:
    references: tuple[SourceSentence, ...]   # in the part's order
    held_share: float                        # share of the written sentence's units the references hold
    part_share: float                        # ... that the whole part holds
    units: int                               # the written sentence's units

    @property
    def quotes(self) -> str:
        return " ".join(s.text for s in self.references)


def source_sentences(part: str) -> list[SourceSentence]:
    """The part's sentences with their offsets (a hard-wrapped story's line breaks read as spaces), each with
    the speaker of the turn it is in where the part is a transcript."""
    text = unwrapped(part)
    labels = turn_labels(part)
    found = []
    for m in _SENTENCE.finditer(text):
        raw = m.group(0)
        body = raw.strip()
        if len(body) < MIN_SENTENCE_CHARS or not any(c.isalnum() for c in body):
            continue
        start = m.start() + raw.index(body)
        at = bisect.bisect_right(labels, (start, "\uffff")) - 1
        found.append(SourceSentence(start, start + len(body), part[start:start + len(body)],
                                    labels[at][1] if at >= 0 else ""))
    return found


def turn_labels(part: str) -> list[tuple[int, str]]:
    """(offset, speaker) of each turn's label in a transcript part, in order; none where the part is not a
    transcript (fewer than MIN_TURNS labelled lines, or one speaker)."""
    labels = [(m.start(), speaker_name(speaker_of(m.group(0)))) for m in _LINE_LABEL.finditer(part)]
    if len(labels) < MIN_TURNS or len({name for _, name in labels}) < 2:
        return []               # a story's "Chapter 1: ..." or a log's "Note: ..." is not a transcript
    return labels


def said_units(sentence: SourceSentence) -> set[str]:
    """What the sentence says, its speaker's label left out: "Industrial Designer: Yeah." says nothing, and
    the label's words tied every line naming a speaker to that speaker's backchannels (a development meeting:
    "Industrial Designer explains the technical specifications" rested on "Industrial Designer: Yeah .")."""
    if not sentence.speaker:
        return units(sentence.text)
    # a label alone ("Project Manager:" of a turn with nothing said) says nothing either
    return units(SPEAKER_PREFIX.sub("", sentence.text + " ", count=1))


def units(text: str) -> set[str]:
    """What a sentence says, as comparable units: content words and numbers; Japanese character bigrams."""
    found = content_words(text) | {"#" + n.replace(",", "") for n in _NUMBER.findall(text)}
    return found | cjk_bigrams(text)


class PartIndex:
    """A part's sentences and how rare each unit is among them, built once per part."""

    def __init__(self, part: str) -> None:
        self.part = part
        self.sentences = source_sentences(part)
        self.sentence_units = [said_units(s) for s in self.sentences]
        # who says a sentence holds a line's naming of them ("Marketing proposes ..."), but ties the line to no
        # sentence in particular: held, never chosen by
        self.speaker_units = {s.speaker: units(s.speaker) for s in self.sentences if s.speaker}
        self.all_units = set().union(*self.sentence_units, *self.speaker_units.values()) if self.sentences \
            else set()
        counts: dict[str, int] = {}
        for found in self.sentence_units:
            for u in found:
                counts[u] = counts.get(u, 0) + 1
        n = max(1, len(self.sentences))
        self.weight = {u: math.log(1 + n / c) for u, c in counts.items()}

    def align(self, written: str) -> Alignment:
        wanted = units(written)
        if not wanted:
            return Alignment((), 0.0, 0.0, 0)
        covered: set[str] = set()
        chosen: list[int] = []
        for _ in range(MAX_REFERENCES):
            best, best_gain = -1, 0.0
            for i, found in enumerate(self.sentence_units):
                if i in chosen:
                    continue
                gain = math.fsum(self.weight[u] for u in (found & wanted) - covered)    # order-free: see salience
                if gain > best_gain:
                    best, best_gain = i, gain
            # a further reference must add a unit that is not in every other sentence
            if best < 0 or (chosen and best_gain < 1.0):
                break
            chosen.append(best)
            covered |= self.sentence_units[best] & wanted
        for i in chosen:
            covered |= self.speaker_units.get(self.sentences[i].speaker, set()) & wanted
        references = tuple(self.sentences[i] for i in sorted(chosen))
        return Alignment(references, len(covered) / len(wanted), len(wanted & self.all_units) / len(wanted),
                         len(wanted))
