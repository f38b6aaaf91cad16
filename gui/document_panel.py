"""Documents: drop or open files and folders; an ordered list with kind, characters and tokens;
reorder by dragging, remove, choose one bundle in order or one summary per file. Unreadable files
show their error inline and never block the others.

Reading happens on the window's I/O thread: the panel shows a "reading…" row at once, asks for the
batch to be read (``read_requested``), and fills the rows in when ``finish_batch`` brings them.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from precis.engine.documents.bundle import expand_paths
from precis.engine.documents.loading import Document, load_document
from precis.engine.documents.token_estimate import estimate_tokens
from precis.engine.errors import UnreadableDocument

ERROR_ROLE = Qt.ItemDataRole.UserRole + 1
DOCUMENT_ROLE = Qt.ItemDataRole.UserRole + 2
BATCH_ROLE = Qt.ItemDataRole.UserRole + 3
BUNDLE, PER_FILE = "One bundle in order", "One summary per file"


@dataclass(frozen=True)
class ReadResult:
    path: Path
    document: Document | None
    error: str = ""
    tokens_label: str = ""


def read_for_list(paths: list[Path]) -> list[ReadResult]:
    """Runs on the I/O thread: expand folders, read each file, estimate its tokens. No Qt here."""
    out = []
    for path in expand_paths(paths):
        try:
            doc = load_document(path)
        except UnreadableDocument as exc:
            out.append(ReadResult(Path(path), None, str(exc)))
        else:
            out.append(ReadResult(Path(path), doc, "", estimate_tokens(doc.text).label()))
    return out


class DocumentPanel(QWidget):
    changed = Signal()
    read_requested = Signal(int, list)     # batch id, paths: read them off the GUI thread

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._batches = 0
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.list = QListWidget(self)
        self.list.setObjectName("documentList")
        self.list.setDragDropMode(QAbstractItemView.DragDropMode.InternalMove)
        self.list.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.list.model().rowsMoved.connect(lambda *_: self.changed.emit())
        layout.addWidget(self.list, 1)
        row = QHBoxLayout()
        self.open_button = QPushButton("Open…", self)
        self.open_button.clicked.connect(self._on_open_clicked)
        self.remove_button = QPushButton("Remove", self)
        self.remove_button.setObjectName("removeButton")
        self.remove_button.clicked.connect(self.remove_selected)
        self.mode = QComboBox(self)
        self.mode.setObjectName("bundleMode")
        self.mode.addItems([BUNDLE, PER_FILE])
        self.mode.currentIndexChanged.connect(lambda *_: self.changed.emit())
        row.addWidget(self.open_button)
        row.addWidget(self.remove_button)
        row.addStretch(1)
        row.addWidget(self.mode)
        layout.addLayout(row)

    @property
    def per_file(self) -> bool:
        return self.mode.currentText() == PER_FILE

    @property
    def reading(self) -> bool:
        """Some dropped files are still being read."""
        return any(self.list.item(i).data(BATCH_ROLE) is not None for i in range(self.list.count()))

    def documents(self) -> list[Document]:
        """Readable documents in list order."""
        docs = []
        for i in range(self.list.count()):
            doc = self.list.item(i).data(DOCUMENT_ROLE)
            if doc is not None:
                docs.append(doc)
        return docs

    def paths(self) -> list[Path]:
        return [d.path for d in self.documents()]

    def add_paths(self, paths: list[Path]) -> int:
        """Show a "reading…" row and ask for the files to be read; returns the batch id."""
        self._batches += 1
        batch = self._batches
        item = QListWidgetItem(f"Reading {', '.join(Path(p).name for p in paths[:3])}"
                               f"{'…' if len(paths) > 3 else ''} …")
        item.setData(BATCH_ROLE, batch)
        item.setFlags(item.flags() & ~Qt.ItemFlag.ItemIsDragEnabled)
        item.setForeground(Qt.GlobalColor.darkGray)
        self.list.addItem(item)
        self.read_requested.emit(batch, [Path(p) for p in paths])
        return batch

    def finish_batch(self, batch: int, results: list[ReadResult] | None, error: str = "") -> None:
        """Replace the batch's "reading…" row with one row per file (or the error that stopped it)."""
        row = next((i for i in range(self.list.count()) if self.list.item(i).data(BATCH_ROLE) == batch), None)
        if row is None:
            return      # removed while it was being read
        self.list.takeItem(row)
        if results is None:
            item = QListWidgetItem(f"Could not read the files: {error}")
            item.setData(ERROR_ROLE, error)
            item.setForeground(Qt.GlobalColor.red)
            self.list.insertItem(row, item)
        for offset, result in enumerate(results or []):
            self.list.insertItem(row + offset, self._item(result))
        self.changed.emit()

    def _item(self, result: ReadResult) -> QListWidgetItem:
        item = QListWidgetItem()
        item.setFlags(item.flags() | Qt.ItemFlag.ItemIsDragEnabled)
        if result.document is None:
            item.setText(f"{result.path.name} — {result.error}")
            item.setData(ERROR_ROLE, result.error)
            item.setForeground(Qt.GlobalColor.red)
        else:
            doc = result.document
            item.setData(DOCUMENT_ROLE, doc)
            item.setText(self._label(doc, result.tokens_label))
            item.setToolTip("\n".join([str(doc.path), f"encoding: {doc.encoding}", *doc.warnings]))
            if doc.warnings:
                item.setForeground(Qt.GlobalColor.darkYellow)
        return item

    def set_exact_tokens(self, counts: dict[str, int]) -> None:
        """Exact counts from the model's tokenizer replace the estimate (per-file plans know them)."""
        for i in range(self.list.count()):
            item = self.list.item(i)
            doc = item.data(DOCUMENT_ROLE)
            if doc is not None and doc.name in counts:
                item.setText(self._label(doc, f"{counts[doc.name]:,} tokens"))

    @staticmethod
    def _label(doc, tokens: str) -> str:
        warning = f" — ⚠ {doc.warnings[0]}" if doc.warnings else ""
        return f"{doc.name} — {doc.kind}, {doc.chars:,} characters, {tokens}{warning}"

    def remove_selected(self) -> None:
        for item in self.list.selectedItems():
            self.list.takeItem(self.list.row(item))
        self.changed.emit()

    def show_documents(self, documents: list[Document]) -> None:
        """Replace the list with documents already read (a resumed run's)."""
        self.list.clear()
        for doc in documents:
            self.list.addItem(self._item(ReadResult(doc.path, doc, "", "tokens counted by the plan")))
        self.changed.emit()

    def _on_open_clicked(self) -> None:
        paths, _ = QFileDialog.getOpenFileNames(self, "Open documents", "",
                                                "Documents (*.txt *.md *.log *.csv *.html *.htm *.pdf *.docx *.json "
                                                "*.jsonl);;All files (*)")
        if paths:
            self.add_paths([Path(p) for p in paths])
