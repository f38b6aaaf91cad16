"""Notes from one part, every one resting on text of the part.

salient_notes_for_part: code chooses the sentences, the model rewords each in one grammar-shaped call,
code checks every rewording; the sentence is the quote. The notes strategy takes every part's notes so;
every other strategy takes a part's notes so when its rewrite fails twice (RunContext.part_notes_fallback),
so the failed part still reaches the result as its notes, never "the previous summary plus a list of names".
"""
from __future__ import annotations

import bisect
import functools
import re
from dataclasses import dataclass, field, replace

from precis.engine.documents.document_kind import PROSE, document_kind, is_narrative
from precis.engine.documents.spoken_text import AFTER_TITLE, speaker_name
from precis.engine.events import RoundStarted
from precis.engine.planning.summary_length import (
    BULLET_MARK_CHARS,
    SENTENCE_CHARS,
    SUBJECT_CHARS,
    TOKENS_PER_REWORD,
    sentences_per_part,
)
from precis.engine.prompts.layout import is_japanese
from precis.engine.prompts.notes import NotesLayout, example_text, parse_reworded, restate_grammar, reword_grammar
from precis.engine.summary.checks import REWORDING, Verdict, judge, rewording_claim
from precis.engine.summary.checks.conditions import conditional, without_invented_ending
from precis.engine.summary.checks.form import FIRST_PERSON, is_question
from precis.engine.summary.checks.stance import (
    act_said_plainly,
    act_unsaid,
    plainly_said,
    proposal_invented,
    proposal_unsaid,
)
from precis.engine.summary.evidence import Note, NoteCheck, is_repeat
from precis.engine.summary.facts import figures_not_in
from precis.engine.summary.salience import (
    DocumentWeights,
    Sentence,
    joined_letters,
    select_sentences,
    subject_sentences,
    units_of,
)
from precis.engine.summary.speaker_labels import label_in_full
from precis.engine.summary.story_referents import OPENING_PRONOUN, teller, told_by, with_referent
from precis.engine.summary.story_who import ask_opening_referent, named_opening
from precis.engine.summary.voice import WE_OPENING, ask_voice, in_voice, speaks_as_we

LINE_TOKENS = 6                  # a numbered line's "[12] " and its line break


@dataclass
class PartNotes:
    """What one part gave: the notes kept, what verification dropped, and the model calls it took."""
    notes: list[Note] = field(default_factory=list)
    check: NoteCheck = field(default_factory=NoteCheck)
    results: list = field(default_factory=list)
    flags: list[str] = field(default_factory=list)
    side_calls: list = field(default_factory=list)     # questions weighed, not written (who a "he" is)


class LineIndex:
    """1-based line numbers of document offsets."""

    def __init__(self, text: str) -> None:
        self.starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def line_of(self, char: int) -> int:
        return bisect.bisect_right(self.starts, char)


def quote_speaker(sentence: Sentence) -> str:
    """Who said ``sentence`` when its quote does not show its label (engine.summary.evidence.Note.speaker):
    the transcript's label for a sentence inside a turn, or a paragraph going on with a turn; "" for one
    that opens with its label, an exchange (each turn shows its own) and a sentence nobody is named for."""
    if not sentence.speaker or sentence.turns or sentence.body() != sentence.text:
        return ""
    return speaker_name(sentence.speaker)


