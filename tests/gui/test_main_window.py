"""The window with pytest-qt, offscreen: real drop events, the slider, runs with the scripted fake runtime."""
from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest
from PySide6.QtCore import QMimeData, QPoint, QPointF, Qt, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import QApplication, QLabel, QListWidget, QMessageBox, QPushButton, QSlider, QSpinBox, QWidget

from precis import gui
from precis.engine.errors import ModelLoadError
from precis.engine.prompts.presets import load_preset
from precis.engine.storage.speed_log import known_speeds
from precis.gui.document_panel import ERROR_ROLE
from precis.gui.workers import load_real_runtime
from precis.models.cli.main import build_parser, main
from precis.models.library.bundled import bundled_model_path
from precis.models.session.request import request_from_args
from tests.fake_runtime import FakeRuntime, diligent
from tests.summary_fixtures import conversation_day, meeting_transcript

OBJECT_NAMES = ["documentList", "modelSelector", "contextSlider", "kvTypeSelector", "memoryBar", "planView",
                "runButton", "stopButton", "lengthCurve", "roundInspector", "liveOutput", "summaryView", "summaryWords"]


def fake_factory(script=diligent, delay=0.0, calls=None, prompt_delay=0.0):
    def factory(path, settings, vocab_only=False):
        if calls is not None and not vocab_only:
            calls.append(path)
        return FakeRuntime(script=script, n_ctx=settings.n_ctx, settings=settings, token_delay_s=delay,
                           prompt_token_delay_s=prompt_delay)
    return factory


