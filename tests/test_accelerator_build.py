"""Which llama.cpp build the machine gets (.ci/llama_build.py): the accelerator follows the machine's
device, not a toolkit lying around, and the CPU choice keeps the wheel cache key it always had."""
from __future__ import annotations

import sys

import pytest

from tests.conftest import REPO_ROOT

sys.path.insert(0, str(REPO_ROOT / ".ci"))
import llama_build  # noqa: E402

CPUINFO = "processor : 0\nflags : fpu sse avx avx2 fma f16c bmi2\n"
# The shape of ggml-vulkan.cpp's instance creation in llama-cpp-python 0.3.36 (vendored llama.cpp).
VULKAN_SNIPPET = """    if (debug_utils_ext) {
        extensions.push_back("VK_EXT_debug_utils");
    }
    VkBool32 enable_best_practice = layer_settings;
    std::vector<vk::LayerSettingEXT> settings = {
        {
            "VK_LAYER_KHRONOS_validation",
            "validate_best_practices",
            vk::LayerSettingTypeEXT::eBool32,
            1,
            &enable_best_practice
        },
    };
    vk::LayerSettingsCreateInfoEXT layer_setting_info(settings);
    vk::InstanceCreateInfo instance_create_info(vk::InstanceCreateFlags{}, &app_info, layers, extensions, &layer_setting_info);
#ifdef __APPLE__
"""
LAVAPIPE_SUMMARY = """Devices:
========
GPU0:
	apiVersion         = 1.3.230
	deviceType         = PHYSICAL_DEVICE_TYPE_CPU
	deviceName         = llvmpipe (LLVM 15.0.6, 256 bits)
"""


def probe(tools=(), nvidia=False, vulkan_gpu=False, headers=False) -> llama_build.MachineProbe:
    return llama_build.MachineProbe(which=lambda name: f"/usr/bin/{name}" if name in tools else None,
                                    nvidia_gpu=lambda: nvidia, vulkan_gpu=lambda: vulkan_gpu,
                                    vulkan_headers=lambda: headers)


def choose(requested="", system="Linux", machine="x86_64", **kw) -> str:
    return llama_build.choose_accelerator(system, machine, requested, probe(**kw))[0]


def test_this_machines_toolkits_without_a_gpu_get_the_cpu_build():
    """The development machine has CUDA's nvcc, glslc and the Vulkan headers, and no GPU."""
    accel, why = llama_build.choose_accelerator("Linux", "x86_64", "",
                                                probe(tools=("nvcc", "glslc"), headers=True))
    assert accel == "cpu"
    assert "no NVIDIA GPU" in why and "no Vulkan GPU" in why


def test_a_device_with_its_toolkit_gets_its_build():
    assert choose(tools=("nvcc",), nvidia=True) == "cuda"
    assert choose(tools=("glslc",), headers=True, vulkan_gpu=True) == "vulkan"
    assert choose(tools=("nvcc", "glslc"), nvidia=True, headers=True, vulkan_gpu=True) == "cuda"
    assert choose(system="Darwin", machine="arm64") == "metal"
    assert choose(tools=("glslc",), headers=False, vulkan_gpu=True) == "cpu"      # no headers: cannot build
    assert choose(system="Darwin", machine="x86_64") == "cpu"                       # an Intel Mac: no Metal offload


def test_precis_accel_chooses_by_hand_and_rejects_unknown_names():
    assert choose("vulkan") == "vulkan"                                            # lavapipe: opt-in only
    assert choose("CPU", tools=("nvcc",), nvidia=True) == "cpu"
    with pytest.raises(SystemExit, match="PRECIS_ACCEL must be one of"):
        choose("rocm")


def test_the_cpu_choice_keeps_flags_and_cache_key_and_others_get_their_own():
    cpu = llama_build.cmake_args_for("Linux", "x86_64", CPUINFO)
    assert llama_build.with_accelerator(cpu, "cpu") == cpu            # wheels built before stay valid
    vulkan = llama_build.with_accelerator(cpu, "vulkan")
    cuda = llama_build.with_accelerator(cpu, "cuda")
    assert "-DGGML_VULKAN=ON" in vulkan.split() and "-DGGML_CUDA=ON" in cuda.split()
    assert len({llama_build.cache_key(a) for a in (cpu, vulkan, cuda)}) == 3
    assert [llama_build.accelerator_of(a) for a in (cpu, vulkan, cuda)] == ["cpu", "vulkan", "cuda"]


