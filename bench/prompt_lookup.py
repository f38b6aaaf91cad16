"""Prompt-lookup drafting against one token at a time, side by side in one process (engine.runtime.prompt_lookup).

The same runs (the sample document's first 9,000 characters, n_ctx 2048, the bundled SmolLM2 unless a model is
given), for the notes strategy (the default) and the rolling loop, each made four times in the order off, on,
on, off; on is every reply guessed ("all"; by default the runtime guesses only replies no grammar holds, so a
notes run's held replies only here). Reported per strategy: the ratio of the median wall times, the replies'
generation speed (tokens/s) in each mode, the llama.cpp evaluations a drafted run took for its generated
tokens, how many tokens were guessed and how many of them held, and whether the summaries are the same text.
They need not be: a guess is checked on logits computed in a batch of another shape, which can tip a near tie
(the module's docstring); what each mode wrote is kept in the result so a reader can compare them.
Usage: python -m bench.prompt_lookup [MODEL.gguf] [--chars N] [--n-ctx N] [--strategies notes,rolling]
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from importlib import resources
from pathlib import Path

from bench.grammar_sampling import CountingRuntime
from precis.engine.planning.run_plan import build_plan
from precis.engine.prompts.layout import RoundLayout
from precis.engine.prompts.presets import load_preset
from precis.engine.runs.run import RunOptions, new_state, run_summary
from precis.engine.runtime.llama import LlamaRuntime
from precis.engine.runtime.settings import RuntimeSettings
from precis.models.library.bundled import bundled_model_path

N_CTX = 2048
DOCUMENT_CHARS = 9000
STRATEGIES = ("notes", "rolling")


class DraftCounting(CountingRuntime):
    """grammar_sampling's counting runtime, also adding up each drafted reply's evaluations and guesses."""

    def __init__(self, runtime: LlamaRuntime) -> None:
        super().__init__(runtime)
        self.decode_steps = self.drafted = self.held = 0

    def stream(self, prompt, params, cancel=None):
        try:
            yield from super().stream(prompt, params, cancel)
        finally:
            self.decode_steps += self._rt.last_call.decode_steps
            draft = self._rt.last_draft
            if draft is not None:
                self.drafted += draft.drafted_tokens
                self.held += draft.held_tokens


def one_run(rt: LlamaRuntime, text: str, n_ctx: int, strategy: str, lookup: bool) -> dict:
    rt.prompt_lookup = "all" if lookup else "off"      # "all": the notes' held replies too
    counting = DraftCounting(rt)
    started = time.perf_counter()
    layout = RoundLayout(load_preset("conversation-archive"), "2026-11-27")
    plan = build_plan(counting, layout, n_ctx, [("day.txt", text, ())])
    options = RunOptions(strategy=strategy)
    state = new_state(plan, rt.path, {"n_ctx": n_ctx}, options, ["day.txt"])
    for _ in run_summary(counting, plan, state, options):
        pass
    generated = sum(tokens for _, tokens in counting.calls)
    return {"seconds": time.perf_counter() - started, "summary": state.summaries["day.txt"],
            "generated_tokens": generated, "generate_seconds": counting.generate_seconds,
            "decode_steps": counting.decode_steps, "drafted_tokens": counting.drafted, "held_tokens": counting.held}


def compare(runs: dict[bool, list[dict]]) -> dict:
    off_s = statistics.median(r["seconds"] for r in runs[False])
    on_s = statistics.median(r["seconds"] for r in runs[True])
    on = runs[True][0]

    def speed(rs):
        return round(statistics.median(r["generated_tokens"] / max(r["generate_seconds"], 1e-6) for r in rs), 1)
    return {"same_summary": len({r["summary"] for rs in runs.values() for r in rs}) == 1,
            "summary_chars_off": len(runs[False][0]["summary"]), "summary_chars_on": len(on["summary"]),
            "generated_tokens_off": runs[False][0]["generated_tokens"], "generated_tokens_on": on["generated_tokens"],
            "decode_steps_on": on["decode_steps"], "drafted_tokens": on["drafted_tokens"],
            "held_tokens": on["held_tokens"],
            "generate_tokens_per_second_off": speed(runs[False]), "generate_tokens_per_second_on": speed(runs[True]),
            "seconds_off": round(off_s, 2), "seconds_on": round(on_s, 2), "time_ratio": round(on_s / off_s, 3),
            "summary_off": runs[False][0]["summary"], "summary_on": on["summary"]}


def run(model: Path | None = None, chars: int = DOCUMENT_CHARS, n_ctx: int = N_CTX,
        strategies: tuple[str, ...] = STRATEGIES) -> dict:
    text = (resources.files("precis.resources") / "sample_day.txt").read_text(encoding="utf-8")[:chars]
    path = model or bundled_model_path()
    out = {"model": path.name, "n_ctx": n_ctx, "document_chars": len(text)}
    before = os.environ.get("PRECIS_HOME")
    with tempfile.TemporaryDirectory() as home, LlamaRuntime.load(path, RuntimeSettings(n_ctx=n_ctx)) as rt:
        os.environ["PRECIS_HOME"] = home           # the runs' checkpoints, not in the user's Precis home
        try:
            for strategy in strategies:
                runs = {False: [], True: []}
                for lookup in (False, True, True, False):
                    runs[lookup].append(one_run(rt, text, n_ctx, strategy, lookup))
                out[strategy] = compare(runs)
        finally:
            if before is None:
                os.environ.pop("PRECIS_HOME", None)
            else:
                os.environ["PRECIS_HOME"] = before
    return out


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model", nargs="?", type=Path)
    parser.add_argument("--chars", type=int, default=DOCUMENT_CHARS)
    parser.add_argument("--n-ctx", type=int, default=N_CTX)
    parser.add_argument("--strategies", default=",".join(STRATEGIES))
    args = parser.parse_args()
    print(json.dumps(run(args.model, args.chars, args.n_ctx, tuple(args.strategies.split(","))), indent=2,
                     ensure_ascii=False))
