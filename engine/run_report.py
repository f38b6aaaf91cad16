"""The files a run leaves behind: DATE-summary.md, DATE-todos.md, DATE-run.json.

run.json has every round (chunk tokens, summary characters and tokens, prompt tokens evaluated
and reused, generated tokens, seconds, flags), the curve, every collapse and repair, whether the
static prompt was served from the cache, and the fact-retention report of the fact ledger.
"""
from __future__ import annotations

import json
from pathlib import Path

from engine.checkpoints import RunState
from engine.events import COLLAPSE_FLAGS
from engine.fact_ledger import FactLedger
from engine.prompts import PromptRenderer
from engine.run_plan import RunPlan
from engine.atomic_files import write_json_atomic, write_text_atomic

_SENTINEL = "\u2063PRECIS-SUMMARY\u2063"


def static_prefix_tokens(runtime, plan: RunPlan) -> int:
    """Tokens of the part of every round's prompt that comes before the summary (what prefix reuse skips)."""
    renderer = PromptRenderer(runtime)
    prompt = renderer.render(plan.layout.rolling_messages(_SENTINEL, ""))
    return renderer.count(prompt[:prompt.index(_SENTINEL)])


def build_ledgers(plan: RunPlan, state: RunState) -> dict[str, FactLedger]:
    """Facts of every chunk a finished round read; chunks skipped as noise (R1) hold none worth keeping."""
    read, whole = set(), set()
    for r in state.rounds:
        if "noise_skipped" in r["flags"]:
            continue
        if r["kind"] == "stuff":
            whole.add(r["document"])
        elif r["kind"] in ("round", "map"):
            read.add((r["document"], r["chunk_index"]))
    ledgers = {}
    for doc in plan.documents:
        ledger = FactLedger()
        for c in doc.chunks:
            if doc.name in whole or (doc.name, c.index) in read:
                ledger.add_chunk(doc.text[c.sent_start_char:c.end_char], c.index)
        ledgers[doc.name] = ledger
    return ledgers


def make_report(runtime, plan: RunPlan, state: RunState) -> dict:
    """The run report of ``state`` as it stands (finished, cancelled or failed)."""
    return build_report(plan, state, build_ledgers(plan, state), static_prefix_tokens(runtime, plan))


def build_report(plan: RunPlan, state: RunState, ledgers: dict[str, FactLedger], static_tokens: int) -> dict:
    rounds = state.rounds
    called = [r for r in rounds if r["attempts"] > 0 and r["first_call_reused"] >= 0]
    static_evaluations = sum(r["first_call_reused"] < static_tokens - 1 for r in called)
    facts = {}
    for name, ledger in ledgers.items():
        counts = ledger.check(state.summaries.get(name, ""))
        facts[name] = {**counts, "items": [f for f in ledger.as_list() if f["kind"] != "todo"]}
    return {
        "run_id": state.run_id, "outcome": state.status, "message": state.message,
        "model": state.model_path, "settings": state.settings, "strategy": state.strategy,
        "preset": state.layout["preset"], "date": state.layout["date"], "language": state.layout["language"],
        "budget": state.budget,
        "documents": [{"name": d.name, "chars": d.chars, "tokens": d.tokens, "planned_rounds": len(d.chunks)}
                      for d in plan.documents],
        "rounds": [{k: v for k, v in r.items() if k not in ("summary", "summary_in", "reply")} for r in rounds],
        "curve": {"summary_chars": [r["summary_chars"] for r in rounds],
                  "summary_tokens": [r["summary_tokens"] for r in rounds],
                  "chunk_tokens": [r["chunk_tokens"] for r in rounds]},
        "collapses": [{"index": r["index"], "flags": [f for f in r["flags"] if f in COLLAPSE_FLAGS],
                       "repair": "retry" if "repaired" in r["flags"] else "kept_previous"}
                      for r in rounds if any(f in COLLAPSE_FLAGS for f in r["flags"])],
        "compactions": [r["index"] for r in rounds if r["kind"] == "compaction"],
        "noise_skipped": [r["index"] for r in rounds if "noise_skipped" in r["flags"]],
        "prefix_reuse": {"static_prompt_tokens": static_tokens, "model_calls": sum(r["attempts"] for r in rounds),
                         "rounds_with_model_calls": len(called), "static_prompt_evaluations": static_evaluations},
        "totals": {key: sum(r[key] for r in rounds) for key in
                   ("prompt_tokens", "prompt_evaluated", "prompt_reused", "generated_tokens", "seconds")},
        "facts": facts,
        "todos": [{"document": name, "text": f.text, "chunk": f.first_round}
                  for name, ledger in ledgers.items() for f in ledger.todos()],
    }


def write_outputs(out_dir: Path, report: dict, state: RunState) -> list[Path]:
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    date = report["date"]
    summary_path, todos_path, run_path = (out_dir / f"{date}-summary.md", out_dir / f"{date}-todos.md",
                                          out_dir / f"{date}-run.json")
    lines = [f"# Summary — {date}", ""]
    if state.status != "finished":
        done = len(state.rounds)
        lines += [f"> Partial: the run was {state.status} after {done} round{'s' if done != 1 else ''}. "
                  f"Resume with `precis summarize --resume {state.run_id}`.", ""]
    many = len(state.summaries) > 1
    for name, text in state.summaries.items():
        if many:
            lines += [f"## {name}", ""]
        lines += [text.strip(), ""]
    write_text_atomic(summary_path, "\n".join(lines))
    todo_lines = [f"# TODO — {date}", ""]
    todos = report["todos"]
    if not todos:
        todo_lines.append("No TODO items were found in the source.")
    for t in todos:
        todo_lines.append(f"- [ ] {t['text']}" + (f"  ({t['document']})" if many else ""))
    write_text_atomic(todos_path, "\n".join(todo_lines) + "\n")
    write_json_atomic(run_path, report)
    return [summary_path, todos_path, run_path]


def load_report(path: Path) -> dict:
    return json.loads(Path(path).read_text(encoding="utf-8"))
