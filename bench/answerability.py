"""Answerability: can a reader answer the human questions from the summary alone?

Each question of a development document is put to the model with the summary as the only text it may use
(greedy, at most ANSWER_TOKENS tokens), and the answer is scored against the human answer: the share of the
human answer's content words (Japanese: character bigrams) the model's answer holds, the best of the human
answers where there are several, averaged over the questions. A summary that is a list of keywords scores
on fact recall (its words are there) but not here, where the model has to find who did what in it. The
summary comes first in the prompt and the question last, so llama.cpp's prefix reuse reads the summary once
per document. Deterministic for a given model and summary.
"""
from __future__ import annotations

import re

from precis.engine.runtime.protocol import SamplingParams
from precis.engine.summary.evidence import cjk_bigrams, content_words

ANSWER_TOKENS = 120
SYSTEM = "You answer questions about a document using only the summary you are given."
NOT_SAID = "The summary does not say."
_REFS = re.compile(r"\s*\[\d{1,5}(?:, ?\d{1,5})*\]")


def _units(text: str, japanese: bool) -> set[str]:
    return cjk_bigrams(text) if japanese else content_words(text)


def answer_score(answer: str, options: list[str], japanese: bool) -> float:
    have = _units(answer, japanese)
    best = 0.0
    for option in options:
        want = _units(option, japanese)
        if want:
            best = max(best, len(want & have) / len(want))
    return best


def messages(summary: str, question: str, japanese: bool) -> list[dict]:
    rule = (f"要約だけを使って3文以内で答えること。要約に書かれていなければ「{NOT_SAID}」と答える。" if japanese else
            "Answer from the summary alone, in at most three sentences. If the summary does not say, answer: "
            + NOT_SAID)
    return [{"role": "system", "content": SYSTEM},
            {"role": "user", "content": f"<summary>\n{_REFS.sub('', summary).strip()}\n</summary>\n{rule}\n"
                                        f"Question: {question}\nAnswer:"}]


def answerability(runtime, summary: str, questions: list[str], answer_options: list[list[str]],
                  japanese: bool) -> dict:
    """{"answerability": mean score or None, "answers": [...]} for ``questions`` (one list of human answers each)."""
    if not questions or not summary.strip():
        return {"answerability": None if not questions else 0.0, "answers": []}
    params = SamplingParams(max_tokens=ANSWER_TOKENS, temperature=0.0, repeat_penalty=1.1)
    answers, scores = [], []
    for question, options in zip(questions, answer_options):
        prompt = runtime.render_chat(messages(summary, question, japanese))
        answer = "".join(runtime.stream(prompt, params)).strip()
        answers.append(answer)
        scores.append(answer_score(answer, options, japanese))
    return {"answerability": round(sum(scores) / len(scores), 4), "answers": answers}


def main(argv: list[str] | None = None) -> int:
    """Answerability of summaries already written: `python -m bench.answerability TAG... --docs ID...` asks
    each document's questions of its summary in every results file given (bench/results/quality-TAG.json, the
    strategy's first run of the document), one after the other with one model, and prints one line each. For
    runs made with `--no-answers`, so that two sittings' summaries are asked in one."""
    import argparse
    import json
    from pathlib import Path

    from bench.quality import SharedRuntime, answered, load_doc
    from bench.quality_models import model_path
    p = argparse.ArgumentParser(description=main.__doc__.splitlines()[0])
    p.add_argument("tags", nargs="+", help="results files' tags (quality-TAG.json)")
    p.add_argument("--docs", nargs="+", required=True, help="corpus ids (folder/name without .json)")
    p.add_argument("--strategy", default="notes")
    p.add_argument("--model", default="qwen1.5b", help="as bench.quality's --model")
    p.add_argument("--n-ctx", type=int, default=8192)
    args = p.parse_args(argv)
    results = Path(__file__).parent / "results"
    runs = {tag: json.loads((results / f"quality-{tag}.json").read_text(encoding="utf-8"))["runs"] for tag in args.tags}
    shared, model = SharedRuntime(), model_path(args.model)
    for doc_id in args.docs:
        doc = load_doc(doc_id)
        for tag, tag_runs in runs.items():
            summary = next((r["summary"] for r in tag_runs if r["doc"] == doc_id and r["strategy"] == args.strategy),
                           None)
            if summary is None:
                print(f"{doc_id}\t{tag}\t(no {args.strategy} run)")
                continue
            got = answered(shared, model, doc, summary, args.n_ctx)
            print(f"{doc_id}\t{tag}\t{got['answerability']}\t{len(summary)} chars", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
