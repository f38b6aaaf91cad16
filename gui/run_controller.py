"""The run as the window sees it: one controller owns the job on the model thread, the finished
rounds, the state, the report, the outcome and the progress; widgets only connect to its signals.

Messages from the model owner arrive through the window's pump (on the GUI thread) into ``handle``.
"""
from __future__ import annotations

from PySide6.QtCore import QObject, Signal

from precis.engine.events import RoundFinished, RoundStarted, RunFinished, RunPlanned, TokensGenerated
from precis.engine.runtime.protocol import CancelToken
from precis.gui.workers import JobFailed, ModelOwner, RunEnded, RunJob
from precis.models.session.event_text import NOTE_EVENTS, note_text
from precis.models.session.job import ModelLoaded, RunReported
from precis.models.session.progress import ProgressModel

RUN_MESSAGES = (RunPlanned, RoundStarted, TokensGenerated, RoundFinished, *NOTE_EVENTS, RunFinished, ModelLoaded,
                RunReported, JobFailed, RunEnded)


class RunController(QObject):
    started = Signal()
    round_started = Signal(object)       # RoundStarted
    tokens_generated = Signal(object)    # TokensGenerated: the reply so far
    round_finished = Signal(object)      # RoundRecord
    noted = Signal(str)                  # a failed check, a repair, a compaction, a skipped part
    summaries_shown = Signal(object, str)  # {document: summary}, a note when partial
    reported = Signal(object)            # RunReport
    model_loaded = Signal(object)        # llama.cpp's measured allocation
    failed = Signal(str)
    ended = Signal(str)                  # finished, cancelled, failed

    def __init__(self, owner: ModelOwner, parent=None) -> None:
        super().__init__(parent)
        self.owner = owner
        self.running = False
        self.records: list = []
        self.state = None
        self.plan = None
        self.report = None
        self.outcome = ""
        self.progress = ProgressModel()

    def start(self, request, documents: list, resume=None) -> None:
        if self.running:
            return
        self.owner.cancel = CancelToken()
        self.records, self.state, self.plan, self.report, self.outcome = [], None, None, None, ""
        self.progress = ProgressModel()
        self.running = True
        self.started.emit()
        if resume is not None:     # the finished rounds stay on the curve and in the list
            self.progress.restore(resume.rounds)
            for record in resume.rounds:
                self._add_round(record)
        self.owner.submit(RunJob(request, documents, resume))

    def stop(self) -> None:
        self.owner.cancel.cancel()

    def handle(self, message) -> None:
        self.progress.update(message)
        if isinstance(message, RoundStarted):
            self.round_started.emit(message)
        elif isinstance(message, TokensGenerated):
            self.tokens_generated.emit(message)
        elif isinstance(message, RoundFinished):
            self._add_round(message.record)
        elif isinstance(message, NOTE_EVENTS):
            self.noted.emit(note_text(message))     # the words `precis summarize` prints for it
        elif isinstance(message, RunFinished):
            self.summaries_shown.emit(message.summaries, "" if message.outcome == "finished" else message.message)
        elif isinstance(message, ModelLoaded):
            self.model_loaded.emit(message.allocation)
        elif isinstance(message, RunReported):
            self.state, self.plan, self.report = message.state, message.plan, message.report
            self.reported.emit(message.report)
        elif isinstance(message, JobFailed):
            self.failed.emit(message.message)
        elif isinstance(message, RunEnded):
            self.running = False
            self.outcome = message.outcome
            self.ended.emit(message.outcome)

    def _add_round(self, record) -> None:
        self.records.append(record)
        self.round_finished.emit(record)

