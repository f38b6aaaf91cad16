"""How well the second reading separates hand-labelled faithful lines from unfaithful ones, passage by passage.

The second reading (engine.summary.second_reading) asks the model whether a line's passage says it and weighs
the answer. This replays it on the labelled lines of bench/labels (each row's passage cut from its corpus
document around its quotes, as the account cuts it from the part) under each way of building the passage,
and reports the area under the curve and what each margin would refuse, for meetings and stories apart.

    python -m bench.reading_probe bench/labels/account-faithfulness.jsonl bench/labels/second-reading.jsonl \\
        --model ~/.cache/precis-build/models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf --out /tmp/probe.json

A model process: run it alone on the machine. English rows only (the reading is English only).
"""
from __future__ import annotations

import argparse
import bisect
import json
import re
import sys
import time
from pathlib import Path

from bench.faithfulness_sample import _document_text

# passage builders by name: (part, spans) -> passage
VARIANTS = {
    "refs80": lambda part, spans: _passage(part, spans),
    "refs80+turns": lambda part, spans: _passage_with_turns(part, spans),
}
MARGINS = (-1.0, -0.5, 0.0)
SPEAKER_REACH_CHARS = 200      # a turn's label this far before a stretch's start: the stretch starts at it
WHO_QUESTION = "Who does this in the text? Answer with the letter only."


def _passage(part, spans):
    from precis.engine.summary.second_reading import passage_of
    return passage_of(part, spans)


def _passage_with_turns(part: str, spans) -> str:
    """As the product's passage, but each stretch says whose turn it opens in: it starts at the turn's label
    when that is near, else opens with "Speaker: ..." (a transcript; a story's passage is the product's)."""
    from precis.engine.summary.alignment import turn_labels
    from precis.engine.summary.second_reading import PASSAGE_MAX_CHARS, PASSAGE_PAD_CHARS
    labels = turn_labels(part)

    def turn_at(offset):
        at = bisect.bisect_right(labels, (offset, "\uffff")) - 1
        return labels[at] if at >= 0 else None

    merged: list[list[int]] = []
    for start, end in sorted(spans):
        start, end = max(0, start - PASSAGE_PAD_CHARS), min(len(part), end + PASSAGE_PAD_CHARS)
        label = turn_at(start)
        if label is not None and start - label[0] <= SPEAKER_REACH_CHARS:
            start = label[0]
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    pieces = []
    for start, end in merged:
        label = turn_at(start)
        opener = f"{label[1]}: ... " if label is not None and label[0] < start else ""
        pieces.append(opener + part[start:end])
    return "\n...\n".join(pieces)[:PASSAGE_MAX_CHARS]


WHO_SYSTEM = "You read a meeting transcript and say who did what."


def who_messages(passage: str, masked_line: str, speakers: list[str], shared_system: bool = True) -> list[dict]:
    """The line with its speaker taken out, and the passage's speakers as lettered choices. ``shared_system``:
    the yes/no reading's system message, so a runtime would reuse the passage's tokens for this question (area
    0.53); else one of its own (0.64-0.70: docs/quality-checks.md, "Telling the reader who spoke")."""
    from precis.engine.prompts.second_reading import SYSTEM
    choices = "\n".join(f"{chr(65 + i)}) {name}" for i, name in enumerate(speakers))
    return [{"role": "system", "content": SYSTEM if shared_system else WHO_SYSTEM},
            {"role": "user", "content": f"Text:\n<<<\n{passage}\n>>>\n\nStatement: {masked_line}\n\n"
                                        f"{WHO_QUESTION}\n{choices}"}]


def masked(line: str, who: str) -> str:
    """The line with the speaker it opens with (and its article, "team", "Designer" ...) as "Someone"."""
    from precis.engine.summary.checks.meaning import speaker_opening_end
    body = line.lstrip()
    return "Someone " + body[speaker_opening_end(body, who):].lstrip()


