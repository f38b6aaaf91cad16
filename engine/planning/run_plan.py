"""The whole plan of a run before anything heavy is loaded: budget, chunks, rounds, memory, time.

Tokens are the model's own (a vocab-only load is enough). The time estimate uses speeds measured
on this machine (engine.storage.speed_log) and is absent, not guessed, until a speed was measured.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property

from precis.engine.documents.bundle import Part
from precis.engine.documents.commit_log import commit_subjects, days_of
from precis.engine.documents.spoken_text import is_assembly, said_share
from precis.engine.events import BY_FILE
from precis.engine.planning.budget import Budget, plan_budget
from precis.engine.planning.chunking import Chunk, chunk_and_count
from precis.engine.planning.summary_length import (
    SENTENCE_CHARS,
    SUBJECT_CHARS,
    account_call_tokens,
    account_chars_for,
    notes_call_tokens,
    sentences_per_part,
    summary_chars_for,
)
from precis.engine.prompts.layout import PromptRenderer, RoundLayout
from precis.engine.storage.speed_log import Speeds

# Assumptions of the estimate, shown with it: each round's summary grows by about this share of the
# chunk it read, until it reaches the compaction threshold (a share of the summary output cap).
SUMMARY_GROWTH_PER_CHUNK = 0.25
COMPACTION_THRESHOLD = 0.80


@dataclass(frozen=True)
class PlannedDocument:
    name: str
    text: str
    tokens: int
    chunks: list[Chunk]
    parts: tuple[Part, ...] = ()

    @cached_property
    def said_tokens(self) -> int:
        """The tokens of what its people said (a meeting transcript without its speaker labels and fillers:
        engine.documents.spoken_text.said_share): what its summary's length follows."""
        return round(self.tokens * said_share(self.text))

    @property
    def chars(self) -> int:
        return len(self.text)


@dataclass(frozen=True)
class Estimate:
    prompt_tokens: int             # sent over the whole run
    evaluated_tokens: int          # of which llama.cpp processes (the static prefix is reused after round 1)
    generated_tokens: int
    seconds: float | None          # None until this model's speed was measured on this machine
    speeds: Speeds | None