def subject_notes(part: str, part_offset: int, document: str, part_index: int, first_id: int, lines: LineIndex,
                  earlier: list[Note], subjects: list, max_notes: int, weights: DocumentWeights | None = None,
                  budget_chars: int | None = None) -> PartNotes:
    """A git log's part noted by its commit subjects, no model call: the ones that add most to the earlier
    notes, at most ``max_notes``, each its own quote (origin "subject"). Of a Japanese log the 1.5B model's
    notes came back in English and its rewordings as the subjects with their endings cut. ``weights``: the
    whole document's (default: the part's); ``budget_chars``: their reading length (default: no bound)."""
    out = PartNotes()
    covered = set().union(*(units_of(n.quote) for n in earlier)) if earlier else set()
    if weights is not None:
        subjects = weights.in_document(subjects, part_offset)
    chosen = select_sentences(part, weights or DocumentWeights(part), covered,
                              budget_chars or sum(len(s.text) for s in subjects), max_notes, subjects)
    for sentence in chosen:
        s, e = part_offset + sentence.start, part_offset + sentence.start + len(sentence.text)
        note = Note(first_id + len(out.notes), sentence.text, sentence.text, document, part_index, s, e,
                    lines.line_of(s), lines.line_of(max(s, e - 1)), 100.0, "subject")
        if is_repeat(note, earlier + out.notes):
            out.check.repeats += 1
            continue
        out.notes.append(note)
    out.check.kept = out.notes
    out.flags.append("commit_subjects")
    return out


# A rewording refused only because its words are the part's, at most this share of its sentence's length: the
# model's shortening of the sentence in the sentence's own words. Where no rewording of a part passes, it
# stands instead of the whole sentence. Asked to say a Japanese assembly's sentences (100-250 characters of
# formal speech) in other words, the 1.5B model shortened them by keeping their phrases ("新型コロナウイルス
# 感染症対策", twelve characters, is one noun); refused as copies, the whole sentences were kept instead: 24
# of a development sitting's 59 parts, 65% of its summary copied, where a shortening copies less and says
# the same in fewer words.
SHORTENED_CHECKS = frozenset({"copied_from_part"})
SHORTENED_MAX_SHARE = 2 / 3


def shortened(point: str, names: list[str], quote: str) -> bool:
    """Whether ``point``, refused by the checks ``names``, is a shortening of the sentence ``quote`` in its
    own words (``SHORTENED_CHECKS``, ``SHORTENED_MAX_SHARE``)."""
    return bool(names) and set(names) <= SHORTENED_CHECKS and len(point) <= SHORTENED_MAX_SHARE * len(quote)


