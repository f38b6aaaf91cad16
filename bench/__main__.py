"""Run the benchmarks and record them in bench/results/latest.json.

Usage: python -m bench            (all of them)
       python -m bench NAME...    (only these; the others keep their recorded results)
Ratios are measured side by side within one benchmark run: these machines are noisy.
"""
from __future__ import annotations

import json
import os
import platform
import sys
from pathlib import Path

BENCHMARKS = {
    "gguf_header": lambda: __import__("bench.gguf_header", fromlist=["run"]).run(),
    "memory_plan": lambda: (lambda m: m.run(m.default_models()))(__import__("bench.memory_plan", fromlist=["run"])),
    "chunk_plan": lambda: __import__("bench.chunk_plan", fromlist=["run"]).run(),
    "rolling_overhead": lambda: __import__("bench.rolling_overhead", fromlist=["run"]).run(),
    "model_library": lambda: __import__("bench.model_library", fromlist=["run"]).run(),
    "gui_stalls": lambda: __import__("bench.gui_stalls", fromlist=["run"]).run(),
    "plan_large": lambda: __import__("bench.plan_large", fromlist=["run"]).run(),
    "server_batch": lambda: __import__("bench.server_batch", fromlist=["run"]).run(),
    "grammar_sampling": lambda: __import__("bench.grammar_sampling", fromlist=["run"]).run(),
    "prompt_lookup": lambda: __import__("bench.prompt_lookup", fromlist=["run"]).run(),
}
RESULTS = Path(__file__).parent / "results" / "latest.json"


def main(names: list[str]) -> None:
    unknown = [n for n in names if n not in BENCHMARKS]
    if unknown:
        sys.exit(f"unknown benchmark(s): {', '.join(unknown)}; choose from {', '.join(BENCHMARKS)}")
    results = json.loads(RESULTS.read_text()) if names and RESULTS.exists() else {}
    results["machine"] = {"cpus": os.cpu_count(), "python": platform.python_version()}
    for name in names or list(BENCHMARKS):
        results[name] = BENCHMARKS[name]()
        print(json.dumps({name: results[name]}, indent=2), flush=True)
    RESULTS.write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
