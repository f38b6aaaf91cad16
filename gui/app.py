"""Start the desktop application."""
from __future__ import annotations

import sys
from pathlib import Path


def sample_document_path() -> Path:
    from importlib.resources import files
    return Path(str(files("precis.resources").joinpath("sample_day.txt")))


def run_app(argv: list[str] | None = None) -> int:
    from PySide6.QtWidgets import QApplication

    from precis.gui.main_window import MainWindow
    app = QApplication.instance() or QApplication(argv if argv is not None else sys.argv)
    app.setApplicationName("Precis")
    app.setOrganizationName("Precis")
    window = MainWindow()
    window.add_documents([sample_document_path()])
    window.show()
    return app.exec()
