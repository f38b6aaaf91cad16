"""A hand-labelled sample of the account's sentences: is each one faithful to the document?

The checks (engine.summary.checks) decide by words whether a sentence rests on the sentences it is linked to;
whether it says what they say is a reader's call. This draws sentences from kept account runs, shows each with
the document's sentences it cites and the text around them, and scores the labels a person wrote.

    python -m bench.faithfulness_sample draw KEEP_DIR --per-doc 10 --out bench/labels/NAME.jsonl
    (label: set "faithful" to true or false and "why" for each line, by reading its quotes and context)
    python -m bench.faithfulness_sample score bench/labels/NAME.jsonl
    python -m bench.faithfulness_sample replay bench/labels/NAME.jsonl KEEP_DIR...   (today's checks on them:
    bench.account_replay)

Two runs' lines, labelled blind (a change measured beside the code before it):

    python -m bench.faithfulness_sample pair PAIR_DIR before=KEEP_DIR after=KEEP_DIR --strategy notes
    (a labeller per document reads PAIR_DIR/<document>.items.json and .document.txt and writes
    PAIR_DIR/<document>.labels.jsonl: {"id", "faithful", "why"} per item; the key is PAIR_DIR.key.json, beside
    the folder, not in it)
    python -m bench.faithfulness_sample collect PAIR_DIR --labels-out bench/labels/NAME.jsonl --commit "..." --by "..."

KEEP_DIR is a `bench.quality --keep` folder. A line is drawn evenly over each document's account (seeded), so
every part has its chance; a line told by the part's checked notes (``from_notes``) is drawn like the others.
"faithful": the sentence says only what its quotes and their context say, with who did what to whom as they
have it; a sentence vague to the point of saying nothing of the document ("The team discusses the design") is
faithful but marked "vague" in ``why``: the labels count what is wrong, the reader's time is counted elsewhere.
"""
from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

CONTEXT_CHARS = 300         # the document's text either side of a cited sentence, shown to the labeller


def account_runs(keep: Path, strategy: str = "account"):
    """(document name, the document's text, lines, notes by id) of every run of ``strategy`` kept under
    ``keep``: the account's, or the notes strategy's (its lines are the summary's headings and bullets, each
    bullet with the notes it rests on)."""
    for run_json in sorted(keep.glob("data/runs/*/*-run.json")):
        run = json.loads(run_json.read_text(encoding="utf-8"))
        if run.get("strategy") != strategy:
            continue
        state = json.loads((run_json.parent / "state.json").read_text(encoding="utf-8"))
        for doc in run["documents"]:
            name = doc["name"]
            lines = state["evidence"].get(name) or []
            notes = {n["id"]: n for n in state["notes"].get(name) or []}
            yield name, _document_text(name), lines, notes


def _document_text(name: str) -> str:
    """The development document a bench run named ``name`` (its id with "/" as "__"; the run's own copy of it
    was in a folder that is gone)."""
    from bench.quality import CORPUS
    def key(text: str) -> str:          # the run's name doubles some underscores: compare without them
        return text.replace("_", "")
    for path in CORPUS.glob("*/*.json"):
        if key(f"{path.parent.name}{path.stem}.txt") == key(name):
            return json.loads(path.read_text(encoding="utf-8"))["text"]
    # the run is named by the document's own id, which for some folders is not the folder's name
    # ("poliinfo/tokyo-assembly_2020-02-26" in poliinfo_tokyo/, "momo/..." in momo_project_log/)
    for path in CORPUS.glob("*/*.json"):
        data = json.loads(path.read_text(encoding="utf-8"))
        if key(str(data.get("id", "")).replace("/", "") + ".txt") == key(name):
            return data["text"]
    return ""


def draw(keep: Path, per_doc: int, seed: int, strategy: str = "account") -> list[dict]:
    rng = random.Random(seed)
    out = []
    for name, text, lines, notes in account_runs(keep, strategy):
        # a heading rests on no note and says nothing to label; "line" stays the line's place in the run's list
        said = [(i, line) for i, line in enumerate(lines) if line.get("notes")]
        if not said:
            continue
        step = len(said) / min(per_doc, len(said))
        picks = sorted({min(len(said) - 1, int(k * step + rng.random() * step)) for k in range(per_doc)})
        for k in picks:
            i, line = said[k]
            cited = [notes[n] for n in line["notes"] if n in notes]
            part = line.get("part", cited[0].get("part") if cited else None)
            out.append({"doc": name, "line": i, "part": part, "sentence": line["text"].removeprefix("- "),
                        "from_notes": line.get("from_notes", False),
                        "quotes": [n["quote"] for n in cited],
                        "context": [text[max(0, n["start_char"] - CONTEXT_CHARS):n["end_char"] + CONTEXT_CHARS]
                                    for n in cited] if text else [],
                        "faithful": None, "why": ""})
    return out


