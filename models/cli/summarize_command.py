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
from precis.models.cli.progress_line import PlanningProgress, ProgressLine, print_end
from precis.models.session.job import ModelLoaded, RunReported, resume_request, run_job
from precis.models.session.planner import announce_inputs, input_notes, read_documents
from precis.models.session.preflight import preflight
from precis.models.session.request import request_from_args


def run(args) -> int:
    base = resume_state = None
    if args.resume:
        base, resume_state = resume_request(args.resume)
    request = request_from_args(args, base)
    if not request.files:
        raise BadInput("No documents given. Usage: precis summarize FILES... (or --resume RUN)")
    loaded = read_documents(request.files)
    announce_inputs(loaded, sys.stderr)
    checked = preflight(request.out, request.archive_date, sum(len(d.text.encode("utf-8")) for d in loaded.documents))
    try:
        for path in checked.replacing:
            print(f"precis: {path} exists and will be replaced", file=sys.stderr)
        return _run(args, request, loaded, resume_state, checked)
    finally:
        checked.lock.release()


def _run(args, request, loaded, resume_state, checked) -> int:
    emit = _json_emitter() if args.json_events else ProgressLine(sys.stderr)
    runtimes = []

    def runtime_for(path, settings):
        from precis.engine.runtime.llama import LlamaRuntime
        runtimes.append(LlamaRuntime.load(path, settings))
        return runtimes[-1], True

    cancel = CancelToken()
    previous = {sig: signal.signal(sig, lambda *_: cancel.cancel()) for sig in (signal.SIGINT, signal.SIGTERM)}
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
        print(f"precis: could not write the results into {checked.out} ({exc.strerror or exc}); they are saved in "
              f"{reported.state.directory}", file=sys.stderr)
        return ExitCode.FAILED
    if not args.json_events:
        print_end(reported, paths, sys.stderr)
    if reported.outcome == "failed":
        print(f"precis: {reported.message}", file=sys.stderr)
    return reported.exit_code


def _json_emitter():
    def emit(event) -> None:
        print(json.dumps(event_dict(event), ensure_ascii=False), flush=True)
    return emit
