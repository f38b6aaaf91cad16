"""Checks of a written text's form: it reads as a summary's sentence, note, merge or heading, not as the part's
or the prompt's (no copy, nothing said twice, nothing cut off, no question where a statement is due)."""
from __future__ import annotations

import functools
import re

from rapidfuzz import fuzz

from precis.engine.documents.spoken_text import SPEAKER_PREFIX, speaker_name, speaker_of
from precis.engine.prompts.notes import HEADING_CHARS, POINT_CHARS
from precis.engine.summary.alignment import PartIndex
from precis.engine.summary.checks import (
    ACCOUNT_LINE,
    ACCOUNT_MERGE,
    HEADING,
    JA,
    MERGE,
    NOTE_IN_ACCOUNT,
    REWORDING,
    Check,
    Claim,
    Example,
    heading_claim,
    language_key,
    merge_claim,
)
from precis.engine.summary.checks import note_example as _note
from precis.engine.summary.evidence import STOPWORDS, cjk_bigrams, content_words, copy_share, normalise
from precis.engine.summary.salience import units_of

# A sentence mostly made of runs of LIFTED_RUN_WORDS words or more in a row from the part is a line lifted from
# it ("He stands up, staring at the closed door for a minute after she is gone."), not what happens said
# briefly. Eight, as the copy rate of bench/quality_metrics.py counts: a short line naturally shares a phrase
# of six ("Marketing will send the colour survey by Friday" of "Yes, I will send the colour survey by Friday").
LIFTED_SHARE = 0.6
LIFTED_RUN_WORDS = 8
REPEAT_RATIO = 85.0              # rapidfuzz ratio of two normalised sentences: the same thing said twice


def copied_share(text: str, source: str, run_words: int = LIFTED_RUN_WORDS) -> float:
    """The share of ``text``'s words (normalised) inside runs of ``run_words`` or more copied from ``source``;
    Japanese: engine.summary.evidence.copy_share's runs of characters."""
    said = normalise(text).text
    if sum(1 for c in said if ord(c) > 0x3000) > len(said) / 3:
        return copy_share(text, source)
    words, padded = said.split(), f" {normalise(source).text} "
    covered = [False] * len(words)
    for i in range(0, max(0, len(words) - run_words + 1)):
        if f" {' '.join(words[i:i + run_words])} " in padded:
            covered[i:i + run_words] = [True] * run_words
    return sum(covered) / max(1, len(words))


def _lifted(claim: Claim) -> str | None:
    share = copied_share(claim.text, claim.shown)
    return f"{share:.0%} of it is copied from the part word for word" if share >= LIFTED_SHARE else None


_META = re.compile(r"^(?:the|this|in (?:the|this)) (?:story|part|text|document|passage|chapter|excerpt|section|"
                   r"summary|transcript|article|conversation|log|author|reader|writer)\b|"
                   r"\b(?:this|the next|the previous) (?:part|passage|excerpt|section)\b|"
                   r"\b(?:is|are) (?:described|mentioned|shown|introduced) (?:in|by) the (?:text|story|part)\b", re.I)


def _meta(claim: Claim) -> str | None:
    """The document talked about instead of what happens in it ("The story continues with ...", "This part
    adds that ...": a held-out meeting's probe)."""
    return "it speaks of the document, not of what happens in it" if _META.search(claim.text) else None


# A Japanese question often ends in か and a full stop, with no question mark: "誰が何を（誰に、なぜ）したか。"
# (the account's own rule said back as a line, a development run of a Japanese day). After a verb's or a
# copula's ending only: "静か。", "確か。", "わずか。" are no questions.
_JA_QUESTION = re.compile(r"[たるうすんのいだ]か[。！]?$")


def is_question(text: str) -> bool:
    """``text`` ends as a question does (a question mark, or a Japanese question's か without one)."""
    text = text.rstrip(" \"”’)」")
    return text.endswith(("?", "？")) or bool(_JA_QUESTION.search(text))


def _question(claim: Claim) -> str | None:
    return "a question, not a statement" if is_question(claim.text) else None


