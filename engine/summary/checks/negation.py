"""Checks that a written text negates what its sentences negate, and nothing else."""
from __future__ import annotations

import re

from precis.engine.summary.alignment import PartIndex
from precis.engine.summary.checks import (
    ACCOUNT_LINE,
    ACCOUNT_MERGE,
    EN,
    MERGE,
    REWORDING,
    Check,
    Claim,
    Example,
    against_rests_on,
    merge_claim,
)
from precis.engine.summary.checks import note_example as _note
from precis.engine.summary.evidence import content_words

# A rewording that says the opposite of its sentence passes the word checks: "not" and "no" are stop
# words, and the 1.5B model turned "出力も完全に一致しており透過性も問題なし。" (transparency: no problem)
# into "出力と完全一致、透過性なし" (no transparency), every bigram but one in its sentence. A negation the point
# brings in is what inverts a sentence. One it drops, among 102 rewordings kept in development runs (two
# meetings, a story), was a question tag ("..., wouldn't you?") or said another way ("not too much extra
# cost" -> "at a reasonable cost") in 6 of 7, so only a brought-in negation is refused.
NEGATION_EN = re.compile(r"\b(?:not|no|never|none|nobody|nothing|neither|nor|cannot|without)\b|n['’]t\b", re.I)
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
    if NEGATION_EN.search(point) and not NEGATION_EN.search(source):
        return True
    said, held = _japanese_plain(point), _japanese_plain(source)
    # a verb's negation after its stem in kana: "使いません" said plain is "使わない", another kana before "な"
    verb_negated = bool(re.search(r"[\u3040-\u309f](?:な[いしく]|ません)", source))
    for m in _NEGATION_JA.finditer(said):
        before = said[m.start() - 1]
        if not re.search(re.escape(before) + "な[いしく]", held) and \
                not ("\u3040" <= before <= "\u309f" and verb_negated):
            return True
    source_negates = bool(_NEGATION_JA.search(held) or NEGATION_EN.search(source))
    return any(m.group(0) not in held and not source_negates for m in _NEGATING_PREFIX.finditer(said))


def _invented(claim: Claim) -> str | None:
    """A negation its sentences do not make: "Swarts does not answer" of "Swarts answered". An account's line
    is held to the sentences it was linked to (none linked: nothing to hold it to), a note to its sentence, a
    merge to its two notes and their quotes."""
    if claim.text and claim.sources and negation_invented(claim.text, claim.sources):
        return "a negation its sentences do not make"
    return None


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
# clause's), which is asked again like any refused rewording. It reads English (languages).
NEGATED_SCOPE_WORDS = 10         # the words after a negation that it negates, up to the clause's end
NEGATED_WORDS_KEPT = 2           # a rewording keeping this many of them, un-negated, inverts its sentence
_CLAUSE_END = re.compile(r"[,.;:!?()\n]|\b(?:but|because|so|although|though|while|whereas)\b", re.I)
_DOUBT = re.compile(r"\b(?:doubt\w*|unsure|uncertain\w*|hard|harder|difficult\w*|unable|impossible|avoid\w*|"
                    r"against|reluctan\w*|refus\w*|reject\w*|oppos\w*|hesita\w*|skeptic\w*|sceptic\w*|"
                    r"question\w*|concern\w*|worr\w*|prevent\w*|fail\w*|absen\w*)\b", re.I)


def negation_dropped(point: str, source: str) -> bool:
    """``point`` says, un-negated, what ``source`` negates: it has no negation and no word of doubt or
    difficulty, and keeps at least NEGATED_WORDS_KEPT content words of a negated clause (the words after "not",
    "n't", "no", "without", ... up to the clause's end, at most NEGATED_SCOPE_WORDS of them)."""
    if NEGATION_EN.search(point) or _DOUBT.search(point):
        return False
    kept = content_words(point)
    for m in NEGATION_EN.finditer(source):
        rest = source[m.end():]
        end = _CLAUSE_END.search(rest)
        scope = " ".join(rest[:end.start() if end else len(rest)].split()[:NEGATED_SCOPE_WORDS])
        if len(content_words(scope) & kept) >= NEGATED_WORDS_KEPT:
            return True
    return False


MARS = ("Bruce invited them in. Jacobs' thin face frowned slyly at Bruce. \"We all know you killed Lieutenant "
        "Doran,\" Terrence said. Swarts answered every question Maitland asked.")


def _line(text: str, part: str = MARS) -> Claim:
    return Claim(text, part, PartIndex(part).align(text))


def _merge(merged: str, a: str, b: str) -> Claim:
    return merge_claim(merged, ((a, a), (b, b)), None)