@dataclass
class RunPlan:
    budget: Budget
    layout: RoundLayout
    documents: list[PlannedDocument]
    estimate: Estimate | None = None
    assumptions: dict = field(default_factory=lambda: {
        "summary_growth_per_chunk": SUMMARY_GROWTH_PER_CHUNK, "compaction_threshold": COMPACTION_THRESHOLD})
    # Per-file summaries of documents of different kinds under the automatic preset: each document's own
    # rules (empty: every document follows ``layout``)
    document_layouts: dict[str, RoundLayout] = field(default_factory=dict)
    strategy: str = ""                  # the strategy the estimate is of, and why it runs (the plan says both)
    strategy_reason: str = ""
    summary_words: int | None = None    # the written summary's length asked for (None: from each document)

    def summary_chars(self) -> list[int]:
        """Each document's summary length in characters a reader reads, as the notes or the account strategy
        will write it (engine.planning.summary_length); [] for the strategies that let the model say how long."""
        if self.strategy == "notes":
            return [summary_chars_for(d.said_tokens, self.summary_words) for d in self.documents]
        if self.strategy == "account":
            return [account_chars_for(d.said_tokens, self.summary_words) for d in self.documents]
        return []

    def layout_for(self, document: str) -> RoundLayout:
        return self.document_layouts.get(document, self.layout)

    def preset_and_reason(self) -> tuple[str, str]:
        """The preset and what it was chosen for, as RunPlanned tells them; BY_FILE and each file's with
        documents of rules of their own."""
        if self.document_layouts:
            return BY_FILE, "; ".join(f"{name} {layout.preset.name} for {layout.preset_reason}"
                                      for name, layout in self.document_layouts.items())
        return self.layout.preset.name, self.layout.preset_reason

    @property
    def preset_text(self) -> str:
        """The preset the run follows and what it was chosen for, or each file's."""
        if self.document_layouts:
            return "by file: " + "; ".join(f"{name} {layout.preset.name}"
                                           for name, layout in self.document_layouts.items())
        return self.layout.preset.name + (f", for {self.layout.preset_reason}" if self.layout.preset_reason else "")

    @property
    def rounds(self) -> int:
        return sum(len(d.chunks) for d in self.documents)

    @property
    def document_chars(self) -> int:
        return sum(d.chars for d in self.documents)

    @property
    def document_tokens(self) -> int:
        return sum(d.tokens for d in self.documents)

    def as_dict(self) -> dict:
        chunks = []
        for d in self.documents:
            for c in d.chunks:
                chunks.append({"document": d.name, "index": c.index, "start_char": c.start_char,
                               "end_char": c.end_char, "sent_start_char": c.sent_start_char,
                               "start_line": c.start_line, "end_line": c.end_line, "tokens": c.tokens,
                               "boundary": c.boundary})
        out = {"document_chars": self.document_chars, "document_tokens": self.document_tokens,
               "documents": [{"name": d.name, "document_chars": d.chars, "document_tokens": d.tokens,
                              "rounds": len(d.chunks),
                              "parts": [{"name": p.name, "start_char": p.start_char, "end_char": p.end_char}
                                        for p in d.parts]} for d in self.documents],
               "budget": self.budget.as_dict(), "rounds": self.rounds, "chunks": chunks,
               "preset": self.layout.preset.name, "preset_chosen_for": self.layout.preset_reason,
               "date": self.layout.date, "strategy": self.strategy, "strategy_chosen_for": self.strategy_reason,
               "summary_words_asked": self.summary_words, "summary_chars": self.summary_chars()}
        if self.document_layouts:
            out["presets_by_document"] = {name: {"preset": layout.preset.name, "chosen_for": layout.preset_reason}
                                          for name, layout in self.document_layouts.items()}
        if self.estimate is not None:
            e = self.estimate
            out["estimate"] = {"prompt_tokens": e.prompt_tokens, "evaluated_tokens": e.evaluated_tokens,
                               "generated_tokens": e.generated_tokens, "seconds": e.seconds,
                               "speeds": None if e.speeds is None else {
                                   "prompt_tokens_per_second": e.speeds.prompt_tokens_per_second,
                                   "generate_tokens_per_second": e.speeds.generate_tokens_per_second},
                               "assumptions": self.assumptions}
        return out


def make_budget(tokenizer, layout: RoundLayout, n_ctx: int, **overrides) -> Budget:
    """The budget with the static prompt rendered by the model's template and counted exactly."""
    static = PromptRenderer(tokenizer).static_prompt_tokens(layout)
    return plan_budget(n_ctx, static, **overrides)


def build_plan(tokenizer, layout: RoundLayout, n_ctx: int, texts: list[tuple[str, str, tuple[Part, ...]]],
               speeds: Speeds | None = None, progress=None, strategy: str = "rolling",
               summary_words: int | None = None, document_layouts: dict[str, RoundLayout] | None = None,
               strategy_reason: str = "", question_share: Callable[[str], float] | None = None,
               **overrides) -> RunPlan:
    """Budget, chunks and estimate: what `precis plan`, `precis summarize` and the window all need.
    ``progress(done_chars, total_chars)`` follows the chunking of long documents. With ``document_layouts``
    (documents that follow rules of their own) the budget is the one of the longest rules: every
    document's rounds fit. ``question_share``: the share of a text's sentences the notes strategy asks a
    question about (engine.summary.story_who.question_share, given by the caller: planning comes before
    summary in the engine's layers), counted in the notes estimate."""
    document_layouts = document_layouts or {}
    widest = layout
    if document_layouts:
        renderer = PromptRenderer(tokenizer)
        widest = max([layout, *document_layouts.values()], key=renderer.static_prompt_tokens)
    budget = make_budget(tokenizer, widest, n_ctx, **overrides)
    documents = plan_documents(tokenizer, texts, budget, progress)
    return RunPlan(budget, layout, documents,
                   estimate_run(budget, documents, speeds, strategy, summary_words, question_share),
                   document_layouts=document_layouts, strategy=strategy, strategy_reason=strategy_reason,
                   summary_words=summary_words)