def reword_extracts(ctx, index: int, layout: NotesLayout, extracts: list[Note], part: str, out: PartNotes,
                    shown: list[str] | None = None, retry: bool = False):
    """Generator; returns the extracts, each with the model's short rewording as its point where that
    rewording passes the named checks of a rewording (engine.summary.checks, kind REWORDING: its numbers and
    most of its words in the sentence, no name the part does not hold and the name of whoever the sentence
    reports, no negation the sentence does not make nor what it negates said un-negated, no condition turned
    around nor a guess said as a fact, in the language asked for, not a copy of it, not unfinished nor saying
    the same words twice); a proposal the sentence does not make is said plainly first, "suggests" as "says"
    or "mentions" (``checks.stance.plainly_said``). Every refused answer is counted by the checks that refused
    it (``out.check.refused_by``). ``shown``: the sentences as the model sees them (with their speaker).
    ``retry``: the sentences whose rewording was refused are asked once more, greedy, with a reminder, and
    those refused again one at a time (``restate_extracts``). A sentence none of whose rewordings passed but
    one refused only as a shortening in its own words (``shortened``) comes back with the shortest such as
    its point, origin "shortened" (a part where no rewording passed keeps these rather than whole sentences).

    Sentences taken verbatim made up most of what a summary copied from its source (copy rates of
    0.16-0.47 on development meetings); saying what one given sentence states is a short, local task
    small models do well, and code still checks it. The sentence stays the note's quote."""
    sentences = shown or [n.quote for n in extracts]
    kept = list(extracts)

    def judged(point: str, i: int) -> Verdict:
        return rewording_verdict(point, sentences[i], kept[i].quote, part, layout.language, layout.example_text())[1]

    def passes(point: str, i: int) -> bool:
        return judged(point, i).passed

    def noted(point: str, i: int, origin: str = "reworded") -> Note:
        return replace(kept[i], point=as_noted(said_plainly(point, sentences[i]), sentences[i]), origin=origin)

    figureless: dict[int, str] = {}

    def weighed(point: str, i: int) -> Verdict:
        """The verdict on an answer; a refused shortening kept for its sentence if the shortest yet, an answer
        refused only for leaving out the sentence's figures kept aside (``figureless``)."""
        verdict = judged(point, i)
        if verdict.names == ["figures_dropped"]:
            figureless.setdefault(i, point)
        if not verdict.passed and kept[i].origin != "reworded" and shortened(point, verdict.names, kept[i].quote) \
                and (kept[i].origin != "shortened" or len(point) < len(kept[i].point)):
            kept[i] = noted(point, i, "shortened")
        return verdict
    asks = [(list(range(len(extracts))), False, ctx.sampling)]
    if retry:
        asks.append((None, True, ctx.strict_sampling))
    for positions, again, params in asks:
        if positions is None:
            positions = [i for i, n in enumerate(kept) if n.origin != "reworded"]
            if not positions:
                break
            ctx.check_cancel()
        asked = [sentences[i] for i in positions]
        result = yield from ctx.call(index, layout.reword_messages(asked, again),
                                     min(ctx.budget.summary_out_cap, reword_tokens(ctx, asked)),
                                     replace(params, grammar=reword_grammar(len(asked))))
        out.results.append(result)
        answers = numbered_answers(result, len(positions))
        for k, answer in enumerate(answers):
            if answer:                       # a line missing or cut by the token budget is no answer to count
                count_refusals(out.check.refused_by, weighed(answer, positions[k]).names)
        for i, point in _aligned(answers, positions, passes).items():
            kept[i] = noted(point, i)
    if retry:
        kept = yield from restate_extracts(ctx, index, layout, kept, sentences, out, weighed, noted)
    # Asked again, the model kept no figure: its first answer that only left them out stands. Refused for
    # good, such a sentence left its part without a rewording on a development call, and the part fell back
    # to its sentences verbatim: 43% of the summary copied (docs/quality.md, "A rewording that keeps its
    # sentence's figures").
    for i, point in figureless.items():
        if kept[i].origin != "reworded":
            kept[i] = noted(point, i)
            if "figures_left_out" not in out.flags:
                out.flags.append("figures_left_out")
    if any(n.origin == "reworded" for n in kept):
        out.flags.append("reworded")
    return kept


def _statements(notes: list[Note]) -> list[Note]:
    """A part's sentences kept as written (no rewording passed), its questions left out where it keeps
    another: a question lifted from a transcript ("Suzy Davies AM: ... is there anything in there about the
    role of Welsh in adult community learning?") is a line of the meeting, not of its summary, and the
    rewordings are held to statements (check ``question``). A part of questions only keeps them: a part is
    never lost."""
    return [n for n in notes if not is_question(n.point)] or notes


def figures_kept_aside(notes: list[Note], reworded: list[Note], room_chars: int | None = None) -> list[Note]:
    """A part's sentences whose every rewording was refused, kept as written (or as the model's shortening
    of them in their own words) where they hold an amount or a date that none of the part's kept notes
    holds, in the document's order while they fit in ``room_chars`` (None: no bound); questions left out.
    Where one rewording of a part passed, its refused sentences were dropped, and their figures with them: of
    a three-sentence Japanese note, SmolLM2 kept one poor rewording and the sentences with the meeting's date
    and the budget went (docs/quality.md, "A refused sentence's figures kept")."""
    held = " ".join(n.point for n in reworded)
    aside = []
    for note in notes:
        if note.origin == "reworded" or is_question(note.point) or not figures_not_in(note.point, held):
            continue
        if room_chars is not None:
            if len(note.point) + BULLET_MARK_CHARS > room_chars:
                continue
            room_chars -= len(note.point) + BULLET_MARK_CHARS
        aside.append(note)
        held += " " + note.point
    return aside


def _opens_unplaced(point: str, voice: str) -> bool:
    """A sentence kept as written opens with an "I", "we" or "you" a reader cannot place: no speaker's label
    before it, and no name for a report's "we" (``voice``). Kept for their figures, a development earnings
    call's "Our gross margin was 53.8% ..." and "Our interest and other expenses totaled $111 million ..."
    opened two lines of its summary with an "Our" nobody could place (the change's first version)."""
    if voice and WE_OPENING.match(point):
        return False
    return bool(FIRST_PERSON.match(point))      # the account's check's words, at the sentence's opening


