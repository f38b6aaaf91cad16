"""The plan and the memory plan in words, written once: the command line prints the lines, the window
shows the same lines as rich text (``PlanLine.tone`` picks the colour)."""
from __future__ import annotations

from dataclasses import dataclass

from precis.engine.planning.memory_plan import MIB, MemoryPlan
from precis.engine.planning.run_plan import RunPlan, duration_text
from precis.engine.planning.summary_length import CHARS_PER_WORD


@dataclass(frozen=True)
class PlanLine:
    text: str
    tone: str = ""          # "", "headline", "warning", "error"


def server_lines(described: dict, n_ctx_note: str) -> list[PlanLine]:
    """What a server run plans with: the server, its model, its context and where token counts come from."""
    counts = {"tokenize": "exact, from the server's tokenizer", "local-gguf": "exact, from the model's GGUF here",
              "estimate": "estimated (cl100k_base x1.5: the server cannot tokenize)"}[described["token_counts"]]
    lines = [PlanLine(f"{described['model']} on the {described['kind']} at {described['url']}: the model runs there, "
                      "not in this machine's RAM", "headline"),
             PlanLine(f"Context: {n_ctx_note}"),
             PlanLine(f"Token counts: {counts}")]
    if described.get("slots"):
        lines.append(PlanLine(f"The server runs {described['slots']} requests side by side (--parallel up to that)"))
    if described["token_counts"] == "estimate":
        lines.append(PlanLine("Counts are estimates: chunks are planned smaller to stay inside the context.",
                              "warning"))
    return lines


