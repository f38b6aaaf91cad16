"""Who a story's opening "He" or "She" is, asked of the model where code cannot tell.

A story's note is reworded from its sentence alone, and a sentence opening with "He" or "She" gives a note
nobody can place ("He rolled over and sat in the darkness thinking"): blind labellers counted such lines
unfaithful. Code names the pronoun where the paragraph's narration has named one person before it
(engine.summary.story_referents); else the paragraph names no one, or two. A reader then looks further back,
and so can the model: shown the story just before the sentence and the people named there as lettered
choices, the 1.5B model's answer is weighed, not sampled (as the second reading's), and taken only when it is
clearly likelier than every other choice and than "someone else". Measured on 99 such sentences of the five
development stories, labelled by blind readers (docs/quality.md, "Who "he" is, asked of the model";
bench.story_who_probe): at a margin of 1.0 in log-probability it names 36, every one rightly (tune stories 15,
check 21); at 0.5, 55 of 58; greedy, with no margin, 77 of 90. Below the margin the sentence stays as it was.
One the sentence itself names is no choice (before that rule: 33 named at 1.0, 32 rightly, greedy 70 of 91).

People are the names a story has act: written before a verb of the past ("Syme walked", "Maitland sighed") or
after a speech verb ("said Retief") more often than after a preposition ("on Venus", "to Europe"); a person
is "he" or "she" by the pronouns that follow the name in sentences naming no one else. A "He" is never asked
about one the story calls "she", nor the other way round.
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from precis.engine.prompts.story_who import SOMEONE_ELSE, who_messages
from precis.engine.summary.salience import sentences_of
from precis.engine.summary.story_referents import OPENING_PRONOUN, names_of, opening_referent, teller

WHO_MARGIN = 1.0                  # log-probability by which the answer must beat every other choice (measured)
PASSAGE_CHARS = 1_200             # of the story just before the sentence, shown with it (as measured)
NAMES_BACK_CHARS = 4_000          # how far back a person named counts as a choice
MAX_CHOICES = 4                   # the people last named before the sentence, nearest first
LINE_CUT_CHARS = 300              # the passage starts at a line's start when one is this near its cut

_SENTENCE_END = re.compile(r"(?<=[.!?])[\"”’]?\s+")
_QUOTED = re.compile(r'"[^"]*"|“[^”]*”')
_PAST = ("said|was|had|saw|felt|went|came|took|got|made|knew|thought|looked|turned|stood|sat|ran|began|told|"
         "asked|shook|grinned|nodded|smiled|sighed|laughed")
_ACTS = re.compile(rf"\b([A-Z][a-z]+)\s+(?:[a-z]+ed|{_PAST})\b")
_SPOKEN_BY = re.compile(r"\b(?:said|asked|replied|told|snapped|muttered)\s+([A-Z][a-z]+)\b")
_AFTER_PREPOSITION = re.compile(r"\b(?:in|on|to|at|from|of|into|onto|toward|towards|across|over|around|near|for|"
                                r"about|the)\s+([A-Z][a-z]+)\b")
_HE = re.compile(r"\b(?:he|him|his|himself)\b", re.I)
_SHE = re.compile(r"\b(?:she|her|hers|herself)\b", re.I)


@functools.lru_cache(maxsize=4)            # one story per run: read once, not per sentence
def people(text: str) -> dict[str, str | None]:
    """The story's people, each with "he", "she" or None (the pronouns after the name do not say)."""
    names = names_of(text)
    acts: dict[str, int] = {}
    for m in _ACTS.finditer(text):
        acts[m.group(1)] = acts.get(m.group(1), 0) + 1
    for m in _SPOKEN_BY.finditer(text):
        acts[m.group(1)] = acts.get(m.group(1), 0) + 2
    placed: dict[str, int] = {}
    for m in _AFTER_PREPOSITION.finditer(text):
        placed[m.group(1)] = placed.get(m.group(1), 0) + 1
    found = [n for n, count in acts.items() if names.is_name(n) and count > placed.get(n, 0)]
    pronouns = {n: [0, 0] for n in found}
    for sentence in _SENTENCE_END.split(text):
        named = [n for n in found if re.search(rf"\b{n}\b", sentence)]
        if len(named) != 1:
            continue
        after = _QUOTED.sub("", sentence[re.search(rf"\b{named[0]}\b", sentence).end():])
        pronouns[named[0]][0] += len(_HE.findall(after))
        pronouns[named[0]][1] += len(_SHE.findall(after))
    # one way clearly more than the other (twice, and by two): "Maitland" 24 to 2
    return {n: "he" if he >= 2 * she + 2 else "she" if she >= 2 * he + 2 else None
            for n, (he, she) in pronouns.items()}


def choices_for(text: str, start: int, end: int, pronoun: str) -> list[str]:
    """The people named in the NAMES_BACK_CHARS before the sentence ``text[start:end]``, nearest first, at most
    MAX_CHOICES, none the story calls by the other pronoun nor one the sentence itself names: "He darted a
    glance at Syme's darkly scowling face" is not Syme (a pronoun and a name in one sentence are two people, as
    story_referents reads "He was quite young, Tate saw"). Offered, the named one was the model's pick 9 times
    of the 99 labelled sentences, wrongly every time, once at a margin of 1.7."""
    cast = people(text)
    other = "she" if pronoun == "he" else "he"
    names = names_of(text)
    own = set(names.named_in(text[start:end]))
    found: list[str] = []
    for name in reversed(names.named_in(text[max(0, start - NAMES_BACK_CHARS):start])):
        if name in cast and cast[name] != other and name not in found and name not in own:
            found.append(name)
    return found[:MAX_CHOICES]


