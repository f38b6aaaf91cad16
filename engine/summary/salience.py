"""Which sentences of a part hold the most that the notes do not hold yet: chosen by code, no model.

A sentence's worth is the document-wide weight of the content words (CJK: character bigrams) it would
add to what earlier parts already gave, per character (to the power 0.7, so a long sentence full of new
words still wins over a short one with two): words the document comes back to weigh more (log of how
many sentences hold them), a word only one sentence uses weighs nothing (a name said once, a typo).
Numbers (amounts, dates, versions) count as units of their own, each a fact even when said once.
Parts take sentences in turn, in document order, each up to its share of the summary's length, so a
part adds what the parts before it did not say, and every part that has a sentence worth taking gives
at least one: no part is lost.

Measured on the development meetings and story against the human question/answer pairs (docs/quality-history.md,
"Code chooses, the model rewords"): about 1,500 characters of these sentences recalled 0.40, 0.31 and
0.32 of the facts, where the 1.5B model's own notes on the same documents recalled 0.40 (in 1,700
characters), 0.23 (1,500) and 0.29 (2,000); and choosing them costs no model call.
"""
from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass, replace

from precis.engine.documents.commit_log import changelog_weight, commit_subjects
from precis.engine.documents.spoken_text import (
    FILLER_ONLY,
    SPEAKER_PREFIX,
    TITLE_STOP,
    TURN_JOINER,
    TurnIndex,
    clean_utterance,
    labels_are_timed,
    line_label,
    speaker_name,
    speaker_of,
    turn_speakers,
    unbold,
    unspell,
)
from precis.engine.documents.transcript_turns import TURN_MARKER, ProseSpans, prose_spans
from precis.engine.documents.wrapped_lines import unwrapped
from precis.engine.summary.evidence import content_words
from precis.engine.summary.language import named_language
from precis.engine.summary.noise import substantive_text

# "12.50", "Mr. Chair" and a label's "(Nipissing, Lib.):" do not end one, nor does a pause the sentence goes on
# after in lower case: "He lowered himself to a bed of shattered foliage, got to his feet ... and dropped flat
# as a bullet whined past his ear." (a check-half story), cut there, gave a note of "and dropped flat ..." alone,
# whose doer the model guessed ("Skiff drops flat as bullet whines past ear")
SENTENCE = re.compile(rf"(?:[^.!?。！？\n]|\.(?=[\w)])|\.\.\.(?=[ \t]+[a-z])|{TITLE_STOP}){{10,400}}[.!?。！？]?")
MIN_SENTENCE_CHARS = 30
MIN_CJK_SENTENCE_CHARS = 12      # Japanese says as much in far fewer characters
MIN_SENTENCE_UNITS = 5           # content words (or CJK bigrams) a sentence needs to be worth taking
# ... in a document none of whose sentences has as many (DocumentWeights.relaxed). A Japanese sentence's
# units are its kanji and katakana runs only, its verbs ("送ります": one kanji and its kana) count for
# nothing: "田中さんは金曜日までに請求書を送ります。" (who, when, what: a task) holds three, and a short minutes
# note of three such sentences had none worth taking, so its summary came out empty (issue 40). Not for
# every document: a long Japanese one's formulas hold three too ("和泉なおみ議員の代表質問にお答えをいたします。").
RELAXED_MIN_SENTENCE_UNITS = 3
MAX_SENTENCE_CHARS = 300         # a longer sentence cannot be said again in one short note
LENGTH_POWER = 0.7               # gain per character**0.7 recalled more than 1.0 on all three (docs/quality-history.md)


_SPELLED_PLURAL = re.compile(r"\b(?:[A-Z]_)+[A-Z]_?s\b")


def joined_letters(point: str) -> str:
    """A note's point with the plurals of spelled letters joined: shown "L_C_D_s" (which ``unspell`` leaves
    as it is), the 1.5B model writes "L_C_Ds"; a reader writes "LCDs". Done on the point, not in what the
    model is shown: showing "LCDs" changed the sampled rewordings of a whole development meeting, and its
    fact recall fell from 0.50 to 0.43 (bench/results/quality-final5-es2006c.json)."""
    return _SPELLED_PLURAL.sub(lambda m: m.group(0).replace("_", ""), point)


