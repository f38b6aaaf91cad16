"""The memory bar: weights, KV cache, compute buffer and runtime stacked against the RAM available; where a
GPU exists, one bar per pool side by side (RAM, then each GPU's VRAM), each with its own verdict."""
from __future__ import annotations

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPen
from PySide6.QtWidgets import QSizePolicy, QWidget

from precis.engine.planning.memory_plan import MIB, SAFE_FRACTION

COLORS = {"weights": "#4e79a7", "KV cache": "#f28e2b", "compute": "#b07aa1", "saved prompts": "#edc948",
          "runtime": "#9d9d9d", "other": "#9d9d9d"}
VERDICT_COLORS = {"fits": "#2e7d32", "tight": "#e6a100", "won't fit": "#c62828"}
LEGEND_ROW = 18                # pixels: a legend line, and the verdict's under it
LEGEND_SWATCH = 13             # a part's colour square and the space after it
LEGEND_GAP = 7                 # between one label and the next square


class MemoryBarWidget(QWidget):
    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setObjectName("memoryBar")
        self.setMinimumHeight(62)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.plan = None
        self.offload = None            # an OffloadPlan where a GPU exists: one bar per pool
        self.measured = None
        self.server_text = ""          # set while the model runs on a server: no RAM to budget here

    def set_plan(self, plan, measured=None) -> None:
        self.plan, self.offload = plan, None
        self.measured = measured
        self.server_text = ""
        self._fit_legend()
        self.setToolTip(self.describe())
        self.update()

    def legend_labels(self) -> list[str]:
        """The single plan's legend, a label per part, the unit on the last."""
        labels = [f"{name} {size / MIB:,.0f}" for name, size in self.segments()]
        return labels[:-1] + [labels[-1] + " MiB"] if labels else []

    def legend_layout(self, width: float) -> list[tuple[float, int]]:
        """(x, row) of each legend label, wrapped at ``width``: in a narrow window (the model column is about
        390 pixels wide) five parts do not fit on one line, and a label cut off says nothing."""
        metrics = self.fontMetrics()
        out, x, row = [], 0.0, 0
        for label in self.legend_labels():
            advance = LEGEND_SWATCH + metrics.horizontalAdvance(label) + LEGEND_GAP
            if x > 0 and x + advance - LEGEND_GAP > width:
                x, row = 0.0, row + 1
            out.append((x, row))
            x += advance
        return out

    def _legend_rows(self) -> int:
        return 1 + max((row for _, row in self.legend_layout(self.width())), default=0)

    def verdict_lines(self) -> list[str]:
        """The total against the RAM, the verdict and the largest context that fits: one line, or two where the
        widget is too narrow for one (the model column cut "largest context that fits 32,768" after "32,")."""
        p = self.plan
        head = f"{p.total_bytes / MIB:,.0f} MiB of {p.available_bytes / MIB:,.0f} MiB available — {p.verdict}"
        tail = f"largest context that fits {p.max_n_ctx:,}"
        one = f"{head}; {tail}"
        return [one] if self.fontMetrics().horizontalAdvance(one) <= self.width() else [head, tail]

    def _fit_legend(self) -> None:
        """The height that shows the bar, every legend row and the verdict's lines."""
        rows = self._legend_rows() + len(self.verdict_lines()) - 1 if self.plan is not None else 1
        self.setMinimumHeight(62 + LEGEND_ROW * (rows - 1))

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().resizeEvent(event)
        if self.plan is not None and self.offload is None and not self.server_text:
            self._fit_legend()

    def set_offload(self, offload, measured=None) -> None:
        """RAM and each GPU side by side (an OffloadPlan); ``measured``: llama.cpp's allocation after a load."""
        self.plan, self.offload, self.measured, self.server_text = None, offload, measured, ""
        self.setMinimumHeight(76)
        self.setToolTip(self.describe())
        self.update()

    def pool_segments(self, pool) -> list[tuple[str, int]]:
        other = "runtime" if pool.name == "RAM" else "other"
        parts = [("weights", pool.weights_bytes), ("KV cache", pool.kv_bytes), ("compute", pool.compute_bytes)]
        return parts + ([(other, pool.other_bytes)] if pool.other_bytes else [])

    def pool_text(self, pool) -> str:
        """"Vulkan0 0.4/2.0 GiB — fits": short enough for the model column's width."""
        if pool.available_bytes >= 2**30:
            used, free, unit = pool.total_bytes / 2**30, pool.available_bytes / 2**30, "GiB"
            return f"{pool.name} {used:,.1f}/{free:,.1f} {unit} — {pool.verdict}"
        return f"{pool.name} {pool.total_bytes / MIB:,.0f}/{pool.available_bytes / MIB:,.0f} MiB — {pool.verdict}"

    def set_server(self, probe, n_ctx: int) -> None:
        self.plan, self.offload, self.measured = None, None, None
        offers = f"of the {probe.n_ctx:,} it offers" if probe.n_ctx_known else "(the server does not say its own)"
        self.server_text = (f"The model runs on the server ({probe.kind}), not in this machine's RAM. Context "
                            f"{n_ctx:,} tokens {offers}.")
        self.setToolTip(self.server_text + f"\n{probe.n_ctx_note}")
        self.update()

    def segments(self) -> list[tuple[str, int]]:
        """(name, bytes) of each stacked part, in drawing order."""
        p = self.plan
        if p is None:
            return []
        return [("weights", p.weights_bytes), ("KV cache", p.kv_bytes), ("compute", p.compute_bytes),
                ("saved prompts", p.prompt_states_bytes), ("runtime", p.overhead_bytes + p.output_bytes)]

    def describe(self) -> str:
        if self.server_text:
            return self.server_text
        if self.offload is not None:
            return self._describe_pools()
        p = self.plan
        if p is None:
            return ""
        parts = ", ".join(f"{name} {size / MIB:,.0f} MiB" for name, size in self.segments())
        text = (f"{parts}: {p.total_bytes / MIB:,.0f} MiB of {p.available_bytes / MIB:,.0f} MiB available — "
                f"{p.verdict}. Largest context that fits: {p.max_n_ctx:,} tokens.")
        m = self.measured
        if m is not None and m.kv_mib:
            text += (f"\nAfter loading, llama.cpp allocated: weights {m.model_size_bytes / MIB:,.0f} MiB, KV "
                     f"{m.kv_mib:,.1f} MiB, compute {m.compute_mib:,.1f} MiB (estimate: KV {p.kv_bytes / MIB:,.1f}, "
                     f"compute {p.compute_bytes / MIB:,.1f}).")
        return text

    def _describe_pools(self) -> str:
        o = self.offload
        lines = [f"{o.gpu_layers} of {o.max_gpu_layers} layers on the GPU, context {o.settings.n_ctx:,} tokens."]
        for pool in o.pools:
            parts = ", ".join(f"{name} {size / MIB:,.0f} MiB" for name, size in self.pool_segments(pool))
            lines.append(f"{pool.name}: {pool.total_bytes / MIB:,.0f} MiB of {pool.available_bytes / MIB:,.0f} MiB "
                         f"free — {pool.verdict} ({parts}; {pool.margin_bytes / MIB:,.0f} MiB kept free)")
            m = self.measured
            if m is not None and hasattr(m, "on"):
                got = m.on(pool.name)
                if any(got.values()):
                    lines.append(f"  llama.cpp allocated there: weights {got['model']:,.1f} MiB, KV {got['kv']:,.1f} "
                                 f"MiB, compute {got['compute']:,.1f} MiB")
        return "\n".join(lines)

    def paintEvent(self, event) -> None:  # noqa: N802 - Qt override
        p = self.plan
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        if self.server_text:              # no RAM to budget here: the server's context, in words
            painter.setPen(self.palette().text().color())
            painter.drawText(QRectF(0, 0, self.width(), self.height()),
                             Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter | Qt.TextFlag.TextWordWrap,
                             self.server_text)
            return
        if self.offload is not None:
            self._paint_pools(painter)
            return
        rows = self._legend_rows() if p is not None else 1
        verdict = self.verdict_lines() if p is not None else []
        bar = QRectF(1, 4, self.width() - 2, self.height() - 40 - LEGEND_ROW * (rows + max(1, len(verdict)) - 2))
        painter.setPen(QPen(self.palette().mid().color()))
        painter.drawRect(bar)
        if p is None or p.available_bytes <= 0:
            return
        scale = bar.width() / max(p.available_bytes, p.total_bytes)
        x = bar.left()
        for name, size in self.segments():
            w = size * scale
            painter.fillRect(QRectF(x, bar.top() + 1, w, bar.height() - 1), QColor(COLORS[name]))
            x += w
        if self.measured is not None and self.measured.kv_mib:
            m = self.measured
            real = (m.model_size_bytes + (m.kv_mib + m.compute_mib + m.output_mib) * MIB + p.overhead_bytes) * scale
            painter.setPen(QPen(QColor("#000000"), 2, Qt.PenStyle.DotLine))
            painter.drawLine(int(bar.left() + real), int(bar.top()), int(bar.left() + real), int(bar.bottom()))
        safe_x = bar.left() + p.available_bytes * SAFE_FRACTION * scale
        painter.setPen(QPen(QColor("#555555"), 1, Qt.PenStyle.DashLine))
        painter.drawLine(int(safe_x), int(bar.top()), int(safe_x), int(bar.bottom()))
        # A legend with the numbers: next to gigabytes of free RAM the parts of a small model are slivers.
        painter.setPen(self.palette().text().color())
        for (name, _), label, (x, row) in zip(self.segments(), self.legend_labels(), self.legend_layout(self.width())):
            top = bar.bottom() + 1 + LEGEND_ROW * row
            painter.fillRect(QRectF(x, top + 4, 10, 10), QColor(COLORS[name]))
            painter.drawText(QRectF(x + LEGEND_SWATCH, top, self.width() - x - LEGEND_SWATCH, 18),
                             Qt.AlignmentFlag.AlignLeft, label)
        painter.setPen(QColor(VERDICT_COLORS.get(p.verdict, "#000000")))
        for i, line in enumerate(verdict):
            painter.drawText(QRectF(0, bar.bottom() + 1 + LEGEND_ROW * (rows + i), self.width(), 18),
                             Qt.AlignmentFlag.AlignLeft, line)

    def _paint_pools(self, painter: QPainter) -> None:
        """One bar per pool, side by side, each scaled to its own free memory, its verdict under it; one legend.
        The dashed line is where the pool's margin starts (what it keeps free)."""
        pools = self.offload.pools
        gap = 12
        width = (self.width() - gap * (len(pools) - 1)) / len(pools)
        metrics = painter.fontMetrics()
        for i, pool in enumerate(pools):
            left = i * (width + gap)
            bar = QRectF(left + 1, 4, width - 2, self.height() - 54)
            painter.setPen(QPen(self.palette().mid().color()))
            painter.drawRect(bar)
            scale = bar.width() / max(pool.available_bytes, pool.total_bytes, 1)
            x = bar.left()
            for name, size in self.pool_segments(pool):
                painter.fillRect(QRectF(x, bar.top() + 1, size * scale, bar.height() - 1), QColor(COLORS[name]))
                x += size * scale
            keep_x = bar.left() + max(0, pool.available_bytes - pool.margin_bytes) * scale
            painter.setPen(QPen(QColor("#555555"), 1, Qt.PenStyle.DashLine))
            painter.drawLine(int(keep_x), int(bar.top()), int(keep_x), int(bar.bottom()))
            painter.setPen(QColor(VERDICT_COLORS.get(pool.verdict, "#000000")))
            text = metrics.elidedText(self.pool_text(pool), Qt.TextElideMode.ElideRight, int(width))
            painter.drawText(QRectF(left, bar.bottom() + 2, width, 18), Qt.AlignmentFlag.AlignLeft, text)
        x = 0.0
        painter.setPen(self.palette().text().color())
        for name in ("weights", "KV cache", "compute", "runtime"):
            painter.fillRect(QRectF(x, self.height() - 26, 10, 10), QColor(COLORS[name]))
            painter.drawText(QRectF(x + 13, self.height() - 30, 120, 18), Qt.AlignmentFlag.AlignLeft, name)
            x += 26 + metrics.horizontalAdvance(name)
