"""Who a report's "we" is, so that a note of it does not open with "We" or "Our" nobody can place.

An earnings call, a company's report or a press release speaks as "we" throughout: of the notes of the five
development earnings calls, 10 opened with "We ..." or "Our ..." ("We upgraded our Tier four dual fuel
fleet"), a line a reader of the summary alone cannot place, and blind readers faulted two of the three check
calls' summaries for never naming the company. Code cannot tell which of a report's names is its "we" (the company's
name is not always the one said most: "Slide" and "COVID" outnumber "Conagra"); the model can, shown where the
text says "we" beside those names and the names as lettered choices, its answer weighed (as engine.summary.
story_who weighs who a story's "he" is) and taken only when it clearly beats every other choice and "someone
else". Then code says the note in that name: "NOV upgraded its Tier four dual fuel fleet", "Dollar General's
net sales increased 17.6%". Only prose that tells no story (a story's "we" is its narrators, who change) and
only in English (the check that finds such an opening is English).
"""
from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from precis.engine.documents.document_kind import PROSE, document_kind, is_narrative
from precis.engine.prompts.story_who import SOMEONE_ELSE
from precis.engine.prompts.voice import voice_messages
from precis.engine.summary.story_who import likeliest

VOICE_MARGIN = 1.0                 # log-probability by which the answer must beat every other choice
MIN_NAME_COUNT = 3                 # a name the text says at least this often is a choice
MAX_CHOICES = 5                    # the names said most
PASSAGE_CHARS = 1_200              # of the text's sentences that say "we" beside a choice, in its order

WE_OPENING = re.compile(r"^(?:We(?:'re|’re|'ve|’ve|'ll|’ll|'d|’d)?|Our)\b")
_NAME_RUN = re.compile(r"\b[A-Z][A-Za-z0-9&]*(?:[ ][A-Z][A-Za-z0-9&]*)*")
_ASKED = frozenset({"We", "Our", "Us", "Ours", "Ourselves"})     # what the question is about, never an answer
_WE = re.compile(r"\b(?:we|our|us)\b", re.I)
_SENTENCE = re.compile(r"[^.!?\n]+[.!?]?")


def voice_choices(text: str) -> list[str]:
    """The names ``text`` says at least MIN_NAME_COUNT times, most said first, at most MAX_CHOICES: runs of up
    to three capitalised words ("Dollar General", "NOV", "B&I") that the text never writes in lower case (a
    sentence's opening "The", "Turning", "Dollar" of "dollar sales"), no single letter ("I", "U" of "U.S."),
    no "We" or "Our" (what is asked),
    and no shorter name said no more often than a longer one holding it ("General" of "Dollar General")."""
    counts: Counter[str] = Counter()
    for m in _NAME_RUN.finditer(text):
        words = m.group(0).split()
        for i in range(len(words)):
            for j in range(i + 1, min(len(words), i + 3) + 1):
                counts[" ".join(words[i:j])] += 1
    named = {name: n for name, n in counts.items() if n >= MIN_NAME_COUNT and len(name) > 1
             and name.split()[0] not in _ASKED and not re.search(rf"\b{re.escape(name.lower())}\b", text)}
    kept = [name for name, n in named.items()
            if not any(name != other and re.search(rf"\b{re.escape(name)}\b", other) and named[other] >= n
                       for other in named)]
    return sorted(kept, key=lambda name: -named[name])[:MAX_CHOICES]


def voice_passage(text: str, names: list[str]) -> str:
    """The text's sentences that say "we", "our" or "us" and one of ``names``, in the text's order, up to
    PASSAGE_CHARS; the text's opening where they are fewer."""
    held, chars = [], 0
    for m in _SENTENCE.finditer(text):
        sentence = m.group(0).strip()
        if _WE.search(sentence) and any(re.search(rf"\b{re.escape(n)}\b", sentence) for n in names):
            if chars + len(sentence) > PASSAGE_CHARS:
                break
            held.append(sentence)
            chars += len(sentence) + 1
    passage = " ".join(held)
    if len(passage) < PASSAGE_CHARS // 2:
        passage = (passage + "\n" + text[:PASSAGE_CHARS - len(passage)]).strip()
    return passage


