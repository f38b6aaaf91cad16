"""Planning a 1 MB document against one tokenization pass over it, side by side in one run.

The document is the development corpus joined in order (../shared/corpora/dev, English and
Japanese, transcripts, stories, logs), cut to 1,000,000 characters; without the corpus, the bundled
sample day repeated. Planning = token count of the whole document + chunking + exact verification,
what `precis plan` does after the vocab-only load. Usage: python -m bench.chunk_plan
"""
from __future__ import annotations

import json
import statistics
import time
from pathlib import Path

from precis.engine.planning.run_plan import make_budget, plan_documents
from precis.engine.prompts.layout import RoundLayout
from precis.engine.prompts.presets import load_preset
from precis.engine.runtime.llama import LlamaRuntime
from precis.engine.runtime.settings import RuntimeSettings
from precis.models.library.bundled import bundled_model_path

CORPUS = Path(__file__).resolve().parent.parent.parent / "shared" / "corpora" / "dev"
DOCUMENT_CHARS = 1_000_000


def document() -> tuple[str, str]:
    files = sorted(CORPUS.glob("*/*.json"))
    if files:
        text = "\n\n".join(json.loads(p.read_text(encoding="utf-8"))["text"] for p in files)
        source = f"development corpus ({len(files)} documents joined)"
    else:
        from importlib import resources
        sample = (resources.files("precis.resources") / "sample_day.txt").read_text(encoding="utf-8")
        text, source = sample * (DOCUMENT_CHARS // len(sample) + 1), "resources/sample_day.txt repeated"
    return text[:DOCUMENT_CHARS], source


def run(repeats: int = 3) -> dict:
    text, source = document()
    layout = RoundLayout(load_preset("conversation-archive"), "2026-11-27")
    rows = []
    with LlamaRuntime.load(bundled_model_path(), RuntimeSettings(n_ctx=512), vocab_only=True) as tok:
        tok.count_tokens(text)  # warm-up: page in the vocabulary
        for n_ctx in (2048, 8192):
            budget = make_budget(tok, layout, n_ctx)
            pass_s, plan_s = [], []
            for _ in range(repeats):
                t0 = time.perf_counter()
                tokens = tok.count_tokens(text)
                t1 = time.perf_counter()
                (doc,) = plan_documents(tok, [("bench", text, ())], budget)
                t2 = time.perf_counter()
                pass_s.append(t1 - t0)
                plan_s.append(t2 - t1)
            assert doc.tokens == tokens
            rows.append({"n_ctx": n_ctx, "chunk_budget": budget.chunk_budget, "rounds": len(doc.chunks),
                         "document_tokens": tokens, "tokenize_pass_s": round(statistics.median(pass_s), 3),
                         "plan_s": round(statistics.median(plan_s), 3),
                         "ratio": round(statistics.median(p / q for p, q in zip(plan_s, pass_s)), 2)})
    return {"document": source, "document_chars": len(text), "model": "SmolLM2-135M (bundled)", "runs": rows}


if __name__ == "__main__":
    print(json.dumps(run(), indent=2))
