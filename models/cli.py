"""The headless command line: `precis models ...`, `precis plan ...`.

It lives in models/ because it is the lowest layer that knows both model files and the engine;
gui/launcher.py hands every subcommand here without importing Qt. Exit codes: 0 success,
2 bad input (file, option), 3 model error, 130 cancelled (see docs/cli.md).
"""
from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict
from datetime import date
from pathlib import Path

from engine import __version__
from engine.bundle import LoadedDocuments, load_documents, summary_texts
from engine.errors import BadInput, PrecisError
from engine.prompts import DEFAULT_PRESET, RoundLayout, load_preset
from engine.run_plan import RunPlan, build_plan, duration_text
from engine.speed_log import known_speeds
from engine.memory_plan import MIB, available_ram_bytes, plan_memory
from engine.runtime_settings import KV_TYPES, RuntimeSettings
from models import summarize_command
from models.bundled import display_name, resolve_model_path
from models.gguf_facts import read_model_facts
from models.gguf_header import GGUFError

EXIT_OK, EXIT_BAD_INPUT, EXIT_MODEL, EXIT_CANCELLED = 0, 2, 3, 130


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="precis", description="Faithful summaries of very long documents, offline.")
    p.add_argument("--version", action="version", version=f"precis {__version__}")
    sub = p.add_subparsers(dest="command")

    models = sub.add_parser("models", help="inspect model files")
    msub = models.add_subparsers(dest="models_command", required=True)
    inspect = msub.add_parser("inspect", help="print a GGUF model's facts without loading it")
    inspect.add_argument("model", help="path to a .gguf file, or `default` for the bundled model")
    inspect.add_argument("--json", action="store_true")
    listing = msub.add_parser("list", help="GGUF models on this machine (Precis, Hugging Face cache, LM Studio, "
                                           "Ollama, GPT4All, added folders)")
    listing.add_argument("--n-ctx", type=int, default=4096, help="context for the fits-in-RAM verdict")
    listing.add_argument("--folder", action="append", default=[], help="also scan this folder (repeatable)")
    listing.add_argument("--json", action="store_true")
    search = msub.add_parser("search", help="search GGUF repositories on the Hugging Face Hub, by downloads")
    search.add_argument("query")
    search.add_argument("--limit", type=int, default=20)
    search.add_argument("--json", action="store_true")
    files = msub.add_parser("files", help="a Hub repository's GGUF files with size, quantization and a fits badge")
    files.add_argument("repo")
    files.add_argument("--json", action="store_true")
    download = msub.add_parser("download", help="download one GGUF file from the Hub into Precis's models folder")
    download.add_argument("repo")
    download.add_argument("file")

    plan = sub.add_parser("plan", help="what a context length costs: memory, and with FILES the chunk plan")
    plan.add_argument("files", nargs="*", type=Path, help="documents (or folders) to plan a summary of")
    plan.add_argument("--model", default="default", help="path to a .gguf file, or `default`")
    plan.add_argument("--n-ctx", type=int, default=4096, help="context length in tokens (multiple of 256)")
    plan.add_argument("--kv-type", choices=KV_TYPES, default="f16", help="KV cache type")
    plan.add_argument("--swa-full", action="store_true",
                      help="full-size cache for sliding-window layers (more memory, prefix reuse)")
    plan.add_argument("--measure", action="store_true",
                      help="also load the model: show what llama.cpp really allocated, and measure its speed")
    plan.add_argument("--json", action="store_true")
    add_document_options(plan)
    summarize_command.add_parser(sub, add_document_options)
    runs = sub.add_parser("runs", help="list saved runs (unfinished ones can be resumed)")
    runs.add_argument("--json", action="store_true")
    return p


