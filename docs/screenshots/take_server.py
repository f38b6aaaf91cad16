"""A screenshot of the window with a model server, under a virtual display, from the current code.

Usage (Debian): xvfb-run -s "-screen 0 1400x900x24" .venv/bin/python docs/screenshots/take_server.py URL
URL: a running OpenAI-compatible server (for example llama.cpp's llama-server with the bundled model).
Writes server.png: the Model server dialog over the window, the server chosen, a document planned.
"""
from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

OUT = Path(__file__).resolve().parent


def main(url: str) -> None:
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

    def wait(condition, seconds: float) -> None:
        deadline = time.monotonic() + seconds
        while not condition() and time.monotonic() < deadline:
            app.processEvents()
            time.sleep(0.02)

    dialog = window.open_server_dialog()
    dialog.url.setText(url)
    dialog.fetch()
    wait(lambda: dialog.ok_button.isEnabled(), 30)
    dialog.accept()
    source = Path(os.environ["PRECIS_HOME"]) / "day.txt"
    source.write_text(sample_document_path().read_text(encoding="utf-8")[:12_000], encoding="utf-8")
    window.add_documents([source])
    wait(lambda: window.plan is not None, 60)
    dialog = window.open_server_dialog()          # shown again over the planned window, as a person reopens it
    dialog.fetch()
    wait(lambda: dialog.ok_button.isEnabled(), 30)
    dialog.move(700, 420)
    wait(lambda: False, 0.8)
    window.screen().grabWindow(0, 0, 0, 1400, 900).save(str(OUT / "server.png"))
    print("wrote", OUT / "server.png")
    dialog.reject()
    window.close()


if __name__ == "__main__":
    main(sys.argv[1])
