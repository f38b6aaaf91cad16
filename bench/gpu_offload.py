"""The offload plan per device against what llama.cpp allocates, and the speeds, for each model x context x layers.

Usage:
  python -m bench.gpu_offload [MODEL ...] [--contexts 2048 8192] [--layers 0 half all] [--lib DIR]
                              [--cpu-lib DIR] [--prompt-tokens 512] [--generate-tokens 64] [--json OUT]

MODEL: smollm2, qwen0.5b, qwen1.5b (bench/quality_models.py assembles them) or a .gguf path; default smollm2
and qwen0.5b. --layers: numbers, "half" ((n_layer + 1) // 2) or "all" (n_layer + 1, output included).
--lib: the llama.cpp libraries built with the GPU backend (LLAMA_CPP_LIB_PATH for the children; default: the
installed build). --cpu-lib: a CPU-only build's libraries for the speed baseline (each model and context once);
with --lib and no --cpu-lib the installed build is the baseline; with neither, it is left out. For Mesa's
software Vulkan device (lavapipe) set GGML_VK_VISIBLE_DEVICES=0: llama.cpp passes over a CPU-type Vulkan
device unless it is named.

Every configuration loads in its own process (a failed or crashed load costs one row, and no two models share
a device), lists the devices as that process's llama.cpp sees them, plans with them, loads, reads llama.cpp's
log (engine/runtime/allocation_log.py) and times a prompt and a generation. The table compares per pool:
weights and KV must match to llama.cpp's printed precision (0.01 MiB), compute within 10%. The same command
runs on a CUDA machine (CUDA0 instead of Vulkan0). Not in `make bench`: it needs a GPU build and loads models.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

MIB = 2**20
EXACT_MIB = 0.01            # llama.cpp prints two decimals: a match is within its rounding
COMPUTE_TOLERANCE = 0.10


def resolve_layers(spec: str, n_layer: int) -> int:
    if spec == "all":
        return n_layer + 1
    if spec == "half":
        return (n_layer + 1) // 2
    return min(int(spec), n_layer + 1)


# ----- one configuration, in its own process ------------------------------------------------------------
def child(model: str, n_ctx: int, layers: str, prompt_tokens: int, generate_tokens: int) -> dict:
    from bench.quality_models import model_path
    from precis.engine.planning.memory_plan import available_ram_bytes
    from precis.engine.planning.offload import plan_offload
    from precis.engine.runtime.devices import list_devices, offload_devices
    from precis.engine.runtime.llama import LlamaRuntime
    from precis.engine.runtime.settings import RuntimeSettings
    from precis.models.cli.plan_command import sample_document_text
    from precis.models.gguf.facts import read_model_layout

    path = model_path(model)
    facts, table = read_model_layout(path)
    devices = offload_devices(list_devices())
    n_gpu = resolve_layers(layers, facts.n_layer) if devices else 0
    settings = RuntimeSettings(n_ctx=min(n_ctx, facts.n_ctx_train or n_ctx), n_gpu_layers=n_gpu)
    plan = plan_offload(facts, table, settings, devices, available_ram_bytes())
    out = {"model": facts.name, "path": str(path), "n_ctx": settings.n_ctx, "gpu_layers": n_gpu,
           "n_layer": facts.n_layer, "devices": [d.as_dict() for d in devices], "plan": plan.as_dict()}
    with LlamaRuntime.load(path, settings) as runtime:
        out["allocation"] = runtime.allocation.as_dict()
        out["speeds"] = _speeds(runtime, sample_document_text(), prompt_tokens, generate_tokens)
    return out


def _speeds(runtime, text: str, prompt_tokens: int, generate_tokens: int) -> dict:
    """Prompt and generation tokens/s of one greedy call (not recorded in the speed log)."""
    from precis.engine.runtime.protocol import SamplingParams
    prompt_tokens = max(16, min(prompt_tokens, runtime.n_ctx - generate_tokens - 8))
    ids = (runtime.tokenize(text) * 8)[:prompt_tokens]
    for _ in runtime.stream(runtime.detokenize(ids), SamplingParams(max_tokens=generate_tokens, temperature=0.0)):
        pass
    s = runtime.last_call
    return {"prompt_tokens": s.evaluated_tokens,
            "prompt_tps": round(s.evaluated_tokens / max(s.prompt_seconds, 1e-6), 1),
            "generated_tokens": s.generated_tokens,
            "generate_tps": round(max(s.generated_tokens - 1, 1) / max(s.generate_seconds, 1e-6), 1)}


# ----- the comparison ------------------------------------------------------------------------------------
def compare(result: dict) -> list[dict]:
    """One row per pool: plan against llama.cpp for weights, KV and compute, and whether each holds."""
    alloc = result["allocation"]["buffers_mib"]
    plan = result["plan"]
    rows = []
    for pool in plan["pools"]:
        name = pool["name"]

        def measured(kind: str, pool_name: str = name) -> float:
            return sum(v for k, v in alloc[kind].items() if _on(k, pool_name))
        host_model = {k: v for k, v in alloc["model"].items() if _on(k, "RAM")}
        weights_plan = pool["weights_bytes"]
        compared = True
        if name == "RAM":
            # the mapped span is what llama.cpp prints for memory-mapped host weights; weights the CPU backend
            # repacked for its own kernels (CPU_REPACK: Q4_0 / Q4_K ... with AVX2) move out of the span into
            # a buffer of their own, which the plan does not predict: shown, not held against it
            weights_plan = plan["mapped_bytes"]
            compared = set(host_model) <= {"CPU_Mapped"}
        row = {"pool": name, "weights_plan": weights_plan / MIB, "weights_llama": measured("model"),
               "kv_plan": pool["kv_bytes"] / MIB, "kv_llama": measured("kv"),
               "compute_plan": pool["compute_bytes"] / MIB, "compute_llama": measured("compute"),
               "verdict": pool["verdict"], "host_buffers": sorted(host_model) if name == "RAM" else []}
        row["weights_ok"] = abs(row["weights_plan"] - row["weights_llama"]) <= EXACT_MIB or not compared
        row["weights_compared"] = compared
        row["kv_ok"] = abs(row["kv_plan"] - row["kv_llama"]) <= EXACT_MIB
        base = row["compute_llama"] or row["compute_plan"]
        row["compute_error"] = (row["compute_plan"] - row["compute_llama"]) / base if base else 0.0
        row["compute_ok"] = abs(row["compute_error"]) <= COMPUTE_TOLERANCE
        rows.append(row)
    return rows


def _on(buffer: str, pool: str) -> bool:
    host = buffer.startswith("CPU") or buffer.endswith("_Host")
    return host if pool == "RAM" else buffer == pool


def markdown(results: list[dict], baselines: list[dict]) -> str:
    lines = ["| model | n_ctx | GPU layers | pool | weights plan / llama.cpp (MiB) | KV plan / llama.cpp | "
             "compute plan / llama.cpp (error) | holds |",
             "|---|---|---|---|---|---|---|---|"]
    for r in results:
        if "error" in r:
            lines.append(f"| {r['model']} | {r['n_ctx']} | {r['layers']} | - | load failed: {r['error']} | | | no |")
            continue
        for row in compare(r):
            ok = row["weights_ok"] and row["kv_ok"] and row["compute_ok"]
            unchecked = "" if row["weights_compared"] else f" ({' + '.join(row['host_buffers'])}, not compared)"
            lines.append(f"| {r['model']} | {r['n_ctx']:,} | {r['gpu_layers']}/{r['n_layer'] + 1} | {row['pool']} | "
                         f"{row['weights_plan']:,.2f} / {row['weights_llama']:,.2f}{unchecked} | "
                         f"{row['kv_plan']:,.2f} / {row['kv_llama']:,.2f} | {row['compute_plan']:,.2f} / "
                         f"{row['compute_llama']:,.2f} ({100 * row['compute_error']:+.1f}%) | "
                         f"{'yes' if ok else 'NO'} |")
    lines += ["", "| model | n_ctx | build | GPU layers | prompt tokens/s | generation tokens/s |",
              "|---|---|---|---|---|---|"]
    for r in baselines + [r for r in results if "speeds" in r]:
        s = r["speeds"]
        build = "CPU build" if r.get("baseline") else (", ".join(d["name"] for d in r["devices"]) or "no GPU")
        lines.append(f"| {r['model']} | {r['n_ctx']:,} | {build} | {r['gpu_layers']} | {s['prompt_tps']:,.1f} | "
                     f"{s['generate_tps']:,.1f} |")
    return "\n".join(lines)


# ----- the parent ------------------------------------------------------------------------------------------
def _run_child(model: str, n_ctx: int, layers: str, lib: str | None, args) -> dict:
    env = dict(os.environ)
    env.pop("PRECIS_FAKE_DEVICES", None)
    env["PRECIS_HOME"] = args.home
    if lib is not None:
        env.pop("LLAMA_CPP_LIB_PATH", None)       # "": the installed build
    if lib:
        env["LLAMA_CPP_LIB_PATH"] = lib
        env["LD_LIBRARY_PATH"] = lib + os.pathsep + env.get("LD_LIBRARY_PATH", "")
    cmd = [sys.executable, "-m", "bench.gpu_offload", "--child", model, str(n_ctx), layers,
           "--prompt-tokens", str(args.prompt_tokens), "--generate-tokens", str(args.generate_tokens)]
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=args.timeout)
    if done.returncode != 0 or not done.stdout.strip():
        tail = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return {"model": model, "n_ctx": n_ctx, "layers": layers, "error": tail[:200]}
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.gpu_offload", description=__doc__.split("\n\n")[0])
    p.add_argument("models", nargs="*", default=["smollm2", "qwen0.5b"])
    p.add_argument("--contexts", nargs="+", type=int, default=[2048, 8192])
    p.add_argument("--layers", nargs="+", default=["0", "half", "all"])
    p.add_argument("--lib", help="llama.cpp libraries with the GPU backend (LLAMA_CPP_LIB_PATH)")
    p.add_argument("--cpu-lib", help="a CPU-only build's libraries, for the speed baseline")
    p.add_argument("--prompt-tokens", type=int, default=512)
    p.add_argument("--generate-tokens", type=int, default=64)
    p.add_argument("--timeout", type=int, default=1800, help="seconds per configuration")
    p.add_argument("--json", help="also write every result here")
    p.add_argument("--child", nargs=3, metavar=("MODEL", "N_CTX", "LAYERS"), help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.child:
        model, n_ctx, layers = args.child
        print(json.dumps(child(model, int(n_ctx), layers, args.prompt_tokens, args.generate_tokens)))
        return 0
    results, baselines = [], []
    with tempfile.TemporaryDirectory(prefix="precis-gpu-bench-") as home:
        args.home = home
        baseline_lib = args.cpu_lib or ("" if args.lib else None)
        for model in args.models:
            for n_ctx in args.contexts:
                if baseline_lib is not None:
                    base = _run_child(model, n_ctx, "0", baseline_lib, args)
                    if "speeds" in base:
                        baselines.append({**base, "baseline": True})
                for layers in args.layers:
                    result = _run_child(model, n_ctx, layers, args.lib, args)
                    results.append(result)
                    print(f"[gpu_offload] {model} n_ctx {n_ctx} layers {layers}: "
                          f"{'failed: ' + result['error'] if 'error' in result else 'done'}", file=sys.stderr)
    if args.json:
        Path(args.json).write_text(json.dumps({"results": results, "baselines": baselines}, indent=2) + "\n")
    print(markdown(results, baselines))
    failed = [r for r in results if "error" in r or not all(
        row["weights_ok"] and row["kv_ok"] and row["compute_ok"] for row in compare(r))]
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
