"""Checks that what was written stands on what it rests on: its words are the part's, its sentence's or its
notes', and it makes up nothing of its own (the end of a sentence broken off, the worked example's story)."""
from __future__ import annotations

import functools
import re
from dataclasses import replace

from precis.engine.documents.spoken_text import LABEL_AT_LINE_START, SPEAKER_PREFIX, clean_utterance
from precis.engine.prompts.account import CHAT_EXAMPLE_JA
from precis.engine.prompts.notes import example_text
from precis.engine.summary.checks import (
    ACCOUNT_LINE,
    ACCOUNT_MERGE,
    HEADING,
    MERGE,
    REWORDING,
    Check,
    Claim,
    Example,
    heading_claim,
    merge_claim,
)
from precis.engine.summary.checks import line_example as _line
from precis.engine.summary.checks import note_example as _note
from precis.engine.summary.checks.names import MEETING, REPORTING, STORY
from precis.engine.summary.evidence import cjk_bigrams, content_words, numbers_held, point_supported

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


def _words_not_held(claim: Claim) -> str | None:
    """A note's numbers must all be its sentence's and most of its words (engine.summary.evidence.
    point_supported); a merge's, its two notes' and their quotes'."""
    if not claim.text or not point_supported(claim.text, claim.sources):
        return "a number or most of its words are not in what it rests on"
    return None


EXAMPLE_WORDS_SHOWN = 2          # words of the worked example, absent from the part, that make a leak



@functools.lru_cache(maxsize=8)               # one worked example per run: read once, not per line
def _example_themes(example: str) -> frozenset[str]:
    """The words the worked example says twice or more: what it is about (its van, its ferry, its engine).
    Its turns' labels ("Chair:", "[user]") are left out: every meeting has a chair, every chat a user."""
    text = re.sub(r"(?m)^\s*\[[a-z]+\]\s*", "", LABEL_AT_LINE_START.sub("", example))
    sentences = [content_words(s) for s in re.split(r"(?<=[.!?\n])\s+", text)]
    return _said_twice(sentences)


def _said_twice(pieces: list[set[str]]) -> frozenset[str]:
    """The words found in two of ``pieces`` or more."""
    return frozenset(w for w in set().union(*pieces) if sum(w in piece for piece in pieces) >= 2)


def _example_leak(claim: Claim) -> str | None:
    """Words of the worked example the part does not hold: the example's story told of this part. One word
    is enough when it is a name of the example's or a word it keeps coming back to ("a tiger symbol on the
    front of the van", a development meeting with no van in it, of the meeting example's delivery van). Of a
    rewording too (the notes strategy's example: a launch moved to May, a price "as agreed"): replayed over
    487 kept rewordings of the check half, it refused 8, "PhD D proposes moving the launch to May because he
    has a Friday off" among them; 7 of the 8 labelled unfaithful, the other a story's "before")."""
    if not claim.example:
        return None
    leaked = (content_words(claim.example) & content_words(claim.text)) - content_words(claim.shown)
    names = {w.lower() for w in re.findall(r"\b[A-Z][a-z]{2,}\b", claim.example)} & leaked
    if names or leaked & _example_themes(claim.example) or len(leaked) >= EXAMPLE_WORDS_SHOWN:
        return f"the worked example's {', '.join(sorted(leaked))}, not the part's"
    told = _ideograph_pairs(claim.example) & _ideograph_pairs(claim.text) - cjk_bigrams(claim.shown)
    if told & _example_themes_ja(claim.example):
        return f"the worked example's {'、'.join(sorted(told))}, not the part's"
    return None


_IDEOGRAPH_PAIR = re.compile(r"(?=([\u30a0-\u30ff\u4e00-\u9fff]{2}))")      # two kanji or katakana in a row


def _ideograph_pairs(text: str) -> set[str]:
    """Japanese words, roughly: kanji and katakana pairs (kana-only pairs are mostly particles and endings)."""
    return set(_IDEOGRAPH_PAIR.findall(text))


