"""The round inspector: one round's chunk (with its place in the document), the summary it received,
the summary it returned, what changed between them, its flags and timings."""
from __future__ import annotations

import difflib
import html

from PySide6.QtWidgets import QLabel, QPlainTextEdit, QTabWidget, QTextBrowser, QVBoxLayout, QWidget


class RoundInspectorWidget(QWidget):
    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setObjectName("roundInspector")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.header = QLabel("Click a point on the curve (or a round) to inspect it.", self)
        self.header.setWordWrap(True)
        layout.addWidget(self.header)
        self.tabs = QTabWidget(self)
        self.chunk_view = self._text("chunkView")
        self.summary_in_view = self._text("summaryInView")
        self.summary_out_view = self._text("summaryOutView")
        self.diff_view = QTextBrowser(self)
        self.diff_view.setObjectName("diffView")
        self.tabs.addTab(self.chunk_view, "Chunk")
        self.tabs.addTab(self.summary_in_view, "Summary received")
        self.tabs.addTab(self.summary_out_view, "Summary returned")
        self.tabs.addTab(self.diff_view, "Changes")
        layout.addWidget(self.tabs, 1)
        self.record = None

    def _text(self, name: str) -> QPlainTextEdit:
        view = QPlainTextEdit(self)
        view.setReadOnly(True)
        view.setObjectName(name)
        return view

    def show_round(self, record, chunk_text: str, where: str) -> None:
        self.record = record
        flags = ", ".join(record.flags) if record.flags else "no flags"
        self.header.setText(
            f"<b>Round {record.index + 1}</b> ({record.kind}) · {where} · chunk {record.chunk_tokens:,} tokens · "
            f"summary {record.summary_in_chars:,} → {record.summary_chars:,} chars · prompt {record.prompt_tokens:,} "
            f"tokens ({record.prompt_reused:,} reused) · {record.generated_tokens:,} generated · "
            f"{record.seconds:.1f} s · {record.attempts} model call{'s' if record.attempts != 1 else ''} · "
            f"<span style='color:{'#c62828' if record.collapsed else '#2e7d32'}'>{html.escape(flags)}</span>")
        self.chunk_view.setPlainText(chunk_text)
        self.summary_in_view.setPlainText(record.summary_in)
        raw = "" if record.summary == record.reply or not record.reply else \
            "\n\n----- model's last raw reply -----\n" + record.reply
        self.summary_out_view.setPlainText(record.summary + raw)
        self.diff_view.setHtml(diff_html(record.summary_in, record.summary))

    def added_and_dropped(self) -> tuple[list[str], list[str]]:
        if self.record is None:
            return [], []
        return changed_lines(self.record.summary_in, self.record.summary)


def changed_lines(before: str, after: str) -> tuple[list[str], list[str]]:
    a, b = before.splitlines(), after.splitlines()
    added, dropped = [], []
    for line in difflib.ndiff(a, b):
        if line.startswith("+ ") and line[2:].strip():
            added.append(line[2:])
        elif line.startswith("- ") and line[2:].strip():
            dropped.append(line[2:])
    return added, dropped


def diff_html(before: str, after: str) -> str:
    added, dropped = changed_lines(before, after)
    rows = [f"<p><b>{len(added)} lines added, {len(dropped)} dropped</b></p>"]
    rows += [f"<div style='color:#2e7d32'>+ {html.escape(x)}</div>" for x in added]
    rows += [f"<div style='color:#c62828'>− {html.escape(x)}</div>" for x in dropped]
    return "".join(rows)
