"""The run's view: the live length curve with its controls, then tabs for the live output, the round
list with the inspector, and the results. It shows what the window gives it; it runs nothing."""
from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (QCheckBox, QFileDialog, QHBoxLayout, QListWidget, QPlainTextEdit, QPushButton,
                               QSplitter, QTabWidget, QVBoxLayout, QWidget)

from gui.length_curve import LengthCurveWidget
from gui.results_view import ResultsWidget
from gui.round_inspector import RoundInspectorWidget


class RunView(QSplitter):
    round_selected = Signal(int)      # a point on the curve or a row of the round list

    def __init__(self, parent=None) -> None:
        super().__init__(Qt.Orientation.Vertical, parent)
        curve_box = QWidget(self)
        curve_layout = QVBoxLayout(curve_box)
        curve_layout.setContentsMargins(0, 0, 0, 0)
        self.curve = LengthCurveWidget(curve_box)
        self.curve.setMinimumHeight(240)
        self.curve.round_clicked.connect(self.round_selected)
        curve_layout.addWidget(self.curve, 1)
        row = QHBoxLayout()
        self.tokens_toggle = QCheckBox("Show tokens", curve_box)
        self.tokens_toggle.setObjectName("curveUnitToggle")
        self.tokens_toggle.toggled.connect(self._on_unit_toggled)
        png, csv_button = QPushButton("Export PNG…", curve_box), QPushButton("Export CSV…", curve_box)
        png.clicked.connect(self._on_export_png_clicked)
        csv_button.clicked.connect(self._on_export_csv_clicked)
        row.addWidget(self.tokens_toggle)
        row.addStretch(1)
        row.addWidget(png)
        row.addWidget(csv_button)
        curve_layout.addLayout(row)

        self.tabs = QTabWidget(self)
        self.live_output = QPlainTextEdit(self.tabs)
        self.live_output.setObjectName("liveOutput")
        self.live_output.setReadOnly(True)
        inspector_tab = QSplitter(Qt.Orientation.Horizontal, self.tabs)
        self.round_list = QListWidget(inspector_tab)
        self.round_list.setObjectName("roundList")
        self.round_list.currentRowChanged.connect(self.round_selected)
        self.inspector = RoundInspectorWidget(inspector_tab)
        inspector_tab.addWidget(self.round_list)
        inspector_tab.addWidget(self.inspector)
        inspector_tab.setSizes([220, 700])
        self.results = ResultsWidget(self.tabs)
        self.tabs.addTab(self.live_output, "Live output")
        self.tabs.addTab(inspector_tab, "Round inspector")
        self.tabs.addTab(self.results, "Results")
        self.addWidget(curve_box)
        self.addWidget(self.tabs)
        self.setSizes([330, 300])

    def _on_unit_toggled(self, on: bool) -> None:
        self.curve.set_unit("tokens" if on else "chars")

    def _on_export_png_clicked(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Export the curve", "curve.png", "PNG image (*.png)")
        if path:
            self.curve.export_png(Path(path))

    def _on_export_csv_clicked(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Export the curve", "curve.csv", "CSV (*.csv)")
        if path:
            self.curve.export_csv(Path(path))
