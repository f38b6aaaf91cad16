"""The sample document through the real bundled model, in the window, to the end."""
from __future__ import annotations

import pytest
from PySide6.QtWidgets import QPushButton

from precis import gui
from precis.engine.storage.speed_log import known_speeds
from precis.models.library.bundled import bundled_model_path

pytestmark = pytest.mark.real_model


def test_sample_document_runs_to_the_end_in_the_window(qtbot, tmp_path, sample_document):
    source = tmp_path / "day.txt"
    source.write_text(sample_document.read_text(encoding="utf-8")[:7000], encoding="utf-8")
    window = gui.create_main_window()
    qtbot.addWidget(window)
    window.show()
    window.add_documents([source])
    window.rules.strategy.setCurrentText("rolling")
    window.model_panel.set_n_ctx(2048)
    qtbot.waitUntil(lambda: window.plan is not None and window.plan.budget.n_ctx == 2048, timeout=30_000)
    planned = window.plan.rounds
    window.findChild(QPushButton, "runButton").click()
    qtbot.waitUntil(lambda: window.run.outcome != "", timeout=600_000)
    assert window.run.outcome == "finished", window.status_line.text()
    chunk_rounds = [r for r in window.run.records if r.kind == "round"]
    assert len(chunk_rounds) == planned
    assert window.curve.summary_series.count() == len(window.run.records)
    assert window.model_panel.measured is not None and window.model_panel.measured.kv_mib > 0   # real allocation
    assert "allocated" in window.model_panel.memory_bar.describe()
    assert window.results.summary_view.toPlainText().strip()
    reuse = window.results.report.prefix_reuse
    # evaluated once per run, not per round: again only after a call with another prompt (a failed part's notes)
    assert 1 <= reuse["static_prompt_evaluations"] <= 1 + reuse["prompt_switches"]
    # the window's run went through the session's run path: it measured this machine's speed
    assert known_speeds(bundled_model_path()) is not None
    window.shutdown()
