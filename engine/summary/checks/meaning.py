"""Checks that what was written means what its sentences mean: who did what to whom (whether: engine.summary.
checks.negation)."""
from __future__ import annotations

import functools
import re

from precis.engine.summary.alignment import PartIndex, said_units, source_sentences, units
from precis.engine.summary.checks import (
    ACCOUNT_LINE,
    Check,
    Claim,
    Example,
)
from precis.engine.summary.evidence import STOPWORDS, _stem

_WORD = re.compile(r"[A-Za-z][A-Za-z'’-]*")


def _positions(words: list[str], wanted: str) -> list[int]:
    return [i for i, w in enumerate(words) if w == wanted]


_PASSIVE_AUX = frozenset({"is", "are", "was", "were", "be", "been", "being", "get", "gets", "got"})


def _tokens(text: str) -> list[str]:
    """Names as written (lower case, no possessive), other words stemmed."""
    return [w.lower().rstrip("'’s") if w[0].isupper() else _stem(w.lower()) for w in _WORD.findall(text)]


def _actors(text: str) -> set[str]:
    """Who can do something in a sentence: its names, and the nouns it names with "the" ("the pilot"): a
    story calls people by their role as often as by their name ("Retief hands the pilot a power pistol" of
    "The pilot ... handed Retief a heavy old-fashioned power pistol", a development story)."""
    words = _WORD.findall(text)
    actors = {w.lower().rstrip("'’s") for w in words if w[0].isupper() and w.lower() not in STOPWORDS}
    actors |= {_stem(b.lower()) for a, b in zip(words, words[1:])
               if a.lower() == "the" and b[0].islower() and b.lower() not in STOPWORDS and len(b) > 2}
    return actors


def _roles(claim: Claim) -> str | None:
    """Who did what to whom, turned around: the sentence written names X before its verb and Y after it,
    where a sentence it rests on names Y before that verb and X after it, and X nowhere before it ("Bruce
    frowned slyly at Jacobs' thin face" of "Jacobs' thin face frowned slyly at Bruce", a held-out story).
    X and Y are names or "the" nouns (_actors). A source in the passive ("Bruce was greeted by Jacobs")
    said actively is fair, so a verb after "was", "were", "got" ... in the source decides nothing."""
    if not claim.alignment:
        return None
    written = _tokens(claim.text)
    names = _actors(claim.text)
    for source in claim.alignment.references:
        said = _tokens(source.text)
        shared = [n for n in names if n in said]
        if len(shared) < 2:
            continue
        for v, verb in enumerate(written):
            if verb in names or len(verb) < 4 or verb not in said:
                continue
            before = [n for n in shared if n in written[:v]]
            after = [n for n in shared if n in written[v + 1:]]
            at = said.index(verb)
            if at and said[at - 1] in _PASSIVE_AUX:
                break
            for x in before:
                for y in after:
                    if x == y:
                        continue
                    if y in said[:at] and x in said[at + 1:] and x not in said[:at]:
                        return (f"{x.title()} and {y.title()} swapped around '{verb}' "
                                f"(the sentence: {source.text[:80]!r})")
            break               # the first verb the sentence shares decides
    return None


@functools.lru_cache(maxsize=4)
def _speakers(part: str) -> frozenset[str]:
    return frozenset(s.speaker for s in source_sentences(part) if s.speaker)


_ARTICLE = re.compile(r"^(?:the|a|an) ", re.I)
_NAMING = re.compile(r"(?:[A-Z][\w'’-]*\s)+(?:team\s|designer\s|manager\s)?")


