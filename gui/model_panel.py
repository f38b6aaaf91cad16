"""Model and context: the model selector with its facts (header only, no weights), the context slider
in steps of 256 up to the training context, the GPU-layers slider where a GPU exists, the KV cache type,
and the memory bar (RAM, and each GPU's VRAM beside it)."""
from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSlider,
    QVBoxLayout,
    QWidget,
)

from precis.engine.planning.memory_plan import available_ram_bytes, plan_memory
from precis.engine.planning.offload import plan_offload
from precis.engine.planning.offload_fit import largest_context, most_layers
from precis.engine.runtime.devices import DeviceListError
from precis.engine.runtime.settings import CTX_PAD_TOKENS, KV_TYPES, RuntimeSettings
from precis.gui.memory_bar import MemoryBarWidget
from precis.models.gguf.facts import read_model_layout
from precis.models.gguf.header import GGUFError
from precis.models.library.bundled import BUNDLED_DISPLAY_NAME, BundledModelMissing, bundled_model_path, display_name
from precis.models.library.profiles import profile_for
from precis.models.session.planner import gpus

OPEN_GGUF = "Open GGUF file…"
DOWNLOAD = "Download from the Hugging Face Hub…"
MODEL_SERVER = "Model server…"
SERVER_ENTRIES = 3             # the list ends with Model server…, Open…, Download…
MAX_SLIDER_CTX = 131072


def short_model_name(model: str) -> str:
    """llama.cpp's and llama-cpp-python's servers name a model by its file path: show the file name."""
    return Path(model).name if "/" in model and model.lower().endswith(".gguf") else model


def server_key(probe) -> str:
    return f"server:{probe.url}|{probe.model}"


