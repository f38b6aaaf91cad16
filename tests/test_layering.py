"""engine/ and models/ must work on a machine without Qt, and engine must not know models/."""
from __future__ import annotations

import subprocess
import sys

from tests.conftest import REPO_ROOT

# A meta-path finder that makes `import PySide6` fail, as on a machine without Qt.
BLOCK_QT = """
import sys
class _BlockQt:
    def find_spec(self, name, path=None, target=None):
        if name == "PySide6" or name.startswith("PySide6.") or name == "shiboken6":
            raise ImportError("PySide6 is blocked in this test")
sys.meta_path.insert(0, _BlockQt())
"""


def _run_without_qt(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", BLOCK_QT + code], cwd=REPO_ROOT, capture_output=True,
                          text=True, timeout=120)


def test_blocking_really_blocks_qt():
    result = _run_without_qt("import PySide6")
    assert result.returncode != 0 and "blocked" in result.stderr


def test_engine_and_models_import_without_qt():
    code = ("import pkgutil, importlib, precis.engine, precis.models\n"
            "for pkg in (precis.engine, precis.models):\n"
            "    for m in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + '.'):\n"
            "        importlib.import_module(m.name)\n"
            "assert 'PySide6' not in sys.modules\nprint('ok')")
    result = _run_without_qt(code)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"


def test_headless_commands_run_without_qt():
    code = ("from precis.gui.launcher import main\n"
            "rc = main(['plan', '--model', 'default', '--n-ctx', '2048', '--json'])\n"
            "assert 'PySide6' not in sys.modules\nraise SystemExit(rc)")
    result = _run_without_qt(code)
    assert result.returncode == 0, result.stderr
    assert '"verdict"' in result.stdout


def test_engine_never_imports_models_or_qt_statically():
    """Belt and braces next to import-linter (run by `make test`): scan the sources."""
    import ast
    offenders = []
    forbidden_by_folder = {"engine": ("precis.models", "precis.gui", "PySide6"), "models": ("precis.gui", "PySide6")}
    for folder, forbidden in forbidden_by_folder.items():
        for path in (REPO_ROOT / folder).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text())):
                names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                    [node.module or ""] if isinstance(node, ast.ImportFrom) else []
                offenders += [f"{path.name}: {n}" for n in names if any(n == f or n.startswith(f + ".")
                                                                          for f in forbidden)]
                offenders += [f"{path.name}: {n} (bare import root)" for n in names
                              if n.split(".")[0] in ("engine", "models", "gui", "resources")]
    assert offenders == []
