"""What every strategy needs: one guarded model call, round records, checkpoints, the part fallback."""
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
from precis.engine.summary.guard import CopyWatch, GuardSettings, check_reply, clean_reply, looping_tail
from precis.engine.summary.language import wrong_language
from precis.engine.summary.scaffold import strip_scaffold

if TYPE_CHECKING:   # the run state is handed in; the strategies never load or create one
    from precis.engine.runs.state import RunState

# A part's content reached the summary as its notes (or sentences), not as the model's prose
SALVAGE_FLAGS = ("notes_fallback", "extracted")
TOKEN_EVENT_SECONDS = 0.25        # TokensGenerated at most this often: the GUI repaints, never floods
LOOP_CHECK_TOKENS = 32            # check for a repetition loop every this many generated tokens


@dataclass
class CallResult:
    reply: str                    # cleaned: preamble, fences and scaffolding lines removed
    raw: str
    stats: object
    seconds: float
    stopped_for_loop: bool = False
    scaffold: list[str] = field(default_factory=list)   # lines stripped from the reply as scaffolding
    stopped_for_copy: bool = False


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
    summary_words: int | None = None   # the written summary's length (notes strategy); None: from the document
    # Independent calls (map-reduce's maps) in flight at once; only with a runtime that can be cloned
    # for another thread (a server's): the in-process model runs one call at a time.
    parallel_calls: int = 1

    def __post_init__(self) -> None:
        self.renderer = PromptRenderer(self.runtime)
        self._fallback_checks: dict[int, object] = {}      # round index -> the NoteCheck of its part's fallback
        self._indexes: dict[str, tuple] = {}               # document -> (LineIndex, DocumentWeights)
        self.voices: dict[str, str] = {}                   # document -> whom its "we" stands for, once asked
                                                           # ("" for no one: engine.summary.voice)

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
    def call(self, index: int, messages: list[dict], max_tokens: int, params: SamplingParams,
             watch: CopyWatch | None = None):
        """Generator: yields TokensGenerated while the model writes; returns a CallResult. Stopped as
        soon as the reply loops, or, with ``watch``, turns out to copy its new content."""
        prompt = self.renderer.render(messages)
        params = replace(params, max_tokens=max_tokens)
        started = time.perf_counter()
        pieces: list[str] = []
        last_event = 0.0
        loop = copy = False
        stream = self.runtime.stream(prompt, params, self.cancel)
        try:
            for n, piece in enumerate(stream, 1):
                pieces.append(piece)
                now = time.perf_counter()
                if n % LOOP_CHECK_TOKENS == 0:
                    so_far = "".join(pieces)
                    if looping_tail(so_far):
                        loop = True
                        break
                    if watch is not None and watch.copying(so_far):
                        copy = True
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
        if loop or copy:
            stats.stopped_by = "loop" if loop else "copy"
        reply, scaffold = strip_scaffold(clean_reply(raw))
        return CallResult(reply, raw, stats, time.perf_counter() - started, loop, scaffold, copy)

    def weigh(self, messages: list[dict], answers) -> tuple[dict[str, float] | None, CallResult | None]:
        """How likely each of ``answers`` is as the reply to ``messages`` (log-probabilities of the first token),
        and the call's CallResult for the round's record; (None, None) where the runtime cannot weigh answers."""
        weigh = getattr(self.runtime, "answer_logprobs", None)
        if weigh is None:
            return None, None
        self.check_cancel()
        started = time.perf_counter()
        found = weigh(self.renderer.render(messages), answers, self.cancel)
        stats = self.runtime.last_call
        reply = max(found, key=found.get) if found else ""
        return found, CallResult(reply, reply, stats, time.perf_counter() - started)

    def prefetched(self, index: int, future):
        """Generator: the first attempt of a round that a worker already sent (``future`` of a
        CallResult); the reply is shown whole when it arrives. Returns the CallResult."""
        result = future.result()          # a Stop cancels the worker's stream: Cancelled is raised here
        yield TokensGenerated(index, result.raw, result.stats.generated_tokens,
                              result.stats.generated_tokens / max(1e-6, result.stats.generate_seconds))
        return result

    def for_worker(self) -> "RunContext":
        """A context for a worker thread: the same run, its own runtime clone (its own last_call)."""
        return replace(self, runtime=self.runtime.clone())

    # ----- records and checkpoints -------------------------------------------------------------
    def finish_round(self, record: RoundRecord, document: str, summary: str):
        self.state.rounds.append(record)
        self.state.summaries[document] = summary
        self.state.save()
        return RoundFinished(record)

    def record(self, index: int, kind: str, document: str, chunk, summary_in: str, summary: str,
               results: list[CallResult], flags: list[str], side_calls: list[CallResult] = ()) -> RoundRecord:
        """``side_calls``: calls that wrote nothing of the round's reply (the second reading's yes/no questions),
        counted in its tokens, seconds and calls but not taken for its reply or how it stopped."""
        last = results[-1] if results else None
        first = results[0] if results else None
        stops = [r.stats.stopped_by for r in results]
        results = [*results, *side_calls]
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
            first_call_reused=first.stats.reused_tokens if first else -1,
            stopped_by=last.stats.stopped_by if last else "",
            call_stops=stops,
            summary=summary, summary_in=summary_in, reply=last.raw if last else "",
            **note_counts(self._fallback_checks.pop(index, None)))

    # ----- a guarded round: call, check, retry stricter, fall back to the part's notes -------------
    def rewrites_given_up(self, document: str, kind: str) -> bool:
        """Whether the document's next part of this kind goes straight to its notes: the last
        ``guard.notes_after_failed_parts`` parts of that kind (the ones the model was asked about; noise
        skipped does not count) each fell back to their notes. Read from the recorded rounds, so a
        resumed run goes on as it stopped."""
        n = self.guard.notes_after_failed_parts
        asked = [r for r in self.state.rounds_of(document, kind) if "noise_skipped" not in r.flags]
        return n > 0 and len(asked) >= n and all(
            any(f in r.flags for f in SALVAGE_FLAGS) for r in asked[-n:])

    def guarded_round(self, index: int, kind: str, messages_for, previous: str, source: str, max_tokens: int,
                      total: int, chunk_index: int, chunk_tokens: int, fallback, first=None, direct=False,
                      language: str | None = None):
        """Generator for one round with collapse repair. ``messages_for(reminder)`` builds the prompt.

        ``first``: the first attempt, already sent by a worker (parallel map calls); checks, the retry and
        the fallback run here, in order, as for any round. ``language``: the one the reply must be in
        (``document_language``; None: the user's, else the script of ``source``). ``direct``: the model is
        not asked to rewrite (``rewrites_given_up``): the part goes to ``fallback`` at once, flagged
        "notes_direct".
        Returns (summary, results, flags): the accepted reply; on a second failure, what ``fallback(results)``
        (a generator) returns: for a part, the previous summary with this part's verified notes folded in,
        so a failed round never loses its part.
        """
        results: list[CallResult] = []
        yield RoundStarted(index, kind, chunk_index, total, chunk_tokens, len(previous), source, previous, 1)
        if direct:
            n = self.guard.notes_after_failed_parts
            summary, how, note = yield from fallback(results)
            yield RoundRepaired(index, how, len(summary),
                                f"{note}; not asked to rewrite: the model's rewrites of the {n} parts before "
                                f"failed twice each, so the document's remaining parts are taken as notes")
            return summary, results, ["notes_direct", how]
        watch = CopyWatch(source, previous)
        if first is not None:             # sent ahead by a worker (``first``: a future of the CallResult)
            result = yield from self.prefetched(index, first)
        else:
            result = yield from self.call(index, messages_for(""), max_tokens, self.sampling, watch)
        results.append(result)
        flags, detail = self._check(previous, result, source, language)
        if not flags:
            return result.reply, results, (["scaffold_stripped"] if result.scaffold else [])
        yield CollapseDetected(index, flags, len(previous), len(result.reply), 1, detail)
        self.check_cancel()
        yield RoundStarted(index, kind, chunk_index, total, chunk_tokens, len(previous), source, previous, 2)
        retry = yield from self.call(index, messages_for(retry_reminder(flags, previous, max_tokens)), max_tokens,
                                     self.strict_sampling, watch)
        results.append(retry)
        flags2, detail2 = self._check(previous, retry, source, language)
        if not flags2:
            yield RoundRepaired(index, "retry", len(retry.reply), f"retry passed (first attempt: {detail})")
            return retry.reply, results, flags + ["repaired"] + (["scaffold_stripped"] if retry.scaffold else [])
        yield CollapseDetected(index, flags2, len(previous), len(retry.reply), 2, detail2)
        self.check_cancel()
        summary, how, note = yield from fallback(results)
        yield RoundRepaired(index, how, len(summary), f"{note} (the model's replies failed: {detail2})")
        return summary, results, sorted(set(flags + flags2)) + [how]

    def _check(self, previous: str, result: CallResult, source: str,
               language: str | None = None) -> tuple[list[str], str]:
        flags, detail = check_reply(previous, result.reply, source, hit_max_tokens=result.stats.hit_max_tokens,
                                    rules=self.layout.preset.rules, settings=self.guard,
                                    labels=(self.layout.preset.content_label,))
        details = [detail] if detail else []
        if result.stopped_for_loop and "repetition" not in flags:
            flags.append("repetition")
            details.append("stopped as soon as the reply started looping")
        if result.stopped_for_copy:
            if "copied_chunk" not in flags:
                flags.append("copied_chunk")
            details.append(f"stopped as soon as the reply turned out to copy the new content "
                           f"({result.stats.generated_tokens} tokens)")
        if result.scaffold and len(result.reply) < 0.5 * len(result.raw.strip()):
            flags.append("scaffold")
            details.append(f"{len(result.scaffold)} lines of prompt scaffolding or chatter: "
                           f"{result.scaffold[0][:60]!r}")
        if result.reply and wrong_language(result.reply, source or previous, language or self.layout.language):
            flags.append("wrong_language")
            details.append("the reply is not in the document's language" if not self.layout.language
                           else f"the reply is not in {self.layout.language}")
        return flags, "; ".join(details)

    # ----- the fallback of a failed part: its notes, folded in ------------------------------------
    def part_notes_fallback(self, results: list, index: int, kind: str, doc, chunk, part: str, previous: str,
                            total: int):
        """Generator: this part's notes appended to ``previous`` as cited bullets, as many as fit under the
        summary cap; every note is kept in the run state either way; returns (summary, how, what was done).

        The notes are the notes strategy's (engine.summary.notes_extraction.salient_notes_for_part): code
        chooses the part's sentences that add most, the model says each in a few words, code checks each
        rewording; a git log's part gives its commit subjects. They replaced the model's own "point ||
        quote" notes over the whole part, which on the development earnings call put "Marketing proposes
        ..." (the meeting preset's example speaker, on a call with none) into a rolling summary, were a
        third refused on the meetings, and cost a 2,000-token read per failed part (docs/quality-history.md)."""
        from precis.engine.summary.evidence import Note
        from precis.engine.summary.notes_extraction import salient_notes_for_part
        earlier = [Note.from_dict(d) for d in self.state.notes.get(doc.name, [])]
        first_id = max((n.id for n in earlier), default=0) + 1
        lines, weights = self.document_index(doc)
        got = yield from salient_notes_for_part(self, index, kind, doc.name, chunk, part, chunk.sent_start_char,
                                                total, first_id, lines, earlier, weights,
                                                self.part_notes_chars(doc, chunk), document_language(self, doc),
                                                document_text=doc.text)
        self.state.notes[doc.name] = [n.as_dict() for n in earlier + got.notes]
        results.extend(got.side_calls + got.results)        # the part's reply stays the last call
        self._fallback_checks[index] = got.check          # the round's record counts what it kept and dropped
        how = "extracted" if "extracted" in got.flags else "notes_fallback"
        if not got.notes:
            # every sentence the part could give is already in the notes (or it has none to give)
            return previous, how, "this part added nothing the earlier notes do not hold; the summary is kept"
        folded = []
        for n in got.notes:
            candidate = _join(previous, folded + [f"- {n.point} [{n.id}]"])
            if self.count(candidate) > self.budget.summary_in_cap:
                break
            folded.append(f"- {n.point} [{n.id}]")
        if how == "extracted":
            short = sum(n.origin == "shortened" for n in got.notes)
            kind_of = ("sentence" if len(got.notes) == 1 else "sentences") + (
                " taken verbatim" if not short else f" taken verbatim or shortened in their own words ({short})") + \
                " (no rewording passed)"
        elif "commit_subjects" in got.flags:
            kind_of = "commit " + ("subject" if len(got.notes) == 1 else "subjects")
        else:
            kind_of = "checked " + ("note" if len(got.notes) == 1 else "notes")
        note = f"folded {len(folded)} of this part's {len(got.notes)} {kind_of} into the summary"
        left = len(got.notes) - len(folded)
        if left:
            note += (f"; {left} did not fit under the summary cap: {'it is' if left == 1 else 'they are'} kept in "
                     "the run report's evidence and the summary file's notes")
        return _join(previous, folded), how, note

    def part_notes_chars(self, doc, chunk) -> int:
        """The characters of sentences the notes strategy would choose from this part at the start of a run:
        its share of the notes' length, over the share of a sentence a note keeps (a reworded note is
        shorter than its sentence). Without that division a failed part gave the rewrite strategies a
        thinner part than the notes strategy's: in final12, with the meetings' lengths now following what
        was said, the first meeting's first part reached map-reduce as one note, and its merge drew on
        nothing of that quarter."""
        from precis.engine.planning.summary_length import notes_chars_for, part_sentence_chars
        all_tokens = max(1, sum(c.tokens for c in doc.chunks), chunk.tokens)
        return part_sentence_chars(notes_chars_for(doc.said_tokens, self.summary_words), chunk.tokens,
                                   all_tokens, all_tokens)

    def document_index(self, doc):
        """The document's line index and word weights, built once per document and shared by the notes
        strategy's parts and the other strategies' fallbacks (a day's log is 235k characters; a run whose
        rewrites keep failing falls back on every part)."""
        from precis.engine.summary.notes_extraction import LineIndex
        from precis.engine.summary.salience import DocumentWeights
        if doc.name not in self._indexes:
            self._indexes[doc.name] = (LineIndex(doc.text), DocumentWeights(doc.text))
        return self._indexes[doc.name]