def _drop(window, paths: list[Path]) -> None:
    """Deliver a real drag-enter + drop with file URLs, as the OS would."""
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(p)) for p in paths])
    pos = QPoint(window.width() // 2, window.height() // 2)
    enter = QDragEnterEvent(pos, Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
                            Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(window, enter)
    assert enter.isAccepted()
    drop = QDropEvent(QPointF(pos), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(window, drop)


@pytest.fixture
def make_window(qtbot):
    windows = []

    def make(strategy="rolling", **kwargs):
        window = gui.create_main_window(**kwargs)
        qtbot.addWidget(window)
        window.rules.strategy.setCurrentText(strategy)   # these tests follow the rolling loop's rounds
        window.show()
        windows.append(window)
        return window
    yield make
    for w in windows:
        w.shutdown()


def _day_file(tmp_path, sessions=8, noise=(4,)) -> Path:
    path = tmp_path / "day.txt"
    path.write_text(conversation_day(sessions, noise), encoding="utf-8")
    return path


def _wait_plan(qtbot, window):
    qtbot.waitUntil(lambda: window.plan is not None or bool(window.plan_error), timeout=20_000)


def test_key_widgets_have_stable_names_and_the_default_model(make_window):
    window = make_window(runtime_factory=fake_factory())
    for name in OBJECT_NAMES:
        assert window.findChild(QWidget, name) is not None, name
    assert "SmolLM2 135M Instruct" in window.model_panel.facts_label.text()
    assert "8,192" in window.model_panel.facts_label.text()


def test_dropping_files_and_folders_fills_the_list(make_window, qtbot, tmp_path):
    window = make_window(runtime_factory=fake_factory())
    notes = tmp_path / "notes.md"
    notes.write_text("# Notes\n\nThe release moved to Friday.\n", encoding="utf-8")
    binary = tmp_path / "photo.png"
    binary.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4)
    folder = tmp_path / "day"
    folder.mkdir()
    for name in ("a.txt", "b.txt"):
        (folder / name).write_text(f"content of {name}\n", encoding="utf-8")
    _drop(window, [notes, binary, folder])
    items = window.findChild(QListWidget, "documentList")
    assert window.documents.reading and items.count() == 1       # read off the GUI thread: a placeholder first
    qtbot.waitUntil(lambda: not window.documents.reading, timeout=10_000)
    assert items.count() == 4
    assert items.item(0).text().startswith(f"notes.md — markdown, {len(notes.read_text())} characters, ~")
    assert "binary" in items.item(1).data(ERROR_ROLE)   # shown inline; the good files are kept
    assert [d.name for d in window.documents.documents()] == ["notes.md", "a.txt", "b.txt"]
    items.item(0).setSelected(True)
    window.documents.remove_selected()
    assert [d.name for d in window.documents.documents()] == ["a.txt", "b.txt"]
    moved = items.takeItem(2)                           # what a drag to the top does to the model
    items.insertItem(0, moved)
    assert [d.name for d in window.documents.documents()] == ["b.txt", "a.txt"]


def test_slider_moves_memory_bar_and_plan_without_loading_the_model(make_window, qtbot, tmp_path):
    loads = []
    window = make_window(runtime_factory=fake_factory(calls=loads), tokenizer_factory=load_real_runtime)
    window.add_documents([_day_file(tmp_path)])
    slider = window.findChild(QSlider, "contextSlider")
    slider.setValue(2048 // 256)
    _wait_plan(qtbot, window)
    qtbot.waitUntil(lambda: window.plan is not None and window.plan.budget.n_ctx == 2048, timeout=20_000)
    kv_before = dict(window.model_panel.memory_bar.segments())["KV cache"]
    rounds_before = window.plan.rounds
    text_before = window.findChild(QLabel, "planView").text()
    slider.setValue(8192 // 256)
    assert dict(window.model_panel.memory_bar.segments())["KV cache"] == 4 * kv_before    # instantly, no wait
    qtbot.waitUntil(lambda: window.plan is not None and window.plan.budget.n_ctx == 8192, timeout=20_000)
    assert window.plan.rounds < rounds_before
    assert window.findChild(QLabel, "planView").text() != text_before
    assert "context 8,192" in window.findChild(QLabel, "planView").text()
    assert loads == []                                                 # no model was loaded


def test_the_plan_says_the_summarys_length_and_the_person_can_ask_for_another(make_window, qtbot, tmp_path):
    """The notes strategy writes a summary of a length the plan states; the "Summary length" box asks for
    another, as `--summary-words` does, and the plan follows it. A strategy whose model says how long (the
    rolling loop) has no such line."""
    window = make_window(runtime_factory=fake_factory(), tokenizer_factory=load_real_runtime)
    window.rules.strategy.setCurrentText("rolling")
    window.add_documents([_day_file(tmp_path)])
    _wait_plan(qtbot, window)
    view = window.findChild(QLabel, "planView")
    qtbot.waitUntil(lambda: window.plan is not None and window.plan.strategy == "rolling", timeout=20_000)
    assert "Summary length" not in view.text()
    window.rules.strategy.setCurrentText("notes")
    qtbot.waitUntil(lambda: window.plan is not None and window.plan.strategy == "notes", timeout=20_000)
    assert window.request().summary_words is None
    planned = window.plan.summary_chars()[0]
    assert f"Summary length: about {planned // 6:,} words ({planned:,} characters to read), from the document" \
        in view.text()
    box = window.findChild(QSpinBox, "summaryWords")
    assert box.text() == "Automatic"
    box.setValue(300)
    qtbot.waitUntil(lambda: window.plan is not None and window.plan.summary_words == 300, timeout=20_000)
    assert window.request().summary_words == 300
    assert "Summary length: about 300 words (1,800 characters to read), as asked" in view.text()
    assert window.plan.estimate.generated_tokens != 0


def test_the_automatic_preset_follows_the_documents_and_keeps_the_persons_rules(make_window, qtbot, tmp_path):
    window = make_window(runtime_factory=fake_factory(), tokenizer_factory=fake_factory())
    assert window.rules.preset.currentData() == "auto"                  # the default
    meeting = tmp_path / "meeting.txt"
    meeting.write_text(meeting_transcript(), encoding="utf-8")
    window.add_documents([meeting])
    qtbot.waitUntil(lambda: window.plan is not None and window.plan.layout.preset.name == "meeting-minutes",
                    timeout=20_000)
    note = window.findChild(QLabel, "presetChosen")
    assert note.isVisible() and note.text() == "Meeting minutes, for a meeting transcript (12 turns of 4 speakers)"
    assert window.rules.rules.toPlainText() == load_preset("meeting-minutes").rules
    assert "preset meeting-minutes, for a meeting transcript" in window.findChild(QLabel, "planView").text()
    assert window.request().preset == "auto" and window.request().rules_text == ""
    window.rules.rules.setPlainText("Only the decisions, with who took them.")     # the person's own rules
    window.add_documents([_day_file(tmp_path)])              # more characters of a day with an assistant
    qtbot.waitUntil(lambda: window.plan is not None and window.plan.layout.preset.name == "conversation-archive",
                    timeout=20_000)
    assert "the kind of most of the 2 documents" in note.text()
    assert window.rules.rules.toPlainText() == "Only the decisions, with who took them."
    assert window.request().rules_text == "Only the decisions, with who took them."
    window.documents.mode.setCurrentIndex(1)                 # a summary per file: each follows its own kind
    qtbot.waitUntil(lambda: window.plan is not None and len(window.plan.document_layouts) == 2, timeout=20_000)
    assert note.text() == "By file: meeting.txt meeting minutes, day.txt conversation archive"
    assert "preset by file: meeting.txt meeting-minutes; day.txt conversation-archive" in window.plan_view.text()
    window.documents.mode.setCurrentIndex(0)
    items = window.findChild(QListWidget, "documentList")
    for i in range(items.count()):
        items.item(i).setSelected(True)
    window.documents.remove_selected()                      # no documents: the default until some are read
    qtbot.waitUntil(lambda: note.text() == "Conversation archive until documents are read", timeout=20_000)
    window.rules.set_preset("generic")                      # a preset chosen by hand: no note, its rules
    assert not note.isVisible() and window.rules.rules.toPlainText() == load_preset("generic").rules


def test_too_small_context_warns_with_the_fix(make_window, qtbot, tmp_path):
    window = make_window(runtime_factory=fake_factory(), tokenizer_factory=fake_factory())
    window.add_documents([_day_file(tmp_path)])
    window.model_panel.set_n_ctx(768)
    qtbot.waitUntil(lambda: "Use a context of" in window.plan_view.text(), timeout=10_000)
    assert not window.findChild(QPushButton, "runButton").isEnabled()


def _collapse_at(round_number):
    seen = {"n": 0}

    def script(call):
        if call.kind == "round" and not call.retry:
            seen["n"] += 1
        if seen["n"] == round_number and not call.retry:
            return "The summary remains unchanged."
        return diligent(call)
    return script


def test_run_puts_a_point_per_round_marks_the_collapse_and_inspects_it(make_window, qtbot, tmp_path):
    factory = fake_factory(script=_collapse_at(3))
    window = make_window(runtime_factory=factory, tokenizer_factory=factory)
    window.add_documents([_day_file(tmp_path, noise=())])
    window.model_panel.set_n_ctx(2048)
    qtbot.waitUntil(lambda: window.plan is not None and window.plan.budget.n_ctx == 2048, timeout=10_000)
    qtbot.mouseClick(window.findChild(QPushButton, "runButton"), Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: window.run.outcome == "finished", timeout=30_000)
    curve = window.curve
    assert curve.summary_series.count() == len(window.run.records) == window.run.plan.rounds
    assert curve.marker_indexes("collapse") == [2]                      # round 3, in red
    assert curve.marker_indexes("repaired") == [2]
    window.inspect_round(2)
    inspector = window.run_view.inspector
    record = window.run.records[2]
    assert inspector.chunk_view.toPlainText() == window.run.plan.documents[0].text[record.chunk_start_char:
                                                                              record.chunk_end_char]
    assert inspector.summary_in_view.toPlainText() == record.summary_in
    assert inspector.summary_out_view.toPlainText().startswith(record.summary)
    added, dropped = inspector.added_and_dropped()
    assert added and not dropped
    assert "repaired" in inspector.header.text() and "Round 3" in inspector.header.text()
    assert "Session 1" in window.findChild(QWidget, "summaryView").toPlainText()
    window.run_view.tokens_toggle.setChecked(True)
    assert curve.summary_series.at(0).y() == window.run.records[0].summary_tokens
    curve.export_png(tmp_path / "curve.png")
    curve.export_csv(tmp_path / "curve.csv")
    assert (tmp_path / "curve.png").read_bytes()[:4] == b"\x89PNG"
    with (tmp_path / "curve.csv").open(encoding="utf-8") as fh:
        rows = list(csv.reader(fh))
    assert len(rows) == len(window.run.records) + 1 and "repaired" in rows[3][-1]
    paths = window.results.save_all(tmp_path / "out", window.run.state)
    assert [p.name for p in paths] == [f"{window.rules.date.date().toString('yyyy-MM-dd')}-{n}"
                                       for n in ("summary.md", "todos.md", "run.json")]


def test_the_window_notes_each_event_in_the_words_the_command_line_prints(make_window, qtbot, tmp_path,
                                                                         monkeypatch, capsys):
    """The same document, options and scripted model in the window and through `precis summarize`: the
    panels build the request those flags build, and every note the window shows (a failed check, its repair,
    a skipped noisy part) is a line the command line printed."""
    doc = _day_file(tmp_path)
    factory = fake_factory(script=_collapse_at(3))
    window = make_window(runtime_factory=factory, tokenizer_factory=factory)
    notes: list[str] = []
    window.run.noted.connect(notes.append)
    window.add_documents([doc])
    window.model_panel.set_n_ctx(2048)
    window.model_panel.set_kv_type("q8_0")
    qtbot.waitUntil(lambda: window.plan is not None and window.plan.budget.n_ctx == 2048, timeout=10_000)
    window.start_run()
    qtbot.waitUntil(lambda: window.run.outcome == "finished", timeout=30_000)
    flags = ["summarize", str(doc), "--n-ctx", "2048", "--kv-type", "q8_0", "--strategy", "rolling", "--date",
             window.rules.date.date().toString("yyyy-MM-dd")]
    assert window.request() == request_from_args(build_parser().parse_args(flags))
    monkeypatch.setattr("precis.engine.runtime.llama.LlamaRuntime.load", staticmethod(fake_factory(_collapse_at(3))))
    assert main([*flags, "--out", str(tmp_path / "out")]) == 0
    printed = capsys.readouterr().err.splitlines()
    assert any("failed check" in n for n in notes) and any("repaired by" in n for n in notes)
    assert any("nothing to add" in n for n in notes)
    assert [line for line in printed if line in notes] == notes


def test_a_run_in_the_window_records_speeds_for_the_next_time_estimate(make_window, qtbot, tmp_path):
    factory = fake_factory(delay=0.0005, prompt_delay=0.00002)           # measurable prompt and generation time
    window = make_window(runtime_factory=factory, tokenizer_factory=factory)
    window.add_documents([_day_file(tmp_path, noise=())])
    qtbot.waitUntil(lambda: window.plan is not None, timeout=10_000)
    assert window.plan.estimate.seconds is None                      # never measured on this machine
    assert "Time: unknown" in window.plan_view.text()
    window.start_run()
    qtbot.waitUntil(lambda: window.run.outcome == "finished", timeout=30_000)
    assert known_speeds(bundled_model_path()) is not None            # the same store `precis plan` reads
    qtbot.waitUntil(lambda: window.plan is not None, timeout=10_000)  # re-planned with the measured speed
    assert window.plan.estimate.seconds is not None and "Time: about" in window.plan_view.text()


def test_stop_ends_cancelled_and_keeps_finished_rounds_then_resume_offers(make_window, qtbot, tmp_path):
    factory = fake_factory(delay=0.01)
    window = make_window(runtime_factory=factory, tokenizer_factory=fake_factory())
    window.add_documents([_day_file(tmp_path, noise=())])
    window.model_panel.set_n_ctx(2048)
    qtbot.waitUntil(lambda: window.plan is not None and window.plan.budget.n_ctx == 2048, timeout=10_000)
    window.start_run()
    qtbot.waitUntil(lambda: len(window.run.records) >= 2, timeout=30_000)
    qtbot.mouseClick(window.findChild(QPushButton, "stopButton"), Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: window.run.outcome != "", timeout=30_000)
    assert window.run.outcome == "cancelled"
    kept = len(window.run.records)
    assert kept >= 2 and len(window.run.state.rounds) == kept and window.run.state.status == "cancelled"
    assert "Stopped after" in window.status_line.text()
    assert window.resume_banner.isVisible()                             # the unfinished run can be resumed
    window.model_owner._factory = fake_factory()                             # no delay for the rest
    qtbot.mouseClick(window.resume_banner.button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: window.run.outcome == "finished", timeout=30_000)
    assert window.run.state.status == "finished" and len(window.run.state.rounds) == window.run.plan.rounds
    # The rounds from before the stop are still on the curve and in the list, in order.
    assert [r.index for r in window.run.records] == list(range(window.run.plan.rounds))
    assert window.curve.summary_series.count() == window.run_view.round_list.count() == window.run.plan.rounds


def test_unfinished_run_is_offered_at_start_up(make_window, qtbot, tmp_path):
    first = make_window(runtime_factory=fake_factory(delay=0.01), tokenizer_factory=fake_factory())
    first.add_documents([_day_file(tmp_path, noise=())])
    qtbot.waitUntil(lambda: first.plan is not None, timeout=10_000)
    first.start_run()
    qtbot.waitUntil(lambda: len(first.run.records) >= 1, timeout=30_000)
    first.close()                                                       # quit mid-run
    second = make_window(runtime_factory=fake_factory(), tokenizer_factory=fake_factory())
    assert second.resume_banner.isVisible() and "can be resumed" in second.resume_banner.label.text()


def test_worker_error_reaches_a_dialog(make_window, qtbot, tmp_path):
    def broken(path, settings, vocab_only=False):
        if vocab_only:
            return FakeRuntime(n_ctx=settings.n_ctx)
        raise ModelLoadError("Could not load model.gguf: tensor data is cut short. Download it again.")
    window = make_window(runtime_factory=broken)
    window.add_documents([_day_file(tmp_path)])
    qtbot.waitUntil(lambda: window.plan is not None, timeout=20_000)
    window.start_run()
    qtbot.waitUntil(lambda: window.run.outcome == "failed", timeout=10_000)
    dialog = window.error_dialog
    assert isinstance(dialog, QMessageBox) and dialog.isVisible()
    assert "tensor data is cut short" in dialog.text()
    assert window.findChild(QPushButton, "runButton").isEnabled()       # the app stays usable


def test_crash_inside_the_engine_reaches_a_dialog_and_keeps_rounds(make_window, qtbot, tmp_path):
    calls = {"n": 0}

    def script(call):
        calls["n"] += 1
        if calls["n"] == 3:
            raise RuntimeError("llama_decode failed")
        return diligent(call)
    factory = fake_factory(script=script)
    window = make_window(runtime_factory=factory, tokenizer_factory=factory)
    window.add_documents([_day_file(tmp_path, noise=())])
    qtbot.waitUntil(lambda: window.plan is not None, timeout=10_000)
    window.start_run()
    qtbot.waitUntil(lambda: window.run.outcome == "failed", timeout=10_000)
    assert "llama_decode failed" in window.error_dialog.text()
    assert len(window.run.state.rounds) == 2 and window.run.state.status == "failed"


def test_settings_and_recent_files_persist(make_window, qtbot, tmp_path):
    first = make_window(runtime_factory=fake_factory(), tokenizer_factory=fake_factory())
    doc = _day_file(tmp_path)
    first.add_documents([doc])
    first.model_panel.set_n_ctx(3072)
    first.model_panel.set_kv_type("q8_0")
    first.rules.set_preset("meeting-minutes")
    first.rules.length.setValue(400)
    first.close()
    second = make_window(runtime_factory=fake_factory(), tokenizer_factory=fake_factory())
    assert second.model_panel.n_ctx == 3072 and second.model_panel.kv_type == "q8_0"
    assert second.rules.preset.currentData() == "meeting-minutes" and second.rules.summary_words == 400
    assert [a.text() for a in second.recent_menu.actions()] == [str(doc)]


def test_a_corrupt_gguf_is_refused_and_the_model_kept(make_window, tmp_path):
    window = make_window(runtime_factory=fake_factory())
    bad = tmp_path / "broken.gguf"
    bad.write_bytes(b"GGUF" + b"\x03\x00\x00\x00" + b"\x00" * 10)
    assert window.model_panel.select_model(bad) is False
    assert window.error_dialog is not None and "broken.gguf" in window.error_dialog.text()
    assert "SmolLM2" in window.model_panel.facts_label.text()


def test_clicking_a_summary_lines_references_shows_its_quotes_in_the_source(make_window, qtbot, tmp_path):
    factory = fake_factory()
    window = make_window(runtime_factory=factory, tokenizer_factory=factory)
    window.add_documents([_day_file(tmp_path, sessions=3, noise=())])
    window.rules.strategy.setCurrentText("notes")
    qtbot.waitUntil(lambda: window.plan is not None, timeout=10_000)
    window.start_run()
    qtbot.waitUntil(lambda: window.run.outcome == "finished", timeout=30_000)
    evidence = window.results.evidence
    html_text = evidence.summary_view.toHtml()
    first = re.search(r"href=\"(notes:[^\"]+)\"", html_text).group(1)       # a link on a summary line
    assert "," not in first.rsplit(":", 1)[1]                                 # a line per note: one quote
    assert re.search(r"<h4[^>]*>(?:<[^>]+>)*(?:Done|Decisions and judgements|Reusable patterns)<", html_text)
    evidence.summary_view.anchorClicked.emit(QUrl(first))
    shown = evidence.evidence_view.toPlainText()
    note_id = int(first.rsplit(":", 1)[1].split(",")[0])
    note = next(n for n in window.run.state.notes["day.txt"] if n["id"] == note_id)
    assert note["quote"] in shown and f"part {note['part'] + 1}" in shown
    assert "background-color:#fff176" in evidence.evidence_view.toHtml().replace(" ", "")   # highlighted


def test_a_very_long_plan_asks_before_it_runs_and_run_waits_for_the_plan(make_window, qtbot, tmp_path, monkeypatch):
    monkeypatch.setattr("precis.models.session.plan_text.LONG_RUN_ROUNDS", 3)      # a "very long" plan, made small
    factory = fake_factory()
    window = make_window(runtime_factory=factory, tokenizer_factory=factory)
    window.add_documents([_day_file(tmp_path, sessions=6, noise=())])
    assert not window.findChild(QPushButton, "runButton").isEnabled()     # no Run before a plan exists
    qtbot.waitUntil(lambda: window.plan is not None, timeout=10_000)
    assert window.plan.rounds > 3
    window.findChild(QPushButton, "runButton").click()
    box = window.confirm_dialog
    assert box.isVisible() and f"{window.plan.rounds:,} rounds" in box.text() and not window.run.running
    box.button(QMessageBox.StandardButton.Yes).click()
    qtbot.waitUntil(lambda: window.run.outcome == "finished", timeout=30_000)


def test_a_document_read_with_a_guess_says_so_in_the_list(make_window, qtbot, tmp_path):
    window = make_window(runtime_factory=fake_factory())
    path = tmp_path / "notes.txt"
    path.write_bytes("Begoña measured 12 m² of the naïve café floor.\n".encode("cp1252") * 3)
    window.add_documents([path])
    qtbot.waitUntil(lambda: not window.documents.reading, timeout=10_000)
    item = window.findChild(QListWidget, "documentList").item(0)
    assert "read as cp1252" in item.text() and "sure" in item.toolTip()


def test_a_model_opened_from_elsewhere_stays_shown_when_the_scan_arrives(make_window, qtbot, tmp_path):
    """The screenshot once showed "SmolLM2 (bundled)" in the selector while a Qwen model from another folder
    was in use: the discovery result rebuilt the list without it."""
    import shutil

    from precis.models.library.bundled import bundled_model_path
    elsewhere = tmp_path / "not-scanned" / "my-model.gguf"
    elsewhere.parent.mkdir()
    shutil.copyfile(bundled_model_path(), elsewhere)
    window = make_window(runtime_factory=fake_factory(), model_path=elsewhere)
    panel = window.model_panel
    assert panel.selector.currentData() == str(elsewhere)
    panel.set_library(None)                                   # a scan that did not find it
    assert panel.model_path == elsewhere and panel.selector.currentData() == str(elsewhere)
    assert panel.selector.currentText() == "my-model.gguf"
