"""The window with a model server: Model server… in the selector, the server's models and context in
the dialog, the memory bar about the server instead of RAM, a plan and a run through it."""
from __future__ import annotations

import json

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QPushButton

from precis import gui
from precis.engine.storage.app_settings import load_settings
from precis.gui.model_panel import MODEL_SERVER
from precis.models.cli.main import build_parser
from precis.models.session.request import request_from_args
from tests.models.test_server_plan import day_file, served_here
from tests.openai_server import FakeOpenAIServer, Script
from tests.summary_fixtures import conversation_day

REPLY = ("The team reviewed the release plan and agreed to ship the parser fix first. "
         "Alice will update the changelog before Friday.")


@pytest.fixture
def window(qtbot):
    w = gui.create_main_window()
    qtbot.addWidget(w)
    w.rules.strategy.setCurrentText("rolling")
    w.show()
    yield w
    w.shutdown()


def _choose_server(window, qtbot, url: str, key_env: str = "PRECIS_API_KEY"):
    panel = window.model_panel
    index = panel.selector.findText(MODEL_SERVER)
    assert index >= 0
    panel.selector.activated.emit(index)
    dialog = window.server_dialog
    assert dialog is not None and dialog.isVisible()
    dialog.url.setText(url)
    dialog.key_env.setText(key_env)
    qtbot.mouseClick(dialog.connect_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: dialog.ok_button.isEnabled() or "color:#c62828" in dialog.status.text(), timeout=10_000)
    return dialog


def test_a_model_server_is_chosen_planned_against_and_run_through(window, qtbot, tmp_path, monkeypatch):
    monkeypatch.setenv("TEAM_KEY", "sesame")
    script = Script(kind="llama.cpp", models=["qwen-7b", "llama-8b"], n_ctx=6144, reply=REPLY, api_key="sesame")
    with FakeOpenAIServer(script) as server:
        dialog = _choose_server(window, qtbot, server.url, "TEAM_KEY")
        assert dialog.ok_button.isEnabled(), dialog.status.text()
        assert [dialog.models.itemText(i) for i in range(dialog.models.count())] == ["qwen-7b", "llama-8b"]
        assert "llama.cpp server" in dialog.status.text() and "6,144" in dialog.status.text()
        assert "exact" in dialog.status.text()
        dialog.accept()
        panel = window.model_panel
        assert panel.server is not None and panel.server.model == "qwen-7b"
        assert "qwen-7b on " in panel.selector.currentText()
        assert panel.n_ctx == 6144 and not panel.kv_selector.isEnabled()
        bar = panel.memory_bar.describe()
        assert "runs on the server" in bar and "6,144" in bar and "RAM" in bar

        doc = tmp_path / "day.txt"
        doc.write_text(conversation_day(3), encoding="utf-8")
        window.add_documents([doc])
        qtbot.waitUntil(lambda: window.plan is not None, timeout=15_000)
        date = window.rules.date.date().toString("yyyy-MM-dd")
        flags = ["summarize", str(doc), "--server", server.url, "--server-model", "qwen-7b", "--server-key-env",
                 "TEAM_KEY", "--strategy", "rolling", "--date", date]
        assert window.request() == request_from_args(build_parser().parse_args(flags))   # the server's context
        assert window.plan.budget.n_ctx == 6144
        assert "depends on the server" in window.plan_view.text()
        assert window.run_button.isEnabled()
        window.start_run()
        qtbot.waitUntil(lambda: window.run.outcome != "", timeout=30_000)
        assert window.run.outcome == "finished", window.status_line.text()
        assert "Alice will update the changelog" in window.results.summary_view.toPlainText()
        run_json = json.loads((window.run.state.directory / "state.json").read_text(encoding="utf-8"))
        assert run_json["settings"]["kind"] == "llama.cpp server" and run_json["settings"]["model"] == "qwen-7b"
        generations = [r for r in script.requests if r[1] == "/v1/chat/completions"]
        assert generations and all(r[3].get("Authorization") == "Bearer sesame" for r in generations)
    # Remembered for next time: the server and the key's variable, never the key.
    window.save_state()
    saved = load_settings()
    assert (saved.server_url, saved.server_model, saved.server_key_env) == (server.url, "qwen-7b", "TEAM_KEY")
    assert not [p for p in window.run.state.directory.parent.parent.rglob("*") if p.is_file()
                and "sesame" in p.read_text(encoding="utf-8", errors="replace")]


def test_a_server_that_refuses_the_key_says_so_in_the_dialog_and_changes_nothing(window, qtbot, monkeypatch):
    monkeypatch.delenv("PRECIS_API_KEY", raising=False)
    with FakeOpenAIServer(Script(api_key="sesame")) as server:
        dialog = _choose_server(window, qtbot, server.url)
        assert "HTTP 401" in dialog.status.text() and "PRECIS_API_KEY" in dialog.status.text()
        assert "not set" in dialog.key_state.text()
        assert not dialog.ok_button.isEnabled()
        dialog.reject()
    assert window.model_panel.server is None and window.model_panel.facts is not None   # the local model stays
    assert window.findChild(QPushButton, "runButton") is not None


def test_a_server_that_does_not_say_its_context_gets_the_whole_slider_from_4096(window, qtbot):
    with FakeOpenAIServer(Script(kind="llama-cpp-python")) as server:
        dialog = _choose_server(window, qtbot, server.url)
        assert "assumed" in dialog.status.text()
        dialog.accept()
        panel = window.model_panel
        assert panel.n_ctx == 4096 and not panel.uses_server_context
        assert panel.slider.maximum() * 256 > 4096                  # the person may set what it was started with
        panel.set_n_ctx(8192)
        assert panel.n_ctx == 8192 and window.request().n_ctx == 8192
        assert "does not say" in panel.memory_bar.describe()


def test_the_plan_shown_for_a_server_is_the_plan_its_run_follows(window, qtbot, tmp_path):
    """The served model's GGUF is on this machine: its size caps the parts, in the preview as in the run."""
    window.rules.strategy.setCurrentText("auto")
    with FakeOpenAIServer(served_here()) as server:
        _choose_server(window, qtbot, server.url).accept()
        window.add_documents([day_file(tmp_path)])
        qtbot.waitUntil(lambda: window.plan is not None, timeout=15_000)
        shown = window.plan
        window.start_run()
        qtbot.waitUntil(lambda: window.run.outcome != "", timeout=60_000)
    assert window.run.outcome == "finished", window.status_line.text()
    ran = window.run.plan
    assert [c.tokens for d in shown.documents for c in d.chunks] == [c.tokens for d in ran.documents for c in d.chunks]
    assert shown.budget == ran.budget and window.run.state.strategy == "notes"     # "auto" read its size
    assert max(c.tokens for d in ran.documents for c in d.chunks) <= 1024 < ran.budget.n_ctx // 2
