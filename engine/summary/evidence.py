"""Evidence: notes, the text of the document they rest on, and the checks that hold a note to it.

A note's quote is the document's own text at a recorded span (a sentence code chose, a commit subject),
so it is evidence by construction; what the model writes is checked against it: a point's numbers must
appear in its sentence and most of its content words (``point_supported``), and a point mostly copied
word for word is no note (``copy_share``). Small models clean text up as they go (fillers dropped: "um",
"uh", "えー"; spacing and case changed), so comparisons run on normalised text with a map back to the
original characters, and near-repeats are found with rapidfuzz (a maintained, fast Levenshtein
implementation).
"""
from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field

from rapidfuzz import fuzz

from precis.engine.documents.spoken_text import is_exchange

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
i'm we're they're you're don't didn't isn't wasn't aren't
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


# A rewording that says the opposite of its sentence passes the word checks: "not" and "no" are stop
# words, and the 1.5B model turned "出力も完全に一致しており透過性も問題なし。" (transparency: no problem)
# into "出力と完全一致、透過性なし" (no transparency), every bigram but one in its sentence. A negation the point
# brings in is what inverts a sentence. One it drops, among 102 rewordings kept in development runs (two
# meetings, a story), was a question tag ("..., wouldn't you?") or said another way ("not too much extra
# cost" -> "at a reasonable cost") in 6 of 7, so only a brought-in negation is refused.
_NEGATION_EN = re.compile(r"\b(?:not|no|never|none|nobody|nothing|neither|nor|cannot|without)\b|n['’]t\b", re.I)
# Japanese: the polite and written forms said the plain way, so that "問題なし" holds "問題ありません"
_NEGATION_JA_FORMS = (("ありません", "ない"), ("ません", "ない"), ("無し", "なし"), ("無い", "ない"), ("無く", "なく"))
_NEGATION_JA = re.compile(r"(?<=[\u3040-\u30ff\u3400-\u9fff])な[いしく]")
_NEGATING_PREFIX = re.compile(r"[不未非無][\u3400-\u9fff]")


def _japanese_plain(text: str) -> str:
    text = "".join(c for c in text if not c.isspace())
    for form, plain in _NEGATION_JA_FORMS:
        text = text.replace(form, plain)
    return text


def negation_invented(point: str, source: str) -> bool:
    """``point`` negates what ``source`` does not: a negation word where the source has none, or, in
    Japanese, a negation ("ない", "なし", "なく", "不", "未", ...) on a word the source does not negate (the
    character before "な" and "な" itself, or the prefix and its word, must stand so in the source)."""
    if _NEGATION_EN.search(point) and not _NEGATION_EN.search(source):
        return True
    said, held = _japanese_plain(point), _japanese_plain(source)
    # a verb's negation after its stem in kana: "使いません" said plain is "使わない", another kana before "な"
    verb_negated = bool(re.search(r"[\u3040-\u309f](?:な[いしく]|ません)", source))
    for m in _NEGATION_JA.finditer(said):
        before = said[m.start() - 1]
        if not re.search(re.escape(before) + "な[いしく]", held) and \
                not ("\u3040" <= before <= "\u309f" and verb_negated):
            return True
    source_negates = bool(_NEGATION_JA.search(held) or _NEGATION_EN.search(source))
    return any(m.group(0) not in held and not source_negates for m in _NEGATING_PREFIX.finditer(said))