# The prompt's rules are short and worded as no document is: a run of RULES_RUN_WORDS words (Japanese:
# RULES_RUN_CHARS characters) of them in a line is the rules said back, and RULES_SHARE of a line so copied
# is no line at all ("誰が何を（誰に、なぜ）したか。" is 11 characters: under the part's copy run of 12)
RULES_RUN_WORDS, RULES_RUN_CHARS = 4, 6
RULES_SHARE = 0.5


@functools.lru_cache(maxsize=1)
def _rules():
    from precis.engine.prompts.account import RULES, RULES_JA, SYSTEM, SYSTEM_JA
    return normalise("\n".join((SYSTEM, RULES, SYSTEM_JA, RULES_JA)))


def _restates_rules(claim: Claim) -> str | None:
    """The account's rules (or its system prompt) said back instead of what happens: nothing of the part's.
    Neither ``meta`` (English words about "the story", "this part") nor ``question`` (a question mark) read
    "誰が何を（誰に、なぜ）したか。", and the reply's scaffolding patterns (engine.summary.scaffold) know no
    Japanese rule and are not run on the account's lines: only ``unsupported`` refused it, because that part
    happened not to hold its words."""
    share = copy_share(claim.text, "", _rules(), RULES_RUN_WORDS, RULES_RUN_CHARS)
    return f"{share:.0%} of it is the prompt's rules said back" if share >= RULES_SHARE else None


_OPENER = re.compile(r"^(?:he|she|they|it|his|her|their|its|him|them|i|i'm|i'd|me|my|we|we're|our|us|you|you're|"
                     r"your)\b", re.I)


def _opener(claim: Claim) -> str | None:
    """Opens with a pronoun, or I / we / you: nobody can tell who is meant once it stands in the account
    (the grammar holds a line's opening where the runtime takes one; a model server may not)."""
    m = _OPENER.match(claim.text.strip(" \"“"))
    return f"opens with '{m.group(0)}' instead of a name" if m else None


# I, we, you and theirs anywhere in a line, outside quotation marks ("US" the country is not "us", nor "Us" at
# a sentence's opening, which is)
FIRST_PERSON = re.compile(r"\b(?:I(?:['’](?:m|d|ve|ll))?|[Ww]e(?:['’](?:re|ve|ll|d))?|[Oo]urs?|[Uu]s|[Mm]y|[Mm]e|"
                           r"[Yy]ou(?:['’](?:re|ve|ll|d))?|[Yy]ours?)\b")
# a quotation left open (a note's sentence cut inside a character's words) runs to the line's end
_QUOTED = re.compile(r"\"[^\"]*(?:\"|$)|“[^”]*(?:”|$)")


def _first_person(claim: Claim) -> str | None:
    """A speaker's "we", "I" or "you" carried into the account past its opening ("In terms of SG&A expenses, we
    expect ongoing costs": an earnings call's account; "The Project Manager says we need a new case"): the
    account tells of people in the third person, and a reader cannot tell who "we" are. Inside quotation
    marks a character's own words may keep theirs, and so may a turn under its speaker's label (a part told
    by its notes: "Kirsty Williams AM: ... our current providers ..." says whose)."""
    if SPEAKER_PREFIX.match(claim.text):
        return None
    m = FIRST_PERSON.search(_QUOTED.sub(" ", claim.text))
    return f"says '{m.group(0)}' outside a quote: whose?" if m else None


# A full stop glued to the next word: a second sentence slipped past the grammar's one-sentence line, or the
# model's broken tokens ("Qorn's eyes bulged.Q.orn's eyes bulged again", "... not convinced.V.V.V. V.V. ...":
# a check-half story's account, read blind); "Ph.D", "e.g." and "3.5" are not
_GLUED_STOP = re.compile(r"[a-z]{2}\.[A-Z]")


def _glued(claim: Claim) -> str | None:
    """Unless the part writes it so: a transcript's "Hon.Justin Trudeau" (a development meeting's own spelling)."""
    m = next((m for m in _GLUED_STOP.finditer(claim.text) if m.group(0) not in claim.shown), None)
    return f"a full stop glued to the next word ('{m.group(0)}'): broken text" if m else None


