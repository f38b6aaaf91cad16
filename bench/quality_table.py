"""docs/quality.md from a bench/quality.py results file: every document and strategy, the averages,
and the goals checked against the plain refine loop measured in the same run."""
from __future__ import annotations

import json
import sys
from pathlib import Path

COLUMNS = [("chars", "chars", "{:,.0f}"), ("fact_recall", "fact recall", "{:.2f}"), ("rouge1", "R-1", "{:.3f}"),
           ("rouge2", "R-2", "{:.3f}"), ("rougeL", "R-L", "{:.3f}"), ("numbers_kept", "numbers", "{:.2f}"),
           ("copy_rate", "copied", "{:.0%}"), ("scaffold_lines", "scaffold", "{:.3g}"),
           ("coverage", "coverage", "{:.2f}"),
           ("linked_share", "linked", "{:.0%}"), ("failed_rounds", "failed rounds", "{:.3g}"),
           ("salvaged_rounds", "salvaged", "{:.3g}"), ("seconds", "seconds", "{:,.0f}"),
           ("prompt_tokens_per_doc_token", "prompt tok/doc tok", "{:.2f}")]


def _cell(value, fmt: str) -> str:
    if value is None:
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    try:
        return fmt.format(value)
    except (ValueError, TypeError):
        return str(value)


def _mean(values):
    values = [v for v in values if v is not None]
    return sum(values) / len(values) if values else None


def _by_document(runs: list[dict]) -> dict[tuple[str, str], list[dict]]:
    """(document, strategy) -> its runs, one per seed."""
    grouped: dict[tuple[str, str], list[dict]] = {}
    for r in runs:
        grouped.setdefault((r["doc"], r["strategy"]), []).append(r)
    return grouped


def per_document(runs: list[dict]) -> dict[tuple[str, str], dict]:
    """(document, strategy) -> its run, or with several seeds the mean of their figures (a sampled strategy's
    one draw can move a document's fact recall by 0.07: docs/quality.md)."""
    by = {}
    for key, group in _by_document(runs).items():
        merged = dict(group[0])
        if len(group) > 1:
            for field in ("chars", "fact_recall", "seconds", "copy_rate", "coverage", "scaffold_lines", "linked_share",
                          "rouge1"):
                merged[field] = _mean([r.get(field) for r in group])
            merged["chars"] = round(merged["chars"])
        by[key] = merged
    return by


def seed_spread(runs: list[dict]) -> list[str]:
    """A line per document and strategy run with several seeds: each draw's fact recall (or ROUGE-1) and length."""
    lines = []
    for (doc, strategy), group in _by_document(runs).items():
        if len(group) < 2:
            continue
        key = "fact_recall" if group[0].get("fact_recall") is not None else "rouge1"
        draws = ", ".join(f"seed {r.get('seed', 0)}: {r[key]:.3f} in {r['chars']:,}" for r in group)
        values = [r[key] for r in group]
        lines.append(f"- {doc} · {strategy}, {key.replace('_', ' ')}: {draws} (mean {_mean(values):.3f}, "
                     f"range {max(values) - min(values):.3f})")
    return lines


def goals(results: dict) -> list[str]:
    runs = results["runs"]
    by = per_document(runs)
    docs = sorted({r["doc"] for r in runs})
    lines = []
    if any(r["strategy"] == "plain" for r in runs) and any(r["strategy"] == "notes" for r in runs):
        meetings = [d for d in docs if by.get((d, "notes")) and by.get((d, "plain"))
                    and by[(d, "notes")]["kind"] == "meeting_transcript" and by[(d, "notes")]["lang"] == "en"]
        for d in meetings:
            n, p = by[(d, "notes")], by[(d, "plain")]
            lines.append(f"- {d}: fact recall {n['fact_recall']:.3f} vs plain {p['fact_recall']:.3f} "
                         f"({n['fact_recall'] - p['fact_recall']:+.3f}; goal +0.10), length {n['chars']:,} vs "
                         f"{p['chars']:,} characters (goal: no longer)")
        with_qa = [d for d in docs if by.get((d, "notes")) and by.get((d, "plain"))
                   and by[(d, "notes")]["fact_recall"] is not None]
        if with_qa:
            notes_avg = _mean([by[(d, "notes")]["fact_recall"] for d in with_qa])
            plain_avg = _mean([by[(d, "plain")]["fact_recall"] for d in with_qa])
            lines.append(f"- fact recall on average ({len(with_qa)} documents with question/answer pairs): notes "
                         f"{notes_avg:.2f}, plain {plain_avg:.2f}")
        t_notes = sum(by[(d, "notes")]["seconds"] for d in docs if by.get((d, "notes")) and by.get((d, "plain")))
        t_plain = sum(by[(d, "plain")]["seconds"] for d in docs if by.get((d, "notes")) and by.get((d, "plain")))
        if t_plain:
            lines.append(f"- time: notes {t_notes:,.0f} s, plain {t_plain:,.0f} s: {t_notes / t_plain:.2f}x "
                         "(goal: at most 1.5x)")
    notes = [r for r in runs if r["strategy"] == "notes"]
    if len({r.get("seed", 0) for r in notes}) > 1:
        lines.append(f"- with several seeds, each document's figures above are the mean of its draws "
                     f"({len(notes)} notes runs); the draws:")
        lines += ["  " + line for line in seed_spread(runs)]
    if notes:
        lines.append(f"- notes, every quarter represented: {sum(r['coverage'] == 1.0 for r in notes)} of "
                     f"{len(notes)} runs; scaffold lines {sum(r['scaffold_lines'] for r in notes)}; copy rate "
                     f"at most {max(r['copy_rate'] for r in notes):.0%}; summary lines linked to a verified quote "
                     f"at least {min(r['linked_share'] or 0 for r in notes):.0%}")
    return lines


