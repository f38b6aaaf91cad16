"""From a run request to a plan: the model, its settings, the documents, the rules, the budget and the
chunks. `precis plan`, `precis summarize` and the window's planner thread all call these."""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from precis.engine.documents.bundle import LoadedDocuments, load_documents, summary_texts
from precis.engine.documents.loading import Document
from precis.engine.errors import BadInput
from precis.engine.planning.memory_plan import MIB, MemoryPlan, available_ram_bytes, plan_memory
from precis.engine.planning.offload import plan_offload
from precis.engine.planning.offload_fit import OffloadChoice, check_choice, fit_offload, largest_context
from precis.engine.planning.run_plan import RunPlan, build_plan
from precis.engine.prompts.layout import RoundLayout
from precis.engine.prompts.presets import AUTO_PRESET, load_preset, preset_for
from precis.engine.runtime.devices import Device, list_devices, offload_devices
from precis.engine.runtime.settings import RuntimeSettings
from precis.engine.storage.speed_log import known_speeds
from precis.engine.summary.story_who import question_share
from precis.models.gguf.facts import read_model_facts, read_model_layout
from precis.models.library.bundled import resolve_model_path
from precis.models.library.profiles import ModelProfile, profile_for
from precis.models.session.request import AUTO, RunRequest


def model_path_of(request: RunRequest) -> Path:
    return resolve_model_path(request.model)


def runtime_settings_of(request: RunRequest) -> RuntimeSettings:
    """The settings the request names; "auto" GPU layers count as none until ``placement_of`` chose them."""
    return RuntimeSettings.for_kv_type(request.kv_type, n_ctx=request.n_ctx, swa_full=request.swa_full,
                                       n_gpu_layers=request.gpu_layers_asked or 0)


def layout_of(request: RunRequest, documents: list[Document] = ()) -> RoundLayout:
    """The rules of every round; with the "auto" preset, the one ``documents``' kind calls for."""
    name, reason = request.preset, ""
    if name == AUTO_PRESET:
        choice = preset_for([doc.text for doc in documents])
        name, reason = choice.name, choice.reason
    return _layout(request, name, reason)


def _layout(request: RunRequest, preset: str, reason: str) -> RoundLayout:
    layout = RoundLayout(load_preset(preset), request.archive_date, request.language or None, reason)
    return layout.with_rules(request.rules_text) if request.rules_text.strip() else layout


def document_layouts_of(request: RunRequest, documents: list[Document]) -> dict[str, RoundLayout]:
    """With the "auto" preset and a summary per file, documents of different kinds (a night's folder of a
    day with an assistant, a meeting and a git log) each follow the preset their own kind calls for;
    empty when they share one (``layout_of``'s)."""
    if request.preset != AUTO_PRESET or not request.per_file or len(documents) < 2:
        return {}
    choices = {doc.name: preset_for([doc.text]) for doc in documents}
    if len({choice.name for choice in choices.values()}) < 2:
        return {}
    return {name: _layout(request, choice.name, choice.reason) for name, choice in choices.items()}


def read_documents(paths) -> LoadedDocuments:
    """Every readable document; the unreadable ones listed in ``errors``. None readable: BadInput."""
    loaded = load_documents(paths)
    if not loaded.documents:
        if not loaded.errors:
            raise BadInput("No documents found in the given folders.")
        raise BadInput("None of the given files could be read; nothing to do.\n"
                       + "\n".join(f"  {error}" for _path, error in loaded.errors))
    return loaded


def input_notes(loaded: LoadedDocuments) -> dict:
    """What reading the inputs skipped or guessed, for the run report and the person."""
    return {"unreadable": [{"file": str(p), "error": e} for p, e in loaded.errors],
            "skipped": [str(p) for p in loaded.skipped],
            "warnings": [{"file": str(d.path), "warning": w} for d in loaded.documents for w in d.warnings]}


def announce_inputs(loaded: LoadedDocuments, stream) -> None:
    for path, error in loaded.errors:
        print(f"precis: skipped {path}: {error}", file=stream)
    if loaded.skipped:
        names = ", ".join(p.name for p in loaded.skipped[:6]) + (" …" if len(loaded.skipped) > 6 else "")
        print(f"precis: skipped {len(loaded.skipped)} file(s) of a type Precis does not read: {names}", file=stream)
    for doc in loaded.documents:
        for warning in doc.warnings:
            print(f"precis: {doc.name}: {warning}", file=stream)


