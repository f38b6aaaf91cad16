"""Checks of a written sentence's form: it reads as a summary's sentence, not as the part's or the prompt's."""
from __future__ import annotations

import re

from rapidfuzz import fuzz

from precis.engine.summary.alignment import PartIndex
from precis.engine.summary.checks import ACCOUNT_LINE, JA, NOTE_IN_ACCOUNT, Check, Claim, Example, language_key
from precis.engine.summary.evidence import copy_share, normalise

# A sentence mostly made of runs of LIFTED_RUN_WORDS words or more in a row from the part is a line lifted from
# it ("He stands up, staring at the closed door for a minute after she is gone."), not what happens said
# briefly. Eight, as the copy rate of bench/quality_metrics.py counts: a short line naturally shares a phrase
# of six ("Marketing will send the colour survey by Friday" of "Yes, I will send the colour survey by Friday").
LIFTED_SHARE = 0.6
LIFTED_RUN_WORDS = 8
REPEAT_RATIO = 85.0              # rapidfuzz ratio of two normalised sentences: the same thing said twice


def copied_share(text: str, source: str, run_words: int = LIFTED_RUN_WORDS) -> float:
    """The share of ``text``'s words (normalised) inside runs of ``run_words`` or more copied from ``source``;
    Japanese: engine.summary.evidence.copy_share's runs of characters."""
    said = normalise(text).text
    if sum(1 for c in said if ord(c) > 0x3000) > len(said) / 3:
        return copy_share(text, source)
    words, padded = said.split(), f" {normalise(source).text} "
    covered = [False] * len(words)
    for i in range(0, max(0, len(words) - run_words + 1)):
        if f" {' '.join(words[i:i + run_words])} " in padded:
            covered[i:i + run_words] = [True] * run_words
    return sum(covered) / max(1, len(words))


def _lifted(claim: Claim) -> str | None:
    share = copied_share(claim.text, claim.shown)
    return f"{share:.0%} of it is copied from the part word for word" if share >= LIFTED_SHARE else None


_META = re.compile(r"^(?:the|this|in (?:the|this)) (?:story|part|text|document|passage|chapter|excerpt|section|"
                   r"summary|transcript|article|conversation|log|author|reader|writer)\b|"
                   r"\b(?:this|the next|the previous) (?:part|passage|excerpt|section)\b|"
                   r"\b(?:is|are) (?:described|mentioned|shown|introduced) (?:in|by) the (?:text|story|part)\b", re.I)


def _meta(claim: Claim) -> str | None:
    """The document talked about instead of what happens in it ("The story continues with ...", "This part
    adds that ...": a held-out meeting's probe)."""
    return "it speaks of the document, not of what happens in it" if _META.search(claim.text) else None


def _question(claim: Claim) -> str | None:
    return "a question, not a statement" if claim.text.rstrip(" \"”’)").endswith(("?", "？")) else None


_OPENER = re.compile(r"^(?:he|she|they|it|his|her|their|its|him|them|i|i'm|i'd|me|my|we|we're|our|us|you|you're|"
                     r"your)\b", re.I)


def _opener(claim: Claim) -> str | None:
    """Opens with a pronoun, or I / we / you: nobody can tell who is meant once it stands in the account
    (the grammar holds a line's opening where the runtime takes one; a model server may not)."""
    m = _OPENER.match(claim.text.strip(" \"“"))
    return f"opens with '{m.group(0)}' instead of a name" if m else None


def _cut_off(claim: Claim) -> str | None:
    """A sentence stopped by the grammar's bound on a line's length, given its full stop there ("... and
    suggests that the Marketing team can copy paste something from.": a development meeting's account)."""
    from precis.engine.prompts.account import JA_LINE_CHARS, LINE_CHARS
    text = claim.text.rstrip(".!。")
    if language_key(claim.language) == JA:
        return "stopped at the longest a line may be, mid-sentence" if len(text) >= JA_LINE_CHARS[1] else None
    opener = max((n for n in claim.known_names if text.startswith(n)), key=len, default="")
    body = len(text) - (len(opener) + 1 if opener else len("The x"))
    return "stopped at the longest a line may be, mid-sentence" if body >= LINE_CHARS[1] else None


HINTS_LISTED = 4                 # hint words in one comma-separated list: the hints copied, not what happens
_LIST_ITEM = re.compile(r"[\w'’-]+(?: [\w'’-]+)?")


def _hints_listed(claim: Claim) -> str | None:
    """The words shown after the part as what it keeps coming back to, listed back instead of said in what
    happens ("... asks the team to consider buttons, colour, wheel, hand, really, scroll, expensive, dynamo":
    a development meeting's account)."""
    hints = {h.lower() for h in claim.hints}
    if len(hints) < HINTS_LISTED:
        return None
    for listed in re.finditer(r"(?:[\w'’-]+(?: [\w'’-]+)?, ){3,}(?:and |or )?[\w'’-]+", claim.text):
        items = [i.group(0).lower() for i in _LIST_ITEM.finditer(listed.group(0).replace(" and ", ", "))]
        found = [i for i in items if i in hints or i.split()[-1] in hints]
        if len(found) >= HINTS_LISTED:
            return f"lists the words shown as hints ({', '.join(found[:6])}) instead of saying what happens"
    return None


