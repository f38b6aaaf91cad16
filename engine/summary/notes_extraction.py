"""Notes from one part, every one resting on text of the part.

salient_notes_for_part: code chooses the sentences, the model rewords each in one grammar-shaped call,
code checks every rewording; the sentence is the quote. The notes strategy takes every part's notes so;
every other strategy takes a part's notes so when its rewrite fails twice (RunContext.part_notes_fallback),
so the failed part still reaches the result as its notes, never "the previous summary plus a list of names".
"""
from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field, replace

from rapidfuzz import fuzz

from precis.engine.documents.spoken_text import AFTER_TITLE, SPEAKER_PREFIX, clean_utterance
from precis.engine.events import RoundStarted
from precis.engine.planning.summary_length import MAX_SENTENCES_PER_PART
from precis.engine.prompts.notes import (
    EXAMPLE_NAMES,
    POINT_CHARS,
    NotesLayout,
    parse_reworded,
    restate_grammar,
    reword_grammar,
)
from precis.engine.summary.evidence import (
    STOPWORDS,
    Note,
    NoteCheck,
    cjk_bigrams,
    condition_swapped,
    conditional,
    content_words,
    copy_share,
    hedge_dropped,
    is_repeat,
    negation_dropped,
    negation_invented,
    normalise,
    plainly_said,
    point_supported,
    proposal_invented,
    qualifier_dropped,
    question_dropped,
    reason_invented,
)
from precis.engine.summary.language import wrong_language
from precis.engine.summary.salience import (
    DocumentWeights,
    joined_letters,
    select_sentences,
    subject_sentences,
    units_of,
)

TOKENS_PER_REWORD = 50           # one reworded sentence: at most 150 characters and its number
LINE_TOKENS = 6                  # a numbered line's "[12] " and its line break
MIN_POINT_WORDS = 3              # a point with fewer content words and Japanese character pairs, all told
#                                  (speaker labels aside), says nothing: "Budget approved", "設計書"
COPY_RATIO = 85.0                # a "point" this close to its own quote is a copy, not a note
POINT_COPY_SHARE = 0.5           # ... and one mostly copied word for word from the part is too


@dataclass
class PartNotes:
    """What one part gave: the notes kept, what verification dropped, and the model calls it took."""
    notes: list[Note] = field(default_factory=list)
    check: NoteCheck = field(default_factory=NoteCheck)
    results: list = field(default_factory=list)
    flags: list[str] = field(default_factory=list)


class LineIndex:
    """1-based line numbers of document offsets."""

    def __init__(self, text: str) -> None:
        self.starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def line_of(self, char: int) -> int:
        return bisect.bisect_right(self.starts, char)


def _says_nothing(point: str, quote: str) -> bool:
    """A point that is a speaker's bare utterance, a word or two, or a copy of its own quote is not a note.
    Any Japanese once counted as enough: of "`docs/specs/cache/disk-cache/design.md` - 設計書" the 1.5B
    model's note "設計書" ("design document") stood as a line of a development session's summary."""
    body = SPEAKER_PREFIX.sub("", point)
    if len(content_words(body)) + len(cjk_bigrams(body)) < MIN_POINT_WORDS:
        return True
    return fuzz.ratio(normalise(body).text, normalise(SPEAKER_PREFIX.sub("", quote)).text) >= COPY_RATIO


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