# The 1.5B model's rewordings in development runs, as it wrote them (sentence, rewording): what a sentence
# negated, said un-negated, and the same negation said another way
INVERTED = (
    ("Mika: Morning. Priya says 13 goes out of support and she does not want to run an unsupported major on the "
     "billing cluster past the end of the year.",
     "Mika proposes moving the billing cluster past the end of the year due to a lack of support for 13"),
    ("Marketing: 'Cause you don't tend to get flat vegetables .", "Marketing states vegetables are flat"),
    ("Industrial Designer: So if if we use uh latex cases , they won't allow us to use solar cells , as an energy "
     "source that is the constraint ,", "Industrial Designer suggests using latex cases instead of solar cells"),
    ("User Interface: without titanium alloy , it's going to be light .",
     "User Interface suggests using titanium alloy for a lightweight UI"),
    ("User Interface: because it's uh otherwise people don't want to flip through all the channels .",
     "User Interface discusses flipping through channels with rubber construction"),
)
SAID_OTHERWISE = (
    ("Industrial Designer: I'm not sure it'll be a good idea to construct the whole thing out of rubber .",
     "Industrial Designer expresses uncertainty about rubber construction idea."),
    ("User Interface: N wood is I can't n how do you uh I mean you can't keep it really small uh",
     "User Interface: N wood is hard to keep small, they suggest channel numbers"),
    ("User Interface: Yeah , but you um I think for for the channel numb uh channel numbers you still need them , "
     "wouldn't you ?", "User Interface: Yes, but you still need channel numbers for the channel numbering system"),
    ("Marketing: Depends how fast your television runs , really , don't don't you think ?",
     "Marketing asks if the television runs fast enough"),
    ("Project Manager: I think if we can include them at not too much extra cost , then I'd put them in ,",
     "The PM would include them at a reasonable cost"),
    ("We decided the case will not be yellow.", "The case won't be yellow"),
)
OUTPUT = "出力も完全に一致しており透過性も問題なし。"
_REVIEW = "The filename rule might not be one-to-one, so distinct valid targets can overwrite cache entries."

CHECKS = (
    Check("negation_invented", frozenset({ACCOUNT_LINE, REWORDING, MERGE, ACCOUNT_MERGE}), None, _invented,
          refuses=(Example(_line("Swarts does not answer Maitland's questions."), "the opposite of the part"),
                   Example(_note("出力と完全一致、透過性なし", OUTPUT, "Japanese"),
                           "no problem with transparency said as no transparency (development session)"),
                   Example(_note("キャッシュを使わない", "キャッシュを使います。", "Japanese"), "a verb negated"),
                   Example(_note("不要なファイルを削除", "必要なファイルを削除しました。", "Japanese"),
                           "a negating prefix"),
                   Example(_note("The team did not choose the yellow case", "The team chose the yellow case."),
                           "a negation brought in"),
                   Example(_note("The remote has no screen", "The remote has a small screen."), "no, brought in"),
                   Example(_merge("Mika proposes not launching the remote in May",
                                  "Mika proposes moving the launch of the remote to May",
                                  "Mika says the supplier delivers the cases in May"), "a merge that negates")),
          passes=(Example(_line("Swarts answers every question Maitland asks."), "as said"),
                  Example(_note("出力は完全一致し、透明性も問題なし", OUTPUT, "Japanese"), "what it says now"),
                  Example(_note("問題なし", "テストは全 pass、問題ありません。", "Japanese"),
                          "the polite form said plainly"),
                  Example(_note("エラー結果はキャッシュしない", "エラー結果をキャッシュしません。", "Japanese"),
                          "the same negation"),
                  Example(_note("キャッシュを使わない", "キャッシュを使いません。", "Japanese"),
                          "another verb stem, negated"),
                  Example(_note("未実装の機能", "その機能はまだ実装していない。", "Japanese"),
                          "a prefix for a negation"),
                  Example(_note("The PM would include them at a reasonable cost", SAID_OTHERWISE[4][0]),
                          "a negation dropped, said another way: not this check's"),
                  Example(_note("The case won't be yellow", "We decided the case will not be yellow."),
                          "the same negation in another form"))),
    Check("negation_dropped", frozenset({REWORDING, MERGE, ACCOUNT_MERGE}), frozenset({EN}),
          against_rests_on(negation_dropped, "says un-negated what its sentence negates"),
          refuses=tuple(Example(_note(point, sentence), "what its sentence negates, said un-negated (development "
                                                        "runs)") for sentence, point in INVERTED)
          + (Example(_merge("Mika proposes a May launch as the supplier delivers the cases before May",
                            "Mika proposes moving the launch of the remote to May",
                            "Mika says the supplier cannot deliver the cases before May"), "a merge that un-negates"),),
          passes=tuple(Example(_note(point, sentence), "the negation said another way or a question tag")
                       for sentence, point in SAID_OTHERWISE)
          + (Example(_note("ファイル名の規則は一対一ではない可能性があり、valid targets が cache entries を"
                           "上書きしうる", _REVIEW, "Japanese"), "said in Japanese, which it does not read"),)),
)
