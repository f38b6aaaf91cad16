"""The run's view: the live length curve with its controls, then tabs for the live output, the round
list with the inspector, and the results. It shows what the run controller tells it; it runs nothing."""
from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QFileDialog,
    QHBoxLayout,
    QListWidget,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from precis.gui.length_curve import LengthCurveWidget
from precis.gui.results_view import ResultsWidget
from precis.gui.round_inspector import RoundInspectorWidget


class RunView(QSplitter):
    round_selected = Signal(int)      # a point on the curve or a row of the round list

    def __init__(self, run, parent=None) -> None:
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

        run.started.connect(self._on_run_started)
        run.round_started.connect(self._on_round_started)
        run.tokens_generated.connect(self._on_tokens_generated)
        run.round_finished.connect(self._on_round_finished)
        run.summaries_shown.connect(self.results.show_summary)
        run.reported.connect(self.results.show_report)
        run.reported.connect(lambda report: self.results.show_evidence(
            report, {d.name: d.text for d in run.plan.documents} if run.plan is not None else {}))

    # ----- what the run says ----------------------------------------------------------------------
    def _on_run_started(self) -> None:
        self.curve.clear()
        self.round_list.clear()
        self.live_output.clear()

    def _on_round_started(self, event) -> None:
        self.live_output.setPlainText("(retrying with stricter settings)\n" if event.attempt > 1 else "")

    def _on_tokens_generated(self, event) -> None:
        self.live_output.setPlainText(event.text)
        bar = self.live_output.verticalScrollBar()
        bar.setValue(bar.maximum())

    def _on_round_finished(self, r) -> None:
        self.curve.add_round(r)
        flags = f" · {', '.join(r.flags)}" if r.flags else ""
        self.round_list.addItem(f"{r.index + 1} · {r.kind} · {r.summary_chars:,} chars{flags}")
        if r.collapsed:
            self.round_list.item(self.round_list.count() - 1).setForeground(Qt.GlobalColor.red)

    def show_results(self) -> None:
        self.tabs.setCurrentWidget(self.results)

    def inspect(self, r, plan) -> None:
        """Open round ``r`` in the inspector with its chunk and its place in the document."""
        text, where = "", "no chunk (a compaction or merge round)"
        if plan is not None and r.chunk_index >= 0:
            doc = next((d for d in plan.documents if d.name == r.document), None)
            if doc is not None:
                text = doc.text[r.chunk_start_char:r.chunk_end_char]
                chunk = doc.chunks[r.chunk_index] if r.chunk_index < len(doc.chunks) else None
                lines = f", lines {chunk.start_line:,}-{chunk.end_line:,}" if chunk else ""
                where = f"{r.document}: characters {r.chunk_start_char:,}-{r.chunk_end_char:,}{lines}"
        self.inspector.show_round(r, text, where)
        if self.round_list.currentRow() != r.index:
            self.round_list.setCurrentRow(r.index)
        self.tabs.setCurrentIndex(1)

    # ----- controls -------------------------------------------------------------------------------
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