def _speaker(claim: Claim) -> str | None:
    """In a transcript, a line that says a speaker did something, resting only on other speakers' words
    ("Industrial Designer explains the technical specifications" of "User Interface: and then we'll give some
    technical specifications", a development meeting): who said it, turned around."""
    if not claim.alignment or not claim.alignment.references:
        return None
    said_by = {s.speaker for s in claim.alignment.references}
    if "" in said_by:
        return None
    opening = _ARTICLE.sub("", claim.text).lower()
    who = max((p for p in _speakers(claim.shown) if re.match(rf"{re.escape(p.lower())}\b", opening)),
              key=len, default=None)
    if who is None:
        return None
    # what the line says beyond who it names must be in a sentence the speaker said, or one that names them
    # (a hand-labelled development meeting: "The User Interface Designer shows a schematic of the inside
    # workings" rested on the Industrial Designer's words and on "Well I'm Mike, User Interface Designer.")
    naming = _NAMING.match(_ARTICLE.sub("", claim.text))           # "User Interface Designer", "Marketing team"
    said = units(claim.text) - units(who) - units(naming.group(0) if naming else "")
    for sentence in claim.alignment.references:
        if (sentence.speaker == who or who.lower() in sentence.text.lower()) and said_units(sentence) & said:
            return None
    return f"none of what it says is in {who}'s own words (its sentences are {', '.join(sorted(said_by))}'s)"


def _claim(text: str, part: str) -> Claim:
    return Claim(text, part, PartIndex(part).align(text))


MARS = ("Bruce invited them in. Jacobs' thin face frowned slyly at Bruce. \"We all know you killed Lieutenant "
        "Doran,\" Terrence said. Swarts answered every question Maitland asked.")

PISTOL = "The pilot ducked out of sight, came back, handed Retief a heavy old-fashioned power pistol."

DESIGN = ("Project Manager: So first, let's see the prototype.\nIndustrial Designer: Yeah .\nUser Interface: and "
          "then we'll give some technical specifications .\nIndustrial Designer: Uh, here we have our prototype "
          "model. It has a kinetic battery.\nMarketing: The Project Manager asked for a vote, so seven for me.\n")

CHECKS = (
    Check("speaker_swapped", frozenset({ACCOUNT_LINE}), None, _speaker,
          refuses=(Example(_claim("Industrial Designer explains the technical specifications.", DESIGN),
                           "another speaker's words (development meeting)"),
                   Example(_claim("The User Interface shows the prototype model with its kinetic battery.",
                                  DESIGN + "User Interface: Well I'm Mike, User Interface Designer.\n"),
                           "the speaker's own turn holds none of it (hand-labelled development meeting)"),
                   Example(_claim("The Marketing team shows the prototype model.", DESIGN + "Marketing:\n"),
                           "a label alone is no sentence of theirs")),
          passes=(Example(_claim("User Interface gives the technical specifications.", DESIGN), "as said"),
                  Example(_claim("The Industrial Designer shows the prototype with a kinetic battery.", DESIGN),
                          "the speaker's own turn, a sentence after its label"),
                  Example(_claim("The Project Manager asks for a vote.", DESIGN),
                          "another speaker's words that name who did it"))),
    Check("roles_swapped", frozenset({ACCOUNT_LINE}), frozenset({"en"}), _roles,
          refuses=(Example(_claim("Bruce frowned slyly at Jacobs' thin face.", MARS),
                           "who frowns at whom, inverted (a held-out story, issue 38)"),
                   Example(_claim("Maitland answers every question Swarts asks.", MARS), "asker and answerer swapped"),
                   Example(_claim("Retief hands the pilot a power pistol.", PISTOL),
                           "who gave what to whom, with a role for a name (hand-labelled development story)")),
          passes=(Example(_claim("Jacobs frowns slyly at Bruce.", MARS), "as said"),
                  Example(_claim("The pilot hands Retief a power pistol.", PISTOL), "as said, a role for a name"),
                  Example(_claim("Jacobs greeted Bruce at the door.", "Bruce was greeted at the door by Jacobs."),
                          "a passive said actively"),
                  Example(_claim("Bruce invites Jacobs and Terrence in.", MARS), "one name only in its sentence"))),
)
