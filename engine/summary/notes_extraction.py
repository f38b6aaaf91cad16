"""Notes from one part: a grammar-shaped model call, every quote verified against the part, and a
verbatim fallback when the model gives nothing that checks out.

Used by the notes strategy for every part, and by every other strategy when a round fails twice: the
failed part's content still reaches the result as its verified notes, never "the previous summary
plus a list of names".
"""
from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field, replace

from rapidfuzz import fuzz

from precis.engine.events import CollapseDetected, RoundStarted
from precis.engine.prompts.notes import NotesLayout, notes_grammar, parse_note_lines, parse_reworded, reword_grammar
from precis.engine.summary.evidence import (
    Note,
    NoteCheck,
    cjk_bigrams,
    content_words,
    copy_share,
    is_repeat,
    locate_quote,
    locate_support,
    normalise,
    point_supported,
)
from precis.engine.summary.noise import substantive_text

TOKENS_PER_REWORD = 50           # one reworded sentence: at most 150 characters and its number
TOKENS_PER_NOTE = 90             # a note line is ~50-90 tokens; the reply cap follows from it
MIN_NOTES, MAX_NOTES = 3, 7
MIN_POINT_WORDS = 3              # a point with fewer content words (speaker labels aside) says nothing
COPY_RATIO = 85.0                # a "point" this close to its own quote is a copy, not a note
POINT_COPY_SHARE = 0.5           # ... and one mostly copied word for word from the part is too
EXTRACT_SENTENCES = 4            # sentences taken verbatim from a part when no note verifies
MIN_EXTRACT_WORDS = 5            # content words a sentence needs to be worth taking
_SENTENCE = re.compile(r"[^.!?。！？\n]{20,400}[.!?。！？]?")
_DECISION = re.compile(r"\b(decid|agree|will|should|must|plan|because|need|want|chose|choose|approve|reject|"
                       r"deadline|by (?:monday|tuesday|wednesday|thursday|friday|next))|決定|予定|合意|方針|必要|ため",
                       re.I)
_FILLER_ONLY = re.compile(r"^\W*(?:(?:um|uh|mm|hmm|yeah|okay|ok|right|so|and|but|i|you|we|the|a)\W+)*\W*$", re.I)


def max_notes_for(part_tokens: int, reply_cap_tokens: int) -> int:
    by_part = part_tokens // 200 + 1
    by_cap = reply_cap_tokens // TOKENS_PER_NOTE
    return max(1, min(MAX_NOTES, max(MIN_NOTES, by_part), by_cap))


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


def verify_notes(reply: str, part: str, part_offset: int, document: str, part_index: int, first_id: int,
                 lines: LineIndex, earlier: list[Note]) -> NoteCheck:
    """Keep each (point, quote) of ``reply`` whose quote is found in ``part`` and whose point the part
    supports; the kept note's quote is the source's own text at the located span."""
    check = NoteCheck()
    part_norm = normalise(part)
    part_words = content_words(part)
    next_id = first_id
    for point, quote in parse_note_lines(reply):
        located, origin = locate_quote(quote, part, part_norm), "model"
        if located is None:
            located, origin = locate_support(point, part), "located"
        if located is None:
            check.unverified.append(quote)
            continue
        if not point_supported(point, part, part_words) or _says_nothing(point, quote) or \
                copy_share(_SPEAKER_PREFIX.sub("", point), part, part_norm) >= POINT_COPY_SHARE:
            check.unsupported.append(point)
            continue
        start, end = part_offset + located.start_char, part_offset + located.end_char
        note = Note(next_id, point, part[located.start_char:located.end_char].strip(), document, part_index,
                    start, end, lines.line_of(start), lines.line_of(max(start, end - 1)), located.score, origin)
        if is_repeat(note, earlier + check.kept):
            check.repeats += 1
            continue
        check.kept.append(note)
        check.located += origin == "located"
        next_id += 1
    return check


_SPEAKER_PREFIX = re.compile(r"^\s*(?:\[[^\]]{1,20}\]\s*)?[A-Z][\w.'-]*(?: [\w.'-]+){0,3}:\s+")  # "Project Manager: "


def _says_nothing(point: str, quote: str) -> bool:
    """A point that is a speaker's bare utterance or a copy of its own quote is not a note."""
    body = _SPEAKER_PREFIX.sub("", point)
    if len(content_words(body)) < MIN_POINT_WORDS and not cjk_bigrams(body):
        return True
    return fuzz.ratio(normalise(body).text, normalise(_SPEAKER_PREFIX.sub("", quote)).text) >= COPY_RATIO


_DISFLUENCY = re.compile(r"\b(?:um+|uh+|erm|er|mm+-?hmm|mm+|hmm+|uh-huh|you know|i mean)\b[ ,.]*", re.I)
_REPEAT = re.compile(r"\b(\w+)(?: \1\b)+", re.I)


def clean_utterance(sentence: str) -> str:
    """A spoken sentence as a reader wants it: fillers and stutters out, transcript spacing tidied (the
    verbatim sentence stays the note's quote)."""
    text = _DISFLUENCY.sub("", sentence)
    text = _REPEAT.sub(r"\1", text)
    text = re.sub(r"\s+([,.?!])", r"\1", re.sub(r"\s{2,}", " ", text))
    return re.sub(r"([,.]){2,}", r"\1", text).strip(" ,")


