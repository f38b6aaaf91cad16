"""The banner that offers to resume an unfinished run (cancelled, failed, or killed with the app)."""
from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QWidget


class ResumeBanner(QWidget):
    resume_requested = Signal(str)        # the run id

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setObjectName("resumeBanner")
        row = QHBoxLayout(self)
        self.label = QLabel(self)
        self.button = QPushButton("Resume", self)
        self.button.setObjectName("resumeButton")
        dismiss = QPushButton("Dismiss", self)
        dismiss.clicked.connect(self.hide)
        self.button.clicked.connect(self._on_button_clicked)
        row.addWidget(self.label, 1)
        row.addWidget(self.button)
        row.addWidget(dismiss)
        self.run_id = ""
        self.hide()

    def offer(self, state) -> None:
        """Show the newest unfinished run, or hide when there is none."""
        if state is None:
            self.run_id = ""
            self.hide()
            return
        self.run_id = state.run_id
        files = ", ".join(Path(f).name for f in state.files) or "documents"
        self.label.setText(f"An unfinished run ({state.status}, {len(state.rounds)} rounds done, {files}) can be "
                           "resumed.")
        self.show()

    def _on_button_clicked(self) -> None:
        if self.run_id:
            self.resume_requested.emit(self.run_id)
