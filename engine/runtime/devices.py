"""The compute devices llama.cpp sees: name, kind, free and total memory, from ggml's own device list.

Read with ctypes from llama-cpp-python's bundled shared libraries (ggml_backend_dev_count / _get / _name /
_description / _type / _memory and the device's backend registry name, ggml/include/ggml-backend.h):
llama_cpp binds none of them, and no other package is needed. Listing loads the libraries and asks each
backend for its devices; it loads no model, and for Vulkan it reads the physical device's properties
without creating a logical device (ggml_backend_vk_reg_get_device, llama.cpp 0c1e57098).

What llama.cpp offloads to follows llama_prepare_model_devices (src/llama.cpp): GPU-type devices, and
integrated GPUs only where there is no discrete one; CPU and ACCEL (BLAS, AMX) devices are never offload
targets. A CPU-type Vulkan device (Mesa's lavapipe) is skipped by ggml-vulkan itself unless
GGML_VK_VISIBLE_DEVICES names it, and is then listed as a GPU.

``PRECIS_FAKE_DEVICES`` replaces the list (tests, demos, screenshots): a JSON list of objects with
name, description, kind (gpu / igpu), free_bytes and total_bytes; the CPU device is implied. "[]" means
no GPU.
"""
from __future__ import annotations

import ctypes
import json
import os
import threading
from dataclasses import asdict, dataclass

FAKE_DEVICES_ENV = "PRECIS_FAKE_DEVICES"
# enum ggml_backend_dev_type (ggml-backend.h)
KINDS = {0: "cpu", 1: "gpu", 2: "igpu", 3: "accel", 4: "meta"}
OFFLOAD_KINDS = ("gpu", "igpu")


@dataclass(frozen=True)
class Device:
    name: str            # llama.cpp's own name, as its log lines use it: "CPU", "Vulkan0", "CUDA0", "MTL0"
    description: str     # "NVIDIA GeForce RTX 4060", "llvmpipe (LLVM 15.0.6, 256 bits)"
    kind: str            # cpu, gpu, igpu, accel
    free_bytes: int
    total_bytes: int
    backend: str = ""    # the backend's registry name: CPU, Vulkan, CUDA, Metal

    @property
    def offloads(self) -> bool:
        return self.kind in OFFLOAD_KINDS

    @property
    def shares_ram(self) -> bool:
        """Unified memory: what it holds comes out of the same RAM (integrated GPUs, Apple Silicon)."""
        return self.kind == "igpu" or self.backend == "Metal" or self.name.startswith("MTL")

    def as_dict(self) -> dict:
        return asdict(self)


class DeviceListError(RuntimeError):
    """PRECIS_FAKE_DEVICES is not a list of devices; the message says what is wrong."""


def list_devices() -> list[Device]:
    """Every device llama.cpp's build here sees, the CPU included; free memory as of now."""
    fake = os.environ.get(FAKE_DEVICES_ENV)
    if fake is not None:
        return [_CPU_PLACEHOLDER, *parse_fake_devices(fake)]
    return _read_ggml_devices()


def offload_devices(devices: list[Device]) -> list[Device]:
    """The devices llama.cpp offloads layers to, in its order: GPUs, or the integrated ones if none."""
    gpus = [d for d in devices if d.kind == "gpu"]
    return gpus or [d for d in devices if d.kind == "igpu"]


def parse_fake_devices(text: str) -> list[Device]:
    try:
        items = json.loads(text)
        if not isinstance(items, list):
            raise TypeError("not a list")
        devices = [Device(name=str(i["name"]), description=str(i.get("description", i["name"])),
                          kind=str(i.get("kind", "gpu")), free_bytes=int(i["free_bytes"]),
                          total_bytes=int(i.get("total_bytes", i["free_bytes"])), backend=str(i.get("backend", "")))
                   for i in items]
    except (ValueError, TypeError, KeyError) as exc:
        raise DeviceListError(f"{FAKE_DEVICES_ENV} must be a JSON list of devices with name, kind, free_bytes and "
                              f"total_bytes ({exc})") from exc
    for d in devices:
        if d.kind not in OFFLOAD_KINDS or d.free_bytes < 0 or d.total_bytes < d.free_bytes:
            raise DeviceListError(f"{FAKE_DEVICES_ENV}: {d.name} needs kind gpu or igpu and 0 <= free <= total bytes")
    return devices


_CPU_PLACEHOLDER = Device("CPU", "the CPU (fake device list)", "cpu", 0, 0, "CPU")
_lib_lock = threading.Lock()
_ggml = None


def _library():
    """libggml from the same folder llama_cpp loads libllama from (LLAMA_CPP_LIB_PATH included), so the
    device list is the one a model load will see. dlsym on it also finds libggml-base's functions."""
    global _ggml
    with _lib_lock:
        if _ggml is None:
            from llama_cpp import llama_cpp as bindings  # loads libllama and, through it, libggml
            names = {"nt": ["ggml.dll", "libggml.dll"], "posix": ["libggml.so", "libggml.dylib"]}[os.name]
            path = next((bindings._base_path / n for n in names if (bindings._base_path / n).exists()), None)
            if path is None:
                raise OSError(f"no ggml library next to llama.cpp's in {bindings._base_path}")
            lib = ctypes.CDLL(str(path))
            vp, sz = ctypes.c_void_p, ctypes.c_size_t
            for fn, res, args in (("ggml_backend_dev_count", sz, []), ("ggml_backend_dev_get", vp, [sz]),
                                  ("ggml_backend_dev_name", ctypes.c_char_p, [vp]),
                                  ("ggml_backend_dev_description", ctypes.c_char_p, [vp]),
                                  ("ggml_backend_dev_type", ctypes.c_int, [vp]),
                                  ("ggml_backend_dev_memory", None, [vp, ctypes.POINTER(sz), ctypes.POINTER(sz)]),
                                  ("ggml_backend_dev_backend_reg", vp, [vp]),
                                  ("ggml_backend_reg_name", ctypes.c_char_p, [vp])):
                getattr(lib, fn).restype = res
                getattr(lib, fn).argtypes = args
            _ggml = lib
        return _ggml


def _read_ggml_devices() -> list[Device]:
    lib = _library()
    devices = []
    for i in range(lib.ggml_backend_dev_count()):
        dev = lib.ggml_backend_dev_get(i)
        free, total = ctypes.c_size_t(0), ctypes.c_size_t(0)
        lib.ggml_backend_dev_memory(dev, ctypes.byref(free), ctypes.byref(total))
        reg = lib.ggml_backend_dev_backend_reg(dev)
        backend = lib.ggml_backend_reg_name(reg) if reg else b""
        devices.append(Device(name=_text(lib.ggml_backend_dev_name(dev)),
                              description=_text(lib.ggml_backend_dev_description(dev)),
                              kind=KINDS.get(lib.ggml_backend_dev_type(dev), "accel"),
                              free_bytes=int(free.value), total_bytes=int(total.value), backend=_text(backend)))
    return devices


def _text(raw: bytes | None) -> str:
    return (raw or b"").decode("utf-8", errors="replace")
