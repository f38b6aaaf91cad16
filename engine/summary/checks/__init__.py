"""The named checks that hold what a model wrote to the document: one registry.

A check reads one ``Claim`` (what the model wrote, the sentence or notes it rests on, what the model was shown)
and says why it refuses it, or nothing. Each has a name (written to run.json with every refusal), the kinds of
text it applies to, the languages it reads (None: any), and its own examples: real failures it must refuse and
fair cases it must pass, run by one parametrised test (tests/engine/test_checks.py). Adding a check is one entry
in a theme's module (form, grounding, names and numbers, meaning, negation, stance, conditions, language):
``registered()`` collects them, and a caller asks ``judge(claim, kind)``.

Kinds of text: ACCOUNT_LINE (a sentence of the account: what happens in a part, engine.summary.strategies.
account), NOTE_IN_ACCOUNT (a part's checked note standing in for its lines), REWORDING (the notes strategy's
note: one chosen sentence said in the model's words, engine.summary.notes_extraction), MERGE (two notes said as
one bullet, engine.summary.compaction), ACCOUNT_MERGE (two of the account's sentences said as one: every MERGE
check and a sentence's end), HEADING (a section's heading over its notes, engine.summary.writing).

A round's reply (engine.summary.guard) is judged apart: its flags read the call's stop reason, the run's
GuardSettings and the prompt's rules and labels besides the text, and each flag picks the retry's reminder.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Callable

from precis.engine.summary.alignment import Alignment

ACCOUNT_LINE = "account_line"
NOTE_IN_ACCOUNT = "note_in_account"   # a part's checked note standing in the account for lines that all failed
REWORDING = "rewording"
MERGE = "merge"
ACCOUNT_MERGE = "account_merge"
HEADING = "heading"
EN, JA = "en", "ja"          # the languages a check can read: Latin-script text Precis does not name, Japanese
_KANA_KANJI = re.compile(r"[\u3040-\u30ff\u3400-\u9fff]")


def language_key(language: str | None) -> str:
    """EN or JA for a language as the prompts name it ("Japanese", or None for the document's own)."""
    from precis.engine.summary.language import is_japanese
    return JA if is_japanese(language) else EN


def script_key(text: str) -> str:
    """JA for a text with any kana or kanji, else EN: the language a note or a merge is read in. A Japanese
    rewording of an English sentence (an English review quoted in a Japanese session) says its negation, stance
    or condition in Japanese, which the English checks cannot see: they pass it."""
    return JA if _KANA_KANJI.search(text) else EN


@dataclass(frozen=True)
class Claim:
    """One thing a model wrote and what it stands on."""
    text: str                          # what the model wrote
    shown: str = ""                    # what the model was shown to write it (the part; a merge: its two notes
    #                                    and their quotes, all it may draw on)
    alignment: Alignment | None = None     # the part's sentences it rests on (engine.summary.alignment)
    known_names: tuple[str, ...] = ()  # names the document gave before this part (the cast so far)
    earlier: tuple[str, ...] = ()      # what the account already says
    language: str | None = None        # the language it was asked in (None: English or unnamed)
    example: str = ""                  # the worked example the model was shown (its words are no evidence)
    hints: tuple[str, ...] = ()        # words shown after the part as what it keeps coming back to
    rests_on: str = ""                 # what it says again and may not drop: a rewording's sentence as the model
    #                                    was shown it (with its speaker), a merge's two notes
    evidence: str = ""                 # what holds its words where no alignment does: a rewording's sentence as
    #                                    shown, a merge's notes and their quotes, a heading's notes and quotes
    quote: str = ""                    # a rewording's sentence as the document writes it
    notes: tuple[tuple[str, str], ...] = ()   # a merge's or a heading's notes: (point, quote) each
    written_in: str | None = None      # the language its checks read it in (script_key), where not the one asked
    tools: tuple[str, ...] = ()        # the names of a chat's tools ("Bash", "Read"): never who acts

    @property
    def sources(self) -> str:
        return self.alignment.quotes if self.alignment else self.evidence


def rewording_claim(point: str, sentence: str, quote: str, part: str, language: str | None) -> Claim:
    """A note's point as the model's rewording of one sentence (``sentence``: as the model was shown it,
    ``quote``: as the document writes it) of ``part``, asked in ``language``."""
    return Claim(point, part, language=language, rests_on=sentence, evidence=sentence, quote=quote,
                 written_in=script_key(point))


def merge_claim(merged: str, notes: tuple[tuple[str, str], tuple[str, str]], language: str | None) -> Claim:
    """Two notes, (point, quote) each, said as one."""
    (a, a_quote), (b, b_quote) = notes
    source = f"{a} {b} {a_quote} {b_quote}"
    return Claim(merged, source, language=language, rests_on=f"{a} {b}", evidence=source, notes=notes,
                 written_in=script_key(merged))


def heading_claim(heading: str, notes: tuple[tuple[str, str], ...], language: str | None) -> Claim:
    """A section's heading over its notes, (point, quote) each."""
    return Claim(heading, language=language, evidence=" ".join(f"{p} {q}" for p, q in notes), notes=notes)


def against_rests_on(says: Callable[[str, str], bool], reason: str) -> Callable[[Claim], str | None]:
    """A check's test from ``says(text, what it rests on)``: a note against its sentence, a merge against its
    two notes."""
    def test(claim: Claim) -> str | None:
        return reason if says(claim.text, claim.rests_on) else None
    test.__module__ = getattr(says, "__module__", __name__)       # the theme of the check, for its table
    return test


def line_example(text: str, part: str, **fields) -> Claim:
    """A sentence of an account, for a check's examples: linked to the part's sentences that hold its words."""
    from precis.engine.summary.alignment import PartIndex
    return Claim(text, part, PartIndex(part).align(text), **fields)


def note_example(point: str, sentence: str, language: str | None = None, part: str | None = None) -> Claim:
    """A note of one sentence, for a check's examples: the sentence as shown and as written, and its own part
    unless one is given."""
    return rewording_claim(point, sentence, sentence, sentence if part is None else part, language)


@dataclass(frozen=True)
class Example:
    claim: Claim
    why: str = ""                      # what it is: where the failure was seen, or why the case is fair


@dataclass(frozen=True)
class Check:
    name: str
    applies_to: frozenset[str]
    languages: frozenset[str] | None   # None: every language; else the ones it reads ("en" = not named)
    test: Callable[[Claim], str | None]   # the reason it refuses, or None
    refuses: tuple[Example, ...] = ()
    passes: tuple[Example, ...] = ()
    about: str = ""

    def reads(self, claim: Claim) -> bool:
        return self.languages is None or (claim.written_in or language_key(claim.language)) in self.languages


@dataclass(frozen=True)
class Refusal:
    check: str
    reason: str


@dataclass
class Verdict:
    refusals: list[Refusal] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return not self.refusals

    @property
    def names(self) -> list[str]:
        return [r.check for r in self.refusals]


def _all_checks() -> tuple[Check, ...]:
    from precis.engine.summary.checks import conditions, form, grounding, language, meaning, names, negation, stance
    return (form.CHECKS + grounding.CHECKS + names.CHECKS + meaning.CHECKS + negation.CHECKS + stance.CHECKS
            + conditions.CHECKS + language.CHECKS)


CHECKS: tuple[Check, ...] = ()


def registered() -> tuple[Check, ...]:
    global CHECKS
    if not CHECKS:
        CHECKS = _all_checks()
    return CHECKS


def judge(claim: Claim, kind: str) -> Verdict:
    """Every check of ``kind`` that reads the claim's language, on the claim."""
    verdict = Verdict()
    for check in registered():
        if kind in check.applies_to and check.reads(claim):
            reason = check.test(claim)
            if reason:
                verdict.refusals.append(Refusal(check.name, reason))
    return verdict
