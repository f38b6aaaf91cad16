"""The one run path: a request (and its documents) in, the engine's events out, a report at the end.

`precis summarize` and the window's model thread both iterate ``run_job``; so both check memory
before loading, plan with the loaded model, checkpoint every round, resume the same way, record
the speeds measured for the next plan's time estimate, and build the same report.
"""
from __future__ import annotations

import logging
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from precis.engine.documents.loading import Document
from precis.engine.errors import BadInput, ExitCode
from precis.engine.events import RunFinished
from precis.engine.planning.run_plan import RunPlan
from precis.engine.runs.outputs import write_outputs
from precis.engine.runs.report import RunReport, make_report, static_prefix_tokens
from precis.engine.runs.run import RunOptions, new_state, run_summary
from precis.engine.runs.state import RunState, check_resumable, load_state
from precis.engine.runtime.protocol import CancelToken, SamplingParams
from precis.engine.runtime.settings import RuntimeSettings
from precis.engine.storage.speed_log import record_speeds
from precis.engine.summary.guard import GuardSettings
from precis.models.session.planner import (
    check_placement,
    model_path_of,
    plan_on_server,
    plan_run,
    runtime_settings_of,
    served_model_path,
    speed_placement,
    strategy_of,
)
from precis.models.session.request import RunRequest
from precis.models.session.server_connection import server_settings_of

log = logging.getLogger(__name__)
# Fewer tokens than this say little about a machine's speed: such a run does not update the estimate.
MIN_SPEED_SAMPLE_PROMPT_TOKENS = 256
MIN_SPEED_SAMPLE_GENERATED_TOKENS = 32


@dataclass(frozen=True)
class ModelLoaded:
    """The model is in memory; ``allocation`` is what llama.cpp reported (None for fakes)."""
    allocation: object


@dataclass(frozen=True)
class PlacementChosen:
    """Where the model goes, said before it loads (only where a GPU exists): the layers on each GPU, the
    context, each pool's verdict, and why."""
    gpu_layers: int
    n_ctx: int
    asked_n_ctx: int
    reason: str
    warning: str
    pools: tuple[dict, ...]          # OffloadPlan's pools as dicts (name, total_bytes, verdict, ...)


@dataclass(frozen=True)
class RunReported:
    """The last message of every job that got as far as a plan: the outcome with its report."""
    outcome: str                     # finished, cancelled, failed
    message: str
    exit_code: int
    report: RunReport
    state: RunState
    plan: RunPlan


# runtime_for(model_path, settings) -> (runtime, loaded_now). The caller owns the runtime: the CLI
# closes it after the job, the window keeps it for the next run with the same settings.
RuntimeFor = Callable[[Path, RuntimeSettings], tuple]


def run_options(request: RunRequest) -> RunOptions:
    return RunOptions(request.strategy, skip_noise=request.skip_noise,
                      guard=GuardSettings(shrink_ratio=request.collapse_ratio,
                                          notes_after_failed_parts=request.notes_after_failures,
                                          second_reading=request.second_reading),
                      sampling=SamplingParams(seed=request.seed),
                      max_rounds=request.max_rounds, summary_words=request.summary_words,
                      parallel_calls=request.parallel if request.server else 1)


def resume_request(run: str) -> tuple[RunRequest, RunState]:
    """A saved run's own request (every option it started with) and its state."""
    state = load_state(run)
    if not state.request:
        raise BadInput(f"Run {state.run_id} has no saved request; start it again.")
    request = RunRequest.from_dict(state.request)
    if not request.files:
        request = request.with_changes(files=list(state.files))
    return request, state


