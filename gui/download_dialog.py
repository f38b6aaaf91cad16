"""Download a GGUF from the Hugging Face Hub: search, see each file's size, quantization and whether it
fits this machine, download in the background with progress and cancel (a partial file resumes)."""
from __future__ import annotations

import queue

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QProgressBar,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
)

from precis.engine.planning.memory_plan import MIB
from precis.engine.runtime.protocol import CancelToken
from precis.gui.workers import Pump, Task, TaskFailed, TaskOwner, TaskProgress
from precis.models.library import hub
from precis.models.library.curated import curated_models

BADGE_COLORS = {"fits": "#2e7d32", "tight": "#e6a100", "won't fit": "#c62828"}


class DownloadDialog(QDialog):
    downloaded = Signal(str)       # the path of a verified model file

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setObjectName("downloadDialog")
        self.setWindowTitle("Download a model from the Hugging Face Hub")
        self.resize(760, 520)
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel("Recommended for summaries (better than the bundled SmolLM2-135M):", self))
        self.recommended = QTreeWidget(self)
        self.recommended.setObjectName("recommendedModels")
        self.recommended.setHeaderLabels(["Model", "Size", "RAM needed", "This machine", "Why"])
        self.recommended.setRootIsDecorated(False)
        for m in curated_models():
            item = QTreeWidgetItem([m.name, f"{m.size_bytes / MIB:,.0f} MiB", f"{m.ram_bytes / MIB:,.0f} MiB", m.badge,
                                    m.why])
            item.setForeground(3, Qt.GlobalColor.darkGreen if m.badge == "fits" else
                               Qt.GlobalColor.darkYellow if m.badge == "tight" else Qt.GlobalColor.red)
            item.setData(0, Qt.ItemDataRole.UserRole, (m.repo, m.file))
            self.recommended.addTopLevelItem(item)
        self.recommended.setMaximumHeight(150)
        self.recommended.itemDoubleClicked.connect(lambda *_: self.download_recommended())
        layout.addWidget(self.recommended)
        recommended_row = QHBoxLayout()
        self.recommended_button = QPushButton("Download the selected recommendation", self)
        self.recommended_button.setObjectName("downloadRecommendedButton")
        self.recommended_button.clicked.connect(self.download_recommended)
        recommended_row.addStretch(1)
        recommended_row.addWidget(self.recommended_button)
        layout.addLayout(recommended_row)
        layout.addWidget(QLabel("Or search the Hugging Face Hub:", self))
        row = QHBoxLayout()
        self.query = QLineEdit(self)
        self.query.setObjectName("hubQuery")
        self.query.setPlaceholderText("Search GGUF models, e.g. qwen2.5 instruct")
        self.query.returnPressed.connect(self.search)
        search = QPushButton("Search", self)
        search.clicked.connect(self.search)
        row.addWidget(self.query, 1)
        row.addWidget(search)
        layout.addLayout(row)
        self.repos = QListWidget(self)
        self.repos.setObjectName("hubRepos")
        self.repos.currentItemChanged.connect(self._on_repo_selected)
        layout.addWidget(self.repos, 1)
        self.files = QTreeWidget(self)
        self.files.setObjectName("hubFiles")
        self.files.setHeaderLabels(["File", "Size", "Quantization", "This machine"])
        self.files.setRootIsDecorated(False)
        layout.addWidget(self.files, 1)
        self.progress = QProgressBar(self)
        self.progress.setObjectName("downloadProgress")
        self.progress.hide()
        layout.addWidget(self.progress)
        self.message = QLabel(self)
        self.message.setObjectName("hubMessage")
        self.message.setWordWrap(True)
        layout.addWidget(self.message)
        buttons = QHBoxLayout()
        self.download_button = QPushButton("Download", self)
        self.download_button.setObjectName("downloadButton")
        self.download_button.clicked.connect(self.start_download)
        self.cancel_button = QPushButton("Cancel download", self)
        self.cancel_button.setObjectName("cancelDownloadButton")
        self.cancel_button.setEnabled(False)
        self.cancel_button.clicked.connect(self.cancel_download)
        close = QPushButton("Close", self)
        close.clicked.connect(self.close)
        buttons.addStretch(1)
        buttons.addWidget(self.download_button)
        buttons.addWidget(self.cancel_button)
        buttons.addWidget(close)
        layout.addLayout(buttons)
        self._outbox: queue.SimpleQueue = queue.SimpleQueue()
        self._tasks = TaskOwner("precis-hub", self._outbox)
        self._pump = Pump(self, self._outbox, self._dispatch, interval_ms=50)
        self._cancel = CancelToken()
        self.busy = False
        self.last_path = ""

    # ----- background work: Hub calls never run on the GUI thread --------------------------------
    def _background(self, kind: str, fn, *args) -> None:
        self.busy = True
        self._tasks.submit(Task(kind, fn, args))

    def _dispatch(self, message) -> None:
        if isinstance(message, TaskProgress):
            done, total = message.value
            self.progress.setMaximum(max(1, total // MIB))
            self.progress.setValue(done // MIB)
            self.progress.setFormat(f"{done / MIB:,.0f} of {total / MIB:,.0f} MiB")
            return
        self.busy = False
        if isinstance(message, TaskFailed):
            if message.tag == "downloaded":
                self._download_ended()
            self.message.setText(message.message)
            return
        kind, value = message.tag, message.value
        if kind == "repos":
            self.repos.clear()
            for r in value:
                item = QListWidgetItem(f"{r.repo_id}  ·  {r.downloads:,} downloads")
                item.setData(Qt.ItemDataRole.UserRole, r.repo_id)
                self.repos.addItem(item)
            self.message.setText(f"{len(value)} repositories" if value else "No GGUF repositories match.")
        elif kind == "files":
            self.files.clear()
            for f in value:
                item = QTreeWidgetItem([f.filename, f"{f.size_bytes / MIB:,.0f} MiB", f.quantization, f.badge])
                item.setForeground(3, Qt.GlobalColor.darkGreen if f.badge == "fits" else
                                   Qt.GlobalColor.darkYellow if f.badge == "tight" else Qt.GlobalColor.red)
                item.setData(0, Qt.ItemDataRole.UserRole, (f.repo_id, f.filename))
                self.files.addTopLevelItem(item)
            self.message.setText(f"{len(value)} GGUF files. The badge compares the file plus a runtime allowance "
                                 "with the RAM available now.")
        elif kind == "downloaded":
            self._download_ended()
            self.last_path = str(value)
            self.message.setText(f"Verified and saved: {value}")
            self.downloaded.emit(str(value))

    # ----- actions --------------------------------------------------------------------------------
    def search(self) -> None:
        text = self.query.text().strip()
        if text:
            self.message.setText("Searching…")
            self._background("repos", hub.search, text)

    def _on_repo_selected(self, item, _previous=None) -> None:
        if item is not None:
            self.message.setText("Listing files…")
            self._background("files", hub.list_files, item.data(Qt.ItemDataRole.UserRole))

    def download_recommended(self) -> None:
        item = self.recommended.currentItem()
        if item is None:
            self.message.setText("Choose a recommended model first.")
            return
        self._download(*item.data(0, Qt.ItemDataRole.UserRole))

    def start_download(self) -> None:
        item = self.files.currentItem()
        if item is None:
            self.message.setText("Choose a file first.")
            return
        self._download(*item.data(0, Qt.ItemDataRole.UserRole))

    def _download(self, repo_id: str, filename: str) -> None:
        self._cancel = CancelToken()
        self.progress.show()
        self.progress.setValue(0)
        self.download_button.setEnabled(False)
        self.cancel_button.setEnabled(True)
        self.message.setText(f"Downloading {filename}…")
        self._background("downloaded", hub.download, repo_id, filename,
                         lambda done, total: self._outbox.put(TaskProgress("downloaded", (done, total))), self._cancel)

    def cancel_download(self) -> None:
        self._cancel.cancel()

    def _download_ended(self) -> None:
        self.download_button.setEnabled(True)
        self.cancel_button.setEnabled(False)

    def closeEvent(self, event) -> None:  # noqa: N802 - Qt override
        self._cancel.cancel()   # a download in flight stops; its partial file stays for next time
        super().closeEvent(event)
