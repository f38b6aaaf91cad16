"""The window's one worker facility: owner threads with an inbox of jobs and a shared outbox of typed
messages, which the window drains on a GUI-thread timer (the Anki pattern).

Three owners, each a plain Python thread that does one job at a time:
- the model owner: the only thread that ever touches a loaded model; it runs
  precis.models.session.job.run_job, the same run path as `precis summarize`;
- the planner: owns a vocab-only tokenizer and computes plans (a 1 MB document takes ~2 s);
- the I/O owner: reads dropped documents (PDF, Word, encodings, the token estimate), scans for
  models, and talks to the Hugging Face Hub, so none of that ever blocks the GUI thread.
No widget touches a runtime and no Python object crosses threads through a Qt signal (the
PYSIDE-3124 family of cross-thread crashes cannot apply): updates arrive at screen speed however
fast the model writes.
"""
from __future__ import annotations

import queue
import threading
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from precis.engine.errors import PrecisError
from precis.engine.runtime.protocol import CancelToken
from precis.engine.runtime.server.runtime import ServerSettings
from precis.engine.runtime.settings import RuntimeSettings
from precis.models.session.job import RunReported, run_job
from precis.models.session.planner import plan_on_server, plan_run
from precis.models.session.request import RunRequest
from precis.models.session.server_connection import connect_with, server_settings_of


def load_real_runtime(path: Path, settings: RuntimeSettings, vocab_only: bool = False):
    from precis.engine.runtime.llama import LlamaRuntime
    return LlamaRuntime.load(path, settings, vocab_only=vocab_only)


PROGRESS_EVERY_S = 0.2            # planning progress at screen speed, never a flood


# ----- messages to the window ----------------------------------------------------------------------
# Engine events (precis.engine.events) and the session's ModelLoaded / RunReported are posted as
# they are; these are the workers' own.
@dataclass(frozen=True)
class JobFailed:
    message: str                     # what happened and what to do, for a dialog


@dataclass(frozen=True)
class RunEnded:
    outcome: str                     # finished, cancelled, failed


@dataclass(frozen=True)
class Planned:
    sequence: int
    plan: object


@dataclass(frozen=True)
class PlanProgress:
    sequence: int
    done_chars: int
    total_chars: int


@dataclass(frozen=True)
class PlanFailed:
    sequence: int
    message: str


@dataclass(frozen=True)
class TaskDone:
    tag: object
    value: object


@dataclass(frozen=True)
class TaskFailed:
    tag: object
    message: str


@dataclass(frozen=True)
class TaskProgress:
    tag: object
    value: object


# ----- jobs --------------------------------------------------------------------------------------
@dataclass
class RunJob:
    request: RunRequest
    documents: list                  # precis.engine.documents.loading.Document, already read
    resume: object = None            # a RunState to continue


@dataclass
class PlanJob:
    sequence: int
    request: RunRequest
    documents: list
    model_path: Path


@dataclass
class Task:
    """A function to run on the I/O owner; its result comes back as TaskDone(tag, value)."""
    tag: object
    fn: Callable
    args: tuple = ()
    kwargs: dict = field(default_factory=dict)


class Owner:
    """A thread that takes jobs from its inbox one at a time and posts messages to an outbox."""

    def __init__(self, name: str, outbox: queue.SimpleQueue) -> None:
        self.outbox = outbox
        self._inbox: queue.SimpleQueue = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._loop, name=name, daemon=True)
        self._thread.start()

    def submit(self, job) -> None:
        self._inbox.put(job)

    def post(self, message) -> None:
        self.outbox.put(message)

    def _loop(self) -> None:
        while True:
            job = self._inbox.get()
            if job is None:
                break
            self.handle(job)
        self.close()   # in this thread: a runtime is closed by its owner

    def handle(self, job) -> None:
        raise NotImplementedError

    def close(self) -> None:
        pass

    def stop(self, timeout_s: float = 60.0) -> None:
        self._inbox.put(None)
        self._thread.join(timeout_s)

    @property
    def alive(self) -> bool:
        return self._thread.is_alive()


class TaskOwner(Owner):
    """Runs Task functions: document reading, model discovery, Hub calls."""

    def handle(self, task: Task) -> None:
        try:
            value = task.fn(*task.args, **task.kwargs)
        except PrecisError as exc:
            self.post(TaskFailed(task.tag, str(exc)))
        except Exception as exc:  # a bug: say it, keep the window usable
            traceback.print_exc()
            self.post(TaskFailed(task.tag, f"Unexpected error: {exc!r}"))
        else:
            self.post(TaskDone(task.tag, value))


