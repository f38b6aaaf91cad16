"""The main window: the model in use, a drop area, and the ordered list of documents."""
from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import (QFileDialog, QHBoxLayout, QLabel, QListWidget, QListWidgetItem, QMainWindow,
                               QPushButton, QVBoxLayout, QWidget)

from engine.documents import load_document
from engine.errors import UnreadableDocument
from models.bundled import bundled_model_path, display_name
from models.gguf_facts import read_model_facts

ERROR_ROLE = Qt.ItemDataRole.UserRole + 1


class MainWindow(QMainWindow):
    documents_changed = Signal()

    def __init__(self, model_path: Path | None = None) -> None:
        super().__init__()
        self.setWindowTitle("Precis")
        self.setAcceptDrops(True)
        self.resize(980, 640)
        self.documents: list = []

        central = QWidget(self)
        layout = QVBoxLayout(central)

        self.model_label = QLabel(self)
        self.model_label.setObjectName("modelSelector")
        self.model_label.setTextFormat(Qt.TextFormat.PlainText)
        layout.addWidget(self.model_label)

        self.drop_hint = QLabel("Drop documents anywhere on this window (text, Markdown, logs, transcripts)", self)
        self.drop_hint.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.drop_hint.setObjectName("dropHint")
        self.drop_hint.setStyleSheet("QLabel#dropHint { border: 2px dashed palette(mid); padding: 18px; }")
        layout.addWidget(self.drop_hint)

        self.document_list = QListWidget(self)
        self.document_list.setObjectName("documentList")
        layout.addWidget(self.document_list, 1)

        buttons = QHBoxLayout()
        open_button = QPushButton("Open…", self)
        open_button.clicked.connect(self._on_open_clicked)
        buttons.addWidget(open_button)
        buttons.addStretch(1)
        layout.addLayout(buttons)
        self.setCentralWidget(central)

        self.model_path = model_path or bundled_model_path()
        self._show_model(self.model_path)
        self.statusBar().showMessage("Ready")

    def _show_model(self, path: Path) -> None:
        facts = read_model_facts(path)
        name = display_name(facts)
        self.model_label.setText(
            f"Model: {name} — {facts.architecture}, {facts.parameter_count / 1e6:,.0f}M parameters, "
            f"{facts.quantization}, trained context {facts.n_ctx_train:,} tokens")

    def add_documents(self, paths: list[Path]) -> None:
        for path in paths:
            item = QListWidgetItem()
            try:
                doc = load_document(path)
            except UnreadableDocument as exc:
                item.setText(f"{Path(path).name} — {exc}")
                item.setData(ERROR_ROLE, str(exc))
                item.setForeground(Qt.GlobalColor.red)
            else:
                self.documents.append(doc)
                item.setText(f"{doc.name} — {doc.chars:,} characters")
            item.setData(Qt.ItemDataRole.UserRole, str(path))
            self.document_list.addItem(item)
        self.documents_changed.emit()

    def _on_open_clicked(self) -> None:
        paths, _ = QFileDialog.getOpenFileNames(self, "Open documents")
        if paths:
            self.add_documents([Path(p) for p in paths])

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:  # noqa: N802 - Qt override
        if event.mimeData().hasUrls():
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:  # noqa: N802 - Qt override
        paths = [Path(u.toLocalFile()) for u in event.mimeData().urls() if u.isLocalFile()]
        files: list[Path] = []
        for p in paths:
            files.extend(sorted(x for x in p.rglob("*") if x.is_file()) if p.is_dir() else [p])
        if files:
            self.add_documents(files)
            event.acceptProposedAction()