# The 1.5B model also drops a negation and keeps what it negated: of 146 English rewordings kept in the
# development runs at hand (the meetings, the story, the sample day), 19 drop their sentence's negation; 12
# say the same thing another way or drop a question tag ("..., wouldn't you?" -> "you still need channel
# numbers"; "I'm not sure it'll be a good idea ... rubber" -> "doubts rubber suitability"), 7 invert or
# distort it, each keeping two or more words of what the sentence negated: "you don't tend to get flat
# vegetables" -> "Marketing states vegetables are flat"; "without titanium alloy, it's going to be light" ->
# "suggests using titanium alloy for a lightweight UI"; "she does not want to run an unsupported major on
# the billing cluster past the end of the year" -> "Mika proposes moving the billing cluster past the end
# of the year" (the README's screenshot). A rewording that keeps two of the negated words, with no negation
# and no word of doubt or difficulty of its own, is refused: all 7 of those, and one of the 12 ("the door he
# couldn't open slid aside into the wall" -> "The door slid aside into the wall": the negation is a relative
# clause's), which is asked again like any refused rewording.
# These checks read English. A Japanese rewording of an English sentence (an English review quoted in a
# Japanese session) says its negation, stance or condition in Japanese, which they cannot see: they pass it.
_KANA_KANJI = re.compile(r"[\u3040-\u30ff\u3400-\u9fff]")
NEGATED_SCOPE_WORDS = 10         # the words after a negation that it negates, up to the clause's end
NEGATED_WORDS_KEPT = 2           # a rewording keeping this many of them, un-negated, inverts its sentence
_CLAUSE_END = re.compile(r"[,.;:!?()\n]|\b(?:but|because|so|although|though|while|whereas)\b", re.I)
_DOUBT = re.compile(r"\b(?:doubt\w*|unsure|uncertain\w*|hard|harder|difficult\w*|unable|impossible|avoid\w*|"
                    r"against|reluctan\w*|refus\w*|reject\w*|oppos\w*|hesita\w*|skeptic\w*|sceptic\w*|"
                    r"question\w*|concern\w*|worr\w*|prevent\w*|fail\w*|absen\w*)\b", re.I)


def negation_dropped(point: str, source: str) -> bool:
    """``point`` says, un-negated, what ``source`` (English) negates: it has no negation and no word of
    doubt or difficulty, and keeps at least NEGATED_WORDS_KEPT content words of a negated clause (the words
    after "not", "n't", "no", "without", ... up to the clause's end, at most NEGATED_SCOPE_WORDS of them)."""
    if _NEGATION_EN.search(point) or _DOUBT.search(point) or _KANA_KANJI.search(point):
        return False
    kept = content_words(point)
    for m in _NEGATION_EN.finditer(source):
        rest = source[m.end():]
        end = _CLAUSE_END.search(rest)
        scope = " ".join(rest[:end.start() if end else len(rest)].split()[:NEGATED_SCOPE_WORDS])
        if len(content_words(scope) & kept) >= NEGATED_WORDS_KEPT:
            return True
    return False


# A guess said as a fact: "My hypothesis: the period code compares a naive datetime with an aware one
# after normalising one side ..." became "Orin normalizes the datetime before comparing it with an aware
# one" (the sample day), "So probably double curved surface is the way to go" became "Industrial Designer
# explains double curved surfaces as the constraint". Of the 146 English rewordings at hand, 27 have a
# sentence that hedges (a hypothesis, "maybe", "probably", "I think", ...): 23 keep a word of stance
# ("suggests", "thinks", "might", "proposes", "plans", ...), 4 state it flat, those two among them, one
# fairly ("I think ... you still need them, wouldn't you?" -> "you still need channel numbers"). Saying
# who says it ("Orin mentions that ...") is no stance: it reports a guess as a claim.
_HEDGE = re.compile(r"\b(?:hypothes\w*|maybe|might|perhaps|probably|possibly|presumably|i think|i guess|i suspect|"
                    r"i believe|i assume|i'd say|i feel|not sure|seems?|could be|my guess)\b", re.I)
# "may" in lower case only: "the cases in May" is a month, no stance
_STANCE = re.compile(r"\b(?:suggest\w*|think\w*|thought|believ\w*|propos\w*|hypothes\w*|(?-i:may)|might|maybe|perhaps|"
                     r"possib\w*|probab\w*|likely|unlikely|suspect\w*|guess\w*|unsure|uncertain\w*|wonder\w*|"
                     r"idea|consider\w*|could|seem\w*|opinion|feel\w*|felt|recommend\w*|prefer\w*|doubt\w*|"
                     r"question\w*|ask\w*|want\w*|hope\w*|expect\w*|should|would|assum\w*|speculat\w*|"
                     r"view|argu\w*|favou?r\w*|plan\w*|intend\w*|if)\b", re.I)