def _strategy_label(run: dict, seeds: bool) -> str:
    return f"{run['strategy']} (seed {run['seed']})" if seeds and "seed" in run else run["strategy"]


def write_table(results: dict, path: Path, source_name: str) -> None:
    runs = results["runs"]
    strategies = list(dict.fromkeys(r["strategy"] for r in runs))
    head = "| document | strategy | " + " | ".join(title for _, title, _ in COLUMNS) + " |"
    rule = "|" + "---|" * (len(COLUMNS) + 2)
    seeds = {r.get("seed", 0) for r in runs if r["strategy"] != "plain"} - {0} != set()   # not the default draw
    rows = [f"| {r['doc']} ({r['lang']}) | {_strategy_label(r, seeds)} | "
            + " | ".join(_cell(r.get(key), fmt) for key, _, fmt in COLUMNS) + " |" for r in runs]
    avg_rows = []
    by = per_document(runs)                 # one row per document: with several seeds, their mean
    for s in strategies:
        mine = [r for (_, strategy), r in by.items() if strategy == s]
        avg_rows.append(f"| average of {len(mine)} | {s} | " + " | ".join(
            _cell(_mean([r.get(key) for r in mine]) if key not in ("seconds",)
                  else sum(r.get(key) or 0 for r in mine), fmt) for key, _, fmt in COLUMNS) + " |")
    sittings = results.get("sittings") or [{"started": results["started"]}]
    if len(sittings) > 1:
        commits = sorted({s.get("commit") or "?" for s in sittings})
        split = [d for d in dict.fromkeys(r["doc"] for r in runs)
                 if len({r.get("sitting", 0) for r in runs if r["doc"] == d}) > 1]
        how = (f"Resumed: {len(sittings)} sittings (started {', '.join(str(s['started']) for s in sittings)}; "
               f"commit {', '.join(commits)}), one model loaded once per sitting; "
               + (f"the strategies of {', '.join(split)} ran in more than one sitting (their times compare less "
                  "well)." if split else "each document's strategies ran in one sitting, one after another."))
    else:
        how = "All strategies ran in the same invocation, one model loaded once."
    text = "\n".join([
        "# Summary quality, measured",
        "",
        f"`make quality` (bench/quality.py) with **{results['model_file']}**, n_ctx {results['n_ctx']:,}, "
        + (f"the summaries asked for {results['summary_words']} words (--summary-words), "
           if results.get("summary_words") else "") + "on "
        f"{results['machine']['cpus']} cores, started {results['started']}; raw results with every summary in "
        f"`bench/results/{source_name}`. {how}",
        "",
        "Metrics (bench/quality_metrics.py): fact recall = share of the human question/answer pairs' content "
        "words (Japanese: character bigrams) in the summary; R-1/2/L = ROUGE F1 against the best human "
        "reference (characters for Japanese); numbers = share of the references' numbers kept; copied = share "
        "of summary words in 8+-word runs (Japanese: 16+ characters) copied from the source; scaffold = "
        "prompt-scaffolding or chatter lines; coverage = share of the document's quarters the summary draws "
        "from; linked = share of summary lines carrying a reference to a verified quote; failed rounds = "
        "rounds whose reply failed a check; "
        "salvaged = parts that reached the summary as notes or sentences instead of the model's prose. "
        "`plain` is a plain refine loop (12,000-character chunks, LangChain's refine prompts, no guard).",
        "",
        "## Against the goals",
        "",
        *goals(results),
        "",
        "## Averages",
        "",
        head, rule, *avg_rows,
        "",
        "## Every document",
        "",
        head, rule, *rows,
        "",
        KEPT_MARK,
    ])
    path.write_text(text + kept_sections(path), encoding="utf-8")


# What follows this line in docs/quality.md is written by hand (what a run changed, earlier runs, probes)
# and kept when `make quality` writes the table above it anew.
KEPT_MARK = "<!-- the table above is written by bench/quality.py; what follows is kept as written -->"


def kept_sections(path: Path) -> str:
    """The hand-written part of ``path`` after KEPT_MARK, or a newline when it has none."""
    if not path.is_file():
        return "\n"
    old = path.read_text(encoding="utf-8")
    return old[old.index(KEPT_MARK) + len(KEPT_MARK):] if KEPT_MARK in old else "\n"


if __name__ == "__main__":
    source = Path(sys.argv[1])
    write_table(json.loads(source.read_text(encoding="utf-8")), Path(__file__).resolve().parent.parent / "docs"
                / "quality.md", source.name)
