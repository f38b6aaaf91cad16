"""The names a document has given so far: who can open a line of the account.

The account's model is shown them with each part, and its lines may open only with one of them or a noun
phrase (engine.prompts.account), so it says "Maitland" and "Industrial Designer" where a line lifted from the
text says "he" or "I". Found by code: the speakers of a transcript's labels, and the capitalised words and
two-word names (not a usual first word; where a sentence starts, only a word the text never writes in lower
case) the text uses at least MIN_MENTIONS times, the most used first.
"""
from __future__ import annotations

import re
from collections import Counter

from precis.engine.documents.spoken_text import SPEAKER_PREFIX, speaker_name, speaker_of

MIN_MENTIONS = 2
MAX_SPEAKERS = 12
MAX_NAMES = 16
_NOT_NAMES = set("""The A An And But Or If When Then So He She They It I You We His Her Their Its My Our Your This
That These Those There Here What Why How Who Where Yes No Not Oh Well Now Just Mr Mrs Ms Dr Okay Yeah Right Um Uh
After Before While As At In On Of For With From By To Meanwhile Later Finally First Next Also Both Each Every All
Some Any Maybe Perhaps Sure Thank Thanks Hello Hi Good Great Let Please Do Does Did Is Are Was Were Have Has Had
Can Could Would Should Will Shall May Might Must Don Didn Isn Wasn Aren Sorry Well Anyway Actually Alright However
Although Though Still Yet Instead Suddenly Again Even Only Never Always Once Soon Today Tomorrow Yesterday Because
Since Until Unless Whether Outside Inside Above Below Under Over Through During Without Within Across Behind Beyond
Besides Otherwise Indeed Certainly Probably Chapter Part Section Slide Page Table Figure Note""".split())
_SENTENCE_START = re.compile(r"(?:^|[.!?]['\"”’)]?\s+|\n\s*|[\"“‘(]\s*)([A-Z][a-z]+)")
_NAMES = (re.compile(r"\b[A-Z][a-z]{2,} [A-Z][a-z]{2,}\b"), re.compile(r"\b[A-Z][a-z]{2,}\b"))


def speakers_of(text: str) -> Counter:
    found: Counter = Counter()
    for line in text.split("\n"):
        label = SPEAKER_PREFIX.match(line)
        if label:
            found[speaker_name(speaker_of(label.group(0)))] += 1
    return found


def names_met(text: str) -> list[str]:
    """The speakers (the most frequent first) and the recurring names of ``text``."""
    speakers = speakers_of(text)
    starts = {m.start(1) for m in _SENTENCE_START.finditer(text)}
    counts: Counter = Counter()
    lowercase = set(re.findall(r"\b[a-z][a-z']+\b", text))
    inside: set[int] = set()                 # where two-word names start words: no names alone there
    for pattern in _NAMES:                   # "Conagra Brands", and "Conagra" said alone
        for m in pattern.finditer(text):
            name = m.group(0)
            if " " not in name and m.start() in inside:
                continue
            if " " in name:
                inside |= {m.start(), m.start() + name.index(" ") + 1}
            if name.split()[0] in _NOT_NAMES or name in speakers:
                continue
            # where a sentence starts, a capital says nothing, unless the word is never written in lower case
            # ("Maitland stirred ...": a story's hero is often named first in the sentence)
            if m.start() in starts and name.split()[0].lower() in lowercase:
                continue
            counts[name] += 1
    names = [s for s, c in speakers.most_common(MAX_SPEAKERS) if c >= MIN_MENTIONS and len(s) <= 60]
    for name, c in counts.most_common():
        if c < MIN_MENTIONS or len(names) >= MAX_SPEAKERS + MAX_NAMES:
            break
        if name not in names:
            names.append(name)
    return names
