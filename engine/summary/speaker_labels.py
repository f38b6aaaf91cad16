"""A note that names its speaker by a short form of the transcript's label ("PM: ...", "UI says ...",
"Designer: ...", "Eluned Morgan suggests ..." of "Eluned Morgan AM"), named as the transcript names them.

The 1.5B model shortens speaker labels when it rewords a meeting's sentence: of the lines of the 140 notes
summaries of the four development design meetings in bench/results, 172 open "PM", "UI", "ID" or "Designer"
(to 2,935 that open with a label in full). A reader meets "Project Manager" in one line and "PM" in the next,
and cannot tell that "UI" is the User Interface designer; minutes name each person one way. Only the opening
is rewritten, and only to the label of a speaker of the note's own sentence, so nothing is given to anyone
the sentence does not already give it to.
"""
from __future__ import annotations

import re

from precis.engine.documents.spoken_text import SPEAKER_PREFIX, TURN_JOINER, speaker_name, speaker_of

# a short form opens the note and is followed by its colon ("PM: ...") or by a verb in the third person
# ("UI says", "Designer suggested"): "UI design ..." and "UI team ..." name a thing, not the speaker
_OPENING = re.compile(r"^(?P<short>[A-Z][\w.'-]*(?: [A-Z][\w.'-]*){0,2})(?P<after>:\s|\s+[a-z]+(?:s|ed)\b)")
# a word of a name: capitalised, a number, or a particle ("Mr. Chris d'Entremont", "Ursula von der Leyen")
_NAMING_WORD = re.compile(r"[A-Z0-9]|(?:d|de|da|di|du|le|la|van|von|der|den|del|bin)$|[a-z]{1,3}'[A-Z]")
# the seat or party after a parliament's name ("Ms. Jenny Kwan (Vancouver East, NDP)")
_SEAT_OR_PARTY = re.compile(r"\s*\((?:[^()]|\([^()]*\))*\)\s*$")


def sentence_labels(shown: str) -> list[str]:
    """The speaker labels of the sentence as the model was shown it (each turn of an exchange), as written:
    "Project Manager", "Kirsty Williams AM"; Latin-script labels in capitalised words only."""
    labels = []
    for turn in shown.split(TURN_JOINER):
        prefix = SPEAKER_PREFIX.match(turn)
        if prefix:
            label = _SEAT_OR_PARTY.sub("", speaker_name(speaker_of(prefix.group(0))))
            # a label names someone in capitalised words; a sentence of a story or a call that opens like one
            # ("Retief said: ...", "Next steps: ...") names no speaker, and "Retief says" is no short form of it
            if label and label.isascii() and label not in labels and all(map(_NAMING_WORD.match, label.split())):
                labels.append(label)
    return labels


def short_form_of(short: str, label: str) -> bool:
    """``short`` names ``label`` shorter: its initials ("PM" of "Project Manager") or some of its words, at its
    start or end ("Designer" of "Industrial Designer", "Eluned Morgan" of "Eluned Morgan AM")."""
    words = label.split()
    if short == label or len(words) < 2 or len(short) < 2:    # "A biped ..." is no "Grad A"
        return False
    if short.isupper() and short == "".join(w[0] for w in words).upper():
        return True
    parts = short.split()
    return any(parts == words[:k] or parts == words[-k:] for k in range(1, len(words)))


def label_in_full(point: str, shown: str) -> str:
    """``point`` with the short form of a speaker's label it opens with spelled as the label of the one
    speaker of ``shown`` it can stand for; unchanged where none, or more than one, fits."""
    opening = _OPENING.match(point)
    if not opening:
        return point
    short = opening.group("short")
    fits = [label for label in sentence_labels(shown) if short_form_of(short, label)]
    if len(fits) != 1:
        return point
    return fits[0] + point[len(short):]
