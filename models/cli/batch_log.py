"""A batch's view of its documents' runs (models/session/batch.py calls it from several threads).

On stderr each document's events read as a single run's do (models/session/event_text.py), after a
tag ``[i/N] name``; with --json-events, every event as one JSON line on stdout that names its document.
"""
from __future__ import annotations

import json
import sys
import threading

from precis.engine.errors import PrecisError
from precis.engine.events import event_dict
from precis.models.session.event_text import event_text
from precis.models.session.job import ModelLoaded, RunReported
from precis.models.session.progress import ProgressModel


class BatchLog:
    def __init__(self, documents: list, json_events: bool = False, err=None, out=None) -> None:
        self.order = {str(d.path.resolve()): i for i, d in enumerate(documents, 1)}
        self.total = len(documents)
        self.json_events = json_events
        self.err, self.out = err or sys.stderr, out or sys.stdout
        self._progress: dict[str, ProgressModel] = {}     # by file: each document's own "3 of 8"
        self._lock = threading.Lock()

    def __call__(self, item, event) -> None:
        """``event``: an engine event, ModelLoaded, RunReported, a PrecisError (the document could not run),
        or None (finished by an earlier run of this batch, skipped)."""
        with self._lock:
            if self.json_events:
                self._json(item, event)
            else:
                self._text(item, event)

    def _text(self, item, event) -> None:
        tag = f"[{self.order[item.file]}/{self.total}] {item.name}"
        if event is None:
            line = "already summarized by an earlier run of this batch, skipped"
        elif isinstance(event, PrecisError):
            line = f"failed: {event}"
        elif isinstance(event, RunReported):
            where = f" -> {item.out}" if event.outcome == "finished" else ""
            line = f"{event.outcome} in {item.seconds:,.0f} s{where}" + (f": {event.message}" if event.message else "")
        else:
            progress = self._progress.setdefault(item.file, ProgressModel())
            progress.update(event)
            line = event_text(event, progress)
        if line is not None:
            print(f"precis: {tag}: {line}", file=self.err, flush=True)

    def _json(self, item, event) -> None:
        if event is None or isinstance(event, (ModelLoaded, PrecisError)):
            return
        body = {"outcome": event.outcome, "message": event.message, "out": item.out} \
            if isinstance(event, RunReported) else event_dict(event)
        print(json.dumps({"document": item.file, "event": type(event).__name__, **body}, ensure_ascii=False),
              file=self.out, flush=True)
