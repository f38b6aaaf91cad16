"""The rolling summary: previous summary + next chunk -> updated summary, rules at the top every round.

Per chunk: noise-only chunks keep the summary untouched (nothing to add: no model call); a summary near its cap
is compacted first in an explicit, marked round; then the guarded round (engine.summary.strategies.base).
"""
from __future__ import annotations

from precis.engine.events import CompactionDone, NoiseSkipped, RoundStarted
from precis.engine.planning.run_plan import COMPACTION_THRESHOLD, PlannedDocument
from precis.engine.summary.facts import fact_keys
from precis.engine.summary.guard import check_reply
from precis.engine.summary.noise import is_noise
from precis.engine.summary.strategies.base import RunContext, document_language

# A compaction is accepted when it is at least this share of the original length and keeps this
# share of its names, numbers and dates; otherwise the original stays (and the next round may fall back to notes).
COMPACTION_MIN_SHARE = 0.35
COMPACTION_FACT_SHARE = 0.7


def run_rolling(ctx: RunContext, doc: PlannedDocument, total_rounds: int):
    done = {r.chunk_index for r in ctx.state.rounds_of(doc.name, "round")}
    summary = ctx.state.summaries.get(doc.name, "")
    rejected = None   # a summary the model failed to compact is not sent to compaction again
    language = document_language(ctx, doc)
    mine = ctx.state.rounds_of(doc.name)
    if mine and mine[-1].kind == "compaction" and "compaction_rejected" in mine[-1].flags:
        rejected = summary    # resumed right after a rejected compaction: do not redo it
    for chunk in doc.chunks:
        if chunk.index in done:
            continue
        ctx.check_cancel()
        if summary != rejected and ctx.count(summary) > COMPACTION_THRESHOLD * ctx.budget.summary_out_cap:
            compacted = yield from _compact(ctx, doc, summary, total_rounds)
            rejected = summary if compacted == summary else None
            summary = compacted
            ctx.check_cancel()
        source = doc.text[chunk.sent_start_char:chunk.end_char]
        index = ctx.next_index()
        if ctx.skip_noise and is_noise(source):
            yield RoundStarted(index, "round", chunk.index, total_rounds, chunk.tokens, len(summary), source, summary)
            yield NoiseSkipped(index, chunk.index,
                               "only logs, tool calls or greetings: nothing to add, the summary stays as it was")
            record = ctx.record(index, "round", doc.name, chunk, summary, summary, [], ["noise_skipped"])
            yield ctx.finish_round(record, doc.name, summary)
            continue
        previous = summary
        summary, results, flags = yield from ctx.guarded_round(
            index, "round", lambda reminder, previous=previous, source=source: ctx.layout.rolling_messages(
                previous, source, reminder),
            previous, source, ctx.budget.summary_out_cap, total_rounds, chunk.index, chunk.tokens,
            fallback=lambda results, previous=previous, source=source, chunk=chunk, index=index:
                ctx.part_notes_fallback(results, index, "round", doc, chunk, source, previous, total_rounds),
            direct=ctx.rewrites_given_up(doc.name, "round"), language=language)
        record = ctx.record(index, "round", doc.name, chunk, previous, summary, results, flags)
        yield ctx.finish_round(record, doc.name, summary)


def _compact(ctx: RunContext, doc: PlannedDocument, summary: str, total_rounds: int):
    """An explicit compaction round; returns the summary to go on with."""
    index = ctx.next_index()
    target = int(len(summary) * 0.6)
    yield RoundStarted(index, "compaction", -1, total_rounds, 0, len(summary), "", summary)
    result = yield from ctx.call(index, ctx.layout.compact_messages(summary, target), ctx.budget.summary_out_cap,
                                 ctx.strict_sampling)
    compacted = result.reply
    flags, _ = check_reply(summary, compacted, "", hit_max_tokens=result.stats.hit_max_tokens,
                           rules=ctx.layout.preset.rules, settings=ctx.guard,
                           labels=(ctx.layout.preset.content_label,))
    before, after = fact_keys(summary), compacted.replace(",", "").replace(" ", "").lower()
    kept_share = sum(k in after for k in before) / len(before) if before else 1.0
    accepted = (len(summary) * COMPACTION_MIN_SHARE <= len(compacted) < len(summary)
                and kept_share >= COMPACTION_FACT_SHARE
                and not set(flags) & {"empty", "meta", "repetition", "echoed_prompt", "truncated"})
    new_summary = compacted if accepted else summary
    yield CompactionDone(index, len(summary), len(compacted), accepted)
    marks = ["compaction"] + ([] if accepted else ["compaction_rejected"])
    record = ctx.record(index, "compaction", doc.name, None, summary, new_summary, [result], marks)
    yield ctx.finish_round(record, doc.name, new_summary)
    return new_summary