def hedge_dropped(point: str, source: str) -> bool:
    """``source`` (English) hedges what it says and ``point`` states it flat: no word of stance in it."""
    return bool(_HEDGE.search(source)) and not _STANCE.search(point) and not _KANA_KANJI.search(point)


# A question said as a statement: "Do you think these pens can give you cancer of the hand ?" became
# "Pens could cause cancer of the hand", "What if you get a response two or three months from now ?"
# "Industrial Designer suggests waiting for a response two to three months", "Any new ideas with regard to
# remote control concepts ?" "User Interface proposes remote control concepts". Of the 26 English
# rewordings of questions in development runs, 14 say no question; 6 of those ask one, all six turned
# into a claim or a proposal, and 8 end on a tag ("..., wouldn't you ?", "..., right ?", "... huh ?"),
# statements that a note may say flat.
_QUESTION_TAG = re.compile(
    r"(?:,|\b(?:huh|eh|right|yeah|no|okay|ok))\s*(?:(?:is|are|was|were|do|does|did|have|has|had|can|could|will|would|"
    r"should|shall|must)(?:n['’]?t)?\s+(?:not\s+)?(?:i|you|we|they|he|she|it|there|that)|huh|eh|right|yeah|no|okay|ok)?"
    r"\s*\?\s*$", re.I)
_ASKED = re.compile(r"\b(?:ask\w*|question\w*|wonder\w*|whether|if|inquir\w*|quer\w*|doubt\w*|unsure|unclear|"
                    r"uncertain\w*|how|what|why|which|who|whom|when|where)\b|\?", re.I)


def question_dropped(point: str, source: str) -> bool:
    """``source`` (an English sentence, not an exchange of turns) asks a question and ``point`` says no
    question: no word that asks, doubts or wonders, no "?". A question tag does not make a question."""
    asked = source.rstrip()
    if not asked.endswith("?") or _QUESTION_TAG.search(asked) or is_exchange(asked):
        return False
    return not _ASKED.search(point) and not _KANA_KANJI.search(point)


# A statement reported as a proposal: "Um and we've got a rubber skin material basically throughout ." became
# "Project Manager proposes using rubber skin material throughout the project", "So it removes the first
# silent portion of each utterance ." "PhD C proposes removing the first silent portion", "We've attempted to
# put an end to these contests altogether." "They propose ending these contests altogether". A note may
# say someone proposes, suggests, recommends or advises only when the sentence says something of the kind: a
# modal, a wish or need, an opinion, a plan, a question. Of the 148 English rewordings of development runs
# that say so, 41 stand on a sentence with none of these words; reading them, 36 are distortions.
_PROPOSED = re.compile(r"\b(?:propos\w*|suggest\w*|recommend\w*|advis\w*)\b", re.I)
_PROPOSAL_WORD = re.compile(
    r"\b(?:should|shall|could|would|might|may|maybe|perhaps|probably|let's|let us|how about|what about|why not|"
    r"suggest\w*|propos\w*|recommend\w*|advis\w*|idea|i think|i guess|i suppose|i'd|we'd|you'd|need\w*|"
    r"have to|has to|got to|gotta|want\w*|wanna|can|better|best|try|prefer\w*|option\w*|plan\w*|go for|"
    r"the way to go|instead|must|ought|important|essential)\b|\?", re.I)


# The same in Japanese: "提案" (proposes) or "すべき" (should) of a sentence that states. Of the 206 Japanese
# rewordings kept in development runs, 7 said so of a sentence without a proposal, a wish, a need, a plan or
# a question, and all 7 were wrong; "羽田新飛行ルートの推進は国が安全を顧みずにすべきです" (the state should
# push the new route disregarding safety) of "都民の安全を顧みず、羽田新飛行ルートを推進している国の責任は重大
# です" (the state that pushes it disregarding safety bears a grave responsibility) says the opposite.
_PROPOSED_JA = re.compile(r"提案|推奨|勧め|提言|すべき|べきだ|べきで")
_PROPOSAL_WORD_JA = re.compile(r"提案|推奨|勧め|提言|べき|しましょう|ましょう|方が|ほうが|てはどう|ではどう|ませんか|"
                               r"でしょうか|ないか|案|望|求め|要望|必要|たい|ほしい|欲しい|予定|計画|検討|[?？]")


