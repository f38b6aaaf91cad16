"""How often the model's weighed answer names a story's opening "He" or "She" rightly, as the notes ask it.

Replays engine.summary.story_who.ask_opening_referent on the hand-labelled sentences of
bench/labels/story-pronouns.jsonl (the development stories' narration sentences opening with "He" or "She"
that code cannot name from their paragraph; who each is, by a blind reader of the story) and reports, for
each margin, how many the model names and how many of those rightly.

    python -m bench.story_who_probe --model ~/.cache/precis-build/models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf \\
        --out /tmp/story-who.json

A model process: run it alone on the machine.
"""
from __future__ import annotations

import argparse
import json
import re
import sys
import time
from pathlib import Path

from precis.engine.prompts.story_who import SOMEONE_ELSE

LABELS = Path(__file__).parent / "labels" / "story-pronouns.jsonl"
MARGINS = (0.0, 0.5, 1.0, 1.5, 2.0)


def right(picked: str, who: str) -> bool:
    """Whether the name picked is a word of the label ("Syme" of "the tall man (Syme Rector, not yet named)")."""
    return picked.lower() in re.findall(r"[a-z][a-z'-]*", who.lower())


class _Weigher:
    """What ask_opening_referent needs of a run: ``weigh``, on a loaded runtime."""

    def __init__(self, runtime, renderer) -> None:
        self.runtime, self.renderer = runtime, renderer

    def weigh(self, messages, answers):
        return self.runtime.answer_logprobs(self.renderer.render(messages), answers), None


def report(rows: list[dict]) -> str:
    asked = [r for r in rows if r["picked"]]
    out = [f"{len(rows)} labelled sentences, {len(asked)} asked (the others: no one named before them)"]
    for margin in MARGINS:
        named = [r for r in asked if r["picked"] != SOMEONE_ELSE and r["margin"] >= margin]
        out.append(f"  margin >= {margin:.1f}: named {len(named)}, rightly {sum(r['right'] for r in named)}")
    return "\n".join(out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", type=Path, required=True)
    ap.add_argument("--labels", type=Path, default=LABELS)
    ap.add_argument("--n-ctx", type=int, default=4096)
    ap.add_argument("--out", type=Path)
    args = ap.parse_args(argv)
    from bench.faithfulness_sample import _document_text
    from precis.engine.prompts.layout import PromptRenderer
    from precis.engine.runtime.llama import LlamaRuntime
    from precis.engine.runtime.settings import RuntimeSettings
    from precis.engine.summary import story_who

    labels = [json.loads(line) for line in args.labels.read_text(encoding="utf-8").splitlines() if line.strip()]
    texts: dict[str, str] = {}
    rows = []
    with LlamaRuntime.load(args.model, RuntimeSettings(n_ctx=args.n_ctx)) as runtime:
        ctx = _Weigher(runtime, PromptRenderer(runtime))
        for label in labels:
            doc = label["doc"]
            text = texts.setdefault(doc, _document_text(doc.replace("/", "__") + ".txt"))
            start, end = label["start"], label["end"]
            started = time.perf_counter()
            names = story_who.choices_for(text, start, end, label["pronoun"].lower())
            answer, _ = story_who.ask_opening_referent(ctx, text, start, end)
            picked, margin = (answer.likeliest, answer.margin) if answer is not None else ("", 0.0)
            rows.append({**label, "choices": names, "picked": picked, "margin": round(margin, 3),
                         "named_at_margin": bool(answer and answer.name), "right": right(picked, label["who"]),
                         "seconds": round(time.perf_counter() - started, 2)})
            print(f"{doc} {start}: {picked or '-'} ({margin:+.2f}) | {label['who']}", flush=True)
    if args.out:
        args.out.write_text(json.dumps(rows, indent=1, ensure_ascii=False), encoding="utf-8")
    print(report(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
