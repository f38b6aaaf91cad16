"""`precis models inspect | list | search | files | download`: the model library on the command line."""
from __future__ import annotations

import json
import signal
import sys
from dataclasses import asdict
from pathlib import Path

from precis.engine.errors import BadInput, Cancelled, ExitCode
from precis.engine.planning.memory_plan import MIB
from precis.engine.runtime.protocol import CancelToken
from precis.engine.storage.app_settings import load_settings
from precis.models.gguf.facts import read_model_facts
from precis.models.library import hub
from precis.models.library.bundled import display_name, resolve_model_path
from precis.models.library.discovery import discover
from precis.models.session.request import check_n_ctx


def run(args) -> int:
    if args.models_command == "inspect":
        return _inspect(args)
    return {"list": _list, "search": _search, "files": _files, "download": _download}[args.models_command](args)


def _inspect(args) -> int:
    facts = read_model_facts(resolve_model_path(args.model))
    if args.json:
        print(json.dumps(facts_dict(facts), indent=2))
        return ExitCode.OK
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
    return ExitCode.OK


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


def _list(args) -> int:
    check_n_ctx(args.n_ctx)
    for folder in args.folder:
        if not Path(folder).expanduser().is_dir():
            raise BadInput(f"--folder {folder}: no such folder.")
    lib = discover(load_settings().model_folders + args.folder, n_ctx=args.n_ctx)
    if args.json:
        print(json.dumps({"models": [m.as_dict() for m in lib.models],
                          "skipped": [{"path": p, "reason": r} for p, r in lib.skipped]}, indent=2))
        return ExitCode.OK
    for m in lib.models:
        f = m.facts
        print(f"{m.name}\n    {m.source:<11} {f.architecture}, {f.parameter_count / 1e9:,.2f}B, {f.quantization}, "
              f"{m.file_bytes / MIB:,.0f} MiB{f', {m.shards} shards' if m.shards > 1 else ''}, trained context "
              f"{f.n_ctx_train:,}; at {args.n_ctx:,} tokens: {m.verdict}\n    {m.path}")
    for path, reason in lib.skipped:
        print(f"skipped {path}: {reason}", file=sys.stderr)
    return ExitCode.OK


def _search(args) -> int:
    repos = hub.search(args.query, args.limit)
    if args.json:
        print(json.dumps([asdict(r) for r in repos], indent=2))
        return ExitCode.OK
    for r in repos:
        print(f"{r.downloads:>10,}  {r.repo_id}")
    if not repos:
        print(f"No GGUF repositories match {args.query!r}.")
    return ExitCode.OK


def _files(args) -> int:
    files = hub.list_files(args.repo)
    if args.json:
        print(json.dumps([asdict(f) for f in files], indent=2))
        return ExitCode.OK
    for f in files:
        print(f"{f.size_bytes / MIB:>10,.0f} MiB  {f.quantization:<8} {f.badge:<9}  {f.filename}")
    return ExitCode.OK


def _download(args) -> int:
    cancel = CancelToken()
    previous = signal.signal(signal.SIGINT, lambda *_: cancel.cancel())
    last = [-1]

    def progress(done: int, total: int) -> None:
        percent = int(done * 100 / total) if total else 100
        if percent != last[0]:
            last[0] = percent
            print(f"\r{args.file}: {done / MIB:,.0f} of {total / MIB:,.0f} MiB ({percent}%)", end="", file=sys.stderr,
                  flush=True)
    try:
        path = hub.download(args.repo, args.file, progress, cancel)
    except Cancelled as exc:
        print(f"\nprecis: {exc}", file=sys.stderr)
        return ExitCode.CANCELLED
    finally:
        signal.signal(signal.SIGINT, previous)
    print(f"\nverified and saved: {path}", file=sys.stderr)
    print(path)
    return ExitCode.OK
