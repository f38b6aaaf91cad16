"""Documents: drop or open files and folders; an ordered list with kind, characters and tokens;
reorder by dragging, remove, choose one bundle in order or one summary per file. Unreadable files
show their error inline and never block the others."""
from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (QAbstractItemView, QComboBox, QFileDialog, QHBoxLayout, QListWidget, QListWidgetItem,
                               QPushButton, QVBoxLayout, QWidget)

from engine.bundle import expand_paths
from engine.documents import load_document
from engine.errors import UnreadableDocument
from engine.token_estimate import estimate_tokens

ERROR_ROLE = Qt.ItemDataRole.UserRole + 1
DOCUMENT_ROLE = Qt.ItemDataRole.UserRole + 2
BUNDLE, PER_FILE = "One bundle in order", "One summary per file"


class DocumentPanel(QWidget):
    changed = Signal()

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
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

    def documents(self) -> list:
        """Readable documents in list order."""
        docs = []
        for i in range(self.list.count()):
            doc = self.list.item(i).data(DOCUMENT_ROLE)
            if doc is not None:
                docs.append(doc)
        return docs

    def paths(self) -> list[Path]:
        return [d.path for d in self.documents()]

    def add_paths(self, paths: list[Path]) -> None:
        for path in expand_paths(paths):
            item = QListWidgetItem()
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsDragEnabled)
            try:
                doc = load_document(path)
            except UnreadableDocument as exc:
                item.setText(f"{Path(path).name} — {exc}")
                item.setData(ERROR_ROLE, str(exc))
                item.setForeground(Qt.GlobalColor.red)
            else:
                item.setData(DOCUMENT_ROLE, doc)
                item.setText(self._label(doc, estimate_tokens(doc.text[:2_000_000]).label()))
                item.setToolTip(f"{doc.path}\n{doc.encoding}")
            self.list.addItem(item)
        self.changed.emit()

    def set_exact_tokens(self, counts: dict[str, int]) -> None:
        """Exact counts from the model's tokenizer replace the estimate (per-file plans know them)."""
        for i in range(self.list.count()):
            item = self.list.item(i)
            doc = item.data(DOCUMENT_ROLE)
            if doc is not None and doc.name in counts:
                item.setText(self._label(doc, f"{counts[doc.name]:,} tokens"))

    @staticmethod
    def _label(doc, tokens: str) -> str:
        return f"{doc.name} — {doc.kind}, {doc.chars:,} characters, {tokens}"

    def remove_selected(self) -> None:
        for item in self.list.selectedItems():
            self.list.takeItem(self.list.row(item))
        self.changed.emit()

    def _on_open_clicked(self) -> None:
        paths, _ = QFileDialog.getOpenFileNames(self, "Open documents", "",
                                                "Documents (*.txt *.md *.log *.csv *.html *.htm *.pdf *.docx *.json "
                                                "*.jsonl);;All files (*)")
        if paths:
            self.add_paths([Path(p) for p in paths])
