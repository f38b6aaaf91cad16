"""The headless command line: `precis models ...`, `precis plan ...`.

It lives in models/ because it is the lowest layer that knows both model files and the engine;
gui/launcher.py hands every subcommand here without importing Qt. Exit codes: 0 success,
2 bad input (file, option), 3 model error, 130 cancelled (see docs/cli.md).
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from engine import __version__
from engine.errors import PrecisError
from engine.memory_plan import MIB, available_ram_bytes, plan_memory
from engine.runtime_settings import KV_TYPES, RuntimeSettings
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

    plan = sub.add_parser("plan", help="what a context length costs in memory")
    plan.add_argument("--model", default="default", help="path to a .gguf file, or `default`")
    plan.add_argument("--n-ctx", type=int, default=4096, help="context length in tokens (multiple of 256)")
    plan.add_argument("--kv-type", choices=KV_TYPES, default="f16", help="KV cache type")
    plan.add_argument("--swa-full", action="store_true",
                      help="full-size cache for sliding-window layers (more memory, prefix reuse)")
    plan.add_argument("--measure", action="store_true",
                      help="also load the model and show what llama.cpp really allocated next to the estimate")
    plan.add_argument("--json", action="store_true")
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        if args.command == "models" and args.models_command == "inspect":
            return _inspect(args)
        if args.command == "plan":
            return _plan(args)
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
    plan = plan_memory(facts, settings, available_ram_bytes())
    measured = None
    if args.measure:
        from engine.runtime import LlamaRuntime
        with LlamaRuntime.load(facts.path, settings) as runtime:
            measured = runtime.allocation
    if args.json:
        out = {"model": str(facts.path), **plan.as_dict()}
        if measured is not None:
            out["measured"] = measured.as_dict()
        print(json.dumps(out, indent=2))
        return EXIT_OK
    print(render_memory_plan(facts, plan))
    if measured is not None:
        print(f"  measured by llama.cpp: weights {measured.model_size_bytes / MIB:,.1f} MiB, "
              f"KV {measured.kv_mib:,.2f} MiB, compute {measured.compute_mib:,.2f} MiB, "
              f"process grew {(measured.rss_after_bytes - measured.rss_before_bytes) / MIB:,.0f} MiB at load")
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
