"""Who does what a sentence says, read from the words around its verb: for the check that holds a line of the
account (or a rewording) to the sentence whose verb it uses (engine.summary.checks.meaning, ``doer_swapped``).

No parser: the account's lines open with who does it (its grammar asks "who does what (to whom, why)"), so a
line's doer is its opening name or "the <noun>" and its verb the first word after that with a verb's ending
(hands, handed; after "will", any word). A sentence of the document using that verb (the same stem: hand,
hands, handed, handing; held for holds) says who does it by the words before the verb, and to whom by the
ones after it in its clause. Quoted words are someone's by the words beside the quote in its paragraph
('"...," he whistled, eyeing Magnan'). Each reading gives up where English leaves it open (a passive, a noun
that looks like a verb, two doers): the check refuses only what these read plainly.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from precis.engine.summary.evidence import STOPWORDS

_TOKEN = re.compile(r"[A-Za-z][A-Za-z'’-]*|[.,;:!?—–\"“”]")
_PUNCT = frozenset('.,;:!?—–"“”')
_QUOTE_MARKS = frozenset('"“”')
PRONOUNS = frozenset({"he", "she", "they", "i", "we", "you", "it"})
_TITLES = frozenset({"mr", "mrs", "ms", "dr", "sir", "miss", "mister"})
_DETERMINERS = frozenset({"the", "a", "an", "his", "her", "their", "my", "your", "its", "our", "this", "that"})
PASSIVE_AUX = frozenset({"is", "are", "was", "were", "be", "been", "being", "get", "gets", "got"})
_PERFECT = frozenset({"has", "have", "had"})
_MODALS = frozenset({"will", "would", "can", "could", "may", "might", "must", "shall", "should", "does", "did",
                     "do"})
_BETWEEN = frozenset({"then", "also", "just", "still", "not", "never", "um", "uh", "erm", "er", "ah"})
# A word in these joins a new clause: a name after it is not the verb's object
_CLAUSE_WORDS = frozenset({"and", "but", "or", "while", "as", "when", "then", "who", "whom", "which", "that",
                           "because", "before", "after", "until", "so", "if", "where", "though", "whereupon"})
# ... nor after these: "collided with Magnan", "Retief and Magnan", "stood by Magnan" say who else was there,
# "invest $80 million in Elevate" where it happens
_BESIDE = frozenset({"with", "and", "or", "nor", "beside", "alongside", "near", "like", "as", "than", "by",
                     "without", "among", "between", "in", "into", "inside", "within", "of", "about", "through",
                     "under", "over", "across", "around", "behind", "above", "below", "beneath", "along", "during",
                     "via", "per"})
# Verbs of two doers at once (stems): who met whom says nothing of who did it
_MUTUAL = ("meet", "marry", "join", "face", "fight", "kiss", "hug", "embrac", "resembl", "wrestl", "battl",
           "accompan", "shak", "argu", "talk", "chat", "agre", "play", "danc")
# English's common irregular verbs, base then past forms: a story tells in the past ("held", "gave") what an
# account's line says in the present ("holds", "gives"). "lay" (of lie, and lay) is left out; a past that is
# also a noun ("left" of "to their left", "saw") follows a determiner there, and is read as a noun.
_IRREGULAR = """
be was were been|become became|begin began begun|bite bit bitten|blow blew blown|break broke broken|
bring brought|build built|buy bought|catch caught|choose chose chosen|come came|dig dug|do did done|draw drew
drawn|drink drank drunk|drive drove driven|eat ate eaten|fall fell fallen|feed fed|feel felt|fight fought|find
found|flee fled|fly flew flown|forget forgot forgotten|forgive forgave forgiven|freeze froze frozen|get got gotten|
give gave given|go went gone|grow grew grown|hang hung|have had|hear heard|hide hid hidden|hold held|keep kept|
know knew known|lead led|leave left|lend lent|lose lost|make made|mean meant|meet met|pay paid|ride rode ridden|
ring rang rung|rise rose risen|run ran|say said|see saw seen|seek sought|sell sold|send sent|shake shook shaken|
shine shone|shoot shot|show showed shown|sing sang sung|sink sank sunk|sit sat|sleep slept|slide slid|speak spoke
spoken|spend spent|spin spun|stand stood|steal stole stolen|stick stuck|sting stung|strike struck|swear swore
sworn|sweep swept|swim swam swum|swing swung|take took taken|teach taught|tear tore torn|tell told|think thought|
throw threw thrown|wake woke woken|wear wore worn|win won|write wrote written"""
_BASE_OF = {form: verb.split()[0] for verb in _IRREGULAR.replace("\n", " ").split("|") for form in verb.split()[1:]}


def verb_stem(word: str) -> str:
    """One stem for a verb's forms, by a general suffix rule and English's common irregular pasts: hand, hands,
    handed, handing -> "hand"; close, closes, closed, closing -> "clos"; drop, dropped -> "drop"; cry, cries,
    cried -> "cry"; hold, held -> "hold"."""
    w = word.lower().rstrip("'’")
    w = _BASE_OF.get(w, w)
    for suffix, instead in (("ies", "y"), ("ied", "y"), ("ing", ""), ("ed", ""), ("es", ""), ("s", "")):
        if w.endswith(suffix) and len(w) - len(suffix) >= 2 and not w.endswith(("ss", "us", "is")):
            w = w[:-len(suffix)] + instead
            break
    if len(w) > 2 and w.endswith("e"):
        w = w[:-1]
    if len(w) > 3 and w[-1] == w[-2] and w[-1] not in "aeiou":
        w = w[:-1]
    return w


def tokens(text: str) -> list[str]:
    return _TOKEN.findall(text)


def bare(word: str) -> str:
    """A word as a name or noun is compared: lower case, no possessive."""
    w = word.lower()
    return w[:-2] if w.endswith(("'s", "’s")) else w


def _is_verb_form(word: str) -> bool:
    """A word written as a finite verb after its doer: "hands", "handed", "held" (not "glass", "bus")."""
    w = word.lower()
    return word[0].islower() and (w in _BASE_OF or len(w) >= 4 and (
        w.endswith("ed") or (w.endswith("s") and not w.endswith(("ss", "us", "is", "'s", "’s")))))


def is_name(word: str, lowercase: frozenset[str]) -> bool:
    """A capitalised word the part never writes in lower case ("Retief", not a sentence's "Suddenly", nor
    "That'd")."""
    base = re.split(r"['’]", word)[0].lower()
    return word[:1].isupper() and base == bare(word) and base not in STOPWORDS | _TITLES | PRONOUNS \
        and base not in lowercase


@dataclass(frozen=True)
class Doer:
    """Who a line says does it, and its verb."""
    words: tuple[str, ...]      # the opening name or noun phrase as written, article left out
    named: bool                 # a name (capitalised words) rather than "the <noun>"
    verb: str
    quote: str = ""             # words the line has the doer say, in quotes, where no one else comes between
    after_verb: tuple[str, ...] = ()    # the line's words after its verb, compared as names (lower case)

    @property
    def key(self) -> tuple[str, ...]:
        """The words that name the doer: a name's words (no title), or a role's noun."""
        if self.named:
            return tuple(bare(w) for w in self.words if w[0].isupper() and bare(w) not in _TITLES)
        return (bare(self.words[-1]),)


def line_doer(text: str) -> Doer | None:
    """The doer and verb of a line, or None where it opens otherwise: a pronoun, a possessive, two doers, a
    passive ("Syme is approached by ..."), "has" alone, a headline's "Trend expected to ...". Each would be
    read wrongly."""
    words = tokens(text)
    i = 1 if words and words[0].lower() in ("the", "a", "an") else 0
    subject: list[str] = []
    verb = ""
    while i < len(words) and len(subject) <= 4:
        w, low = words[i], words[i].lower()
        if w in _PUNCT or low in ("and", "or", "&") or (subject and subject[-1].endswith(("'s", "’s"))):
            return None
        if subject and low in PASSIVE_AUX:          # "is dropping" is active; "is approached by" passive
            verb = words[i + 1] if i + 1 < len(words) and words[i + 1].lower().endswith("ing") else ""
            break
        if subject and low in _PERFECT:             # "has handed"; "has a gun" is no verb to compare
            verb = words[i + 1] if i + 1 < len(words) and _is_verb_form(words[i + 1]) else ""
            break
        if subject and low in _MODALS:
            verb = words[i + 1] if i + 1 < len(words) and words[i + 1] not in _PUNCT else ""
            break
        if subject and (low.endswith("ly") or low in _BETWEEN):
            i += 1
            continue
        if subject and _is_verb_form(w):
            verb = w
            break
        subject.append(w)
        i += 1
    if not verb or not subject or len(subject) > 4 or subject[0].lower() in PRONOUNS | STOPWORDS:
        return None
    at = words.index(verb, i)
    if verb.lower().endswith("ed") and at + 1 < len(words) and words[at + 1].lower() in ("to", "by"):
        return None
    quote = ""
    found = re.search(r"[\"“”]([^\"“”]{6,})[\"“”]", text)
    # the doer says the quoted words: they follow its verb closely, no one else named between ("Magnan smiles
    # and says "..."", not "Retief hears Magnan say "..."" nor "reports on the email, including the words "..."")
    between = [w for w in tokens(text[:found.start()])[at + 1:] if w not in _PUNCT] if found else []
    if found and len(between) <= 3 and not any(w[0].isupper() for w in between):
        quote = found.group(1).strip(" ,.!?")
    return Doer(tuple(subject), any(w[0].isupper() for w in subject), verb, quote,
                tuple(bare(w) for w in words[at + 1:] if w not in _PUNCT))


def names_doer(words: list[str], at: int, doer: Doer) -> bool:
    """``words[at:]`` opens with the doer's name or role."""
    key = doer.key
    if not key:
        return False
    if doer.named and len(key) > 1:
        # a name of several words: all of them, or its one distinctive word a story calls them by ("Syme" of
        # "Syme Rector"); a transcript's "Grad E" only whole
        if tuple(bare(w) for w in words[at:at + len(key)]) == key:
            return True
        return not any(len(k) == 1 for k in key) and bare(words[at]) in {k for k in key if len(k) > 2}
    return bare(words[at]) == key[0]


