"""The run report: every round, the curve, collapses and repairs, prefix reuse, facts and TODOs.

A typed object with one JSON form (``as_json``: the keys of DATE-run.json, listed in docs/cli.md).
Built from the run state as it stands, so a cancelled or failed run has a report too.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from precis.engine.documents.transcript_turns import prose_spans
from precis.engine.events import BY_FILE, COLLAPSE_FLAGS, RoundRecord
from precis.engine.planning.run_plan import RunPlan
from precis.engine.prompts.layout import PromptRenderer
from precis.engine.runs.state import RunState
from precis.engine.summary.account_shape import AccountLine, open_items
from precis.engine.summary.facts import FactLedger
from precis.engine.summary.strategies.base import SALVAGE_FLAGS

_SENTINEL = "\u2063PRECIS-SUMMARY\u2063"
REPAIR_FLAGS = ("repaired", *SALVAGE_FLAGS, "kept_parts")
TOTAL_KEYS = ("prompt_tokens", "prompt_evaluated", "prompt_reused", "generated_tokens", "seconds")


@dataclass(frozen=True)
class FactCounts:
    kept: int
    changed: int
    lost: int
    items: list[dict]             # Fact dicts: kind, text, label, first_round, status, found_as


@dataclass(frozen=True)
class Todo:
    document: str
    text: str
    chunk: int


@dataclass
class RunReport:
    run_id: str
    outcome: str                  # finished, cancelled, failed (or running while it goes)
    message: str
    model: str
    settings: dict
    strategy: str
    preset: str
    date: str
    language: str | None
    budget: dict
    documents: list[dict]         # name, chars, tokens, said_tokens (what the summary's length follows),
    #                               planned_rounds, preset
    rounds: list[RoundRecord]
    static_prompt_tokens: int
    facts: dict[str, FactCounts] = field(default_factory=dict)
    todos: list[Todo] = field(default_factory=list)
    evidence: dict[str, dict] = field(default_factory=dict)   # document -> {"notes": [...], "lines": [...]}
    inputs: dict = field(default_factory=dict)                # unreadable / skipped files, reading warnings

    @property
    def notes_totals(self) -> dict:
        """What verification kept and dropped over the run (the hallucination guard, in numbers)."""
        rounds = [r for r in self.rounds if r.kind != "write"]
        written = [r for r in self.rounds if r.kind == "write"]
        refused_by: dict[str, int] = {}
        for r in rounds:
            for name, count in r.refused_by.items():
                refused_by[name] = refused_by.get(name, 0) + count
        return {"kept": sum(r.notes_kept for r in rounds), "unsupported": sum(r.notes_unsupported for r in rounds),
                "repeats": sum(r.notes_repeats for r in rounds),
                "written_lines_linked": sum(r.notes_kept for r in written),
                "refused_by": dict(sorted(refused_by.items(), key=lambda kv: (-kv[1], kv[0])))}

    @property
    def salvaged_rounds(self) -> int:
        """Parts whose content reached the summary as notes or verbatim sentences, not as the model's prose."""
        return sum(any(f in r.flags for f in SALVAGE_FLAGS) for r in self.rounds
                   if r.kind not in ("notes", "account"))

    @property
    def collapses(self) -> list[dict]:
        return [{"index": r.index, "flags": [f for f in r.flags if f in COLLAPSE_FLAGS],
                 "repair": {"repaired": "retry"}.get(_repair(r), _repair(r))}
                for r in self.rounds if r.collapsed]

    @property
    def totals(self) -> dict:
        return {key: sum(getattr(r, key) for r in self.rounds) for key in TOTAL_KEYS}

    @property
    def prefix_reuse(self) -> dict:
        called = [r for r in self.rounds if r.attempts > 0 and r.first_call_reused >= 0]
        evaluations = sum(r.first_call_reused < self.static_prompt_tokens - 1 for r in called)
        # A round whose model call follows a call with another prompt (another kind of round, or a failed
        # part's notes) cannot reuse the static prompt: llama.cpp keeps one prompt's cache.
        switches = sum(cur.kind != prev.kind or any(f in prev.flags for f in SALVAGE_FLAGS)
                       for prev, cur in zip(called, called[1:]))
        return {"static_prompt_tokens": self.static_prompt_tokens, "model_calls": sum(r.attempts for r in self.rounds),
                "rounds_with_model_calls": len(called), "static_prompt_evaluations": evaluations,
                "prompt_switches": switches}

    def fact_totals(self) -> dict[str, int]:
        return {k: sum(getattr(c, k) for c in self.facts.values()) for k in ("kept", "changed", "lost")}

    def as_json(self) -> dict:
        rounds = self.rounds
        return {
            "run_id": self.run_id, "outcome": self.outcome, "message": self.message, "model": self.model,
            "settings": self.settings, "strategy": self.strategy, "preset": self.preset, "date": self.date,
            "language": self.language, "budget": self.budget, "documents": self.documents,
            "rounds": [r.as_dict(with_texts=False) for r in rounds],
            "curve": {"summary_chars": [r.summary_chars for r in rounds],
                      "summary_tokens": [r.summary_tokens for r in rounds],
                      "chunk_tokens": [r.chunk_tokens for r in rounds]},
            "collapses": self.collapses,
            "compactions": [r.index for r in rounds if r.kind == "compaction"],
            "noise_skipped": [r.index for r in rounds if "noise_skipped" in r.flags],
            "notes_direct": [r.index for r in rounds if "notes_direct" in r.flags],
            "prefix_reuse": self.prefix_reuse,
            "totals": self.totals,
            "facts": {name: {"kept": c.kept, "changed": c.changed, "lost": c.lost, "items": c.items}
                      for name, c in self.facts.items()},
            "todos": [{"document": t.document, "text": t.text, "chunk": t.chunk} for t in self.todos],
            "evidence": self.evidence,
            "inputs": self.inputs,
            "notes": self.notes_totals,
            "salvaged_rounds": self.salvaged_rounds,
        }