def _cut_off(claim: Claim) -> str | None:
    """A sentence stopped by the grammar's bound on a line's length, given its full stop there ("... and
    suggests that the Marketing team can copy paste something from.": a development meeting's account)."""
    from precis.engine.prompts.account import JA_LINE_CHARS, LINE_CHARS
    text = claim.text.rstrip(".!。")
    opener = max((n for n in claim.known_names if text.startswith(n)), key=len, default="")
    if language_key(claim.language) == JA:
        # a Japanese chat's grammar bounds the sentence after its opener ("アシスタントが、")
        body = re.sub(r"^[がはも]、?", "", text[len(opener):]) if opener else text
        return "stopped at the longest a line may be, mid-sentence" if len(body) >= JA_LINE_CHARS[1] else None
    body = len(text) - (len(opener) + 1 if opener else len("The x"))
    return "stopped at the longest a line may be, mid-sentence" if body >= LINE_CHARS[1] else None


HINTS_LISTED = 4                 # hint words in one comma-separated list: the hints copied, not what happens
_LIST_ITEM = re.compile(r"[\w'’-]+(?: [\w'’-]+)?")


def _hints_listed(claim: Claim) -> str | None:
    """The words shown after the part as what it keeps coming back to, listed back instead of said in what
    happens ("... asks the team to consider buttons, colour, wheel, hand, really, scroll, expensive, dynamo":
    a development meeting's account)."""
    hints = {h.lower() for h in claim.hints}
    if len(hints) < HINTS_LISTED:
        return None
    for listed in re.finditer(r"(?:[\w'’-]+(?: [\w'’-]+)?, ){3,}(?:and |or )?[\w'’-]+", claim.text):
        items = [i.group(0).lower() for i in _LIST_ITEM.finditer(listed.group(0).replace(" and ", ", "))]
        found = [i for i in items if i in hints or i.split()[-1] in hints]
        if len(found) >= HINTS_LISTED:
            return f"lists the words shown as hints ({', '.join(found[:6])}) instead of saying what happens"
    return None


_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")


def _repeat(claim: Claim) -> str | None:
    """The same thing said again (the same numbers, nearly the same words) as a line the account holds."""
    said = normalise(claim.text).text
    numbers = sorted(_NUMBER.findall(claim.text))
    for earlier in claim.earlier:
        if sorted(_NUMBER.findall(earlier)) == numbers and fuzz.ratio(said, normalise(earlier).text) >= REPEAT_RATIO:
            return f"the account already says it: {earlier[:60]!r}"
    return None


# ----- a note: the notes strategy's rewording of one sentence ------------------------------------------------
_DANGLING = re.compile(r"(?:[,;:、]|\b(?:and|or|but|the|a|an|of|to|with|for|that|because|as))\s*$", re.I)
# the model commenting on its own note: "... and s (likely referring to strawberries) are mentioned"
_ASIDE = re.compile(r"[(（][^)）]*\b(?:likely|probably|possibly|presumably|referring|refers|perhaps|maybe|"
                    r"typo|i\.e\.|assum\w*)\b", re.I)


def unfinished(point: str) -> bool:
    """A point that does not stand as a note: cut mid-phrase where the grammar's bound ended it ("...,
    adjusted operating margin rose significantly, and adjusted"), ending on a comma or a word that needs
    more ("Marketing: Because I don't seem to be convinced,"), or carrying the model's comment on it
    ("(likely a typo)"). All three stood in development summaries (bench/results/quality-final6.json)."""
    point = point.strip()
    cut = len(point) >= POINT_CHARS[1] - 1 and not re.search(r"[.!?。！？)）」]$", point)
    return cut or bool(_DANGLING.search(point)) or bool(_ASIDE.search(point))


def _unfinished(claim: Claim) -> str | None:
    return "cut mid-phrase, left hanging or commented on" if unfinished(claim.text) else None


REPEAT_RUN_WORDS = 3             # a note that says the same words twice ran on