def _after_the(words: list[str], at: int) -> bool:
    """"the" is a few words before ``at``, in its phrase: "the pilot", "the captive Flap-jack"."""
    for k in range(at - 1, max(-1, at - 4), -1):
        if words[k] in _PUNCT:
            return False
        if words[k].lower() == "the":
            return True
    return False


@dataclass(frozen=True)
class Use:
    """One use of the verb in a sentence."""
    doer_before: bool           # the doer is named before it
    doer_after: bool            # ... after it in its clause, as whom it is done to (not "with", "and" them)
    subject: str                # the word right before it, adverbs and auxiliaries passed ("" for none)
    someone_before: bool        # a name, pronoun or determiner before it: it has a doer of its own
    finite: bool                # "handed", "hands", "was handing"; not a bare "handing", whose doer may be
    #                             anyone before it ("you and Dave asking for ...": the message asks)
    subject_definite: bool      # the subject is a name or "the <noun>", someone a line can name
    subject_named: bool         # ... a name without "the" ("Lemuel", not "the captive Flap-jack")


def uses(sentence: str, stem: str, doer: Doer) -> list[Use]:
    """Each use of the verb of stem ``stem`` in ``sentence`` as a verb: not a noun ("his hands", "the remaining
    increase", "the screen, hands on the controls"), nor a passive ("was handed"), whose doer is after "by"."""
    words = tokens(sentence)
    found = []
    for v, w in enumerate(words):
        if w in _PUNCT or w[0].isupper() or verb_stem(w) != stem:
            continue
        ing = w.lower().endswith("ing")
        skipped = _BETWEEN | _PERFECT | _MODALS | (PASSIVE_AUX if ing else frozenset())
        k = v - 1
        while k >= 0 and words[k] not in _PUNCT and (words[k].lower().endswith("ly") or words[k].lower() in skipped):
            k -= 1
        prev = words[k].lower() if k >= 0 else ""
        if prev in _DETERMINERS or (prev.endswith("ing") and k == v - 1) or (not ing and prev in PASSIVE_AUX):
            continue
        if w.lower().endswith("s") and _is_verb_form(w) and (v == 0 or words[v - 1] in _PUNCT):
            continue
        if v and words[v - 1] in _QUOTE_MARKS:
            # '"...," said Hoshick': the doer after the quote's verb is who says it
            named = v + 1 < len(words) and names_doer(words, v + 1, doer)
            found.append(Use(named, False, words[v + 1] if v + 1 < len(words) else "", True, True, False, False))
            continue
        after = False
        for j in range(v + 1, len(words)):
            x = words[j]
            if (x in _PUNCT and not (x == "," and j + 1 < len(words) and words[j + 1].lower().endswith("ing"))) \
                    or x.lower() in _CLAUSE_WORDS:
                break
            if x not in _PUNCT and names_doer(words, j, doer) and words[j - 1].lower() not in _BESIDE \
                    and not x.endswith(("'s", "’s")) and (doer.named or _after_the(words, j)):
                after = True
                break
        subject = words[k] if k >= 0 and words[k] not in _PUNCT else ""
        known = bool(subject) and subject.lower() not in PRONOUNS | STOPWORDS
        found.append(Use(
            doer_before=any(names_doer(words, i, doer) for i in range(v) if words[i] not in _PUNCT),
            doer_after=after, subject=subject,
            someone_before=any(x.lower() in PRONOUNS | _DETERMINERS or (x[0].isupper() and x.lower() not in STOPWORDS)
                               for x in words[:v] if x not in _PUNCT),
            finite=not ing or (v > 0 and words[v - 1].lower() in PASSIVE_AUX),
            subject_definite=known and (subject[0].isupper() or _after_the(words, k)),
            subject_named=known and subject[0].isupper() and not _after_the(words, k)))
    return found


