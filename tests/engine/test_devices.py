"""The device list: ggml's own (through llama-cpp-python's libraries), or a fake one for tests."""
from __future__ import annotations

import json

import pytest

from precis.engine.runtime.devices import FAKE_DEVICES_ENV, DeviceListError, list_devices, offload_devices


def fake(monkeypatch, *devices) -> None:
    monkeypatch.setenv(FAKE_DEVICES_ENV, json.dumps(list(devices)))


def test_a_fake_list_stands_in_for_the_real_one(monkeypatch):
    fake(monkeypatch, {"name": "CUDA0", "description": "RTX 4060", "kind": "gpu", "free_bytes": 7 << 30,
                       "total_bytes": 8 << 30, "backend": "CUDA"})
    cpu, gpu = list_devices()
    assert cpu.kind == "cpu" and not cpu.offloads
    assert (gpu.name, gpu.kind, gpu.free_bytes, gpu.total_bytes) == ("CUDA0", "gpu", 7 << 30, 8 << 30)
    assert offload_devices(list_devices()) == [gpu]


def test_integrated_gpus_are_used_only_without_a_discrete_one(monkeypatch):
    igpu = {"name": "Vulkan1", "kind": "igpu", "free_bytes": 1 << 30}
    fake(monkeypatch, igpu)
    assert [d.name for d in offload_devices(list_devices())] == ["Vulkan1"]
    assert offload_devices(list_devices())[0].shares_ram
    fake(monkeypatch, {"name": "Vulkan0", "kind": "gpu", "free_bytes": 1 << 30}, igpu)
    assert [d.name for d in offload_devices(list_devices())] == ["Vulkan0"]


def test_the_tests_default_is_no_gpu():
    assert offload_devices(list_devices()) == []


@pytest.mark.parametrize("text", ["{}", "[{\"name\": \"x\"}]", "[{\"name\": \"x\", \"kind\": \"cpu\", "
                                  "\"free_bytes\": 1}]", "not json"])
def test_a_malformed_fake_list_is_refused_with_what_it_needs(monkeypatch, text):
    monkeypatch.setenv(FAKE_DEVICES_ENV, text)
    with pytest.raises(DeviceListError, match=FAKE_DEVICES_ENV):
        list_devices()


def test_the_real_list_comes_from_ggml_and_holds_the_cpu(monkeypatch):
    """Through ctypes, no model loaded: this machine's CPU build lists its CPU with the RAM's size."""
    monkeypatch.delenv(FAKE_DEVICES_ENV)
    devices = list_devices()
    cpu = [d for d in devices if d.kind == "cpu"]
    assert cpu and cpu[0].name == "CPU" and cpu[0].total_bytes > 256 << 20 and cpu[0].backend == "CPU"


class _FakeGgml:
    """Stands in for libggml's tensor and device calls: the device takes a tensor up to ``limit`` bytes."""

    def __init__(self, limit: int | None):
        self.limit, self.sizes, self.questions = limit, {}, 0

    def ggml_init(self, params):
        return 1

    def ggml_free(self, ctx):
        pass

    def ggml_new_tensor_1d(self, ctx, type_, n):
        handle = len(self.sizes) + 100
        self.sizes[handle] = 4 * n
        return handle

    def ggml_add(self, ctx, a, b):
        return a

    def ggml_backend_dev_supports_op(self, dev, op):
        self.questions += 1
        return self.limit is None or self.sizes[op] <= self.limit


@pytest.mark.parametrize("limit", [134217728, 4 * 2**30 - 4, 1000, 4])
def test_a_devices_largest_tensor_is_found_by_asking_it(limit):
    from precis.engine.runtime.devices import _largest_tensor_bytes
    lib = _FakeGgml(limit)
    assert _largest_tensor_bytes(lib, dev=object()) == limit // 4 * 4
    assert lib.questions < 50


def test_a_device_without_a_limit_says_zero():
    from precis.engine.runtime.devices import _largest_tensor_bytes
    assert _largest_tensor_bytes(_FakeGgml(None), dev=object()) == 0
    assert _largest_tensor_bytes(_FakeGgml(0), dev=object()) == 0       # refuses every F32 addition


def test_a_fake_device_can_carry_its_largest_tensor(monkeypatch):
    monkeypatch.setenv(FAKE_DEVICES_ENV, json.dumps([{"name": "Vulkan0", "kind": "gpu", "free_bytes": 2**31,
                                                       "total_bytes": 2**31, "max_tensor_bytes": 2**27}]))
    assert offload_devices(list_devices())[0].max_tensor_bytes == 2**27
