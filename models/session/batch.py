"""A batch: one summary per file through a model server, up to N documents in flight.

Each document is its own run (``run_job``): its own checkpoint, its own outputs in ``OUT/<name>/``.
``OUT/DATE-batch.json`` records each document's run as it starts and how it ended, so running the
same command again after a kill skips the finished documents and resumes each unfinished one from
its checkpoint. The server does the scaling (its parallel slots); Precis only keeps N requests busy.
The caller holds the output folder's lock for the whole batch.
"""
from __future__ import annotations

import hashlib
import json
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable

from precis.engine.documents.loading import Document
from precis.engine.errors import BadInput, ExitCode, PrecisError
from precis.engine.events import RunPlanned
from precis.engine.runs.outputs import output_paths, write_outputs
from precis.engine.runs.state import load_state
from precis.engine.runtime.protocol import CancelToken
from precis.engine.storage.atomic_files import write_json_atomic
from precis.models.session.job import RunReported, run_job
from precis.models.session.request import RunRequest
from precis.models.session.server_connection import connect

UNFINISHED = ("pending", "running", "failed", "cancelled")


@dataclass
class BatchItem:
    file: str
    name: str
    text_sha256: str
    out: str                          # the folder this document's three files go to
    status: str = "pending"           # pending, running, finished, failed, cancelled, skipped
    run_id: str = ""
    run_dir: str = ""
    message: str = ""
    exit_code: int = 0
    seconds: float = 0.0


@dataclass
class BatchResult:
    items: list[BatchItem] = field(default_factory=list)
    manifest: Path | None = None

    @property
    def exit_code(self) -> int:
        codes = [i.exit_code for i in self.items if i.status not in ("finished", "skipped")]
        if not codes:
            return ExitCode.OK
        if any(i.status == "cancelled" for i in self.items):
            return ExitCode.CANCELLED
        return codes[0] or ExitCode.FAILED


def out_folders(documents: list[Document], out: Path) -> list[Path]:
    """``OUT/<file name without extension>``; two files of one name get -2, -3 (in order)."""
    seen: dict[str, int] = {}
    folders = []
    for doc in documents:
        stem = doc.path.stem or doc.path.name
        seen[stem] = seen.get(stem, 0) + 1
        folders.append(out / (stem if seen[stem] == 1 else f"{stem}-{seen[stem]}"))
    return folders


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class BatchManifest:
    """OUT/DATE-batch.json, rewritten atomically whenever a document starts or ends."""

    def __init__(self, path: Path, items: list[BatchItem], header: dict) -> None:
        self.path, self.items, self.header = path, items, header
        self._lock = threading.Lock()

    @staticmethod
    def previous(path: Path) -> dict[str, dict]:
        """The last batch's records by file, when the same command ran here before."""
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            return {d["file"]: d for d in data.get("documents", []) if isinstance(d, dict) and "file" in d}
        except (OSError, ValueError, TypeError):
            return {}

    def save(self) -> None:
        with self._lock:
            write_json_atomic(self.path, {**self.header, "documents": [asdict(i) for i in self.items]})


def run_batch(request: RunRequest, documents: list[Document], out: Path, cancel: CancelToken,
              on_event: Callable[[BatchItem, object], None], inputs: dict | None = None,
              connect_runtime=connect) -> BatchResult:
    """Every document through ``run_job`` on the request's server, ``request.parallel`` at a time."""
    out = Path(out)
    manifest_path = out / f"{request.archive_date}-batch.json"
    previous = BatchManifest.previous(manifest_path)
    items = []
    for doc, folder in zip(documents, out_folders(documents, out)):
        item = BatchItem(str(doc.path.resolve()), doc.name, text_hash(doc.text), str(folder))
        before = previous.get(item.file)
        if before and before.get("text_sha256") == item.text_sha256:
            item.run_id, item.run_dir = before.get("run_id", ""), before.get("run_dir", "")
            summary_path = output_paths(folder, request.archive_date)[0]
            if before.get("status") in ("finished", "skipped") and summary_path.is_file():
                item.status, item.message = "skipped", "finished by an earlier run of this batch"
        items.append(item)
    header = {"date": request.archive_date, "server": request.server, "server_model": request.server_model,
              "parallel": request.parallel}
    manifest = BatchManifest(manifest_path, items, header)
    manifest.save()
    # Slots the documents leave free go to map-reduce's map calls within a document (4 slots, 1 document:
    # its maps 4 at a time; 8 documents: one call each).
    calls = max(1, request.parallel // max(1, min(request.parallel, len(documents))))

    def one(doc: Document, item: BatchItem) -> None:
        if item.status == "skipped":
            on_event(item, None)
            return
        if cancel.cancelled:
            item.status, item.message, item.exit_code = "cancelled", "not started: the batch was stopped", \
                ExitCode.CANCELLED
            manifest.save()
            return
        resume = _resumable(item)
        try:
            _run_one(request, doc, item, cancel, resume, on_event, manifest, inputs, connect_runtime, calls)
        except BadInput as exc:
            if resume is None:
                raise
            item.message = f"not resumed ({exc}); started again"
            _run_one(request, doc, item, cancel, None, on_event, manifest, inputs, connect_runtime, calls)

    def guarded(doc: Document, item: BatchItem) -> None:
        try:
            one(doc, item)
        except PrecisError as exc:       # this document could not run; the others go on
            item.status, item.message, item.exit_code = "failed", str(exc), int(exc.exit_code)
            manifest.save()
            on_event(item, exc)

    with ThreadPoolExecutor(max_workers=max(1, request.parallel), thread_name_prefix="precis-batch") as pool:
        for future in [pool.submit(guarded, d, i) for d, i in zip(documents, items)]:
            future.result()
    manifest.save()
    return BatchResult(items, manifest_path)


def _resumable(item: BatchItem):
    if not item.run_dir or item.status == "skipped":
        return None
    try:
        state = load_state(item.run_dir)
    except PrecisError:
        return None
    return state if state.status != "finished" else None


def _run_one(request, doc, item, cancel, resume, on_event, manifest, inputs, connect_runtime,
             calls_per_document: int = 1) -> None:
    runtimes = []

    def runtime_for(_path, _settings):
        runtimes.append(connect_runtime(request, cancel))     # Stop ends discovery too
        return runtimes[-1], True

    one_request = request.with_changes(files=[item.file], per_file=False, parallel=calls_per_document, out=item.out)
    doc_inputs = {**(inputs or {}), "warnings": [{"file": str(doc.path), "warning": w} for w in doc.warnings]}
    item.status = "running"
    try:
        for event in run_job(one_request, [doc], runtime_for, cancel, resume, doc_inputs):
            if isinstance(event, RunPlanned):
                item.run_id, item.run_dir = event.run_id, event.run_dir
                manifest.save()
            elif isinstance(event, RunReported):
                try:
                    write_outputs(Path(item.out), event.report, event.state)
                except OSError as exc:     # an output folder that cannot be used (2), not a bug (1)
                    event = RunReported("failed", f"could not write into {item.out} ({exc.strerror or exc}); the "
                                        f"results are in {event.state.directory}", ExitCode.BAD_INPUT, event.report,
                                        event.state, event.plan)
                note = item.message if item.message.startswith("not resumed") else ""
                item.status, item.exit_code = event.outcome, event.exit_code
                item.message = "; ".join(m for m in (note, event.message) if m)
                item.seconds = round(sum(r.seconds for r in event.report.rounds), 1)
                manifest.save()
            on_event(item, event)
    finally:
        for runtime in runtimes:
            runtime.close()
