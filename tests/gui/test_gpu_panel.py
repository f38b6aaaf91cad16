"""The window with a GPU (a fake device list): VRAM beside RAM in the memory bar, a GPU-layers slider next
to the context slider that follows the fit until the person moves it, and each pool's verdict. Without a
GPU the row stays hidden and the bar is the RAM bar it always was."""
from __future__ import annotations

import json

import pytest
from PySide6.QtWidgets import QCheckBox, QPushButton, QSlider

from precis import gui
from precis.engine.runtime.devices import FAKE_DEVICES_ENV

MIB = 2**20


@pytest.fixture
def window_with(qtbot, monkeypatch):
    windows = []

    def make(free_mib: int | None):
        if free_mib is not None:
            monkeypatch.setenv(FAKE_DEVICES_ENV, json.dumps([{
                "name": "Vulkan0", "description": "llvmpipe (LLVM 15.0.6, 256 bits)", "kind": "gpu",
                "free_bytes": free_mib * MIB, "total_bytes": free_mib * MIB, "backend": "Vulkan"}]))
        window = gui.create_main_window()
        qtbot.addWidget(window)
        window.show()
        windows.append(window)
        return window
    yield make
    for w in windows:
        w.shutdown()


def test_without_a_gpu_the_row_is_hidden_and_the_bar_is_ram_alone(window_with):
    window = window_with(None)
    panel = window.model_panel
    assert not window.findChild(QSlider, "gpuLayersSlider").isVisible()
    assert panel.memory_bar.offload is None and panel.memory_bar.plan is not None
    assert panel.gpu_layers is None and window.request().gpu_layers == "auto"


def test_with_a_gpu_vram_sits_beside_ram_and_the_fit_places_the_slider(window_with):
    window = window_with(2048)
    panel = window.model_panel
    slider = window.findChild(QSlider, "gpuLayersSlider")
    assert slider.isVisible() and window.findChild(QCheckBox, "gpuAutoCheck").isChecked()
    panel.set_n_ctx(2048)
    offload = panel.memory_bar.offload
    assert [p.name for p in offload.pools] == ["RAM", "Vulkan0"]
    assert slider.value() == 31 == offload.gpu_layers            # SmolLM2: all 30 layers and the output
    assert [p.verdict for p in offload.pools] == ["fits", "fits"]
    assert window.request().gpu_layers == "31"
    tip = panel.memory_bar.toolTip()
    assert "RAM:" in tip and "Vulkan0:" in tip and "— fits" in tip
    assert "Vulkan0: llvmpipe (LLVM 15.0.6, 256 bits), 2,048 MiB free" in panel.gpu_row.toolTip()   # the device, named


def test_auto_follows_the_context_and_a_hand_on_the_slider_takes_over(window_with):
    window = window_with(500)               # 375 MiB usable: every layer needs 438 at 8,192, 235 at 2,048
    panel = window.model_panel
    slider = window.findChild(QSlider, "gpuLayersSlider")
    panel.set_n_ctx(8192)
    at_8k = slider.value()
    panel.set_n_ctx(2048)
    assert slider.value() > at_8k                                # a shorter context leaves room for layers
    assert panel.memory_bar.offload.devices[0].verdict == "fits"
    vram_before = panel.memory_bar.offload.devices[0].weights_bytes
    slider.setValue(5)                                           # the person's own choice
    assert not window.findChild(QCheckBox, "gpuAutoCheck").isChecked()
    assert panel.memory_bar.offload.gpu_layers == 5
    assert panel.memory_bar.offload.devices[0].weights_bytes < vram_before     # instantly, nothing loaded
    panel.set_n_ctx(4096)
    assert slider.value() == 5                                   # no longer follows the fit


def test_layers_that_do_not_fit_keep_the_run_button_off_and_say_where(window_with, qtbot, tmp_path):
    window = window_with(300)
    panel = window.model_panel
    panel.set_n_ctx(8192)
    panel.set_gpu_layers(31)
    assert panel.memory_bar.offload.devices[0].verdict == "won't fit"
    doc = tmp_path / "day.txt"
    doc.write_text("A short day. " * 200, encoding="utf-8")
    window.add_documents([doc])
    qtbot.waitUntil(lambda: window.plan is not None or bool(window.plan_error), timeout=20_000)
    button = window.findChild(QPushButton, "runButton")
    assert not button.isEnabled() and "Vulkan0" in button.toolTip()
