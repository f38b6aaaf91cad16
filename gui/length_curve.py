"""The live length curve: each round's summary length, the chunk it read behind it, collapses in red.

A point appears when its round finishes. Characters by default, tokens on a toggle. Collapse
points are red, repaired rounds orange-ringed, compactions blue, skipped noise grey. Hover for the
numbers; click a point to open that round in the inspector. Exports PNG and CSV.
"""
from __future__ import annotations

import csv
from pathlib import Path

from PySide6.QtCharts import QChart, QChartView, QLineSeries, QScatterSeries, QValueAxis
from PySide6.QtCore import QPointF, Qt, Signal
from PySide6.QtGui import QColor, QPainter, QPen
from PySide6.QtWidgets import QToolTip

from precis.engine.runs.report import REPAIR_FLAGS

# Drawn in this order: a repaired collapse shows as a red dot inside an orange ring.
MARKERS = {"collapse": ("#d32f2f", 11.0), "repaired": ("#ef6c00", 19.0), "compaction": ("#1565c0", 11.0),
           "noise": ("#9e9e9e", 9.0)}


class LengthCurveWidget(QChartView):
    round_clicked = Signal(int)

    def __init__(self, parent=None) -> None:
        chart = QChart()
        chart.setTitle("Summary length per round")
        chart.legend().setAlignment(Qt.AlignmentFlag.AlignBottom)
        super().__init__(chart, parent)
        self.setObjectName("lengthCurve")
        self.setRenderHint(QPainter.RenderHint.Antialiasing)
        self.unit = "chars"
        self.records: list = []
        self.summary_series = QLineSeries(name="summary (characters)")
        self.summary_series.setPointsVisible(True)
        self.summary_series.setPen(QPen(QColor("#2e7d32"), 2.5))
        self.chunk_series = QLineSeries(name="chunk read (tokens)")
        self.chunk_series.setPen(QPen(QColor("#bdbdbd"), 1.5, Qt.PenStyle.DashLine))
        self.marker_series = {}
        for name, (color, size) in MARKERS.items():
            s = QScatterSeries(name=name)
            s.setMarkerSize(size)
            if name == "repaired":
                s.setColor(QColor(0, 0, 0, 0))
                s.setPen(QPen(QColor(color), 2.5))
            else:
                s.setColor(QColor(color))
                s.setBorderColor(QColor(color))
            self.marker_series[name] = s
        self.x_axis = QValueAxis(titleText="round", labelFormat="%d")
        self.y_axis = QValueAxis(titleText="characters", labelFormat="%d")
        self.chunk_axis = QValueAxis(titleText="chunk tokens", labelFormat="%d")
        chart.addAxis(self.x_axis, Qt.AlignmentFlag.AlignBottom)
        chart.addAxis(self.y_axis, Qt.AlignmentFlag.AlignLeft)
        chart.addAxis(self.chunk_axis, Qt.AlignmentFlag.AlignRight)
        for s in [self.chunk_series, self.summary_series, *self.marker_series.values()]:
            chart.addSeries(s)
            s.attachAxis(self.x_axis)
            s.attachAxis(self.chunk_axis if s is self.chunk_series else self.y_axis)
            s.hovered.connect(self._on_hovered)
            s.clicked.connect(self._on_clicked)
        self.clear()

    # ----- data --------------------------------------------------------------------------------
    def clear(self) -> None:
        self.records = []
        self._redraw()

    def add_round(self, record) -> None:
        self.records.append(record)
        self._redraw()

    def set_records(self, records: list) -> None:
        self.records = list(records)
        self._redraw()

    def set_unit(self, unit: str) -> None:
        self.unit = unit
        self._redraw()

    def value(self, record) -> int:
        return record.summary_tokens if self.unit == "tokens" else record.summary_chars

    def marker_indexes(self, name: str) -> list[int]:
        return [int(p.x()) - 1 for p in self.marker_series[name].points()]

    def _kinds(self, record) -> list[str]:
        out = []
        if record.collapsed:
            out.append("collapse")
        if any(f in record.flags for f in REPAIR_FLAGS):
            out.append("repaired")
        if record.kind == "compaction":
            out.append("compaction")
        if "noise_skipped" in record.flags:
            out.append("noise")
        return out

    def _redraw(self) -> None:
        self.summary_series.replace([QPointF(r.index + 1, self.value(r)) for r in self.records])
        # Compaction and merge rounds read no chunk: leave them out instead of drawing a drop to zero.
        self.chunk_series.replace([QPointF(r.index + 1, r.chunk_tokens) for r in self.records if r.chunk_index >= 0])
        for name, series in self.marker_series.items():
            series.replace([QPointF(r.index + 1, self.value(r)) for r in self.records if name in self._kinds(r)])
        self.summary_series.setName(f"summary ({'tokens' if self.unit == 'tokens' else 'characters'})")
        self.y_axis.setTitleText("tokens" if self.unit == "tokens" else "characters")
        n = max(2, len(self.records))
        self.x_axis.setRange(1, n)
        self.x_axis.setTickCount(min(n, 11))
        top = max([self.value(r) for r in self.records] + [100])
        self.y_axis.setRange(0, top * 1.1)
        self.chunk_axis.setRange(0, max([r.chunk_tokens for r in self.records] + [100]) * 1.1)

    # ----- interaction -------------------------------------------------------------------------
    def _nearest(self, point: QPointF) -> int | None:
        if not self.records:
            return None
        index = round(point.x()) - 1
        return max(0, min(index, len(self.records) - 1))

    def _on_hovered(self, point: QPointF, state: bool) -> None:
        i = self._nearest(point)
        if not state or i is None:
            QToolTip.hideText()
            return
        r = self.records[i]
        flags = ", ".join(r.flags) if r.flags else "ok"
        QToolTip.showText(self.cursor().pos(),
                          f"Round {r.index + 1} ({r.kind}): summary {r.summary_chars:,} chars / {r.summary_tokens:,} "
                          f"tokens (was {r.summary_in_chars:,} chars)\nchunk {r.chunk_tokens:,} tokens; "
                          f"{r.seconds:.1f} s;"
                          f" {flags}", self)

    def _on_clicked(self, point: QPointF) -> None:
        i = self._nearest(point)
        if i is not None:
            self.round_clicked.emit(i)

    # ----- export ------------------------------------------------------------------------------
    def export_png(self, path: Path) -> None:
        if not self.grab().save(str(path), "PNG"):
            raise OSError(f"Could not write {path}")

    def export_csv(self, path: Path) -> None:
        with open(path, "w", newline="", encoding="utf-8") as fh:
            w = csv.writer(fh)
            w.writerow(["round", "kind", "summary_chars", "summary_tokens", "chunk_tokens", "seconds", "flags"])
            for r in self.records:
                w.writerow([r.index + 1, r.kind, r.summary_chars, r.summary_tokens, r.chunk_tokens, r.seconds,
                            " ".join(r.flags)])
