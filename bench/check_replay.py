"""The named checks' error rates on the hand-labelled rewordings: per check, how many it refuses and how many of
those were fair (false positives), and the unfair rewordings no check catches. No model is loaded.

Usage: python -m bench.check_replay [--labels bench/labels/rewordings.jsonl] [--markdown]

Each row of the labelled set (bench/labels/rewordings.jsonl) is a note the 1.5B model wrote in a development run:
the sentence as the model was shown it, the sentence as the document writes it, the rewording, the language
asked, where its part lies in its document, and whether it is fair, with why. A rewording is judged as the
notes strategy judges it (engine.summary.notes_extraction.rewording_verdict: a proposal the sentence does not
make, or does not make in so many words, said plainly first, then every check of kind REWORDING), and its label
is of the note as Precis would keep it. The part is read from the development corpus (../shared/corpora/dev)
or the repository (the sample day); without it, the sentence stands for its part (said in the output). Form
checks refuse some fair notes by design: a copy of its sentence is no rewording, a word is no note.
"""
from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

from bench.quality import CORPUS, ROOT

LABELS = ROOT / "bench" / "labels" / "rewordings.jsonl"


def load_rows(path: Path = LABELS) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _document_text(doc: str, cache: dict) -> str | None:
    if doc not in cache:
        path = ROOT / doc if doc.startswith("resources/") else CORPUS / f"{doc}.json"
        if not path.exists():
            cache[doc] = None
        elif path.suffix == ".json":
            cache[doc] = json.loads(path.read_text(encoding="utf-8"))["text"]
        else:
            cache[doc] = path.read_text(encoding="utf-8")
    return cache[doc]


def judged(rows: list[dict]) -> tuple[list[dict], int]:
    """Each row with ``checks``: the names of the checks that refuse it; and how many rows lacked their part."""
    from precis.engine.summary.notes_extraction import rewording_verdict
    cache: dict = {}
    partless = 0
    out = []
    for row in rows:
        text = _document_text(row["doc"], cache)
        if text is None:
            partless += 1
            part = row["sentence"]
        else:
            part = text[row["part"][0]:row["part"][1]]
        # the meeting's worked example, the one every labelled rewording was asked after (a report's came later)
        _, verdict = rewording_verdict(row["rewording"], row["sentence"], row["quote"], part, row["language"])
        out.append(dict(row, checks=verdict.names))
    return out, partless


def table(rows: list[dict]) -> list[dict]:
    """Per check of a rewording (in the registry's order): its theme, rows refused, of those fair, refused by it
    alone (no other check would have refused them), and its false positives alone."""
    from precis.engine.summary.checks import REWORDING, registered
    found = []
    for check in registered():
        if REWORDING not in check.applies_to:
            continue
        refused = [r for r in rows if check.name in r["checks"]]
        alone = [r for r in refused if len(r["checks"]) == 1]
        found.append({"check": check.name, "theme": check.test.__module__.rsplit(".", 1)[-1],
                      "languages": ",".join(sorted(check.languages)) if check.languages else "any",
                      "refused": len(refused), "fair": sum(r["fair"] for r in refused),
                      "alone": len(alone), "fair_alone": sum(r["fair"] for r in alone)})
    return found


def summary(rows: list[dict]) -> dict:
    def share(a: int, b: int) -> str:
        return f"{a}/{b}" + (f" ({a / b:.0%})" if b else "")
    out = {}
    for lang in ("en", "ja", "all"):
        some = [r for r in rows if lang in ("all", r["lang"])]
        fair = [r for r in some if r["fair"]]
        unfair = [r for r in some if not r["fair"]]
        out[lang] = {"rows": len(some), "fair refused": share(sum(bool(r["checks"]) for r in fair), len(fair)),
                     "unfair refused": share(sum(bool(r["checks"]) for r in unfair), len(unfair))}
    return out


def markdown(rows: list[dict], partless: int) -> str:
    lines = ["| rows | fair ones refused (false positives) | unfair ones refused (caught) |", "|---|---|---|"]
    for lang, s in summary(rows).items():
        name = {"en": "English", "ja": "Japanese", "all": "all"}[lang]
        lines.append(f"| {name}: {s['rows']} | {s['fair refused']} | {s['unfair refused']} |")
    lines += ["", "| check | theme | reads | refuses | of those fair | refuses alone | of those fair |",
              "|---|---|---|---|---|---|---|"]
    for t in table(rows):
        lines.append(f"| `{t['check']}` | {t['theme']} | {t['languages']} | {t['refused']} | {t['fair']} | "
                     f"{t['alone']} | {t['fair_alone']} |")
    missed = [r for r in rows if not r["fair"] and not r["checks"]]
    lines += ["", f"Unfair rewordings no check catches ({len(missed)}):", ""]
    lines += [f"- {r['doc']}: \"{r['rewording']}\" ({r['why']})" for r in missed]
    if partless:
        lines += ["", f"{partless} rows were judged without their part (the development corpus was not found)."]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--labels", type=Path, default=LABELS)
    p.add_argument("--markdown", action="store_true", help="print the tables for docs/quality-checks.md")
    args = p.parse_args(argv)
    rows, partless = judged(load_rows(args.labels))
    if args.markdown:
        print(markdown(rows, partless))
        return 0
    for lang, s in summary(rows).items():
        print(f"{lang}: {s['rows']} rows; fair ones refused {s['fair refused']}; unfair ones refused "
              f"{s['unfair refused']}")
    print(f"{'check':24} {'theme':11} {'refused':>8} {'fair':>5} {'alone':>6} {'fair':>5}")
    for t in table(rows):
        print(f"{t['check']:24} {t['theme']:11} {t['refused']:>8} {t['fair']:>5} {t['alone']:>6} {t['fair_alone']:>5}")
    missed = [r for r in rows if not r["fair"] and not r["checks"]]
    print(f"unfair, refused by no check: {len(missed)}")
    for r in missed:
        print(f"  {r['rewording'][:90]!r}: {r['why'][:90]}")
    by_check = Counter(n for r in rows for n in r["checks"])
    print("refusals by check:", dict(by_check.most_common()))
    if partless:
        print(f"{partless} rows judged without their part (no development corpus)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