def said_plainly(point: str, sentence: str) -> str:
    """A proposal ``sentence`` does not make, or does not make in so many words (``checks.stance.
    proposal_unsaid``), said plainly (``checks.stance.plainly_said``): the verb was the fault, not the fact.
    Not of a condition: told as advice, a conditional sentence came back with its condition turned around
    where no check can see it ("Orin suggests using rsync for backup if it fails" of "If rsync fails for any
    reason, the fallback is pg_basebackup"), and is refused as before. So too an act beyond saying the
    sentence does not name (``checks.stance.act_unsaid``: "confirms", "agrees", "emphasizes", "announces" ...).
    And an ending none of whose words the sentence holds is left off (``checks.conditions.ending_invented``:
    "for better user experience", "as the main concern")."""
    if (proposal_invented(point, sentence) or proposal_unsaid(point, sentence)) and not conditional(point) \
            and not conditional(sentence):
        point = plainly_said(point)
    # an act beyond saying (confirms, agrees, emphasises, announces ...) the sentence does not name
    if act_unsaid(point, sentence):
        point = act_said_plainly(point)
        point = _SAID_TWICE.sub(r"\1", point)      # "suggests and emphasizes that" said plainly twice
    # an ending of the model's own ("for better user experience"): left off
    return without_invented_ending(point, sentence)


_SAID_TWICE = re.compile(r"\b(says|said|mentions|mentioned) and \1\b")


def rewording_verdict(point: str, sentence: str, quote: str, part: str, language: str | None,
                      example: str | None = None) -> tuple[str, Verdict]:
    """``point`` as the note of ``sentence`` (as the model was shown it; ``quote``: as the document writes it)
    of ``part``: said plainly where it must be, and the checks' verdict on it (kind REWORDING), the worked
    example it was asked with in view (a word of it the part does not hold is the example's, not the part's;
    ``example``: that example as one text, NotesLayout.example_text; the meeting's when not given)."""
    point = said_plainly(point, sentence)
    if example is None:
        example = example_text(language)         # "" for Japanese: its leak was not measured
    claim = replace(rewording_claim(point, sentence, quote, part, language), example=example)
    return point, judge(claim, REWORDING)


@functools.lru_cache(maxsize=4)                 # one document per run, asked once a part
def notes_genre(text: str) -> str:
    """Which worked example a document's rewordings are asked with (engine.prompts.notes.worked_example): prose in
    which nobody speaks by label and nobody speaks in quotes is a report; a story, a meeting, a chat, a git log
    keep the meeting's."""
    if not text or document_kind(text).name != PROSE or is_narrative(text):
        return "turns"
    return "report"


def count_refusals(refused_by: dict[str, int], names: list[str]) -> None:
    """The names of the checks that refused an answer, added to the counts by check name (a round record's
    ``refused_by``)."""
    for name in names:
        refused_by[name] = refused_by.get(name, 0) + 1


def restate_extracts(ctx, index: int, layout: NotesLayout, kept: list[Note], sentences: list[str], out: PartNotes,
                     judged, noted):
    """Generator; the last ask for each sentence whose rewording both numbered asks refused: that sentence
    alone, greedy, one short note (its prefix, rules and worked example, is reused from call to call).
    Of a development earnings call the 1.5B model handed a part's four sentences back unchanged in both
    numbered asks, so they stood verbatim in the summary (46% of it copied); asked one at a time it said
    each in other words. Code checks the answer as it checks any rewording (``judged``)."""
    for i, note in enumerate(kept):
        if note.origin == "reworded":
            continue
        ctx.check_cancel()
        result = yield from ctx.call(index, layout.restate_messages(sentences[i]), reword_tokens(ctx, [sentences[i]]),
                                     replace(ctx.strict_sampling, grammar=restate_grammar()))
        out.results.append(result)
        point = first_sentence(result.raw.strip().splitlines()[0] if result.raw.strip() else "")
        if result.stats.stopped_by == "max_tokens" or not point:
            continue                         # cut by its bound, or no answer: refused, no check to name
        verdict = judged(point, i)
        count_refusals(out.check.refused_by, verdict.names)
        if verdict.passed:
            kept[i] = noted(point, i)
    return kept