def is_mutual(stem: str) -> bool:
    return stem.startswith(_MUTUAL)


def same_person(name: str, doer: Doer, part: str) -> bool:
    """``name`` may be the doer: one of its words, or written next to one of them in the part ("Syme Rector")."""
    n = bare(name)
    if n in doer.key:
        return True
    return any(re.search(rf"\b(?:{re.escape(n)}\s+{re.escape(k)}|{re.escape(k)}\s+{re.escape(n)})\b", part, re.I)
               for k in doer.key)


def same_speaker(speaker: str, doer: Doer) -> bool:
    """A transcript's label names the doer: "User Interface" of "The User Interface Designer" or "... team"."""
    said = {bare(w) for w in tokens(speaker) if w[0].isalpha()}
    key = {bare(w) for w in doer.words if w[0].isalpha()}
    return bool(said) and (said <= key or key <= said)


_BLANK_LINE = re.compile(r"\n[ \t]*\n")


def paragraph_of(text: str, start: int, end: int | None = None) -> tuple[int, int]:
    """The (start, end) of the paragraph of ``text`` (between blank lines) that holds ``text[start:end]``."""
    starts = [b.end() for b in _BLANK_LINE.finditer(text, 0, start)]
    after = _BLANK_LINE.search(text, start if end is None else end)
    return (starts[-1] if starts else 0), (after.start() if after else len(text))


