"""Stuff: the whole document in one call, when it fits (the baseline the curve is compared with)."""
from __future__ import annotations

from precis.engine.errors import BadInput
from precis.engine.planning.chunking import Chunk
from precis.engine.planning.run_plan import PlannedDocument
from precis.engine.prompts.layout import WORST_REMINDER
from precis.engine.summary.strategies.base import RunContext, document_language


def run_stuff(ctx: RunContext, doc: PlannedDocument, total_rounds: int):
    if ctx.state.rounds_of(doc.name, "stuff"):
        return
    b = ctx.budget
    prompt_tokens = ctx.renderer.count(ctx.renderer.render(ctx.layout.map_messages(doc.text, WORST_REMINDER)))
    if prompt_tokens + b.summary_out_cap + b.margin > b.n_ctx:
        need = prompt_tokens + b.summary_out_cap + b.margin
        raise BadInput(f"{doc.name} does not fit in one call: {prompt_tokens:,} prompt tokens + {b.summary_out_cap:,} "
                       f"for the summary need a context of about {need:,} tokens (this one has {b.n_ctx:,}). Use the "
                       "rolling strategy, or a larger context if the memory plan allows it.")
    ctx.check_cancel()
    index = ctx.next_index()
    whole = Chunk(0, 0, len(doc.text), 1, doc.text.count("\n") + 1, doc.tokens, "end")
    summary, results, flags = yield from ctx.guarded_round(
        index, "stuff", lambda reminder: ctx.layout.map_messages(doc.text, reminder), "", doc.text,
        b.summary_out_cap, total_rounds, 0, doc.tokens,
        fallback=lambda results: ctx.part_notes_fallback(results, index, "stuff", doc, whole, doc.text, "",
                                                          total_rounds),
        language=document_language(ctx, doc))
    yield ctx.finish_round(ctx.record(index, "stuff", doc.name, whole, "", summary, results, flags), doc.name, summary)
