"""Screenshots of the real window under a virtual display, from the current code.

Usage (Debian): xvfb-run -s "-screen 0 1400x900x24" .venv/bin/python docs/screenshots/take.py [MODEL] [CHARS]
Writes plan.png (before a run), running.png (the curve during a run) and finished.png (a finished run:
the summary with one line's evidence opened), in a clean home. MODEL: a .gguf path (default: the bundled
model); CHARS: how much of the sample document to summarize (default 12,000).
"""
from __future__ import annotations

import os
import re
import sys
import tempfile
import time
from pathlib import Path

OUT = Path(__file__).resolve().parent


def main(argv: list[str]) -> None:
    os.environ["PRECIS_HOME"] = tempfile.mkdtemp(prefix="precis-shots-")
    os.environ.setdefault("QT_QPA_PLATFORM", "xcb")
    from PySide6.QtCore import QUrl
    from PySide6.QtWidgets import QApplication

    from precis import gui
    from precis.gui.app import sample_document_path
    model = Path(argv[1]) if len(argv) > 1 else None
    chars = int(argv[2]) if len(argv) > 2 else 12_000
    app = QApplication(sys.argv)
    window = gui.create_main_window(model_path=model)
    window.resize(1400, 900)
    window.move(0, 0)
    window.show()
    source = Path(os.environ["PRECIS_HOME"]) / "day.txt"
    source.write_text(sample_document_path().read_text(encoding="utf-8")[:chars], encoding="utf-8")
    window.add_documents([source])
    window.model_panel.set_n_ctx(4096)

    def wait(condition, seconds: float) -> None:
        deadline = time.monotonic() + seconds
        while not condition() and time.monotonic() < deadline:
            app.processEvents()
            time.sleep(0.02)

    def shot(name: str) -> None:
        wait(lambda: False, 0.5)   # let the last repaint land
        image = window.screen().grabWindow(0, 0, 0, 1400, 900)
        image.save(str(OUT / name))
        print("wrote", OUT / name)

    wait(lambda: window.plan is not None and window.plan.budget.n_ctx == 4096, 120)
    shot("plan.png")
    window.start_run()
    wait(lambda: len(window.run.records) >= 2, 1800)
    window.run_view.tabs.setCurrentIndex(0)
    shot("running.png")
    wait(lambda: window.run.outcome != "", 3600)
    # a finished run plans again with the speed it measured: the plan, not "Planning…", above the curve
    wait(lambda: window.plan is not None, 120)
    window.run_view.show_results()
    evidence = window.results.evidence
    link = re.search(r'href="(notes:[^"]+)"', evidence.summary_view.toHtml())
    if link:
        evidence.summary_view.anchorClicked.emit(QUrl(link.group(1)))
    shot("finished.png")
    window.close()


if __name__ == "__main__":
    main(sys.argv)