def numbered_answers(result, count: int) -> list[str]:
    """The first sentence of each numbered line "[1]" to "[count]" of a reply ("" where one is missing).
    A reply that ran out of tokens ends mid-phrase: its last line is no answer, however its words check."""
    reworded = parse_reworded(result.raw)
    if result.stats.stopped_by == "max_tokens" and reworded:
        del reworded[max(reworded)]
    return [first_sentence(reworded.get(number, "")) for number in range(1, count + 1)]


def reword_tokens(ctx, sentences: list[str]) -> int:
    """The tokens a reply rewording ``sentences`` may take: per sentence TOKENS_PER_REWORD, or as many as
    the sentence itself takes, if more. Japanese takes about a token per character: held to 50 tokens a
    line, the 1.5B model's replies to a development session's Japanese sentences ran out of tokens in 16
    of 36 numbered asks, the last line cut mid-phrase (refused) and, in 4 of its 18 parts, no rewording
    kept (the sentences taken verbatim)."""
    return sum(max(TOKENS_PER_REWORD, ctx.renderer.count(s) + LINE_TOKENS) for s in sentences)


def _aligned(answers: list[str], positions: list[int], passes) -> dict[int, str]:
    """Which answer says which sentence: answer k is sentence k's when it passes that sentence's checks;
    one that fails them is tried on the sentences next to it that have no answer yet. The 1.5B model
    sometimes skips a sentence and answers every later one a line early (on a development meeting 6 of the
    27 refused answers were refused so, each one checked against the sentence before its own); the checks
    stay those of the sentence an answer is given to."""
    given = {positions[k]: a for k, a in enumerate(answers) if passes(a, positions[k])}
    for k, answer in enumerate(answers):
        if not answer or given.get(positions[k]) == answer:
            continue
        for j in (k + 1, k - 1):
            if 0 <= j < len(positions) and positions[j] not in given and answer not in given.values() \
                    and passes(answer, positions[j]):
                given[positions[j]] = answer
                break
    return given


_NEXT_SENTENCE = re.compile(rf"(?<=[.!?])(?!{AFTER_TITLE})(?<!\bvs\.)\s+(?=[A-Z(（])|(?<=。)"
                            r"|\s+[(（](?=[^)）]*[\u3040-\u30ff])|(?<=[.!?])\s*(?=[\u3040-\u30ff\u4e00-\u9fff])")


def first_sentence(point: str) -> str:
    """A note is one statement: what a small model runs on with after it is chatter about the note
    ("This is a short note in the same language as, ...", "... star. (Venus is the morning star) (The
    sentence says ..."; in Japanese after "。", after a Latin full stop ("...反映済み. これは main リポジトリで
    ...") or in an aside in brackets: "パスを修正。 (これも短い言葉で) ただし、..."), cut here."""
    return _NEXT_SENTENCE.split(point.strip(), 1)[0].strip()


_MISCASED = re.compile(r"\b[A-Z]{2}[a-z]+\b")


def cased_as_shown(point: str, shown: str) -> str:
    """A point with a word the model wrote in the wrong case ("VAughan Gething AM discusses ...", a minister
    on a development committee meeting) spelled as the sentence shown spells it."""
    def as_shown(m: re.Match) -> str:
        found = re.search(rf"\b{re.escape(m.group(0))}\b", shown, re.I)
        return found.group(0) if found else m.group(0)
    return _MISCASED.sub(as_shown, point)


def as_noted(point: str, shown: str) -> str:
    """A rewording that passed, as the note keeps it: spelled letters joined, names cased as shown, a speaker
    named by the transcript's label, not a short form of it (engine.summary.speaker_labels)."""
    return label_in_full(cased_as_shown(joined_letters(point), shown), shown)


