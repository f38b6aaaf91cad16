"""The GPU layers and context to load with, from the plan alone (no trial load), and a person's own choice checked.

The auto fit takes the most layers first, then the largest context up to what was asked: a layer on the GPU
runs several times faster than on the CPU, and a shorter context only adds rounds. It never lowers the
context below ``min(asked, 4096)`` to make room for layers (llama.cpp's own fit stops there too: common.h,
fit_params_min_ctx); below that it offloads fewer layers instead. Every GPU keeps its margin free
(offload.device_margin_bytes: 1 GiB as llama.cpp's fit, or a quarter of a smaller device) and the RAM its 20%.
Device use only grows with the layers and RAM use only shrinks, and both grow with the context, so both
searches bisect.
"""
from __future__ import annotations

from dataclasses import dataclass

from precis.engine.planning.model_facts import ModelFacts, TensorTable
from precis.engine.planning.offload import OffloadPlan, PoolPlan, plan_offload
from precis.engine.runtime.devices import Device
from precis.engine.runtime.settings import CTX_PAD_TOKENS, RuntimeSettings

MIB = 2**20
FIT_CTX_FLOOR = 4096


@dataclass(frozen=True)
class OffloadChoice:
    plan: OffloadPlan
    asked_n_ctx: int
    reason: str              # what was chosen and why, for a person
    auto: bool               # chosen by the fit (False: the person's own --gpu-layers)
    warning: str = ""        # a person's own choice that leaves a pool tight: what to lower
    max_n_ctx: int = 0       # the largest context every pool fits with these layers (0: not computed)

    @property
    def gpu_layers(self) -> int:
        return self.plan.settings.n_gpu_layers

    @property
    def n_ctx(self) -> int:
        return self.plan.settings.n_ctx

    def as_dict(self) -> dict:
        return {"gpu_layers": self.gpu_layers, "n_ctx": self.n_ctx, "asked_n_ctx": self.asked_n_ctx,
                "auto": self.auto, "reason": self.reason, "warning": self.warning, "max_n_ctx": self.max_n_ctx}


class _Planner:
    def __init__(self, facts, table, settings, devices, ram):
        self.facts, self.table, self.settings, self.devices, self.ram = facts, table, settings, devices, ram

    def plan(self, n_gpu_layers: int, n_ctx: int) -> OffloadPlan:
        s = self.settings.with_n_ctx(n_ctx).with_gpu_layers(n_gpu_layers)
        return plan_offload(self.facts, self.table, s, self.devices, self.ram)


def _devices_fit(plan: OffloadPlan) -> bool:
    return all(p.verdict == "fits" for p in plan.devices)


def _all_fit(plan: OffloadPlan) -> bool:
    return all(p.verdict == "fits" for p in plan.pools)


def _largest(lo: int, hi: int, ok) -> int | None:
    """The largest value in [lo, hi] for which ``ok`` holds, ``ok`` true up to some point; None if none."""
    best = None
    while lo <= hi:
        mid = (lo + hi) // 2
        if ok(mid):
            best, lo = mid, mid + 1
        else:
            hi = mid - 1
    return best


def most_layers(facts: ModelFacts, table: TensorTable | None, s: RuntimeSettings, devices: list[Device],
                ram_bytes: int) -> int | None:
    """The most layers whose GPUs all keep their margin at ``s.n_ctx``; None when not even 0 does (the
    first GPU computes the prompt whatever the layers)."""
    planner = _Planner(facts, table, s, devices, ram_bytes)
    return _largest(0, facts.n_layer + 1, lambda n: _devices_fit(planner.plan(n, s.n_ctx)))


def largest_context(facts: ModelFacts, table: TensorTable | None, s: RuntimeSettings, devices: list[Device],
                    ram_bytes: int, up_to: int, *, lowest: int = CTX_PAD_TOKENS) -> int | None:
    """The largest context (a multiple of 256, at most ``up_to``) whose every pool fits with
    ``s.n_gpu_layers``; None below ``lowest``."""
    planner = _Planner(facts, table, s, devices, ram_bytes)
    step = _largest(lowest // CTX_PAD_TOKENS, up_to // CTX_PAD_TOKENS,
                    lambda k: _all_fit(planner.plan(s.n_gpu_layers, k * CTX_PAD_TOKENS)))
    return None if step is None else step * CTX_PAD_TOKENS