def reword_extracts(ctx, index: int, layout: NotesLayout, extracts: list[Note], part: str, out: PartNotes,
                    shown: list[str] | None = None, retry: bool = False):
    """Generator; returns the extracts, each with the model's short rewording as its point where that
    rewording checks out (its numbers and most of its words in the sentence, no name the part does not
    hold and the name of whoever the sentence reports, no negation the sentence does not make nor what it
    negates said un-negated, no condition turned around nor a guess said as a fact, in the language asked
    for, not a copy of it, not unfinished nor saying the same words twice; a proposal the sentence does not
    make is said plainly, "suggests" as "says" or "mentions": ``evidence.plainly_said``). ``shown``: the sentences as
    the model sees them (with their speaker). ``retry``: the sentences whose rewording was refused are
    asked once more, greedy, with a reminder, and those refused again one at a time (``restate_extracts``).

    Sentences taken verbatim made up most of what a summary copied from its source (copy rates of
    0.16-0.47 on development meetings); saying what one given sentence states is a short, local task
    small models do well, and code still checks it. The sentence stays the note's quote."""
    sentences = shown or [n.quote for n in extracts]
    kept = list(extracts)
    part_norm = normalise(part)

    def repaired(point: str, i: int) -> str:
        """A proposal the sentence does not make, said plainly: the verb was the fault, not the fact. Not of
        a condition: told as advice, a conditional sentence came back with its condition turned around
        where no check can see it ("Orin suggests using rsync for backup if it fails" of "If rsync fails
        for any reason, the fallback is pg_basebackup"), and is refused as before."""
        if proposal_invented(point, sentences[i]) and not conditional(point) and not conditional(sentences[i]):
            return plainly_said(point)
        return point

    def passes(point: str, i: int) -> bool:
        sentence = sentences[i]
        point = repaired(point, i)
        return bool(point) and not unfinished(point) and not says_twice(point) \
            and point_supported(point, sentence) and not _says_nothing(point, kept[i].quote) \
            and not negation_invented(point, sentence) and not negation_dropped(point, sentence) \
            and not condition_swapped(point, sentence) and not hedge_dropped(point, sentence) \
            and not question_dropped(point, sentence) and not proposal_invented(point, sentence) \
            and not qualifier_dropped(point, sentence) and not reason_invented(point, sentence) \
            and not invented_names(point, part, sentence) and not reporters_dropped(point, sentence) \
            and not completes_broken_off(point, kept[i].quote, sentence) \
            and not wrong_language(point, sentence, layout.language) \
            and copy_share(SPEAKER_PREFIX.sub("", point), part, part_norm) < POINT_COPY_SHARE
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
        for i, point in _aligned(answers, positions, passes).items():
            kept[i] = replace(kept[i], point=as_noted(repaired(point, i), sentences[i]), origin="reworded")
    if retry:
        kept = yield from restate_extracts(ctx, index, layout, kept, sentences, out, passes, repaired)
    if any(n.origin == "reworded" for n in kept):
        out.flags.append("reworded")
    return kept


def restate_extracts(ctx, index: int, layout: NotesLayout, kept: list[Note], sentences: list[str], out: PartNotes,
                     passes, repaired):
    """Generator; the last ask for each sentence whose rewording both numbered asks refused: that sentence
    alone, greedy, one short note (its prefix, rules and worked example, is reused from call to call).
    Of a development earnings call the 1.5B model handed a part's four sentences back unchanged in both
    numbered asks, so they stood verbatim in the summary (46% of it copied); asked one at a time it said
    each in other words. Code checks the answer as it checks any rewording."""
    for i, note in enumerate(kept):
        if note.origin == "reworded":
            continue
        ctx.check_cancel()
        result = yield from ctx.call(index, layout.restate_messages(sentences[i]), reword_tokens(ctx, [sentences[i]]),
                                     replace(ctx.strict_sampling, grammar=restate_grammar()))
        out.results.append(result)
        point = first_sentence(result.raw.strip().splitlines()[0] if result.raw.strip() else "")
        if result.stats.stopped_by != "max_tokens" and passes(point, i):
            kept[i] = replace(note, point=as_noted(repaired(point, i), sentences[i]), origin="reworded")
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


# An utterance its speaker broke off ends, with no full stop, on a word no finished English sentence ends
# with: an article, a preposition (not one that ends a phrasal verb: "put them in"), a conjunction, a
# subject or a possessive, fillers aside ("... 'cause they're", "... I mean removing the").
_BROKEN_OFF = re.compile(
    r"(?i:\b(?:the|a|an|to|of|at|for|with|from|into|by|about|than|and|or|but|because|'cause|cause|if|"
    r"i|we|they|he|she|i'm|we're|they're|you're|it's|that's|there's|he's|she's|my|our|your|their|its|gonna))\W*$")
