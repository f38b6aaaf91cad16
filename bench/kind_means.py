"""The README's check-half rows: each kind's mean over its documents, per strategy, from results files.

Usage: python -m bench.kind_means RESULTS.json [MORE.json ...] [--docs ID ...]

Several files are read in order, a later run of a document by a strategy replacing an earlier one (as
bench/blind_reading.py merges them), so a table can set runs of different days side by side. Per kind and
strategy: the documents, the mean length, the mean fact recall (ROUGE-1 for the kinds without question/answer
pairs), the mean answerability of the documents it was measured on (and how many), and the seconds summed.
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

from bench.blind_reading import merged
from bench.quality_table import _mean


def kind_means(runs: list[dict], docs: list[str] | None = None) -> list[dict]:
    """One row per (kind, strategy), in order of first appearance."""
    groups: dict[tuple[str, str], list[dict]] = {}
    for run in runs:
        if docs is None or run["doc"] in docs:
            groups.setdefault((run["kind"], run["strategy"]), []).append(run)
    rows = []
    for (kind, strategy), group in groups.items():
        recall = _mean([r.get("fact_recall") for r in group])
        answered = [r["answerability"] for r in group if r.get("answerability") is not None]
        rows.append({"kind": kind, "strategy": strategy, "docs": len(group),
                     "chars": _mean([r["chars"] for r in group]),
                     "measure": "fact recall" if recall is not None else "ROUGE-1",
                     "value": recall if recall is not None else _mean([r.get("rouge1") for r in group]),
                     "answerability": _mean(answered), "answered": len(answered),
                     "seconds": sum(r["seconds"] for r in group)})
    return rows


def markdown(rows: list[dict]) -> str:
    lines = ["| kind | strategy | documents | chars | fact recall or ROUGE-1 | answerability (documents) | seconds |",
             "|---|---|---|---|---|---|---|"]
    for r in rows:
        value = "–" if r["value"] is None else f"{r['value']:.3f} ({r['measure']})"
        answer = "–" if r["answerability"] is None else f"{r['answerability']:.3f} ({r['answered']})"
        lines.append(f"| {r['kind']} | {r['strategy']} | {r['docs']} | {r['chars']:,.0f} | {value} | {answer} | "
                     f"{r['seconds']:,.0f} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("results", type=Path, nargs="+")
    p.add_argument("--docs", nargs="+", default=None)
    args = p.parse_args(argv)
    runs = merged([(f.name, json.loads(f.read_text(encoding="utf-8"))) for f in args.results])["runs"]
    print(markdown(kind_means(runs, args.docs)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
