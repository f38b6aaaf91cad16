"""How long the GUI thread stalls while the window works (a timer probe), in three phases:

1. a 200-page PDF dropped on the window (read, its text extracted and its tokens estimated);
2. a rescan of a model folder with many multi-GB GGUFs (headers read for the first time);
3. a real-model run: the bundled model summarizes the sample document (first 12,000 characters,
   n_ctx 2048), offscreen.

A 10 ms QTimer records the gap between its ticks; a stall is how much later than 10 ms a tick came.
Reported per phase: the 50th/99th percentile and the worst stall (goal: p99 < 50 ms, worst < 100 ms
for reading and scanning, which happen on the I/O thread and must never block the window).
Usage: QT_QPA_PLATFORM=offscreen python -m bench.gui_stalls
"""
from __future__ import annotations

import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

PROBE_MS = 10
DOCUMENT_CHARS = 12_000
PDF_PAGES = 200
MODEL_FILES = 120


class Probe:
    def __init__(self) -> None:
        from PySide6.QtCore import QTimer
        self.gaps: list[float] = []
        self.last = time.perf_counter()
        self.on = False
        self.timer = QTimer(interval=PROBE_MS)
        self.timer.timeout.connect(self._tick)
        self.timer.start()

    def _tick(self) -> None:
        now = time.perf_counter()
        if self.on:
            self.gaps.append((now - self.last) * 1000 - PROBE_MS)
        self.last = now

    def measure(self, app, start, done, timeout_s: float) -> dict:
        self.gaps, self.on = [], True
        self.last = time.perf_counter()
        started = time.perf_counter()
        start()
        while not done() and time.perf_counter() - started < timeout_s:
            app.processEvents()
            time.sleep(0.001)
        self.on = False
        wall = time.perf_counter() - started
        stalls = sorted(max(0.0, g) for g in self.gaps)

        def pct(q):
            return round(stalls[min(len(stalls) - 1, int(q * len(stalls)))], 1) if stalls else None
        return {"seconds": round(wall, 2), "ticks": len(stalls), "stall_p50_ms": pct(0.50),
                "stall_p99_ms": pct(0.99), "stall_max_ms": round(stalls[-1], 1) if stalls else None,
                "mean_gap_ms": round(statistics.mean(self.gaps) + PROBE_MS, 2) if self.gaps else None}


def run() -> dict:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    home = Path(tempfile.mkdtemp(prefix="precis-bench-"))
    os.environ["PRECIS_HOME"] = str(home / "precis")     # a clean home: no settings, no runs to resume
    os.environ["PRECIS_TOOL_HOME"] = str(home / "user")  # no other tools' model folders
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from PySide6.QtWidgets import QApplication

    from bench.pdf_builder import write_text_pdf
    from precis import gui
    from precis.gui.app import sample_document_path
    from tests.gguf_builder import llama_like, write_gguf
    app = QApplication.instance() or QApplication(sys.argv)
    window = gui.create_main_window()
    window.show()
    probe = Probe()
    deadline = time.monotonic() + 30
    while window.documents.reading and time.monotonic() < deadline:
        app.processEvents()

    pdf = write_text_pdf(home / "report.pdf", PDF_PAGES)
    reading = probe.measure(app, lambda: window.add_documents([pdf]), lambda: not window.documents.reading, 120)
    reading["pages"] = PDF_PAGES
    reading["characters"] = window.documents.documents()[0].chars if window.documents.documents() else 0

    folder = home / "models"
    folder.mkdir()
    md, tensors = llama_like("llama", n_layer=32, n_embd=4096, n_vocab=32000, big_tensor_elems=7 * 2**30)
    for i in range(MODEL_FILES):
        write_gguf(folder / f"model-{i:03d}.gguf", md, tensors)
    window.model_panel.folders = [str(folder)]
    count_before = window.model_panel.selector.count()
    scanning = probe.measure(app, window.model_panel.rescan,
                             lambda: window.model_panel.selector.count() >= count_before + MODEL_FILES, 300)
    scanning["files"] = MODEL_FILES

    window.documents.list.clear()
    source = home / "day.txt"
    source.write_text(sample_document_path().read_text(encoding="utf-8")[:DOCUMENT_CHARS], encoding="utf-8")
    window.add_documents([source])
    window.rules.strategy.setCurrentText("rolling")      # the strategy earlier results were measured with
    window.model_panel.set_n_ctx(2048)
    deadline = time.monotonic() + 60
    while (window.plan is None or window.plan.budget.n_ctx != 2048) and time.monotonic() < deadline:
        app.processEvents()
        time.sleep(0.01)
    running = probe.measure(app, window.start_run, lambda: window.run.outcome != "", 1800)
    running.update({"outcome": window.run.outcome, "rounds": len(window.run.records)})
    window.close()
    return {"probe_ms": PROBE_MS, "reading_pdf": reading, "scanning_models": scanning, "real_model_run": running}


if __name__ == "__main__":
    print(json.dumps(run(), indent=2))
