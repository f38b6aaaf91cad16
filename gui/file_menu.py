"""The window's File menu: open, open recent (from the settings), save all, download a model, quit."""
from __future__ import annotations

from pathlib import Path

from PySide6.QtGui import QAction


class FileMenu:
    def __init__(self, menu_bar, settings, *, open_documents, open_recent, save_all, download, quit_app) -> None:
        self.settings, self._open_recent = settings, open_recent
        parent = menu_bar.parent()
        menu = menu_bar.addMenu("&File")
        self._action(menu, parent, "&Open documents…", open_documents, "Ctrl+O")
        self.recent = menu.addMenu("Open &recent")
        self.fill_recent()
        self._action(menu, parent, "&Save all…", save_all, "Ctrl+S")
        menu.addSeparator()
        self._action(menu, parent, "&Download a model…", download)
        self._action(menu, parent, "&Quit", quit_app, "Ctrl+Q")

    @staticmethod
    def _action(menu, parent, text: str, slot, shortcut: str = "") -> QAction:
        action = QAction(text, parent, shortcut=shortcut) if shortcut else QAction(text, parent)
        action.triggered.connect(lambda *_: slot())
        menu.addAction(action)
        return action

    def fill_recent(self) -> None:
        self.recent.clear()
        for path in self.settings.recent_files:
            action = self.recent.addAction(path)
            action.triggered.connect(lambda _=False, p=path: self._open_recent(Path(p)))
        self.recent.setEnabled(bool(self.settings.recent_files))
