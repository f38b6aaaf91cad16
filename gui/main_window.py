"""The main window: documents, model and context against RAM, rules, the plan, the live length curve,
the round inspector and the results. It shows; the engine computes; one worker thread owns the model."""
from __future__ import annotations

import queue
import time
from pathlib import Path

from PySide6.QtCore import QSettings, Qt, QTimer
from PySide6.QtGui import QAction, QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import (QFileDialog, QGroupBox, QHBoxLayout, QLabel, QMainWindow, QMessageBox, QPushButton,
                               QSplitter, QVBoxLayout, QWidget)

from engine.app_settings import load_settings, save_settings
from engine.bundle import summary_texts
from engine.checkpoints import unfinished_runs
from engine.events import (CollapseDetected, CompactionDone, NoiseSkipped, RoundFinished, RoundStarted, RunFinished,
                           RunPlanned, TokensGenerated)
from engine.paths import config_dir
from engine.runtime import SamplingParams
from engine.summarizer import RunOptions
from gui.document_panel import DocumentPanel
from gui.download_dialog import DownloadDialog
from gui.model_panel import ModelPanel
from gui.plan_text import plan_html
from gui.rules_panel import RulesPanel
from gui.run_view import RunView
from gui.run_worker import PlanRequest, PlanWorker, RunJob, RunWorker, load_real_runtime
from models.bundled import bundled_model_path

PLAN_DEBOUNCE_MS = 150
PUMP_MS = 40              # how often worker messages are applied: smooth, and never a flood


