#!/usr/bin/env python3
"""Build (once) and locate the llama-cpp-python wheel for this machine.

Why this exists: llama-cpp-python ships only a source distribution, so installing it compiles
llama.cpp. A default build uses ``-march=native``; on CPUs whose cpuid advertises AMX while the
kernel has not enabled it, the compiler emits AMX tile instructions and the first prompt dies
with SIGILL. The kernel's view (``/proc/cpuinfo`` flags) is what really runs, so on x86-64 Linux
we turn native detection off and enable exactly the instruction sets the kernel reports, except AMX,
which is never enabled (see ALWAYS_OFF).
Elsewhere (macOS, ARM) the native build is right and stays on.

pip's wheel cache ignores CMAKE_ARGS, so a wheel built with other flags could be reused silently.
We build with ``--no-cache-dir`` into a folder whose name is a hash of everything that shapes the
binary (package version, flags, Python ABI, platform), and install only from there.

Usage: ``llama_build.py wheel`` prints the path of the wheel (and nothing else: the Makefile reads
stdout; pip's build log goes to stderr), building it first if needed;
``llama_build.py flags`` prints the CMAKE_ARGS that would be used; ``llama_build.py server`` prints the
path of llama.cpp's own ``llama-server`` built from the same source and flags (for bench/server_batch.py).
Stdlib only: it runs before the project's virtual environment has anything in it.
"""
from __future__ import annotations

import hashlib
import os
import platform
import subprocess
import sys
import sysconfig
from pathlib import Path

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


def this_machine_cmake_args() -> str:
    if os.environ.get("PRECIS_CMAKE_ARGS"):  # an explicit override wins, and is part of the key
        return os.environ["PRECIS_CMAKE_ARGS"]
    cpuinfo = None
    try:
        cpuinfo = Path("/proc/cpuinfo").read_text(errors="replace")
    except OSError:
        pass
    return cmake_args_for(platform.system(), platform.machine(), cpuinfo)


def cache_key(cmake_args: str) -> str:
    shape = "|".join([LLAMA_CPP_PYTHON_VERSION, cmake_args, sysconfig.get_platform(),
                      sys.implementation.cache_tag or "", platform.machine()])
    return hashlib.sha256(shape.encode()).hexdigest()[:16]


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
    print(f"[precis] CMAKE_ARGS={cmake_args}", file=sys.stderr)
    env = dict(os.environ, CMAKE_ARGS=cmake_args, FORCE_CMAKE="1",
               CMAKE_BUILD_PARALLEL_LEVEL=str(os.cpu_count() or 2))
    subprocess.run([python, "-m", "pip", "wheel", "--no-deps", "--no-cache-dir", "--no-binary",
                    "llama-cpp-python", "-w", str(tmp), f"llama-cpp-python=={LLAMA_CPP_PYTHON_VERSION}"],
                   check=True, env=env, stdout=sys.stderr)  # stdout carries only the wheel path
    built = sorted(tmp.glob("llama_cpp_python-*.whl"))
    if not built:
        sys.exit("[precis] pip wheel produced no llama_cpp_python wheel")
    final = folder / built[-1].name
    built[-1].replace(final)  # atomic within one filesystem: a half-built wheel is never found
    (folder / "CMAKE_ARGS.txt").write_text(cmake_args + "\n")
    tmp.rmdir()
    return final


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
    subprocess.run([python, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:", "-d", str(work),
                    f"llama-cpp-python=={LLAMA_CPP_PYTHON_VERSION}"], check=True, stdout=sys.stderr)
    import tarfile
    sdist = next(work.glob("llama_cpp_python-*.tar.gz"))
    with tarfile.open(sdist) as tar:
        tar.extractall(work, filter="data")
    source = next(work.glob("llama_cpp_python-*/vendor/llama.cpp"))
    build = work / "build"
    # Static: one self-contained binary that can move into the cache (shared builds point into the tree).
    subprocess.run(["cmake", "-S", str(source), "-B", str(build), *cmake_args.split(), "-DLLAMA_BUILD_SERVER=ON",
                    "-DBUILD_SHARED_LIBS=OFF", "-DLLAMA_CURL=OFF", "-DCMAKE_BUILD_TYPE=Release"],
                   check=True, stdout=sys.stderr)
    subprocess.run(["cmake", "--build", str(build), "--target", "llama-server", "-j", str(os.cpu_count() or 2)],
                   check=True, stdout=sys.stderr)
    folder.mkdir(parents=True, exist_ok=True)
    (build / "bin" / "llama-server").replace(binary)     # atomic: a half-built server is never found
    import shutil
    shutil.rmtree(work, ignore_errors=True)
    return binary


def main(argv: list[str]) -> int:
    if argv[1:2] == ["flags"]:
        print(this_machine_cmake_args())
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
