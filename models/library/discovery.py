"""The local model library: GGUF files already on this machine, wherever other tools put them.

Sources: Precis's own models folder; the Hugging Face cache (huggingface-hub's own scanner); LM Studio
(publisher/repo/file); Ollama (manifests name the GGUF blob of each model:tag); GPT4All; folders the
user adds. Only headers are read, and each result is cached by path, size and mtime, so a second
scan of a folder of multi-GB files only stats them. Split GGUFs (-00001-of-0000N) appear once;
partial downloads and files that are not GGUF never appear as models (they are reported as skipped).
"""
from __future__ import annotations

import json
import os
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path

from precis.engine.planning.memory_plan import available_ram_bytes, plan_memory
from precis.engine.planning.model_facts import ModelFacts, RecurrentState
from precis.engine.runtime.settings import RuntimeSettings
from precis.engine.storage.atomic_files import write_json_atomic
from precis.engine.storage.paths import cache_dir, models_dir
from precis.models.gguf.facts import read_model_facts
from precis.models.gguf.header import GGUFError
from precis.models.library.bundled import bundled_model_path

_SPLIT = re.compile(r"^(?P<stem>.+)-(?P<part>\d{5})-of-(?P<count>\d{5})\.gguf$", re.I)
OLLAMA_MODEL_MEDIA = "application/vnd.ollama.image.model"
INDEX_VERSION = 1


@dataclass
class LocalModel:
    name: str                 # as the tool that owns it names it: "Qwen/...-GGUF/qwen...gguf", "llama3:8b"
    path: Path                # the file to load (first shard of a split model)
    source: str               # "bundled", "precis", "huggingface", "lmstudio", "ollama", "gpt4all", "folder"
    file_bytes: int           # all shards
    facts: ModelFacts
    shards: int = 1
    verdict: str = ""         # fits / tight / won't fit at the context asked for
    aliases: list[str] = field(default_factory=list)   # other names of the same file (Ollama tags sharing a blob)

    def as_dict(self) -> dict:
        return {"name": self.name, "path": str(self.path), "source": self.source, "file_bytes": self.file_bytes,
                "shards": self.shards, "architecture": self.facts.architecture,
                "parameter_count": self.facts.parameter_count, "quantization": self.facts.quantization,
                "n_ctx_train": self.facts.n_ctx_train, "verdict": self.verdict, "aliases": self.aliases}


@dataclass
class Library:
    models: list[LocalModel] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)   # (path, why it is not a model)
    headers_read: int = 0                                           # cache misses (for tests and the bench)


def home() -> Path:
    return Path(os.environ.get("PRECIS_TOOL_HOME") or Path.home())   # tests build other tools' layouts here


def default_sources(extra_folders: list[str] | None = None) -> list[tuple[str, Path]]:
    h = home()
    sources = [("precis", models_dir())]
    hf = os.environ.get("HF_HUB_CACHE") or (Path(os.environ["HF_HOME"]) / "hub" if os.environ.get("HF_HOME")
                                             else h / ".cache" / "huggingface" / "hub")
    sources.append(("huggingface", Path(hf)))
    sources += [("lmstudio", h / ".lmstudio" / "models"), ("lmstudio", h / ".cache" / "lm-studio" / "models")]
    sources.append(("ollama", Path(os.environ.get("OLLAMA_MODELS") or h / ".ollama" / "models")))
    sources += [("gpt4all", h / ".local" / "share" / "nomic.ai" / "GPT4All"),
                ("gpt4all", h / "Library" / "Application Support" / "nomic.ai" / "GPT4All")]
    sources += [("folder", Path(f)) for f in extra_folders or []]
    return sources


def discover(extra_folders: list[str] | None = None, n_ctx: int = 4096, include_bundled: bool = True) -> Library:
    index = _Index()
    lib = Library()
    by_file: dict[Path, LocalModel] = {}
    candidates: list[tuple[str, str, Path]] = []     # (source, name, path)
    if include_bundled:
        candidates.append(("bundled", "SmolLM2 135M Instruct (bundled)", bundled_model_path()))
    for source, root in default_sources(extra_folders):
        if not root.is_dir():
            continue
        if source == "huggingface":
            candidates += _huggingface(root)
        elif source == "ollama":
            candidates += _ollama(root, lib)
        else:
            candidates += [(source, _name(source, root, p), p) for p in _gguf_files(root)]
    available = available_ram_bytes()
    for source, name, path in candidates:
        real = path.resolve()
        if real in by_file:
            by_file[real].aliases.append(name)
            continue
        split = _SPLIT.match(path.name)
        shards = [path]
        if split:
            if int(split["part"]) != 1:
                continue                                # listed through its first shard
            shards = [path.with_name(f"{split['stem']}-{i:05d}-of-{split['count']}.gguf")
                      for i in range(1, int(split["count"]) + 1)]
            missing = [s.name for s in shards if not s.exists()]
            if missing:
                lib.skipped.append((str(path), f"split model is missing {', '.join(missing)}"))
                continue
        facts, error = index.facts(path, lib)
        if facts is None:
            lib.skipped.append((str(path), error))
            by_file[real] = LocalModel(name, path, source, 0, None)   # seen: not skipped twice
            continue
        total = sum(s.stat().st_size for s in shards)
        n = min(n_ctx, facts.n_ctx_train or n_ctx)
        n -= n % 256
        verdict = plan_memory(facts, RuntimeSettings(n_ctx=max(256, n)), available).verdict
        model = LocalModel(name, path, source, total, facts, len(shards), verdict)
        by_file[real] = model
        lib.models.append(model)
    index.save()
    return lib