class MainWindow(QMainWindow):

    def __init__(self, model_path: Path | None = None, runtime_factory=load_real_runtime,
                 tokenizer_factory=None) -> None:
        super().__init__()
        self.setWindowTitle("Precis")
        self.setAcceptDrops(True)
        self.settings = load_settings()
        self.plan = None
        self.plan_error = ""
        self.records: list = []
        self.state = None
        self.last_outcome = ""
        self.error_dialog: QMessageBox | None = None
        self.download_dialog: DownloadDialog | None = None
        self.running = False
        self._plan_sequence = 0
        self._run_started = 0.0
        self._total_rounds = 0
        self._tps = 0.0
        self._current_round = 0
        self._build_ui()
        self._start_threads(runtime_factory, tokenizer_factory or runtime_factory)
        self._restore(model_path)
        self._offer_resume()

    # ===== layout ================================================================================
    def _build_ui(self) -> None:
        left = QWidget(self)
        left_layout = QVBoxLayout(left)
        docs_box = QGroupBox("Documents — drop files or folders anywhere", left)
        self.documents = DocumentPanel(docs_box)
        QVBoxLayout(docs_box).addWidget(self.documents)
        model_box = QGroupBox("Model and context against RAM", left)
        self.model_panel = ModelPanel(self.settings.model_folders, model_box)
        QVBoxLayout(model_box).addWidget(self.model_panel)
        rules_box = QGroupBox("Strategy and rules", left)
        self.rules = RulesPanel(rules_box)
        QVBoxLayout(rules_box).addWidget(self.rules)
        left_layout.addWidget(docs_box, 2)
        left_layout.addWidget(model_box, 0)
        left_layout.addWidget(rules_box, 2)

        right = QWidget(self)
        right_layout = QVBoxLayout(right)
        self.resume_banner = QWidget(right)
        self.resume_banner.setObjectName("resumeBanner")
        banner = QHBoxLayout(self.resume_banner)
        self.resume_label = QLabel(self.resume_banner)
        self.resume_button = QPushButton("Resume", self.resume_banner)
        self.resume_button.setObjectName("resumeButton")
        dismiss = QPushButton("Dismiss", self.resume_banner)
        dismiss.clicked.connect(self.resume_banner.hide)
        self.resume_button.clicked.connect(self._on_resume_clicked)
        banner.addWidget(self.resume_label, 1)
        banner.addWidget(self.resume_button)
        banner.addWidget(dismiss)
        self.resume_banner.hide()
        right_layout.addWidget(self.resume_banner)
        self.plan_view = QLabel(right)
        self.plan_view.setObjectName("planView")
        self.plan_view.setWordWrap(True)
        self.plan_view.setTextFormat(Qt.TextFormat.RichText)
        self.plan_view.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        right_layout.addWidget(self.plan_view)

        self.run_view = RunView(right)
        self.run_view.round_selected.connect(self.inspect_round)
        v = self.run_view
        self.curve, self.tokens_toggle, self.tabs = v.curve, v.tokens_toggle, v.tabs
        self.live_output, self.round_list, self.inspector, self.results = v.live_output, v.round_list, v.inspector, \
            v.results
        right_layout.addWidget(self.run_view, 1)

        run_row = QHBoxLayout()
        self.run_button = QPushButton("Run", right)
        self.run_button.setObjectName("runButton")
        self.run_button.setDefault(True)
        self.run_button.clicked.connect(lambda: self.start_run())
        self.stop_button = QPushButton("Stop", right)
        self.stop_button.setObjectName("stopButton")
        self.stop_button.setEnabled(False)
        self.stop_button.clicked.connect(self.stop_run)
        self.save_button = QPushButton("Save all…", right)
        self.save_button.setEnabled(False)
        self.save_button.clicked.connect(self._on_save_all_clicked)
        self.status_line = QLabel("Ready", right)
        self.status_line.setObjectName("statusLine")
        run_row.addWidget(self.run_button)
        run_row.addWidget(self.stop_button)
        run_row.addWidget(self.status_line, 1)
        run_row.addWidget(self.save_button)
        right_layout.addLayout(run_row)

        main = QSplitter(Qt.Orientation.Horizontal, self)
        main.addWidget(left)
        main.addWidget(right)
        main.setSizes([420, 860])
        self.setCentralWidget(main)
        self._build_menu()

        self.documents.changed.connect(self._schedule_plan)
        self.model_panel.changed.connect(self._schedule_plan)
        self.model_panel.model_failed.connect(lambda msg: self.show_error("This model cannot be used", msg))
        self.model_panel.download_requested.connect(self.open_download_dialog)
        self.rules.changed.connect(self._schedule_plan)
        self._plan_timer = QTimer(self, singleShot=True, interval=PLAN_DEBOUNCE_MS)
        self._plan_timer.timeout.connect(self._request_plan)
        self._clock = QTimer(self, interval=500)
        self._clock.timeout.connect(self._update_status)

    def _build_menu(self) -> None:
        file_menu = self.menuBar().addMenu("&File")
        open_action = QAction("&Open documents…", self, shortcut="Ctrl+O")
        open_action.triggered.connect(self.documents._on_open_clicked)
        file_menu.addAction(open_action)
        self.recent_menu = file_menu.addMenu("Open &recent")
        self._fill_recent()
        save_action = QAction("&Save all…", self, shortcut="Ctrl+S")
        save_action.triggered.connect(self._on_save_all_clicked)
        file_menu.addAction(save_action)
        file_menu.addSeparator()
        download_action = QAction("&Download a model…", self)
        download_action.triggered.connect(self.open_download_dialog)
        file_menu.addAction(download_action)
        quit_action = QAction("&Quit", self, shortcut="Ctrl+Q")
        quit_action.triggered.connect(self.close)
        file_menu.addAction(quit_action)

    def _fill_recent(self) -> None:
        self.recent_menu.clear()
        for path in self.settings.recent_files:
            action = self.recent_menu.addAction(path)
            action.triggered.connect(lambda _=False, p=path: self.add_documents([Path(p)]))
        self.recent_menu.setEnabled(bool(self.settings.recent_files))

    # ===== threads ===============================================================================
    def _start_threads(self, runtime_factory, tokenizer_factory) -> None:
        self.outbox: queue.SimpleQueue = queue.SimpleQueue()
        self.worker = RunWorker(self.outbox, runtime_factory)
        self.planner = PlanWorker(self.outbox, tokenizer_factory)
        self._pump = QTimer(self, interval=PUMP_MS)
        self._pump.timeout.connect(self._drain_outbox)
        self._pump.start()

    def _drain_outbox(self) -> None:
        """Apply what the worker threads posted, on the GUI thread, at screen speed."""
        handlers = {"event": self._on_event, "model_loaded": self.model_panel.show_measured,
                    "failed": self._on_worker_failed, "finished": self._on_run_finished,
                    "planned": self._on_planned, "plan_failed": self._on_plan_failed}
        deadline = time.perf_counter() + 0.03   # never hold the GUI thread for long, even after a burst
        while time.perf_counter() < deadline:
            try:
                kind, *args = self.outbox.get_nowait()
            except queue.Empty:
                break
            handlers[kind](*args)

    def shutdown(self) -> None:
        """Stop the run and both owner threads; each closes its runtime in its own thread."""
        self.worker.cancel.cancel()
        self._pump.stop()
        for owner in (self.worker, self.planner):
            if owner.alive:
                owner.stop()

    # ===== settings ==============================================================================
    def _restore(self, model_path: Path | None) -> None:
        s = self.settings
        self.rules.set_preset(s.preset, s.rules_override)
        self.rules.strategy.setCurrentText(s.strategy)
        self.rules.language.setText(s.language)
        self.documents.mode.setCurrentIndex(1 if s.per_file else 0)
        self.model_panel.set_kv_type(s.kv_type)
        preferred = model_path or (Path(s.model) if s.model != "default" else bundled_model_path())
        self.model_panel.slider.setMaximum(max(1, s.n_ctx // 256))
        self.model_panel.slider.setValue(max(1, s.n_ctx // 256))
        if not self.model_panel.select_model(preferred):
            self.model_panel.select_model(bundled_model_path())
        self.model_panel.set_n_ctx(s.n_ctx)
        geometry = self._qsettings().value("geometry")
        if geometry is not None:
            self.restoreGeometry(geometry)
        else:
            self.resize(1320, 860)

    def _qsettings(self) -> QSettings:
        return QSettings(str(config_dir() / "window.ini"), QSettings.Format.IniFormat)

    def save_state(self) -> None:
        s = self.settings
        bundled = bundled_model_path()
        s.model = "default" if self.model_panel.model_path == bundled else str(self.model_panel.model_path)
        s.n_ctx, s.kv_type = self.model_panel.n_ctx, self.model_panel.kv_type
        s.strategy, s.preset = self.rules.strategy.currentText(), self.rules.preset.currentData()
        s.rules_override = self.rules.rules.toPlainText() if self.rules.rules_overridden else ""
        s.language, s.per_file = self.rules.language.text(), self.documents.per_file
        save_settings(s)
        self._qsettings().setValue("geometry", self.saveGeometry())

    def closeEvent(self, event) -> None:  # noqa: N802 - Qt override
        self.save_state()
        self.shutdown()
        super().closeEvent(event)

    # ===== documents =============================================================================
    def add_documents(self, paths: list[Path]) -> None:
        self.documents.add_paths(paths)
        self.settings.remember_files([p for p in paths if Path(p).exists()])
        self._fill_recent()

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:  # noqa: N802 - Qt override
        if event.mimeData().hasUrls():
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:  # noqa: N802 - Qt override
        paths = [Path(u.toLocalFile()) for u in event.mimeData().urls() if u.isLocalFile()]
        if paths:
            self.add_documents(paths)
            event.acceptProposedAction()

    def _texts(self) -> list:
        docs = self.documents.documents()
        return summary_texts(docs, self.documents.per_file) if docs else []

    # ===== the plan ==============================================================================
    def _schedule_plan(self) -> None:
        self._plan_timer.start()

    def _request_plan(self) -> None:
        texts = self._texts()
        if not texts or self.model_panel.facts is None:
            self.plan = None
            self.plan_view.setText("<i>Drop documents to see the plan: chunk size, rounds, tokens and time.</i>")
            self._update_run_button()
            return
        self._plan_sequence += 1
        self.planner.latest_sequence = self._plan_sequence
        self.planner.submit(PlanRequest(self._plan_sequence, self.model_panel.model_path,
                                             self.model_panel.settings(), texts, self.rules.layout_for_run()))

    def _on_planned(self, sequence: int, plan) -> None:
        if sequence != self._plan_sequence:
            return
        self.plan, self.plan_error = plan, ""
        self.plan_view.setText(plan_html(plan, self.model_panel.memory_bar.plan))
        if self.documents.per_file:
            self.documents.set_exact_tokens({d.name: d.tokens for d in plan.documents})
        self._update_run_button()

    def _on_plan_failed(self, sequence: int, message: str) -> None:
        if sequence != self._plan_sequence:
            return
        self.plan, self.plan_error = None, message
        self.plan_view.setText(f"<p style='color:#c62828'><b>Cannot plan:</b> {message}</p>")
        self._update_run_button()

    def _update_run_button(self) -> None:
        memory = self.model_panel.memory_bar.plan
        fits = memory is not None and memory.verdict != "won't fit"
        self.run_button.setEnabled(not self.running and self.plan is not None and fits)
        if memory is not None and not fits:
            self.run_button.setToolTip(f"This context won't fit in RAM; the largest that fits is {memory.max_n_ctx:,}.")
        else:
            self.run_button.setToolTip("")

    # ===== running ===============================================================================
    def start_run(self, resume_state=None) -> None:
        if self.running or (self.plan is None and resume_state is None):
            return
        layout = self.rules.layout_for_run()
        saved = {"model": str(self.model_panel.model_path), "n_ctx": self.model_panel.n_ctx,
                 "kv_type": self.model_panel.kv_type, "per_file": self.documents.per_file,
                 "preset": layout.preset.name, "rules_text": layout.preset.rules, "date": layout.date,
                 "language": layout.language, "strategy": self.rules.strategy.currentText()}
        options = RunOptions(self.rules.strategy.currentText(), sampling=SamplingParams())
        overrides = {}
        if resume_state is not None:
            o = resume_state.options
            overrides = {k: o[v] for k, v in (("summary_out_cap", "summary_cap"), ("summary_in_cap", "summary_in_cap"),
                                              ("margin", "margin"), ("overlap_tokens", "overlap")) if o.get(v)}
        job = RunJob(self.model_panel.model_path, self.model_panel.settings(), self._texts(), layout, options,
                     [str(p) for p in self.documents.paths()], saved, overrides, resume_state)
        self.worker.cancel = type(self.worker.cancel)()
        self.records, self.state, self.last_outcome = [], None, ""
        self.curve.clear()
        self.round_list.clear()
        self.live_output.clear()
        if resume_state is not None:     # the finished rounds stay on the curve and in the list
            for record in resume_state.records():
                self._show_finished_round(record)
        self.running = True
        self._run_started = time.perf_counter()
        self.run_button.setEnabled(False)
        self.stop_button.setEnabled(True)
        self.save_button.setEnabled(False)
        self.status_line.setText("Loading the model…")
        self._clock.start()
        self.worker.submit(job)

    def stop_run(self) -> None:
        self.worker.cancel.cancel()
        self.stop_button.setEnabled(False)
        self.status_line.setText("Stopping after the current token…")

    def _on_event(self, event) -> None:
        if isinstance(event, RunPlanned):
            self._total_rounds = event.rounds
            if event.resumed_from:
                self.status_line.setText(f"Resuming after {event.resumed_from} finished rounds")
        elif isinstance(event, RoundStarted):
            self._current_round = event.index + 1
            self.live_output.clear()
            if event.attempt > 1:
                self.live_output.setPlainText("(retrying with stricter settings)\n")
        elif isinstance(event, TokensGenerated):
            self._tps = event.tokens_per_second
            self.live_output.setPlainText(event.text)
            self.live_output.verticalScrollBar().setValue(self.live_output.verticalScrollBar().maximum())
        elif isinstance(event, RoundFinished):
            self._show_finished_round(event.record)
        elif isinstance(event, (CollapseDetected, CompactionDone, NoiseSkipped)):
            self.statusBar().showMessage(_event_note(event), 8000)
        elif isinstance(event, RunFinished):
            self.results.show_summary(event.summaries, "" if event.outcome == "finished" else event.message)
        self._update_status()

    def _show_finished_round(self, r) -> None:
        self.records.append(r)
        self.curve.add_round(r)
        flags = f" · {', '.join(r.flags)}" if r.flags else ""
        self.round_list.addItem(f"{r.index + 1} · {r.kind} · {r.summary_chars:,} chars{flags}")
        if r.collapsed:
            self.round_list.item(self.round_list.count() - 1).setForeground(Qt.GlobalColor.red)

    def _on_run_finished(self, outcome: str, payload: dict) -> None:
        self.running = False
        self.last_outcome = outcome
        self._clock.stop()
        self.state = payload.get("state")
        if payload.get("report"):
            self.results.show_report(payload["report"])
            self.save_button.setEnabled(True)
        self.stop_button.setEnabled(False)
        self._update_run_button()
        elapsed = time.perf_counter() - self._run_started
        done = len(self.records)
        self.status_line.setText({"finished": f"Finished: {done} rounds in {_clock(elapsed)}",
                                  "cancelled": f"Stopped after {done} rounds; they are kept (Resume continues)",
                                  }.get(outcome, f"Failed after {done} rounds; finished rounds are kept"))
        if outcome == "finished":
            self.tabs.setCurrentWidget(self.results)
        self._offer_resume()

    def _update_status(self) -> None:
        if not self.running or not self._total_rounds:
            return
        elapsed = time.perf_counter() - self._run_started
        done = len(self.records)
        left = elapsed / done * max(0, self._total_rounds - done) if done else 0
        self.status_line.setText(f"Round {min(self._current_round, self._total_rounds)} of {self._total_rounds} · "
                                 f"{self._tps:,.1f} tok/s · {_clock(elapsed)} elapsed"
                                 + (f" · ~{_clock(left)} left" if done else ""))

    def inspect_round(self, index: int) -> None:
        if not 0 <= index < len(self.records):
            return
        r = self.records[index]
        text, where = "", "no chunk (a compaction or merge round)"
        if self.plan is not None and r.chunk_index >= 0:
            doc = next((d for d in self.plan.documents if d.name == r.document), None)
            if doc is not None:
                text = doc.text[r.chunk_start_char:r.chunk_end_char]
                chunk = doc.chunks[r.chunk_index] if r.chunk_index < len(doc.chunks) else None
                lines = f", lines {chunk.start_line:,}-{chunk.end_line:,}" if chunk else ""
                where = f"{r.document}: characters {r.chunk_start_char:,}-{r.chunk_end_char:,}{lines}"
        self.inspector.show_round(r, text, where)
        if self.round_list.currentRow() != index:
            self.round_list.setCurrentRow(index)
        self.tabs.setCurrentIndex(1)

    # ===== resume, errors, saving ================================================================
    def _offer_resume(self) -> None:
        runs = unfinished_runs()
        self._resumable = runs[0] if runs else None
        if self._resumable is None or self.running:
            self.resume_banner.hide()
            return
        r = self._resumable
        self.resume_label.setText(f"An unfinished run ({r.status}, {len(r.rounds)} rounds done, "
                                  f"{', '.join(Path(f).name for f in r.files) or 'documents'}) can be resumed.")
        self.resume_banner.show()

    def _on_resume_clicked(self) -> None:
        r = self._resumable
        if r is None:
            return
        o = r.options
        missing = [f for f in r.files if not Path(f).is_file()]
        if missing:
            self.show_error("Cannot resume", f"{Path(missing[0]).name} is no longer at {missing[0]}.")
            return
        self.documents.list.clear()
        self.documents.add_paths([Path(f) for f in r.files])
        self.documents.mode.setCurrentIndex(1 if o.get("per_file") else 0)
        if o.get("model") and o["model"] != "default":
            self.model_panel.select_model(Path(o["model"]))
        self.model_panel.set_kv_type(o.get("kv_type", "f16"))
        self.model_panel.set_n_ctx(o.get("n_ctx", 4096))
        self.rules.set_preset(o.get("preset", "conversation-archive"), o.get("rules_text", ""))
        self.rules.strategy.setCurrentText(o.get("strategy", "rolling"))
        if o.get("date"):
            from PySide6.QtCore import QDate
            self.rules.date.setDate(QDate.fromString(o["date"], "yyyy-MM-dd"))
        self.rules.language.setText(o.get("language") or "")
        self.resume_banner.hide()
        self.start_run(resume_state=r)

    def _on_worker_failed(self, message: str) -> None:
        self.show_error("The run stopped with an error", message)

    def show_error(self, title: str, message: str) -> None:
        box = QMessageBox(QMessageBox.Icon.Critical, title, message, QMessageBox.StandardButton.Ok, self)
        box.setObjectName("errorDialog")
        self.error_dialog = box
        box.open()

    def open_download_dialog(self) -> DownloadDialog:
        if self.download_dialog is None:
            self.download_dialog = DownloadDialog(self)
            self.download_dialog.downloaded.connect(self._on_model_downloaded)
        self.download_dialog.show()
        self.download_dialog.raise_()
        return self.download_dialog

    def _on_model_downloaded(self, path: str) -> None:
        self.model_panel.rescan()
        self.model_panel.select_model(Path(path))

    def _on_save_all_clicked(self) -> None:
        if self.results.report is None or self.state is None:
            return
        folder = QFileDialog.getExistingDirectory(self, "Save summary, TODOs and run report to…")
        if folder:
            paths = self.results.save_all(Path(folder), self.state)
            self.statusBar().showMessage("Saved " + ", ".join(p.name for p in paths), 8000)


def _event_note(event) -> str:
    if isinstance(event, CollapseDetected):
        return f"Round {event.index + 1}: collapse ({', '.join(event.flags)}) — {event.detail}; repairing"
    if isinstance(event, CompactionDone):
        return f"Round {event.index + 1}: compaction {event.before_chars:,} → {event.after_chars:,} characters"
    return f"Round {event.index + 1}: {event.reason}"


def _clock(seconds: float) -> str:
    seconds = int(seconds)
    return f"{seconds // 60}:{seconds % 60:02d}"
