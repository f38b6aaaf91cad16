"""From a run request to a plan: the model, its settings, the documents, the rules, the budget and the
chunks. `precis plan`, `precis summarize` and the window's planner thread all call these."""
from __future__ import annotations

from pathlib import Path

from precis.engine.documents.bundle import LoadedDocuments, load_documents, summary_texts
from precis.engine.documents.loading import Document
from precis.engine.errors import BadInput
from precis.engine.planning.memory_plan import MIB, MemoryPlan, available_ram_bytes, plan_memory
from precis.engine.planning.run_plan import RunPlan, build_plan
from precis.engine.prompts.layout import RoundLayout
from precis.engine.prompts.presets import AUTO_PRESET, load_preset, preset_for
from precis.engine.runtime.settings import RuntimeSettings
from precis.engine.storage.speed_log import known_speeds
from precis.models.gguf.facts import read_model_facts
from precis.models.library.bundled import resolve_model_path
from precis.models.library.profiles import ModelProfile, profile_for
from precis.models.session.request import AUTO, RunRequest


def model_path_of(request: RunRequest) -> Path:
    return resolve_model_path(request.model)


def runtime_settings_of(request: RunRequest) -> RuntimeSettings:
    return RuntimeSettings.for_kv_type(request.kv_type, n_ctx=request.n_ctx, swa_full=request.swa_full)


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


def plan_run(request: RunRequest, tokenizer, documents: list[Document], model_path: Path | None,
             progress=None, *, measured_here: bool = True) -> RunPlan:
    """Budget, chunks and time estimate with ``tokenizer`` (the model's own: loaded, vocab-only, or a
    server's). The chunk is the smaller of what the context allows and what the model's size writes
    best at. ``measured_here=False`` (a server run): this machine's speeds say nothing of the server's."""
    speeds = known_speeds(model_path, runtime_settings_of(request).n_threads) if model_path and measured_here \
        else None
    overrides = request.budget_overrides()
    if overrides["max_chunk_tokens"] is None:
        profile = profile_of(model_path)
        overrides["max_chunk_tokens"] = profile.effective_chunk_tokens if profile else None
    return build_plan(tokenizer, layout_of(request, documents), request.n_ctx,
                      summary_texts(documents, request.per_file), speeds, progress, strategy_of(request, model_path),
                      request.summary_words, document_layouts_of(request, documents), **overrides)


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