def fit_offload(facts: ModelFacts, table: TensorTable | None, s: RuntimeSettings, devices: list[Device],
                ram_bytes: int) -> OffloadChoice:
    """The most layers, then the largest context up to ``s.n_ctx``, that leave every pool its margin."""
    asked = s.n_ctx
    planner = _Planner(facts, table, s, devices, ram_bytes)
    if not devices:
        return OffloadChoice(planner.plan(0, asked), asked, "no GPU: everything in RAM", True)
    top = facts.n_layer + 1
    floor = min(asked, FIT_CTX_FLOOR)
    layers = _largest(0, top, lambda n: _devices_fit(planner.plan(n, floor)))
    if layers is None:
        plan = planner.plan(0, asked)
        short = [p for p in plan.devices if p.verdict != "fits"]
        return OffloadChoice(plan, asked, f"no layers on the GPU: {_pool_text(short[0])} even with none (the GPU "
                             "computes the prompt whatever the layers); a smaller context leaves it more room", True)
    ctx = largest_context(facts, table, s.with_gpu_layers(layers), devices, ram_bytes, asked, lowest=floor)
    if ctx is None:        # the RAM is what is short at this floor: keep the floor, the verdicts say the rest
        ctx = floor
    plan = planner.plan(layers, ctx)
    where = ", ".join(f"{p.name} ({p.description})" for p in plan.devices if p.layers or p.holds_output)
    what = f"all {top} layers" if layers == top else f"{layers} of {top} layers"
    why = []
    if layers < top:
        more = planner.plan(layers + 1, floor)
        short = next(p for p in more.devices if p.verdict != "fits")
        why.append(f"one more would leave {_pool_text(short)}")
    if ctx < asked:
        why.append(f"context lowered from {asked:,} to {ctx:,} tokens so that "
                   + ("every pool keeps its margin" if layers else "RAM keeps its margin"))
    margins = "; ".join(f"{p.name} keeps {p.margin_bytes / MIB:,.0f} MiB free" for p in plan.devices)
    reason = (f"{what} on {where or 'the GPU'}" if layers else "no layers on the GPU") + \
        (f" ({'; '.join(why)})" if why else "") + f"; {margins}"
    return OffloadChoice(plan, asked, reason, True)


def _pool_text(p: PoolPlan) -> str:
    free = p.available_bytes - p.total_bytes
    return (f"{p.name} {free / MIB:,.0f} MiB free of {p.available_bytes / MIB:,.0f} MiB, under its "
            f"{p.margin_bytes / MIB:,.0f} MiB margin" if free >= 0 else
            f"{p.name} short by {-free / MIB:,.0f} MiB")


def check_choice(facts: ModelFacts, table: TensorTable | None, plan: OffloadPlan, devices: list[Device],
                 ram_bytes: int) -> tuple[str, str]:
    """("error" | "warning" | "", what to lower) for a person's own layers and context."""
    short = plan.short_pools
    tight = [p for p in plan.pools if p.verdict == "tight"]
    if not short and not tight:
        return "", ""
    s = plan.settings
    hints = []
    if any(p.name != "RAM" for p in short + tight):
        layers = most_layers(facts, table, s, devices, ram_bytes)
        if layers is not None and layers < s.n_gpu_layers:
            hints.append(f"--gpu-layers {layers} (the most that keep the GPU's margin at this context)")
    ctx = largest_context(facts, table, s, devices, ram_bytes, s.n_ctx)
    if ctx is not None and ctx < s.n_ctx:
        hints.append(f"--n-ctx {ctx} (the largest that fits with {s.n_gpu_layers} GPU layers)")
    if any(p.name == "RAM" for p in short + tight) and s.n_gpu_layers < plan.max_gpu_layers and plan.devices:
        hints.append("more --gpu-layers (what goes to the GPU leaves RAM)")
    hints.append("--kv-type q8_0 (half the KV cache)")
    pools = "; ".join(_pool_text(p) for p in (short or tight))
    lower = "Use " + ", or ".join(hints) + "."
    if short:
        return "error", f"With {s.n_gpu_layers} GPU layers and a context of {s.n_ctx:,} tokens: {pools}. {lower}"
    return "warning", f"With {s.n_gpu_layers} GPU layers and a context of {s.n_ctx:,} tokens memory is tight: " \
                      f"{pools}. {lower}"