_ELLIPSIS_TO = re.compile(r"(?i:\b(?:want|wanted|wanna|have|has|had|need|needed|going|like|love|used|ought|got) "
                          r"to)\W*$")                                     # "... as you want to" is finished
# The verbs that report what someone said (reporters_dropped looks for them after a name) ...
_REPORTING = ("says|said|thinks|thought|wants|wanted|tells|told|believes|believed|argues|argued|explains|"
              "explained|mentions|mentioned|asks|asked|suggests|suggested|claims|claimed|reports|reported|"
              "insists|insisted|writes|wrote|feels|felt|replied|answered")
# ... and the words a note uses to say who said what: no content of the sentence's
_NOTE_VERBS = content_words(_REPORTING.replace("|", " ") + " states proposes notes discusses agrees considers "
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
    """A rewording that passed, as the note keeps it: spelled letters joined, names cased as shown."""
    return cased_as_shown(joined_letters(point), shown)


_CAPITALISED = re.compile(r"(?<![:.!?]\s)(?<!^)\b[A-Z][a-z]{2,}\b")      # not where a sentence starts


def invented_names(point: str, part: str, sentence: str | None = None) -> list[str]:
    """Capitalised words of ``point`` the part never uses, in any case: a name the model brought in (the
    1.5B model wrote "Ben invests in brands" of an earnings call: Ben is in the prompt's example). A
    capitalised word where a sentence starts is no sign of a name; the rewording's first word is checked
    when the sentence's speaker label does not hold it either."""
    lowered = part.lower()
    words = _CAPITALISED.findall(point)
    first = re.match(r"\s*([A-Z][a-z]{2,})\b", point)
    if first and first.group(1).lower() not in STOPWORDS:
        words.insert(0, first.group(1))
    # Japanese has no capitals: the Japanese example's own names are looked for instead
    words += [name for name in EXAMPLE_NAMES if not name.isascii() and name in point]

    def in_part(word: str) -> bool:
        if not word.isascii():
            return word in part                                  # no word boundaries in Japanese
        return bool(re.search(rf"\b{re.escape(word.lower())}\b", lowered))
    invented = [w for w in dict.fromkeys(words) if not in_part(w)]
    if sentence is not None:
        # the worked example's speaker ("Marketing proposes ...") as the subject of a rewording whose
        # sentence has no such speaker: the 1.5B model wrote "Marketing plans to maintain focus on
        # long-term priorities" of an earnings call, where "marketing" is only a word the part uses
        invented += [name for name in EXAMPLE_NAMES if name.isascii() and name not in invented
                     and re.search(rf"\b{name}\b", point) and not re.search(rf"\b{name}\b", sentence)]
    return invented


# Who a sentence says said it: "Priya says 13 goes out of support and she does not want ..." was Mika's
# line of the sample day, and the 1.5B model's rewording, "Mika proposes moving the billing cluster ...",
# put Priya's view in the speaker's mouth (the README's screenshot). A rewording must name the person its
# sentence reports (pronouns and "everyone" are no one in particular).
_REPORTED = re.compile(rf"\b([A-Z][a-z]+(?: [A-Z][a-z]+)?) (?:{_REPORTING})\b|\b(?:said|says|asked|replied|answered) "
                       r"([A-Z][a-z]+(?: [A-Z][a-z]+)?)\b")
_NO_ONE = {"everyone", "everybody", "someone", "somebody", "nobody", "people", "one", "who", "which"}


def reporters_dropped(point: str, sentence: str) -> list[str]:
    """The people ``sentence`` reports as saying, thinking or wanting something whom ``point`` does not
    name by any of their words ("Project Manager", "Priya Patel"; a speaker's label is not a report:
    "Mika: ..." names the speaker, not someone Mika quotes)."""
    said = SPEAKER_PREFIX.sub("", sentence + " ")
    dropped = []
    for name in dict.fromkeys(a or b for a, b in _REPORTED.findall(said)):
        words = [w for w in name.split() if w.lower() not in STOPWORDS | _NO_ONE]
        if words and not any(re.search(rf"\b{re.escape(w)}\b", point, re.I) for w in words):
            dropped.append(name)
    return dropped


def salient_notes_for_part(ctx, index: int, kind: str, document: str, chunk, part: str, part_offset: int,
                           total: int, first_id: int, lines: LineIndex, earlier: list[Note],
                           weights: DocumentWeights, budget_chars: int, language: str | None = None):
    """Generator (yields RoundStarted, TokensGenerated); returns PartNotes.

    Code chooses the part's sentences that add most to what the earlier notes hold (engine.summary.
    salience), the model says each in a short note of its own words (one grammar-shaped call), code checks
    every rewording. The sentence is the note's quote, so every note is evidence by construction. A
    sentence whose rewording fails its checks is dropped when others of the part passed (verbatim
    sentences are what a summary copies), else kept cleaned of fillers: a part is never lost.
    ``language``: the notes' language (the one asked for, else the document's when Precis can name it)."""
    cap_sentences = max(1, min(MAX_SENTENCES_PER_PART, ctx.budget.summary_out_cap // TOKENS_PER_REWORD))
    subjects = subject_sentences(part)
    yield RoundStarted(index, kind, chunk.index, total, chunk.tokens, 0, part, "", 1)
    if subjects:
        # A git log: each note is a commit's subject as its author wrote it, no model call. Asked to say
        # Japanese commit messages in other words, the 1.5B model handed them back with the ending cut
        # ("...修正しました" -> "...修正"), every one refused as a copy, so the log's long body lines were
        # kept verbatim instead (69% of its summary copied); its subjects are what a changelog lists.
        out = subject_notes(part, part_offset, document, chunk.index, first_id, lines, earlier, subjects,
                            cap_sentences, weights, budget_chars)
        if not out.notes:
            out.flags = ["nothing_to_note"]
        return out
    layout = NotesLayout(ctx.layout.preset, ctx.layout.date, language or ctx.layout.language)
    out = PartNotes()
    covered = set().union(*(units_of(n.quote) for n in earlier)) if earlier else set()
    chosen = select_sentences(part, weights, covered, budget_chars, cap_sentences,
                              weights.sentences_in(part, part_offset))
    extracts, shown = [], []
    for sentence in chosen:
        s, e = part_offset + sentence.start, part_offset + sentence.start + len(sentence.text)
        point = sentence.said()
        note = Note(first_id + len(extracts), point, sentence.text, document, chunk.index, s, e, lines.line_of(s),
                    lines.line_of(max(s, e - 1)), 100.0, "extract")
        if is_repeat(note, earlier + extracts):
            out.check.repeats += 1
            continue
        extracts.append(note)
        shown.append(sentence.shown())
    if not extracts:
        out.flags.append("nothing_to_note")
        return out
    notes = yield from reword_extracts(ctx, index, layout, extracts, part, out, shown, retry=True)
    reworded = [n for n in notes if n.origin == "reworded"]
    out.check.unsupported = [n.quote for n in notes if n.origin != "reworded"]
    # No rewording passed: the sentences, cleaned, so that the part is not lost. Keeping only the part's
    # most substantive one was tried on the development project log (terse Japanese commit messages the
    # model hands back unchanged): 234 characters, half the log's quarters missing, still 65% copied.
    out.notes = reworded or notes
    # ids stay consecutive when a failed rewording was dropped
    out.notes = [replace(n, id=first_id + i) for i, n in enumerate(out.notes)]
    if not reworded:
        out.flags.append("extracted")
    out.check.kept = out.notes
    return out