def _gguf_files(root: Path) -> list[Path]:
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))   # skips .cache/ download temp dirs
        out += [Path(dirpath) / f for f in sorted(filenames) if f.lower().endswith(".gguf")]
    return out


def _name(source: str, root: Path, path: Path) -> str:
    rel = path.relative_to(root)
    return str(rel) if source in ("lmstudio", "precis") else path.name


def _huggingface(root: Path) -> list[tuple[str, str, Path]]:
    from huggingface_hub import scan_cache_dir
    from huggingface_hub.errors import CacheNotFound, CorruptedCacheException
    try:
        info = scan_cache_dir(root)
    except (CacheNotFound, CorruptedCacheException, OSError):
        return []
    out = []
    for repo in sorted(info.repos, key=lambda r: r.repo_id):
        if repo.repo_type != "model":
            continue
        for rev in sorted(repo.revisions, key=lambda r: r.last_modified, reverse=True):
            for f in sorted(rev.files, key=lambda f: f.file_name):
                if f.file_name.lower().endswith(".gguf"):
                    out.append(("huggingface", f"{repo.repo_id}/{f.file_path.relative_to(rev.snapshot_path)}",
                                f.file_path))
    return out


def _ollama(root: Path, lib: Library) -> list[tuple[str, str, Path]]:
    out = []
    manifests = root / "manifests"
    found = sorted(p for p in manifests.rglob("*") if p.is_file()) if manifests.is_dir() else []
    # Official models ("library" namespace) first: when tags share a blob, that name leads.
    for manifest in sorted(found, key=lambda p: ("/library/" not in p.as_posix(), p.as_posix())):
        parts = manifest.relative_to(manifests).parts          # registry / namespace / model / tag
        if len(parts) < 3:
            continue
        *_, namespace, model, tag = parts if len(parts) >= 4 else ("", *parts)
        name = f"{model}:{tag}" if namespace in ("library", "") else f"{namespace}/{model}:{tag}"
        try:
            layers = json.loads(manifest.read_text(encoding="utf-8")).get("layers", [])
        except (OSError, ValueError) as exc:
            lib.skipped.append((str(manifest), f"unreadable Ollama manifest ({exc})"))
            continue
        for layer in layers:
            if layer.get("mediaType") == OLLAMA_MODEL_MEDIA:
                blob = root / "blobs" / str(layer.get("digest", "")).replace(":", "-")
                if blob.is_file():
                    out.append(("ollama", name, blob))
                else:
                    lib.skipped.append((str(blob), f"Ollama model {name}: its weights blob is missing"))
    return out


class _Index:
    """Facts by (path, size, mtime): a second scan reads no headers."""

    def __init__(self) -> None:
        self.path = cache_dir() / "model_index.json"
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            self.entries = data["entries"] if data.get("version") == INDEX_VERSION else {}
        except (OSError, ValueError, KeyError, AttributeError):
            self.entries = {}
        self.dirty = False

    def facts(self, path: Path, lib: Library) -> tuple[ModelFacts | None, str]:
        st = path.stat()
        key = str(path)
        entry = self.entries.get(key)
        if entry and entry["size"] == st.st_size and entry["mtime_ns"] == st.st_mtime_ns:
            if entry.get("error"):
                return None, entry["error"]
            return _facts_from_dict(entry["facts"]), ""
        lib.headers_read += 1
        try:
            facts = read_model_facts(path)
            self.entries[key] = {"size": st.st_size, "mtime_ns": st.st_mtime_ns, "facts": _facts_to_dict(facts)}
            result = (facts, "")
        except (GGUFError, OSError) as exc:
            self.entries[key] = {"size": st.st_size, "mtime_ns": st.st_mtime_ns, "error": str(exc)}
            result = (None, str(exc))
        self.dirty = True
        return result

    def save(self) -> None:
        if self.dirty:
            write_json_atomic(self.path, {"version": INDEX_VERSION, "entries": self.entries})


def _facts_to_dict(f: ModelFacts) -> dict:
    d = asdict(f)
    d["path"] = str(f.path)
    return d


def _facts_from_dict(d: dict) -> ModelFacts:
    d = dict(d)
    d["path"] = Path(d["path"])
    for key in ("n_head", "n_head_kv", "swa_layers", "recurrent_layers", "warnings"):
        d[key] = tuple(d.get(key) or ())
    if d.get("recurrent_state"):
        d["recurrent_state"] = RecurrentState(**d["recurrent_state"])
    return ModelFacts(**d)
