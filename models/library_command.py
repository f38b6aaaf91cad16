"""`precis models list | search | files | download`: the model library on the command line."""
from __future__ import annotations

import json
import signal
import sys
from dataclasses import asdict

from engine.app_settings import load_settings
from engine.errors import Cancelled
from engine.memory_plan import MIB
from engine.runtime import CancelToken
from models import hub
from models.library import discover

EXIT_OK, EXIT_CANCELLED = 0, 130


def run(args) -> int:
    return {"list": _list, "search": _search, "files": _files, "download": _download}[args.models_command](args)


def _list(args) -> int:
    lib = discover(load_settings().model_folders + args.folder, n_ctx=args.n_ctx)
    if args.json:
        print(json.dumps({"models": [m.as_dict() for m in lib.models],
                          "skipped": [{"path": p, "reason": r} for p, r in lib.skipped]}, indent=2))
        return EXIT_OK
    for m in lib.models:
        f = m.facts
        print(f"{m.name}\n    {m.source:<11} {f.architecture}, {f.parameter_count / 1e9:,.2f}B, {f.quantization}, "
              f"{m.file_bytes / MIB:,.0f} MiB{f', {m.shards} shards' if m.shards > 1 else ''}, trained context "
              f"{f.n_ctx_train:,}; at {args.n_ctx:,} tokens: {m.verdict}\n    {m.path}")
    for path, reason in lib.skipped:
        print(f"skipped {path}: {reason}", file=sys.stderr)
    return EXIT_OK


def _search(args) -> int:
    repos = hub.search(args.query, args.limit)
    if args.json:
        print(json.dumps([asdict(r) for r in repos], indent=2))
        return EXIT_OK
    for r in repos:
        print(f"{r.downloads:>10,}  {r.repo_id}")
    if not repos:
        print(f"No GGUF repositories match {args.query!r}.")
    return EXIT_OK


def _files(args) -> int:
    files = hub.list_files(args.repo)
    if args.json:
        print(json.dumps([asdict(f) for f in files], indent=2))
        return EXIT_OK
    for f in files:
        print(f"{f.size_bytes / MIB:>10,.0f} MiB  {f.quantization:<8} {f.badge:<9}  {f.filename}")
    return EXIT_OK


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
        return EXIT_CANCELLED
    finally:
        signal.signal(signal.SIGINT, previous)
    print(f"\nverified and saved: {path}", file=sys.stderr)
    print(path)
    return EXIT_OK