_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")


def _repeat(claim: Claim) -> str | None:
    """The same thing said again (the same numbers, nearly the same words) as a line the account holds."""
    said = normalise(claim.text).text
    numbers = sorted(_NUMBER.findall(claim.text))
    for earlier in claim.earlier:
        if sorted(_NUMBER.findall(earlier)) == numbers and fuzz.ratio(said, normalise(earlier).text) >= REPEAT_RATIO:
            return f"the account already says it: {earlier[:60]!r}"
    return None


def _claim(text: str, part: str, earlier: tuple[str, ...] = ()) -> Claim:
    return Claim(text, part, PartIndex(part).align(text), earlier=earlier)


MEETING = ("Marketing: The buttons, the colour, the wheel. A scroll wheel is expensive. Industrial Designer: A "
           "dynamo, the hand one, really. Rubber, wood, titanium and plastic are what the case can be made of.")
STORY = ("Maitland remained standing, staring at the closed door for a minute after she was gone. Then he sat "
         "down on the bed to watch the sunset and to think.")

CHECKS = (
    Check("lifted", frozenset({ACCOUNT_LINE}), None, _lifted,
          refuses=(Example(_claim("Maitland remains standing, staring at the closed door for a minute after she was "
                                  "gone.",
                                  STORY), "a line of the story, lifted (development run)"),),
          passes=(Example(_claim("Maitland watches the sunset from his bed and thinks.", STORY), "said briefly"),
                  Example(_claim("Marketing will send the colour survey by Friday.",
                                 "Marketing: Yes, I will send the colour survey by Friday."),
                          "a short line sharing a phrase of six words"))),
    Check("meta", frozenset({ACCOUNT_LINE}), None, _meta,
          refuses=(Example(_claim("The story continues with Maitland watching the sunset.", STORY),
                           "narrates the document"),
                   Example(_claim("This part adds that Maitland sits on the bed.", STORY), "narrates the prompt")),
          passes=(Example(_claim("Maitland sits on the bed and watches the sunset.", STORY), "what happens"),)),
    Check("question", frozenset({ACCOUNT_LINE, NOTE_IN_ACCOUNT}), None, _question,
          refuses=(Example(_claim("Why does Maitland stare at the door?", STORY), "a question"),),
          passes=(Example(_claim("Maitland stares at the closed door.", STORY), "a statement"),)),
    Check("opener", frozenset({ACCOUNT_LINE, NOTE_IN_ACCOUNT}), frozenset({"en"}), _opener,
          refuses=(Example(_claim("He stares at the closed door.", STORY), "who is he?"),
                   Example(_claim("I yelled and ran after him.", STORY), "a narrator's line (held-out story)")),
          passes=(Example(_claim("Maitland stares at the door after the girl leaves.", STORY), "named"),)),
    Check("cut_off", frozenset({ACCOUNT_LINE}), None, _cut_off,
          refuses=(Example(Claim("The Project Manager discusses the importance of taking notes on the points discussed "
                                 "during the presentation and suggests that the Marketing team can copy paste "
                                 "something from.", MEETING),
                           "stopped at the bound (development meeting)"),),
          passes=(Example(Claim("The Project Manager asks the team to take notes during the presentation.", MEETING),
                          "a whole sentence"),)),
    Check("hints_listed", frozenset({ACCOUNT_LINE}), frozenset({"en"}), _hints_listed,
          refuses=(Example(Claim("The Project Manager asks the Marketing team to consider buttons, colour, wheel, "
                                 "hand, really, scroll, expensive, dynamo.", MEETING,
                                 hints=("buttons", "colour", "wheel", "scroll", "expensive", "dynamo")),
                           "the hints copied (development meeting)"),),
          passes=(Example(Claim("Marketing wants the wheel, the scroll buttons and a dynamo, but it is too "
                                "expensive.", MEETING,
                                hints=("buttons", "colour", "wheel", "scroll", "expensive", "dynamo")),
                          "the hint words said in what happens"),
                  Example(Claim("Industrial Designer lists rubber, wood, titanium and plastic as case materials.",
                                MEETING, hints=("design", "remote", "budget", "battery")),
                          "a list of the part's own, not of the hints"))),
    Check("repeat", frozenset({ACCOUNT_LINE}), None, _repeat,
          refuses=(Example(_claim("Maitland stands up and stares at the closed door.", STORY,
                                  ("Maitland stands and stares at the closed door.",)),
                           "said twice (development run)"),),
          passes=(Example(_claim("Maitland watches the sunset.", STORY, ("Maitland stares at the closed door.",)),
                          "another event"),)),
)