def proposal_invented(point: str, source: str) -> bool:
    """``point`` says someone proposes (suggests, recommends, advises; in Japanese also "should") what
    ``source`` states: the sentence has no word that proposes, wishes, needs, hedges, plans or asks."""
    if _KANA_KANJI.search(point):
        return bool(_PROPOSED_JA.search(point)) and not _PROPOSAL_WORD_JA.search(source)
    return bool(_PROPOSED.search(point)) and not _PROPOSAL_WORD.search(source)


# The verb a note proposes with, and what says the same without proposing: "suggests that X" / "suggests the
# theme doesn't fit" say ("says ..."), "suggests using X" / "suggests double curved surfaces" mention, "advises
# against X" speaks against. Refused for its verb alone, a rewording lost its fact: on a development meeting
# "That doesn't fit in with the whole vegetable theme though." was noted "Marketing suggests the launch theme
# doesn't fit well", refused, and nothing of it reached the summary.
_PROPOSAL_VERB = re.compile(r"\b(?:propos(e|es|ed|ing)|suggest(|s|ed|ing)|recommend(|s|ed|ing)|advis(e|es|ed|ing))\b",
                            re.I)
_CLAUSE_AHEAD = re.compile(r"^(?:that\b|to\b|(?:[\w'-]+\s+){0,5}?(?:is|are|was|were|will|would|can|could|should|must|"
                           r"may|might|has|have|had|does|do|did|[\w]+n't)\b)", re.I)
_PLAIN_VERBS = {"say": {"s": "says", "es": "says", "ed": "said", "e": "say", "": "say", "ing": "saying"},
                "mention": {"s": "mentions", "es": "mentions", "ed": "mentioned", "e": "mention", "": "mention",
                            "ing": "mentioning"},
                "speak": {"s": "speaks", "es": "speaks", "ed": "spoke", "e": "speak", "": "speak", "ing": "speaking"}}


def plainly_said(point: str) -> str:
    """``point`` with its first proposing verb said plainly, in its tense: "Marketing suggests the theme
    doesn't fit" -> "Marketing says the theme doesn't fit", "PhD C proposes removing the first silent
    portion" -> "PhD C mentions removing ...". For a rewording ``proposal_invented`` refuses: the rest of it
    is checked as any rewording is."""
    m = _PROPOSAL_VERB.search(point)
    if m is None:
        return point
    ending = next(g for g in m.groups() if g is not None).lower()
    rest = point[m.end():].lstrip()
    verb = "speak" if rest.lower().startswith("against") else "say" if _CLAUSE_AHEAD.match(rest) else "mention"
    plain = _PLAIN_VERBS[verb][ending]
    if m.group(0)[0].isupper():
        plain = plain.capitalize()
    return point[:m.start()] + plain + point[m.end():]


# A reason the sentence does not give: the bundled SmolLM2 noted "User Interface proposes putting the LCD
# next to the wheel because it's a new design" of "User Interface: Then I'd put the LCD next to the wheel."
# (a test meeting), two words of its own within what the word-support check allows. A note may give a cause
# when its sentence has some word of one; of the 26 of 1,081 kept rewordings by the 1.5B model that say
# "because", "due to" or the like, every one stands on such a sentence ("just out of boredom", "is to do with
# COVID-19", "in response to the elevated inflationary environment").
_REASON_GIVEN = re.compile(r"\b(?:because|due to|owing to|as a result|therefore|thus|hence|so that|in order to)\b",
                           re.I)
_REASON_WORD = re.compile(r"\b(?:because|cause[sd]?|cuz|cos|since|as|due|owing|result\w*|therefore|thus|hence|so|"
                          r"reasons?|why|for|given|means?|lead|leads|led|makes?|made|order|out of|to do with|"
                          r"response|respond\w*|thanks|driven|drives?|from|after)\b|'cause", re.I)


def reason_invented(point: str, source: str) -> bool:
    """``point`` (English) gives a reason ("because", "due to", ...) where ``source`` has no word of a cause."""
    return bool(_REASON_GIVEN.search(point)) and not _REASON_WORD.search(source)