def extract_sentences(part: str, part_offset: int, document: str, part_index: int, first_id: int,
                      lines: LineIndex, earlier: list[Note], k: int = EXTRACT_SENTENCES) -> list[Note]:
    """The part's most informative sentences, verbatim (no model): numbers, dates, names, decisions.
    Whole sentences, so a fact keeps its label ("the budget of EUR 1,200"), never a bare number."""
    substantive = substantive_text(part)
    candidates = []
    for m in _SENTENCE.finditer(part):
        sentence = m.group(0).strip()
        if len(sentence) < 30 or _FILLER_ONLY.match(sentence) or sentence not in substantive:
            continue
        words = content_words(_SPEAKER_PREFIX.sub("", sentence)) or cjk_bigrams(sentence)
        if len(words) < MIN_EXTRACT_WORDS:
            continue          # "What else can we need?": a sentence with little in it informs no one
        score = (len(words) / 6 + 1.5 * bool(re.search(r"\d", sentence)) + bool(_DECISION.search(sentence))
                 - 0.5 * sentence.rstrip().endswith("?"))
        candidates.append((score, m.start() + (len(m.group(0)) - len(m.group(0).lstrip())), sentence))
    chosen = sorted(sorted(candidates, key=lambda c: -c[0])[:k * 2], key=lambda c: c[1])
    notes: list[Note] = []
    for _score, start, sentence in chosen:
        s, e = part_offset + start, part_offset + start + len(sentence)
        note = Note(first_id + len(notes), clean_utterance(sentence), sentence, document, part_index, s, e,
                    lines.line_of(s), lines.line_of(max(s, e - 1)), 100.0, "extract")
        if not is_repeat(note, earlier + notes):
            notes.append(note)
        if len(notes) >= k:
            break
    return notes


def notes_for_part(ctx, index: int, kind: str, document: str, chunk, part: str, part_offset: int, total: int,
                   total_parts: int, first_id: int, lines: LineIndex, earlier: list[Note], reply_cap: int):
    """Generator (yields RoundStarted, TokensGenerated, CollapseDetected); returns PartNotes.

    One grammar-shaped call; when none of its notes verify, the part's most informative sentences
    verbatim, marked "extract". Never an empty result for a part that has text."""
    layout = NotesLayout(ctx.layout.preset, ctx.layout.date, ctx.layout.language)
    max_notes = max_notes_for(chunk.tokens if chunk is not None else ctx.count(part), reply_cap)
    out = PartNotes()
    number = (chunk.index + 1) if chunk is not None else 1
    # One call. A part whose notes do not verify is one the model paraphrased as it "quoted" or invented
    # from; a greedy retry rarely did better (measured on a meeting: 3 of 9 parts retried, the retries'
    # quotes scored 55-67 against the part) and cost a third of the run. Its key sentences are taken
    # verbatim instead, marked as such.
    yield RoundStarted(index, kind, chunk.index if chunk is not None else -1, total,
                       chunk.tokens if chunk is not None else 0, 0, part, "", 1)
    result = yield from ctx.call(index, layout.notes_messages(part, number, total_parts, max_notes),
                                 min(reply_cap, max_notes * TOKENS_PER_NOTE),
                                 replace(ctx.sampling, grammar=notes_grammar(max_notes)))
    out.results.append(result)
    out.check = verify_notes(result.raw, part, part_offset, document, number - 1, first_id, lines, earlier)
    if out.check.kept:
        out.notes = out.check.kept
        return out
    check = out.check
    parsed = len(check.unverified) + len(check.unsupported) + check.repeats
    detail = (f"no note of this part could be verified ({len(check.unverified)} quotes not found in the part, "
              f"{len(check.unsupported)} points the part does not support or that copy it, {check.repeats} "
              f"repeats{'' if parsed else '; no note lines at all'}); its key sentences are taken verbatim")
    out.flags = ["unverified_notes"]
    yield CollapseDetected(index, ["unverified_notes"], 0, len(result.reply), 1, detail)
    ctx.check_cancel()
    out.notes = extract_sentences(part, part_offset, document, number - 1, first_id, lines, earlier)
    out.flags.append("extracted")
    if out.notes:
        ctx.check_cancel()
        out.notes = yield from reword_extracts(ctx, index, layout, out.notes, part, out)
    return out


def reword_extracts(ctx, index: int, layout: NotesLayout, extracts: list[Note], part: str, out: PartNotes):
    """Generator; returns the extracts, each with the model's short rewording as its point where that
    rewording checks out (its numbers and most of its words in the sentence, not a copy of it).

    Sentences taken verbatim made up most of what a summary copied from its source (copy rates of
    0.16-0.47 on development meetings); saying what one given sentence states is a short, local task
    small models do well, and code still checks it. The sentence stays the note's quote."""
    sentences = [n.quote for n in extracts]
    result = yield from ctx.call(index, layout.reword_messages(sentences),
                                 min(ctx.budget.summary_out_cap, TOKENS_PER_REWORD * len(sentences)),
                                 replace(ctx.sampling, grammar=reword_grammar(len(sentences))))
    out.results.append(result)
    reworded = parse_reworded(result.raw)
    part_norm = normalise(part)
    kept = []
    for i, note in enumerate(extracts, 1):
        point = reworded.get(i, "").strip()
        if point and point_supported(point, note.quote) and not _says_nothing(point, note.quote) and \
                copy_share(_SPEAKER_PREFIX.sub("", point), part, part_norm) < POINT_COPY_SHARE:
            note = replace(note, point=point, origin="reworded")
        kept.append(note)
    if any(n.origin == "reworded" for n in kept):
        out.flags.append("reworded")
    return kept
