"""The one thread that owns the model, and the planner thread that owns a vocab-only tokenizer.

No widget and no other thread ever touches a runtime. Each owner is a plain Python thread with an
inbox of jobs and an outbox of messages; the window drains the outbox on a GUI-thread timer (the
Anki pattern): updates arrive at screen speed however fast the model writes, and no Python object
crosses threads through a Qt signal (the PYSIDE-3124 family of cross-thread crashes cannot apply).
Messages: ("event", e), ("model_loaded", allocation), ("failed", text), ("finished", outcome,
payload), ("planned", sequence, plan), ("plan_failed", sequence, text).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import queue
import threading

from engine.checkpoints import RunState, check_resumable
from engine.errors import PrecisError
from engine.prompts import RoundLayout
from engine.run_plan import build_plan
from engine.run_report import make_report
from engine.runtime import CancelToken
from engine.runtime_settings import RuntimeSettings
from engine.speed_log import known_speeds
from engine.summarizer import RunOptions, new_state, run_summary


def load_real_runtime(path: Path, settings: RuntimeSettings, vocab_only: bool = False):
    from engine.runtime import LlamaRuntime
    return LlamaRuntime.load(path, settings, vocab_only=vocab_only)


@dataclass
class PlanRequest:
    sequence: int
    model_path: Path
    settings: RuntimeSettings
    texts: list                      # (name, text, parts) per summary
    layout: RoundLayout
    overrides: dict = field(default_factory=dict)


@dataclass
class RunJob:
    model_path: Path
    settings: RuntimeSettings
    texts: list
    layout: RoundLayout
    options: RunOptions
    files: list[str]
    saved_options: dict
    overrides: dict = field(default_factory=dict)
    resume: RunState | None = None


class _Owner:
    """A thread that takes jobs from its inbox one at a time and posts messages to an outbox."""

    def __init__(self, name: str, outbox: queue.SimpleQueue) -> None:
        self.outbox = outbox
        self._inbox: queue.SimpleQueue = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._loop, name=name, daemon=True)
        self._thread.start()

    def submit(self, job) -> None:
        self._inbox.put(job)

    def _loop(self) -> None:
        while True:
            job = self._inbox.get()
            if job is None:
                break
            self.handle(job)
        self.close()   # in this thread: the runtime is closed by its owner

    def stop(self, timeout_s: float = 60.0) -> None:
        self._inbox.put(None)
        self._thread.join(timeout_s)

    @property
    def alive(self) -> bool:
        return self._thread.is_alive()


class PlanWorker(_Owner):
    """Budget and chunks with the model's own tokenizer, off the GUI thread (a 1 MB document takes ~2 s)."""

    def __init__(self, outbox: queue.SimpleQueue, runtime_factory=load_real_runtime) -> None:
        self._factory = runtime_factory
        self._tokenizer = None
        self._tokenizer_path: Path | None = None
        self.latest_sequence = 0           # written by the GUI thread: stale requests are skipped
        super().__init__("precis-planner", outbox)

    def handle(self, request: PlanRequest) -> None:
        if request.sequence < self.latest_sequence:
            return
        try:
            if self._tokenizer_path != request.model_path:
                self.close()
                self._tokenizer = self._factory(request.model_path, RuntimeSettings(n_ctx=512), vocab_only=True)
                self._tokenizer_path = request.model_path
            plan = build_plan(self._tokenizer, request.layout, request.settings.n_ctx, request.texts,
                              known_speeds(request.model_path, request.settings.n_threads), **request.overrides)
        except PrecisError as exc:
            self.outbox.put(("plan_failed", request.sequence, str(exc)))
            return
        except Exception as exc:  # never let a planning bug kill the thread silently
            self.outbox.put(("plan_failed", request.sequence, f"Planning failed: {exc!r}"))
            return
        self.outbox.put(("planned", request.sequence, plan))

    def close(self) -> None:
        if self._tokenizer is not None:
            self._tokenizer.close()
            self._tokenizer = None
            self._tokenizer_path = None


class RunWorker(_Owner):
    """The model's owner. Posts ("model_loaded", allocation), ("event", e), ("failed", text) and
    ("finished", outcome, {"report", "state", "plan"}) with partial results on cancel or failure."""

    def __init__(self, outbox: queue.SimpleQueue, runtime_factory=load_real_runtime) -> None:
        self._factory = runtime_factory
        self._runtime = None
        self._loaded_for = None
        self.cancel = CancelToken()
        super().__init__("precis-model", outbox)

    def handle(self, job: RunJob) -> None:
        state = plan = None
        try:
            runtime = self._runtime_for(job.model_path, job.settings)
            plan = build_plan(runtime, job.layout, job.settings.n_ctx, job.texts, **job.overrides)
            state = new_state(plan, job.model_path if Path(job.model_path).is_file() else None,
                              job.settings.as_dict(), job.options, job.files, job.saved_options)
            if job.resume is not None:
                check_resumable(job.resume, state)
                state = job.resume
            outcome, message = "failed", ""
            for event in run_summary(runtime, plan, state, job.options, self.cancel):
                self.outbox.put(("event", event))
                if type(event).__name__ == "RunFinished":
                    outcome, message = event.outcome, event.message
            report = make_report(runtime, plan, state)
            if outcome == "failed":
                self.outbox.put(("failed", message))
            self.outbox.put(("finished", outcome, {"report": report, "state": state, "plan": plan}))
        except PrecisError as exc:
            self.outbox.put(("failed", str(exc)))
            self.outbox.put(("finished", "failed", {"state": state, "plan": plan}))
        except Exception as exc:  # a bug must reach a dialog, not kill the thread silently
            self.outbox.put(("failed", f"Unexpected error: {exc!r}. Finished rounds are kept; please report this."))
            self.outbox.put(("finished", "failed", {"state": state, "plan": plan}))

    def _runtime_for(self, path: Path, settings: RuntimeSettings):
        key = (str(path), settings)
        if self._loaded_for != key:
            self.close()
            self._runtime = self._factory(path, settings)
            self._loaded_for = key
            self.outbox.put(("model_loaded", getattr(self._runtime, "allocation", None)))
        return self._runtime

    def close(self) -> None:
        if self._runtime is not None:
            self._runtime.close()
            self._runtime = None
            self._loaded_for = None
