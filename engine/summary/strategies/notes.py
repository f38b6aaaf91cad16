"""Evidence-linked notes: what small models can carry (docs/features.md, "Summaries that show their evidence").

for each part:  code chooses the sentences that add most to what the notes hold (engine.summary.salience), as
                many as the notes still have room for, measured by how much of a sentence its note keeps,
                the model says each in a short note of its own words (one grammar-shaped call), code
                checks every rewording (numbers, words and names in its sentence, not a copy); the
                sentence is the note's quote, with its location
at the end:     when the notes outgrow the summary's length (every part gives one at least), related
                neighbours are merged, each merge checked and citing both (engine.summary.compaction);
                the writing pass heads each run of consecutive notes with a few words naming their topic;
                the notes are the bullets, in the preset's shape, each linked to its quote
                (engine.summary.writing, engine.summary.summary_shape)

The model never rewrites a growing summary and never sees its earlier notes. Why code chooses: the 1.5B
model's own notes ("point || quote" lines over the whole part) recalled fewer of the human
question/answer facts than the sentences chosen here at the same length, a third of its notes were
refused (quotes not in the part, points it does not support), and each part cost a 2,000-token read
(about 50 s here) where a rewording costs about 12 s (docs/quality-history.md, "Code chooses, the model
rewords"). The curve shows the notes' length after each part.
"""
from __future__ import annotations

from dataclasses import replace

from precis.engine.documents.commit_log import commit_days
from precis.engine.documents.spoken_text import said_alone
from precis.engine.events import CompactionDone, NoiseSkipped, RoundStarted
from precis.engine.planning.run_plan import PlannedDocument
from precis.engine.planning.summary_length import (
    BULLET_MARK_CHARS,
    COMPACTION_SLACK,
    notes_chars_for,
    pace_room_chars,
    part_sentence_chars,
    summary_chars_for,
)
from precis.engine.summary.compaction import (
    MAX_COMPACTION_ROUNDS,
    Bullet,
    bullets_of,
    compact_round,
    pairs_to_merge,
    reading_chars,
)
from precis.engine.summary.evidence import Note
from precis.engine.summary.exchanges import exchange_sections
from precis.engine.summary.noise import is_noise
from precis.engine.summary.notes_extraction import salient_notes_for_part
from precis.engine.summary.strategies.base import RunContext, document_language, note_counts
from precis.engine.summary.writing import JoinedSections, closing_lines, write_group, writing_groups


def written_chars(notes: list[Note], refused_chars: int = 0) -> tuple[int, int]:
    """(what the notes take to read as bullets, the reading length of the sentences chosen for them, the
    ``refused_chars`` of the refused ones included): how much of a chosen sentence this document's notes
    keep, for the next part's sentence budget. A refused rewording drops its sentence (second meeting: 4 of
    21), so the share counts it, or each part falls short by as much again."""
    points = sum(len(n.point) + BULLET_MARK_CHARS for n in notes)
    return points, sum(_reading_chars(n.quote) for n in notes) + refused_chars


def _refused_before(ctx: RunContext, doc: PlannedDocument, notes: list[Note]) -> int:
    """The refused sentences' reading length in the parts a resumed run has done: the records count them,
    each taken at the kept sentences' mean length; a part's sentences kept as written (all of them where no
    rewording passed, those kept for their figures beside its rewordings) were not dropped."""
    rounds = ctx.state.rounds_of(doc.name, "notes")
    aside_parts = {r.chunk_index for r in rounds if "figures_kept" in r.flags}
    asides = sum(n.part in aside_parts and n.origin != "reworded" for n in notes)
    count = sum(r.notes_unsupported - (r.notes_kept if "extracted" in r.flags else 0) for r in rounds) - asides
    mean = written_chars(notes)[1] / len(notes) if notes else 0
    return round(max(0, count) * mean)


def _reading_chars(sentence: str) -> int:
    return len(said_alone(sentence))


def notes_text(notes: list[Note]) -> str:
    return "\n".join(f"- {n.point} [{n.id}]" for n in notes)


def run_notes(ctx: RunContext, doc: PlannedDocument, total_rounds: int):
    notes = [Note.from_dict(d) for d in ctx.state.notes.get(doc.name, [])]
    done = {r.chunk_index for r in ctx.state.rounds_of(doc.name, "notes")}
    lines, weights = ctx.document_index(doc)
    language = document_language(ctx, doc)
    refused_chars = _refused_before(ctx, doc, notes)
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
        notes_chars = notes_chars_for(doc.said_tokens, ctx.summary_words)
        document_tokens = sum(c.tokens for c in doc.chunks)
        written = written_chars(notes, refused_chars)
        budget_chars = part_sentence_chars(notes_chars, chunk.tokens,
                                           sum(c.tokens for c in doc.chunks if c.index >= chunk.index),
                                           document_tokens, *written)
        room_chars = pace_room_chars(notes_chars, sum(c.tokens for c in doc.chunks if c.index <= chunk.index),
                                     document_tokens, written[0])
        got = yield from salient_notes_for_part(ctx, index, "notes", doc.name, chunk, part, chunk.sent_start_char,
                                                total_rounds, _next_id(notes), lines, notes, weights, budget_chars,
                                                language, document_text=doc.text, room_chars=room_chars)
        notes += got.notes
        kept_quotes = {n.quote for n in got.notes}
        refused_chars += sum(_reading_chars(q) for q in got.check.unsupported if q not in kept_quotes)
        ctx.state.notes[doc.name] = [n.as_dict() for n in notes]
        after = notes_text(notes)
        record = replace(ctx.record(index, "notes", doc.name, chunk, before, after, got.results, got.flags,
                                    got.side_calls),
                         **note_counts(got.check))                  # check.kept is the part's notes
        yield ctx.finish_round(record, doc.name, after)
    if ctx.state.rounds_of(doc.name, "write") and doc.name in ctx.state.evidence:
        return                                              # resumed after the writing pass
    yield from write_summary(ctx, doc, notes, total_rounds)