def pair(out: Path, runs: dict[str, list[Path]], strategy: str = "notes", seed: int = 11,
         only: str = "") -> dict[str, list[dict]]:
    """Every bullet of each labelled run's summaries (``runs``: label -> kept folders), per document, merged (a
    bullet both runs hold, with the same quotes, is one item) and shuffled, written to ``out`` as
    <document>.items.json (id, sentence, quotes, context: nothing says which run holds it) with the document as
    <document>.document.txt; returns the key, per document the items in their order with the runs holding each
    (``in``), written to ``out``.key.json beside the folder. ``only``: documents whose name holds it."""
    out.mkdir(parents=True, exist_ok=True)
    docs: dict[str, dict] = {}
    for label, keeps in runs.items():
        for keep in keeps:
            for name, text, lines, notes in account_runs(keep, strategy):
                if only not in name:
                    continue
                entry = docs.setdefault(name, {"text": text, "items": {}})
                for line in lines:
                    if not line["text"].startswith("- "):
                        continue                                   # bullets only: a heading cites nothing
                    cited = [notes[n] for n in line["notes"] if n in notes]
                    item_key = (line["text"].removeprefix("- "), tuple(n["quote"] for n in cited))
                    item = entry["items"].setdefault(item_key, {
                        "sentence": item_key[0], "quotes": list(item_key[1]),
                        "spans": [(n["start_char"], n["end_char"]) for n in cited], "in": []})
                    if label not in item["in"]:
                        item["in"].append(label)
    key: dict[str, list[dict]] = {}
    for name, entry in docs.items():
        items = list(entry["items"].values())
        random.Random(seed).shuffle(items)
        text, stem = entry["text"], name.removesuffix(".txt")
        shown = [{"id": j, "sentence": it["sentence"], "quotes": it["quotes"],
                  "context": [text[max(0, a - CONTEXT_CHARS):b + CONTEXT_CHARS] for a, b in it["spans"]]}
                 for j, it in enumerate(items)]
        (out / f"{stem}.items.json").write_text(json.dumps(shown, indent=1, ensure_ascii=False), encoding="utf-8")
        (out / f"{stem}.document.txt").write_text(text, encoding="utf-8")
        key[stem] = [{"doc": name, "sentence": it["sentence"], "quotes": it["quotes"], "in": it["in"]}
                     for it in items]
    Path(f"{out}.key.json").write_text(json.dumps(key, indent=1, ensure_ascii=False), encoding="utf-8")
    return key


def collect(out: Path, key: dict[str, list[dict]], commit: str, labelled_by: str,
            strategy: str = "notes") -> tuple[list[dict], dict[str, dict[str, str]]]:
    """The labels written in ``out`` joined to the ``key``: rows as bench/labels keeps them (``in_runs``: the runs
    holding the line), and per document and run the faithful lines of the labelled ones ("14/22"). A document
    with no labels file is left out."""
    rows, counts = [], {}
    for stem, items in key.items():
        path = out / f"{stem}.labels.jsonl"
        if not path.exists():
            continue
        labels = {r["id"]: r for r in (json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()
                                        if line.strip())}
        tally: dict[str, list[int]] = {}
        for j, item in enumerate(items):
            label = labels.get(j)
            if label is None:
                continue
            rows.append({"doc": item["doc"], "sentence": item["sentence"], "kept": True, "refused_by": [],
                         "doubt": None, "from_notes": False, "part": None, "quotes": item["quotes"],
                         "faithful": bool(label["faithful"]), "why": label.get("why", ""), "in_runs": item["in"],
                         "commit": commit, "strategy": strategy, "labelled_by": labelled_by})
            for run in item["in"]:
                t = tally.setdefault(run, [0, 0])
                t[0] += bool(label["faithful"])
                t[1] += 1
        counts[stem] = {run: f"{a}/{b}" for run, (a, b) in tally.items()}
    return rows, counts