def duration_text(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    return f"{seconds / 60:.0f} min" if seconds < 5400 else f"{seconds / 3600:.1f} h"


def plan_documents(tokenizer, texts: list[tuple[str, str, tuple[Part, ...]]], budget: Budget,
                   progress=None) -> list[PlannedDocument]:
    """(name, text, parts) for each document to summarize (a bundle is one), chunked to the budget."""
    planned = []
    total = sum(len(text) for _, text, _ in texts)
    before = 0
    for name, text, parts in texts:
        def report(done, _length, offset=before):
            if progress is not None:
                progress(offset + done, total)
        chunks, tokens = chunk_and_count(text, tokenizer, budget.chunk_budget, budget.overlap_tokens, report)
        planned.append(PlannedDocument(name, text, tokens, chunks, parts))
        before += len(text)
    return planned


def estimate_run(budget: Budget, documents: list[PlannedDocument], speeds: Speeds | None,
                 strategy: str = "rolling", summary_words: int | None = None,
                 question_share: Callable[[str], float] | None = None) -> Estimate:
    """Tokens to send, evaluate and generate, and the time at measured speeds. The notes strategy reads
    only the sentences it chose, a rewording call per part (none for a git log: its notes are its commit
    subjects), a story's questions of who an opening "He" is, and a heading per section (none for a dated
    git log: its days head its sections; nor for an assembly's minutes: who asks heads them), a fraction of
    the rolling loop's work; the other strategies are estimated as the rolling loop. ``summary_words``: the
    notes summary's length asked for; ``question_share``: as build_plan's (None: no questions counted)."""
    if strategy == "account":
        prompt = evaluated = generated = 0
        for i, doc in enumerate(documents):
            p, e, g = account_call_tokens(doc.said_tokens, [c.tokens for c in doc.chunks], i == 0, summary_words)
            prompt, evaluated, generated = prompt + p, evaluated + e, generated + g
        return Estimate(prompt, evaluated, generated, _seconds(evaluated, generated, speeds), speeds)
    if strategy == "notes":
        prompt = evaluated = generated = 0
        for i, doc in enumerate(documents):
            subjects = commit_subjects(doc.text)
            days = days_of(subjects)
            p, e, g = notes_call_tokens(doc.said_tokens, [c.tokens for c in doc.chunks], i == 0, summary_words,
                                        rewording=not subjects,
                                        model_headings=(not subjects or any(s.start not in days for s in subjects))
                                        and not is_assembly(doc.text),
                                        who_share=question_share(doc.text) if question_share and not subjects
                                        else 0.0,
                                        max_sentences=sentences_per_part(budget.summary_out_cap,
                                                                         SUBJECT_CHARS if subjects else SENTENCE_CHARS))
            prompt, evaluated, generated = prompt + p, evaluated + e, generated + g
        return Estimate(prompt, evaluated, generated, _seconds(evaluated, generated, speeds), speeds)
    prompt = evaluated = generated = 0
    ceiling = COMPACTION_THRESHOLD * budget.summary_out_cap
    first = True
    for doc in documents:
        summary = 0.0
        for chunk in doc.chunks:
            sent = budget.static_prompt_tokens + int(summary) + chunk.tokens
            prompt += sent
            evaluated += sent if first else sent - budget.static_prompt_tokens
            first = False
            summary = min(ceiling, summary + SUMMARY_GROWTH_PER_CHUNK * chunk.tokens)
            generated += int(summary)
    return Estimate(prompt, evaluated, generated, _seconds(evaluated, generated, speeds), speeds)


def _seconds(evaluated: int, generated: int, speeds: Speeds | None) -> float | None:
    if speeds is not None and speeds.prompt_tokens_per_second > 0 and speeds.generate_tokens_per_second > 0:
        return evaluated / speeds.prompt_tokens_per_second + generated / speeds.generate_tokens_per_second
    return None
