"""What the window remembers: the panels' choices in the typed settings file (precis.engine.storage), the
window's geometry in QSettings (Qt's own format for it)."""
from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSettings

from precis.engine.storage.app_settings import AppSettings, save_settings
from precis.engine.storage.paths import config_dir
from precis.models.library.bundled import bundled_model_path


def _qsettings() -> QSettings:
    return QSettings(str(config_dir() / "window.ini"), QSettings.Format.IniFormat)


def restore_panels(window, s: AppSettings, model_path: Path | None) -> None:
    window.rules.set_preset(s.preset, s.rules_override)
    window.rules.strategy.setCurrentText(s.strategy)
    window.rules.language.setText(s.language)
    window.rules.length.setValue(s.summary_words)
    window.documents.mode.setCurrentIndex(1 if s.per_file else 0)
    window.model_panel.set_kv_type(s.kv_type)
    preferred = model_path or (Path(s.model) if s.model != "default" else bundled_model_path())
    window.model_panel.slider.setMaximum(max(1, s.n_ctx // 256))
    window.model_panel.slider.setValue(max(1, s.n_ctx // 256))
    if not window.model_panel.select_model(preferred):
        window.model_panel.select_model(bundled_model_path())
    window.model_panel.set_n_ctx(s.n_ctx)
    geometry = _qsettings().value("geometry")
    if geometry is not None:
        window.restoreGeometry(geometry)
    else:
        window.resize(1320, 860)


def save_panels(window, s: AppSettings) -> None:
    panel = window.model_panel
    if panel.model_path is not None:
        s.model = "default" if panel.model_path == bundled_model_path() else str(panel.model_path)
        s.n_ctx, s.kv_type = panel.n_ctx, panel.kv_type
    s.strategy, s.preset = window.rules.strategy.currentText(), window.rules.preset.currentData()
    s.rules_override = window.rules.rules.toPlainText() if window.rules.rules_overridden else ""
    s.language, s.per_file = window.rules.language.text(), window.documents.per_file
    s.summary_words = window.rules.summary_words or 0
    if panel.server is not None:        # the last server, to offer it again (the key stays in the environment)
        s.server_url, s.server_model, s.server_key_env = panel.server.url, panel.server.model, panel.server.key_env
    save_settings(s)
    _qsettings().setValue("geometry", window.saveGeometry())