def speaks_as_we(text: str, language: str | None) -> bool:
    """Whether ``text`` is English prose that tells no story: a report, a call, an article."""
    english = language is None or language.strip().lower() in ("en", "english")
    return english and document_kind(text).name == PROSE and not is_narrative(text)


@dataclass(frozen=True)
class VoiceAnswer:
    likeliest: str                 # the choice the model made likeliest ("someone else" among them)
    margin: float                  # by which it beat the next
    choices: tuple[str, ...]

    @property
    def name(self) -> str:
        """Whom "we" stands for, where the model clearly said so; else ""."""
        return self.likeliest if self.likeliest != SOMEONE_ELSE and self.margin >= VOICE_MARGIN else ""


def ask_voice(ctx, text: str):
    """(VoiceAnswer or None, the weighing's CallResult or None) for whom ``text``'s "we" stands: None where
    it names nothing said often enough or the runtime cannot weigh answers."""
    names = voice_choices(text)
    if not names:
        return None, None
    messages, letters = voice_messages(voice_passage(text, names), names)
    found, result = ctx.weigh(messages, letters)
    return (VoiceAnswer(*likeliest(found, letters, names), tuple(names)) if found else None), result


# A verb after "We" said of one company: "we expect" -> "expects"; one of the past or a modal stays
_MODAL_OR_PAST = frozenset("will would can could should may might must shall did had was were made saw grew took "
                           "began won sold built brought bought spent kept led met paid put set cut felt found got "
                           "gave went came said told thought held ran became left lost".split())
_IRREGULAR = {"are": "is", "have": "has", "do": "does", "go": "goes", "were": "was"}
_ADVERB = frozenset("also now still then already further again even just only all both once first".split())
_COMPOUND = re.compile(r"\b(and|but|or) (are|were|have|do)\b")
_CONTRACTION = {"re": "is", "ve": "has", "ll": "will", "d": "would"}


def _third_person(verb: str) -> str:
    lower = verb.lower()
    if lower in _IRREGULAR:
        return _IRREGULAR[lower]
    if lower in _MODAL_OR_PAST or lower.endswith("ed") or not lower.isalpha():
        return verb
    if lower.endswith(("s", "sh", "ch", "x", "z", "o")):
        return verb + "es"
    if lower.endswith("y") and len(lower) > 1 and lower[-2] not in "aeiou":
        return verb[:-1] + "ies"
    return verb + "s"


def in_voice(point: str, name: str) -> str:
    """``point`` with its opening "We ..." or "Our ..." said of ``name``: "We expect ..." -> "NOV expects ...",
    "We're ..." -> "NOV is ...", "Our margin ..." -> "NOV's margin ...", and the sentence's later "our" as
    "its"; as it is without a name or such an opening."""
    opening = WE_OPENING.match(point)
    if not name or not opening:
        return point
    rest = point[opening.end():]
    if opening.group(0) == "Our":
        said = f"{name}'{'' if name.endswith('s') else 's'}{rest}"          # "NOV's", "Harwick Tools'"
    elif len(opening.group(0)) > 2:                     # "We're", "We've", "We'll", "We'd"
        said = f"{name} {_CONTRACTION[opening.group(0)[3:]]}{rest}"
    else:
        words = rest.split(" ")
        at = 1                                           # words[0] is "" (the space after "We")
        while at < len(words) and (words[at].lower() in _ADVERB or words[at].lower().endswith("ly")):
            at += 1
        if at < len(words):
            words[at] = _third_person(words[at])
        # a second verb of the same "we": "anticipated challenges but were impacted" (a development call's note)
        said = _COMPOUND.sub(lambda m: f"{m.group(1)} {_IRREGULAR[m.group(2)]}", name + " ".join(words))
    return re.sub(r"\bour\b", "its", said)
