"""The user's settings: a typed schema in one JSON file under the config directory, written atomically.

Unknown keys are dropped and wrong types fall back to defaults, so an old or hand-edited file never
stops the app from starting. Window geometry is the GUI's business (QSettings), not stored here.
"""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path

from precis.engine.storage.atomic_files import write_json_atomic
from precis.engine.storage.paths import config_dir

MAX_RECENT_FILES = 10


@dataclass
class AppSettings:
    model: str = "default"             # "default" (bundled) or a path to a .gguf
    n_ctx: int = 4096
    kv_type: str = "f16"
    strategy: str = "auto"
    preset: str = "auto"               # the one the documents' kind calls for
    rules_override: str = ""           # empty: the preset's rules
    language: str = ""                 # empty: the document's own
    per_file: bool = False
    summary_words: int = 0             # 0: the plan's length, from each document's
    recent_files: list[str] = field(default_factory=list)
    model_folders: list[str] = field(default_factory=list)
    server_url: str = ""               # a model server chosen in the window ("" : the local model)
    server_model: str = ""
    server_key_env: str = "PRECIS_API_KEY"   # the variable holding the key; the key is never stored

    def remember_files(self, paths: list[Path]) -> None:
        new = [str(p) for p in paths]
        self.recent_files = (new + [p for p in self.recent_files if p not in new])[:MAX_RECENT_FILES]


def settings_path() -> Path:
    return config_dir() / "settings.json"


def load_settings() -> AppSettings:
    try:
        data = json.loads(settings_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return AppSettings()
    defaults = AppSettings()
    values = {}
    for f in fields(AppSettings):
        value = data.get(f.name, getattr(defaults, f.name)) if isinstance(data, dict) else getattr(defaults, f.name)
        values[f.name] = value if isinstance(value, type(getattr(defaults, f.name))) else getattr(defaults, f.name)
    return AppSettings(**values)


def save_settings(settings: AppSettings) -> None:
    write_json_atomic(settings_path(), asdict(settings))
