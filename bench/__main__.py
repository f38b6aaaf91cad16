"""Run every benchmark and write bench/results/latest.json. Usage: python -m bench"""
from __future__ import annotations

import json
import platform
from pathlib import Path

from bench import chunk_plan, gguf_header, gui_stalls, memory_plan, model_library, rolling_overhead


def main() -> None:
    results = {"machine": {"cpus": __import__("os").cpu_count(), "python": platform.python_version()},
               "gguf_header": gguf_header.run(),
               "memory_plan": memory_plan.run(memory_plan.default_models()),
               "chunk_plan": chunk_plan.run(),
               "rolling_overhead": rolling_overhead.run(),
               "model_library": model_library.run(),
               "gui_stalls": gui_stalls.run()}
    out = Path(__file__).parent / "results" / "latest.json"
    out.write_text(json.dumps(results, indent=2) + "\n")
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