class ModelPanel(QWidget):
    changed = Signal()          # model, context or KV type changed: memory and plan must follow
    model_failed = Signal(str)
    download_requested = Signal()
    scan_requested = Signal(list)   # extra folders: discover models off the GUI thread
    server_requested = Signal()     # "Model server…" chosen: the window opens the dialog

    def __init__(self, extra_folders: list[str] | None = None, parent=None) -> None:
        super().__init__(parent)
        self.facts = None
        self.table = None             # the GGUF's tensor table: the offload plan's per-layer weights
        self.devices = _gpus()        # the GPUs llama.cpp would offload to; none: the GPU row stays hidden
        self.max_n_ctx = 0
        self.folders: list[str] = []
        self.model_path: Path | None = None
        self.measured = None
        self.server = None            # a ServerProbe while the model runs on a server
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.selector = QComboBox(self)
        self.selector.setObjectName("modelSelector")
        self.selector.activated.connect(self._on_selector_activated)
        layout.addWidget(self.selector)
        self.facts_label = QLabel(self)
        self.facts_label.setObjectName("modelFacts")
        self.facts_label.setWordWrap(True)
        layout.addWidget(self.facts_label)
        self.rough_notice = QWidget(self)
        self.rough_notice.setObjectName("roughNotice")
        notice_row = QHBoxLayout(self.rough_notice)
        notice_row.setContentsMargins(0, 0, 0, 0)
        self.rough_label = QLabel(self.rough_notice)
        self.rough_label.setWordWrap(True)
        self.rough_label.setStyleSheet("color:#e65100")
        better = QPushButton("Get a better model…", self.rough_notice)
        better.setObjectName("betterModelButton")
        better.clicked.connect(self.download_requested)
        notice_row.addWidget(self.rough_label, 1)
        notice_row.addWidget(better)
        self.rough_notice.hide()
        layout.addWidget(self.rough_notice)
        form = QFormLayout()
        row = QHBoxLayout()
        self.slider = QSlider(Qt.Orientation.Horizontal, self)
        self.slider.setObjectName("contextSlider")
        self.slider.setMinimum(1)
        self.slider.valueChanged.connect(self._on_context_changed)
        self.ctx_label = QLabel(self)
        self.ctx_label.setMinimumWidth(110)
        row.addWidget(self.slider, 1)
        row.addWidget(self.ctx_label)
        form.addRow("Context", row)
        self.gpu_row = QWidget(self)
        gpu_row = QHBoxLayout(self.gpu_row)
        gpu_row.setContentsMargins(0, 0, 0, 0)
        self.gpu_slider = QSlider(Qt.Orientation.Horizontal, self.gpu_row)
        self.gpu_slider.setObjectName("gpuLayersSlider")
        self.gpu_slider.setMinimum(0)
        self.gpu_slider.valueChanged.connect(self._on_gpu_layers_moved)
        self.gpu_label = QLabel(self.gpu_row)
        self.gpu_label.setMinimumWidth(110)
        self.gpu_auto = QCheckBox("auto", self.gpu_row)
        self.gpu_auto.setObjectName("gpuAutoCheck")
        self.gpu_auto.setToolTip("The most layers that leave each GPU its margin free at this context")
        self.gpu_auto.setChecked(True)
        self.gpu_auto.toggled.connect(lambda *_: self._update_memory())
        gpu_row.addWidget(self.gpu_slider, 1)
        gpu_row.addWidget(self.gpu_label)
        gpu_row.addWidget(self.gpu_auto)
        form.addRow("GPU layers", self.gpu_row)
        self.gpu_row.setToolTip("\n".join(f"{d.name}: {d.description}, {d.free_bytes / 2**20:,.0f} MiB free of "
                                          f"{d.total_bytes / 2**20:,.0f} MiB" for d in self.devices))
        self.form = form
        form.setRowVisible(self.gpu_row, False)
        self.kv_selector = QComboBox(self)
        self.kv_selector.setObjectName("kvTypeSelector")
        for kv in KV_TYPES:
            self.kv_selector.addItem({"f16": "f16 (exact)", "q8_0": "q8_0 (half the memory)",
                                      "q4_0": "q4_0 (a quarter, lossy)"}[kv], kv)
        self.kv_selector.currentIndexChanged.connect(lambda *_: self._update_memory())
        form.addRow("KV cache", self.kv_selector)
        layout.addLayout(form)
        self.memory_bar = MemoryBarWidget(self)
        layout.addWidget(self.memory_bar)
        self.folders = list(extra_folders or [])
        self.set_library(None)

    # ----- the model list: filled by discovery on the I/O thread ---------------------------------

    def set_library(self, library) -> None:
        """Every model discovery found (headers only, cached), then Open… and Download…."""
        current = self.model_path
        self.selector.blockSignals(True)
        self.selector.clear()
        models = library.models if library is not None else []
        if not any(m.source == "bundled" for m in models):
            try:
                self.selector.addItem(BUNDLED_DISPLAY_NAME, str(bundled_model_path()))
            except BundledModelMissing:
                pass
        for m in models:
            label = m.name if m.source in ("bundled",) else f"{m.name}  ({m.source}, {m.facts.quantization}, " \
                f"{m.file_bytes / 2**30:,.1f} GiB)"
            self.selector.addItem(label, str(m.path))
            self.selector.setItemData(self.selector.count() - 1, f"{m.path}\nat {self.n_ctx or 4096:,} tokens: "
                                      f"{m.verdict}", Qt.ItemDataRole.ToolTipRole)
        self.selector.addItem(MODEL_SERVER, "server")
        self.selector.addItem(OPEN_GGUF, None)
        self.selector.addItem(DOWNLOAD, "download")
        self.selector.blockSignals(False)
        if current is not None or self.server is not None:
            self._sync_selector()

    def rescan(self) -> None:
        """Ask for a new scan; the list stays as it is until the result arrives (``set_library``)."""
        self.scan_requested.emit(list(self.folders))

    def select_model(self, path: Path) -> bool:
        """Show ``path``'s facts (header only). False, with the reason emitted, if it is not a usable GGUF."""
        try:
            facts, table = read_model_layout(path)
        except (GGUFError, OSError) as exc:
            self.model_failed.emit(str(exc))
            self._sync_selector()
            return False
        self.facts, self.table, self.model_path, self.measured, self.server = facts, table, Path(path), None, None
        self.gpu_slider.blockSignals(True)
        self.gpu_slider.setMaximum(facts.n_layer + 1)
        self.gpu_slider.blockSignals(False)
        self.form.setRowVisible(self.gpu_row, bool(self.devices))
        self.facts_label.setToolTip("")
        self.kv_selector.setEnabled(True)
        self._sync_selector()
        self.facts_label.setText(
            f"{display_name(facts)} — {facts.architecture}, {facts.parameter_count / 1e6:,.0f}M parameters, "
            f"{facts.quantization}, {facts.file_bytes / 2**20:,.0f} MiB, trained context {facts.n_ctx_train:,} tokens")
        profile = profile_for(facts.parameter_count)
        self.rough_label.setText(f"Summaries from a {facts.parameter_count / 1e6:,.0f}M-parameter model will be rough: "
                                 "expect notes and quotes more than prose. A 1.5B model or larger writes real "
                                 "summaries.")
        self.rough_notice.setVisible(profile.rough)
        current = self.n_ctx
        top = max(1, min(facts.n_ctx_train or MAX_SLIDER_CTX, MAX_SLIDER_CTX) // CTX_PAD_TOKENS)
        self.slider.blockSignals(True)
        self.slider.setMaximum(top)
        self.slider.setValue(max(1, min(top, current // CTX_PAD_TOKENS if current else 16)))
        self.slider.blockSignals(False)
        self._on_context_changed()
        return True

    def _sync_selector(self) -> None:
        """Show the model in use. One opened from outside the scanned folders gets its own entry, also
        when a later scan rebuilds the list (the list once fell back to the bundled model's name while
        another model stayed in use)."""
        if self.model_path is None and self.server is None:
            self.selector.setCurrentIndex(0)
            return
        if self.server is not None:
            data, label = server_key(self.server), f"{short_model_name(self.server.model)} on {self.server.url}"
        else:
            data, label = str(self.model_path), self.model_path.name
        index = self.selector.findData(data)
        if index < 0:
            self.selector.blockSignals(True)
            self.selector.insertItem(max(0, self.selector.count() - SERVER_ENTRIES), label, data)
            self.selector.blockSignals(False)
            index = self.selector.findData(data)
        self.selector.setCurrentIndex(index)

    def _on_selector_activated(self, index: int) -> None:
        data = self.selector.itemData(index)
        if data == "server":
            self._sync_selector()
            self.server_requested.emit()
            return
        if isinstance(data, str) and data.startswith("server:"):
            return                        # the server in use, chosen again
        if data == "download":
            self._sync_selector()
            self.download_requested.emit()
            return
        if data is None:
            path, _ = QFileDialog.getOpenFileName(self, "Open a GGUF model", "", "GGUF models (*.gguf)")
            if not path or not self.select_model(Path(path)):
                self._sync_selector()
            return
        self.select_model(Path(data))

    def use_server(self, probe) -> None:
        """The model runs on a server: its context bounds the slider, the bar shows the server, not RAM."""
        self.server, self.facts, self.model_path, self.measured = probe, None, None, None
        self.form.setRowVisible(self.gpu_row, False)       # the server holds the model, not this machine
        self._sync_selector()
        self.facts_label.setText(f"{short_model_name(probe.model)} — {probe.kind} at {probe.url}")
        self.facts_label.setToolTip(probe.model)
        self.rough_notice.hide()
        self.kv_selector.setEnabled(False)           # the server chose its own cache
        # A server that does not say its context (llama-cpp-python's) gets the whole range, starting at
        # the assumed 4,096: the person knows what it was started with, and a refusal re-plans smaller.
        top = max(1, min(probe.n_ctx if probe.n_ctx_known else MAX_SLIDER_CTX, MAX_SLIDER_CTX) // CTX_PAD_TOKENS)
        self.slider.blockSignals(True)
        self.slider.setMaximum(top)
        self.slider.setValue(top if probe.n_ctx_known else max(1, probe.n_ctx // CTX_PAD_TOKENS))
        self.slider.blockSignals(False)
        self._on_context_changed()

    @property
    def ready(self) -> bool:
        return self.facts is not None or self.server is not None

    @property
    def uses_server_context(self) -> bool:
        """The slider at its top: the run takes whatever context the server offers then."""
        return self.server is not None and self.server.n_ctx_known and self.slider.value() == self.slider.maximum()

    # ----- context and memory -----------------------------------------------------------------
    @property
    def n_ctx(self) -> int:
        if self.server is not None and self.uses_server_context:
            return self.server.n_ctx
        return self.slider.value() * CTX_PAD_TOKENS if self.ready else 0

    def set_n_ctx(self, n_ctx: int) -> None:
        self.slider.setValue(max(1, min(self.slider.maximum(), n_ctx // CTX_PAD_TOKENS)))

    @property
    def kv_type(self) -> str:
        return self.kv_selector.currentData()

    def set_kv_type(self, kv: str) -> None:
        index = self.kv_selector.findData(kv)
        if index >= 0:
            self.kv_selector.setCurrentIndex(index)

    def settings(self) -> RuntimeSettings:
        return RuntimeSettings.for_kv_type(self.kv_type, n_ctx=self.n_ctx, n_gpu_layers=self.gpu_layers or 0)

    @property
    def gpu_layers(self) -> int | None:
        """The layers on the GPU as the slider says; None where there is no GPU (or a server runs the model)."""
        if not self.devices or self.server is not None or self.facts is None:
            return None
        return self.gpu_slider.value()

    def set_gpu_layers(self, n_gpu_layers: int) -> None:
        """A person's own number (a resumed run's): the slider stops following the fit."""
        self.gpu_auto.setChecked(False)
        self.gpu_slider.setValue(max(0, min(self.gpu_slider.maximum(), n_gpu_layers)))

    @property
    def memory_verdict(self) -> str:
        if self.memory_bar.offload is not None:
            return self.memory_bar.offload.verdict
        return self.memory_bar.plan.verdict if self.memory_bar.plan is not None else ""

    def memory_short_text(self) -> str:
        """Why the run cannot start for memory: which pool, and the largest context that fits."""
        o = self.memory_bar.offload
        if o is None:
            plan = self.memory_bar.plan
            return f"This context won't fit in RAM; the largest that fits is {plan.max_n_ctx:,}." if plan else ""
        pools = ", ".join(p.name for p in o.short_pools)
        return (f"This won't fit in {pools}: fewer GPU layers, a smaller context (the largest that fits with "
                f"{o.gpu_layers} GPU layers is {self.max_n_ctx:,}) or a smaller KV cache type.")

    def _on_gpu_layers_moved(self, *_args) -> None:
        self.gpu_auto.blockSignals(True)
        self.gpu_auto.setChecked(False)          # the person's own choice from now on
        self.gpu_auto.blockSignals(False)
        self._update_memory()

    def _on_context_changed(self, *_args) -> None:
        self.ctx_label.setText(f"{self.n_ctx:,} tokens")
        self._update_memory()

    def _update_memory(self) -> None:
        if self.server is not None:
            self.memory_bar.set_server(self.server, self.n_ctx)
            self.changed.emit()
            return
        if self.facts is None:
            return
        self.measured = None   # a new setting: what was allocated before no longer applies
        if self.devices:
            self._update_offload()
        else:
            self.memory_bar.set_plan(plan_memory(self.facts, self.settings(), available_ram_bytes()))
        self.changed.emit()

    def _update_offload(self) -> None:
        """RAM and VRAM for the slider's layers; with "auto" the slider first moves to the most layers that
        leave every GPU its margin at this context (the context is the person's: the window never lowers it)."""
        ram = available_ram_bytes()
        s = self.settings()
        if self.gpu_auto.isChecked():
            layers = most_layers(self.facts, self.table, s, self.devices, ram) or 0
            self.gpu_slider.blockSignals(True)
            self.gpu_slider.setValue(layers)
            self.gpu_slider.blockSignals(False)
            s = self.settings()
        top = min(self.facts.n_ctx_train or MAX_SLIDER_CTX, MAX_SLIDER_CTX)
        self.max_n_ctx = largest_context(self.facts, self.table, s, self.devices, ram, top) or 0
        self.gpu_label.setText(f"{s.n_gpu_layers} of {self.facts.n_layer + 1}")
        self.memory_bar.set_offload(plan_offload(self.facts, self.table, s, self.devices, ram))

    def show_measured(self, allocation) -> None:
        if self.server is not None:
            return                        # nothing was loaded here
        self.measured = allocation
        if self.memory_bar.offload is not None:
            self.memory_bar.set_offload(self.memory_bar.offload, allocation)
        else:
            self.memory_bar.set_plan(self.memory_bar.plan, allocation)


def _gpus() -> list:
    """The GPUs llama.cpp sees; none when its library cannot say (the window then plans RAM alone)."""
    try:
        return gpus()
    except (DeviceListError, OSError):
        return []