def score(rows: list[dict]) -> dict:
    """The faithful share of the account's labelled lines. Rows of bench/labels/second-reading.jsonl and
    later carry ``kept``: the lines the second reading (or, with ``refused_by``, the checks named there)
    refused are not the account's and are scored apart, by what refused them."""
    refused = [r for r in rows if r.get("faithful") is not None and r.get("kept") is False]
    labelled = [r for r in rows if r.get("faithful") is not None and r.get("kept") is not False]
    by_doc: dict[str, list[bool]] = {}
    for r in labelled:
        by_doc.setdefault(r["doc"], []).append(bool(r["faithful"]))
    return {"labelled": len(labelled), "documents": len(by_doc),
            "faithful_share": round(sum(r["faithful"] for r in labelled) / max(1, len(labelled)), 3),
            "vague": sum("vague" in r.get("why", "").lower() for r in labelled),
            "by_doc": {d: f"{sum(v)}/{len(v)}" for d, v in by_doc.items()},
            "unfaithful": [{"doc": r["doc"], "sentence": r["sentence"], "why": r["why"]}
                           for r in labelled if not r["faithful"]],
            **({f"refused_by_{name}_faithful": f"{sum(r['faithful'] for r in group)}/{len(group)}"
                for name, group in _by_refusal(refused).items()})}


def _by_refusal(refused: list[dict]) -> dict[str, list[dict]]:
    """Refused rows by the check that refused them: a row refused by several counts under each."""
    groups: dict[str, list[dict]] = {}
    for r in refused:
        for name in r.get("refused_by") or ["second_reading"]:
            groups.setdefault(name, []).append(r)
    return groups


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.faithfulness_sample", description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="command", required=True)
    d = sub.add_parser("draw", help="draw sentences from kept account runs")
    d.add_argument("keep", type=Path)
    d.add_argument("--per-doc", type=int, default=10)
    d.add_argument("--seed", type=int, default=0)
    d.add_argument("--strategy", default="account", help="account (default) or notes: whose lines to draw")
    d.add_argument("--out", type=Path, required=True)
    s = sub.add_parser("score", help="the share of labelled sentences that are faithful")
    s.add_argument("labels", type=Path)
    r = sub.add_parser("replay", help="today's checks on the labelled sentences, their claims rebuilt from kept runs")
    r.add_argument("labels", type=Path)
    r.add_argument("keep", type=Path, nargs="+", help="folders holding the labelled lines' kept account runs")
    pr = sub.add_parser("pair", help="two runs' bullets merged and shuffled per document, for a blind labeller")
    pr.add_argument("out", type=Path)
    pr.add_argument("runs", nargs="+", help="LABEL=KEEP_DIR[,KEEP_DIR...] for each run")
    pr.add_argument("--strategy", default="notes")
    pr.add_argument("--seed", type=int, default=11)
    pr.add_argument("--only", default="", help="documents whose name holds this")
    c = sub.add_parser("collect", help="a pair folder's labels joined to its key: label rows and each run's counts")
    c.add_argument("out", type=Path)
    c.add_argument("--key", type=Path, help="the pair's key (default: OUT.key.json)")
    c.add_argument("--labels-out", type=Path, required=True)
    c.add_argument("--commit", required=True, help="the runs' commits, as the rows should name them")
    c.add_argument("--by", required=True, help="who labelled, and how")
    c.add_argument("--strategy", default="notes")
    args = p.parse_args(argv)
    if args.command == "pair":
        if any("=" not in arg for arg in args.runs):
            p.error("each run is LABEL=KEEP_DIR[,KEEP_DIR...], for example before=/tmp/keep-base")
        runs = {label: [Path(k) for k in keeps.split(",")]
                for label, keeps in (arg.split("=", 1) for arg in args.runs)}
        key = pair(args.out, runs, args.strategy, args.seed, args.only)
        for stem, items in key.items():
            print(stem, len(items), "items", {label: sum(label in it["in"] for it in items) for label in runs})
        print(f"key: {args.out}.key.json (keep it from the labellers)")
        return 0
    if args.command == "collect":
        key = json.loads((args.key or Path(f"{args.out}.key.json")).read_text(encoding="utf-8"))
        rows, counts = collect(args.out, key, args.commit, args.by, args.strategy)
        args.labels_out.parent.mkdir(parents=True, exist_ok=True)
        args.labels_out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
        json.dump(counts, sys.stdout, indent=1, ensure_ascii=False)
        print(f"\n{len(rows)} rows -> {args.labels_out}")
        return 0
    if args.command == "draw":
        rows = draw(args.keep, args.per_doc, args.seed, args.strategy)
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
        print(f"{len(rows)} sentences from {len({r['doc'] for r in rows})} documents -> {args.out}")
        return 0
    rows = [json.loads(line) for line in args.labels.read_text(encoding="utf-8").splitlines() if line.strip()]
    if args.command == "replay":
        from bench.account_replay import replayed, report
        print(report(*replayed(rows, args.keep)))
        return 0
    json.dump(score(rows), sys.stdout, indent=1, ensure_ascii=False)
    print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
