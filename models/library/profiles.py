"""What a model of a given size does best, from resources/model_profiles.json: the chunk size its
summaries are best at and the default strategy. The numbers behind it come from bench/quality.py
(docs/quality-history.md); sizes that were not measured keep the context-safe chunk and the rolling strategy."""
from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources as importlib_resources


@dataclass(frozen=True)
class ModelProfile:
    label: str
    effective_chunk_tokens: int | None
    default_strategy: str
    rough: bool                         # summaries will be rough: say so, offer better models
    why: str = ""                       # why its default strategy, as the plan says it


@lru_cache(maxsize=1)
def _profiles() -> list[tuple[float | None, ModelProfile]]:
    data = json.loads((importlib_resources.files("precis.resources") / "model_profiles.json").read_text("utf-8"))
    return [(p["up_to_billion_params"], ModelProfile(p["label"], p["effective_chunk_tokens"], p["default_strategy"],
                                                     bool(p.get("rough")), p.get("why", "")))
            for p in data["profiles"]]


def profile_for(parameter_count: int) -> ModelProfile:
    billions = parameter_count / 1e9
    for limit, profile in _profiles():
        if limit is None or billions <= limit:
            return profile
    return _profiles()[-1][1]