def says_twice(point: str) -> bool:
    """A point that repeats a run of REPEAT_RUN_WORDS words (not only small words): "The volume snapshot is
    copy-on-write, starting near zero and growing with changed blocks as it grows with changed blocks." (the
    sample day; none of the 146 English rewordings of earlier development runs does)."""
    words = normalise(point).text.split()
    seen = set()
    for i in range(len(words) - REPEAT_RUN_WORDS + 1):
        run = tuple(words[i:i + REPEAT_RUN_WORDS])
        if run in seen and any(w not in STOPWORDS for w in run):
            return True
        seen.add(run)
    return False


def _says_twice(claim: Claim) -> str | None:
    return "says the same words twice" if says_twice(claim.text) else None


MIN_POINT_WORDS = 3              # a point with fewer content words and Japanese character pairs, all told
#                                  (speaker labels aside), says nothing: "Budget approved", "設計書"
COPY_RATIO = 85.0                # a "point" this close to its own quote is a copy, not a note
POINT_COPY_SHARE = 0.5           # ... and one mostly copied word for word from the part is too


def _says_nothing(claim: Claim) -> str | None:
    """A speaker's bare utterance or a word or two is no note. Any Japanese once counted as enough: of
    "`docs/specs/cache/disk-cache/design.md` - 設計書" the 1.5B model's note "設計書" ("design document") stood
    as a line of a development session's summary."""
    body = SPEAKER_PREFIX.sub("", claim.text)
    if len(content_words(body)) + len(cjk_bigrams(body)) < MIN_POINT_WORDS:
        return f"fewer than {MIN_POINT_WORDS} words of content"
    return None


def _copies_sentence(claim: Claim) -> str | None:
    said = normalise(SPEAKER_PREFIX.sub("", claim.text)).text
    if fuzz.ratio(said, normalise(SPEAKER_PREFIX.sub("", claim.quote)).text) >= COPY_RATIO:
        return "its own sentence handed back"
    return None


@functools.lru_cache(maxsize=4)
def _normalised_part(part: str):
    return normalise(part)


def _copied_from_part(claim: Claim) -> str | None:
    share = copy_share(SPEAKER_PREFIX.sub("", claim.text), claim.shown, _normalised_part(claim.shown))
    return f"{share:.0%} of it is copied from the part word for word" if share >= POINT_COPY_SHARE else None


# ----- a merge: two notes (or two of the account's sentences) said as one -----------------------------------
MERGED_MAX_SHARE = 0.9           # a merge is at most this share of its two notes' length
SENTENCE_END = re.compile(r"[.!?。！？][\"”’」)]?\s*$")


def _side_by_side(claim: Claim) -> str | None:
    return "the pair as shown, \"a / b\", handed back" if " / " in claim.text else None


def _no_sentence_end(claim: Claim) -> str | None:
    """In the account's prose a merge must end as a sentence does ("... looking at remote cont")."""
    return "a sentence without its end" if claim.text and not SENTENCE_END.search(claim.text) else None


def _dropped_note(claim: Claim) -> str | None:
    said = units_of(claim.text)
    if any(not said & units_of(f"{point} {quote}") for point, quote in claim.notes):
        return "says one of the two notes only"
    return None


def _not_shorter(claim: Claim) -> str | None:
    if len(claim.text) > MERGED_MAX_SHARE * sum(len(point) for point, _ in claim.notes):
        return "the two side by side: nothing compacted"
    return None


def _truncated(claim: Claim) -> str | None:
    """Stopped by the grammar mid-sentence ("... and jog")."""
    return "stopped at the longest a note may be" if len(claim.text) >= POINT_CHARS[1] - 1 else None


# ----- a heading over a section's notes --------------------------------------------------------------------
def _heading_length(claim: Claim) -> str | None:
    if not HEADING_CHARS[0] <= len(claim.text) <= HEADING_CHARS[1]:
        return f"{len(claim.text)} characters (a heading takes {HEADING_CHARS[0]} to {HEADING_CHARS[1]})"
    return None


def _heading_question(claim: Claim) -> str | None:
    return "a question, not a topic" if claim.text.endswith("?") else None


