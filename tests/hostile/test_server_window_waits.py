"""The window against a silent model server: the Model server dialog gives up within discovery's
seconds and says why, closing it ends a fetch still waiting, and Stop ends a run waiting for the first
token within two seconds, keeping the finished round."""
from __future__ import annotations

import time

import pytest
from PySide6.QtCore import Qt

from precis import gui
from precis.engine.runtime.server.waits import READ_TIMEOUT_VARIABLE
from precis.gui.model_panel import MODEL_SERVER
from tests.hostile.server_runs import REPLY, STOP_WITHIN_S, day, wait_for
from tests.openai_server import FakeOpenAIServer, Script

pytestmark = pytest.mark.timeout(90)


@pytest.fixture
def window(qtbot):
    w = gui.create_main_window()
    qtbot.addWidget(w)
    w.rules.strategy.setCurrentText("rolling")
    w.show()
    yield w
    w.shutdown()


def _connect(window, qtbot, url: str):
    panel = window.model_panel
    panel.selector.activated.emit(panel.selector.findText(MODEL_SERVER))
    dialog = window.server_dialog
    dialog.url.setText(url)
    qtbot.mouseClick(dialog.connect_button, Qt.MouseButton.LeftButton)
    return dialog


def test_the_model_server_dialog_gives_up_on_a_silent_server_and_says_why(window, qtbot, monkeypatch):
    monkeypatch.setenv(READ_TIMEOUT_VARIABLE, "1")          # discovery's few seconds, shrunk for the test
    with FakeOpenAIServer(Script(hang="everything")) as server:
        dialog = _connect(window, qtbot, server.url)
        qtbot.waitUntil(lambda: "color:#c62828" in dialog.status.text(), timeout=10_000)
        assert "did not finish discovery within 1 s" in dialog.status.text()
        assert dialog.connect_button.isEnabled() and not dialog.ok_button.isEnabled()


def test_closing_the_dialog_ends_a_fetch_still_waiting(window, qtbot):
    script = Script(hang="everything")
    with FakeOpenAIServer(script) as server:
        dialog = _connect(window, qtbot, server.url)
        wait_for(lambda: script.hanging > 0, what="the server to be hanging")
        started = time.monotonic()
        dialog.reject()
        qtbot.waitUntil(lambda: "Stopped by the user" in dialog.status.text(), timeout=5_000)
        assert time.monotonic() - started < STOP_WITHIN_S


def test_stop_ends_a_run_waiting_for_the_first_token_and_keeps_the_finished_round(window, qtbot, tmp_path):
    script = Script(kind="llama.cpp", n_ctx=1536, reply=REPLY, hang="completion", hang_from_generation=2)
    with FakeOpenAIServer(script) as server:
        dialog = _connect(window, qtbot, server.url)
        qtbot.waitUntil(dialog.ok_button.isEnabled, timeout=10_000)
        dialog.accept()
        window.add_documents([day(tmp_path)])
        qtbot.waitUntil(lambda: window.plan is not None, timeout=15_000)
        window.start_run()
        qtbot.waitUntil(lambda: script.hanging > 0, timeout=30_000)
        started = time.monotonic()
        window.stop_button.click()
        qtbot.waitUntil(lambda: window.run.outcome != "", timeout=10_000)
        took = time.monotonic() - started
    assert window.run.outcome == "cancelled" and took < STOP_WITHIN_S, (window.run.outcome, took)
    assert len(window.run.records) == 1
