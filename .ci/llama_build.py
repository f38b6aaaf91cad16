#!/usr/bin/env python3
"""Build (once) and locate the llama-cpp-python wheel for this machine.

Why this exists: llama-cpp-python ships only a source distribution, so installing it compiles
llama.cpp. A default build uses ``-march=native``; on CPUs whose cpuid advertises AMX while the
kernel has not enabled it, the compiler emits AMX tile instructions and the first prompt dies
with SIGILL. The kernel's view (``/proc/cpuinfo`` flags) is what really runs, so on x86-64 Linux
we turn native detection off and enable exactly the instruction sets the kernel reports, except AMX,
which is never enabled (see ALWAYS_OFF).
Elsewhere (macOS, ARM) the native build is right and stays on.

The accelerator follows the machine (``choose_accelerator``): Metal on Apple Silicon, CUDA where ``nvcc``
is found and an NVIDIA GPU is present, Vulkan where the Vulkan headers and ``glslc`` are found and a
Vulkan GPU is present, else the CPU build. A toolkit alone is not enough: the development machine has
CUDA 13.0's nvcc, glslc and the Vulkan headers but no GPU (only Mesa's software Vulkan device, which
llama.cpp passes over unless GGML_VK_VISIBLE_DEVICES names it), and a CUDA or Vulkan build there would
cost many minutes of compiling (Vulkan compiles hundreds of shaders) for a device that is not there.
``PRECIS_ACCEL=cpu|vulkan|cuda|metal`` chooses by hand. CI sets ``PRECIS_ACCEL=cpu`` (.ci/run): it
proves the cold CPU path a new user walks, in the time it always took, whatever the CI machine has.

pip's wheel cache ignores CMAKE_ARGS, so a wheel built with other flags could be reused silently.
We build with ``--no-cache-dir`` into a folder whose name is a hash of everything that shapes the
binary (package version, flags, Python ABI, platform), and install only from there.

Usage: ``llama_build.py wheel`` prints the path of the wheel (and nothing else: the Makefile reads
stdout; pip's build log goes to stderr), building it first if needed;
``llama_build.py flags`` prints the CMAKE_ARGS that would be used; ``llama_build.py accel`` prints the
accelerator chosen and why; ``llama_build.py server`` prints the
path of llama.cpp's own ``llama-server`` built from the same source and flags (for bench/server_batch.py).
Stdlib only: it runs before the project's virtual environment has anything in it.
"""
from __future__ import annotations

import glob
import hashlib
import os
import platform
import re
import shutil
import subprocess
import sys
import sysconfig
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

LLAMA_CPP_PYTHON_VERSION = "0.3.36"

# /proc/cpuinfo flag -> ggml CMake option. Order follows ggml's own CMakeLists.
X86_FLAG_OPTIONS = [
    ("avx", "GGML_AVX"),
    ("avx2", "GGML_AVX2"),
    ("avx_vnni", "GGML_AVX_VNNI"),
    ("fma", "GGML_FMA"),
    ("f16c", "GGML_F16C"),
    ("bmi2", "GGML_BMI2"),
    ("avx512f", "GGML_AVX512"),
    ("avx512vbmi", "GGML_AVX512_VBMI"),
    ("avx512_vnni", "GGML_AVX512_VNNI"),
    ("avx512_bf16", "GGML_AVX512_BF16"),
]
# AMX stays off whatever /proc/cpuinfo says. Tile instructions need a per-process permission
# (arch_prctl ARCH_REQ_XCOMP_PERM); the vendored llama.cpp's AMX matmul ran `tileloadd` without it and
# died with SIGILL on a machine whose cpuinfo lists amx_tile/amx_int8/amx_bf16 (measured 2026-11-30:
# a probe that requests the permission runs the same instruction fine). AMX only pays off for large
# int8/bf16 matmuls on many cores; Precis's small quantized models lose nothing without it.
ALWAYS_OFF = ["-DGGML_AMX_TILE=OFF", "-DGGML_AMX_INT8=OFF", "-DGGML_AMX_BF16=OFF"]
COMMON_OPTIONS = ["-DLLAVA_BUILD=OFF", "-DLLAMA_BUILD_TESTS=OFF", "-DLLAMA_BUILD_EXAMPLES=OFF"]

