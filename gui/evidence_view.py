"""The summary with its evidence: each line's references are links; clicking one shows the quotes it
rests on, highlighted in the source document with their part and line range, so a person checks the
quote instead of rereading the document."""
from __future__ import annotations

import html
import re

from PySide6.QtCore import Qt, QUrl, Signal
from PySide6.QtWidgets import QSplitter, QTextBrowser

_REFS = re.compile(r"\[(\d{1,5}(?:, ?\d{1,5})*)\]")
CONTEXT_LINES = 2                       # source lines shown around a quote
HIGHLIGHT = "background:#fff176"


def _linked(body: str, name: str) -> str:
    """``body`` as HTML, each "[3, 7]" reference in it a link: at the end of a bullet, or after every sentence
    of an account's paragraph."""
    out, at = [], 0
    for m in _REFS.finditer(body):
        out.append(html.escape(body[at:m.start()]))
        out.append(f"<a href='notes:{html.escape(name)}:{m.group(1).replace(' ', '')}'>[{m.group(1)}]</a>")
        at = m.end()
    out.append(html.escape(body[at:]))
    return "".join(out)


def summary_html(name_texts: list[tuple[str, str]], note: str = "") -> str:
    """Markdown-ish summary lines as HTML; "[3, 7]" references become links."""
    out = [f"<p style='color:#e65100'>{html.escape(note)}</p>"] if note else []
    for name, text in name_texts:
        if name:
            out.append(f"<h2>{html.escape(name)}</h2>")
        for line in text.splitlines():
            body = line.strip()
            if not body:
                continue
            if body.startswith("###"):          # a layer of a topic ("### Decisions and judgements")
                out.append(f"<h4>{html.escape(body.lstrip('#').strip())}</h4>")
            elif body.startswith("#"):
                out.append(f"<h3>{html.escape(body.lstrip('#').strip())}</h3>")
            elif body.startswith(("- ", "* ")):
                out.append(f"<p style='margin-left:14px'>• {_linked(body[2:], name)}</p>")
            else:
                out.append(f"<p>{_linked(body, name)}</p>")
    return "".join(out)


def evidence_html(notes: list[dict], text: str) -> str:
    """Each note: where it is, and the source lines around it with the quote highlighted."""
    blocks = []
    starts = [0] + [m.end() for m in re.finditer("\n", text)]
    for n in notes:
        first = max(0, n["start_line"] - 1 - CONTEXT_LINES)
        last = min(len(starts) - 1, n["end_line"] - 1 + CONTEXT_LINES)
        a, b = starts[first], (starts[last + 1] - 1 if last + 1 < len(starts) else len(text))
        s, e = max(a, n["start_char"]), min(b, n["end_char"])
        excerpt = (html.escape(text[a:s]) + f"<span style='{HIGHLIGHT}'>" + html.escape(text[s:e]) + "</span>"
                   + html.escape(text[e:b])).replace("\n", "<br>")
        where = f"line {n['start_line']:,}" if n["start_line"] == n["end_line"] else \
            f"lines {n['start_line']:,}–{n['end_line']:,}"
        how = {"extract": "taken verbatim", "reworded": "reworded by the model",
               "shortened": "shortened by the model, mostly in the sentence's own words",
               "aligned": f"a sentence holding {n.get('score', 0):.0f}% of what the account says here",
               "located": f"the passage holding {n.get('score', 0):.0f}% of the note's words",
               "subject": "the commit's subject line, as its author wrote it"}.get(
            n.get("origin"), f"quote matched {n.get('score', 0):.0f}%")
        where += f", said by {n['speaker']}" if n.get("speaker") else ""      # a quote inside a turn
        blocks.append(f"<h4>[{n['id']}] {html.escape(n['document'])}, part {n['part'] + 1}, {html.escape(where)} "
                      f"({how})</h4>"
                      f"<p><i>{html.escape(n['point'])}</i></p><p style='font-family:monospace'>{excerpt}</p>")
    return "<hr>".join(blocks) or "<i>No evidence for this line.</i>"


class EvidenceViewWidget(QSplitter):
    """The summary on top (links on every cited line), the evidence of the clicked line below."""
    evidence_shown = Signal(list)        # the note ids shown

    def __init__(self, parent=None) -> None:
        super().__init__(Qt.Orientation.Vertical, parent)
        self.summary_view = QTextBrowser(self)
        self.summary_view.setObjectName("summaryView")
        self.summary_view.setOpenLinks(False)
        self.summary_view.anchorClicked.connect(self._on_anchor_clicked)
        self.evidence_view = QTextBrowser(self)
        self.evidence_view.setObjectName("evidenceView")
        self.evidence_view.setHtml("<i>Click a reference (\"[3]\") after a sentence or at the end of a "
                                   "line to see the quotes it rests on, highlighted in the document.</i>")
        self.addWidget(self.summary_view)
        self.addWidget(self.evidence_view)
        self.setSizes([400, 220])
        self.notes: dict[str, dict[int, dict]] = {}     # document -> note id -> note
        self.sources: dict[str, str] = {}               # document -> its text

    def show_summaries(self, summaries: dict, note: str = "") -> None:
        many = len(summaries) > 1
        self.summary_view.setHtml(summary_html([(name if many else "", text) for name, text in summaries.items()],
                                               note))

    def set_evidence(self, evidence: dict, sources: dict[str, str]) -> None:
        self.notes = {doc: {n["id"]: n for n in e.get("notes", [])} for doc, e in evidence.items()}
        self.sources = dict(sources)

    def show_notes(self, document: str, ids: list[int]) -> None:
        notes = [self.notes.get(document, {}).get(i) for i in ids]
        text = self.sources.get(document, "")
        self.evidence_view.setHtml(evidence_html([n for n in notes if n is not None], text))
        self.evidence_shown.emit(ids)

    def _on_anchor_clicked(self, url: QUrl) -> None:
        target = url.toString()
        if not target.startswith("notes:"):
            return
        _, rest = target.split(":", 1)
        document, ids = rest.rsplit(":", 1)
        if not document:
            document = next(iter(self.notes), "")
        self.show_notes(document, [int(i) for i in ids.split(",") if i])