class PlanOwner(Owner):
    """Plans with the model's own tokenizer (vocab-only), off the GUI thread; stale requests are skipped."""

    def __init__(self, outbox: queue.SimpleQueue, runtime_factory=load_real_runtime) -> None:
        self._factory = runtime_factory
        self._tokenizer = None
        self._tokenizer_path: Path | None = None
        self.latest_sequence = 0           # written by the GUI thread
        super().__init__("precis-planner", outbox)

    def handle(self, job: PlanJob) -> None:
        if job.sequence < self.latest_sequence:
            return
        progress = lambda done, total: self._progress(job.sequence, done, total)  # noqa: E731
        try:
            if job.request.server:
                plan = self._plan_on_server(job, progress)
            else:
                if self._tokenizer_path != job.model_path:
                    self.close()
                    self._tokenizer = self._factory(job.model_path, RuntimeSettings(n_ctx=512), vocab_only=True)
                    self._tokenizer_path = job.model_path
                plan = plan_run(job.request, self._tokenizer, job.documents, job.model_path, progress)
        except PrecisError as exc:
            self.post(PlanFailed(job.sequence, str(exc)))
            return
        except Exception as exc:  # never let a planning bug kill the thread silently
            traceback.print_exc()
            self.post(PlanFailed(job.sequence, f"Planning failed: {exc!r}"))
            return
        self.post(Planned(job.sequence, plan))

    def _plan_on_server(self, job: PlanJob, progress):
        """With the server's tokenizer and context (one connection, kept while the server stays the same)."""
        settings = server_settings_of(job.request)
        if self._tokenizer_path != ("server", settings):
            self.close()
            self._tokenizer = connect_with(settings)
            self._tokenizer_path = ("server", settings)
        return plan_on_server(job.request, self._tokenizer, job.documents, progress)

    def _progress(self, sequence: int, done: int, total: int) -> None:
        import time
        now = time.monotonic()
        if now - getattr(self, "_last_progress", 0.0) >= PROGRESS_EVERY_S or done >= total:
            self._last_progress = now
            self.post(PlanProgress(sequence, done, total))

    def close(self) -> None:
        if self._tokenizer is not None:
            self._tokenizer.close()
            self._tokenizer = None
            self._tokenizer_path = None


class ModelOwner(Owner):
    """The model's owner: runs jobs through the session's run_job and keeps the model loaded between
    runs with the same settings. Posts the run's events, then RunReported (when the run got as far
    as a plan) and RunEnded; JobFailed before RunEnded when it failed."""

    def __init__(self, outbox: queue.SimpleQueue, runtime_factory=load_real_runtime) -> None:
        self._factory = runtime_factory
        self._runtime = None
        self._loaded_for = None
        self.cancel = CancelToken()
        super().__init__("precis-model", outbox)

    def handle(self, job: RunJob) -> None:
        outcome = "failed"
        try:
            for message in run_job(job.request, job.documents, self._runtime_for, self.cancel, job.resume):
                self.post(message)
                if isinstance(message, RunReported):
                    outcome = message.outcome
                    if outcome == "failed":
                        self.post(JobFailed(message.message))
        except PrecisError as exc:
            self.post(JobFailed(str(exc)))
        except Exception as exc:  # a bug must reach a dialog, not kill the thread silently
            traceback.print_exc()
            self.post(JobFailed(f"Unexpected error: {exc!r}. Finished rounds are kept; please report this."))
        self.post(RunEnded(outcome))

    def _runtime_for(self, path: Path | None, settings):
        if isinstance(settings, ServerSettings):
            # A new connection per run: the server may have been restarted with another model or context.
            self.close()
            self._runtime = connect_with(settings, self.cancel)    # Stop ends discovery too
            return self._runtime, False
        key = (str(path), settings)
        if self._loaded_for == key:
            return self._runtime, False
        self.close()
        self._runtime = self._factory(path, settings)
        self._loaded_for = key
        return self._runtime, True

    def close(self) -> None:
        if self._runtime is not None:
            self._runtime.close()
            self._runtime = None
            self._loaded_for = None


class Pump:
    """Drains an outbox on the GUI thread every ``interval_ms``, for at most ``budget_s`` per tick, and
    hands each message to ``dispatch``: never holds the GUI thread for long, even after a burst."""

    def __init__(self, parent, outbox: queue.SimpleQueue, dispatch: Callable, interval_ms: int = 40,
                 budget_s: float = 0.03) -> None:
        from PySide6.QtCore import QTimer
        self.outbox, self.dispatch, self.budget_s = outbox, dispatch, budget_s
        self.timer = QTimer(parent, interval=interval_ms)
        self.timer.timeout.connect(self.drain)
        self.timer.start()

    def drain(self) -> None:
        import time
        deadline = time.perf_counter() + self.budget_s
        while time.perf_counter() < deadline:
            try:
                message = self.outbox.get_nowait()
            except queue.Empty:
                break
            self.dispatch(message)

    def stop(self) -> None:
        self.timer.stop()
