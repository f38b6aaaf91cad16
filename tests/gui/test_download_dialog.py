"""The download dialog against the local Hub server: search, badges, background download, cancel."""
from __future__ import annotations

from PySide6.QtWidgets import QComboBox, QPushButton

from precis import gui
from precis.models.library import hub
from tests.gguf_builder import llama_like, write_gguf
from tests.gui.test_main_window import fake_factory
from tests.hub_server import HubServer


def test_search_list_download_and_select(qtbot, tmp_path, monkeypatch):
    monkeypatch.setenv("PRECIS_TOOL_HOME", str(tmp_path / "user"))
    data = write_gguf(tmp_path / "m.gguf", *llama_like("qwen2", n_embd=512, n_vocab=4000)).read_bytes()
    big = (data * 4)[:25 * 2**20]
    with HubServer() as server:
        server.state.repos["acme/Small-GGUF"] = {"downloads": 7, "files": {"small-Q4_K_M.gguf": data,
                                                                            "big-Q8_0.gguf": big}}
        monkeypatch.setenv("PRECIS_HF_ENDPOINT", server.url)
        window = gui.create_main_window(runtime_factory=fake_factory())
        qtbot.addWidget(window)
        dialog = window.open_download_dialog()
        dialog.query.setText("small")
        dialog.search()
        qtbot.waitUntil(lambda: dialog.repos.count() == 1, timeout=10_000)
        dialog.repos.setCurrentRow(0)
        qtbot.waitUntil(lambda: dialog.files.topLevelItemCount() == 2, timeout=10_000)
        rows = [[dialog.files.topLevelItem(i).text(c) for c in range(4)] for i in range(2)]
        assert rows[0][0] == "small-Q4_K_M.gguf" and rows[0][2] == "Q4_K_M" and rows[0][3] == "fits"

        dialog.files.setCurrentItem(dialog.files.topLevelItem(1))          # the big one: cancel it midway
        server.state.cut_after["big-Q8_0.gguf"] = 15 * 2**20                # slow enough to cancel: it retries
        dialog.start_download()
        qtbot.waitUntil(lambda: dialog.progress.value() > 0, timeout=10_000)
        dialog.cancel_download()
        qtbot.waitUntil(lambda: not dialog.busy, timeout=20_000)
        assert "stopped; it resumes where it stopped" in dialog.message.text()
        assert hub.partial_bytes("acme/Small-GGUF", "big-Q8_0.gguf") >= 10 * 2**20

        dialog.files.setCurrentItem(dialog.files.topLevelItem(0))
        dialog.start_download()
        qtbot.waitUntil(lambda: dialog.last_path.endswith("small-Q4_K_M.gguf"), timeout=20_000)
        selector = window.findChild(QComboBox, "modelSelector")     # the rescan runs on the I/O thread
        qtbot.waitUntil(lambda: selector.currentText().startswith("acme/Small-GGUF/small-Q4_K_M.gguf"), timeout=10_000)
        assert "qwen2" in window.model_panel.facts_label.text()
        dialog.close()
        window.shutdown()


def test_no_network_is_a_message_not_a_crash(qtbot, monkeypatch):
    monkeypatch.setenv("PRECIS_HF_ENDPOINT", "http://127.0.0.1:9")
    window = gui.create_main_window(runtime_factory=fake_factory())
    qtbot.addWidget(window)
    dialog = window.open_download_dialog()
    dialog.query.setText("qwen")
    dialog.search()
    qtbot.waitUntil(lambda: "cannot be reached" in dialog.message.text(), timeout=10_000)
    assert window.findChild(QComboBox, "modelSelector").count() >= 3     # local models still listed
    window.shutdown()


def test_the_bundled_model_says_summaries_will_be_rough_and_a_recommendation_downloads(qtbot, tmp_path,
                                                                                       monkeypatch):
    from precis.models.library.curated import curated_models
    monkeypatch.setenv("PRECIS_TOOL_HOME", str(tmp_path / "user"))
    first = curated_models()[0]
    data = write_gguf(tmp_path / "q.gguf", *llama_like("qwen2", n_embd=512, n_vocab=4000)).read_bytes()
    with HubServer() as server:
        server.state.repos[first.repo] = {"downloads": 1, "files": {first.file: data}}
        monkeypatch.setenv("PRECIS_HF_ENDPOINT", server.url)
        window = gui.create_main_window(runtime_factory=fake_factory())
        qtbot.addWidget(window)
        window.show()
        notice = window.model_panel.rough_notice
        assert notice.isVisible() and "will be rough" in window.model_panel.rough_label.text()
        window.model_panel.findChild(QPushButton, "betterModelButton").click()
        dialog = window.download_dialog
        assert dialog is not None and dialog.isVisible()
        rows = dialog.recommended
        assert rows.topLevelItemCount() == len(curated_models())
        assert all(rows.topLevelItem(i).text(3) in ("fits", "tight", "won't fit") for i in range(rows.topLevelItemCount()))
        rows.setCurrentItem(rows.topLevelItem(0))
        dialog.download_recommended()
        qtbot.waitUntil(lambda: dialog.last_path.endswith(first.file), timeout=20_000)
        qtbot.waitUntil(lambda: "qwen2" in window.model_panel.facts_label.text(), timeout=10_000)
        from precis.models.library.profiles import profile_for  # the notice follows the selected model's size
        assert notice.isVisible() == profile_for(window.model_panel.facts.parameter_count).rough
        dialog.close()
        window.shutdown()