def _heading_speaker(claim: Claim) -> str | None:
    """A name, not a topic: the bundled SmolLM2 headed a section "## Industrial Designer". Who said the notes'
    sentences is read from their labels ("Industrial Designer", "Orin" of "[09:07] Orin:")."""
    speakers = set()
    for _, quote in claim.notes:
        label = SPEAKER_PREFIX.match(quote)
        if label:
            speakers.add(speaker_name(speaker_of(label.group(0))).lower())
    return "names who said its notes, not what they are about" if claim.text.lower() in speakers else None


def _claim(text: str, part: str, earlier: tuple[str, ...] = ()) -> Claim:
    return Claim(text, part, PartIndex(part).align(text), earlier=earlier)


MEETING = ("Marketing: The buttons, the colour, the wheel. A scroll wheel is expensive. Industrial Designer: A "
           "dynamo, the hand one, really. Rubber, wood, titanium and plastic are what the case can be made of.")
STORY = ("Maitland remained standing, staring at the closed door for a minute after she was gone. Then he sat "
         "down on the bed to watch the sunset and to think.")


RULE_PART = ("[assistant] コミットがフックのエラーで止まりました。なぜ止まったかを調べます。\n"
             "[user] フックは直さずにコミットしてください。")
CUT = ("On a full-year basis, organic net sales increased materially compared to the previous year, adjusted "
       "operating margin rose significantly, and adjusted")
SNAPSHOT = "The volume snapshot is copy-on-write: it starts near zero and grows with changed blocks."
DAY = ("Orin: The volume snapshot is copy-on-write, so it starts near zero and grows with the changed blocks of "
       "the disk. Mika: We keep the snapshots for seven days on the backup host in Lisbon.")
MAY = ("Mika proposes moving the launch of the remote to May",) * 2
LATE = ("Mika says the supplier cannot deliver the cases before May",) * 2
SAID = (("Industrial Designer: A titanium case for the remote.",) * 2,)
BUDGET = "第1回：予算は1,200万円で、田中さんが1月1日までに承認します。"