_NUMBER = re.compile(r"\d+(?:[.,:/-]\d+)*")
NUMBER_MARK = "#"                # prefix of a number among the units: "#2026-12-01"
NUMBER_WEIGHT = 1.0              # a number is a fact even when the document says it once
ONCE_IN_LOG_WEIGHT = 1.0         # a word one commit of a git log says (see DocumentWeights)
# Where no word comes back at all (a note of a few sentences), "said once" tells nothing apart: weighed at
# nothing there, each sentence of that minutes note added nothing and at most one was ever chosen. Below a
# word said twice (log 2 = 0.69).
ONCE_WHEN_NOTHING_RECURS_WEIGHT = 0.5


_JAPANESE_WORD = re.compile(r"[\u4e00-\u9fff々]{2,}|[\u30a0-\u30ffー]{2,}")   # a kanji or a katakana run


def units_of(text: str) -> frozenset[str]:
    """Content words, and the numbers (amounts, dates, versions) as units of their own. Japanese has no
    spaces: its words are its runs of kanji ("定義", "後続処理") and of katakana ("バックスラッシュ"), the
    hiragana between them being grammar ("した", "ように"), with the Latin words it holds ("SDL のビルド
    定義を修正": "sdl"). Character bigrams, used before, made "した" outweigh every name of a Japanese git
    log and a long katakana word count as many."""
    numbers = {NUMBER_MARK + n for n in _NUMBER.findall(text) if len(n) > 1}     # "point 3" is no fact
    if not any(ord(c) > 0x3000 for c in text):
        return frozenset(content_words(text) | numbers)
    latin = {w for w in content_words(text) if all(ord(c) <= 0x3000 for c in w)}
    return frozenset(set(_JAPANESE_WORD.findall(text)) | latin | numbers)


@dataclass(frozen=True)
class Sentence:
    start: int                   # offset in the text it was found in
    text: str                    # verbatim
    speaker: str                 # the label of the transcript line it is on ("Marketing"), or ""
    units: frozenset[str]
    reading_chars: int           # its length without the speaker label and the fillers
    gain_factor: float = 1.0     # a factor on what it adds: a git log commit's changelog weight, a chair's
                                 # formula's PROCEDURE_WEIGHT, else 1
    turns: tuple[str, ...] = ()  # an exchange of short turns: each turn as said ("Marketing: that's expensive")
    # Only a sentence that opens its line can start with its speaker's label. One inside a turn that opens
    # like a label ("Decision: ...", "My hypothesis: ...", "TODO for Priya: ...") keeps those words: taken
    # for a label, they were cut from what the model was shown, and a hypothesis came back as a fact.
    opens_line: bool = True

    def body(self) -> str:
        """The sentence without its speaker's label."""
        return without_label(self.text, self.opens_line)

    def shown(self, labelled: bool = True) -> str:
        """As the model sees it: with who said it, so a note can say who proposed what; without
        (``labelled`` False) where the note is put under the speaker's name after (a Japanese turn's,
        ``notes_extraction``)."""
        if self.turns:
            return TURN_JOINER.join(self.turns)
        body = unbold(unspell(self.body()))
        return f"{self.speaker}: {body}" if self.speaker and labelled else body

    def said(self) -> str:
        """As a reader wants it on one line, when no rewording of it passed: fillers out, who said it kept
        (a meeting's note "Then I'd put the LCD next to the wheel." said nothing of whose idea it was)."""
        if self.turns:
            return TURN_JOINER.join(self.turns)
        body = clean_utterance(self.body())
        speaker = speaker_name(self.speaker)          # "[09:07] Orin": the name, not the time
        return f"{speaker}: {body}" if speaker and body else body


def without_label(sentence: str, opens_line: bool) -> str:
    """``sentence`` without its speaker's label, which only a sentence that opens its line has ("" for a
    label alone)."""
    return SPEAKER_PREFIX.sub("", sentence + " ").strip() if opens_line else sentence


_HEADING = re.compile(r"^\s*(?:={2,}|-{3,}|#{1,6}\s)")
_LIST_MARKER = re.compile(r"^\s*(?:[-*•・]|\d{1,2}[.)])\s+")


_MACHINE_TEXT = re.compile(
    r"\|\s*(?:\d+\s*[+-]*|bin\b.*)\s*$"                   # a diffstat line: "src/a.cpp | 3 +--"
    r"|\b\d+ files? changed\b"
    r"|https?://|\w@[\w-]+\.\w"                           # links, e-mail addresses
    r"|^\s*(?:signed-off-by|co-authored-by|reviewed-by|change-id|commit [0-9a-f]{7,})\s*:?"
    r"|^[\s-]*[\w-]+:\s*[\w.:/-]+\s*$"                     # "- update-type: version-update:semver-minor"
    r"|^\s*[\w./-]+\.\w{1,5}\s*$"                          # a bare file path
    # a line of code that assigns a call, a string or a collection: an article's example code, unfenced
    # once saved as text, gave the note "議事録の一部をMAP_PROMPTに設定" of 'MAP_PROMPT = """以下は議事録の
    # 一部です。' (a seed article); the 24 such sentences of the development documents and the seeds are all
    # code, and "loop_count = 25: covers about 300k characters" stays a sentence
    r"|^\s*[A-Za-z_][\w.]*(?:\[[^\]\n]*\])?\s*[-+*/]?=(?!=)\s*(?:[\"'\[{]|[A-Za-z_][\w.]*\()",
    re.I)


