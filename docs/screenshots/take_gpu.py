"""A screenshot of the window's memory bar with VRAM beside RAM, from the GPU llama.cpp really sees.

Usage (the Vulkan build on Mesa's software device; no model is loaded, only the GGUF header is read):
  GGML_VK_VISIBLE_DEVICES=0 LLAMA_CPP_LIB_PATH=DIR LD_LIBRARY_PATH=DIR \\
      xvfb-run -s "-screen 0 1400x900x24" .venv/bin/python docs/screenshots/take_gpu.py [MODEL] [N_CTX]
Writes gpu.png: the window with the model selected at N_CTX (default 8192) and the GPU-layers slider where
the fit puts it. Refuses to write anything when llama.cpp sees no GPU (a fake list is not a screenshot).
"""
from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

OUT = Path(__file__).resolve().parent


def main(argv: list[str]) -> int:
    os.environ["PRECIS_HOME"] = tempfile.mkdtemp(prefix="precis-shots-")
    os.environ.setdefault("QT_QPA_PLATFORM", "xcb")
    if os.environ.pop("PRECIS_FAKE_DEVICES", None) is not None:
        print("take_gpu: PRECIS_FAKE_DEVICES ignored: the screenshot shows the real device", file=sys.stderr)
    from PySide6.QtWidgets import QApplication

    from precis import gui
    app = QApplication(sys.argv)
    window = gui.create_main_window()
    if not window.model_panel.devices:
        print("take_gpu: llama.cpp sees no GPU here (for lavapipe: the Vulkan build and GGML_VK_VISIBLE_DEVICES=0)",
              file=sys.stderr)
        return 1
    window.resize(1400, 900)
    window.show()
    if len(argv) > 1:
        window.model_panel.select_model(Path(argv[1]))
    window.model_panel.set_n_ctx(int(argv[2]) if len(argv) > 2 else 8192)
    for _ in range(20):
        app.processEvents()
    window.grab().save(str(OUT / "gpu.png"))
    print(window.model_panel.memory_bar.toolTip())
    window.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