def test_vulkan_source_is_guarded_for_headers_without_layer_settings():
    patched = llama_build.patch_vulkan_for_old_headers(VULKAN_SNIPPET)
    assert patched is not None
    guarded = patched[patched.index("#if VK_HEADER_VERSION >= 261"):patched.index("#endif\n#ifdef __APPLE__")]
    assert "vk::LayerSettingEXT" in guarded and "#else" in guarded
    plain = guarded.split("#else")[1]
    assert "vk::InstanceCreateInfo instance_create_info(vk::InstanceCreateFlags{}, &app_info, layers, extensions);" \
        in plain and "layer_setting" not in plain
    assert patched.startswith("    if (debug_utils_ext)") and patched.endswith("#ifdef __APPLE__\n")
    assert llama_build.patch_vulkan_for_old_headers(patched) is None        # applied once
    assert llama_build.patch_vulkan_for_old_headers("int main() {}\n") is None


def test_vulkan_headers_and_devices_are_read_from_the_tools_own_words():
    assert llama_build.vulkan_header_version("#define VK_HEADER_VERSION 239\n") == 239
    assert llama_build.vulkan_header_version("nothing here") == 0
    assert not llama_build.vulkaninfo_lists_gpu(LAVAPIPE_SUMMARY)
    assert llama_build.vulkaninfo_lists_gpu(LAVAPIPE_SUMMARY.replace("TYPE_CPU", "TYPE_DISCRETE_GPU"))


FAKE_PIP_WITH_SDIST = """#!/usr/bin/env python3
# Stands in for `python -m pip download|wheel ...`: download writes an sdist holding ggml-vulkan.cpp; wheel
# records the ggml-vulkan.cpp it was given, then writes a wheel.
import io, sys, tarfile
args = sys.argv[1:]
out = args[args.index("-d" if "download" in args else "-w") + 1]
if "download" in args:
    data = open(sys.argv[0] + ".snippet", "rb").read()
    with tarfile.open(out + "/llama_cpp_python-0.3.36.tar.gz", "w:gz") as tar:
        info = tarfile.TarInfo("llama_cpp_python-0.3.36/vendor/llama.cpp/ggml/src/ggml-vulkan/ggml-vulkan.cpp")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
else:
    source = args[-1]
    built = open(source + "/vendor/llama.cpp/ggml/src/ggml-vulkan/ggml-vulkan.cpp").read()
    open(sys.argv[0] + ".built", "w").write(built)
    open(out + "/llama_cpp_python-0.3.36-cp311-cp311-linux_x86_64.whl", "wb").write(b"PK")
"""


def test_a_vulkan_wheel_is_built_from_the_patched_source_on_old_headers(tmp_path):
    import os
    import subprocess
    fake_python = tmp_path / "fake-python"
    fake_python.write_text(FAKE_PIP_WITH_SDIST)
    fake_python.chmod(0o755)
    (tmp_path / "fake-python.snippet").write_text(VULKAN_SNIPPET)
    sdk = tmp_path / "sdk" / "include" / "vulkan"
    sdk.mkdir(parents=True)
    (sdk / "vulkan_core.h").write_text("#define VK_HEADER_VERSION 239\n")      # Debian 12's headers
    env = {**os.environ, "PRECIS_WHEEL_CACHE": str(tmp_path / "wheels"), "PRECIS_ACCEL": "vulkan",
           "VULKAN_SDK": str(tmp_path / "sdk")}
    done = subprocess.run([sys.executable, str(REPO_ROOT / ".ci" / "llama_build.py"), "wheel", str(fake_python)],
                          capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().endswith(".whl") and len(done.stdout.splitlines()) == 1
    assert "accelerator: vulkan (PRECIS_ACCEL=vulkan)" in done.stderr and "-DGGML_VULKAN=ON" in done.stderr
    built = (tmp_path / "fake-python.built").read_text()
    assert "#if VK_HEADER_VERSION >= 261" in built and "#else" in built
    assert not any((tmp_path / "wheels").glob("*.partial/src"))                  # the unpacked source is gone
