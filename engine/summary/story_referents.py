"""Who a story's sentence is about where the sentence alone does not say: for its note.

A note's sentence is reworded alone, and the 1.5B model keeps what the sentence leaves to its context: a
character's "I" and "you" ("I want you to visit Roolit and look at these Qornt personally", "You'll want to
talk with him") and an opening "he" ("He grunts and grabs the gag"). A reader of the summary cannot tell who;
blind labellers counted such lines unfaithful (6 of the 29 unfaithful story lines of the check half's notes),
and "reads as a summary" counts them. Code can often tell who from the words around the sentence, as a reader
does: the speech tag beside a quotation ('"...," Nitworth said coldly.'), or the one person the paragraph's
narration has named before an opening "he" or "she". A narration sentence is then shown to the model with the
name for its pronoun ("Tate took a long breath ..."); a character's words are shown as they are and their note
put under the character's name, as a meeting's turn is ("Nitworth: I want you to visit Roolit ..."): shown
under the name, the model handed the words back and the copies were refused (docs/quality.md, "Whose words,
and who "he" is, in a story's notes"). The note's quote stays the document's own words.

Each reading gives up where a reader would have to guess: quotation marks that do not pair inside the
paragraph (a speech running on from the one before), a tag that names no one ("the Economic Officer
objected"), a pronoun with two people or none named before it in its paragraph. The paragraph before is not
read: in dialogue it is usually the other speaker's.
"""
from __future__ import annotations

import functools
import re

from precis.engine.summary.doers import beside_quote, is_name, paragraph_of, quote_pairs, tokens

TAG_WORDS = 4                     # a speech tag names its speaker within its first words ("said Magnan softly")
_SAYS_OPENING = frozenset({"he", "she"})


# A name is written so inside a sentence at least once: a word only ever seen opening one is as often an adverb
# or a participle ("Striding staggered back", "Eagerly"); a roman numeral ("II") is no name either
_MID_SENTENCE = re.compile(r"(?<=[a-z,;] )([A-Z][a-z]+)")


def _person(word: str) -> str:
    return re.split(r"['’]", word)[0]


class Names:
    """What counts as a person's name in one text: capitalised, never written in lower case, and seen inside
    a sentence at least once."""

    def __init__(self, text: str) -> None:
        self.lowercase = frozenset(re.findall(r"\b[a-z][a-z']+\b", text))
        self.mid_sentence = frozenset(_MID_SENTENCE.findall(text))

    def is_name(self, word: str) -> bool:
        return is_name(word, self.lowercase) and _person(word) in self.mid_sentence

    def named_in(self, text: str) -> list[str]:
        return [_person(w) for w in tokens(text) if w[0].isalpha() and self.is_name(w)]


@functools.lru_cache(maxsize=4)            # one story per run: read once, not per sentence
def names_of(text: str) -> Names:
    return Names(text)


def _narration(text: str, start: int, end: int, pairs: list[tuple[int, int]]) -> str:
    """``text[start:end]`` with what its quotation marks hold left out."""
    kept, at = [], start
    for open_, close in pairs:
        if close < start or open_ >= end:
            continue
        kept.append(text[at:max(at, open_)])
        at = max(at, close + 1)
    kept.append(text[at:end])
    return " ".join(kept)


def _one_named(text: str, names: Names) -> str:
    """The one person ``text`` names (several mentions of one name count once); "" for none or several."""
    names = set(names.named_in(text))
    return names.pop() if len(names) == 1 else ""


def _tag_speaker(words: list[str], names: Names) -> str:
    """The name or "he"/"she" of a speech tag's first words ("Nitworth said coldly", "said Magnan", "he
    snapped"); "" where its first capitalised word is neither ("The Political Officer placed ...")."""
    for w in words[:TAG_WORDS]:
        if not w[0].isalpha():
            return ""                              # the tag's clause ended before naming anyone
        if w.lower() in _SAYS_OPENING:
            return w.lower()
        if w[0].isupper():
            return _person(w) if names.is_name(w) else ""
    return ""


def teller(text: str, start: int, end: int) -> str:
    """Who says the sentence ``text[start:end]`` where it lies inside one pair of quotation marks: the speech
    tag after the quotation, else the narration just before it in the paragraph; a "he" or "she" there is the
    one person the paragraph's narration names before the quotation. "" where it cannot tell, and for a
    sentence that has narration of its own (it says who itself). A paragraph of words alone, no tag, is not
    given to who spoke two paragraphs before: on a check-half story that turn-taking guess was wrong on 2 of
    the 4 read (a third person had spoken between)."""
    p_start, p_end = paragraph_of(text, start)
    pairs = quote_pairs(text, p_start, p_end)
    if not pairs:
        return ""
    body = text[start:end].strip().strip('"“”').strip()
    inner = text.find(body, start) if body else -1
    at = next((k for k, (o, c) in enumerate(pairs) if o < inner and inner + len(body) <= c + 1), None)
    if at is None:
        return ""
    open_, close = pairs[at]
    names = names_of(text)
    before, after = beside_quote(text, pairs, at, (p_start, p_end))
    # words after a quotation that ends its sentence with a full stop are the next sentence, not its tag
    # ('"... backing up your conversation." Magnan hovered at Retief's side': Retief's words)
    if re.search(r"[A-Za-z]", after) and not text[open_:close].rstrip().endswith("."):
        who = _tag_speaker(tokens(after), names)
    else:
        last = re.split(r"(?<=[.!?])\s+", before.strip())[-1] if before.strip() else ""
        who = _tag_speaker(tokens(last), names)
    if who in _SAYS_OPENING:
        who = _one_named(_narration(text, p_start, open_, pairs), names)
    return "" if who in names.named_in(body) else who        # "Magnan, see to it ...": spoken to, not by


