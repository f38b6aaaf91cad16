"""`precis plan [FILES...]`: the memory plan, and with files the chunk plan (the model's own tokenizer)."""
from __future__ import annotations

import json
import sys
from contextlib import closing
from dataclasses import asdict

from precis.engine.errors import ExitCode
from precis.engine.planning.memory_plan import MIB
from precis.models.cli.progress_line import PlanningProgress
from precis.models.gguf.facts import read_model_facts
from precis.models.library.bundled import display_name
from precis.models.session.plan_text import memory_lines, offload_lines, plan_lines, server_lines
from precis.models.session.planner import (
    announce_inputs,
    gpus,
    input_notes,
    memory_of,
    model_path_of,
    placement_of,
    plan_on_server,
    plan_with_vocab,
    read_documents,
    runtime_settings_of,
    speed_placement,
    training_context_note,
)
from precis.models.session.request import request_from_args
from precis.models.session.server_connection import connect


def run(args) -> int:
    request = request_from_args(args)
    if request.server:
        return _run_on_server(args, request)
    model_path = model_path_of(request)
    facts = read_model_facts(model_path)
    memory = memory_of(request, model_path)
    devices = gpus()
    placement = _placement(request, model_path, devices, args.json)
    if placement is not None:         # load and plan with the layers and context chosen
        request = request.with_changes(n_ctx=placement.n_ctx, gpu_layers=str(placement.gpu_layers))
    loaded = read_documents(request.files) if request.files else None
    if loaded is not None:
        announce_inputs(loaded, sys.stderr)
    measured = speeds = None
    if args.measure:
        from precis.engine.runtime.llama import LlamaRuntime
        from precis.engine.runtime.speed_probe import measure_speeds
        with LlamaRuntime.load(facts.path, runtime_settings_of(request)) as runtime:
            measured = runtime.allocation
            speeds = measure_speeds(runtime, sample_document_text(), placement=speed_placement(request))
    run_plan = plan_with_vocab(request, loaded.documents, model_path, PlanningProgress(sys.stderr)) if loaded else None
    beyond = training_context_note(request, model_path)
    if beyond and not args.json:
        print(f"precis: warning: {beyond}", file=sys.stderr)
    if args.json:
        out = {"model": str(facts.path), **memory.as_dict(), "n_ctx_train": facts.n_ctx_train,
               "beyond_training_context": bool(beyond), "devices": [d.as_dict() for d in devices]}
        if placement is not None:
            out["offload"] = {**placement.as_dict(), **placement.plan.as_dict()}
        if measured is not None:
            out["measured"] = measured.as_dict()
            out["measured_speeds"] = asdict(speeds)
        if run_plan is not None:
            out.update(run_plan.as_dict())
            notes = input_notes(loaded)
            out["unreadable"], out["skipped"], out["warnings"] = notes["unreadable"], notes["skipped"], \
                notes["warnings"]
        print(json.dumps(out, indent=2, ensure_ascii=False))
        return ExitCode.OK
    if placement is not None:
        print("\n".join(offload_lines(display_name(facts), facts.uses_swa, placement)))
    else:
        print("\n".join(memory_lines(display_name(facts), facts.uses_swa, memory)))
    if measured is not None:
        print(f"  measured by llama.cpp: weights {measured.model_size_bytes / MIB:,.1f} MiB, "
              f"KV {measured.kv_mib:,.2f} MiB, compute {measured.compute_mib:,.2f} MiB, "
              f"process grew {(measured.rss_after_bytes - measured.rss_before_bytes) / MIB:,.0f} MiB at load")
        print(f"  measured speed: prompt {speeds.prompt_tokens_per_second:,.0f} tokens/s, "
              f"generation {speeds.generate_tokens_per_second:,.1f} tokens/s (saved for time estimates)")
    if run_plan is not None:
        print()
        print("\n".join(line.text for line in plan_lines(run_plan)))
    return ExitCode.OK


def _run_on_server(args, request) -> int:
    """The plan against a model server: its context and its tokenizer; no memory plan (no local model)."""
    loaded = read_documents(request.files) if request.files else None
    if loaded is not None:
        announce_inputs(loaded, sys.stderr)
    with closing(connect(request)) as runtime:
        run_plan = plan_on_server(request, runtime, loaded.documents, PlanningProgress(sys.stderr)) \
            if loaded else None
        described = runtime.describe()
        if args.json:
            out = dict(described, n_ctx_note=runtime.n_ctx_note)
            if run_plan is not None:
                out.update(run_plan.as_dict())
            print(json.dumps(out, indent=2, ensure_ascii=False))
            return ExitCode.OK
        print("\n".join(line.text for line in server_lines(described, runtime.n_ctx_note)))
        if run_plan is not None:
            print()
            print("\n".join(line.text for line in plan_lines(run_plan, on_server=True)))
    return ExitCode.OK


def _placement(request, model_path, devices, quiet: bool):
    """Where a GPU exists: the layers and context (auto, or the person's own, which is shown even when it
    does not fit, with what to lower on stderr). None without a GPU, as before."""
    if not devices and not request.gpu_layers_asked:
        return None
    choice = placement_of(request, model_path, devices, refuse=False)
    if choice.warning:
        print(f"precis: warning: {choice.warning}", file=sys.stderr)
    return choice


def sample_document_text() -> str:
    from importlib import resources as importlib_resources
    return (importlib_resources.files("precis.resources") / "sample_day.txt").read_text(encoding="utf-8")