def _repair(r: RoundRecord) -> str:
    return next((f for f in REPAIR_FLAGS if f in r.flags), "none")


def static_prefix_tokens(runtime, plan: RunPlan) -> int:
    """Tokens of the part of every round's prompt that comes before the summary (what prefix reuse skips)."""
    renderer = PromptRenderer(runtime)
    prompt = renderer.render(plan.layout.rolling_messages(_SENTINEL, ""))
    if _SENTINEL not in prompt:
        # a server whose template rendered the messages otherwise: the prefix is not measured, the run goes on
        # (it raised "substring not found", reported as bad input, before the first round: bench/hostile.py)
        return 0
    return renderer.count(prompt[:prompt.index(_SENTINEL)])


def build_ledgers(plan: RunPlan, state: RunState) -> dict[str, FactLedger]:
    """Facts of every chunk a finished round read; chunks skipped as noise hold none worth keeping."""
    read, whole = set(), set()
    for r in state.rounds:
        if "noise_skipped" in r.flags:
            continue
        if r.kind == "stuff":
            whole.add(r.document)
        elif r.kind in ("round", "map", "notes", "account"):
            read.add((r.document, r.chunk_index))
    ledgers = {}
    for doc in plan.documents:
        ledger = FactLedger()
        # In a chat transcript, only what its people wrote: a day with an assistant's TODO file held the
        # checklists of the slash commands' prompts ("- [ ] #1 <action verb + description>"), a test plan a
        # tool printed and the JSON of five tool calls editing tasks/todo.md
        prose = prose_spans(doc.text)
        for c in doc.chunks:
            if doc.name in whole or (doc.name, c.index) in read:
                text = prose.text_within(doc.text, c.sent_start_char, c.end_char) if prose \
                    else doc.text[c.sent_start_char:c.end_char]
                ledger.add_chunk(text, c.index)
        ledgers[doc.name] = ledger
    return ledgers


def todos_of(plan: RunPlan, state: RunState, ledgers: dict[str, FactLedger]) -> list[Todo]:
    """The tasks the documents' sentences assign (the fact ledger), and after them what an account's summary
    lists under its TODO or action items (engine.summary.account_shape.open_items): a development day's TODO
    file said "No TODO items were found" beside a summary with open items."""
    todos = [Todo(name, f.text, f.first_round) for name, ledger in ledgers.items() for f in ledger.todos()]
    for doc in plan.documents:
        if not state.rounds_of(doc.name, "account"):
            continue
        listed = {t.text for t in todos if t.document == doc.name}
        lines = [AccountLine.from_dict(d) for d in state.evidence.get(doc.name, [])]
        todos += [Todo(doc.name, line.text, line.part) for line in open_items(lines, plan.layout_for(doc.name).preset)
                  if line.text not in listed]
    return todos


def make_report(runtime, plan: RunPlan, state: RunState, static_tokens: int | None = None) -> RunReport:
    """The run report of ``state`` as it stands (finished, cancelled or failed). ``static_tokens``, counted
    before the run, spares the runtime a call after it: a server that was stopped or broke off may not
    answer any more."""
    if static_tokens is None:
        static_tokens = static_prefix_tokens(runtime, plan)
    return build_report(plan, state, build_ledgers(plan, state), static_tokens)


def build_report(plan: RunPlan, state: RunState, ledgers: dict[str, FactLedger], static_tokens: int) -> RunReport:
    facts = {}
    for name, ledger in ledgers.items():
        counts = ledger.check(state.summaries.get(name, ""))
        facts[name] = FactCounts(counts["kept"], counts["changed"], counts["lost"],
                                 [f for f in ledger.as_list() if f["kind"] != "todo"])
    return RunReport(
        run_id=state.run_id, outcome=state.status, message=state.message, model=state.model_path,
        settings=state.settings, strategy=state.strategy,
        preset=BY_FILE if state.layout.get("by_document") else state.layout["preset"], date=state.layout["date"],
        language=state.layout["language"], budget=state.budget,
        documents=[{"name": d.name, "chars": d.chars, "tokens": d.tokens, "said_tokens": d.said_tokens,
                    "planned_rounds": len(d.chunks), "preset": plan.layout_for(d.name).preset.name}
                   for d in plan.documents],
        rounds=list(state.rounds), static_prompt_tokens=static_tokens, facts=facts,
        todos=todos_of(plan, state, ledgers),
        evidence={name: {"notes": state.notes.get(name, []), "lines": state.evidence.get(name, [])}
                  for name in state.summaries if state.notes.get(name)},
        inputs=dict(state.inputs))
