"""Precis's rolling run against the same model calls made with plain llama-cpp-python, side by side.

1. A rolling run with the real bundled model on the sample document (first 9,000 characters,
   n_ctx 2048): every model call Precis makes (retries and compactions included) is recorded with
   its prompt and the number of tokens generated.
2. The same calls replayed with plain llama-cpp-python (`Llama.generate` on the same prompt tokens,
   stopped after the same number of tokens; its own prefix reuse on), same model, same context.
The ratio of wall times is Precis's overhead: chunking, prompt rendering, guard, checkpoints,
events, reports (goal: at most 5%). Runs alternate twice; medians are reported.
Usage: python -m bench.rolling_overhead
"""
from __future__ import annotations

import json
import statistics
import tempfile
import time
from importlib import resources
from pathlib import Path

from precis.engine.planning.run_plan import build_plan
from precis.engine.prompts.layout import RoundLayout
from precis.engine.prompts.presets import load_preset
from precis.engine.runs.outputs import write_outputs
from precis.engine.runs.report import make_report
from precis.engine.runs.run import RunOptions, new_state, run_summary
from precis.engine.runtime.llama import LlamaRuntime, _default_threads
from precis.engine.runtime.protocol import SamplingParams
from precis.engine.runtime.settings import RuntimeSettings
from precis.models.library.bundled import bundled_model_path

N_CTX = 2048
DOCUMENT_CHARS = 9000


class RecordingRuntime:
    """Delegates to the real runtime and notes (prompt, generated tokens) of every call."""

    def __init__(self, runtime) -> None:
        self._rt = runtime
        self.calls: list[tuple[str, int]] = []

    def __getattr__(self, name):
        return getattr(self._rt, name)

    def stream(self, prompt, params, cancel=None):
        try:
            yield from self._rt.stream(prompt, params, cancel)
        finally:
            self.calls.append((prompt, self._rt.last_call.generated_tokens))


def precis_run(model: Path, text: str, out_dir: Path):
    started = time.perf_counter()
    with LlamaRuntime.load(model, RuntimeSettings(n_ctx=N_CTX)) as real:
        # one token at a time, as plain llama-cpp-python generates below: the ratio is Precis's overhead, not
        # its drafting's gain (bench/prompt_lookup.py)
        real.prompt_lookup = "off"
        rt = RecordingRuntime(real)
        layout = RoundLayout(load_preset("conversation-archive"), "2026-11-27")
        plan = build_plan(rt, layout, N_CTX, [("day.txt", text, ())])
        options = RunOptions()
        state = new_state(plan, model, {"n_ctx": N_CTX}, options, ["day.txt"])
        for _ in run_summary(rt, plan, state, options):
            pass
        report = make_report(rt, plan, state)
        write_outputs(out_dir, report, state)
    return time.perf_counter() - started, rt.calls, report


def plain_run(model: Path, calls: list[tuple[str, int]]) -> float:
    import llama_cpp
    started = time.perf_counter()
    llm = llama_cpp.Llama(model_path=str(model), n_ctx=N_CTX, n_batch=512, n_ubatch=512, n_threads=_default_threads(),
                          n_threads_batch=_default_threads(), verbose=False, seed=0)
    p = SamplingParams()
    for prompt, n_tokens in calls:
        tokens = llm.tokenize(prompt.encode("utf-8"), add_bos=False, special=True)
        if n_tokens == 0:
            continue
        for i, _token in enumerate(llm.generate(tokens, top_k=p.top_k, top_p=p.top_p, min_p=p.min_p,
                                                temp=p.temperature, repeat_penalty=p.repeat_penalty), 1):
            if i >= n_tokens:
                break
    llm.close()
    return time.perf_counter() - started


def run(repeats: int = 2) -> dict:
    text = (resources.files("precis.resources") / "sample_day.txt").read_text(encoding="utf-8")[:DOCUMENT_CHARS]
    model = bundled_model_path()
    precis_s, plain_s, ratios = [], [], []
    report = None
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(repeats):
            p_s, calls, report = precis_run(model, text, Path(tmp) / f"run{i}")
            q_s = plain_run(model, calls)
            precis_s.append(p_s)
            plain_s.append(q_s)
            ratios.append(p_s / q_s)
    return {"model": "SmolLM2-135M (bundled)", "n_ctx": N_CTX, "document_chars": len(text),
            "rounds": len(report.rounds), "model_calls": report.prefix_reuse["model_calls"],
            "static_prompt_evaluations": report.prefix_reuse["static_prompt_evaluations"],
            "precis_seconds": round(statistics.median(precis_s), 2),
            "plain_seconds": round(statistics.median(plain_s), 2),
            "overhead_ratio": round(statistics.median(ratios), 3)}


if __name__ == "__main__":
    print(json.dumps(run(), indent=2))
