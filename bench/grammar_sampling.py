"""Grammar-held sampling with the grammar checked on the likeliest tokens first, against llama-cpp-python's own
sampler chain, side by side in one process (engine.runtime.llama_sampling).

The notes strategy (the default) asks for every reply under a grammar. The same notes run (the sample document's
first 9,000 characters, n_ctx 2048, the bundled SmolLM2 unless a model is given) is made four times, in the order
stock, candidates first, candidates first, stock, each generating one token at a time (drafting from the prompt
is bench/prompt_lookup.py's); the summaries must be the same text every time (the sampled tokens are), and the
ratio of the medians of the wall times is the gain. Also counted: the tokens sampled, of those how many the
grammar checked on the candidates alone, and the replies' generation speed (tokens/s) in each mode.
Usage: python -m bench.grammar_sampling [MODEL.gguf] [--chars N] [--n-ctx N]
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

from bench.rolling_overhead import RecordingRuntime
from precis.engine.planning.run_plan import build_plan
from precis.engine.prompts.layout import RoundLayout
from precis.engine.prompts.presets import load_preset
from precis.engine.runs.run import RunOptions, new_state, run_summary
from precis.engine.runtime.llama import LlamaRuntime
from precis.engine.runtime.llama_sampling import CandidatesFirstSampler
from precis.engine.runtime.settings import RuntimeSettings
from precis.models.library.bundled import bundled_model_path

N_CTX = 2048
DOCUMENT_CHARS = 9000


class CountingRuntime(RecordingRuntime):
    """rolling_overhead's recording runtime, also counting how the grammar checked each sampled token and how
    long the replies took to generate."""

    def __init__(self, runtime: LlamaRuntime) -> None:
        super().__init__(runtime)
        self.on_candidates = self.on_vocabulary = 0
        self.generate_seconds = 0.0

    def stream(self, prompt, params, cancel=None):
        try:
            yield from super().stream(prompt, params, cancel)
        finally:
            self.generate_seconds += self._rt.last_call.generate_seconds
            sampler = self._rt.last_sampler
            if isinstance(sampler, CandidatesFirstSampler):
                self.on_candidates += sampler.candidate_checks
                self.on_vocabulary += sampler.full_checks


def notes_run(rt: LlamaRuntime, text: str, n_ctx: int, candidates_first: bool) -> dict:
    rt.candidates_first = candidates_first
    rt.prompt_lookup = "off"          # one switch measured at a time: drafting's is bench/prompt_lookup.py
    counting = CountingRuntime(rt)
    started = time.perf_counter()
    layout = RoundLayout(load_preset("conversation-archive"), "2026-11-27")
    plan = build_plan(counting, layout, n_ctx, [("day.txt", text, ())])
    options = RunOptions(strategy="notes")
    state = new_state(plan, rt.path, {"n_ctx": n_ctx}, options, ["day.txt"])
    for _ in run_summary(counting, plan, state, options):
        pass
    generated = sum(tokens for _, tokens in counting.calls)
    return {"seconds": time.perf_counter() - started, "summary": state.summaries["day.txt"],
            "generated_tokens": generated,
            "generate_tokens_per_second": generated / max(counting.generate_seconds, 1e-6),
            "grammar_on_candidates": counting.on_candidates, "grammar_on_vocabulary": counting.on_vocabulary}


def run(model: Path | None = None, chars: int = DOCUMENT_CHARS, n_ctx: int = N_CTX) -> dict:
    text = (resources.files("precis.resources") / "sample_day.txt").read_text(encoding="utf-8")[:chars]
    path = model or bundled_model_path()
    runs = {False: [], True: []}
    before = os.environ.get("PRECIS_HOME")
    with tempfile.TemporaryDirectory() as home, LlamaRuntime.load(path, RuntimeSettings(n_ctx=n_ctx)) as rt:
        os.environ["PRECIS_HOME"] = home           # the runs' checkpoints, not in the user's Precis home
        try:
            for first in (False, True, True, False):
                runs[first].append(notes_run(rt, text, n_ctx, first))
        finally:
            if before is None:
                os.environ.pop("PRECIS_HOME", None)
            else:
                os.environ["PRECIS_HOME"] = before
    stock_s = statistics.median(r["seconds"] for r in runs[False])
    fast_s = statistics.median(r["seconds"] for r in runs[True])
    fast = runs[True][0]
    return {"model": path.name, "n_ctx": n_ctx, "document_chars": len(text),
            "same_summary": len({r["summary"] for rs in runs.values() for r in rs}) == 1,
            "summary_chars": len(fast["summary"]), "generated_tokens": fast["generated_tokens"],
            "grammar_on_candidates": fast["grammar_on_candidates"],
            "grammar_on_vocabulary": fast["grammar_on_vocabulary"],
            "stock_generate_tokens_per_second": round(statistics.median(
                r["generate_tokens_per_second"] for r in runs[False]), 1),
            "candidates_first_generate_tokens_per_second": round(statistics.median(
                r["generate_tokens_per_second"] for r in runs[True]), 1),
            "stock_seconds": round(stock_s, 2), "candidates_first_seconds": round(fast_s, 2),
            "time_ratio": round(fast_s / stock_s, 3)}


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model", nargs="?", type=Path)
    parser.add_argument("--chars", type=int, default=DOCUMENT_CHARS)
    parser.add_argument("--n-ctx", type=int, default=N_CTX)
    args = parser.parse_args()
    print(json.dumps(run(args.model, args.chars, args.n_ctx), indent=2))