def quote_pairs(text: str, start: int, end: int) -> list[tuple[int, int]] | None:
    """The (opening, closing) offsets of the quotation marks of ``text[start:end]``; None where they do not
    pair (a speech running on from the paragraph before, or on into the next)."""
    marks = [i for i in range(start, end) if text[i] in _QUOTE_MARKS]
    return None if len(marks) % 2 else list(zip(marks[::2], marks[1::2]))


def beside_quote(text: str, pairs: list[tuple[int, int]], at: int, paragraph: tuple[int, int]) -> tuple[str, str]:
    """(the words before the ``at``-th quotation of a paragraph, back to the quotation before it or the
    paragraph's start; the words after it, up to the next quotation or the paragraph's end): where its speech
    tag is."""
    open_, close = pairs[at]
    before = text[pairs[at - 1][1] + 1 if at else paragraph[0]:open_]
    after = text[close + 1:pairs[at + 1][0] if at + 1 < len(pairs) else paragraph[1]]
    return before, after


@dataclass(frozen=True)
class Saying:
    """Who says quoted words where a story has them: the first name or pronoun of the words beside the quote
    in its paragraph, and whether the doer is named after it there ("he whistled ..., eyeing Magnan": said
    to the doer, by someone else)."""
    speaker: str
    doer_after: bool
    doer_says: bool


