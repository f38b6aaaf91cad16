"""Results: the final summary with its evidence, the TODO list and the fact-retention report."""
from __future__ import annotations

import html
from pathlib import Path

from PySide6.QtWidgets import QPlainTextEdit, QTabWidget, QTextBrowser

from precis.gui.evidence_view import EvidenceViewWidget


class ResultsWidget(QTabWidget):
    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setObjectName("results")
        self.evidence = EvidenceViewWidget(self)
        self.summary_view = self.evidence.summary_view
        self.todo_view = QPlainTextEdit(self)
        self.todo_view.setObjectName("todoView")
        self.todo_view.setReadOnly(True)
        self.facts_view = QTextBrowser(self)
        self.facts_view.setObjectName("factsView")
        self.addTab(self.evidence, "Summary")
        self.addTab(self.todo_view, "TODOs")
        self.addTab(self.facts_view, "Facts kept / lost")
        self.report = None
        self.summaries: dict = {}

    def show_summary(self, summaries: dict, partial_note: str = "") -> None:
        self.summaries = dict(summaries)
        self.evidence.show_summaries(summaries, partial_note)

    def show_evidence(self, report, sources: dict[str, str]) -> None:
        """The notes behind the summary lines, and the documents' texts to show them in."""
        self.evidence.set_evidence(report.evidence, sources)

    def show_report(self, report) -> None:
        """The run report (precis.engine.runs.report.RunReport): TODOs and the fact-retention table."""
        self.report = report
        todos = report.todos
        self.todo_view.setPlainText("\n".join(f"- [ ] {t.text}" for t in todos) or "No TODO items in the source.")
        rows = []
        for name, facts in report.facts.items():
            rows.append(f"<h3>{html.escape(name)}: kept {facts.kept}, changed {facts.changed}, "
                        f"lost {facts.lost}</h3><table cellpadding=3>")
            for f in sorted(facts.items, key=lambda f: (f["status"] != "lost", f["status"] != "changed")):
                color = {"kept": "#2e7d32", "changed": "#e65100", "lost": "#c62828"}.get(f["status"], "#000")
                found = f" → {html.escape(f['found_as'])}" if f["status"] == "changed" else ""
                rows.append(f"<tr><td style='color:{color}'>{f['status']}</td><td>{f['kind']}</td>"
                            f"<td>{html.escape(f['text'])}{found}</td></tr>")
            rows.append("</table>")
        self.facts_view.setHtml("".join(rows))

    def save_all(self, out_dir: Path, state) -> list[Path]:
        """The same three files as the command line."""
        from precis.engine.runs.outputs import write_outputs
        return write_outputs(out_dir, self.report, state)