def memory_of(request: RunRequest, model_path: Path | None = None) -> MemoryPlan:
    facts = read_model_facts(model_path or model_path_of(request))
    return plan_memory(facts, runtime_settings_of(request), available_ram_bytes())


def gpus() -> list[Device]:
    """The GPUs llama.cpp would offload to here, with their free memory now."""
    return offload_devices(list_devices())


def placement_of(request: RunRequest, model_path: Path, devices: list[Device] | None = None, *,
                 refuse: bool = True) -> OffloadChoice:
    """The GPU layers and context to load with: the fit's for "auto", else the person's own, checked.
    Raises BadInput when the person asks for GPU layers with no GPU, and (``refuse``) when their own choice
    does not fit a pool; without ``refuse`` the choice comes back with what to lower as its warning."""
    devices = gpus() if devices is None else devices
    facts, table = read_model_layout(model_path)
    s = runtime_settings_of(request)
    ram = available_ram_bytes()
    asked = request.gpu_layers_asked
    if asked is None:
        choice = fit_offload(facts, table, s, devices, ram)
        return replace(choice, max_n_ctx=_largest_context(facts, table, choice.plan.settings, devices, ram))
    if asked and not devices:
        raise BadInput(f"--gpu-layers {asked}: this llama.cpp build sees no GPU here (a CPU build, or no device it "
                       "can use), so every layer runs on the CPU. Use --gpu-layers 0 or auto, or build llama.cpp "
                       "for the GPU (.ci/llama_build.py: PRECIS_ACCEL=cuda|vulkan|metal).")
    plan = plan_offload(facts, table, s, devices, ram)
    level, text = check_choice(facts, table, plan, devices, ram)
    if level == "error" and refuse:
        raise BadInput(text)
    where = ", ".join(p.name for p in plan.devices if p.layers or p.holds_output) or "no GPU"
    return OffloadChoice(plan, s.n_ctx, f"{s.n_gpu_layers} of {facts.n_layer + 1} layers on {where}", False, text,
                         _largest_context(facts, table, s, devices, ram))


def speed_placement(request: RunRequest) -> str:
    """The speed log's key part for where the model runs: "" with no GPU (as before), else GPUs and layers."""
    devices = gpus()
    return f"gpu={'+'.join(d.name for d in devices)}:layers={request.gpu_layers}" if devices else ""


def _largest_context(facts, table, s: RuntimeSettings, devices: list[Device], ram: int) -> int:
    top = min(facts.n_ctx_train or MAX_PLANNED_CTX, MAX_PLANNED_CTX)
    return largest_context(facts, table, s, devices, ram, top) or 0


MAX_PLANNED_CTX = 131072


def training_context_note(request: RunRequest, model_path: Path) -> str:
    """Empty, or what happens past the model's training context."""
    facts = read_model_facts(model_path)
    if facts.n_ctx_train and request.n_ctx > facts.n_ctx_train:
        return (f"A context of {request.n_ctx:,} tokens is beyond the {facts.n_ctx_train:,} {facts.name} was trained "
                "on: quality degrades past it unless the model has RoPE scaling configured.")
    return ""


def check_training_context(request: RunRequest, model_path: Path) -> None:
    note = training_context_note(request, model_path)
    if note and not request.beyond_training_context:
        facts = read_model_facts(model_path)
        raise BadInput(f"{note} Use --n-ctx {facts.n_ctx_train} (the training context), or add "
                       "--beyond-training-context to run anyway.")


def check_placement(request: RunRequest, model_path: Path) -> OffloadChoice | None:
    """Before anything loads: the GPU layers and context, each pool checked (BadInput when one won't fit).
    None without a GPU: then only RAM is checked, exactly as before GPUs were planned."""
    devices = gpus()
    if not devices and not request.gpu_layers_asked:
        check_memory(request, model_path)
        return None
    check_training_context(request, model_path)
    choice = placement_of(request, model_path, devices)
    if choice.auto and choice.plan.short_pools:
        level, text = check_choice(*read_model_layout(model_path), choice.plan, devices, available_ram_bytes())
        raise BadInput(f"Nothing fits with every pool's margin kept: {text}")
    return choice