def sayings(part: str, quote: str, doer: Doer) -> list[Saying]:
    """Each place of a story's ``part`` that has ``quote`` inside quotation marks, with who says it there."""
    words = quote.split()
    if len(words) < 2:
        return []
    lowercase = frozenset(re.findall(r"\b[a-z][a-z']+\b", part))
    found = []
    for m in re.finditer(r"\s+".join(re.escape(w) for w in words), part, re.I):
        paragraph = paragraph_of(part, m.start(), m.end())
        pairs = quote_pairs(part, *paragraph)
        if pairs is None:
            continue                # a speech running on from the paragraph before: its marks do not pair
        inside = [p for p in pairs if p[0] < m.start() and m.end() <= p[1]]
        if not inside:
            continue
        before, after = beside_quote(part, pairs, pairs.index(inside[0]), paragraph)
        saying = _speaker_in(tokens(after if re.search(r"[A-Za-z]", after) else before), doer, lowercase)
        if saying:
            found.append(saying)
    return found


def _speaker_in(words: list[str], doer: Doer, lowercase: frozenset[str]) -> Saying | None:
    for i, w in enumerate(words):
        if w in _PUNCT:
            continue
        if names_doer(words, i, doer):
            return Saying(w, False, True)
        if w.lower() in PRONOUNS or is_name(w, lowercase):
            rest = words[i + 1:]
            # named after the speaker as the one spoken to or looked at, not as the next sentence's doer
            doer_after = any(names_doer(rest, j, doer) and j > 0 and rest[j - 1].lower() not in _BESIDE
                             and rest[j - 1] not in _PUNCT for j in range(len(rest)) if rest[j] not in _PUNCT)
            return Saying(w, doer_after, False)
    return None


def antecedent(before: str, sentence: str, doer: Doer, cast: frozenset[str]) -> str:
    """Who "he" or "she" opening ``sentence`` is, where the sentence ``before`` it in its paragraph opens with
    a name of the cast (``cast``: lower case) and neither names the doer nor quotes anyone: that name ("Lemuel
    came forward, one eye black to the cheekbone. He held out a raw-boned hand": Lemuel's hand, not Bert's).
    "" where it cannot tell."""
    first, words = tokens(before), tokens(sentence)
    if not first or bare(first[0]) not in cast or not words or words[0].lower() not in ("he", "she"):
        return ""
    if any(w in _QUOTE_MARKS for w in first + words):
        return ""                   # a quoted sentence's first word is no one's doing ("Come on...." He moved)
    if any(names_doer(w, i, doer) for w in (first, words) for i in range(len(w)) if w[i] not in _PUNCT):
        return ""
    return first[0]
