"""The files a run leaves behind: DATE-summary.md, DATE-todos.md, DATE-run.json (written atomically)."""
from __future__ import annotations

import json
from pathlib import Path

from precis.engine.runs.report import RunReport
from precis.engine.runs.state import RunState
from precis.engine.storage.atomic_files import write_json_atomic, write_text_atomic


def output_paths(out_dir: Path, date: str) -> tuple[Path, Path, Path]:
    out_dir = Path(out_dir)
    return out_dir / f"{date}-summary.md", out_dir / f"{date}-todos.md", out_dir / f"{date}-run.json"


def summary_markdown(report: RunReport, state: RunState) -> str:
    lines = [f"# Summary — {report.date}", ""]
    if state.status != "finished":
        done = len(state.rounds)
        lines += [f"> Partial: the run was {state.status} after {done} round{'s' if done != 1 else ''}. "
                  f"Resume with `precis summarize --resume {state.run_id}`.", ""]
    many = len(state.summaries) > 1
    for name, text in state.summaries.items():
        if many:
            lines += [f"## {name}", ""]
        lines += [text.strip(), ""]
    return "\n".join(lines)


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