def is_machine_text(sentence: str) -> bool:
    """Text a tool wrote (a git log's diffstat and trailers, links, metadata): facts of no one's day."""
    return bool(_MACHINE_TEXT.search(sentence))


def _is_heading(sentence: str) -> bool:
    """A session banner or a heading ("=== Session 2 · 2026-11-27 ==="): structure, not a statement."""
    letters = sum(c.isalpha() for c in sentence)
    return bool(_HEADING.match(sentence)) or letters < 0.5 * len(sentence.replace(" ", ""))


def _min_chars(sentence: str) -> int:
    cjk = sum(1 for c in sentence if ord(c) > 0x3000)
    return MIN_CJK_SENTENCE_CHARS if cjk > len(sentence) / 3 else MIN_SENTENCE_CHARS


# A chair's formulas: what a committee's meeting does next, not what it said ("I think we'll move on to the
# next section.", "Can I propose, in accordance with Standing Order 17.42, that the committee resolves to
# meet in private ...?", "you will receive a transcript to check for accuracy"). On a development committee
# meeting 6 of 33 notes were these.
_PROCEDURE = re.compile("|".join([
    r"\b(?:we(?:'re| are|'ll| will)?|let's|I'll|I will|I'd like to) (?:now )?(?:going to )?(?:(?:move|go|come|turn) "
    r"(?:on|now|straight)\b|(?:move|come|turn) onto\b|go (?:now )?to (?:the member|our|questions|Mr|Ms|Mrs|Madam|"
    r"the next|item))",
    r"^(?:moving|turning) on\b", r"\bitem \d+\b", r"\bstanding order\b", r"\b(?:meet|session) in private\b",
    r"\btranscript\b.*\baccuracy\b", r"\bcall(?:ing)? (?:this|the) meeting to order\b",
    r"\b(?:next (?:questioner|speaker)|the floor is yours|your time is up)\b",
    r"\b(?:with|some) questions? (?:[\w-]+ ){0,4}from [A-Z]", r"\bdeclarations? of interest\b",
    r"\bconcise (?:questions|answers)\b"]), re.I)
PROCEDURE_MAX_CHARS = 160        # longer, a sentence says more than what comes next ("Moving on to perinatal
                                 # mental health, this morning I hosted a round-table with the NSPCC ...")
PROCEDURE_WEIGHT = 0.5           # a factor on what a chair's formula adds


def procedure_factor(sentence: str) -> float:
    """PROCEDURE_WEIGHT for a chair's formula (``_PROCEDURE``) said in a short sentence, else 1."""
    return PROCEDURE_WEIGHT if len(sentence) <= PROCEDURE_MAX_CHARS and _PROCEDURE.search(sentence) else 1.0


