"""The Qt binding keeps Python's reference counts intact (PySide6 6.12.0 on Python 3.11 did not:
every call dropped a reference to None, and a long run died with "deallocating None")."""
from __future__ import annotations

import sys

from PySide6.QtWidgets import QApplication, QLabel


def test_calls_into_qt_do_not_leak_references_to_none(qtbot):
    label = QLabel()
    qtbot.addWidget(label)
    app = QApplication.instance()
    before = sys.getrefcount(None)
    for _ in range(5000):
        app.processEvents()
        label.setText("x")
    assert abs(sys.getrefcount(None) - before) < 500