ACCELERATORS = ("cpu", "vulkan", "cuda", "metal")
# CUDA: only the architecture of the GPU at hand (the default list compiles every architecture since
# Maxwell, many times longer); the GPU is present, or CUDA would not have been chosen.
ACCEL_OPTIONS = {"cpu": [], "vulkan": ["-DGGML_VULKAN=ON"],
                 "cuda": ["-DGGML_CUDA=ON", "-DCMAKE_CUDA_ARCHITECTURES=native"], "metal": ["-DGGML_METAL=ON"]}
# ggml-vulkan.cpp (llama-cpp-python 0.3.36) uses VK_EXT_layer_settings types unguarded; Debian 12 ships
# headers 1.3.239, which lack them (docs: /work/shared/docs/LLAMA_CPP.md, "Vulkan on lavapipe").
VULKAN_LAYER_SETTINGS_HEADER = 261


def cpu_flags(cpuinfo: str) -> set[str]:
    for line in cpuinfo.splitlines():
        if line.startswith("flags"):
            return set(line.split(":", 1)[1].split())
    return set()


def cmake_args_for(system: str, machine: str, cpuinfo: str | None) -> str:
    """CMAKE_ARGS for a machine; pure so it can be tested with any cpuinfo text."""
    if system == "Linux" and machine in ("x86_64", "AMD64") and cpuinfo:
        flags = cpu_flags(cpuinfo)
        options = ["-DGGML_NATIVE=OFF"]
        options += [f"-D{opt}={'ON' if flag in flags else 'OFF'}" for flag, opt in X86_FLAG_OPTIONS]
        return " ".join(options + ALWAYS_OFF + COMMON_OPTIONS)
    native = ["-DGGML_NATIVE=ON"] + (ALWAYS_OFF if machine in ("x86_64", "AMD64") else [])
    return " ".join(native + COMMON_OPTIONS)


@dataclass(frozen=True)
class MachineProbe:
    """What the machine has, behind callables so the choice can be tested with fakes."""
    which: Callable[[str], str | None]
    nvidia_gpu: Callable[[], bool]
    vulkan_gpu: Callable[[], bool]
    vulkan_headers: Callable[[], bool]


def choose_accelerator(system: str, machine: str, requested: str, probe: MachineProbe) -> tuple[str, str]:
    """(accelerator, why). ``requested`` is PRECIS_ACCEL ("" = choose by the machine)."""
    requested = requested.strip().lower()
    if requested:
        if requested not in ACCELERATORS:
            raise SystemExit(f"[precis] PRECIS_ACCEL must be one of {', '.join(ACCELERATORS)}, not {requested!r}")
        return requested, f"PRECIS_ACCEL={requested}"
    if system == "Darwin" and machine == "arm64":
        return "metal", "Apple Silicon"
    if probe.which("nvcc") and probe.nvidia_gpu():
        return "cuda", "nvcc found and an NVIDIA GPU present"
    if probe.which("glslc") and probe.vulkan_headers() and probe.vulkan_gpu():
        return "vulkan", "glslc and the Vulkan headers found and a Vulkan GPU present"
    missing = []
    if probe.which("nvcc"):
        missing.append("nvcc found but no NVIDIA GPU")
    if probe.which("glslc") and probe.vulkan_headers():
        missing.append("Vulkan tools found but no Vulkan GPU (a CPU-type device such as lavapipe does not count)")
    return "cpu", "; ".join(missing) or "no GPU toolkit found"


