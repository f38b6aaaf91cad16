"""A whole run: plan in, events out, state checkpointed after every round.

The window, the command line and the tests all drive this one generator. It never raises for
what a person did or the model did: cancel, a model failure and bad input end with a RunFinished
event whose outcome says so, after the state was saved; finished rounds are never lost.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from precis.engine.errors import Cancelled, ExitCode, PrecisError
from precis.engine.events import RunFinished, RunPlanned
from precis.engine.planning.run_plan import PlannedDocument, RunPlan
from precis.engine.planning.summary_length import summary_chars_for
from precis.engine.runs.state import CheckpointError, RunState, model_fingerprint, new_run_id, plan_hash, text_hash
from precis.engine.runtime.protocol import CancelToken, SamplingParams
from precis.engine.summary.empty_summary import empty_message, kept_sentences_summary, plain_sentences
from precis.engine.summary.guard import GuardSettings
from precis.engine.summary.strategies import strategy as strategy_named
from precis.engine.summary.strategies.base import RunContext


@dataclass
class RunOptions:
    strategy: str = "rolling"
    skip_noise: bool | None = None          # None: as the preset says
    guard: GuardSettings = field(default_factory=GuardSettings)
    sampling: SamplingParams = field(default_factory=SamplingParams)
    max_rounds: int = 10_000
    summary_words: int | None = None        # the written summary's length (notes); None: from the document
    parallel_calls: int = 1                 # map calls in flight at once (a server with parallel slots)

    def __post_init__(self) -> None:
        strategy_named(self.strategy)   # an unknown name fails here, before anything runs


def plan_identity(plan: RunPlan, strategy: str) -> dict:
    """What a resumed run must share with the original: budget, prompt, documents, chunks, strategy."""
    layout = plan.layout
    described = {"preset": layout.preset.name, "rules": layout.preset.rules, "system": layout.preset.system,
                 "date": layout.date, "language": layout.language}
    if plan.document_layouts:
        described["by_document"] = {name: {"preset": d.preset.name, "rules": d.preset.rules}
                                    for name, d in plan.document_layouts.items()}
    return {"strategy": strategy, "budget": plan.budget.as_dict(), "layout": described,
            "documents": [{"name": d.name, "text_sha256": text_hash(d.text),
                           "chunks": [[c.start_char, c.end_char, c.sent_start_char] for c in d.chunks]}
                          for d in plan.documents]}


def new_state(plan: RunPlan, model_path: Path | None, settings: dict, options: RunOptions, files: list[str],
              request: dict | None = None, model_identity: tuple[str, str] | None = None) -> RunState:
    """``model_identity``: (name, fingerprint) of a model that is not a local file (a server's model)."""
    identity = plan_identity(plan, options.strategy)
    digest = plan_hash(identity)
    if model_identity is not None:
        model_name, fingerprint = model_identity
    else:
        model_name = str(model_path or "")
        fingerprint = model_fingerprint(model_path) if model_path else "fake"
    return RunState(
        run_id=new_run_id(plan.layout.date, digest), strategy=options.strategy,
        model_path=model_name, model_fingerprint=fingerprint,
        settings=settings, layout=identity["layout"], budget=plan.budget.as_dict(),
        documents=[{"name": d.name, "text_sha256": text_hash(d.text), "chars": d.chars, "tokens": d.tokens,
                    "chunks": [[c.start_char, c.end_char, c.sent_start_char, c.tokens] for c in d.chunks]}
                   for d in plan.documents],
        plan_hash=digest, files=files, request=request or {})


def planned_rounds(plan: RunPlan, strategy: str, summary_words: int | None = None) -> int:
    return sum(strategy_named(strategy).planned_rounds(d, summary_words) for d in plan.documents)


def run_summary(runtime, plan: RunPlan, state: RunState, options: RunOptions, cancel: CancelToken | None = None):
    """Generator of events for the whole run (resuming after the rounds ``state`` already holds)."""
    cancel = cancel or CancelToken()
    ctx = RunContext(runtime, plan.layout, plan.budget, state, cancel, options.guard, options.sampling,
                     _skip_noise(plan.layout, options), options.max_rounds, options.summary_words,
                     options.parallel_calls)
    total = planned_rounds(plan, options.strategy, options.summary_words)
    resumed = len(state.rounds)
    resumed_parts = sum(r.kind not in ("compaction",) for r in state.rounds)
    yield RunPlanned(state.run_id, str(state.directory), options.strategy, total,
                     [c.tokens for d in plan.documents for c in d.chunks], plan.budget.as_dict(), resumed,
                     min(total, resumed_parts), plan.estimate.seconds if plan.estimate else None,
                     *plan.preset_and_reason())
    state.status, state.message = "running", ""
    state.claim()
    runner = strategy_named(options.strategy).run
    try:
        state.save()
        for doc in plan.documents:
            ctx.layout = plan.layout_for(doc.name)
            ctx.skip_noise = _skip_noise(ctx.layout, options)
            yield from runner(ctx, doc, total)
    except Cancelled as exc:
        state.status, state.message = "cancelled", str(exc)
        _save_if_possible(state)
        yield RunFinished("cancelled", dict(state.summaries), _kept_message(state, exc), str(state.directory))
        return
    except CheckpointError as exc:     # its message says what is kept and how to resume
        state.status, state.message = "failed", str(exc)
        yield RunFinished("failed", dict(state.summaries), str(exc), str(state.directory), exc.exit_code)
        return
    except PrecisError as exc:
        state.status, state.message = "failed", str(exc)
        _save_if_possible(state)
        yield RunFinished("failed", dict(state.summaries), _kept_message(state, exc), str(state.directory),
                          exc.exit_code)
        return
    except BaseException as exc:  # a bug: keep what was done, then let it surface
        state.status, state.message = "failed", f"{type(exc).__name__}: {exc}"
        _save_if_possible(state)
        raise
    empty = _keep_sentences_of_empty(plan, state, options)
    if empty:
        state.status, state.message = "failed", empty_message(empty)
        _save_if_possible(state)
        yield RunFinished("failed", dict(state.summaries), state.message, str(state.directory), ExitCode.FAILED)
        return
    state.status = "finished"
    try:
        state.save()
    except CheckpointError as exc:
        state.status, state.message = "failed", str(exc)
        yield RunFinished("failed", dict(state.summaries), str(exc), str(state.directory), exc.exit_code)
        return
    yield RunFinished("finished", dict(state.summaries), "", str(state.directory))


def _save_if_possible(state: RunState) -> None:
    """The state's end (cancelled, failed) saved; where it cannot be (a full disk), the last checkpoint
    written stands: the run shows as interrupted and resumes from it."""
    try:
        state.save()
    except CheckpointError:
        pass


def _keep_sentences_of_empty(plan: RunPlan, state: RunState, options: RunOptions) -> list[str]:
    """The documents whose summary came out empty although the parts read (not skipped as noise) have
    sentences; each such summary becomes a notice and those sentences (engine.summary.empty_summary)."""
    empty = []
    for doc in plan.documents:
        if state.summaries.get(doc.name, "").strip():
            continue
        sentences = plain_sentences(_read_text(doc, state))
        if sentences:
            state.summaries[doc.name] = kept_sentences_summary(
                doc.name, sentences, summary_chars_for(doc.said_tokens, options.summary_words))
            empty.append(doc.name)
    return empty


def _read_text(doc: PlannedDocument, state: RunState) -> str:
    """The document's text less its parts skipped as noise (their sentences were left out on purpose)."""
    skipped = {r.chunk_index for r in state.rounds_of(doc.name) if "noise_skipped" in r.flags}
    return "\n".join(doc.text[c.start_char:c.end_char] for c in doc.chunks if c.index not in skipped)


def _skip_noise(layout, options: RunOptions) -> bool:
    return layout.preset.skip_noise if options.skip_noise is None else options.skip_noise


def _kept_message(state: RunState, exc: Exception) -> str:
    done = len(state.rounds)
    return (f"{exc} {done} finished round{'s' if done != 1 else ''} kept; resume with "
            f"`precis summarize --resume {state.run_id}`." if done else str(exc))