CHECKS = (
    Check("lifted", frozenset({ACCOUNT_LINE}), None, _lifted,
          refuses=(Example(_claim("Maitland remains standing, staring at the closed door for a minute after she was "
                                  "gone.",
                                  STORY), "a line of the story, lifted (development run)"),),
          passes=(Example(_claim("Maitland watches the sunset from his bed and thinks.", STORY), "said briefly"),
                  Example(_claim("Marketing will send the colour survey by Friday.",
                                 "Marketing: Yes, I will send the colour survey by Friday."),
                          "a short line sharing a phrase of six words"))),
    Check("meta", frozenset({ACCOUNT_LINE}), None, _meta,
          refuses=(Example(_claim("The story continues with Maitland watching the sunset.", STORY),
                           "narrates the document"),
                   Example(_claim("This part adds that Maitland sits on the bed.", STORY), "narrates the prompt")),
          passes=(Example(_claim("Maitland sits on the bed and watches the sunset.", STORY), "what happens"),)),
    Check("question", frozenset({ACCOUNT_LINE, NOTE_IN_ACCOUNT, REWORDING}), None, _question,
          refuses=(Example(_claim("Why does Maitland stare at the door?", STORY), "a question"),
                   Example(_note("Marketing: Is the basic design fulfilling its remote functions?",
                                 "Marketing: I was looking at basic design things, does it fulfil its functions as "
                                 "a remote?"),
                           "a rewording handed back as a question (development meeting)"),
                   Example(_note("和泉なおみ議員: 学生、教職員の感染者対応: どう対応する?",
                                 "さらに、都内の学校の生徒、教職員から感染者が出た場合、どう対応するのですか。",
                                 "Japanese"),
                           "a Japanese member's question said as one (development sitting)"),
                   Example(_claim("誰が何を（誰に、なぜ）したか。", RULE_PART),
                           "a Japanese question without its mark (development run)"),
                   Example(_claim("アシスタントがフックを直すべきですか。", RULE_PART), "asks back, politely")),
          passes=(Example(_claim("Maitland stares at the closed door.", STORY), "a statement"),
                  Example(_claim("アシスタントが、フックを直すかどうかをユーザーに確かめる。", RULE_PART),
                          "an indirect question inside a statement"),
                  Example(_claim("ユーザーが、フックのバグは確かだと認める。", RULE_PART), "確か: no question"),
                  Example(_note("Marketing asks whether the basic design fulfils the remote's functions",
                                "Marketing: I was looking at basic design things, does it fulfil its functions as "
                                "a remote?"),
                          "a question noted as what was asked"))),
    Check("restates_rules", frozenset({ACCOUNT_LINE, NOTE_IN_ACCOUNT}), None, _restates_rules,
          refuses=(Example(_claim("誰が何を（誰に、なぜ）したか。", RULE_PART), "the rule said back (development run "
                                                                     "of a Japanese day with an assistant)"),
                   Example(_claim("The team says what is done, found, proposed or decided.", MEETING),
                           "the English rule said back")),
          passes=(Example(_claim("アシスタントが、なぜコミットが止まったかを調べ、フックのバグだと突き止める。",
                                 RULE_PART), "why and who, said of the part"),
                  Example(_claim("Marketing proposes a rubber case and the team decides on wood.", MEETING),
                          "proposed and decided, said of the part"))),
    Check("opener", frozenset({ACCOUNT_LINE, NOTE_IN_ACCOUNT}), frozenset({"en"}), _opener,
          refuses=(Example(_claim("He stares at the closed door.", STORY), "who is he?"),
                   Example(_claim("I yelled and ran after him.", STORY), "a narrator's line (held-out story)")),
          passes=(Example(_claim("Maitland stares at the door after the girl leaves.", STORY), "named"),)),
    Check("first_person", frozenset({ACCOUNT_LINE, NOTE_IN_ACCOUNT}), frozenset({"en"}), _first_person,
          refuses=(Example(_claim("In terms of SG&A expenses, we expect ongoing costs related to the pandemic.",
                                  "In terms of SG&A expenses, we expect ongoing costs related to the pandemic in "
                                  "2021."), "the call's 'we' (development earnings call)"),
                   Example(_claim("The Project Manager says you can copy the survey.", MEETING),
                           "whose 'you'?"),
                   Example(_claim("Us and the board agree on the budget.", MEETING),
                           "an 'us' capitalised at the opening (not the country's 'US')")),
          passes=(Example(_claim("Maitland tells Swarts \"we leave at dawn\" and shuts the door.", STORY),
                          "a character's own words, quoted"),
                  Example(_claim('Swarts said, "My name is Swarts and you are my guest.', STORY),
                          "a quotation the note's sentence left open"),
                  Example(_claim("Kirsty Williams AM: Currently, with our current providers, there is a spread.",
                                 "Kirsty Williams AM: Currently, with our current providers, there is a spread."),
                          "a turn under its speaker's label (a part told by its notes)"),
                  Example(_claim("The company opens forty stores in the US.", "We opened forty stores in the US."),
                          "the country"))),
    Check("glued", frozenset({ACCOUNT_LINE, NOTE_IN_ACCOUNT}), frozenset({"en"}), _glued,
          refuses=(Example(_claim("Qorn's eyes bulged.Q.orn's eyes bulged again.", "Qorn's eyes bulged."),
                           "broken tokens (check-half story, read blind)"),
                   Example(_claim("Magnan suggests that Qornt might invade another sector.V.V.V. V.V. V.V.",
                                  "Magnan said the Qornt might invade another sector."), "junk after the sentence")),
          passes=(Example(_claim("Dr. Kometevsky, a Ph.D in physics, says the planets trade places, e.g. Mars.",
                                 "Dr. Kometevsky, Ph.D, said the planets trade places, e.g. Mars."),
                          "abbreviations"),
                  Example(_claim("Right Hon.Justin Trudeau discusses the pandemic's impact on businesses.",
                                 "Right Hon.Justin Trudeau: The pandemic has hit businesses hard."),
                          "the document's own spelling (a tune-half meeting)"))),
    Check("cut_off", frozenset({ACCOUNT_LINE}), None, _cut_off,
          refuses=(Example(Claim("The Project Manager discusses the importance of taking notes on the points discussed "
                                 "during the presentation and suggests that the Marketing team can copy paste "
                                 "something from.", MEETING),
                           "stopped at the bound (development meeting)"),),
          passes=(Example(Claim("The Project Manager asks the team to take notes during the presentation.", MEETING),
                          "a whole sentence"),)),
    Check("hints_listed", frozenset({ACCOUNT_LINE}), frozenset({"en"}), _hints_listed,
          refuses=(Example(Claim("The Project Manager asks the Marketing team to consider buttons, colour, wheel, "
                                 "hand, really, scroll, expensive, dynamo.", MEETING,
                                 hints=("buttons", "colour", "wheel", "scroll", "expensive", "dynamo")),
                           "the hints copied (development meeting)"),),
          passes=(Example(Claim("Marketing wants the wheel, the scroll buttons and a dynamo, but it is too "
                                "expensive.", MEETING,
                                hints=("buttons", "colour", "wheel", "scroll", "expensive", "dynamo")),
                          "the hint words said in what happens"),
                  Example(Claim("Industrial Designer lists rubber, wood, titanium and plastic as case materials.",
                                MEETING, hints=("design", "remote", "budget", "battery")),
                          "a list of the part's own, not of the hints"))),
    Check("repeat", frozenset({ACCOUNT_LINE}), None, _repeat,
          refuses=(Example(_claim("Maitland stands up and stares at the closed door.", STORY,
                                  ("Maitland stands and stares at the closed door.",)),
                           "said twice (development run)"),),
          passes=(Example(_claim("Maitland watches the sunset.", STORY, ("Maitland stares at the closed door.",)),
                          "another event"),)),
    Check("unfinished", frozenset({REWORDING}), None, _unfinished,
          refuses=(Example(_note(CUT, CUT + " operating income."), "cut by the grammar's bound (quality-final6)"),
                   Example(_note("Marketing: Because I don't seem to be convinced,",
                                 "Marketing: Because I don't seem to be convinced , no ."), "left hanging"),
                   Example(_note("The commit 81c66d34 corrected the content of a",
                                 "The commit 81c66d34 corrected the content of a file."), "ends on an article"),
                   Example(_note("Industrial Designer suggests new materials and s (likely referring to strawberries) "
                                 "are mentioned", "Industrial Designer: new materials and s"), "the model's comment"),
                   Example(_note("JetPack を 4.6 に変更し、", "JetPack を 4.6 に変更しました。", language="Japanese"),
                           "a Japanese comma at the end")),
          passes=(Example(_note(CUT[:-len(", and adjusted")] + ".", CUT), "whole"),
                  Example(_note("Ben prefers a rubber case (titanium costs too much)",
                                "Ben: I prefer a rubber case, titanium costs too much."), "an aside of the facts"),
                  Example(_note("The remote comes in a banana shape, as agreed",
                                "We agreed the remote comes in a banana shape."), "as, with what it needs"),
                  Example(_note("SDL を 2.0.20 に上げる", "SDL を 2.0.20 に上げました。", language="Japanese"),
                          "whole"))),
    Check("says_twice", frozenset({REWORDING}), None, _says_twice,
          refuses=(Example(_note("The volume snapshot is copy-on-write, starting near zero and growing with changed "
                                 "blocks as it grows with changed blocks.", SNAPSHOT), "ran on (the sample day)"),),
          passes=(Example(_note(SNAPSHOT, SNAPSHOT), "said once"),
                  Example(_note("Marketing says it is in the case and it is in the box",
                                "Marketing: it is in the case and it is in the box ."), "small words only"))),
    Check("says_nothing", frozenset({REWORDING}), None, _says_nothing,
          refuses=(Example(_note("予算は", BUDGET, language="Japanese"),
                           "a word, no note"),
                   Example(_note("設計書", "`docs/specs/cache/disk-cache/design.md` - 設計書", language="Japanese"),
                           "design document, a line of a development session's summary"),
                   Example(_note("Budget approved", "Mika: The budget was approved by the board on Monday ."),
                           "two words")),
          passes=(Example(_note("予算1,200万円を田中さんが承認", BUDGET, language="Japanese"), "the sentence's facts"),
                  Example(_note("Mika says the board approved the budget", "Mika: The budget was approved by the "
                                "board on Monday ."), "a note"))),
    Check("copies_sentence", frozenset({REWORDING}), None, _copies_sentence,
          refuses=(Example(_note("The budget was approved by the board on Monday",
                                 "Mika: The budget was approved by the board on Monday ."),
                           "the sentence handed back"),),
          passes=(Example(_note("Mika says the board approved the budget", "Mika: The budget was approved by the "
                                "board on Monday ."), "its own words"),)),
    Check("copied_from_part", frozenset({REWORDING}), None, _copied_from_part,
          refuses=(Example(_note("Orin: it starts near zero and grows with the changed blocks of the disk", DAY,
                                 part=DAY),
                           "words lifted from the part"),),
          passes=(Example(_note("Orin says the snapshot grows with changed blocks from near zero", DAY, part=DAY),
                          "its own words"),)),
    Check("side_by_side", frozenset({MERGE, ACCOUNT_MERGE}), None, _side_by_side,
          refuses=(Example(merge_claim("Mika proposes a May launch / the supplier is late", (MAY, LATE), None),
                           "the pair handed back as shown (a development meeting's account)"),),
          passes=(Example(merge_claim("Mika proposes a May launch as the supplier is late", (MAY, LATE), None),
                          "one sentence"),)),
    Check("no_sentence_end", frozenset({ACCOUNT_MERGE}), None, _no_sentence_end,
          refuses=(Example(merge_claim("Mika proposes a May launch as the supplier is la", (MAY, LATE), None),
                           "cut off (TS3009b's account: \"... looking at remote cont\")"),),
          passes=(Example(merge_claim("Mika proposes a May launch as the supplier is late.", (MAY, LATE), None),
                          "a sentence's end"),)),
    Check("dropped_note", frozenset({MERGE, ACCOUNT_MERGE}), None, _dropped_note,
          refuses=(Example(merge_claim("Mika proposes moving the launch to May",
                                       (MAY, ("Orin counts 12 units",) * 2), None), "one note said"),),
          passes=(Example(merge_claim("Mika proposes a May launch as the supplier is late", (MAY, LATE), None),
                          "both"),)),
    Check("not_shorter", frozenset({MERGE, ACCOUNT_MERGE}), None, _not_shorter,
          refuses=(Example(merge_claim(f"{MAY[0]}, {LATE[0]}", (MAY, LATE), None),
                           "two speakers' notes run together (development meeting)"),),
          passes=(Example(merge_claim("Mika proposes a May launch as the supplier is late", (MAY, LATE), None),
                          "shorter"),)),
    Check("truncated", frozenset({MERGE, ACCOUNT_MERGE}), None, _truncated,
          refuses=(Example(merge_claim(("Mika proposes a May launch " * 9)[:POINT_CHARS[1]], (MAY, LATE), None),
                           "stopped by the grammar mid-sentence"),),
          passes=(Example(merge_claim("Mika proposes a May launch as the supplier is late", (MAY, LATE), None),
                          "whole"),)),
    Check("heading_length", frozenset({HEADING}), None, _heading_length,
          refuses=(Example(heading_claim("UI", SAID, None), "too short to name a topic"),),
          passes=(Example(heading_claim("Titanium case for the remote", SAID, None), "a few words"),)),
    Check("heading_question", frozenset({HEADING}), None, _heading_question,
          refuses=(Example(heading_claim("Titanium case for the remote?", SAID, None), "a question"),),
          passes=(Example(heading_claim("Titanium case for the remote", SAID, None), "a topic"),)),
    Check("heading_speaker", frozenset({HEADING}), None, _heading_speaker,
          refuses=(Example(heading_claim("Industrial Designer", SAID, None),
                           "a name, no topic (the bundled SmolLM2)"),),
          passes=(Example(heading_claim("Titanium case for the remote", SAID, None), "a topic"),)),
)
