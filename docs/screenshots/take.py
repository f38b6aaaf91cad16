"""Screenshots of the real window under a virtual display, from the current code.

Usage (Debian): xvfb-run -s "-screen 0 1400x900x24" .venv/bin/python docs/screenshots/take.py
Writes plan.png (before a run), running.png (the curve during a run) and finished.png (a finished run
with its collapses marked and one opened in the inspector), with the bundled model, in a clean home.
"""
from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

OUT = Path(__file__).resolve().parent


def main() -> None:
    os.environ["PRECIS_HOME"] = tempfile.mkdtemp(prefix="precis-shots-")
    os.environ.setdefault("QT_QPA_PLATFORM", "xcb")
    from PySide6.QtWidgets import QApplication

    from precis import gui
    from precis.gui.app import sample_document_path
    app = QApplication(sys.argv)
    window = gui.create_main_window()
    window.resize(1400, 900)
    window.move(0, 0)
    window.show()
    window.add_documents([sample_document_path()])
    window.model_panel.set_n_ctx(2048)

    def wait(condition, seconds: float) -> None:
        deadline = time.monotonic() + seconds
        while not condition() and time.monotonic() < deadline:
            app.processEvents()
            time.sleep(0.02)

    def shot(name: str) -> None:
        wait(lambda: False, 0.5)   # let the last repaint land
        screen = window.screen()
        image = screen.grabWindow(0, 0, 0, 1400, 900)
        image.save(str(OUT / name))
        print("wrote", OUT / name)

    wait(lambda: window.plan is not None and window.plan.budget.n_ctx == 2048, 60)
    shot("plan.png")
    window.start_run()
    wait(lambda: len(window.records) >= 6, 900)
    window.tabs.setCurrentIndex(0)
    shot("running.png")
    wait(lambda: window.last_outcome != "", 1800)
    collapsed = [r.index for r in window.records if r.collapsed]
    window.inspect_round(collapsed[0] if collapsed else 0)
    window.inspector.tabs.setCurrentIndex(3)
    shot("finished.png")
    window.close()


if __name__ == "__main__":
    main()
