"""How long the GUI thread stalls during a real-model run in the window (a timer probe).

A 10 ms QTimer records the gap between its ticks while the bundled model summarizes the sample
document (first 12,000 characters, n_ctx 2048) in the window, offscreen. A stall is how much later
than 10 ms a tick came. Reported: the 50th/99th percentile and the worst stall (goal: p99 < 50 ms).
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


def run() -> dict:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    home = tempfile.mkdtemp(prefix="precis-bench-")
    os.environ["PRECIS_HOME"] = home            # a clean home: no settings, no runs to resume
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    import gui
    from gui.app import sample_document_path
    app = QApplication.instance() or QApplication(sys.argv)
    source = Path(home) / "day.txt"
    source.write_text(sample_document_path().read_text(encoding="utf-8")[:DOCUMENT_CHARS], encoding="utf-8")
    window = gui.create_main_window()
    window.show()
    window.add_documents([source])
    window.model_panel.set_n_ctx(2048)
    gaps: list[float] = []
    last = [time.perf_counter()]
    probing = [False]

    def tick() -> None:
        now = time.perf_counter()
        if probing[0]:
            gaps.append((now - last[0]) * 1000 - PROBE_MS)
        last[0] = now

    probe = QTimer(interval=PROBE_MS)
    probe.timeout.connect(tick)
    probe.start()
    deadline = time.monotonic() + 60
    while (window.plan is None or window.plan.budget.n_ctx != 2048) and time.monotonic() < deadline:
        app.processEvents()
        time.sleep(0.01)
    started = time.perf_counter()
    probing[0] = True
    window.start_run()
    while window.last_outcome == "" and time.perf_counter() - started < 1800:
        app.processEvents()
        time.sleep(0.001)
    probing[0] = False
    wall = time.perf_counter() - started
    outcome, rounds = window.last_outcome, len(window.records)
    window.close()
    stalls = sorted(max(0.0, g) for g in gaps)
    p = lambda q: round(stalls[min(len(stalls) - 1, int(q * len(stalls)))], 1)  # noqa: E731
    return {"outcome": outcome, "rounds": rounds, "run_seconds": round(wall, 1), "probe_ms": PROBE_MS,
            "ticks": len(stalls), "stall_p50_ms": p(0.50), "stall_p99_ms": p(0.99),
            "stall_max_ms": round(stalls[-1], 1) if stalls else None,
            "mean_gap_ms": round(statistics.mean(gaps) + PROBE_MS, 2) if gaps else None}


if __name__ == "__main__":
    print(json.dumps(run(), indent=2))
