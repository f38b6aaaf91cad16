"""The named checks that hold what a model wrote to the document: one registry.

A check reads one ``Claim`` (what the model wrote, the document's sentences it rests on, what the model was
shown) and says why it refuses it, or nothing. Each has a name (written to run.json with every refusal), the
kinds of text it applies to, the languages it reads (None: any), and its own examples: real failures it must
refuse and fair cases it must pass, run by one parametrised test (tests/engine/test_checks.py). Adding a
check is one entry in a theme's module: ``CHECKS`` below collects them.

Kinds of text: ACCOUNT_LINE (a sentence of the account: what happens in a part, engine.summary.strategies.
account). The notes strategy's rewordings, merges and headings still run their own checks
(engine.summary.notes_extraction, compaction, writing); moving them here is the house issue's work.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from precis.engine.summary.alignment import Alignment

ACCOUNT_LINE = "account_line"
NOTE_IN_ACCOUNT = "note_in_account"   # a part's checked note standing in the account for lines that all failed
EN, JA = "en", "ja"          # the languages a check can read: Latin-script text Precis does not name, Japanese


def language_key(language: str | None) -> str:
    """EN or JA for a language as the prompts name it ("Japanese", or None for the document's own)."""
    from precis.engine.summary.language import is_japanese
    return JA if is_japanese(language) else EN


@dataclass(frozen=True)
class Claim:
    """One thing a model wrote and what it stands on."""
    text: str                          # what the model wrote (one sentence of the account)
    shown: str = ""                    # what the model was shown to write it (the part)
    alignment: Alignment | None = None     # the part's sentences it rests on (engine.summary.alignment)
    known_names: tuple[str, ...] = ()  # names the document gave before this part (the cast so far)
    earlier: tuple[str, ...] = ()      # what the account already says
    language: str | None = None        # the language it was asked in (None: English or unnamed)
    example: str = ""                  # the worked example the model was shown (its words are no evidence)
    hints: tuple[str, ...] = ()        # words shown after the part as what it keeps coming back to

    @property
    def sources(self) -> str:
        return self.alignment.quotes if self.alignment else ""


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

    def reads(self, language: str | None) -> bool:
        return self.languages is None or language_key(language) in self.languages


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
    from precis.engine.summary.checks import form, grounding, meaning
    return form.CHECKS + grounding.CHECKS + meaning.CHECKS


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
        if kind in check.applies_to and check.reads(claim.language):
            reason = check.test(claim)
            if reason:
                verdict.refusals.append(Refusal(check.name, reason))
    return verdict
