"""Whether a summary reads as a summary: counts a reader notices, deterministic, no model.

The issue's complaint about the notes strategy on unseen stories and meetings was not its recall but its
sentences: "I yelled and ran after him.", "You can say what you think now ...", "He thought Mars was a waste of
time", a section headed "Parts 2 to 3". Each count is of the summary's body sentences (references, headings
and list marks left aside), so zero is the goal for every one:

- questions: sentences that end with a question mark;
- first_second_person: sentences that open, outside a quote, with I / we / you (or me, my, our, your ...):
  a line lifted from a character's or a speaker's mouth;
- pronoun_openers: sentences that open with he / she / they / his / her / their / it ... when the sentence
  before them (in the same paragraph) names no one: nobody can tell who is meant (an "it" that stands for
  nothing, "It seemed obvious that ...", is not counted);
- part_headings: headings that only name parts ("Parts 2 to 3", "Part 4", "パート 2〜3").

Japanese has no such openers to count; only questions and part headings are counted there.
"""
from __future__ import annotations

import re

_REFS = re.compile(r"\s*\[\d{1,5}(?:, ?\d{1,5})*\]")
_HEADING = re.compile(r"^\s*#{1,6}\s+(.*)$")
_PART_HEADING = re.compile(r"^(?:parts?|sections?|chunks?|パート|部分)\s*\d+(?:\s*(?:to|-|–|〜|~|and)\s*\d+)?$", re.I)
_LIST = re.compile(r"^\s*(?:[-*•]|\d{1,2}[.)])\s+")
_SENTENCE = re.compile(r"[^.!?。！？]+(?:[.!?。！？]+[\"”’)]?|$)")
_FIRST_SECOND = re.compile(r"^(?:i|i'm|i'd|i've|i'll|me|my|mine|we|we're|we'd|we've|we'll|us|our|ours|you|you're|"
                           r"you'd|you've|you'll|your|yours)\b", re.I)
_PRONOUN = re.compile(r"^(?:he|she|they|him|his|her|hers|them|their|theirs|it|its|this|these|those)\b", re.I)
# "It" that stands for no one and nothing, the clause after it being the subject ("It seemed obvious that men
# could reach the planets", "It was ten minutes before he saw movement", "It's important to note that ..."): no
# reader looks back for what it means. Not "It is a remote that ..." (a thing, named by what follows a
# determiner) nor "It's easy to use" (the product is "it").
_EXPLETIVE_IT = re.compile(r"^it(?:'s|’s| is| was| seems| seemed| appears| appeared)\s+"
                           r"(?:(?!(?:a|an|the|this|that|his|her|their|its|our|my|your)\b)[\w'’-]+,?\s+){0,3}?"
                           r"(?:that|before|until|when|whether)\b", re.I)
_QUOTE_OPEN = re.compile(r"^[\"“‘'「『]")
# A name: a capitalised word that is not a sentence's usual first word nor a pronoun
_NOT_NAMES = set("""The A An And But Or If When Then So He She They It I You We His Her Their Its My Our Your This
That These Those There Here What Why How Who Where Yes No Not Oh Well Now Just After Before While As At In On
Of For With From By To Meanwhile Later Finally First Next Also Both Each Every All Some""".split())
_CAPITALISED = re.compile(r"\b[A-Z][\w'’-]+")


def _is_japanese(text: str) -> bool:
    cjk = sum(1 for c in text if "\u3040" <= c <= "\u9fff")
    return cjk > 0.2 * max(1, sum(1 for c in text if c.isalpha()))


def body_paragraphs(summary: str) -> tuple[list[list[str]], list[str]]:
    """(the body's paragraphs, each a list of sentences; the headings' texts). A list item is a paragraph
    of its own: a bullet does not follow on from the one above it."""
    paragraphs: list[list[str]] = []
    headings: list[str] = []
    current: list[str] = []
    for raw in summary.splitlines():
        line = _REFS.sub("", raw).strip()
        heading = _HEADING.match(line)
        if not line or heading or _LIST.match(line):
            if current:
                paragraphs.append(current)
            current = []
            if heading:
                headings.append(heading.group(1).strip())
            elif line:
                paragraphs.append(_sentences(_LIST.sub("", line)))
            continue
        current += _sentences(line)
    if current:
        paragraphs.append(current)
    return [p for p in paragraphs if p], headings


def _sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE.findall(text) if s.strip() and any(c.isalnum() for c in s)]


def names_someone(sentence: str) -> bool:
    """The sentence holds a name (a capitalised word other than a usual first word or a pronoun)."""
    return any(w not in _NOT_NAMES for w in _CAPITALISED.findall(sentence))


def reading_counts(summary: str) -> dict:
    paragraphs, headings = body_paragraphs(summary)
    sentences = [s for p in paragraphs for s in p]
    japanese = _is_japanese(summary)
    counts = {"sentences": len(sentences),
              "questions": sum(s.rstrip("\"”’)").endswith(("?", "？")) for s in sentences),
              "part_headings": sum(bool(_PART_HEADING.match(h.strip(" :"))) for h in headings),
              "first_second_person": None, "pronoun_openers": None}
    if japanese:
        return counts
    counts["first_second_person"] = sum(bool(_FIRST_SECOND.match(s)) and not _QUOTE_OPEN.match(s) for s in sentences)
    counts["pronoun_openers"] = sum(bool(_PRONOUN.match(s)) and not _EXPLETIVE_IT.match(s)
                                    and (i == 0 or not names_someone(p[i - 1]))
                                    for p in paragraphs for i, s in enumerate(p))
    return counts


def reading_problems(counts: dict) -> int:
    """All the counts together: what "reads as a summary" wants at zero."""
    return sum(counts[k] or 0 for k in ("questions", "first_second_person", "pronoun_openers", "part_headings"))
