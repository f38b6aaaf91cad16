"""A blind reading: a development document's human summary and two summaries of it, as A and B in random order.

Usage: python -m bench.blind_reading RESULTS.json [MORE.json ...] --pair account plain --out DIR
       [--docs ID ...] [--seed N]

Several results files are read in order, a later file's summary of a document by a strategy replacing an
earlier one's: so a pair can set a strategy's newest run (the account at one commit) beside another strategy's
run of another day (the notes strategy's). For each document of the results that has both strategies'
summaries (and a human summary), writes DIR/<doc>.md (the human summary, then "Summary A" and "Summary B",
references stripped, nothing that tells which strategy wrote which) and DIR/key.json (which strategy is A and
which B, per document, and which results file each came from: kept apart, read only after the verdicts are
written down). The reader is told only: "Which of A and B tells the document better, as the human summary
tells it? Say A or B, and why." Their verdicts go to docs/quality.md with the key revealed.

``--both-orders`` also writes DIR/<doc>.swapped.md, the same pair with A and B exchanged, for a second fresh
reader: at seeds 88 and 89 all nine verdicts were "A", so a verdict read in one order may be the order's.
``tally`` counts a pair for a side only when both of its readers chose it, else as no preference.
"""
from __future__ import annotations

import argparse
import json
import random
import re
import sys
from pathlib import Path

_REFS = re.compile(r"\s*\[\d{1,5}(?:, ?\d{1,5})*\]")
QUESTION = ("Which of the two summaries, A or B, tells this document better, as the human summary tells it: who "
            "and what, what happens or was decided and why, how it ends, in sentences a reader can follow, with "
            "nothing the document does not say? Answer with A or B first, then your reasons in a few sentences.")


def stripped(summary: str) -> str:
    return "\n".join(_REFS.sub("", line) for line in summary.splitlines()).strip()


def merged(results_files: list[tuple[str, dict]]) -> dict:
    """One results dict of several (name, results), in order: a later run of the same document and strategy
    replaces an earlier one (each run keeps the name of the file it came from in "from")."""
    runs: dict[tuple[str, str], dict] = {}
    for name, results in results_files:
        for run in results["runs"]:
            runs[(run["doc"], run["strategy"])] = {**run, "from": name}
    return {"runs": list(runs.values())}


def write_pairs(results: dict, pair: tuple[str, str], out: Path, docs: list[str] | None, seed: int,
                corpus: Path, both_orders: bool = False) -> dict:
    rng = random.Random(seed)
    by_doc: dict[str, dict[str, str]] = {}
    came_from: dict[str, dict[str, str]] = {}
    for run in results["runs"]:
        by_doc.setdefault(run["doc"], {})[run["strategy"]] = run["summary"]
        if "from" in run:
            came_from.setdefault(run["doc"], {})[run["strategy"]] = run["from"]
    out.mkdir(parents=True, exist_ok=True)
    key = {}
    for doc_id, summaries in by_doc.items():
        if docs and doc_id not in docs or not all(s in summaries for s in pair):
            continue
        data = json.loads((corpus / f"{doc_id}.json").read_text(encoding="utf-8"))
        references = [r["text"] for r in data.get("references") or []]
        if not references:
            continue
        order = list(pair)
        rng.shuffle(order)
        key[doc_id] = {"A": order[0], "B": order[1]}
        if doc_id in came_from:
            key[doc_id]["from"] = {s: came_from[doc_id][s] for s in pair if s in came_from[doc_id]}
        name = doc_id.replace("/", "__")
        orders = [("", order)] + ([(".swapped", order[::-1])] if both_orders else [])
        for suffix, (first, second) in orders:
            text = [f"# {data.get('title') or name}", "", "## The human summary", "", references[0].strip(), "",
                    "## Summary A", "", stripped(summaries[first]), "",
                    "## Summary B", "", stripped(summaries[second]),
                    "", "## The question", "", QUESTION, ""]
            (out / f"{name}{suffix}.md").write_text("\n".join(text), encoding="utf-8")
        if both_orders:
            key[doc_id]["swapped"] = {"A": order[1], "B": order[0]}
    (out / "key.json").write_text(json.dumps(key, indent=1) + "\n", encoding="utf-8")
    return key


def tally(key: dict, verdicts: dict[str, str]) -> dict[str, str]:
    """Per document, the side both its readers chose, or "none": ``verdicts`` maps a page's name ("ectsum__val_DG",
    "ectsum__val_DG.swapped") to the letter its reader answered; a document read in one order counts as read."""
    found = {}
    for doc_id, entry in key.items():
        name = doc_id.replace("/", "__")
        sides = {entry[verdicts[name]]} if name in verdicts else set()
        if "swapped" in entry and f"{name}.swapped" in verdicts:
            sides.add(entry["swapped"][verdicts[f"{name}.swapped"]])
        found[doc_id] = sides.pop() if len(sides) == 1 else "none"
    return found


def main(argv: list[str] | None = None) -> int:
    from bench.quality import CORPUS
    p = argparse.ArgumentParser(prog="python -m bench.blind_reading", description=__doc__.split("\n\n")[0])
    p.add_argument("results", type=Path, nargs="+")
    p.add_argument("--pair", nargs=2, default=["account", "plain"])
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--docs", nargs="+", default=None)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--both-orders", action="store_true", help="also write each pair with A and B exchanged")
    args = p.parse_args(argv)
    results = merged([(path.stem, json.loads(path.read_text(encoding="utf-8"))) for path in args.results])
    key = write_pairs(results, tuple(args.pair), args.out, args.docs, args.seed, CORPUS, args.both_orders)
    print(f"{len(key)} pairs in {args.out} (the key in {args.out / 'key.json'}: read it after the verdicts)",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
