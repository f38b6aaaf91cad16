"""A line that gives one speaker's words to another, said again by code with the speaker who said them.

The account's commonest fault on meetings and chat days (docs/quality.md, the hand labels): the model tells
what was said and gives it to the wrong person ("The User Interface Designer shows a schematic of the inside
workings": the Industrial Designer's turn; "ユーザーが ... を提案する" of the assistant's proposal). The
``speaker_swapped`` check refuses such a line, and a refusal cost a second ask of the model, which again
often named the wrong speaker. The transcript's labels say who spoke, so code can do what the model could
not: when everything the line says is in the turns of one other speaker, the line opens with that speaker
instead. Its words are the model's, its speaker the document's; it is judged again by every check.

Left as refused: a line whose words are in several speakers' turns, or as much of them in another speaker's
sentence as in the one it rests on (who said what is then a question code cannot settle), and a line that
names the right speaker elsewhere ("The Chair agrees with Ravi's idea": the opener is who agrees; Ravi's turn
holds the idea), where a swap would make nonsense.
"""
from __future__ import annotations

import re

from precis.engine.summary.alignment import said_units, source_sentences, units
from precis.engine.summary.checks import Claim
from precis.engine.summary.checks.meaning import (
    ARTICLE,
    chat_roles,
    opening_role,
    opening_speaker,
    said_beyond_speaker,
    speaker_opening_end,
    turn_holds_line,
)

# A speaker's question as the account writes it: "asks if ...", "asks about ...", "asks how ..."
_ASKED = re.compile(r"^(?:asks|wonders|inquires|enquires|queries)\s+(?:(if|whether)|(about)|"
                    r"(how|why|what|who|whom|which|where|when))\b\s*", re.I)
# The words a chat line may open with, per role, as the account writes them: parallel lists, longest first
_ROLE_OPENERS = {"user": ("The user", "the user", "ユーザー", "User", "user"),
                 "assistant": ("The assistant", "the assistant", "アシスタント", "Assistant", "assistant")}
_OTHER_ROLE = {"user": "assistant", "assistant": "user"}


def reattributed(claim: Claim) -> str | None:
    """The claim's line opening with the speaker (or chat role) whose turns hold what it says, or None when
    there is no one such speaker or the line already names them."""
    if not claim.alignment or not claim.alignment.references:
        return None
    if chat_roles(claim.shown) is not None:
        return _chat_reattributed(claim)
    return _transcript_reattributed(claim)


def _transcript_reattributed(claim: Claim) -> str | None:
    who = opening_speaker(claim.text, claim.shown)
    if who is None:
        return None
    said = said_beyond_speaker(claim.text, who)
    holders = {s.speaker for s in claim.alignment.references if s.speaker and said_units(s) & said}
    if len(holders) != 1:
        return None
    speaker = holders.pop()
    if speaker == who or not _said_most_by(speaker, said, source_sentences(claim.shown), lambda s: s.speaker):
        return None
    body = claim.text.lstrip()
    article = ARTICLE.match(body)
    tail = body[speaker_opening_end(body, who):]      # the naming words replaced
    if speaker.lower() in tail.lower():
        return None
    # "The Project Manager", but "Grad B" and "Marketing" as the transcript labels them
    keep_article = article is not None and len(speaker.split()) > 1 and not any(
        len(w) == 1 or w.isdigit() for w in speaker.split())
    return f"{'The ' if keep_article else ''}{speaker}{tail}"


def _said_most_by(speaker: str, said: set[str], sentences, speaker_of) -> bool:
    """Whether one sentence of ``speaker``'s holds more of what the line says than any other speaker's does: the
    references are the fewest sentences that hold the line, and where two speakers said the same words the
    first found stands for both (who said it is then no question code can settle)."""
    best: dict[str, int] = {}
    for sentence in sentences:
        who = speaker_of(sentence)
        if who:
            best[who] = max(best.get(who, 0), len(said_units(sentence) & said))
    return best.get(speaker, 0) > max((n for who, n in best.items() if who != speaker), default=0)


def _chat_reattributed(claim: Claim) -> str | None:
    role_of = chat_roles(claim.shown)
    actor = opening_role(claim.text)
    if actor is None:
        return None
    other = _OTHER_ROLE[actor]
    said = units(claim.text) - set().union(*(units(w) for w in _ROLE_OPENERS[actor]))
    holders = set()
    for sentence in claim.alignment.references:
        role = role_of(sentence.start)
        if role and turn_holds_line(units(sentence.text) & said, said):
            holders.add(role)
    if holders != {other} or not _said_most_by(other, said, source_sentences(claim.shown),
                                                lambda s: role_of(s.start)):
        return None
    body = claim.text.lstrip()
    # the other role in the same form: the lists are parallel ("The user" / "The assistant", "ユーザー" / ...)
    at = next((i for i, w in enumerate(_ROLE_OPENERS[actor]) if body.startswith(w)), None)
    if at is None:
        return None
    tail = body[len(_ROLE_OPENERS[actor][at]):]
    if any(w.lower() in tail.lower() for w in _ROLE_OPENERS[other]):
        return None
    return _ROLE_OPENERS[other][at] + tail


def without_the_question(claim: Claim) -> str | None:
    """A transcript line that says its speaker asks what they did not ask (the ``asks_unasked`` check), said
    as talk about it: "Grad B asks if the system has a map type display" (he says it has one) -> "Grad B talks
    about whether the system has a map type display". The line's words are the model's and mostly right in the
    hand labels; only the act was not the speaker's. None when the line asks someone ("asks Huw if ...": whom
    they spoke to stays unsaid) or does not open with its speaker and the question."""
    who = opening_speaker(claim.text, claim.shown)
    if who is None:
        return None
    body = claim.text.strip()
    end = speaker_opening_end(body, who)
    asked = _ASKED.match(body[end:].lstrip())
    if asked is None:
        return None
    if asked.group(1):
        talk = "talks about whether "
    elif asked.group(2):
        talk = "talks about "
    else:
        talk = f"talks about {asked.group(3).lower()} "
    rest = body[end:].lstrip()[asked.end():]
    return f"{body[:end].rstrip()} {talk}{rest.rstrip('?')}{'.' if rest.endswith('?') else ''}"