def _named_by_model(ctx, point: str, seen: str, document_text: str, start: int, end: int, out: PartNotes):
    """``point`` and ``seen`` (of the sentence ``document_text[start:end]``) with their opening "He" or "She"
    named by the model's weighed answer where code left it (engine.summary.story_who), the question kept in
    ``out.side_calls``."""
    if not OPENING_PRONOUN.match(seen):
        return point, seen
    answer, result = ask_opening_referent(ctx, document_text, start, end)
    if result is not None:
        out.side_calls.append(result)
    if answer is None or not answer.name:
        return point, seen
    if "pronoun_named" not in out.flags:
        out.flags.append("pronoun_named")
    return named_opening(point, answer.name), named_opening(seen, answer.name)


def _voice_of(ctx, document: str, text: str, language: str | None, notes: list[Note], out: PartNotes) -> str:
    """Whom the document's "we" stands for (engine.summary.voice), asked once per document and only when a
    note of a report opens with "We" or "Our"; "" where that is not asked or the answer is not clear. The
    question is kept in ``out.side_calls``."""
    asked = ctx.voices.get(document)
    if asked is not None or not any(WE_OPENING.match(n.point) for n in notes):
        return asked or ""
    if not speaks_as_we(text, language):
        ctx.voices[document] = ""
        return ""
    answer, result = ask_voice(ctx, text)
    if result is not None:
        out.side_calls.append(result)
    ctx.voices[document] = answer.name if answer else ""
    if ctx.voices[document]:
        out.flags.append("voice_named")
    return ctx.voices[document]


