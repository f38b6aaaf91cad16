"""Evidence: notes, the text of the document they rest on, and the measures that hold a note to it.

A note's quote is the document's own text at a recorded span (a sentence code chose, a commit subject),
so it is evidence by construction; what the model writes is checked against it by the named checks
(engine.summary.checks), on the measures here: a point's numbers must appear in its sentence and most of
its content words (``point_supported``), and a point mostly copied word for word is no note (``copy_share``).
Small models clean text up as they go (fillers dropped: "um", "uh", "えー"; spacing and case changed), so
comparisons run on normalised text with a map back to the original characters, and near-repeats are found
with rapidfuzz (a maintained, fast Levenshtein implementation).
"""
from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field

from rapidfuzz import fuzz

# Disfluencies transcripts are full of and quotes leave out (English and Japanese).
FILLERS_EN = {"um", "uh", "erm", "er", "hmm", "mm", "mmhmm", "uhhuh", "ah", "oh", "like", "yknow", "okay", "ok",
              "so", "well", "yeah", "right"}
FILLERS_JA = ("えーと", "えっと", "えー", "あのー", "あの", "そのー", "まあ", "ええ")
POINT_WORD_SHARE = 0.5          # share of a point's content words that must occur in its part
_WORD = re.compile(r"[A-Za-z0-9]+(?:['’][A-Za-z]+)?|[\u3040-\u30ff\u3400-\u9fff\uff66-\uff9f]")
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
STOPWORDS = set("""
a an the and or but if then so of to in on at by for with from as is are was were be been being it
its this that these those there here he she they we you i me my our your their his her them us not
no do does did done have has had will would can could should shall may might must about into over
under than too very also just more most some any all each other such only own same what which who
whom whose when where why how up down out off again further once both few many much one two its it's
i'm we're they're you're don't didn't isn't wasn't aren't whether
""".split())


@dataclass(frozen=True)
class Normalised:
    text: str
    index: list[int]          # index[i]: offset in the original text of normalised character i


def _is_cjk(ch: str) -> bool:
    return ord(ch[0]) > 0x3000


def normalise(text: str) -> Normalised:
    """Lowercase, letters and digits only, single spaces between words, fillers out; every kept character
    mapped back to its offset in ``text``. The same function runs on both sides of a comparison."""
    chars: list[str] = []
    index: list[int] = []
    for m in _WORD.finditer(text):
        word = m.group(0).lower()
        if _is_cjk(word):                          # Japanese: characters, no spaces between them
            chars.append(word)
            index.append(m.start())
            continue
        if word.replace("'", "").replace("’", "") in FILLERS_EN:
            continue
        if chars and chars[-1] != " " and not _is_cjk(chars[-1]):
            chars.append(" ")
            index.append(m.start())
        for k, ch in enumerate(word):
            chars.append(ch)
            index.append(m.start() + k)
    for filler in FILLERS_JA:                      # Japanese fillers, dropped wherever they stand
        joined = "".join(chars)
        pos = joined.find(filler)
        while pos >= 0:
            del chars[pos:pos + len(filler)]
            del index[pos:pos + len(filler)]
            joined = "".join(chars)
            pos = joined.find(filler, pos)
    return Normalised("".join(chars), index)


def content_words(text: str) -> set[str]:
    words = set()
    for w in _WORD.findall(text.lower()):
        if len(w) == 1 and ord(w) > 0x3000:
            continue
        if w not in STOPWORDS and w not in FILLERS_EN and len(w) > 2:
            words.add(_stem(w))
    return words


def cjk_bigrams(text: str) -> set[str]:
    chars = [c for c in text if ord(c) > 0x3000 and c.isalnum()]
    return {a + b for a, b in zip(chars, chars[1:])}


def _stem(word: str) -> str:
    for suffix in ("ing", "ed", "es", "s", "ly"):
        if len(word) > len(suffix) + 3 and word.endswith(suffix):
            return word[:-len(suffix)]
    return word


_UNITS = ("zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
          "seventeen eighteen nineteen").split()
_TENS = "twenty thirty forty fifty sixty seventy eighty ninety".split()
_SPELLED = re.compile(r"\b(?:(%s)(?:[ -](%s))?|(%s))\b" % ("|".join(_TENS), "|".join(_UNITS[1:10]), "|".join(_UNITS)),
                      re.I)


_DECIMAL_POINT = re.compile(r"\bpoint\s+$", re.I)


def spelled_numbers(text: str) -> set[str]:
    """The numbers 0-99 ``text`` spells out ("one to seven", "twenty-five"), as digits: a transcript writes
    what was said, and a note that says "a scale of 1 to 7" says what the sentence says."""
    found = set()
    for m in _SPELLED.finditer(text):
        tens, unit, alone = m.groups()
        if alone:
            value = _UNITS.index(alone.lower())
            # "point seven, point eight seconds" (a development meeting) is 0.7 and 0.8, never 7 and 8:
            # the note "a time of 7:8 seconds" passed as holding its numbers
            found.add(f"0.{value}" if _DECIMAL_POINT.search(text, 0, m.start()) and value < 10 else str(value))
        else:
            found.add(str(20 + 10 * _TENS.index(tens.lower()) + (_UNITS.index(unit.lower()) if unit else 0)))
    return found


_SHORT_YEAR = re.compile(r"(?<![\w'])'(\d{2})\b")       # "fiscal '21"


