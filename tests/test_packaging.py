from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO_ROOT

sys.path.insert(0, str(REPO_ROOT / ".ci"))
import llama_build  # noqa: E402

CPUINFO_AMX_DISABLED = "processor : 0\nflags : fpu sse avx avx2 fma f16c bmi2 avx512f avx512_vnni\n"
CPUINFO_AMX = "processor : 0\nflags : fpu sse avx avx2 fma f16c bmi2 avx512f amx_tile amx_int8 amx_bf16\n"


def test_precis_version_prints_version():
    exe = shutil.which("precis", path=str(Path(sys.executable).parent))
    result = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0
    assert result.stdout.startswith("precis ") and result.stdout.split()[1][0].isdigit()


def test_build_flags_follow_what_the_kernel_enables():
    args = llama_build.cmake_args_for("Linux", "x86_64", CPUINFO_AMX_DISABLED)
    assert "-DGGML_NATIVE=OFF" in args
    assert "-DGGML_AVX512=ON" in args and "-DGGML_AVX512_VNNI=ON" in args
    assert "-DGGML_AMX_TILE=OFF" in args  # the cause of the SIGILL: never on unless the kernel says so
    assert "-DGGML_AVX512_BF16=OFF" in args
    with_amx = llama_build.cmake_args_for("Linux", "x86_64", CPUINFO_AMX)
    assert "-DGGML_AMX_TILE=ON" in with_amx and "-DGGML_AMX_INT8=ON" in with_amx


def test_other_platforms_keep_the_native_build():
    assert "-DGGML_NATIVE=ON" in llama_build.cmake_args_for("Darwin", "arm64", None)
    assert "-DGGML_NATIVE=ON" in llama_build.cmake_args_for("Linux", "aarch64", None)


def test_wheel_cache_key_changes_with_flags():
    a = llama_build.cmake_args_for("Linux", "x86_64", CPUINFO_AMX_DISABLED)
    b = llama_build.cmake_args_for("Linux", "x86_64", CPUINFO_AMX)
    assert llama_build.cache_key(a) != llama_build.cache_key(b)
    assert llama_build.cache_key(a) == llama_build.cache_key(a)
    assert llama_build.wheel_dir(a) != llama_build.wheel_dir(b)


def test_sample_document_has_the_structure_of_a_real_day():
    text = (REPO_ROOT / "resources" / "sample_day.txt").read_text(encoding="utf-8")
    assert len(text) >= 40_000
    assert text.count("=== Session ") >= 6
    assert "automated" in text and "tool · bash" in text  # noise-only stretches
    assert "TODO" in text and "Decision" in text