def sentences_of(text: str, prose: ProseSpans | None = None, relaxed: bool = False,
                 speaker_at_start: str = "") -> list[Sentence]:
    """The sentences of ``text`` long and substantive enough to be noted (no logs, greetings, fillers). In a
    chat transcript, only those of its people's own words (engine.documents.transcript_turns): ``prose``,
    the spans of them in ``text`` (a part's, from its whole document: a part can start inside a tool's
    output), else found in ``text`` itself. In a meeting transcript, short turns in a row are also taken
    together as one exchange (``exchanges``). ``relaxed``: fewer units are enough (RELAXED_MIN_SENTENCE_UNITS).
    ``speaker_at_start``: whose turn ``text`` starts inside, when it is a part of a document (``TurnIndex``)."""
    min_units = RELAXED_MIN_SENTENCE_UNITS if relaxed else MIN_SENTENCE_UNITS
    # a hard-wrapped story's sentences run across its line breaks: found in the text with them as spaces
    # (the same length, so the same offsets; engine.documents.wrapped_lines)
    text = unwrapped(text)
    substantive = substantive_text(text)
    if prose is None:
        prose = prose_spans(text)
    found = []
    short_turns: list[Sentence] = []
    going_on = turn_speakers(text, speaker_at_start)
    timed = labels_are_timed(text)
    for m in SENTENCE.finditer(text):
        # a list item's "- " is not the sentence's, nor a chat turn's "[assistant] "
        marker = _LIST_MARKER.match(m.group(0)) or TURN_MARKER.match(m.group(0))
        sentence = m.group(0)[marker.end() if marker else 0:].strip()
        if not sentence or FILLER_ONLY.match(sentence) or sentence not in substantive or _is_heading(sentence) \
                or is_machine_text(sentence):
            continue
        start = m.start() + m.group(0).index(sentence)
        if prose is not None and not prose.holds(start, start + len(sentence)):
            continue
        line_start = text.rfind("\n", 0, start) + 1
        line = text[line_start:]
        label = line_label(line, timed)
        speaker = speaker_of(label.group(0)) if label else going_on.get(line_start, "")
        # a line that only looks labelled in a timed transcript ("Rollback: ...") keeps its first words
        opens_line = not text[line_start:start].strip() and (label is not None or not timed)
        body = without_label(sentence, opens_line)
        units = units_of(body)                                       # none for a speaker's label alone
        said = clean_utterance(body)
        if len(sentence) < _min_chars(sentence) or len(units) < min_units:
            if speaker and prose is None and units:
                short_turns.append(Sentence(start, sentence, speaker, units, len(said), opens_line=opens_line))
            continue
        found += exchanges(text, short_turns)
        short_turns = []
        found.append(Sentence(start, sentence, speaker, units, len(said), procedure_factor(body),
                              opens_line=opens_line))
    return found + exchanges(text, short_turns)


# A meeting says much in short turns ("Marketing: that's expensive ." "Project Manager: But she wanted the
# titanium ."), each too short to note alone: on the second development meeting 247 of the 254 sentences of
# its product-quotation part were, and its notes said next to nothing of it. Short turns in a row, fillers between
# them left out, are taken together as one exchange: its quote is the transcript from its first turn to its
# last, shown to the model turn by turn with who said each.
EXCHANGE_MAX_CHARS = 220           # an exchange as read: about two sentences, one short note's worth
EXCHANGE_MAX_GAP_CHARS = 240       # more transcript than this between two short turns (fillers, or a long
                                   # sentence taken alone) ends the exchange


def exchanges(text: str, short_turns: list[Sentence]) -> list[Sentence]:
    """``short_turns`` (consecutive in ``text``, in its order), grouped into exchanges of neighbouring
    turns that together hold enough to note."""
    found: list[Sentence] = []
    group: list[Sentence] = []
    said: list[str] = []                  # each turn of the group as shown: "Marketing: That's expensive."

    def close():
        chars = len(TURN_JOINER.join(said))
        units = frozenset().union(*(t.units for t in group)) if group else frozenset()
        if len(group) >= 2 and len(units) >= MIN_SENTENCE_UNITS and chars >= MIN_SENTENCE_CHARS:
            first, last = group[0], group[-1]
            found.append(Sentence(first.start, text[first.start:last.start + len(last.text)], "", units, chars,
                                  turns=tuple(said)))
        group.clear()
        said.clear()

    for turn in short_turns:
        shown = turn.said()                      # "Marketing: That's expensive."
        if group:
            gap = turn.start - (group[-1].start + len(group[-1].text))
            if gap > EXCHANGE_MAX_GAP_CHARS or len(TURN_JOINER.join(said + [shown])) > EXCHANGE_MAX_CHARS:
                close()
        group.append(turn)
        said.append(shown)
    close()
    return found


MIN_SUBJECT_UNITS = 2            # "TLS 1.3 対応" says what changed; "1.1" or "Update" alone does not


def subject_sentences(text: str) -> list[Sentence]:
    """A git log's commit subjects as sentences to choose from (engine.documents.commit_log), [] when
    ``text`` is not a git log. Short as they are ("m98 対応"), they are what its authors said each commit
    does; the sentence rules' minimum length would drop most of them. Each weighs by how much its commit
    belongs in a changelog, as far as ``text`` shows (engine.documents.commit_log.changelog_weight)."""
    found = []
    subjects = commit_subjects(text)
    factors = changelog_weight(subjects)
    for subject in subjects:
        units = units_of(subject.text)
        if len(units) >= MIN_SUBJECT_UNITS and not is_machine_text(subject.text):
            found.append(Sentence(subject.start, subject.text, "", units, len(subject.text), factors[subject.start]))
    return found


