"""What every strategy needs: one guarded model call, round records, checkpoints, salvage."""
from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from precis.engine.errors import Cancelled
from precis.engine.events import (
    CollapseDetected,
    RoundFinished,
    RoundRecord,
    RoundRepaired,
    RoundStarted,
    TokensGenerated,
)
from precis.engine.planning.budget import Budget
from precis.engine.prompts.layout import PromptRenderer, RoundLayout, retry_reminder
from precis.engine.runtime.protocol import CancelToken, SamplingParams
from precis.engine.summary.facts import extract_facts
from precis.engine.summary.guard import GuardSettings, check_reply, clean_reply, looping_tail
from precis.engine.summary.noise import substantive_text

if TYPE_CHECKING:   # the run state is handed in; the strategies never load or create one
    from precis.engine.runs.state import RunState

TOKEN_EVENT_SECONDS = 0.25        # TokensGenerated at most this often: the GUI repaints, never floods
LOOP_CHECK_TOKENS = 32            # check for a repetition loop every this many generated tokens


@dataclass
class CallResult:
    reply: str                    # cleaned
    raw: str
    stats: object
    seconds: float
    stopped_for_loop: bool = False


@dataclass
class RunContext:
    runtime: object
    layout: RoundLayout
    budget: Budget
    state: "RunState"
    cancel: CancelToken = field(default_factory=CancelToken)
    guard: GuardSettings = field(default_factory=GuardSettings)
    sampling: SamplingParams = field(default_factory=SamplingParams)
    skip_noise: bool = True
    max_rounds: int = 10_000      # a hard cap: a plan can never run away

    def __post_init__(self) -> None:
        self.renderer = PromptRenderer(self.runtime)

    @property
    def strict_sampling(self) -> SamplingParams:
        # The retry after a failed round: greedy, and a stronger push away from loops.
        return replace(self.sampling, temperature=0.0, repeat_penalty=max(1.18, self.sampling.repeat_penalty))

    def next_index(self) -> int:
        return len(self.state.rounds)

    def check_cancel(self) -> None:
        if self.cancel.cancelled:
            raise Cancelled("Stopped by the user.")
        if len(self.state.rounds) >= self.max_rounds:
            raise Cancelled(f"Stopped after the hard cap of {self.max_rounds} rounds.")

    def count(self, text: str) -> int:
        return self.runtime.count_tokens(text) if text else 0

    # ----- one model call, streamed, with loop detection ---------------------------------------
    def call(self, index: int, messages: list[dict], max_tokens: int, params: SamplingParams):
        """Generator: yields TokensGenerated while the model writes; returns a CallResult."""
        prompt = self.renderer.render(messages)
        params = replace(params, max_tokens=max_tokens)
        started = time.perf_counter()
        pieces: list[str] = []
        last_event = 0.0
        loop = False
        stream = self.runtime.stream(prompt, params, self.cancel)
        try:
            for n, piece in enumerate(stream, 1):
                pieces.append(piece)
                now = time.perf_counter()
                if n % LOOP_CHECK_TOKENS == 0 and looping_tail("".join(pieces)):
                    loop = True
                    break
                if now - last_event >= TOKEN_EVENT_SECONDS:
                    last_event = now
                    gen_s = max(1e-6, now - started - self.runtime.last_call.prompt_seconds) \
                        if self.runtime.last_call.prompt_seconds else max(1e-6, now - started)
                    yield TokensGenerated(index, "".join(pieces), self.runtime.last_call.generated_tokens,
                                          self.runtime.last_call.generated_tokens / gen_s)
        finally:
            stream.close()
        raw = "".join(pieces)
        stats = self.runtime.last_call
        if loop:
            stats.stopped_by = "loop"
        return CallResult(clean_reply(raw), raw, stats, time.perf_counter() - started, loop)

    # ----- records and checkpoints -------------------------------------------------------------
    def finish_round(self, record: RoundRecord, document: str, summary: str):
        self.state.rounds.append(record)
        self.state.summaries[document] = summary
        self.state.save()
        return RoundFinished(record)

    def record(self, index: int, kind: str, document: str, chunk, summary_in: str, summary: str,
               results: list[CallResult], flags: list[str]) -> RoundRecord:
        last = results[-1] if results else None
        return RoundRecord(
            index=index, kind=kind, document=document,
            chunk_index=chunk.index if chunk is not None else -1,
            chunk_start_char=chunk.start_char if chunk is not None else -1,
            chunk_end_char=chunk.end_char if chunk is not None else -1,
            chunk_tokens=chunk.tokens if chunk is not None else 0,
            summary_in_chars=len(summary_in), summary_in_tokens=self.count(summary_in),
            summary_chars=len(summary), summary_tokens=self.count(summary),
            prompt_tokens=sum(r.stats.prompt_tokens for r in results),
            prompt_evaluated=sum(r.stats.evaluated_tokens for r in results),
            prompt_reused=sum(r.stats.reused_tokens for r in results),
            generated_tokens=sum(r.stats.generated_tokens for r in results),
            seconds=round(sum(r.seconds for r in results), 3),
            prompt_seconds=round(sum(r.stats.prompt_seconds for r in results), 3),
            attempts=len(results), flags=flags,
            first_call_reused=results[0].stats.reused_tokens if results else -1,
            stopped_by=last.stats.stopped_by if last else "",
            summary=summary, summary_in=summary_in, reply=last.raw if last else "")

    # ----- a guarded round: call, check, retry stricter, salvage -------------------------------
    def guarded_round(self, index: int, kind: str, messages_for, previous: str, source: str, max_tokens: int,
                      total: int, chunk_index: int, chunk_tokens: int):
        """Generator for one round with collapse repair. ``messages_for(reminder)`` builds the prompt.

        Returns (summary, results, flags). The summary is the accepted reply, or on a second failure
        the previous summary plus the facts of this part that it does not hold yet (marked as such).
        """
        results: list[CallResult] = []
        yield RoundStarted(index, kind, chunk_index, total, chunk_tokens, len(previous), source, previous, 1)
        result = yield from self.call(index, messages_for(""), max_tokens, self.sampling)
        results.append(result)
        flags, detail = self._check(previous, result, source)
        if not flags:
            return result.reply, results, []
        yield CollapseDetected(index, flags, len(previous), len(result.reply), 1, detail)
        self.check_cancel()
        yield RoundStarted(index, kind, chunk_index, total, chunk_tokens, len(previous), source, previous, 2)
        retry = yield from self.call(index, messages_for(retry_reminder(flags, previous, max_tokens)), max_tokens,
                                     self.strict_sampling)
        results.append(retry)
        flags2, detail2 = self._check(previous, retry, source)
        if not flags2:
            yield RoundRepaired(index, "retry", len(retry.reply), f"retry passed (first attempt: {detail})")
            return retry.reply, results, flags + ["repaired"]
        yield CollapseDetected(index, flags2, len(previous), len(retry.reply), 2, detail2)
        summary = salvage(previous, source, self.budget.summary_in_cap, self.count, index)
        yield RoundRepaired(index, "kept_previous", len(summary),
                            f"kept the previous summary and added this part's facts ({detail2})")
        return summary, results, sorted(set(flags + flags2)) + ["kept_previous"]

    def _check(self, previous: str, result: CallResult, source: str) -> tuple[list[str], str]:
        flags, detail = check_reply(previous, result.reply, source, hit_max_tokens=result.stats.hit_max_tokens,
                                    rules=self.layout.preset.rules, settings=self.guard,
                                    labels=(self.layout.preset.content_label,))
        if result.stopped_for_loop and "repetition" not in flags:
            flags.append("repetition")
            detail = (detail + "; " if detail else "") + "stopped as soon as the reply started looping"
        return flags, detail


def salvage(previous: str, source: str, cap_tokens: int, count, index: int) -> str:
    """The previous summary, plus the names, numbers, dates and TODOs of this part it lacks, marked,
    as many as fit under the summary cap. Faithful by construction: nothing here comes from the model."""
    flat = previous.lower()
    facts = [f.text for f in extract_facts(substantive_text(source)) if f.text.lower() not in flat]
    seen, kept = set(), []
    for fact in facts:
        if fact not in seen:
            seen.add(fact)
            kept.append(fact)
    if not kept:
        return previous
    header = f"\n\n[Part {index + 1}: not merged by the model; facts kept verbatim]\n"
    while kept:
        candidate = previous + header + "\n".join(f"- {f}" for f in kept)
        if count(candidate) <= cap_tokens:
            return candidate.strip()
        kept = kept[:len(kept) * 3 // 4] if len(kept) > 3 else kept[:-1]
    return previous
