"""Better models than the bundled one, from resources/curated_models.json, with what they need here:
their size, the RAM they take (file + a runtime allowance) and a fits / tight / won't-fit badge."""
from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources as importlib_resources

from precis.engine.planning.memory_plan import available_ram_bytes
from precis.models.library.hub import RUNTIME_ALLOWANCE_BYTES, badge_for


@dataclass(frozen=True)
class CuratedModel:
    name: str
    repo: str
    file: str
    billion_params: float
    size_bytes: int
    why: str
    ram_bytes: int
    badge: str


def curated_models(available: int | None = None) -> list[CuratedModel]:
    data = json.loads((importlib_resources.files("precis.resources") / "curated_models.json").read_text("utf-8"))
    available = available_ram_bytes() if available is None else available
    return [CuratedModel(m["name"], m["repo"], m["file"], m["billion_params"], m["size_bytes"], m["why"],
                         m["size_bytes"] + RUNTIME_ALLOWANCE_BYTES, badge_for(m["size_bytes"], available))
            for m in data["models"]]
