"""Whom the model's weighed answer takes a report's "we" for, as the notes ask it (engine.summary.voice).

Asks engine.summary.voice.ask_voice of every English development document that speaks as "we" (prose that
tells no story: the earnings calls), and of two texts whose "we" is no name they say (a paper's authors, a
family's trip), where the right answer is none; prints the choices, the likeliest, its margin and whether it
is taken.

    python -m bench.voice_probe --model ~/.cache/precis-build/models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf

A model process: run it alone on the machine.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpora" / "dev"

# "we" is the writers, named nowhere: the names said most (a method, a place) are no answer
AUTHORS = " ".join([
    "In this paper we study how Transformer models summarise long meeting transcripts.",
    "We train each Transformer on the AMI corpus and test it on the ICSI corpus.",
    "Our results show that a Transformer trained on AMI loses a third of its recall on ICSI.",
    "We then ask whether ROUGE agrees with human readers, and find that ROUGE prefers longer summaries.",
    "Our second experiment repeats the AMI training with shorter parts, and we see the same gap on ICSI.",
    "We release our code and the ROUGE scores of every run.",
] * 3)
TRIP = " ".join([
    "We left Lisbon early on Saturday and drove south to the Algarve with the kids asleep in the back.",
    "Our first stop was a beach near Lagos, where we ate grilled sardines and the children swam until dusk.",
    "On Sunday we hiked the cliffs above Lagos, and our youngest counted forty boats from the top.",
    "We drove back to Lisbon on Monday, tired and sunburnt, and promised to return to the Algarve next year.",
] * 3)


def documents() -> list[tuple[str, str, str]]:
    """(name, text, the answer a reader gives, "" for none)."""
    from precis.engine.summary.voice import speaks_as_we
    found = []
    for path in sorted(CORPUS.glob("*/*.json")):
        doc = json.loads(path.read_text(encoding="utf-8"))
        if doc.get("lang") == "en" and speaks_as_we(doc["text"], "en"):
            found.append((f"{path.parent.name}/{path.stem}", doc["text"], ""))
    return found + [("authors (made up)", AUTHORS, ""), ("trip (made up)", TRIP, "")]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", type=Path, required=True)
    ap.add_argument("--n-ctx", type=int, default=4096)
    args = ap.parse_args(argv)
    from bench.story_who_probe import _Weigher
    from precis.engine.prompts.layout import PromptRenderer
    from precis.engine.runtime.llama import LlamaRuntime
    from precis.engine.runtime.settings import RuntimeSettings
    from precis.engine.summary.voice import ask_voice

    with LlamaRuntime.load(args.model, RuntimeSettings(n_ctx=args.n_ctx)) as runtime:
        ctx = _Weigher(runtime, PromptRenderer(runtime))
        for name, text, _ in documents():
            started = time.perf_counter()
            answer, _ = ask_voice(ctx, text)
            seconds = time.perf_counter() - started
            if answer is None:
                print(f"{name}: no choices", flush=True)
                continue
            print(f"{name}: {list(answer.choices)} -> {answer.likeliest} ({answer.margin:+.2f}), "
                  f"taken: {answer.name or '-'} [{seconds:.1f} s]", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
