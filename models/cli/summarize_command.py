"""`precis summarize FILES...`: the headless run, for people and for the nightly scheduled archive.

Progress on stderr (models/cli/progress_line.py); with --json-events, every event as one JSON line
on stdout instead. Writes DATE-summary.md, DATE-todos.md and DATE-run.json to --out. The run itself
is precis.models.session.job.run_job, the same code the window runs.
"""
from __future__ import annotations

import json
import signal
import sys

from precis.engine.errors import BadInput, ExitCode
from precis.engine.events import event_dict
from precis.engine.runs.outputs import write_outputs
from precis.engine.runtime.protocol import CancelToken
from precis.models.cli.batch_log import BatchLog
from precis.models.cli.progress_line import PlanningProgress, ProgressLine, print_end
from precis.models.session.batch import run_batch
from precis.models.session.job import ModelLoaded, RunReported, resume_request, run_job
from precis.models.session.planner import announce_inputs, input_notes, read_documents
from precis.models.session.preflight import preflight
from precis.models.session.request import request_from_args
from precis.models.session.server_connection import connect_with


def run(args) -> int:
    base = resume_state = None
    if args.resume:
        base, resume_state = resume_request(args.resume)
        if resume_state.notice:         # its state.json was damaged: resumed from the checkpoint before it
            print(f"precis: run {resume_state.run_id}: {resume_state.notice}", file=sys.stderr)
    request = request_from_args(args, base)
    if not request.files:
        raise BadInput("No documents given. Usage: precis summarize FILES... (or --resume RUN)")
    loaded = read_documents(request.files)
    announce_inputs(loaded, sys.stderr)
    checked = preflight(request.out, request.archive_date, sum(len(d.text.encode("utf-8")) for d in loaded.documents))
    try:
        if request.batch:
            return _run_batch(args, request, loaded, checked)
        for path in checked.replacing:
            print(f"precis: {path} exists and will be replaced", file=sys.stderr)
        return _run(args, request, loaded, resume_state, checked)
    finally:
        checked.lock.release()


def _run(args, request, loaded, resume_state, checked) -> int:
    emit = _json_emitter() if args.json_events else ProgressLine(sys.stderr)
    runtimes = []
    cancel = CancelToken()

    def runtime_for(path, settings):
        if request.server:
            runtimes.append(connect_with(settings, cancel))     # Ctrl-C ends discovery too
        else:
            from precis.engine.runtime.llama import LlamaRuntime
            runtimes.append(LlamaRuntime.load(path, settings))
        return runtimes[-1], True

    previous = _stop_on_signals(cancel)
    reported = None
    try:
        for event in run_job(request, loaded.documents, runtime_for, cancel, resume_state, input_notes(loaded),
                             PlanningProgress(sys.stderr)):
            if isinstance(event, RunReported):
                reported = event
            elif not isinstance(event, ModelLoaded):
                emit(event)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        for runtime in runtimes:
            runtime.close()
    try:
        paths = write_outputs(checked.out, reported.report, reported.state)
    except OSError as exc:     # checked before the run, but a disk can fill or a folder vanish meanwhile
        # An output folder that cannot be used, as the preflight's refusals (2), not a bug (1): nothing is
        # lost, and a cron wrapper must not report one.
        print(f"precis: could not write the results into {checked.out} ({exc.strerror or exc}); they are saved in "
              f"{reported.state.directory}. Free space or fix the folder, then copy them from there.", file=sys.stderr)
        return ExitCode.BAD_INPUT
    if not args.json_events:
        print_end(reported, paths, sys.stderr)
    if reported.outcome == "failed":             # last, as an error; print_end leaves it out (once, not twice)
        print(f"precis: {reported.message}", file=sys.stderr)
    return reported.exit_code


def _stop_on_signals(cancel: CancelToken) -> dict:
    """Ctrl-C and SIGTERM stop the run (or every document of a batch); finished rounds are kept."""
    return {sig: signal.signal(sig, lambda *_: cancel.cancel()) for sig in (signal.SIGINT, signal.SIGTERM)}


def _run_batch(args, request, loaded, checked) -> int:
    """One summary per file through the server, up to --parallel at a time (models/session/batch.py)."""
    documents = loaded.documents
    print(f"precis: batch of {len(documents)} document(s) through {request.server}, {request.parallel} at a time; "
          f"results in {checked.out}/<name>/", file=sys.stderr)
    cancel = CancelToken()
    previous = _stop_on_signals(cancel)
    try:
        result = run_batch(request, documents, checked.out, cancel, BatchLog(documents, args.json_events),
                           input_notes(loaded))
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    counts = {}
    for item in result.items:
        counts[item.status] = counts.get(item.status, 0) + 1
    summary = ", ".join(f"{n} {status}" for status, n in sorted(counts.items()))
    print(f"precis: batch done: {summary}; index in {result.manifest}", file=sys.stderr)
    return result.exit_code


def _json_emitter():
    def emit(event) -> None:
        print(json.dumps(event_dict(event), ensure_ascii=False), flush=True)
    return emit
