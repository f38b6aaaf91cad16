"""Reading a multi-GB GGUF's facts: Precis's header walk against gguf-py's GGUFReader, same file.

The file is synthetic but shaped like a real 8B model: a 128,256-entry vocabulary with its merges
(the arrays that make gguf-py slow) and ~4.6 GiB of q4_K weights left as a sparse hole.
"""
from __future__ import annotations

import json
import tempfile
import time
import tracemalloc
from pathlib import Path

from precis.models.gguf.facts import read_model_facts
from tests.gguf_builder import llama_like, write_gguf


def _best_seconds(fn, repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def _peak_mib(fn) -> float:
    tracemalloc.start()
    fn()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak / 2**20


def run() -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        md, tensors = llama_like("llama", n_layer=32, n_vocab=128_256, big_tensor_elems=9 * 2**30)
        md["tokenizer.ggml.merges"] = [f"m{i} x{i}" for i in range(280_147)]
        path = write_gguf(Path(tmp) / "synthetic-8b.gguf", md, tensors)
        from gguf import GGUFReader

        precis_s = _best_seconds(lambda: read_model_facts(path), 3)
        gguf_py_s = _best_seconds(lambda: GGUFReader(path), 1)
        result = {
            "file_gib": round(path.stat().st_size / 2**30, 2),
            "precis_seconds": round(precis_s, 3), "gguf_py_seconds": round(gguf_py_s, 3),
            "speedup": round(gguf_py_s / precis_s, 1),
            "precis_peak_python_mib": round(_peak_mib(lambda: read_model_facts(path)), 2),
            "gguf_py_peak_python_mib": round(_peak_mib(lambda: GGUFReader(path)), 1),
        }
    return result


if __name__ == "__main__":
    print(json.dumps(run(), indent=2))