def run_job(request: RunRequest, documents: list[Document], runtime_for: RuntimeFor,
            cancel: CancelToken | None = None, resume: RunState | None = None, inputs: dict | None = None,
            plan_progress=None):
    """Generator: ModelLoaded (when the model was loaded for this job), the engine's events, RunReported.

    Bad input and load failures raise (PrecisError) before any round; after that, the engine ends
    with RunFinished whatever happens, and RunReported follows with the report of what was done.
    With ``request.server`` the model runs on that server (``runtime_for(None, ServerSettings)``).
    """
    cancel = cancel or CancelToken()
    if request.server:
        target = _server_target(request, runtime_for)
    else:
        local = _prepare_local(request)
        if local.placement is not None:
            c = local.placement
            yield PlacementChosen(c.gpu_layers, c.n_ctx, c.asked_n_ctx, c.reason, c.warning,
                                  tuple(p.as_dict() for p in c.plan.pools))
        target = _load_local(local, runtime_for)
    request, runtime = target.request, target.runtime
    if target.loaded_now:
        yield ModelLoaded(getattr(runtime, "allocation", None))
    files = [str(Path(f).resolve()) for f in request.files] or [str(d.path) for d in documents]
    options = run_options(request)
    replans = 0
    while True:
        # On a server: the context it offers now; ``request`` keeps "the server's" for the checkpoint.
        plan = plan_on_server(request, runtime, documents, plan_progress) if request.server else \
            plan_run(request, runtime, documents, target.model_path, plan_progress)
        if plan.rounds > request.max_rounds:
            raise BadInput(f"The plan has {plan.rounds:,} rounds, more than the cap of {request.max_rounds:,} "
                           "(--max-rounds). Split the document, use a larger context, or raise the cap.")
        # Counted now, for the report: after a Stop or a server that broke off, the runtime may not answer.
        static_tokens = static_prefix_tokens(runtime, plan)
        state = new_state(plan, target.model_path, target.settings(runtime), options, files, request.as_dict(),
                          model_identity=target.identity(runtime))
        state.inputs = inputs or {"warnings": [{"file": str(d.path), "warning": w} for d in documents
                                                for w in d.warnings]}
        if resume is not None:
            check_resumable(resume, state)
            if request.server:            # the rounds from here on go through this server (maybe a new address)
                resume.settings = state.settings
            state = resume
        finished = None
        try:
            for event in run_summary(runtime, plan, state, options, cancel):
                if isinstance(event, RunFinished):
                    finished = event          # held back: a run planned again does not end here
                    continue
                yield event
        except Exception as exc:  # a bug: run_summary saved the state as failed; report what was done
            log.exception("the run stopped on an unexpected error")
            finished = RunFinished("failed", dict(state.summaries), f"Unexpected error: {exc!r}. Finished rounds "
                                   "are kept; please report this.", str(state.directory), ExitCode.FAILED)
        short = getattr(runtime, "context_short", None)
        if finished.outcome == "failed" and short is not None and not state.rounds and replans < MAX_REPLANS:
            # The server's real context is shorter than it said, and nothing was done yet: plan again
            # with the context it named (or three quarters), instead of failing the document.
            runtime.shrink_context(short)
            replans += 1
            resume = None
            shutil.rmtree(state.directory, ignore_errors=True)   # an empty failed run: nothing to keep
            log.warning("the server refused the first prompt for length; planning again with %d tokens", runtime.n_ctx)
            continue
        break
    yield finished
    report = make_report(runtime, plan, state, static_tokens)
    if not request.server:
        record_measured_speeds(target.model_path, target.local_settings, report, speed_placement(target.request))
    try:
        write_outputs(state.directory, report, state)     # always beside the checkpoint, whatever --out holds
    except OSError as exc:      # a full disk or a read-only folder: --out may still take them
        log.warning("could not write the results beside the checkpoint in %s (%s)", state.directory,
                    exc.strerror or exc)
    exit_code = {"finished": ExitCode.OK, "cancelled": ExitCode.CANCELLED}.get(
        finished.outcome, finished.exit_code or ExitCode.MODEL)
    yield RunReported(finished.outcome, finished.message, int(exit_code), report, state, plan)


MAX_REPLANS = 2


@dataclass
class _Target:
    """Where the model runs for one job: in-process (a GGUF and its settings) or on a server."""
    request: RunRequest
    runtime: object
    loaded_now: bool
    model_path: Path | None
    local_settings: RuntimeSettings | None = None
    placement: object = None          # OffloadChoice where a GPU exists

    def settings(self, runtime) -> dict:
        if self.request.server:
            return runtime.describe()
        out = self.local_settings.as_dict()
        if self.placement is not None:      # run.json says where the model ran: the GPUs, the layers, the pools
            c = self.placement
            out["placement"] = {**c.as_dict(), "pools": [p.as_dict() for p in c.plan.pools]}
            measured = getattr(runtime, "allocation", None)
            if measured is not None and getattr(measured, "devices", None):
                out["placement"]["devices_used"] = measured.devices
        return out

    def identity(self, runtime) -> tuple[str, str] | None:
        if not self.request.server:
            return None
        info = runtime.info
        # The model's name, not the URL: the same model behind a new address or port still resumes.
        return f"{info.model} @ {info.url}", f"server-model:{info.model}"


def _prepare_local(request: RunRequest) -> _Target:
    """The model, its settings and (where a GPU exists) its placement, checked before anything loads. The
    request keeps the layers and context chosen, so a resume loads the same (or says what to lower)."""
    model_path = model_path_of(request)
    request = request.with_changes(strategy=strategy_of(request, model_path))
    placement = check_placement(request, model_path)
    if placement is not None:
        request = request.with_changes(n_ctx=placement.n_ctx, gpu_layers=str(placement.gpu_layers))
    return _Target(request, None, False, model_path, runtime_settings_of(request), placement)


def _load_local(target: _Target, runtime_for: RuntimeFor) -> _Target:
    runtime, loaded_now = runtime_for(target.model_path, target.local_settings)
    target.runtime, target.loaded_now = runtime, loaded_now
    return target


def _server_target(request: RunRequest, runtime_for: RuntimeFor) -> _Target:
    runtime, loaded_now = runtime_for(None, server_settings_of(request))
    # The served model's size is known only when its GGUF is on this machine; otherwise "auto" picks
    # the default for larger models (servers are where the larger models run).
    local = served_model_path(runtime)
    request = request.with_changes(strategy=strategy_of(request, local))
    return _Target(request, runtime, loaded_now, local)


def record_measured_speeds(model_path: Path, settings: RuntimeSettings, report: RunReport, placement: str = "") -> bool:
    """Blend this run's measured prompt and generation speeds into the store the time estimate reads."""
    rounds = [r for r in report.rounds if r.attempts]
    evaluated = sum(r.prompt_evaluated for r in rounds)
    generated = sum(r.generated_tokens for r in rounds)
    prompt_s = sum(r.prompt_seconds for r in rounds)
    gen_s = sum(r.seconds - r.prompt_seconds for r in rounds)
    if evaluated > MIN_SPEED_SAMPLE_PROMPT_TOKENS and generated > MIN_SPEED_SAMPLE_GENERATED_TOKENS \
            and prompt_s > 0 and gen_s > 0 and Path(model_path).is_file():
        record_speeds(model_path, settings.n_threads, evaluated / prompt_s, generated / gen_s, placement)
        return True
    return False
