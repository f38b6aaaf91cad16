"""Model server…: the base URL of an OpenAI-compatible server, the environment variable that holds its
key, and its model, chosen from the list the server itself returns (fetched off the GUI thread, within
discovery's few seconds; closing the dialog ends a fetch still waiting)."""
from __future__ import annotations

import os

from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
)

from precis.engine.runtime.protocol import CancelToken
from precis.models.session.server_connection import ServerProbe, probe_server

TOKEN_COUNTS = {"tokenize": "exact (the server's tokenizer)", "local-gguf": "exact (the model's GGUF on this machine)",
                "estimate": "estimated with a safety margin (the server cannot tokenize)"}


class ServerDialog(QDialog):
    def __init__(self, parent, submit, url: str = "", model: str = "", key_env: str = "PRECIS_API_KEY") -> None:
        """``submit(fn, args)`` runs ``fn(*args)`` on a worker thread; the window calls ``probed`` back."""
        super().__init__(parent)
        self.setWindowTitle("Model server")
        self.setObjectName("serverDialog")
        self._submit = submit
        self._cancel = CancelToken()
        self.probe: ServerProbe | None = None
        self._wanted_model = model
        layout = QVBoxLayout(self)
        intro = QLabel("Run the model on an OpenAI-compatible server (llama.cpp server, vLLM, Ollama, LM Studio). "
                       "The documents are sent to it; the key stays in your environment.", self)
        intro.setWordWrap(True)
        layout.addWidget(intro)
        form = QFormLayout()
        self.url = QLineEdit(url, self)
        self.url.setObjectName("serverUrl")
        self.url.setPlaceholderText("http://127.0.0.1:8080/v1")
        self.key_env = QLineEdit(key_env or "PRECIS_API_KEY", self)
        self.key_env.setObjectName("serverKeyEnv")
        self.key_state = QLabel(self)
        self.key_env.textChanged.connect(self._show_key_state)
        key_row = QHBoxLayout()
        key_row.addWidget(self.key_env, 1)
        key_row.addWidget(self.key_state)
        form.addRow("Base URL", self.url)
        form.addRow("Key variable", key_row)
        self.connect_button = QPushButton("Connect", self)
        self.connect_button.setObjectName("serverConnect")
        self.connect_button.clicked.connect(self.fetch)
        form.addRow("", self.connect_button)
        self.models = QComboBox(self)
        self.models.setObjectName("serverModels")
        self.models.setEnabled(False)
        self.models.currentTextChanged.connect(self._model_changed)
        form.addRow("Model", self.models)
        layout.addLayout(form)
        self.status = QLabel("", self)
        self.status.setObjectName("serverStatus")
        self.status.setWordWrap(True)
        layout.addWidget(self.status)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel,
                                        self)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        self.ok_button.setEnabled(False)
        layout.addWidget(self.buttons)
        self._show_key_state()
        self.resize(560, 300)

    @property
    def ok_button(self):
        return self.buttons.button(QDialogButtonBox.StandardButton.Ok)

    def _show_key_state(self) -> None:
        name = self.key_env.text().strip()
        self.key_state.setText("set" if name and os.environ.get(name) else "not set (no key sent)")

    def fetch(self) -> None:
        url = self.url.text().strip()
        if not url:
            self.status.setText("Enter the server's OpenAI-compatible base URL, such as http://127.0.0.1:8080/v1.")
            return
        self.connect_button.setEnabled(False)
        self.ok_button.setEnabled(False)
        self.status.setText(f"Connecting to {url}…")
        self._cancel = CancelToken()
        self._submit(probe_server, (url, self._wanted_model, self.key_env.text().strip(), self._cancel))

    def stop_fetch(self) -> None:
        """A fetch still waiting for the server ends now (the dialog or the window closed)."""
        self._cancel.cancel()

    def done(self, result: int) -> None:
        self.stop_fetch()
        super().done(result)

    def probed(self, ok: bool, value) -> None:
        """The worker's answer: a ServerProbe, or the error message."""
        self.connect_button.setEnabled(True)
        if not ok:
            self.probe = None
            self.status.setText(f"<span style='color:#c62828'>{value}</span>")
            return
        self.probe = value
        self.models.blockSignals(True)
        self.models.clear()
        self.models.addItems(value.models)
        self.models.setCurrentText(value.model)
        self.models.blockSignals(False)
        self.models.setEnabled(True)
        self.status.setText(self.describe(value))
        self.ok_button.setEnabled(True)

    def _model_changed(self, name: str) -> None:
        if self.probe is not None and name and name != self.probe.model:
            self._wanted_model = name      # each model has its own context: ask the server again
            self.fetch()

    @staticmethod
    def describe(probe: ServerProbe) -> str:
        slots = f"; {probe.slots} parallel slots" if probe.slots else ""
        return (f"{probe.kind}: context {probe.n_ctx_note}; token counts {TOKEN_COUNTS[probe.token_counts]}"
                f"{slots}.")