def salient_notes_for_part(ctx, index: int, kind: str, document: str, chunk, part: str, part_offset: int,
                           total: int, first_id: int, lines: LineIndex, earlier: list[Note],
                           weights: DocumentWeights, budget_chars: int, language: str | None = None, *,
                           document_text: str, room_chars: int = 0):
    """Generator (yields RoundStarted, TokensGenerated); returns PartNotes.

    Code chooses the part's sentences that add most to what the earlier notes hold (engine.summary.
    salience), the model says each in a short note of its own words (one grammar-shaped call), code checks
    every rewording. The sentence is the note's quote, so every note is evidence by construction. A
    sentence whose rewording fails its checks is dropped when others of the part passed (verbatim
    sentences are what a summary copies), unless it holds an amount or a date none of those holds
    (``figures_kept_aside``); where none passed, the sentences are kept cleaned of fillers: a part is never
    lost.
    ``language``: the notes' language (the one asked for, else the document's when Precis can name it).
    ``document_text``: the whole document the part starts at ``part_offset`` of, read back from a sentence for
    who its opening "he" is (engine.summary.story_who). ``room_chars``: what the part's notes may take and keep
    the summary's pace (engine.planning.summary_length.pace_room_chars); a refused sentence is kept for its
    figures only in what its rewordings leave of it."""
    subjects = subject_sentences(part)
    yield RoundStarted(index, kind, chunk.index, total, chunk.tokens, 0, part, "", 1)
    if subjects:
        # A git log: each note is a commit's subject as its author wrote it, no model call. Asked to say
        # Japanese commit messages in other words, the 1.5B model handed them back with the ending cut
        # ("...修正しました" -> "...修正"), every one refused as a copy, so the log's long body lines were
        # kept verbatim instead (69% of its summary copied); its subjects are what a changelog lists.
        out = subject_notes(part, part_offset, document, chunk.index, first_id, lines, earlier, subjects,
                            sentences_per_part(ctx.budget.summary_out_cap, SUBJECT_CHARS), weights, budget_chars)
        if not out.notes:
            out.flags = ["nothing_to_note"]
        return out
    layout = NotesLayout(ctx.layout.preset, ctx.layout.date, language or ctx.layout.language,
                         notes_genre(document_text))
    out = PartNotes()
    covered = set().union(*(units_of(n.quote) for n in earlier)) if earlier else set()
    candidates = weights.sentences_in(part, part_offset)
    # more of a part's sentences in its one call where they are short (a story's), as many as before where not
    mean_chars = sum(s.reading_chars for s in candidates) / len(candidates) if candidates else SENTENCE_CHARS
    chosen = select_sentences(part, weights, covered, budget_chars,
                              sentences_per_part(ctx.budget.summary_out_cap, mean_chars), candidates)
    extracts, shown, tellers = [], [], []
    # who a story's sentence is about, where code can tell (engine.summary.story_referents): an opening "he"
    # named for the model; a character's words are shown as they are and their note put under the character's
    # name after it passed (shown under it, the 1.5B model handed the words back, refused as copies)
    japanese = is_japanese(layout.language)
    for sentence in chosen:
        s, e = part_offset + sentence.start, part_offset + sentence.start + len(sentence.text)
        point, seen, who = sentence.said(), sentence.shown(), ""
        if japanese and sentence.speaker and not sentence.turns:
            # A Japanese turn's sentence is shown without its speaker and its note put under the name after.
            # Japanese leaves a sentence's subject unsaid; shown "鈴木章浩議員: 三つの基金を新設しました", the
            # model made the speaker the subject ("鈴木章浩議員は、三つの基金を新設しました", what the city did):
            # the commonest unfaithful line of the development assembly's notes, and a name it misspelt.
            seen, who = sentence.shown(labelled=False), speaker_name(sentence.speaker)
        elif not japanese and not sentence.speaker and not sentence.turns:
            end = sentence.start + len(sentence.text)
            who = teller(part, sentence.start, end)
            if not who:
                named = (with_referent(t, part, sentence.start, end) for t in (point, seen))
                point, seen = _named_by_model(ctx, *named, document_text, s, e, out)
        note = Note(first_id + len(extracts), point, sentence.text, document, chunk.index, s, e, lines.line_of(s),
                    lines.line_of(max(s, e - 1)), 100.0, "extract", speaker=quote_speaker(sentence))
        if is_repeat(note, earlier + extracts):
            out.check.repeats += 1
            continue
        extracts.append(note)
        shown.append(seen)
        tellers.append(who)
    if not extracts:
        out.flags.append("nothing_to_note")
        return out
    notes = yield from reword_extracts(ctx, index, layout, extracts, part, out, shown, retry=True)
    notes = [replace(n, point=told_by(n.point, who, n.quote)) for n, who in zip(notes, tellers)]
    reworded = [n for n in notes if n.origin == "reworded"]
    out.check.unsupported = [n.quote for n in notes if n.origin != "reworded"]
    # No rewording passed: the sentences, cleaned (or the model's shortening of one in its own words, above),
    # so that the part is not lost. Keeping only the part's most substantive one was tried on the development
    # project log (terse Japanese commit messages the model hands back unchanged): 234 characters, half the
    # log's quarters missing, still 65% copied.
    out.notes = reworded or _statements(notes)
    candidates = figures_kept_aside(notes, reworded) if reworded else []
    # a report's "We ..." said of whom "we" stands for, asked only for a note the part keeps or may keep
    voice = _voice_of(ctx, document, document_text, layout.language, out.notes + candidates, out)
    placed = [n for n in notes if n.origin != "reworded" and not _opens_unplaced(n.point, voice)]
    room = room_chars - sum(len(n.point) + BULLET_MARK_CHARS for n in reworded)
    aside = figures_kept_aside(placed, reworded, max(0, room)) if candidates else []
    if aside:
        out.notes = sorted(reworded + aside, key=lambda n: n.start_char)
        out.flags.append("figures_kept")
    # ids stay consecutive when a failed rewording was dropped
    out.notes = [replace(n, id=first_id + i, point=in_voice(n.point, voice)) for i, n in enumerate(out.notes)]
    if not reworded:
        out.flags.append("extracted")
        if any(n.origin == "shortened" for n in out.notes):
            out.flags.append("shortened")
    out.check.kept = out.notes
    return out
