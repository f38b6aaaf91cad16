"""Precis's PySide6 window. Nothing here imports Qt at package import time, so the `precis`
console script (gui/launcher.py) can run headless subcommands on machines without Qt."""


def create_main_window(**kwargs):
    """Build the main window (for the app, tests and automation). A QApplication must exist."""
    from precis.gui.main_window import MainWindow
    return MainWindow(**kwargs)