def _nvidia_gpu_present() -> bool:
    if glob.glob("/proc/driver/nvidia/gpus/*"):
        return True
    smi = shutil.which("nvidia-smi")
    if not smi:
        return False
    try:
        out = subprocess.run([smi, "-L"], capture_output=True, text=True, timeout=20).stdout
    except (OSError, subprocess.SubprocessError):
        return False
    return "GPU 0" in out


def _vulkan_gpu_present() -> bool:
    """A Vulkan device that is a GPU (discrete, integrated or virtual): vulkaninfo's own words, or a
    render node where vulkaninfo is not installed."""
    tool = shutil.which("vulkaninfo")
    if tool:
        try:
            out = subprocess.run([tool, "--summary"], capture_output=True, text=True, timeout=30).stdout
        except (OSError, subprocess.SubprocessError):
            out = ""
        return vulkaninfo_lists_gpu(out)
    return bool(glob.glob("/dev/dri/renderD*"))


def vulkaninfo_lists_gpu(summary: str) -> bool:
    """`vulkaninfo --summary` names a GPU-type device (lavapipe is PHYSICAL_DEVICE_TYPE_CPU)."""
    return bool(re.search(r"deviceType\s*=\s*PHYSICAL_DEVICE_TYPE_(DISCRETE|INTEGRATED|VIRTUAL)_GPU", summary))


def vulkan_header_path() -> Path | None:
    roots = [Path(os.environ["VULKAN_SDK"]) / "include"] if os.environ.get("VULKAN_SDK") else []
    roots += [Path("/usr/include"), Path("/usr/local/include")]
    return next((r / "vulkan" / "vulkan_core.h" for r in roots if (r / "vulkan" / "vulkan_core.h").is_file()), None)


def vulkan_header_version(header_text: str) -> int:
    match = re.search(r"#define\s+VK_HEADER_VERSION\s+(\d+)", header_text)
    return int(match.group(1)) if match else 0


def this_machine_probe() -> MachineProbe:
    return MachineProbe(which=shutil.which, nvidia_gpu=_nvidia_gpu_present, vulkan_gpu=_vulkan_gpu_present,
                        vulkan_headers=lambda: vulkan_header_path() is not None)


def this_machine_accelerator() -> tuple[str, str]:
    return choose_accelerator(platform.system(), platform.machine(), os.environ.get("PRECIS_ACCEL", ""),
                              this_machine_probe())


def this_machine_cmake_args() -> str:
    if os.environ.get("PRECIS_CMAKE_ARGS"):  # an explicit override wins, and is part of the key
        return os.environ["PRECIS_CMAKE_ARGS"]
    cpuinfo = None
    try:
        cpuinfo = Path("/proc/cpuinfo").read_text(errors="replace")
    except OSError:
        pass
    accel, _why = this_machine_accelerator()
    return with_accelerator(cmake_args_for(platform.system(), platform.machine(), cpuinfo), accel)


def with_accelerator(cmake_args: str, accel: str) -> str:
    """The CPU flags plus the accelerator's. The CPU choice adds nothing: its flags, and so the wheel
    cache key, stay what they were before accelerators existed, and built wheels stay valid."""
    return " ".join([cmake_args, *ACCEL_OPTIONS[accel]])


def accelerator_of(cmake_args: str) -> str:
    for accel in ("vulkan", "cuda", "metal"):
        if ACCEL_OPTIONS[accel][0] in cmake_args.split():
            return accel
    return "cpu"