def passage_before(text: str, start: int) -> str:
    """The PASSAGE_CHARS before ``start``, from a line's start when one is near the cut."""
    passage = text[max(0, start - PASSAGE_CHARS):start]
    cut = passage.find("\n")
    if 0 <= cut < LINE_CUT_CHARS and start > PASSAGE_CHARS:
        passage = passage[cut + 1:]
    return passage.strip()


@dataclass(frozen=True)
class Answer:
    likeliest: str                 # the choice the model made likeliest ("someone else" among them)
    margin: float                  # by which it beat the next

    @property
    def name(self) -> str:
        """Who the pronoun is, where the model clearly said so; else ""."""
        return self.likeliest if self.likeliest != SOMEONE_ELSE and self.margin >= WHO_MARGIN else ""


def _question(text: str, start: int, end: int) -> tuple[str, list[str]] | None:
    """(the opening "He" or "She", the people to choose from) of the sentence ``text[start:end]``; None where
    there is nothing to ask (another opening, no one named before it)."""
    opening = OPENING_PRONOUN.match(text[start:end].strip())
    names = choices_for(text, start, end, opening.group(1).lower()) if opening else []
    return (opening.group(1), names) if names else None


def ask_opening_referent(ctx, text: str, start: int, end: int):
    """(Answer or None, CallResult or None) for the sentence ``text[start:end]`` opening with "He" or "She":
    None without a question to ask (another opening, no one named before it) or where the runtime cannot
    weigh answers."""
    question = _question(text, start, end)
    if question is None:
        return None, None
    pronoun, names = question
    messages, letters = who_messages(passage_before(text, start), text[start:end].strip(), pronoun, names)
    found, result = ctx.weigh(messages, letters)
    return (Answer(*likeliest(found, letters, names)) if found else None), result


def likeliest(found: dict[str, float], letters: list[str], names: list[str]) -> tuple[str, float]:
    """(the choice whose letter ``found`` weighs likeliest, "someone else" among them; the log-probability by
    which it beats the next) of a lettered question (engine.prompts.story_who.lettered). Also a report's "we"
    (engine.summary.voice)."""
    ranked = sorted(letters, key=found.get, reverse=True)
    return [*names, SOMEONE_ELSE][letters.index(ranked[0])], found[ranked[0]] - found[ranked[1]]


def named_opening(shown: str, who: str) -> str:
    """``shown`` with its opening "He" or "She" as ``who``."""
    return OPENING_PRONOUN.sub(who, shown, count=1) if who else shown


# The share is an estimate for the plan's time: read over a whole 1.1M-character text it took 4.9 s (1.7 s of
# it finding the sentences), minutes for the 60M-character documents the plan is measured on (bench/
# plan_large.py). A longer text is read in QUESTION_SAMPLES stretches spread over it, line to line,
# QUESTION_SAMPLE_CHARS in all.
QUESTION_SAMPLE_CHARS = 200_000
QUESTION_SAMPLES = 8


def question_sample(text: str) -> str:
    """``text``, or for a longer one QUESTION_SAMPLES stretches of it, evenly spread, each from a line's start
    to a line's end, joined as paragraphs."""
    if len(text) <= QUESTION_SAMPLE_CHARS:
        return text
    size = QUESTION_SAMPLE_CHARS // QUESTION_SAMPLES
    stretches = []
    for i in range(QUESTION_SAMPLES):
        at = (len(text) - size) * i // (QUESTION_SAMPLES - 1)
        piece = text[at:at + size]
        if at:
            piece = piece[piece.find("\n") + 1:]          # from a line's start, to a line's end
        end = piece.rfind("\n")
        stretches.append(piece[:end] if end > 0 else piece)
    return "\n\n".join(stretches)


def question_share(text: str) -> float:
    """The share of ``text``'s sentences the notes strategy would ask who their opening "He" or "She" is:
    narration (no transcript speaker, not inside a quotation its tag names) that code cannot name and that has
    someone named before it to choose; read over the whole text as the run reads each part's, or over a
    sample of a long one (``question_sample``). 0 for a transcript or Japanese. For the plan's time (the five
    development stories: 1-16% of their sentences; a question is engine.planning.summary_length.
    WHO_PROMPT_TOKENS evaluated)."""
    return _share_asked(question_sample(text))


@functools.lru_cache(maxsize=4)            # the plan is shown again as settings move: read each text once
def _share_asked(text: str) -> float:
    sentences = sentences_of(text)
    spans = [(s.start, s.start + len(s.text)) for s in sentences if not s.speaker and not s.turns]
    asked = sum(1 for start, end in spans if _question(text, start, end)         # cheap test first
                and not teller(text, start, end) and not opening_referent(text, start, end))
    return asked / len(sentences) if sentences else 0.0
