"""Listing a folder of 50 multi-GB GGUFs (synthetic headers, sparse files): first scan vs second scan.

The first scan reads every header; the second only stats the files (index cached by path, size and
mtime). Usage: python -m bench.model_library
"""
from __future__ import annotations

import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path


def run(n_files: int = 50, repeats: int = 3) -> dict:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from tests.gguf_builder import llama_like, write_gguf
    first_s, second_s = [], []
    for _ in range(repeats):
        with tempfile.TemporaryDirectory() as tmp:
            os.environ["PRECIS_HOME"] = str(Path(tmp) / "home")
            os.environ["PRECIS_TOOL_HOME"] = str(Path(tmp) / "user")
            folder = Path(tmp) / "models"
            folder.mkdir()
            md, tensors = llama_like("llama", n_layer=32, n_embd=4096, n_vocab=32000, big_tensor_elems=7 * 2**30)
            for i in range(n_files):
                write_gguf(folder / f"model-{i:02d}.gguf", md, tensors)
            from precis.models.library.discovery import discover
            t0 = time.perf_counter()
            a = discover([str(folder)], include_bundled=False)
            t1 = time.perf_counter()
            b = discover([str(folder)], include_bundled=False)
            t2 = time.perf_counter()
            assert len(a.models) == len(b.models) == n_files and b.headers_read == 0
            first_s.append(t1 - t0)
            second_s.append(t2 - t1)
            size_gib = a.models[0].file_bytes / 2**30
    return {"files": n_files, "file_gib": round(size_gib, 1), "first_scan_s": round(statistics.median(first_s), 3),
            "second_scan_s": round(statistics.median(second_s), 3)}


if __name__ == "__main__":
    print(json.dumps(run(), indent=2))
