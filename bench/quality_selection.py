"""The notes strategy's sentence choice alone, scored: no model, deterministic, about a minute.

`python -m bench.quality_selection --tag NAME [--docs ...]` runs the notes strategy on each document with a
runtime that hands every sentence it is asked to reword back as written (tests.fake_runtime.FakeRuntime, one
token per 4 characters, n_ctx 8,192): every rewording is refused as a copy, so each part's chosen sentences
stand verbatim, and the summary is exactly what code chose. Scored as `make quality` scores a summary (fact
recall, ROUGE, length); written to `bench/results/selection-NAME.json` (the scores only: the summary is the
document's own sentences).

Why: a change to what a sentence is or how it weighs moves the model's notes through its sampling too, and
on one draw a meeting's fact recall moved by 0.07 for a change that left the choice alone (docs/quality.md).
Scored without the model, the choice is compared side by side, the same every run; what the model then makes
of it is `make quality`'s to measure.
"""
from __future__ import annotations

import argparse
import json
import re
import tempfile
from pathlib import Path

from bench.quality import QUICK_SET, _commit, load_doc, run_precis
from bench.quality_metrics import score
from bench.quality_models import model_path
from tests.fake_runtime import FakeCall, FakeRuntime, diligent, numbered_lines

RESULTS = Path(__file__).parent / "results"
N_CTX = 8192


def hand_back(call: FakeCall) -> str:
    """Every sentence to reword, as it was sent (refused as a copy: the sentence stands verbatim)."""
    if call.kind == "reword":
        return "".join(f"[{i}] {s}\n" for i, s in numbered_lines(call.content))
    if call.kind == "restate":
        return call.content.strip() + "\n"
    return diligent(call)


class _HandBack:
    """Stands in for bench.quality.SharedRuntime."""

    def __call__(self, path, settings):
        return FakeRuntime(script=hand_back, n_ctx=settings.n_ctx, settings=settings, path=Path(path)), True


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--docs", nargs="+", default=QUICK_SET, help="corpus ids (folder/name without .json)")
    p.add_argument("--tag", required=True, help="name of the results file")
    # the plan reads the model file's header (its context, its layers); no weights are loaded
    p.add_argument("--model", default="qwen1.5b", help="as bench.quality's --model: the .gguf the plan reads")
    p.add_argument("--preset", default="auto", help="the rules preset (default auto: by the document's kind)")
    args = p.parse_args(argv)
    model = model_path(args.model)
    results = {"commit": _commit(), "model_file": model.name, "n_ctx": N_CTX, "preset": args.preset, "docs": {}}
    for doc_id in args.docs:
        doc = load_doc(doc_id)
        with tempfile.TemporaryDirectory() as workdir:
            summary, info = run_precis(_HandBack(), model, doc, "notes", N_CTX, Path(workdir), None,
                                       preset=args.preset)
        s = score(summary, doc["text"], doc["reference_texts"], doc["answer_options"], doc["lang"] == "ja")
        # not the summary: it is the document's own sentences, and the corpus stays out of the repository
        results["docs"][doc_id] = {"preset": info["preset"], "chars": s["chars"],
                                   "sentences": summary.count("\n- ") + summary.startswith("- "),
                                   "fact_recall": s["fact_recall"], "rouge1": s["rouge1"], "coverage": s["coverage"]}
        print(f"[selection] {doc_id} ({info['preset']}): {s['chars']:,} chars, fact recall {s['fact_recall']}, "
              f"R-1 {s['rouge1']}", flush=True)
    RESULTS.mkdir(exist_ok=True)
    out = RESULTS / f"selection-{args.tag}.json"
    out.write_text(json.dumps(results, ensure_ascii=False, indent=1), encoding="utf-8")
    print(f"[selection] wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
