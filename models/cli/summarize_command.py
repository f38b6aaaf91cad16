"""`precis summarize FILES...`: the headless run, for people and for the nightly scheduled archive.

Progress on stderr (models/cli/progress_line.py); with --json-events, every event as one JSON line
on stdout instead. Writes DATE-summary.md, DATE-todos.md and DATE-run.json to --out. The run itself
is precis.models.session.job.run_job, the same code the window runs.
"""
from __future__ import annotations

import json
import signal
import sys

from precis.engine.errors import BadInput
from precis.engine.events import event_dict
from precis.engine.runs.outputs import write_outputs
from precis.engine.runtime.protocol import CancelToken
from precis.models.cli.progress_line import ProgressLine, print_end
from precis.models.session.job import ModelLoaded, RunReported, resume_request, run_job
from precis.models.session.planner import read_documents
from precis.models.session.request import request_from_args


def run(args) -> int:
    base = resume_state = None
    if args.resume:
        base, resume_state = resume_request(args.resume)
    request = request_from_args(args, base)
    if not request.files:
        raise BadInput("No documents given. Usage: precis summarize FILES... (or --resume RUN)")
    loaded = read_documents(request.files)
    for path, error in loaded.errors:
        print(f"precis: skipped {path}: {error}", file=sys.stderr)
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
        for event in run_job(request, loaded.documents, runtime_for, cancel, resume_state):
            if isinstance(event, RunReported):
                reported = event
            elif not isinstance(event, ModelLoaded):
                emit(event)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        for runtime in runtimes:
            runtime.close()
    paths = write_outputs(request.out, reported.report, reported.state)
    if not args.json_events:
        print_end(reported, paths, sys.stderr)
    if reported.outcome == "failed":
        print(f"precis: {reported.message}", file=sys.stderr)
    return reported.exit_code


def _json_emitter():
    def emit(event) -> None:
        print(json.dumps(event_dict(event), ensure_ascii=False), flush=True)
    return emit
