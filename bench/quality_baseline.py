"""The baseline every strategy is measured against: a plain refine loop, as people run today.

Fixed 12,000-character chunks (the seed's), LangChain's refine prompts, no guard, no repair, the same
model, sampling and context as Precis. A chunk whose prompt would not fit the context is cut to fit
(what a plain loop that counts characters, not tokens, ends up doing) and counted.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

from precis.engine.runtime.protocol import SamplingParams

CHUNK_CHARS = 12_000
REPLY_TOKENS = 1024
# LangChain's refine chain prompts (langchain/chains/summarize/refine_prompts.py).
INITIAL = 'Write a concise summary of the following:\n\n\n"{text}"\n\n\nCONCISE SUMMARY:'
REFINE = ("Your job is to produce a final summary\nWe have provided an existing summary up to a certain point: "
          "{existing_answer}\nWe have the opportunity to refine the existing summary(only if needed) with some more "
          "context below.\n------------\n{text}\n------------\nGiven the new context, refine the original summary\n"
          "If the context isn't useful, return the original summary.")


@dataclass
class BaselineRun:
    summary: str
    seconds: float
    rounds: int
    prompt_evaluated: int
    generated_tokens: int
    cut_chunks: int                  # chunks cut to fit the context


def fixed_chunks(text: str, size: int = CHUNK_CHARS) -> list[str]:
    """Consecutive pieces of about ``size`` characters, cut at the last line break before the limit."""
    chunks, pos = [], 0
    while pos < len(text):
        end = min(len(text), pos + size)
        if end < len(text):
            cut = text.rfind("\n", pos + size // 2, end)
            end = cut + 1 if cut > 0 else end
        chunks.append(text[pos:end])
        pos = end
    return chunks


def plain_refine(runtime, text: str, sampling: SamplingParams | None = None) -> BaselineRun:
    params = SamplingParams(**{**(sampling or SamplingParams()).__dict__, "max_tokens": REPLY_TOKENS})
    summary = ""
    started = time.perf_counter()
    evaluated = generated = cut = 0
    chunks = fixed_chunks(text)
    for i, chunk in enumerate(chunks):
        prompt = _prompt(runtime, chunk, summary, first=i == 0)
        n = len(runtime.tokenize(prompt, special=True))
        if n + REPLY_TOKENS > runtime.n_ctx:
            cut += 1
            ids = runtime.tokenize(chunk)
            keep = max(64, len(ids) - (n + REPLY_TOKENS - runtime.n_ctx) - 16)
            prompt = _prompt(runtime, runtime.detokenize(ids[:keep]), summary, first=i == 0)
        reply = "".join(runtime.stream(prompt, params)).strip()
        evaluated += runtime.last_call.evaluated_tokens
        generated += runtime.last_call.generated_tokens
        summary = reply or summary
    return BaselineRun(summary, time.perf_counter() - started, len(chunks), evaluated, generated, cut)


def _prompt(runtime, piece: str, summary: str, first: bool) -> str:
    body = INITIAL.format(text=piece) if first else REFINE.format(existing_answer=summary, text=piece)
    return runtime.render_chat([{"role": "user", "content": body}])
