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
from precis.engine.prompts.presets import load_preset
from precis.engine.runtime.settings import RuntimeSettings
from precis.engine.storage.speed_log import known_speeds
from precis.models.gguf.facts import read_model_facts
from precis.models.library.bundled import resolve_model_path
from precis.models.session.request import RunRequest


def model_path_of(request: RunRequest) -> Path:
    return resolve_model_path(request.model)


def runtime_settings_of(request: RunRequest) -> RuntimeSettings:
    return RuntimeSettings.for_kv_type(request.kv_type, n_ctx=request.n_ctx, swa_full=request.swa_full)


def layout_of(request: RunRequest) -> RoundLayout:
    layout = RoundLayout(load_preset(request.preset), request.archive_date, request.language or None)
    return layout.with_rules(request.rules_text) if request.rules_text.strip() else layout


def read_documents(paths) -> LoadedDocuments:
    """Every readable document; the unreadable ones listed in ``errors``. None readable: BadInput."""
    loaded = load_documents(paths)
    if not loaded.documents:
        if not loaded.errors:
            raise BadInput("No documents found in the given folders.")
        raise BadInput("None of the given files could be read; nothing to do.\n"
                       + "\n".join(f"  {error}" for _path, error in loaded.errors))
    return loaded


def memory_of(request: RunRequest, model_path: Path | None = None) -> MemoryPlan:
    facts = read_model_facts(model_path or model_path_of(request))
    return plan_memory(facts, runtime_settings_of(request), available_ram_bytes())


def check_memory(request: RunRequest, model_path: Path) -> MemoryPlan:
    """The memory plan, refused before anything loads when it won't fit."""
    memory = memory_of(request, model_path)
    if memory.verdict == "won't fit":
        raise BadInput(f"A context of {request.n_ctx:,} tokens needs about {memory.total_bytes / MIB:,.0f} MiB, more "
                       f"than the {memory.available_bytes / MIB:,.0f} MiB available. The largest that fits now is "
                       f"{memory.max_n_ctx:,} (or try --kv-type q8_0).")
    return memory


def plan_run(request: RunRequest, tokenizer, documents: list[Document], model_path: Path | None) -> RunPlan:
    """Budget, chunks and time estimate with ``tokenizer`` (the model's own: loaded, or vocab-only)."""
    speeds = known_speeds(model_path, runtime_settings_of(request).n_threads) if model_path else None
    return build_plan(tokenizer, layout_of(request), request.n_ctx, summary_texts(documents, request.per_file),
                      speeds, **request.budget_overrides())


def plan_with_vocab(request: RunRequest, documents: list[Document], model_path: Path) -> RunPlan:
    """The plan with the model's tokenizer alone (a vocab-only load: no weights, ~0.2 s)."""
    from precis.engine.runtime.llama import LlamaRuntime
    with LlamaRuntime.load(model_path, runtime_settings_of(request), vocab_only=True) as tokenizer:
        return plan_run(request, tokenizer, documents, model_path)