def numbers_held(text: str, source: str) -> bool:
    """Every number of ``text`` occurs in ``source`` (in digits or spelled out, with or without separators;
    a year written short, "fiscal '21", holds 2021)."""
    held = spelled_numbers(source)
    for n in _NUMBER.findall(source):     # "3,000.50" stands for 3000.50, 3000 and 3,000 alike
        held |= {n, n.replace(",", ""), *re.split(r"[.,]", n)}
    held |= {century + yy for yy in _SHORT_YEAR.findall(source) for century in ("19", "20")}
    return all(n in held or n.replace(",", "") in held for n in _NUMBER.findall(text))


def point_supported(point: str, part: str, part_words: set[str] | None = None) -> bool:
    """A point's numbers must all occur in its part, and most of its content words and of its CJK bigrams:
    both, where a point has both. A Japanese note checked by its Latin words alone let through what the
    1.5B model ran on with after its note ("レビュー指摘の SHA-256 ハッシュキーを反映済み. これは main
    リポジトリで作成されたブランチに追加されました. これにより、..."): "SHA", "256" and "main" were there."""
    if not numbers_held(point, part):
        return False
    words = content_words(point)
    grams = cjk_bigrams(point)
    if not words and not grams:
        return False
    if words:
        vocabulary = part_words if part_words is not None else content_words(part)
        if len(words & vocabulary) < POINT_WORD_SHARE * len(words):
            return False
    return not grams or len(grams & cjk_bigrams(part)) >= POINT_WORD_SHARE * len(grams)


COPY_RUN_WORDS = 6               # a run of this many words in a row, found in the source, is copied
COPY_RUN_CHARS = 12              # the same for Japanese, in characters


def copy_share(text: str, source: str, source_norm: Normalised | None = None, run_words: int = COPY_RUN_WORDS,
               run_chars: int = COPY_RUN_CHARS) -> float:
    """The share of ``text`` (normalised) inside runs of ``run_words`` words (Japanese: ``run_chars``
    characters) copied word for word from ``source``."""
    t = normalise(text).text
    s = (source_norm or normalise(source)).text
    if not t:
        return 0.0
    if sum(1 for c in t if ord(c) > 0x3000) > len(t) / 3:
        n = run_chars
        chars = t.replace(" ", "")
        covered = [False] * len(chars)
        flat = s.replace(" ", "")
        for i in range(0, max(0, len(chars) - n + 1)):
            if chars[i:i + n] in flat:
                covered[i:i + n] = [True] * n
        return sum(covered) / len(chars)
    words = t.split()
    padded = f" {s} "
    covered = [False] * len(words)
    for i in range(0, max(0, len(words) - run_words + 1)):
        if f" {' '.join(words[i:i + run_words])} " in padded:
            covered[i:i + run_words] = [True] * run_words
    return sum(covered) / len(words)


@dataclass
class Note:
    """One verified piece of evidence: what the part says (the model's words) and where it says it."""
    id: int                   # 1-based, unique in the document, stable across resume
    point: str
    quote: str                # the source text at the located span (not the model's copy of it)
    document: str
    part: int                 # chunk index
    start_char: int           # in the document
    end_char: int
    start_line: int = 0
    end_line: int = 0
    score: float = 0.0        # how closely the model's quote matched, or the passage held the point (0-100)
    origin: str = "model"     # "model": the model's quote, found; "located": its quote was not in the part, the
    #                           passage holding the point's words was; "extract": a sentence taken verbatim;
    #                           "reworded": a sentence code chose, the point the model's checked rewording of it;
    #                           "shortened": as "reworded", the point a shortening in the sentence's own words;
    #                           "subject": a git log's commit subject, chosen by code, as its author wrote it
    # Who said the quote, where the document's label names them and the quote does not show it: a sentence
    # inside a turn ("I felt a bit under-stimulated ." of "Project Manager: Okay . I dunno about ..."), a
    # paragraph going on with a Japanese turn. "" where the quote opens with its label, or no label names one.
    # Its note says who ("Project Manager feels ..."); without it the sources could not show whose words
    # they were, and half the quotes of the development meetings' notes (237 of 467) are such sentences.
    speaker: str = ""

    def as_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> "Note":
        return cls(**{k: data[k] for k in cls.__dataclass_fields__ if k in data})


@dataclass
class NoteCheck:
    """What verification kept and dropped for one part (shown, never silent: a hallucination guard)."""
    kept: list[Note] = field(default_factory=list)
    unsupported: list[str] = field(default_factory=list)    # sentences whose rewording every ask got refused
    repeats: int = 0
    # the refused answers by the checks that refused them (engine.summary.checks): an answer counts once under
    # each check that refused it, every ask included (a sentence asked three times can count three times)
    refused_by: dict[str, int] = field(default_factory=dict)


REPEAT_POINT_RATIO = 88.0      # rapidfuzz ratio of two normalised points, 0-100


def is_repeat(note: Note, kept: list[Note]) -> bool:
    """Same span (mostly), or the same point with the same numbers, as a note already kept."""
    numbers = sorted(_NUMBER.findall(note.point))
    point = normalise(note.point).text
    for other in kept:
        overlap = min(note.end_char, other.end_char) - max(note.start_char, other.start_char)
        if overlap > 0.5 * min(note.end_char - note.start_char, other.end_char - other.start_char):
            return True
        if sorted(_NUMBER.findall(other.point)) == numbers and \
                fuzz.ratio(point, normalise(other.point).text) >= REPEAT_POINT_RATIO:
            return True
    return False
