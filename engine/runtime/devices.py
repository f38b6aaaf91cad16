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
name, description, kind (gpu / igpu), free_bytes and total_bytes (and optionally backend and
max_tensor_bytes); the CPU device is implied. "[]" means no GPU.

A device's largest tensor is found by asking it: ``ggml_backend_dev_supports_op`` on an F32 addition of
tensors of a given size, built in a ggml context that allocates nothing, halved down to 4 bytes' precision
(about 40 questions, milliseconds). Asking a Vulkan device creates its logical device (llama.cpp would on
load anyway); no memory is allocated for the tensors.
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
    # The largest tensor an op on this device may have, as the device answers ggml_backend_dev_supports_op
    # (0: none found up to PROBE_MAX_BYTES). Vulkan refuses a tensor past maxStorageBufferRange unless the
    # driver has 64-bit indexing: 128 MiB on Mesa's lavapipe, 4 GiB on most desktop drivers. llama.cpp keeps
    # a weight past it in RAM and runs a stage whose tensor is past it on the CPU (engine.planning.offload).
    max_tensor_bytes: int = 0

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
                          total_bytes=int(i.get("total_bytes", i["free_bytes"])), backend=str(i.get("backend", "")),
                          max_tensor_bytes=int(i.get("max_tensor_bytes", 0)))
                   for i in items]
    except (ValueError, TypeError, KeyError) as exc:
        raise DeviceListError(f"{FAKE_DEVICES_ENV} must be a JSON list of devices with name, kind, free_bytes and "
                              f"total_bytes ({exc})") from exc
    for d in devices:
        if d.kind not in OFFLOAD_KINDS or d.free_bytes < 0 or d.total_bytes < d.free_bytes or d.max_tensor_bytes < 0:
            raise DeviceListError(f"{FAKE_DEVICES_ENV}: {d.name} needs kind gpu or igpu and 0 <= free <= total bytes")
    return devices


PROBE_MAX_BYTES = 1 << 42         # 4 TiB: past any device's memory, so "no limit"
GGML_TYPE_F32 = 0


class _InitParams(ctypes.Structure):
    """struct ggml_init_params (ggml.h)."""
    _fields_ = [("mem_size", ctypes.c_size_t), ("mem_buffer", ctypes.c_void_p), ("no_alloc", ctypes.c_bool)]


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
                                  ("ggml_backend_reg_name", ctypes.c_char_p, [vp]),
                                  ("ggml_init", vp, [_InitParams]), ("ggml_free", None, [vp]),
                                  ("ggml_new_tensor_1d", vp, [vp, ctypes.c_int, ctypes.c_int64]),
                                  ("ggml_add", vp, [vp, vp, vp]),
                                  ("ggml_backend_dev_supports_op", ctypes.c_bool, [vp, vp])):
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
        kind = KINDS.get(lib.ggml_backend_dev_type(dev), "accel")
        devices.append(Device(name=_text(lib.ggml_backend_dev_name(dev)),
                              description=_text(lib.ggml_backend_dev_description(dev)), kind=kind,
                              free_bytes=int(free.value), total_bytes=int(total.value), backend=_text(backend),
                              max_tensor_bytes=_largest_tensor_bytes(lib, dev) if kind in OFFLOAD_KINDS else 0))
    return devices


def _largest_tensor_bytes(lib, dev) -> int:
    """The largest F32 tensor (bytes, a multiple of 4) the device takes in an op, or 0 for no limit."""
    # tensor headers only (no_alloc): about 45 questions of two tensors each, well inside 256 KiB
    ctx = lib.ggml_init(_InitParams(1 << 18, None, True))
    if not ctx:
        return 0
    try:
        def takes(nbytes: int) -> bool:
            a = lib.ggml_new_tensor_1d(ctx, GGML_TYPE_F32, nbytes // 4)
            return bool(lib.ggml_backend_dev_supports_op(dev, lib.ggml_add(ctx, a, a)))
        if takes(PROBE_MAX_BYTES) or not takes(4):   # no limit, or no F32 addition at all: nothing to learn
            return 0
        low, high = 4, PROBE_MAX_BYTES                 # takes(low), not takes(high)
        while high - low > 4:
            middle = (low + high) // 8 * 4
            low, high = (middle, high) if takes(middle) else (low, middle)
        return low
    finally:
        lib.ggml_free(ctx)


def _text(raw: bytes | None) -> str:
    return (raw or b"").decode("utf-8", errors="replace")
