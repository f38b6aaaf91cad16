"""The writing pass: verified notes -> the summary in the preset's shape, every line linked to notes.

The notes are written in sections of a few consecutive notes (a short, local task: a heading, then a
few bullets that merge the notes, each citing the notes it uses), the output held by a grammar (no chat,
no tags or markup, bounded length), the summary's word budget shared among the sections. Every reply is
guarded like any round (scaffolding stripped, wrong language, loops retried once, greedy). Each written
line keeps its sources: the notes it cites when they share its words, else the notes it shares the most
words with. A line no note supports, or whose numbers no linked note holds, is dropped and counted: a
written summary can only say what a verified quote shows. A section the model cannot write is carried
as its notes' points.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from precis.engine.events import CollapseDetected, RoundRepaired, RoundStarted
from precis.engine.prompts.layout import WORST_REMINDER
from precis.engine.prompts.notes import NotesLayout, split_citations, writing_grammar
from precis.engine.summary.evidence import Note, cjk_bigrams, content_words
from precis.engine.summary.guard import repeated_passage
from precis.engine.summary.language import wrong_language
from precis.engine.summary.scaffold import strip_scaffold
from precis.engine.summary.strategies.base import pack_consecutive

LINK_MIN_SHARE = 0.34          # share of a line's content words (or CJK bigrams) its notes must hold
CITED_MIN_SHARE = 0.2          # ... when the line cites those notes itself (a merged paraphrase shares less)
HEADING_MAX_WORDS = 10         # a longer "heading" is a claim: it is linked like any line
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_HEADING = re.compile(r"^\s*#{1,6}\s")


@dataclass
class WrittenLine:
    text: str                  # without citation markers
    notes: list[int]           # ids of the notes it rests on; [] for headings

    def markdown(self) -> str:
        if not self.notes:
            return self.text
        return f"{self.text} [{', '.join(str(i) for i in self.notes)}]"


@dataclass
class Written:
    lines: list[WrittenLine] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)     # lines no note supports
    results: list = field(default_factory=list)
    flags: list[str] = field(default_factory=list)
    fallback: bool = False                               # the notes' own points, not written prose

    def markdown(self) -> str:
        return "\n".join(line.markdown() for line in self.lines).strip()


def _words(text: str) -> set[str]:
    return content_words(text) or cjk_bigrams(text)


def link_line(text: str, cited: list[int], notes: dict[int, Note]) -> list[int]:
    """The notes ``text`` rests on: its citations if they share its words, else the best-sharing notes."""
    words = _words(text)
    if not words:
        return []

    def share(ids: list[int]) -> float:
        held = set().union(*(_words(notes[i].point + " " + notes[i].quote) for i in ids)) if ids else set()
        return len(words & held) / len(words)
    valid = [i for i in dict.fromkeys(cited) if i in notes]
    if valid and share(valid) >= CITED_MIN_SHARE:
        return valid
    ranked = sorted(notes, key=lambda i: -len(words & _words(notes[i].point + " " + notes[i].quote)))
    best = [i for i in ranked[:3] if words & _words(notes[i].point + " " + notes[i].quote)]
    for n in range(1, len(best) + 1):
        if share(best[:n]) >= LINK_MIN_SHARE:
            return best[:n]
    return []


def numbers_supported(text: str, ids: list[int], notes: dict[int, Note]) -> bool:
    held = " ".join(notes[i].point + " " + notes[i].quote for i in ids).replace(",", "")
    return all(n.replace(",", "") in held for n in _NUMBER.findall(text))


def link_reply(reply: str, notes: dict[int, Note]) -> tuple[list[WrittenLine], list[str]]:
    lines, dropped = [], []
    seen: set[str] = set()
    for raw in reply.splitlines():
        if not raw.strip():
            continue
        text, cited = split_citations(raw.rstrip())
        key = " ".join(text.lower().split())
        if key in seen:
            continue                          # a small model sometimes writes the same bullet twice
        seen.add(key)
        if _HEADING.match(text) and len(text.split()) <= HEADING_MAX_WORDS + 1:
            lines.append(WrittenLine(text.strip(), []))
            continue
        if _HEADING.match(text):
            text = "- " + text.lstrip("#").strip()
        ids = link_line(text, cited, notes)
        if ids and numbers_supported(text, ids, notes):
            lines.append(WrittenLine(text, ids))
        else:
            dropped.append(text)
    return _without_empty_sections(lines), dropped


def _without_empty_sections(lines: list[WrittenLine]) -> list[WrittenLine]:
    out: list[WrittenLine] = []
    for i, line in enumerate(lines):
        if not line.notes:
            following = next((x for x in lines[i + 1:] if x.notes or _HEADING.match(x.text)), None)
            if following is None or not following.notes:
                continue                     # a heading with nothing under it
        out.append(line)
    return out


def notes_as_lines(notes: list[Note]) -> list[WrittenLine]:
    """The fallback: each note's point as a bullet (already linked to its verified quote)."""
    return [WrittenLine(f"- {n.point.strip()}", [n.id]) for n in notes]