def plan_lines(plan: RunPlan, memory: MemoryPlan | None = None, *, per_document: bool = True,
               on_server: bool = False) -> list[PlanLine]:
    b = plan.budget
    sizes = [c.tokens for d in plan.documents for c in d.chunks]
    n_summaries = len(plan.documents)
    lines = [PlanLine(f"{plan.document_chars:,} characters, {plan.document_tokens:,} tokens → {plan.rounds} round"
                      f"{'s' if plan.rounds != 1 else ''} ({n_summaries} summar{'ies' if n_summaries != 1 else 'y'}, "
                      f"chunks {min(sizes, default=0):,}–{max(sizes, default=0):,} tokens, preset "
                      f"{plan.preset_text})", "headline"),
             PlanLine(f"Each round (context {b.n_ctx:,}): prompt {b.static_prompt_tokens:,} + summary in "
                      f"{b.summary_in_cap:,} + chunk {b.chunk_budget:,} + summary out {b.summary_out_cap:,} + margin "
                      f"{b.margin:,} tokens"
                      + (f" (overlap {b.overlap_tokens:,} of the chunk)" if b.overlap_tokens else ""))]
    if plan.strategy:
        lines.insert(1, PlanLine(f"Strategy: {plan.strategy}" + (f" ({plan.strategy_reason})"
                                                                   if plan.strategy_reason else "")))
    if b.context_chunk_budget > b.chunk_budget:
        lines.append(PlanLine(f"Chunks of {b.chunk_budget:,} tokens: the context allows {b.context_chunk_budget:,}, "
                              f"but models of this size summarize best at {b.effective_chunk_tokens:,} or less "
                              "(docs/quality-history.md)"))
    if per_document:
        for d in plan.documents:
            bounds: dict[str, int] = {}
            for c in d.chunks:
                bounds[c.boundary] = bounds.get(c.boundary, 0) + 1
            cuts = ", ".join(f"{k} {v}" for k, v in sorted(bounds.items(), key=lambda kv: -kv[1]))
            lines.append(PlanLine(f"  {d.name}: {d.chars:,} chars, {d.tokens:,} tokens → {len(d.chunks)} rounds; "
                                  f"cut at {cuts}"))
    lengths = plan.summary_chars()
    if lengths:
        def span(low: int, high: int) -> str:
            return f"{low:,}" if low == high else f"{low:,}–{high:,}"
        low, high = min(lengths), max(lengths)
        said, words = span(low, high), span(low // CHARS_PER_WORD, high // CHARS_PER_WORD)
        each = " each" if len(lengths) > 1 else ""
        how = "as asked" if plan.summary_words else "from the document's length"
        lines.append(PlanLine(f"Summary length: about {words} words ({said} characters to read){each}, {how}"))
    flagged = sum(c.flagged for d in plan.documents for c in d.chunks)
    if flagged:
        lines.append(PlanLine(f"{flagged} chunk(s) had no seam and were split mid-text.", "warning"))
    e = plan.estimate
    if e is not None:
        lines.append(PlanLine(f"To process: {e.evaluated_tokens:,} prompt tokens (of {e.prompt_tokens:,} sent; the "
                              f"rest is reused from the cache) and {e.generated_tokens:,} to generate"))
        if e.seconds is None and on_server:
            lines.append(PlanLine("Time: depends on the server's hardware and load (the run reports it)"))
        elif e.seconds is None:
            lines.append(PlanLine("Time: unknown until this model's speed is measured here (`precis plan --measure`, "
                                  "or after a first run)"))
        else:
            lines.append(PlanLine(f"Time: about {duration_text(e.seconds)} at {e.speeds.prompt_tokens_per_second:,.0f} "
                                  f"prompt and {e.speeds.generate_tokens_per_second:,.1f} generated tokens/s measured "
                                  "here"))
    if memory is not None and memory.verdict == "won't fit":
        lines.append(PlanLine(f"This context won't fit in RAM: use {memory.max_n_ctx:,} tokens or less, or a smaller "
                              "KV cache type.", "error"))
    return lines


def memory_lines(model_name: str, uses_swa: bool, plan: MemoryPlan) -> list[str]:
    s = plan.settings
    rows = [f"{model_name}: n_ctx {s.n_ctx:,}, KV {s.type_k}/{s.type_v}, flash attention "
            f"{'on' if s.flash_attn else 'off'}" + (f", swa_full {'on' if s.swa_full else 'off'}" if uses_swa else ""),
            f"  weights        {plan.weights_bytes / MIB:10,.1f} MiB"]
    for g in plan.kv_groups:
        rows.append(f"  KV {g.kind:<11} {g.total_bytes / MIB:10,.1f} MiB  ({g.layers} layers x {g.cells:,} cells)")
    rows += [f"  compute        {plan.compute_bytes / MIB:10,.1f} MiB",
             f"  saved prompts  {plan.prompt_states_bytes / MIB:10,.1f} MiB   (at most: earlier prompts' cells, kept "
             "to skip evaluating them again)",
             f"  runtime        {(plan.overhead_bytes + plan.output_bytes) / MIB:10,.1f} MiB",
             f"  total          {plan.total_bytes / MIB:10,.1f} MiB of {plan.available_bytes / MIB:,.0f} MiB available"
             f"  -> {plan.verdict}",
             f"  largest context that fits: {plan.max_n_ctx:,} tokens"]
    return rows


def offload_lines(model_name: str, uses_swa: bool, choice) -> list[str]:
    """The plan per pool where a GPU exists (``choice``: an OffloadChoice): RAM and each GPU side by side."""
    plan = choice.plan
    s = plan.settings
    top = plan.max_gpu_layers
    how = "auto" if choice.auto else "as asked"
    rows = [f"{model_name}: n_ctx {s.n_ctx:,}" + (f" (asked {choice.asked_n_ctx:,})" if s.n_ctx != choice.asked_n_ctx
                                                   else "")
            + f", KV {s.type_k}/{s.type_v}, flash attention {'on' if s.flash_attn else 'off'}"
            + (f", swa_full {'on' if s.swa_full else 'off'}" if uses_swa else ""),
            f"  GPU layers: {plan.gpu_layers} of {top} ({how}: {choice.reason})"]
    rows += [f"  {pool.name} is {pool.description}" for pool in plan.devices]
    rows += [f"  kept on the CPU: {why}" for why in plan.left_to_cpu]
    for pool in plan.pools:
        other = (f" + runtime and saved prompts {pool.other_bytes / MIB:,.1f}" if pool.name == "RAM"
                 else f" + runtime {pool.other_bytes / MIB:,.1f}") if pool.other_bytes else ""
        held = ""
        if pool.name != "RAM":
            held = f"; {pool.layers} layers" + (" + output" if pool.holds_output else "")
        rows.append(f"  {pool.name:<8} weights {pool.weights_bytes / MIB:,.1f} + KV {pool.kv_bytes / MIB:,.1f} "
                    f"+ compute {pool.compute_bytes / MIB:,.1f}{other} = {pool.total_bytes / MIB:,.1f} MiB of "
                    f"{pool.available_bytes / MIB:,.0f} MiB free -> {pool.verdict} (keeps "
                    f"{pool.margin_bytes / MIB:,.0f} MiB free){held}")
    if choice.max_n_ctx:
        rows.append(f"  largest context that fits with {plan.gpu_layers} GPU layers: {choice.max_n_ctx:,} tokens")
    if plan.mapped_bytes:
        rows.append(f"  host weights are memory-mapped: {plan.mapped_bytes / MIB:,.1f} MiB of the file mapped "
                    "(CPU_Mapped), only the host layers' pages stay in RAM")
    return rows


LONG_RUN_SECONDS = 4 * 3600          # a run estimated longer than this is confirmed first
LONG_RUN_ROUNDS = 500                # without a measured speed, this many rounds is confirmed first


def long_run_warning(plan) -> str:
    """Empty, or why this plan deserves a second thought before it starts."""
    e = plan.estimate
    if e is not None and e.seconds is not None and e.seconds > LONG_RUN_SECONDS:
        return (f"This plan has {plan.rounds:,} rounds: about {duration_text(e.seconds)} on this machine. "
                "Run it anyway? (A larger context or fewer documents make it shorter.)")
    if (e is None or e.seconds is None) and plan.rounds > LONG_RUN_ROUNDS:
        work = f" ({e.evaluated_tokens:,} prompt tokens to process, {e.generated_tokens:,} to generate)" if e else ""
        return (f"This plan has {plan.rounds:,} rounds{work}. Its time is unknown until this model has run on this "
                "machine, and it will be long. Run it anyway?")
    return ""
