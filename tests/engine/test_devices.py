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