@functools.lru_cache(maxsize=8)
def _example_themes_ja(example: str) -> frozenset[str]:
    """A Japanese example's words said on two lines or more (its 議長, its バン): told of a part that does not
    hold them, they are the example's story (a day with an assistant summed up as '議長が ...'). A chat's turn
    labels ("[ユーザー]") are left out: every chat has a user, and its lines open with ユーザーが."""
    lines = [_ideograph_pairs(re.sub(r"^\s*\[[^\]\n]{1,20}\]", "", line)) for line in example.splitlines()
             if line.strip()]
    return _said_twice(lines)


# An utterance its speaker broke off ends, with no full stop, on a word no finished English sentence ends
# with: an article, a preposition (not one that ends a phrasal verb: "put them in"), a conjunction, a
# subject or a possessive, fillers aside ("... 'cause they're", "... I mean removing the").
_BROKEN_OFF = re.compile(
    r"(?i:\b(?:the|a|an|to|of|at|for|with|from|into|by|about|than|and|or|but|because|'cause|cause|if|"
    r"i|we|they|he|she|i'm|we're|they're|you're|it's|that's|there's|he's|she's|my|our|your|their|its|gonna))\W*$")
_ELLIPSIS_TO = re.compile(r"(?i:\b(?:want|wanted|wanna|have|has|had|need|needed|going|like|love|used|ought|got) "
                          r"to)\W*$")                                     # "... as you want to" is finished
# the words a note uses to say who said what: no content of the sentence's
_NOTE_VERBS = content_words(REPORTING.replace("|", " ") + " states proposes notes discusses agrees considers "
                            "expresses describes confirms adds emphasizes points recommends")
BROKEN_OFF_ADDED_WORDS = 2       # content words a note of a broken-off utterance may not add


def broken_off(quote: str) -> bool:
    """True when ``quote`` is an utterance its speaker left unfinished (see ``_BROKEN_OFF``). A sentence
    without a full stop ends at its line's end: in a meeting transcript, where another speaker cut in."""
    quote = quote.rstrip()
    if not quote or quote.endswith((".", "!", "?", "。", "！", "？", '"', "”")):
        return False
    said = clean_utterance(quote)                      # "... our project process um" is finished
    return bool(_BROKEN_OFF.search(said)) and not _ELLIPSIS_TO.search(said)


def completes_broken_off(point: str, quote: str, shown: str) -> bool:
    """A note of a broken-off utterance (``quote``) that adds content words of its own to what the sentence
    as shown (``shown``: with its speaker, letters unspelled) says: it makes up how the sentence ends. On a
    development meeting the 1.5B model turned "'Cause we can't remove the push buttons 'cause they're" into
    "... can't remove push buttons due to their importance" and "um and we can't get rid of the uh I mean
    removing the" into "Project Manager suggests removing the unnecessary item". Of the 8 rewordings of
    broken-off meeting utterances in development runs, this refuses the 6 that add or distort ("LCDs will
    not be able to fit in the wheel", "adding one feature", ...) and passes the 2 fair ones (one word added:
    "colors" for "colours", "aesthetic")."""
    if not broken_off(quote):
        return False
    # spelled letters as a reader writes them: "L_C_D_s" is the note's "LCDs"
    added = content_words(SPEAKER_PREFIX.sub("", point)) - content_words(shown.replace("_", "")) - _NOTE_VERBS
    return len(added) >= BROKEN_OFF_ADDED_WORDS


def _completes(claim: Claim) -> str | None:
    if completes_broken_off(claim.text, claim.quote, claim.rests_on):
        return "makes up how a sentence its speaker broke off ends"
    return None


def _heading_unsupported(claim: Claim) -> str | None:
    """None of its notes' words (a Japanese log's notes name "SDL" and "Windows" in Latin letters: words and
    character pairs both, whatever the script), or a number they do not hold: invented."""
    written = content_words(claim.text) | cjk_bigrams(claim.text)
    if not written & (content_words(claim.evidence) | cjk_bigrams(claim.evidence)) \
            or not numbers_held(claim.text, claim.evidence):
        return "none of its notes' words, or a number they do not hold"
    return None


def _reworded(point: str, sentence: str) -> Claim:
    """A rewording of ``sentence`` with the notes strategy's worked example in view, as notes_extraction
    judges it."""
    return replace(_note(point, sentence), example=example_text(None))