def quote_spans(text: str, quotes: list[str]) -> list[tuple[int, int]]:
    """Where each quote is in ``text``: exactly, else with any run of whitespace matching any other."""
    spans = []
    for quote in quotes:
        quote = quote.strip()
        if not quote:
            continue
        at = text.find(quote)
        if at >= 0:
            spans.append((at, at + len(quote)))
            continue
        pattern = r"\s+".join(re.escape(w) for w in quote.split())
        found = re.search(pattern, text)
        if found:
            spans.append(found.span())
    return spans


def labelled_rows(paths: list[Path]) -> list[dict]:
    """English rows with a verdict and quotes, each line once (the first label of it stands)."""
    rows, seen = [], set()
    for path in paths:
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            key = (row["doc"], row["sentence"])
            if key in seen or not isinstance(row.get("faithful"), bool) or not row.get("quotes"):
                continue
            if any("\u3040" <= c <= "\u9fff" for c in row["sentence"]):
                continue
            seen.add(key)
            rows.append(row)
    return rows


def auc(scored: list[tuple[float, bool]]) -> float:
    """Area under the curve of ``margin`` ranking unfaithful (False) lines above faithful ones."""
    bad = [m for m, ok in scored if not ok]
    good = [m for m, ok in scored if ok]
    if not bad or not good:
        return float("nan")
    wins = sum((b > g) + 0.5 * (b == g) for b in bad for g in good)
    return wins / (len(bad) * len(good))


def report(results: dict[str, list[dict]]) -> str:
    out = []
    for variant, rows in results.items():
        for kind in ("meetings", "stories", "all"):
            scored = [(r["margin"], r["faithful"]) for r in rows if kind == "all" or r["kind"] == kind]
            if not scored:
                continue
            bad = sum(1 for _, ok in scored if not ok)
            good = len(scored) - bad
            cells = [f"{sum(1 for m, ok in scored if not ok and m > t)}/{bad} vs "
                     f"{sum(1 for m, ok in scored if ok and m > t)}/{good} at {t:+.1f}" for t in MARGINS]
            seconds = sum(r["seconds"] for r in rows if kind == "all" or r["kind"] == kind)
            out.append(f"{variant:14} {kind:8} AUC {auc(scored):.3f}  refused unfaithful vs faithful: "
                       + "; ".join(cells) + f"  ({seconds / len(scored):.2f} s a line)")
    return "\n".join(out)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("labels", nargs="+", type=Path)
    parser.add_argument("--model", type=Path, required=True)
    parser.add_argument("--n-ctx", type=int, default=8192)
    parser.add_argument("--variants", nargs="+", default=list(VARIANTS), choices=list(VARIANTS))
    parser.add_argument("--out", type=Path, help="every row's margins (JSON), read back by --report")
    parser.add_argument("--report", action="store_true", help="only report --out's margins")
    parser.add_argument("--who", action="store_true",
                        help="instead: the meeting lines' speaker masked, the model picks among the passage's")
    parser.add_argument("--who-own-system", action="store_true",
                        help="--who with a system message of its own, not the yes/no reading's")
    args = parser.parse_args(argv)
    if args.who:
        return who_main(args)
    if args.report:
        print(report(json.loads(args.out.read_text(encoding="utf-8"))))
        return 0

    from precis.engine.prompts.layout import PromptRenderer
    from precis.engine.prompts.second_reading import NO, YES, reading_messages
    from precis.engine.runtime.llama import LlamaRuntime
    from precis.engine.runtime.settings import RuntimeSettings

    rows = labelled_rows(args.labels)
    texts: dict[str, str] = {}
    results: dict[str, list[dict]] = {v: [] for v in args.variants}
    with LlamaRuntime.load(args.model, RuntimeSettings(n_ctx=args.n_ctx)) as runtime:
        renderer = PromptRenderer(runtime)
        for i, row in enumerate(rows):
            text = texts.setdefault(row["doc"], _document_text(row["doc"]))
            spans = quote_spans(text, row["quotes"])
            if not spans:
                print(f"skipped (quotes not found): {row['doc']} {row['sentence'][:60]}", file=sys.stderr)
                continue
            kind = "meetings" if row["doc"].startswith("qmsum") else "stories"
            weighed: dict[str, tuple[float, float]] = {}     # a passage two variants build alike: read once
            for variant in args.variants:
                passage = VARIANTS[variant](text, spans)
                if passage not in weighed:
                    started = time.perf_counter()
                    found = runtime.answer_logprobs(
                        renderer.render(reading_messages(passage, row["sentence"])), (YES, NO))
                    weighed[passage] = (found[NO] - found[YES], time.perf_counter() - started)
                margin, seconds = weighed[passage]
                results[variant].append({"doc": row["doc"], "sentence": row["sentence"], "kind": kind,
                                         "faithful": row["faithful"], "margin": margin, "seconds": seconds})
            if i % 20 == 0:
                print(f"{i}/{len(rows)}", file=sys.stderr)
    if args.out:
        args.out.write_text(json.dumps(results, indent=1), encoding="utf-8")
    print(report(results))
    return 0


