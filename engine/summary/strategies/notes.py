"""Evidence-linked notes: what small models can carry (DESIGN.md, "Evidence-linked notes").

for each part:  the model writes note lines "point || quote" (grammar-shaped, bounded), code verifies
                every quote against the part and keeps the note with its source location (notes that
                do not verify are dropped and counted), repeats are removed
at the end:     the writing pass turns the notes into the summary in the preset's shape, each line
                keeping the notes it rests on (engine.summary.writing)

The model never rewrites a growing summary, never sees its earlier notes (shown them, it copied them),
and each part costs one short call. The curve shows the notes' length after each part.
"""
from __future__ import annotations

from precis.engine.events import NoiseSkipped, RoundStarted
from precis.engine.planning.run_plan import PlannedDocument
from precis.engine.summary.evidence import Note
from precis.engine.summary.noise import is_noise
from precis.engine.summary.notes_extraction import LineIndex, notes_for_part
from precis.engine.summary.strategies.base import RunContext
from precis.engine.summary.writing import bullets_for, write_group, writing_groups

# The summary's length follows the document's: about this many words per 1,000 document tokens, within
# bounds (measured against the plain refine loop's summaries in docs/quality.md).
WORDS_PER_1K_TOKENS = 45
MIN_WORDS, MAX_WORDS = 120, 700


def summary_words_for(document_tokens: int, override: int | None = None) -> int:
    if override:
        return override
    return max(MIN_WORDS, min(MAX_WORDS, round(document_tokens / 1000 * WORDS_PER_1K_TOKENS)))


def notes_text(notes: list[Note]) -> str:
    return "\n".join(f"- {n.point} [{n.id}]" for n in notes)


def run_notes(ctx: RunContext, doc: PlannedDocument, total_rounds: int):
    notes = [Note.from_dict(d) for d in ctx.state.notes.get(doc.name, [])]
    done = {r.chunk_index for r in ctx.state.rounds_of(doc.name, "notes")}
    lines = LineIndex(doc.text)
    for chunk in doc.chunks:
        if chunk.index in done:
            continue
        ctx.check_cancel()
        part = doc.text[chunk.sent_start_char:chunk.end_char]
        index = ctx.next_index()
        before = notes_text(notes)
        if ctx.skip_noise and is_noise(part):
            yield RoundStarted(index, "notes", chunk.index, total_rounds, chunk.tokens, len(before), part, before)
            yield NoiseSkipped(index, chunk.index, "only logs, tool calls or greetings: nothing to note")
            record = ctx.record(index, "notes", doc.name, chunk, before, before, [], ["noise_skipped"])
            yield ctx.finish_round(record, doc.name, before)
            continue
        got = yield from notes_for_part(ctx, index, "notes", doc.name, chunk, part, chunk.sent_start_char,
                                        total_rounds, len(doc.chunks), _next_id(notes), lines, notes,
                                        ctx.budget.summary_out_cap)
        notes += got.notes
        ctx.state.notes[doc.name] = [n.as_dict() for n in notes]
        after = notes_text(notes)
        record = ctx.record(index, "notes", doc.name, chunk, before, after, got.results, got.flags)
        record.notes_kept = len(got.notes)
        record.notes_unverified = len(got.check.unverified)
        record.notes_unsupported = len(got.check.unsupported)
        record.notes_repeats = got.check.repeats
        record.notes_located = got.check.located
        yield ctx.finish_round(record, doc.name, after)
    if ctx.state.rounds_of(doc.name, "write") and doc.name in ctx.state.evidence:
        return                                              # resumed after the writing pass
    yield from write_summary(ctx, doc, notes, total_rounds)


def write_summary(ctx: RunContext, doc: PlannedDocument, notes: list[Note], total_rounds: int):
    """The writing pass over the document's notes, in groups that fit; the summary and its evidence."""
    if not notes:
        ctx.state.summaries[doc.name] = ""
        ctx.state.evidence[doc.name] = []
        ctx.state.save()
        return
    groups = writing_groups(ctx, notes)
    bullets = bullets_for(groups, summary_words_for(doc.tokens, ctx.summary_words))
    written_lines = []
    before = notes_text(notes)
    for g, (group, n_bullets) in enumerate(zip(groups, bullets), 1):
        ctx.check_cancel()
        index = ctx.next_index()
        section = f"from part {group[0].part + 1}" + (f" to {group[-1].part + 1}" if group[-1].part != group[0].part
                                                      else "")
        written = yield from write_group(ctx, index, doc.name, group, n_bullets, section, total_rounds)
        written_lines += written.lines
        text = "\n".join(line.markdown() for line in written_lines)
        record = ctx.record(index, "write", doc.name, None, before, text, written.results,
                            written.flags + ([f"group_{g}_of_{len(groups)}"] if len(groups) > 1 else []))
        record.notes_kept = sum(1 for line in written.lines if line.notes)
        record.notes_unsupported = len(written.dropped)
        if g == len(groups):    # complete: a run stopped mid-way writes every group again on resume
            ctx.state.evidence[doc.name] = [{"text": line.text, "notes": line.notes} for line in written_lines]
        yield ctx.finish_round(record, doc.name, text)


def _next_id(notes: list[Note]) -> int:
    return max((n.id for n in notes), default=0) + 1
