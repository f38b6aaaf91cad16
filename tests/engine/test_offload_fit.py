"""The auto fit (most GPU layers, then the largest context up to what was asked, every pool keeping its
margin) and the check of a person's own --gpu-layers, on a fake device list and a tiny GGUF."""
from __future__ import annotations

import pytest

from precis.engine.planning.memory_plan import MIB
from precis.engine.planning.offload import plan_offload
from precis.engine.planning.offload_fit import FIT_CTX_FLOOR, check_choice, fit_offload, most_layers
from precis.engine.runtime.devices import Device
from precis.engine.runtime.settings import RuntimeSettings
from precis.models.gguf.facts import read_model_layout
from tests.gguf_builder import llama_like, write_gguf

GIB = 2**30
RAM = 64 * GIB


@pytest.fixture
def model(tmp_path):
    """8 layers of 10 MiB (f16) with 2 KiB of KV per cell each: layers and context both matter."""
    md, tensors = llama_like(n_layer=8, n_embd=1024, ff=4096, n_head=4, n_head_kv=2, n_vocab=1000,
                             ctx=65536, tensor_type=1)
    return read_model_layout(write_gguf(tmp_path / "m.gguf", md, tensors))


def gpu(total_bytes: float) -> Device:
    # free == total: the margin is then a quarter of it for these small devices
    return Device("Vulkan0", "a test GPU", "gpu", int(total_bytes), int(total_bytes), "Vulkan")


def need(model, n_gpu_layers: int, n_ctx: int) -> int:
    facts, table = model
    s = RuntimeSettings(n_ctx=n_ctx, n_gpu_layers=n_gpu_layers)
    return plan_offload(facts, table, s, [gpu(64 * GIB)], RAM).devices[0].total_bytes


def device_for(model, n_gpu_layers: int, n_ctx: int) -> Device:
    """A device on which exactly this much fits with its quarter kept free."""
    return gpu(need(model, n_gpu_layers, n_ctx) / 0.75 + 1)


def fit(model, device: Device | None, n_ctx: int):
    facts, table = model
    return fit_offload(facts, table, RuntimeSettings(n_ctx=n_ctx), [device] if device else [], RAM)


def test_without_a_gpu_nothing_is_offloaded_and_the_context_stays(model):
    choice = fit(model, None, 8192)
    assert (choice.gpu_layers, choice.n_ctx) == (0, 8192) and "no GPU" in choice.reason


def test_a_large_gpu_takes_every_layer_at_the_asked_context(model):
    choice = fit(model, gpu(8 * GIB), 8192)
    assert (choice.gpu_layers, choice.n_ctx) == (9, 8192)
    assert choice.plan.verdict == "fits" and "all 9 layers on Vulkan0" in choice.reason


def test_a_smaller_gpu_takes_the_most_layers_that_keep_its_margin(model):
    device = device_for(model, 5, 4096)              # at the floor: no context to trade for layers
    choice = fit(model, device, 4096)
    assert (choice.gpu_layers, choice.n_ctx) == (5, 4096)
    assert all(p.verdict == "fits" for p in choice.plan.pools)
    facts, table = model
    one_more = plan_offload(facts, table, RuntimeSettings(n_ctx=4096, n_gpu_layers=6), [device], RAM)
    assert one_more.devices[0].verdict != "fits"
    assert "5 of 9 layers" in choice.reason and "one more would leave" in choice.reason


def test_layers_come_first_then_the_largest_context_down_to_the_floor(model):
    asked = 32768
    device = device_for(model, 9, 12288)             # all layers fit up to 12,288 tokens, not 32,768
    choice = fit(model, device, asked)
    assert choice.gpu_layers == 9 and choice.n_ctx == 12288
    assert "context lowered from 32,768 to 12,288" in choice.reason
    assert choice.plan.verdict == "fits"


def test_below_the_floor_fewer_layers_go_instead(model):
    device = device_for(model, 9, 2048)              # every layer would need the context under 4,096
    choice = fit(model, device, 32768)
    assert choice.n_ctx >= FIT_CTX_FLOOR and choice.gpu_layers < 9
    assert choice.plan.verdict == "fits"
    assert choice.gpu_layers == most_layers(*model, RuntimeSettings(n_ctx=FIT_CTX_FLOOR), [device], RAM)


def test_a_gpu_too_small_for_the_prompt_gets_no_layers_and_says_why(model):
    choice = fit(model, gpu(4 * MIB), 8192)
    assert choice.gpu_layers == 0 and "no layers on the GPU" in choice.reason


def test_a_persons_own_layers_are_checked_with_what_to_lower(model):
    facts, table = model
    device = device_for(model, 5, 8192)
    too_many = plan_offload(facts, table, RuntimeSettings(n_ctx=8192, n_gpu_layers=9), [device], RAM)
    level, text = check_choice(facts, table, too_many, [device], RAM)
    assert too_many.devices[0].verdict == "won't fit"
    assert level == "error" and "--gpu-layers 5" in text and "Vulkan0 short by" in text
    fine = plan_offload(facts, table, RuntimeSettings(n_ctx=8192, n_gpu_layers=5), [device], RAM)
    assert check_choice(facts, table, fine, [device], RAM) == ("", "")


def test_a_tight_device_is_a_warning_not_a_refusal(model):
    facts, table = model
    exact = gpu(need(model, 9, 8192) + MIB)          # fits, but inside the quarter it should keep free
    plan = plan_offload(facts, table, RuntimeSettings(n_ctx=8192, n_gpu_layers=9), [exact], RAM)
    level, text = check_choice(facts, table, plan, [exact], RAM)
    assert plan.devices[0].verdict == "tight" and level == "warning" and "tight" in text