def passage_speakers(passage: str) -> list[str]:
    """The speakers whose turns the passage shows, in the order met."""
    from precis.engine.documents.spoken_text import SPEAKER_PREFIX, speaker_name, speaker_of
    found = []
    for line in passage.split("\n"):
        label = SPEAKER_PREFIX.match(line)
        if label and (name := speaker_name(speaker_of(label.group(0)))) not in found:
            found.append(name)
    return found


def who_main(args) -> int:
    from precis.engine.prompts.layout import PromptRenderer
    from precis.engine.runtime.llama import LlamaRuntime
    from precis.engine.runtime.settings import RuntimeSettings
    from precis.engine.summary.checks.meaning import opening_speaker

    rows = [r for r in labelled_rows(args.labels) if r["doc"].startswith("qmsum")]
    out = []
    with LlamaRuntime.load(args.model, RuntimeSettings(n_ctx=args.n_ctx)) as runtime:
        renderer = PromptRenderer(runtime)
        for row in rows:
            text = _document_text(row["doc"])
            who = opening_speaker(row["sentence"], text)
            spans = quote_spans(text, row["quotes"])
            if who is None or not spans:
                continue
            passage = _passage_with_turns(text, spans)
            speakers = passage_speakers(passage)
            if who not in speakers:
                speakers.append(who)
            if len(speakers) < 2:
                continue
            letters = [chr(65 + i) for i in range(len(speakers))]
            started = time.perf_counter()
            found = runtime.answer_logprobs(
                renderer.render(who_messages(passage, masked(row["sentence"], who), speakers,
                                             shared_system=not args.who_own_system)), letters)
            mine = found[letters[speakers.index(who)]]
            other = max(v for k, v in found.items() if k != letters[speakers.index(who)])
            out.append({"doc": row["doc"], "sentence": row["sentence"], "who": who, "speakers": speakers,
                        "faithful": row["faithful"], "why": row.get("why", ""), "margin": other - mine,
                        "picked": speakers[letters.index(max(found, key=found.get))],
                        "seconds": time.perf_counter() - started})
    if args.out:
        args.out.write_text(json.dumps(out, indent=1), encoding="utf-8")
    scored = [(r["margin"], r["faithful"]) for r in out]
    bad = sum(1 for _, ok in scored if not ok)
    print(f"who: {len(out)} meeting lines opening with a speaker, {bad} unfaithful; AUC {auc(scored):.3f}")
    for t in (-1.0, 0.0, 1.0, 2.0):
        print(f"  other speaker likelier by more than {t:+.1f}: "
              f"{sum(1 for m, ok in scored if not ok and m > t)}/{bad} unfaithful, "
              f"{sum(1 for m, ok in scored if ok and m > t)}/{len(scored) - bad} faithful")
    return 0


if __name__ == "__main__":
    sys.exit(main())
