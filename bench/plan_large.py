"""Planning a very large document: a 60 MB text (the corpus joined and repeated), bundled tokenizer.

Measured (a hostile day once took 84 s and 2 GB with nothing printed, and the window showed the old
plan with Run enabled meanwhile):
- `precis plan FILE --json` as a child process: wall time, peak RSS over the process's RSS before the
  plan (the text itself included), and the progress lines on stderr;
- the window planning the same file: the GUI thread's worst stall while it plans (10 ms timer probe),
  and whether Run stayed disabled until the plan arrived.
Usage: python -m bench.plan_large
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TARGET_BYTES = 60 * 2**20
ROOT = Path(__file__).resolve().parent.parent


def _large_text(folder: Path) -> Path:
    corpus = ROOT.parent / "shared" / "corpora" / "dev"
    pieces = [json.loads(p.read_text(encoding="utf-8"))["text"] for p in sorted(corpus.glob("*/*.json"))
              if json.loads(p.read_text(encoding="utf-8"))["lang"] == "en"] if corpus.is_dir() else []
    if not pieces:
        pieces = [(ROOT / "resources" / "sample_day.txt").read_text(encoding="utf-8")]
    block = "\n\n".join(pieces)
    path = folder / "large.txt"
    with path.open("w", encoding="utf-8") as fh:
        written = 0
        while written < TARGET_BYTES:
            fh.write(block)
            written += len(block.encode("utf-8"))
    return path


def _cli(path: Path, home: Path) -> dict:
    code = ("import resource, sys, time, psutil, os\n"
            "from precis.models.cli.main import main\n"
            "before = psutil.Process().memory_info().rss\n"
            "t = time.perf_counter()\n"
            "rc = main(['plan', sys.argv[1], '--n-ctx', '4096', '--json'])\n"
            "wall = time.perf_counter() - t\n"
            "peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024\n"
            "print('BENCH', rc, wall, peak - before, file=sys.stderr)\n")
    result = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True,
                            env={**os.environ, "PRECIS_HOME": str(home)}, timeout=1800)
    bench_line = next(line for line in result.stderr.splitlines() if line.startswith("BENCH"))
    _, rc, wall, extra = bench_line.split()
    plan = json.loads(result.stdout)
    progress = [line for line in result.stderr.splitlines() if line.startswith("planning:")]
    return {"exit_code": int(rc), "seconds": round(float(wall), 1), "extra_memory_mib": round(int(extra) / 2**20),
            "rounds": plan["rounds"], "document_tokens": plan["document_tokens"],
            "progress_lines": len(progress), "last_progress": progress[-1] if progress else None}


def _window(path: Path, home: Path) -> dict:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    os.environ["PRECIS_HOME"] = str(home / "window")
    from PySide6.QtWidgets import QApplication

    from bench.gui_stalls import Probe
    from precis import gui
    app = QApplication.instance() or QApplication(sys.argv)
    window = gui.create_main_window()
    window.show()
    probe = Probe()
    # The window warms tiktoken up on its I/O thread as it opens (building the encoding holds the GIL about
    # 140 ms, once); measured on its own, then the drop on a window that has finished opening.
    settle = time.perf_counter()
    startup = probe.measure(app, lambda: None, lambda: time.perf_counter() - settle > 3, 10)
    seen_planning = []
    run_enabled_early = []

    def done() -> bool:
        text = window.plan_view.text()
        if "Planning…" in text:
            seen_planning.append(text)
        if window.plan is None and window.run_button.isEnabled():
            run_enabled_early.append(True)
        return window.plan is not None
    started = time.perf_counter()
    stalls = probe.measure(app, lambda: window.add_documents([path]), done, 1800)
    result = {"startup_stall_max_ms": startup["stall_max_ms"],
              "seconds": round(time.perf_counter() - started, 1), "stall_p99_ms": stalls["stall_p99_ms"],
              "stall_max_ms": stalls["stall_max_ms"], "progress_shown": any("%" in t for t in seen_planning),
              "run_enabled_before_plan": bool(run_enabled_early),
              "estimate_label": window.documents.list.item(0).text().split(", ", 2)[-1]}
    window.close()
    return result


def run() -> dict:
    sys.path.insert(0, str(ROOT))
    with tempfile.TemporaryDirectory(prefix="precis-large-") as tmp:
        path = _large_text(Path(tmp))
        size = path.stat().st_size
        cli = _cli(path, Path(tmp) / "home")
        window = _window(path, Path(tmp) / "home")
    return {"document_mib": round(size / 2**20, 1), "cli_plan": cli, "window_plan": window}


if __name__ == "__main__":
    print(json.dumps(run(), indent=2))
