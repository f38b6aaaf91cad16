"""The files a run leaves behind: DATE-summary.md, DATE-todos.md, DATE-run.json (written atomically).

Summary lines that rest on verified notes end with compact references ("[3, 7]"); the summary file
lists each referenced note under "Sources": its part, its lines in the document and the quote, so a
person checks a quote instead of rereading the document.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

from precis.engine.runs.report import RunReport
from precis.engine.runs.state import RunState
from precis.engine.storage.atomic_files import write_json_atomic, write_text_atomic

_REFS = re.compile(r"\[(\d{1,5}(?:, \d{1,5})*)\]")
QUOTE_CHARS_SHOWN = 240


def output_paths(out_dir: Path, date: str) -> tuple[Path, Path, Path]:
    out_dir = Path(out_dir)
    return out_dir / f"{date}-summary.md", out_dir / f"{date}-todos.md", out_dir / f"{date}-run.json"


def referenced_notes(summary: str) -> list[int]:
    ids: list[int] = []
    for m in _REFS.finditer(summary):         # at a line's end, or after each sentence of a paragraph
        ids += [int(x) for x in m.group(1).split(", ") if int(x) not in ids]
    return ids


def sources_markdown(summary: str, notes: list[dict], heading: str = "##") -> list[str]:
    by_id = {n["id"]: n for n in notes}
    rows = []
    for i in sorted(referenced_notes(summary)):
        n = by_id.get(i)
        if n is None:
            continue
        quote = n["quote"] if len(n["quote"]) <= QUOTE_CHARS_SHOWN else n["quote"][:QUOTE_CHARS_SHOWN] + "…"
        lines = f"line {n['start_line']}" if n["start_line"] == n["end_line"] else \
            f"lines {n['start_line']}–{n['end_line']}"
        how = {"extract": " (taken verbatim)", "reworded": " (reworded)", "shortened": " (shortened in its own words)",
               "located": " (the passage holding the note's words)",
               "subject": " (the commit's subject line)", "aligned": " (a sentence the account's words come from)"}.get(
            n.get("origin"), "")
        # a sentence inside a turn is quoted without its label: who said it comes first (Note.speaker)
        said_by = f", said by {n['speaker']}" if n.get("speaker") else ""
        rows.append(f"- [{i}] part {n['part'] + 1}, {lines}{how}{said_by}: “{' '.join(quote.split())}”")
    return [f"{heading} Sources", "", *rows, ""] if rows else []


def summary_markdown(report: RunReport, state: RunState) -> str:
    lines = [f"# Summary — {report.date}", ""]
    if state.status != "finished":
        done = len(state.rounds)
        lines += [f"> Partial: the run was {state.status} after {done} round{'s' if done != 1 else ''}. "
                  f"Resume with `precis summarize --resume {state.run_id}`.", ""]
    if report.salvaged_rounds:
        lines += [f"> {report.salvaged_rounds} part(s) could not be summarized by the model; their verified notes "
                  "or key sentences are included instead (marked with their sources).", ""]
    # One document: its summary's sections ("## topic", "### Done") and its sources are the file's sections.
    # Several: each under "## name", its headings one level down, so a topic never reads as a document.
    many = len(state.summaries) > 1
    heading = "###" if many else "##"
    for name, text in state.summaries.items():
        if many:
            lines += [f"## {name}", "", _one_level_down(text.strip()), ""]
        else:
            lines += [text.strip(), ""]
        notes = state.notes.get(name, [])
        lines += sources_markdown(text, notes, heading)
        if report.strategy not in ("notes", "account"):   # a failed part's notes that did not fit under the cap
            lines += unmerged_notes_markdown(text, notes, heading)
    return "\n".join(lines)


def _one_level_down(text: str) -> str:
    return re.sub(r"^(#{1,5}) ", r"#\1 ", text, flags=re.M)


def unmerged_notes_markdown(summary: str, notes: list[dict], heading: str = "##") -> list[str]:
    cited = set(referenced_notes(summary))
    left = [n for n in notes if n["id"] not in cited]
    if not left:
        return []
    rows = [f"- part {n['part'] + 1}, line {n['start_line']}: {n['point']} (“{' '.join(n['quote'].split())}”)"
            for n in left]
    return [f"{heading} Notes from failed parts that did not fit in the summary", "", *rows, ""]


def todos_markdown(report: RunReport, many_documents: bool) -> str:
    lines = [f"# TODO — {report.date}", ""]
    if not report.todos:
        lines.append("No TODO items were found in the source.")
    for t in report.todos:
        lines.append(f"- [ ] {t.text}" + (f"  ({t.document})" if many_documents else ""))
    return "\n".join(lines) + "\n"


def write_outputs(out_dir: Path, report: RunReport, state: RunState) -> list[Path]:
    summary_path, todos_path, run_path = output_paths(out_dir, report.date)
    Path(out_dir).mkdir(parents=True, exist_ok=True)
    write_text_atomic(summary_path, summary_markdown(report, state))
    write_text_atomic(todos_path, todos_markdown(report, len(state.summaries) > 1))
    write_json_atomic(run_path, report.as_json())
    return [summary_path, todos_path, run_path]


def load_report(path: Path) -> dict:
    return json.loads(Path(path).read_text(encoding="utf-8"))