def document_language(ctx: RunContext, doc) -> str | None:
    """The language a document's replies are asked and checked in: the one the user asked for, else the
    document's own, named when Precis can tell it by script (Japanese) from its sentences. A Japanese git
    log is mostly Latin hashes, authors and file paths: judged by all its letters, its parts passed for
    Latin text, and rolling rounds that summarised one in English passed the language check."""
    from precis.engine.summary.salience import prose_language
    return ctx.layout.language or prose_language(doc.text)


def note_counts(check) -> dict:
    """A round record's notes fields from a part's NoteCheck (none: a round that took no notes)."""
    if check is None:
        return {}
    return {"notes_kept": len(check.kept), "notes_unsupported": len(check.unsupported),
            "notes_repeats": check.repeats, "refused_by": dict(check.refused_by)}


def pack_consecutive(items: list, fits) -> list[list]:
    """Consecutive items in groups, each as long as ``fits(group)`` allows (a single item always forms one)."""
    groups: list[list] = []
    current: list = []
    for item in items:
        trial = current + [item]
        if current and not fits(trial):
            groups.append(current)
            current = [item]
        else:
            current = trial
    if current:
        groups.append(current)
    return groups


def _join(previous: str, bullets: list[str]) -> str:
    if not bullets:
        return previous
    return (previous.rstrip() + "\n\n" + "\n".join(bullets)).strip() if previous.strip() else "\n".join(bullets)