EXAMPLE = "The storm had kept the ferry in port for two days. Captain Ilse Varga ordered the crew aboard."
EXAMPLE_JA = ("議長：では始めます。今日の議題は配送用バンです。\n佐藤：見積もりは二件です。\n"
              "議長：では、5月のレンタルで。")
HOOK_DAY = ("[assistant] コミットがフックのバグで止まりました。フックを飛ばしてコミットします。\n"
            "[user] フックは飛ばしてコミットしてください。")
PART = ("Project Manager: Um, so we we decided to use a wind dynamo, uh, instead of the hand dynamo .\n"
        "Marketing: The LCD costs 12 Euros , which is too much for the budget .\n")
SHA = "レビュー指摘の SHA-256 ハッシュキーを反映済み。"
TITANIUM = (("Marketing proposes a titanium case for the remote", "we could do titanium"),)

CHECKS = (
    Check("unsupported", frozenset({ACCOUNT_LINE}), None, _unsupported,
          refuses=(Example(_line("The crew repairs the engine while the passengers bail water.", STORY),
                           "a line of nothing the part says"),
                   Example(_line("Marketing presents the options for the new delivery van.", MEETING),
                           "the worked example's van, in a meeting on remote controls (development run)")),
          passes=(Example(_line("Maitland wakes in a room that is not his.", STORY), "said in other words"),
                  Example(_line("Swarts introduces himself and wants to give Maitland psychological tests.", STORY),
                          "two sentences joined"))),
    Check("words_not_held", frozenset({REWORDING, MERGE, ACCOUNT_MERGE}), None, _words_not_held,
          refuses=(Example(_note("The LCD costs 15 euros", PART), "a changed number"),
                   Example(_note("Revenue rose sharply in the third quarter", PART), "nothing of its sentence"),
                   Example(_note("SHA-256 ハッシュキーは main リポジトリで作成されたブランチに追加され、"
                                 "新しいデータが保存されます", SHA, "Japanese"),
                           "what the 1.5B model ran on with: its Latin words the sentence's, its Japanese not"),
                   Example(_note("Marketing evaluates it from 1 to 8",
                                 "Marketing: and together we evaluate it from one to seven ."), "8 is not seven"),
                   Example(_note("Professor B suggests a time of 7:8 seconds for R T",
                                 "Professor B: I think it 's I would guess , uh , point seven , point eight seconds "
                                 "f uh , R T"), "point seven is 0.7 (development meeting)"),
                   Example(_note("", PART), "no answer"),
                   Example(merge_claim("The budget is EUR 99,99", (("Mika approves the budget",) * 2,
                                                                   ("Orin counts 12 units",) * 2), None),
                           "a merge with a number neither note holds")),
          passes=(Example(_note("The team chose a wind dynamo over the hand dynamo", PART), "its words"),
                  Example(_note("SHA-256 のハッシュキーをレビュー指摘どおり反映", SHA, "Japanese"),
                          "its words, reordered"),
                  Example(_note("Marketing evaluates it from 1 to 7",
                                "Marketing: and together we evaluate it from one to seven ."),
                          "one to seven, in digits"),
                  Example(_note("Shares were bought back in 2021", "We bought back shares in fiscal '21."),
                          "a year written short"))),
    Check("completes_broken_off", frozenset({REWORDING}), None, _completes,
          refuses=tuple(Example(_note(point, quote), "the end of an interrupted turn made up (development meeting)")
                        for quote, point in (
              ("Project Manager: 'Cause we can't remove the push buttons 'cause they're",
               "Project Manager states they can't remove push buttons due to their importance"),
              ("Project Manager: um and we can't get rid of the uh I mean removing the",
               "Project Manager suggests removing the unnecessary item."),
              ("Industrial Designer: and since we're having L_C_D_s there there's no way that we're will be able to",
               "Industrial Designer suggests that LCDs will not be able to fit in the wheel"),
              ("Industrial Designer: the colour of our remote as such , you know , just keep it black , or",
               "Industrial Designer proposes using case colors instead of remote color"))),
          passes=(Example(_note("Industrial Designer proposes consensus on LCDs because of style and aesthetic.",
                                "Industrial Designer: So now we seem to have a consensus that L_C_D_s are definitely "
                                "the way to go because of style and"), "one word added"),
                  Example(_note("Industrial Designer: We can provide many different colors or fruits",
                                "Industrial Designer: Even we can provide many different colours or different fruits , "
                                "and"), "colors for colours"),
                  Example(_note("Project Manager keeps the push buttons due to their importance",
                                "Project Manager: We can't remove the push buttons , they're what people use most ."),
                          "a finished sentence may be said in other words"),
                  Example(_note("Marketing keeps the push buttons and the rubber case",
                                "Marketing: I think the push buttons and the rubber case stay in the design um"),
                          "finished, a filler after it"),
                  Example(_note("Industrial Designer says the buttons can be printed in any colour",
                                "Industrial Designer: you can get the buttons printed in any colour you want to ,"),
                          "want to ends a sentence"))),
    Check("example_leak", frozenset({ACCOUNT_LINE, REWORDING}), None, _example_leak,
          refuses=(Example(_reworded("PhD D proposes moving the launch to May because he has a Friday off.",
                                     "PhD D: Fridays I have to leave around two ."),
                           "the rewording example's launch told of a sentence about leaving early (check-half "
                           "meeting, labelled unfaithful)"),
                   Example(_reworded("Grad A agrees with long-term solutions",
                                     "Grad A: Well , that's the long term solution , I guess ."),
                           "the example's 'as agreed' made an agreement (check-half meeting, labelled unfaithful)"),
                   Example(_line("議長が、リポジトリの現状を調査する。",
                                 "[assistant] まずコードベースを調査して、現状を理解します。",
                                 example=EXAMPLE_JA, language="Japanese"),
                           "the Japanese meeting example's chair told of a day with an assistant (a development run)"),
                   Example(_line("Maitland waits two days in port before the ferry leaves.", STORY, example=EXAMPLE),
                           "the worked example's ferry told of a story's part (development run)"),
                   Example(_line("Maitland paints a tiger on the ferry.", STORY, example=EXAMPLE + " The ferry left."),
                           "one word the example keeps coming back to (a development meeting's 'van')"),
                   Example(_line("アシスタントが、コミットの文字化けを直す。", HOOK_DAY,
                                 example=CHAT_EXAMPLE_JA, language="Japanese"),
                           "the Japanese chat example's 文字化け told of a day about a commit hook")),
          passes=(Example(_line("Maitland wakes in a dark room that is not his.", STORY, example=EXAMPLE),
                          "no word of the example's"),
                  Example(_reworded("Marketing proposes to launch in autumn, after the trade fair",
                                    "Marketing: I'd rather launch in autumn , after the trade fair ."),
                          "the example's 'launch' where the part says it too"),
                  Example(_line("Maitland hires a crew.", STORY, example=EXAMPLE + " The ferry left."),
                          "one word the example says once: a word of any story"),
                  Example(_line("アシスタントがキャッシュの仕様を作成する。",
                                "[assistant] キャッシュの仕様を作成しました。",
                                example=EXAMPLE_JA, language="Japanese"),
                          "a Japanese line of the part's own words"),
                  Example(_line("アシスタントが、フックのバグでコミットが止まると突き止め、フックを飛ばすと決める。",
                                HOOK_DAY, example=CHAT_EXAMPLE_JA, language="Japanese"),
                          "the chat example's form (who, found, decided), the part's words"),
                  Example(_line("ユーザーが、フックを飛ばしてコミットするよう頼む。", HOOK_DAY,
                                example=CHAT_EXAMPLE_JA, language="Japanese"),
                          "the user, whom the example's turns label [user], not ユーザー")),
          ),
    Check("heading_unsupported", frozenset({HEADING}), None, _heading_unsupported,
          refuses=(Example(heading_claim("Quarterly earnings outlook", TITANIUM, None), "none of its notes' words"),
                   Example(heading_claim("Titanium case for the remote, release 14.5", TITANIUM, None),
                           "a number its notes do not hold"),
                   Example(heading_claim("The company was founded in 1887 by a sailor",
                                         (("Mika approves the budget of the project", "Mika: approved."),), None),
                           "embellished")),
          passes=(Example(heading_claim("Titanium case for the remote", TITANIUM, None), "its notes' words"),
                  Example(heading_claim("SDL と Windows の修正", (("Windows で SDL を修正", "SDL を修正"),),
                                        "Japanese"),
                          "Latin words of a Japanese note"))),
)
