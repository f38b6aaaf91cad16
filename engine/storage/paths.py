"""Where Precis keeps its files. PRECIS_HOME moves all of them (tests give each test its own)."""
from __future__ import annotations

import os
from pathlib import Path

APP_NAME = "precis"


def _home_override() -> Path | None:
    value = os.environ.get("PRECIS_HOME")
    return Path(value).expanduser() if value else None


def config_dir() -> Path:
    home = _home_override()
    if home:
        return home / "config"
    import platformdirs
    return Path(platformdirs.user_config_dir(APP_NAME, appauthor=False))


def data_dir() -> Path:
    home = _home_override()
    if home:
        return home / "data"
    import platformdirs
    return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))


def cache_dir() -> Path:
    home = _home_override()
    if home:
        return home / "cache"
    import platformdirs
    return Path(platformdirs.user_cache_dir(APP_NAME, appauthor=False))


def runs_dir() -> Path:
    return data_dir() / "runs"


def models_dir() -> Path:
    return data_dir() / "models"
