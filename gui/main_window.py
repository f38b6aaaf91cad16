"""The main window: documents, model and context against RAM, rules, the plan, the live length curve,
the round inspector and the results. It shows; the engine computes; the workers (gui/workers.py)
read files, scan for models, plan and run off the GUI thread; the run controller owns the run."""
from __future__ import annotations

import queue
from pathlib import Path

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import (
    QFileDialog,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QMainWindow,
    QMessageBox,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from precis.engine.documents.token_estimate import estimate_tokens
from precis.engine.errors import PrecisError
from precis.engine.prompts.presets import AUTO_PRESET, DEFAULT_PRESET, PresetChoice
from precis.engine.runs.state import unfinished_runs
from precis.engine.storage.app_settings import load_settings
from precis.gui.document_panel import DocumentPanel, read_for_list
from precis.gui.download_dialog import DownloadDialog
from precis.gui.file_menu import FileMenu
from precis.gui.model_panel import ModelPanel
from precis.gui.plan_text import plan_html
from precis.gui.resume_banner import ResumeBanner
from precis.gui.rules_panel import RulesPanel
from precis.gui.run_controller import RUN_MESSAGES, RunController
from precis.gui.run_view import RunView
from precis.gui.server_dialog import ServerDialog
from precis.gui.window_settings import restore_panels, save_panels
from precis.gui.workers import (
    ModelOwner,
    PlanFailed,
    PlanJob,
    Planned,
    PlanOwner,
    PlanProgress,
    Pump,
    Task,
    TaskDone,
    TaskFailed,
    TaskOwner,
    load_real_runtime,
)
from precis.models.library.bundled import bundled_model_path
from precis.models.library.discovery import discover
from precis.models.session.job import resume_request
from precis.models.session.plan_text import long_run_warning
from precis.models.session.planner import read_documents
from precis.models.session.preflight import check_output_folder
from precis.models.session.progress import clock_text
from precis.models.session.request import SERVER_CONTEXT, RunRequest

PLAN_DEBOUNCE_MS = 150


class MainWindow(QMainWindow):

    def __init__(self, model_path: Path | None = None, runtime_factory=load_real_runtime,
                 tokenizer_factory=None) -> None:
        super().__init__()
        self.setWindowTitle("Precis")
        self.setAcceptDrops(True)
        self.settings = load_settings()
        self.plan = None
        self.plan_error = ""
        self.error_dialog: QMessageBox | None = None
        self.download_dialog: DownloadDialog | None = None
        self.server_dialog: ServerDialog | None = None
        self._plan_sequence = 0
        self._start_workers(runtime_factory, tokenizer_factory or runtime_factory)
        self._build_ui()
        self._restore(model_path)
        self._offer_resume()

    # ===== workers ===============================================================================
    def _start_workers(self, runtime_factory, tokenizer_factory) -> None:
        self.outbox: queue.SimpleQueue = queue.SimpleQueue()
        self.model_owner = ModelOwner(self.outbox, runtime_factory)
        self.planner = PlanOwner(self.outbox, tokenizer_factory)
        self.io = TaskOwner("precis-io", self.outbox)
        self.run = RunController(self.model_owner, self)
        self.pump = Pump(self, self.outbox, self._dispatch)

    def _dispatch(self, message) -> None:
        """Every worker message, applied on the GUI thread."""
        if isinstance(message, RUN_MESSAGES):
            self.run.handle(message)
        elif isinstance(message, Planned):
            self._on_planned(message)
        elif isinstance(message, PlanFailed):
            self._on_plan_failed(message)
        elif isinstance(message, PlanProgress) and message.sequence == self._plan_sequence:
            share = message.done_chars / max(1, message.total_chars)
            self.plan_view.setText(f"<i>Planning… {share:.0%} of {message.total_chars / 1e6:,.1f} million "
                                   "characters</i>")
        elif isinstance(message, (TaskDone, TaskFailed)):
            self._on_task(message)

    def _on_task(self, message) -> None:
        kind, *key = message.tag
        ok = isinstance(message, TaskDone)
        if kind == "documents":
            self.documents.finish_batch(key[0], message.value if ok else None, "" if ok else message.message)
        elif kind == "models" and ok:
            self.model_panel.set_library(message.value)
        elif kind == "server" and self.server_dialog is not None:
            self.server_dialog.probed(ok, message.value if ok else message.message)
        elif kind == "resume":
            if ok:
                self._resume_with(*message.value)
            else:
                self.show_error("Cannot resume", message.message)

    def shutdown(self) -> None:
        """Stop the run and every owner thread; each closes what it owns in its own thread."""
        self.model_owner.cancel.cancel()
        if self.server_dialog is not None:
            self.server_dialog.stop_fetch()      # the I/O thread must not wait out a silent server
        self.pump.stop()
        for owner in (self.model_owner, self.planner, self.io):
            if owner.alive:
                owner.stop()

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
        self.resume_banner = ResumeBanner(right)
        self.resume_banner.resume_requested.connect(self._on_resume_requested)
        right_layout.addWidget(self.resume_banner)
        self.plan_view = QLabel(right)
        self.plan_view.setObjectName("planView")
        self.plan_view.setWordWrap(True)
        self.plan_view.setTextFormat(Qt.TextFormat.RichText)
        self.plan_view.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        right_layout.addWidget(self.plan_view)
        self.run_view = RunView(self.run, right)
        self.run_view.round_selected.connect(self.inspect_round)
        self.curve, self.results = self.run_view.curve, self.run_view.results
        right_layout.addWidget(self.run_view, 1)
        right_layout.addLayout(self._run_row(right))

        main = QSplitter(Qt.Orientation.Horizontal, self)
        main.addWidget(left)
        main.addWidget(right)
        main.setSizes([420, 860])
        self.setCentralWidget(main)
        self._build_menu()

        self.documents.changed.connect(self._schedule_plan)
        self.documents.read_requested.connect(
            lambda batch, paths: self.io.submit(Task(("documents", batch), read_for_list, (paths,))))
        self.model_panel.changed.connect(self._schedule_plan)
        self.model_panel.model_failed.connect(lambda msg: self.show_error("This model cannot be used", msg))
        self.model_panel.download_requested.connect(self.open_download_dialog)
        self.model_panel.scan_requested.connect(self._scan_models)
        self.model_panel.server_requested.connect(self.open_server_dialog)
        self.rules.changed.connect(self._schedule_plan)
        self._plan_timer = QTimer(self, singleShot=True, interval=PLAN_DEBOUNCE_MS)
        self._plan_timer.timeout.connect(self._request_plan)
        self._clock = QTimer(self, interval=500)
        self._clock.timeout.connect(self._show_progress)
        self.run.started.connect(self._on_run_started)
        self.run.model_loaded.connect(self.model_panel.show_measured)
        self.run.noted.connect(lambda note: self.statusBar().showMessage(note, 8000))
        self.run.failed.connect(lambda message: self.show_error("The run stopped with an error", message))
        self.run.ended.connect(self._on_run_ended)
        self._scan_models(self.settings.model_folders)
        # Build the offline tokenizer for estimates now, while nothing else happens: its one-time setup
        # holds the GIL for ~60 ms, a visible hiccup if it runs while the window is busy.
        self.io.submit(Task(("warm-up",), estimate_tokens, ("warm up",)))

    def _run_row(self, parent) -> QHBoxLayout:
        row = QHBoxLayout()
        self.run_button = QPushButton("Run", parent)
        self.run_button.setObjectName("runButton")
        self.run_button.setDefault(True)
        self.run_button.clicked.connect(lambda: self.start_run())
        self.stop_button = QPushButton("Stop", parent)
        self.stop_button.setObjectName("stopButton")
        self.stop_button.setEnabled(False)
        self.stop_button.clicked.connect(self.stop_run)
        self.save_button = QPushButton("Save all…", parent)
        self.save_button.setEnabled(False)
        self.save_button.clicked.connect(self._on_save_all_clicked)
        self.status_line = QLabel("Ready", parent)
        self.status_line.setObjectName("statusLine")
        row.addWidget(self.run_button)
        row.addWidget(self.stop_button)
        row.addWidget(self.status_line, 1)
        row.addWidget(self.save_button)
        return row

    def _build_menu(self) -> None:
        self.file_menu = FileMenu(self.menuBar(), self.settings, open_documents=self.documents._on_open_clicked,
                                  open_recent=lambda path: self.add_documents([path]),
                                  save_all=self._on_save_all_clicked, download=self.open_download_dialog,
                                  quit_app=self.close)
        self.recent_menu = self.file_menu.recent

    def _fill_recent(self) -> None:
        self.file_menu.fill_recent()

    def _scan_models(self, folders: list[str]) -> None:
        self.io.submit(Task(("models",), discover, (list(folders),), {"n_ctx": self.model_panel.n_ctx or 4096}))

    # ===== settings ==============================================================================
    def _restore(self, model_path: Path | None) -> None:
        restore_panels(self, self.settings, model_path)

    def save_state(self) -> None:
        save_panels(self, self.settings)

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

    # ===== the run request and the plan ==========================================================
    def request(self) -> RunRequest:
        """What the panels say, as the run request `precis summarize` would build from its flags."""
        layout = self.rules.layout_for_run()
        panel = self.model_panel
        if panel.server is not None:       # the served model; its context is the server's at the slider's top
            model = {"server": panel.server.url, "server_model": panel.server.model,
                     "server_key_env": panel.server.key_env,
                     "n_ctx": SERVER_CONTEXT if panel.uses_server_context else panel.n_ctx}
        else:
            model = {"model": "default" if panel.model_path == bundled_model_path() else str(panel.model_path),
                     "n_ctx": panel.n_ctx, "kv_type": panel.kv_type,
                     "gpu_layers": "auto" if panel.gpu_layers is None else str(panel.gpu_layers)}
        return RunRequest(files=[str(p) for p in self.documents.paths()], strategy=self.rules.strategy.currentText(),
                          per_file=self.documents.per_file, preset=self.rules.preset.currentData(),
                          rules_text=layout.preset.rules if self.rules.rules_overridden else "", date=layout.date,
                          language=layout.language or "", summary_words=self.rules.summary_words, **model)

    def _schedule_plan(self) -> None:
        self._plan_sequence += 1          # whatever is being planned now is stale
        self.plan = None
        self._update_run_button()
        self._plan_timer.start()

    def _request_plan(self) -> None:
        docs = self.documents.documents()
        if not docs:
            self.rules.show_choice(PresetChoice(DEFAULT_PRESET, ""))     # "Automatic" until some are read
        if not docs or not self.model_panel.ready:
            self.plan_view.setText("<i>Reading the documents…</i>" if self.documents.reading else
                                   "<i>Drop documents to see the plan: chunk size, rounds, tokens and time.</i>")
            return
        self.plan_view.setText("<i>Planning…</i>")
        self.planner.latest_sequence = self._plan_sequence
        self.planner.submit(PlanJob(self._plan_sequence, self.request(), docs, self.model_panel.model_path))

    def _on_planned(self, message: Planned) -> None:
        if message.sequence != self._plan_sequence:
            return
        self.plan, self.plan_error = message.plan, ""
        self.plan_view.setText(plan_html(message.plan, self.model_panel.memory_bar.plan,
                                         on_server=self.model_panel.server is not None))
        if self.documents.per_file:
            self.documents.set_exact_tokens({d.name: d.tokens for d in message.plan.documents})
        if self.rules.preset.currentData() == AUTO_PRESET:         # the planner told the documents' kind
            layout = message.plan.layout
            self.rules.show_choice(PresetChoice(layout.preset.name, layout.preset_reason, tuple(
                (name, own.preset.name) for name, own in message.plan.document_layouts.items())))
        self._update_run_button()

    def _on_plan_failed(self, message: PlanFailed) -> None:
        if message.sequence != self._plan_sequence:
            return
        self.plan, self.plan_error = None, message.message
        self.plan_view.setText(f"<p style='color:#c62828'><b>Cannot plan:</b> {message.message}</p>")
        self._update_run_button()

    def _update_run_button(self) -> None:
        verdict = self.model_panel.memory_verdict
        fits = self.model_panel.server is not None or verdict not in ("", "won't fit")
        self.run_button.setEnabled(not self.run.running and self.plan is not None and fits)
        if verdict and not fits:
            self.run_button.setToolTip(self.model_panel.memory_short_text())
        else:
            self.run_button.setToolTip("" if self.plan is not None else "Waiting for the plan")

    # ===== running ===============================================================================
    def start_run(self, resume_state=None, request: RunRequest | None = None, documents=None) -> None:
        if self.run.running or (self.plan is None and resume_state is None):
            return
        warning = long_run_warning(self.plan) if resume_state is None else ""
        if warning:
            box = QMessageBox(QMessageBox.Icon.Question, "A very long run", warning,
                              QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No, self)
            box.setObjectName("confirmLongRun")
            box.setDefaultButton(QMessageBox.StandardButton.No)
            box.accepted.connect(lambda: self.run.start(request or self.request(), documents or
                                                        self.documents.documents(), None))
            self.confirm_dialog = box
            box.open()
            return
        self.run.start(request or self.request(), documents or self.documents.documents(), resume_state)

    def stop_run(self) -> None:
        self.run.stop()
        self.stop_button.setEnabled(False)
        self.status_line.setText("Stopping after the current token…")

    def _on_run_started(self) -> None:
        self.run_button.setEnabled(False)
        self.stop_button.setEnabled(True)
        self.save_button.setEnabled(False)
        self.resume_banner.hide()
        self.status_line.setText("Loading the model…")
        self._clock.start()

    def _show_progress(self) -> None:
        if self.run.running and self.run.progress.planned:
            self.status_line.setText(self.run.progress.status_text())

    def _on_run_ended(self, outcome: str) -> None:
        self._clock.stop()
        self.save_button.setEnabled(self.run.report is not None)
        self.stop_button.setEnabled(False)
        self._update_run_button()
        done = len(self.run.records)
        elapsed = clock_text(self.run.progress.elapsed_seconds)
        self.status_line.setText({"finished": f"Finished: {done} rounds in {elapsed}",
                                  "cancelled": f"Stopped after {done} rounds; they are kept (Resume continues)",
                                  }.get(outcome, f"Failed after {done} rounds; finished rounds are kept"))
        if outcome == "finished":
            self.run_view.show_results()
        if self.run.report is not None:
            self._schedule_plan()    # the time estimate now uses the speed this run measured
        self._offer_resume()

    def inspect_round(self, index: int) -> None:
        records = self.run.records
        if not 0 <= index < len(records):
            return
        plan = self.run.plan or self.plan
        self.run_view.inspect(records[index], plan)

    # ===== resume, errors, saving ================================================================
    def _offer_resume(self) -> None:
        runs = unfinished_runs()
        self.resume_banner.offer(runs[0] if runs and not self.run.running else None)

    def _on_resume_requested(self, run_id: str) -> None:
        """Read the run's documents off the GUI thread, then continue it with its own request."""
        def prepare():
            request, state = resume_request(run_id)
            return request, state, read_documents(request.files).documents
        self.resume_banner.hide()
        self.status_line.setText("Reading the run's documents…")
        self.io.submit(Task(("resume",), prepare))

    def _resume_with(self, request: RunRequest, state, documents) -> None:
        self.documents.show_documents(documents)
        self.documents.mode.setCurrentIndex(1 if request.per_file else 0)
        if request.server:
            pass                          # the run reconnects to its server; the panel keeps its choice
        else:
            if request.model != "default":
                self.model_panel.select_model(Path(request.model))
            self.model_panel.set_kv_type(request.kv_type)
            self.model_panel.set_n_ctx(request.n_ctx)
            if request.gpu_layers_asked is not None and self.model_panel.gpu_layers is not None:
                self.model_panel.set_gpu_layers(request.gpu_layers_asked)
        self.rules.apply_request(request)
        self.start_run(resume_state=state, request=request, documents=documents)

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

    def open_server_dialog(self) -> ServerDialog:
        """Model server…: URL, key variable, the server's models; OK runs the model there."""
        s = self.settings
        current = self.model_panel.server
        self.server_dialog = ServerDialog(
            self, lambda fn, args: self.io.submit(Task(("server",), fn, args)),
            current.url if current else s.server_url, current.model if current else s.server_model,
            current.key_env if current else s.server_key_env)
        self.server_dialog.accepted.connect(self._on_server_chosen)
        self.server_dialog.show()
        return self.server_dialog

    def _on_server_chosen(self) -> None:
        probe = self.server_dialog.probe if self.server_dialog is not None else None
        if probe is not None:
            self.model_panel.use_server(probe)

    def _on_model_downloaded(self, path: str) -> None:
        self.model_panel.rescan()
        self.model_panel.select_model(Path(path))

    def _on_save_all_clicked(self) -> None:
        if self.run.report is None or self.run.state is None:
            return
        folder = QFileDialog.getExistingDirectory(self, "Save summary, TODOs and run report to…")
        if folder:
            self.save_results(Path(folder))

    def save_results(self, folder: Path) -> list[Path]:
        """The same three files as `precis summarize --out`, after the same checks of the folder."""
        try:
            check_output_folder(folder)
            paths = self.results.save_all(folder, self.run.state)
        except (PrecisError, OSError) as exc:
            self.show_error("Cannot save the results", str(exc) if isinstance(exc, PrecisError) else
                            f"Writing into {folder} failed ({exc.strerror or exc}). The results are still in "
                            f"{self.run.state.directory}.")
            return []
        self.statusBar().showMessage("Saved " + ", ".join(p.name for p in paths), 8000)
        return paths
