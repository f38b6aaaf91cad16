"""Checks that what was written stands on the part: its words, numbers and names are the part's."""
from __future__ import annotations

import re

from precis.engine.summary.alignment import PartIndex, units
from precis.engine.summary.checks import ACCOUNT_LINE, Check, Claim, Example
from precis.engine.summary.evidence import content_words, numbers_held

# Share of a written sentence's units (content words, numbers; Japanese character bigrams) that its references
# must hold, and that the whole part must hold. Lenient: "Maitland wakes" shares "maitland" with "Maitland
# woke", not "wake"; what these refuse is a sentence whose words the part does not have (the worked example's
# ferry in a story about Mars, a meeting "on a new delivery van").
HELD_BY_REFERENCES = 0.5
HELD_BY_PART = 0.6


def _unsupported(claim: Claim) -> str | None:
    a = claim.alignment
    if a is None or not a.units:
        return "it says nothing the part's sentences hold"
    if a.part_share < HELD_BY_PART:
        return f"the part holds {a.part_share:.0%} of its words (at least {HELD_BY_PART:.0%})"
    if a.held_share < HELD_BY_REFERENCES:
        return f"the sentences it rests on hold {a.held_share:.0%} of its words (at least {HELD_BY_REFERENCES:.0%})"
    return None


def _numbers(claim: Claim) -> str | None:
    if not numbers_held(claim.text, claim.shown):
        return "a number the part does not hold"
    return None


_CAPITALISED = re.compile(r"(?<![.!?:]\s)(?<!^)\b[A-Z][a-z]{2,}\b")


def _names(claim: Claim) -> str | None:
    """A capitalised word (not where the sentence starts) that neither the part nor the names met before
    it hold: a person or place the model brought in."""
    known = claim.shown.lower() + " " + " ".join(claim.known_names).lower()
    invented = [w for w in dict.fromkeys(_CAPITALISED.findall(claim.text))
                if not re.search(rf"\b{re.escape(w.lower())}", known)]
    return f"names {', '.join(invented)}, which the part does not" if invented else None


EXAMPLE_WORDS_SHOWN = 2          # words of the worked example, absent from the part, that make a leak


def _example_leak(claim: Claim) -> str | None:
    """Words of the worked example the part does not hold: the example's story told of this part."""
    if not claim.example:
        return None
    leaked = (content_words(claim.example) & content_words(claim.text)) - content_words(claim.shown)
    names = {w.lower() for w in re.findall(r"\b[A-Z][a-z]{2,}\b", claim.example)} & leaked
    if names or len(leaked) >= EXAMPLE_WORDS_SHOWN:
        return f"the worked example's {', '.join(sorted(leaked))}, not the part's"
    return None


def _claim(text: str, part: str, **kw) -> Claim:
    return Claim(text, part, PartIndex(part).align(text), **kw)


STORY = ("Maitland stirred, came half awake, and opened his eyes. The room was dark except where moonlight fell on "
         "the foot of his bed. This wasn't his room! A man and a woman were coming toward him up the hill. "
         "\"My name is Swarts. I want to give you some psychological tests.\"")
MEETING = ("Project Manager: So we go round each of you in turn. Industrial Designer: The chip is cheap, about "
           "twelve euros, and a kinetic battery costs 3 euros more.\nMarketing: I think we should have an L_C_D.")
EXAMPLE = "The storm had kept the ferry in port for two days. Captain Ilse Varga ordered the crew aboard."

CHECKS = (
    Check("unsupported", frozenset({ACCOUNT_LINE}), None, _unsupported,
          refuses=(Example(_claim("The crew repairs the engine while the passengers bail water.", STORY),
                           "a line of nothing the part says"),
                   Example(_claim("Marketing presents the options for the new delivery van.", MEETING),
                           "the worked example's van, in a meeting on remote controls (development run)")),
          passes=(Example(_claim("Maitland wakes in a room that is not his.", STORY), "said in other words"),
                  Example(_claim("Swarts introduces himself and wants to give Maitland psychological tests.", STORY),
                          "two sentences joined"))),
    Check("numbers", frozenset({ACCOUNT_LINE}), None, _numbers,
          refuses=(Example(_claim("The Industrial Designer says the chip costs 15 euros.", MEETING),
                           "a changed figure"),),
          passes=(Example(_claim("The Industrial Designer says a kinetic battery costs 3 euros more.", MEETING),
                          "the part's own figure"),
                  Example(_claim("The chip costs about 12 euros.", MEETING), "twelve written in digits"))),
    Check("invented_names", frozenset({ACCOUNT_LINE}), frozenset({"en"}), _names,
          refuses=(Example(_claim("Maitland meets Doctor Kessler in the room.", STORY), "a name no one wrote"),),
          passes=(Example(_claim("Maitland meets Swarts and Ching.", STORY, known_names=("Ching",)),
                          "Ching was named in an earlier part"),)),
    Check("example_leak", frozenset({ACCOUNT_LINE}), None, _example_leak,
          refuses=(Example(_claim("Maitland waits two days in port before the ferry leaves.", STORY, example=EXAMPLE),
                           "the worked example's ferry told of a story's part (development run)"),),
          passes=(Example(_claim("Maitland wakes in a dark room that is not his.", STORY, example=EXAMPLE),
                          "no word of the example's"),)),
)

__all__ = ["CHECKS", "units"]