def write_summary(ctx: RunContext, doc: PlannedDocument, notes: list[Note], total_rounds: int):
    """The writing pass over the document's notes: sections of consecutive notes, each under a heading the
    model names; the summary and its evidence (every bullet is a note, linked to its verified quote)."""
    if not notes:
        ctx.state.summaries[doc.name] = ""
        ctx.state.evidence[doc.name] = []
        ctx.state.save()
        return
    language = document_language(ctx, doc)
    bullets = yield from compact_notes(ctx, doc, bullets_of(notes), total_rounds, language)
    sections = section_groups(ctx, doc, bullets)
    days = commit_days(doc.text)
    joined = JoinedSections(ctx.layout.preset, language or ctx.layout.language)
    before = bullets_text(bullets)
    for g, (group, heading) in enumerate(sections, 1):
        ctx.check_cancel()
        index = ctx.next_index()
        section = f"from part {group[0].part + 1}" + (f" to {group[-1].last_part + 1}"
                                                      if group[-1].last_part != group[0].part else "")
        written = yield from write_group(ctx, index, group, section, total_rounds, language, days, heading)
        joined.add(written, group)
        written_lines = list(joined.lines)
        if g == len(sections):
            written_lines += closing_lines(bullets, ctx, language)
        text = "\n".join(line.markdown() for line in written_lines)
        record = ctx.record(index, "write", doc.name, None, before, text, written.results,
                            written.flags + ([f"group_{g}_of_{len(sections)}"] if len(sections) > 1 else []))
        record.notes_kept = len(group)
        if g == len(sections):  # complete: a run stopped mid-way writes every group again on resume
            ctx.state.evidence[doc.name] = [{"text": line.text, "notes": line.notes} for line in written_lines]
        yield ctx.finish_round(record, doc.name, text)


def section_groups(ctx: RunContext, doc: PlannedDocument, bullets: list[Bullet]) -> list[tuple[list[Bullet], str]]:
    """The summary's sections, each with the heading code gives it ("" where the model names it): an
    assembly's by who asks and who answers (engine.summary.exchanges), what no one said among them in
    sections the model can head; else consecutive notes of near-equal sections (``writing_groups``)."""
    by_exchange = exchange_sections(bullets, ctx.document_index(doc)[1].turns.at)   # built with the weights
    if by_exchange is None:
        return [(group, "") for group in writing_groups(ctx, bullets)]
    return [(part, heading) for group, heading in by_exchange
            for part in ([group] if heading else writing_groups(ctx, group))]


def compact_notes(ctx: RunContext, doc: PlannedDocument, bullets: list[Bullet], total_rounds: int,
                  language: str | None):
    """Generator; returns the bullets, their related neighbours merged while they outgrow the summary's
    length (engine.summary.compaction): every part gave at least one note, so a long document read in
    small parts, or a short summary asked for, can hold more than that length."""
    budget_chars = summary_chars_for(doc.said_tokens, ctx.summary_words)
    if reading_chars(bullets) <= budget_chars * (1 + COMPACTION_SLACK):
        return bullets                    # near enough: merging would only risk a fact for a few characters
    tried: set[tuple[int, int]] = set()
    for _ in range(MAX_COMPACTION_ROUNDS):
        excess = reading_chars(bullets) - budget_chars
        positions = pairs_to_merge(bullets, excess, tried) if excess > 0 else []
        if not positions:
            break
        ctx.check_cancel()
        index = ctx.next_index()
        before = bullets_text(bullets)
        got = yield from compact_round(ctx, index, bullets, positions, total_rounds, language, tried)
        after = bullets_text(got.bullets)
        record = ctx.record(index, "compaction", doc.name, None, before, after, got.results,
                            ["compaction"] + ([] if got.merged else ["compaction_rejected"]))
        record.notes_kept, record.notes_unsupported = len(got.bullets), got.refused
        record.refused_by = got.refused_by
        yield CompactionDone(index, len(before), len(after), bool(got.merged))
        yield ctx.finish_round(record, doc.name, after)
        bullets = got.bullets
    return bullets


def bullets_text(bullets: list[Bullet]) -> str:
    return "\n".join(f"- {b.point} [{', '.join(map(str, b.ids))}]" for b in bullets)


def _next_id(notes: list[Note]) -> int:
    return max((n.id for n in notes), default=0) + 1