def check_memory(request: RunRequest, model_path: Path) -> MemoryPlan:
    """The memory plan, refused before anything loads when it won't fit."""
    check_training_context(request, model_path)
    memory = memory_of(request, model_path)
    if memory.verdict == "won't fit":
        raise BadInput(f"A context of {request.n_ctx:,} tokens needs about {memory.total_bytes / MIB:,.0f} MiB, more "
                       f"than the {memory.available_bytes / MIB:,.0f} MiB available. The largest that fits now is "
                       f"{memory.max_n_ctx:,} (or try --kv-type q8_0).")
    return memory


def profile_of(model_path: Path | None) -> ModelProfile | None:
    return profile_for(read_model_facts(model_path).parameter_count) if model_path else None


def strategy_of(request: RunRequest, model_path: Path | None) -> str:
    """The strategy to run: the request's, or with "auto" the one the model's size profile names."""
    if request.strategy != AUTO:
        return request.strategy
    profile = profile_of(model_path)
    return profile.default_strategy if profile else "rolling"


def strategy_reason(strategy: str, profile: ModelProfile | None) -> str:
    """Why ``strategy`` runs, as the plan says it: the model's size profile's default and why it is, or that
    another was chosen over it. True whether the request said "auto" or named it (a job resolves "auto"
    before it plans)."""
    if profile is None:
        return "the default when the model's size is unknown" if strategy == "rolling" else "as asked"
    if strategy == profile.default_strategy:
        return f"the default for {profile.label} models: {profile.why}" if profile.why else \
            f"the default for {profile.label} models"
    return f"as asked, over the default for {profile.label} models ({profile.default_strategy})"


def plan_run(request: RunRequest, tokenizer, documents: list[Document], model_path: Path | None,
             progress=None, *, measured_here: bool = True) -> RunPlan:
    """Budget, chunks and time estimate with ``tokenizer`` (the model's own: loaded, vocab-only, or a
    server's). The chunk is the smaller of what the context allows and what the model's size writes
    best at. ``measured_here=False`` (a server run): this machine's speeds say nothing of the server's."""
    speeds = known_speeds(model_path, runtime_settings_of(request).n_threads, speed_placement(request)) \
        if model_path and measured_here else None
    overrides = request.budget_overrides()
    profile = profile_of(model_path)
    if overrides["max_chunk_tokens"] is None:
        overrides["max_chunk_tokens"] = profile.effective_chunk_tokens if profile else None
    strategy = strategy_of(request, model_path)
    return build_plan(tokenizer, layout_of(request, documents), request.n_ctx,
                      summary_texts(documents, request.per_file), speeds, progress, strategy,
                      request.summary_words, document_layouts_of(request, documents),
                      strategy_reason=strategy_reason(strategy, profile), question_share=question_share,
                      **overrides)


def served_model_path(server_runtime) -> Path | None:
    """The served model's GGUF when it is on this machine (its size names the profile), else None."""
    local = server_runtime.info.local_gguf
    return Path(local) if local else None


def plan_on_server(request: RunRequest, server_runtime, documents: list[Document], progress=None) -> RunPlan:
    """The plan against a model server, the same for `precis plan --server`, the window's preview and the
    run: the server's tokenizer, the context it offers now (``n_ctx``: a request's "the server's" or a
    smaller --n-ctx, already settled at connect, and lowered after a refused prompt), the served model's
    size profile when its GGUF is here, and no time estimate from this machine's speeds."""
    return plan_run(request.with_changes(n_ctx=server_runtime.n_ctx), server_runtime, documents,
                    served_model_path(server_runtime), progress, measured_here=False)


def plan_with_vocab(request: RunRequest, documents: list[Document], model_path: Path, progress=None) -> RunPlan:
    """The plan with the model's tokenizer alone (a vocab-only load: no weights, ~0.2 s)."""
    from precis.engine.runtime.llama import LlamaRuntime
    with LlamaRuntime.load(model_path, runtime_settings_of(request), vocab_only=True) as tokenizer:
        return plan_run(request, tokenizer, documents, model_path, progress)