# A condition turned around: "If rsync fails for any reason, the fallback is pg_basebackup ..." became
# "Orin suggests using rsync as a fallback if pg_basebackup fails" (the sample day, the README's
# screenshot), every word its sentence's. Of the 9 rewordings at hand with a condition in both, it is the
# one whose condition is made of its sentence's consequence and whose consequence of its condition.
_CONDITION = re.compile(r"\b(?:if|unless)\b", re.I)
_CONDITION_END = re.compile(r"[,.;:!?()\n]|\bthen\b", re.I)


def _condition_split(text: str) -> tuple[set[str], set[str]] | None:
    """The content words of ``text``'s first "if"/"unless" clause and of the rest (None: no condition)."""
    m = _CONDITION.search(text)
    if m is None:
        return None
    end = _CONDITION_END.search(text, m.end())
    stop = end.start() if end else len(text)
    return content_words(text[m.end():stop]), content_words(text[:m.start()] + " " + text[stop:])


def conditional(text: str) -> bool:
    """``text`` says "if" or "unless"."""
    return bool(_CONDITION.search(text))


def condition_swapped(point: str, source: str) -> bool:
    """``point`` turns around a condition of ``source`` (English): a word only of the source's condition
    stands only in the point's consequence, and one only of the source's consequence only in the point's
    condition ("if rsync fails, the fallback is pg_basebackup" -> "rsync as a fallback if pg_basebackup
    fails")."""
    said, held = _condition_split(point), _condition_split(source)
    if said is None or held is None or _KANA_KANJI.search(point):
        return False
    (point_if, point_then), (source_if, source_then) = said, held
    moved_out = (source_if - source_then) & (point_then - point_if)
    moved_in = (source_then - source_if) & (point_if - point_then)
    return bool(moved_out and moved_in)


# A number given in parentheses as another time's or a plan's value ("(現状 1-3 秒)", "(last year $3.1
# million)") read as the sentence's own once its qualifier is left out: the 1.5B model wrote "キャッシュヒット時
# 1-3 秒の遅延" (a cache hit takes 1-3 s) of "キャッシュヒット時 <100ms (現状 1-3 秒)" (a hit: under 100 ms;
# today: 1-3 s). The one such note of 1,081 rewordings kept in development runs.
_PARENTHESES = re.compile(r"[(（]([^()（）\n]{1,80})[)）]")
_OTHER_VALUE = re.compile(r"\b(?:last|prior|previous|previously|before|was|were|vs|versus|compared|target|goal|"
                          r"plan|planned|budget|budgeted|expected|estimated?|forecast|guidance|old|current|"
                          r"currently|now|today)\b|現状|現在|従来|前年|昨年|前期|前回|以前|旧|目標|予定|計画|予算|見込み|想定"
                          r"|比較", re.I)


def qualifier_dropped(point: str, source: str) -> bool:
    """``point`` keeps a number that ``source`` gives in parentheses as another time's or a plan's value and
    leaves out what said so."""
    numbers = set(_NUMBER.findall(point))
    for group in _PARENTHESES.finditer(source):
        first = _NUMBER.search(group.group(1))
        if not first or first.group() not in numbers:
            continue
        qualifier = _OTHER_VALUE.search(group.group(1)[:first.start()])
        if qualifier and qualifier.group(0).lower() not in point.lower():
            return True
    return False


COPY_RUN_WORDS = 6               # a run of this many words in a row, found in the source, is copied
COPY_RUN_CHARS = 12              # the same for Japanese, in characters


def copy_share(text: str, source: str, source_norm: Normalised | None = None) -> float:
    """The share of ``text`` (normalised) inside runs copied word for word from ``source``."""
    t = normalise(text).text
    s = (source_norm or normalise(source)).text
    if not t:
        return 0.0
    if sum(1 for c in t if ord(c) > 0x3000) > len(t) / 3:
        n = COPY_RUN_CHARS
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
    for i in range(0, max(0, len(words) - COPY_RUN_WORDS + 1)):
        if f" {' '.join(words[i:i + COPY_RUN_WORDS])} " in padded:
            covered[i:i + COPY_RUN_WORDS] = [True] * COPY_RUN_WORDS
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
    #                           "subject": a git log's commit subject, chosen by code, as its author wrote it

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