def add_document_options(p: argparse.ArgumentParser) -> None:
    """Options shared by `plan` and `summarize`: how documents are grouped, the prompt, the budget."""
    p.add_argument("--per-file", action="store_true", help="one summary per file instead of one bundle in order")
    p.add_argument("--preset", default=DEFAULT_PRESET, help="rules preset name, or a preset .json file")
    p.add_argument("--rules", type=Path, help="a text file whose lines replace the preset's rules")
    p.add_argument("--date", default=None, help="archive date shown to the model (default: today)")
    p.add_argument("--language", default=None, help="output language (default: the document's own)")
    p.add_argument("--summary-cap", type=int, default=None, help="max tokens of each round's summary")
    p.add_argument("--summary-in-cap", type=int, default=None, help="max tokens of the summary fed into a round")
    p.add_argument("--margin", type=int, default=None, help="tokens kept free in each round")
    p.add_argument("--overlap", type=int, default=0, help="tokens of the previous chunk repeated in the next")


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        if args.command == "models":
            from models import library_command
            if args.models_command == "inspect":
                return _inspect(args)
            return library_command.run(args)
        if args.command == "plan":
            return _plan(args)
        if args.command == "summarize":
            return summarize_command.run(args)
        if args.command == "runs":
            return _runs(args)
    except GGUFError as exc:
        print(f"precis: {exc}", file=sys.stderr)
        return EXIT_MODEL
    except (FileNotFoundError, IsADirectoryError, PermissionError) as exc:
        print(f"precis: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except ValueError as exc:  # invalid settings (n_ctx not a multiple of 256, ...)
        print(f"precis: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except PrecisError as exc:
        print(f"precis: {exc}", file=sys.stderr)
        return exc.exit_code
    build_parser().print_help()
    return EXIT_BAD_INPUT


def facts_dict(facts) -> dict:
    return {
        "path": str(facts.path), "architecture": facts.architecture, "name": facts.name,
        "file_bytes": facts.file_bytes, "tensor_bytes": facts.tensor_bytes,
        "parameter_count": facts.parameter_count, "quantization": facts.quantization,
        "n_ctx_train": facts.n_ctx_train, "n_vocab": facts.n_vocab, "n_layer": facts.n_layer,
        "n_embd": facts.n_embd, "n_head": list(facts.n_head), "n_head_kv": list(facts.n_head_kv),
        "key_length": facts.key_length, "value_length": facts.value_length,
        "sliding_window": facts.sliding_window, "swa_layers": [int(x) for x in facts.swa_layers],
        "is_mla": facts.is_mla, "recurrent_layers": [int(x) for x in facts.recurrent_layers],
        "has_chat_template": facts.has_chat_template,
    }


def _inspect(args) -> int:
    facts = read_model_facts(resolve_model_path(args.model))
    if args.json:
        print(json.dumps(facts_dict(facts), indent=2))
        return EXIT_OK
    heads = sorted(set(facts.n_head_kv))
    print(f"{display_name(facts)}  ({facts.path})")
    print(f"  architecture   {facts.architecture}, {facts.n_layer} layers, embedding {facts.n_embd}")
    print(f"  parameters     {facts.parameter_count / 1e6:,.0f} M, {facts.quantization}, "
          f"{facts.file_bytes / MIB:,.1f} MiB on disk")
    print(f"  training ctx   {facts.n_ctx_train:,} tokens, vocabulary {facts.n_vocab:,}")
    print(f"  attention      KV heads {heads}, head size K {facts.key_length} / V {facts.value_length}"
          + (f", sliding window {facts.sliding_window} on {sum(facts.swa_layers)} layers" if facts.uses_swa else "")
          + (", MLA" if facts.is_mla else "")
          + (f", {sum(facts.recurrent_layers)} recurrent layers" if facts.is_recurrent_or_hybrid else ""))
    print(f"  chat template  {'yes' if facts.has_chat_template else 'no (a base model: Precis falls back to ChatML)'}")
    return EXIT_OK


def _plan(args) -> int:
    facts = read_model_facts(resolve_model_path(args.model))
    settings = RuntimeSettings.for_kv_type(args.kv_type, n_ctx=args.n_ctx, swa_full=args.swa_full)
    memory = plan_memory(facts, settings, available_ram_bytes())
    loaded = load_inputs(args.files) if args.files else None
    measured = speeds = None
    if args.measure:
        from engine.runtime import LlamaRuntime
        from engine.speed_log import measure_speeds
        with LlamaRuntime.load(facts.path, settings) as runtime:
            measured = runtime.allocation
            speeds = measure_speeds(runtime, sample_document_text())
    run_plan = plan_for(args, facts.path, settings, loaded) if loaded else None
    if args.json:
        out = {"model": str(facts.path), **memory.as_dict()}
        if measured is not None:
            out["measured"] = measured.as_dict()
            out["measured_speeds"] = asdict(speeds)
        if run_plan is not None:
            out.update(run_plan.as_dict())
            out["unreadable"] = [{"file": str(p), "error": e} for p, e in loaded.errors]
        print(json.dumps(out, indent=2, ensure_ascii=False))
        return EXIT_OK
    print(render_memory_plan(facts, memory))
    if measured is not None:
        print(f"  measured by llama.cpp: weights {measured.model_size_bytes / MIB:,.1f} MiB, "
              f"KV {measured.kv_mib:,.2f} MiB, compute {measured.compute_mib:,.2f} MiB, "
              f"process grew {(measured.rss_after_bytes - measured.rss_before_bytes) / MIB:,.0f} MiB at load")
        print(f"  measured speed: prompt {speeds.prompt_tokens_per_second:,.0f} tokens/s, "
              f"generation {speeds.generate_tokens_per_second:,.1f} tokens/s (saved for time estimates)")
    if run_plan is not None:
        print()
        print(render_run_plan(run_plan))
    return EXIT_OK


def load_inputs(paths: list[Path]) -> LoadedDocuments:
    """Every readable document; each unreadable one reported on stderr. None readable: BadInput."""
    loaded = load_documents(paths)
    for path, error in loaded.errors:
        print(f"precis: skipped {path}: {error}", file=sys.stderr)
    if not loaded.documents:
        raise BadInput("None of the given files could be read; nothing to do." if loaded.errors
                       else "No documents found in the given folders.")
    return loaded


def layout_from_args(args) -> RoundLayout:
    layout = RoundLayout(load_preset(args.preset), args.date or date.today().isoformat(), args.language)
    if args.rules is not None:
        from engine.documents import load_document
        layout = layout.with_rules(load_document(args.rules).text.strip())
    return layout


def plan_for(args, model_path: Path, settings: RuntimeSettings, loaded: LoadedDocuments) -> RunPlan:
    """The chunk plan with the model's own tokenizer (vocab-only load: no weights, ~0.2 s)."""
    from engine.runtime import LlamaRuntime
    with LlamaRuntime.load(model_path, settings, vocab_only=True) as tokenizer:
        return build_plan_from_args(args, tokenizer, model_path, settings, loaded)


def budget_overrides(args) -> dict:
    return {"summary_out_cap": args.summary_cap, "summary_in_cap": args.summary_in_cap, "margin": args.margin,
            "overlap_tokens": args.overlap}


def build_plan_from_args(args, tokenizer, model_path: Path, settings: RuntimeSettings,
                         loaded: LoadedDocuments, layout: RoundLayout | None = None) -> RunPlan:
    """The plan `precis plan` shows and `precis summarize` runs, from the same options."""
    return build_plan(tokenizer, layout or layout_from_args(args), settings.n_ctx,
                      summary_texts(loaded.documents, args.per_file),
                      known_speeds(model_path, settings.n_threads), **budget_overrides(args))


def render_run_plan(plan: RunPlan) -> str:
    b = plan.budget
    rows = [f"Documents: {plan.document_chars:,} characters, {plan.document_tokens:,} tokens "
            f"({len(plan.documents)} {'summary' if len(plan.documents) == 1 else 'summaries'}, preset {plan.layout.preset.name})",
            f"Budget of each round (n_ctx {b.n_ctx:,}): prompt {b.static_prompt_tokens:,} + summary in "
            f"{b.summary_in_cap:,} + chunk {b.chunk_budget:,} + summary out {b.summary_out_cap:,} + margin {b.margin:,}"
            + (f" (overlap {b.overlap_tokens:,} of the chunk)" if b.overlap_tokens else "")]
    for d in plan.documents:
        sizes = [c.tokens for c in d.chunks]
        flagged = sum(c.flagged for c in d.chunks)
        rows.append(f"  {d.name}: {d.chars:,} chars, {d.tokens:,} tokens -> {len(sizes)} rounds, chunks "
                    f"{min(sizes):,}-{max(sizes):,} tokens" + (f", {flagged} split mid-text (no seam found)" if flagged else ""))
        bounds = {}
        for c in d.chunks:
            bounds[c.boundary] = bounds.get(c.boundary, 0) + 1
        rows.append("    cut at: " + ", ".join(f"{k} {v}" for k, v in sorted(bounds.items(), key=lambda kv: -kv[1])))
    e = plan.estimate
    if e is not None:
        rows.append(f"Rounds: {plan.rounds}; about {e.evaluated_tokens:,} prompt tokens to process "
                    f"({e.prompt_tokens:,} sent, the rest reused) and {e.generated_tokens:,} to generate")
        if e.seconds is None:
            rows.append("Time: unknown until this model's speed is measured here (`precis plan --measure`, "
                        "or after a first run)")
        else:
            rows.append(f"Time: about {duration_text(e.seconds)} at {e.speeds.prompt_tokens_per_second:,.0f} prompt "
                        f"and {e.speeds.generate_tokens_per_second:,.1f} generated tokens/s measured here")
    return "\n".join(rows)


def sample_document_text() -> str:
    from importlib import resources as importlib_resources
    return (importlib_resources.files("resources") / "sample_day.txt").read_text(encoding="utf-8")


def _runs(args) -> int:
    from engine.checkpoints import list_runs
    runs = list_runs()
    if args.json:
        print(json.dumps([{"run_id": r.run_id, "status": r.status, "rounds": len(r.rounds), "files": r.files,
                           "directory": str(r.directory), "message": r.message} for r in runs], indent=2))
        return EXIT_OK
    if not runs:
        print("No saved runs.")
    for r in runs:
        print(f"{r.run_id}  {r.status:<9} {len(r.rounds):>4} rounds  {', '.join(Path(f).name for f in r.files)}"
              + ("  (resume: precis summarize --resume " + r.run_id + ")" if r.status != "finished" else ""))
    return EXIT_OK


def render_memory_plan(facts, plan) -> str:
    s = plan.settings
    rows = [f"{display_name(facts)}: n_ctx {s.n_ctx:,}, KV {s.type_k}/{s.type_v}, flash attention "
            f"{'on' if s.flash_attn else 'off'}" + (f", swa_full {'on' if s.swa_full else 'off'}" if facts.uses_swa else ""),
            f"  weights        {plan.weights_bytes / MIB:10,.1f} MiB"]
    for g in plan.kv_groups:
        rows.append(f"  KV {g.kind:<11} {g.total_bytes / MIB:10,.1f} MiB  ({g.layers} layers x {g.cells:,} cells)")
    rows += [f"  compute        {plan.compute_bytes / MIB:10,.1f} MiB",
             f"  runtime        {(plan.overhead_bytes + plan.output_bytes) / MIB:10,.1f} MiB",
             f"  total          {plan.total_bytes / MIB:10,.1f} MiB of {plan.available_bytes / MIB:,.0f} MiB available"
             f"  -> {plan.verdict}",
             f"  largest context that fits: {plan.max_n_ctx:,} tokens"]
    return "\n".join(rows)


if __name__ == "__main__":
    sys.exit(main())
