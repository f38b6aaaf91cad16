"""The plan as the window shows it: budget split, rounds, caps, tokens to process, estimated time."""
from __future__ import annotations

from engine.run_plan import duration_text


def plan_html(plan, memory) -> str:
    b = plan.budget
    e = plan.estimate
    rounds = plan.rounds
    sizes = [c.tokens for d in plan.documents for c in d.chunks]
    flagged = sum(c.flagged for d in plan.documents for c in d.chunks)
    time_text = ("unknown until this model has run once on this machine" if e is None or e.seconds is None
                 else f"about {duration_text(e.seconds)}")
    parts = [
        f"<b>{plan.document_chars:,} characters, {plan.document_tokens:,} tokens → {rounds} round"
        f"{'s' if rounds != 1 else ''}</b> ({len(plan.documents)} summar{'ies' if len(plan.documents) != 1 else 'y'}, "
        f"chunks {min(sizes):,}–{max(sizes):,} tokens)",
        f"Each round (context {b.n_ctx:,}): prompt {b.static_prompt_tokens:,} + summary in {b.summary_in_cap:,} + "
        f"<b>chunk {b.chunk_budget:,}</b> + summary out {b.summary_out_cap:,} + margin {b.margin:,} tokens",
    ]
    if e is not None:
        parts.append(f"To process: {e.evaluated_tokens:,} prompt tokens (of {e.prompt_tokens:,} sent; the rest is reused),"
                     f" {e.generated_tokens:,} to generate · time: {time_text}")
    if flagged:
        parts.append(f"<span style='color:#e65100'>{flagged} chunk(s) had no seam and were split mid-text.</span>")
    if memory is not None and memory.verdict == "won't fit":
        parts.append(f"<span style='color:#c62828'>This context won't fit in RAM: use {memory.max_n_ctx:,} tokens or "
                     "less, or a smaller KV cache type.</span>")
    return "<br>".join(parts)