def patch_vulkan_for_old_headers(source: str) -> str | None:
    """ggml-vulkan.cpp with its VK_EXT_layer_settings block guarded by VK_HEADER_VERSION, so it compiles
    against headers older than 1.3.261 (a plain InstanceCreateInfo there); None if the block is not
    found (a newer source that guards it itself, or moved it)."""
    lines = source.splitlines(keepends=True)
    start = next((i for i, ln in enumerate(lines) if ln.lstrip().startswith("VkBool32 enable_best_practice")), None)
    end = next((i for i, ln in enumerate(lines) if "vk::InstanceCreateInfo instance_create_info(" in ln
                and "&layer_setting_info" in ln), None)
    if start is None or end is None or end < start or "VK_HEADER_VERSION >= 261" in source:
        return None
    indent = lines[end][:len(lines[end]) - len(lines[end].lstrip())]
    plain = (f"{indent}vk::InstanceCreateInfo instance_create_info(vk::InstanceCreateFlags{{}}, &app_info, layers, "
             "extensions);\n")
    return "".join(lines[:start] + [f"#if VK_HEADER_VERSION >= {VULKAN_LAYER_SETTINGS_HEADER}\n"]
                   + lines[start:end + 1] + ["#else\n", plain, "#endif\n"] + lines[end + 1:])


def cache_key(cmake_args: str) -> str:
    # The accelerator is in cmake_args (-DGGML_VULKAN=ON ...), so each choice has its own key; a Vulkan
    # build also keys on the header version it was patched for.
    shape = [LLAMA_CPP_PYTHON_VERSION, cmake_args, sysconfig.get_platform(), sys.implementation.cache_tag or "",
             platform.machine()]
    if accelerator_of(cmake_args) == "vulkan":
        header = vulkan_header_path()
        shape.append(f"vulkan-headers={vulkan_header_version(header.read_text(errors='replace')) if header else 0}")
    return hashlib.sha256("|".join(shape).encode()).hexdigest()[:16]


def wheel_dir(cmake_args: str) -> Path:
    root = Path(os.environ.get("PRECIS_WHEEL_CACHE", Path.home() / ".cache" / "precis-build" / "wheels"))
    return root / f"llama-cpp-python-{LLAMA_CPP_PYTHON_VERSION}-{cache_key(cmake_args)}"


def find_or_build_wheel(python: str) -> Path:
    cmake_args = this_machine_cmake_args()
    folder = wheel_dir(cmake_args)
    wheels = sorted(folder.glob("llama_cpp_python-*.whl"))
    if wheels:
        return wheels[-1]
    folder.mkdir(parents=True, exist_ok=True)
    tmp = folder.with_name(folder.name + ".partial")
    tmp.mkdir(parents=True, exist_ok=True)
    print(f"[precis] building llama-cpp-python {LLAMA_CPP_PYTHON_VERSION} (several minutes, once)",
          file=sys.stderr)
    print(f"[precis] accelerator: {accelerator_of(cmake_args)} ({this_machine_accelerator()[1]}); "
          f"CMAKE_ARGS={cmake_args}", file=sys.stderr)
    env = dict(os.environ, CMAKE_ARGS=cmake_args, FORCE_CMAKE="1",
               CMAKE_BUILD_PARALLEL_LEVEL=str(os.cpu_count() or 2))
    source = f"llama-cpp-python=={LLAMA_CPP_PYTHON_VERSION}"
    if accelerator_of(cmake_args) == "vulkan" and _vulkan_needs_patch():
        source = str(_unpacked_sdist(python, tmp / "src", patch_vulkan=True))
    subprocess.run([python, "-m", "pip", "wheel", "--no-deps", "--no-cache-dir", "--no-binary",
                    "llama-cpp-python", "-w", str(tmp), source],
                   check=True, env=env, stdout=sys.stderr)  # stdout carries only the wheel path
    shutil.rmtree(tmp / "src", ignore_errors=True)
    built = sorted(tmp.glob("llama_cpp_python-*.whl"))
    if not built:
        sys.exit("[precis] pip wheel produced no llama_cpp_python wheel")
    final = folder / built[-1].name
    built[-1].replace(final)  # atomic within one filesystem: a half-built wheel is never found
    (folder / "CMAKE_ARGS.txt").write_text(cmake_args + "\n")
    tmp.rmdir()
    return final