WORDS_PER_BULLET = 25
SECTION_NOTES = 8                  # notes per written section: a short, local task for a small model
TOKENS_PER_BULLET = 80


def bullets_for(groups: list[list[Note]], total_words: int) -> list[int]:
    """How many bullets each section may have: the summary's word budget shared by the notes each holds,
    at most one bullet per note (so a section always merges)."""
    n_notes = sum(len(g) for g in groups)
    total = max(2 * len(groups), round(total_words / WORDS_PER_BULLET))
    return [max(1, min(len(g), round(total * len(g) / n_notes))) for g in groups]


def write_group(ctx, index: int, document: str, notes: list[Note], bullets: int, section: str, total: int):
    """Generator for one written section (and its one retry); returns Written."""
    layout = NotesLayout(ctx.layout.preset, ctx.layout.date, ctx.layout.language)
    by_id = {n.id: n for n in notes}
    numbered = [(n.id, n.point) for n in notes]
    source_text = " ".join(n.quote for n in notes)
    written = Written()
    grammar = writing_grammar(bullets)
    cap = min(ctx.budget.summary_out_cap, bullets * TOKENS_PER_BULLET + 40)
    attempts = [("", ctx.sampling), ("Merge the notes in your own words; cite the note numbers.", ctx.strict_sampling)]
    for attempt, (reminder, params) in enumerate(attempts, 1):
        yield RoundStarted(index, "write", -1, total, 0, sum(len(n.point) for n in notes), "", "", attempt)
        result = yield from ctx.call(index, layout.writing_messages(numbered, bullets, section, reminder), cap,
                                     replace(params, grammar=grammar))
        written.results.append(result)
        text, scaffold = strip_scaffold(result.reply)
        problems = []
        if scaffold:
            written.flags.append("scaffold_stripped")
        if not text.strip():
            problems.append("empty")
        if result.stopped_for_loop or repeated_passage(text):
            problems.append("repetition")
        if wrong_language(text, source_text, ctx.layout.language):
            problems.append("wrong_language")
        lines, dropped = link_reply(text, by_id) if not problems else ([], [])
        linked = sum(bool(line.notes) for line in lines)
        if not problems and linked == 0:
            problems.append("unlinked")
        if not problems:
            written.lines, written.dropped = lines, dropped
            if attempt > 1:
                written.flags.append("repaired")
                yield RoundRepaired(index, "retry", len(written.markdown()), "the stricter retry passed")
            return written
        written.flags = sorted(set(written.flags + problems))
        yield CollapseDetected(index, problems, 0, len(result.reply), attempt,
                               f"the written section failed its checks: {', '.join(problems)}")
        ctx.check_cancel()
    written.lines, written.fallback = notes_as_lines(notes), True
    written.flags.append("notes_fallback")
    yield RoundRepaired(index, "notes_fallback", len(written.markdown()),
                        f"kept this section's {len(notes)} verified notes as the summary")
    return written


def writing_groups(ctx, notes: list[Note]) -> list[list[Note]]:
    """Consecutive notes in sections of at most SECTION_NOTES whose prompt fits the context."""
    layout = NotesLayout(ctx.layout.preset, ctx.layout.date, ctx.layout.language)
    room = ctx.budget.n_ctx - ctx.budget.summary_out_cap - ctx.budget.margin

    def fits(group: list[Note]) -> bool:
        return len(group) <= SECTION_NOTES and ctx.renderer.count(ctx.renderer.render(layout.writing_messages(
            [(n.id, n.point) for n in group], SECTION_NOTES, "part 99 to 99", WORST_REMINDER))) <= room
    return pack_consecutive(notes, fits)
