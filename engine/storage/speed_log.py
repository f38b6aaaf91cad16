"""Measured speeds per model, thread count and GPU placement, so plans can estimate time from this machine's
reality (a layer on the GPU runs several times faster: speeds measured with other layers say little).

Written after every real run and by ``precis plan --measure``; read by every plan. Stored as JSON
in the data directory, replaced atomically; a damaged file is ignored (it only costs an estimate).
"""
from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from precis.engine.storage.atomic_files import write_json_atomic
from precis.engine.storage.paths import data_dir


@dataclass(frozen=True)
class Speeds:
    prompt_tokens_per_second: float
    generate_tokens_per_second: float
    measured_at: float = 0.0


def _store() -> Path:
    return data_dir() / "speeds.json"


def speed_key(model_path: Path, n_threads: int | None, placement: str = "") -> str:
    """``placement``: "" on the CPU alone (the key speeds had before GPUs), else the GPUs and layers."""
    try:
        size = Path(model_path).stat().st_size
    except OSError:
        size = 0
    return f"{Path(model_path).name}:{size}:threads={n_threads or 'auto'}" + (f":{placement}" if placement else "")


def _read() -> dict:
    try:
        data = json.loads(_store().read_text(encoding="utf-8"))
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}


def known_speeds(model_path: Path, n_threads: int | None = None, placement: str = "") -> Speeds | None:
    entry = _read().get(speed_key(model_path, n_threads, placement))
    try:
        return Speeds(**entry) if entry else None
    except TypeError:
        return None


def record_speeds(model_path: Path, n_threads: int | None, prompt_tps: float, generate_tps: float,
                  placement: str = "") -> Speeds:
    """Blend a new measurement into the stored one (recent runs weigh more; one odd run does not rule)."""
    old = known_speeds(model_path, n_threads, placement)
    if old is not None:
        prompt_tps = 0.5 * old.prompt_tokens_per_second + 0.5 * prompt_tps
        generate_tps = 0.5 * old.generate_tokens_per_second + 0.5 * generate_tps
    speeds = Speeds(round(prompt_tps, 2), round(generate_tps, 2), time.time())
    data = _read()
    data[speed_key(model_path, n_threads, placement)] = asdict(speeds)
    write_json_atomic(_store(), data)
    return speeds