def _vulkan_needs_patch() -> bool:
    header = vulkan_header_path()
    return header is not None and vulkan_header_version(header.read_text(errors="replace")) < \
        VULKAN_LAYER_SETTINGS_HEADER


def _unpacked_sdist(python: str, work: Path, *, patch_vulkan: bool) -> Path:
    """The llama-cpp-python source, unpacked into ``work`` (and its Vulkan backend patched for older
    headers when asked): the package root, with vendor/llama.cpp inside."""
    work.mkdir(parents=True, exist_ok=True)
    subprocess.run([python, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:", "-d", str(work),
                    f"llama-cpp-python=={LLAMA_CPP_PYTHON_VERSION}"], check=True, stdout=sys.stderr)
    import tarfile
    sdist = next(work.glob("llama_cpp_python-*.tar.gz"))
    with tarfile.open(sdist) as tar:
        tar.extractall(work, filter="data")
    root = next(p for p in work.glob("llama_cpp_python-*") if p.is_dir())
    if patch_vulkan:
        target = root / "vendor" / "llama.cpp" / "ggml" / "src" / "ggml-vulkan" / "ggml-vulkan.cpp"
        patched = patch_vulkan_for_old_headers(target.read_text(encoding="utf-8"))
        if patched is None:
            print("[precis] ggml-vulkan.cpp needs no header patch (block not found or already guarded)",
                  file=sys.stderr)
        else:
            target.write_text(patched, encoding="utf-8")
            print(f"[precis] patched {target.name} for Vulkan headers older than 1.3.{VULKAN_LAYER_SETTINGS_HEADER}",
                  file=sys.stderr)
    return root


def find_or_build_server(python: str) -> Path:
    """llama.cpp's own `llama-server` from the same vendored source and flags as the wheel, for the
    batch benchmark (bench/server_batch.py: parallel slots, which llama-cpp-python's server lacks)."""
    cmake_args = this_machine_cmake_args()
    folder = wheel_dir(cmake_args).with_name(f"llama-server-{LLAMA_CPP_PYTHON_VERSION}-{cache_key(cmake_args)}")
    binary = folder / "llama-server"
    if binary.is_file():
        return binary
    work = folder.with_name(folder.name + ".partial")
    work.mkdir(parents=True, exist_ok=True)
    print("[precis] building llama-server (several minutes, once)", file=sys.stderr)
    patch = accelerator_of(cmake_args) == "vulkan" and _vulkan_needs_patch()
    source = _unpacked_sdist(python, work, patch_vulkan=patch) / "vendor" / "llama.cpp"
    build = work / "build"
    # Static: one self-contained binary that can move into the cache (shared builds point into the tree).
    subprocess.run(["cmake", "-S", str(source), "-B", str(build), *cmake_args.split(), "-DLLAMA_BUILD_SERVER=ON",
                    "-DBUILD_SHARED_LIBS=OFF", "-DLLAMA_CURL=OFF", "-DCMAKE_BUILD_TYPE=Release"],
                   check=True, stdout=sys.stderr)
    subprocess.run(["cmake", "--build", str(build), "--target", "llama-server", "-j", str(os.cpu_count() or 2)],
                   check=True, stdout=sys.stderr)
    folder.mkdir(parents=True, exist_ok=True)
    (build / "bin" / "llama-server").replace(binary)     # atomic: a half-built server is never found
    shutil.rmtree(work, ignore_errors=True)
    return binary


def main(argv: list[str]) -> int:
    if argv[1:2] == ["flags"]:
        print(this_machine_cmake_args())
        return 0
    if argv[1:2] == ["accel"]:
        accel, why = this_machine_accelerator()
        print(f"{accel}\t{why}")
        return 0
    if argv[1:2] == ["wheel"]:
        python = argv[2] if len(argv) > 2 else sys.executable
        print(find_or_build_wheel(python))
        return 0
    if argv[1:2] == ["server"]:
        python = argv[2] if len(argv) > 2 else sys.executable
        print(find_or_build_server(python))
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