class DocumentWeights:
    """How much each content word weighs in one document: log(1 + the sentences holding it)."""

    def __init__(self, document: str) -> None:
        self.sentences_with = Counter()
        self.document_chars = len(document)
        self.prose = prose_spans(document)
        self.turns = TurnIndex(document)
        found = {s.start: s for s in sentences_of(document, self.prose)}
        subjects = subject_sentences(document)
        # no sentence worth noting by the usual rule: the document's best are what there is
        self.relaxed = not found and not subjects
        if self.relaxed:
            found = {s.start: s for s in sentences_of(document, self.prose, relaxed=True)}
        for subject in subjects:                           # a git log's subjects, short ones too
            found.setdefault(subject.start, subject)
        for sentence in found.values():
            self.sentences_with.update(sentence.units)
        # In a git log a word said once is what one commit changed ("JetPack を 4.6 に変更"), the very
        # thing a changelog lists; elsewhere it is a name said in passing or a typo
        self.once_weight = ONCE_IN_LOG_WEIGHT if subjects else \
            ONCE_WHEN_NOTHING_RECURS_WEIGHT if max(self.sentences_with.values(), default=0) == 1 else 0.0
        # the whole log's changelog weights: a revert or a later bump can stand in another part
        self.subject_factors = {s.start: s.gain_factor for s in subjects}

    def in_document(self, subjects: list[Sentence], part_offset: int) -> list[Sentence]:
        """A part's commit subjects (offsets in the part, which starts at ``part_offset`` of this
        document) with the changelog weights the whole document gives them."""
        return [replace(s, gain_factor=self.subject_factors.get(part_offset + s.start, s.gain_factor))
                for s in subjects]

    def sentences_in(self, part: str, part_offset: int) -> list[Sentence]:
        """The sentences of a part of this document (starting at ``part_offset``) worth noting: in a chat
        transcript, those of its people's own words as the whole document shows them."""
        if part_offset + len(part) > self.document_chars:
            return sentences_of(part, relaxed=self.relaxed)
        speaker = self.turns.at(part_offset)
        if self.prose is None:
            return sentences_of(part, relaxed=self.relaxed, speaker_at_start=speaker)
        return sentences_of(part, self.prose.shifted(part_offset), self.relaxed, speaker)

    def weight(self, unit: str) -> float:
        n = self.sentences_with[unit]
        if unit.startswith(NUMBER_MARK):
            return max(NUMBER_WEIGHT, math.log1p(n))
        return math.log1p(n) if n > 1 else self.once_weight


def select_sentences(part: str, weights: DocumentWeights, covered: set[str], budget_chars: int,
                     max_sentences: int, candidates: list[Sentence] | None = None) -> list[Sentence]:
    """The part's sentences (or ``candidates``) that add the most weight not in ``covered``, greedily,
    within ``budget_chars`` of reading length (at least one when the part has a sentence worth noting);
    ``covered`` grows by what they hold. In the part's order."""
    if candidates is None:
        candidates = sentences_of(part)
    candidates = [s for s in candidates if s.reading_chars <= MAX_SENTENCE_CHARS]
    # what does not belong (a reverted commit, bookkeeping) is chosen only when the part holds nothing else
    candidates = [s for s in candidates if s.gain_factor > 0] or candidates
    chosen: list[Sentence] = []
    used = 0
    while len(chosen) < max_sentences:
        best, best_gain = None, 0.0
        for sentence in candidates:
            if sentence in chosen or (chosen and used + sentence.reading_chars > budget_chars):
                continue
            # fsum: a set's order changes from one process to the next (hash seeds), and a float sum in
            # that order changed which of two equally weighty sentences won (a test failed 1 run in 20)
            gain = (sentence.gain_factor * math.fsum(weights.weight(u) for u in sentence.units - covered)
                    / sentence.reading_chars ** LENGTH_POWER)
            if gain > best_gain:
                best, best_gain = sentence, gain
        if best is None and not chosen and candidates:
            # nothing new in the whole part: still its most substantive sentence, so the part is not lost
            best = max(candidates, key=lambda c: c.gain_factor * math.fsum(weights.weight(u) for u in c.units))
        if best is None:
            break
        chosen.append(best)
        used += best.reading_chars
        covered |= best.units
    return sorted(chosen, key=lambda s: s.start)


def prose_language(text: str) -> str | None:
    """The language to ask for, named from the text's sentences, not all its characters: a Japanese git
    log is mostly Latin hashes, authors and file paths ("Japanese", or None: see language.named_language)."""
    return named_language(" ".join(s.text for s in sentences_of(text) or sentences_of(text, relaxed=True)))
