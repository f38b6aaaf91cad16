from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import QApplication, QLabel, QListWidget

import gui
from gui.main_window import ERROR_ROLE


def _drop(window, paths: list[Path]) -> None:
    """Deliver a real drag-enter + drop with file URLs, as the OS would."""
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(p)) for p in paths])
    pos = QPointF(window.width() / 2, window.height() / 2)
    enter = QDragEnterEvent(pos, Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
                            Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(window, enter)
    assert enter.isAccepted()
    drop = QDropEvent(pos, Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(window, drop)


def test_window_shows_the_default_model(qtbot):
    window = gui.create_main_window()
    qtbot.addWidget(window)
    window.show()
    label = window.findChild(QLabel, "modelSelector")
    assert "SmolLM2 135M Instruct" in label.text()
    assert "8,192" in label.text()  # its training context


def test_dropping_files_lists_them_with_their_size(qtbot, tmp_path):
    window = gui.create_main_window()
    qtbot.addWidget(window)
    notes = tmp_path / "notes.md"
    notes.write_text("# Notes\n\nThe release moved to Friday.\n", encoding="utf-8")
    binary = tmp_path / "photo.png"
    binary.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4)
    _drop(window, [notes, binary])
    items = window.findChild(QListWidget, "documentList")
    assert items.count() == 2
    assert items.item(0).text() == f"notes.md — {len(notes.read_text())} characters"
    assert "binary" in items.item(1).data(ERROR_ROLE)  # shown inline, the good file is kept
    assert [d.name for d in window.documents] == ["notes.md"]


def test_dropping_a_folder_adds_its_files(qtbot, tmp_path):
    window = gui.create_main_window()
    qtbot.addWidget(window)
    (tmp_path / "day").mkdir()
    for name in ("a.txt", "b.txt"):
        (tmp_path / "day" / name).write_text(f"content of {name}\n", encoding="utf-8")
    _drop(window, [tmp_path / "day"])
    assert [d.name for d in window.documents] == ["a.txt", "b.txt"]