def opening_referent(text: str, start: int, end: int) -> str:
    """Who an opening "He" or "She" of the narration sentence ``text[start:end]`` is: the one person the
    narration before it in its paragraph names; "" where none or several are named, or the sentence opens
    otherwise."""
    words = tokens(text[start:end])
    if not words or words[0] not in ("He", "She"):
        return ""
    p_start, _ = paragraph_of(text, start)
    pairs = quote_pairs(text, p_start, start)
    if pairs is None:
        return ""
    names = names_of(text)
    who = _one_named(_narration(text, p_start, start, pairs), names)
    # "He was quite young, Tate saw": a pronoun is not the name its own sentence gives
    return "" if who in names.named_in(text[start:end]) else who


OPENING_PRONOUN = re.compile(r"^(He|She)\b")


def with_referent(shown: str, text: str, start: int, end: int) -> str:
    """``shown`` (a story's narration sentence as the model is shown it) with the name for its opening "He" or
    "She" where code can tell (``opening_referent``); else as it was."""
    who = opening_referent(text, start, end) if shown else ""
    return OPENING_PRONOUN.sub(who, shown, count=1) if who else shown


_THE_SPEAKER = re.compile(r"\bthe speaker\b", re.I)
_JAPANESE_SUBJECT = "(?:は|が|も|、|：|:)"         # the particle or mark after a name a sentence is about


# A note of a character's words that opens with someone else speaking: "Retief: Zubb asks about the Note passed
# to the Ambassador" of Retief's own question to Zubb, "Magnan: Slun mentions direct interview with military
# leaders" of Magnan's demand to Slun. The model gave the words to the one spoken to or of; of the labelled
# story lines, every such line whose speaking name the words themselves do not hold was unfaithful ("wrong
# actor"). The words are the speaker's, so the speaking is too.
_SOMEONE_SPEAKS = re.compile(r"^([A-Z][\w'’-]*(?: [A-Z][\w'’-]*)?) (?:(?:mention|ask|suggest|explain|tell|answer|warn|"
                             r"order|insist|agree|confirm|claim|discuss)(?:s|es|ed|d|ing)?|says?|said|stat(?:es?|ed)|"
                             r"told|notes?|noted|adds?|added|repl(?:y|ies|ied)|propos(?:e|es|ed)|announc(?:e|es|ed)|"
                             r"describ(?:e|es|ed))\b")
_NO_NAME = frozenset("I We You He She It They The A An This That These Those Our His Her Their My Your Its "
                     "Everyone Someone Nobody Everybody Somebody".split())


def _speaks_for(point: str, who: str, quote: str) -> str:
    """``point`` with its opening speaker, another than ``who`` whom ``quote`` (``who``'s words) does not name,
    said to be ``who``; as it was otherwise."""
    m = _SOMEONE_SPEAKS.match(point)
    if m is None:
        return point
    other = m.group(1)
    if other.split()[0] in _NO_NAME or who in other or re.search(rf"\b{re.escape(other)}\b", quote):
        return point
    return who + point[m.end(1):]


def told_by(point: str, who: str, quote: str = "") -> str:
    """A note of a character's words, under the character's name as a meeting's turn is ("Syme: They never come
    near our cities"), unless it names them itself; as it was where no one is known (``who`` ""). The model's
    own stand-in for the character's "I" is the name ("The speaker loses hazard pay" -> "Quade loses hazard
    pay"): under a label it read twice over, and a blind reader found it awkward. A Japanese speaker's note
    too ("和泉なおみ議員: ..."): Japanese writes no spaces, so only a note that opens with the name as its
    subject ("和泉なおみ議員は ...") names its speaker (a role is a word of what is said too: the governor's
    "知事就任以来の努力" had lost its label). A note that opens with someone else speaking whom ``quote`` (the
    character's words) does not name is the character's speaking (``_speaks_for``: "Retief: Zubb asks ..." ->
    "Retief asks ...")."""
    if not who:
        return point
    if who.isascii():
        point = _speaks_for(point, who, quote)
        named = re.search(rf"\b{re.escape(who)}\b", point)
    else:
        named = re.match(re.escape(who) + _JAPANESE_SUBJECT, point)
    if named:
        return point
    if _THE_SPEAKER.search(point):
        return _THE_SPEAKER.sub(who, point, count=1)
    return f"{who}: {point}"
