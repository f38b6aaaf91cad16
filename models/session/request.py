"""The run request: every option of a run, declared once.

The command line builds its flags from these fields (``add_options``), the window fills one from its
panels, and the checkpoint saves one (``as_dict``) so that ``--resume`` and the window's Resume
continue with exactly the options the run started with. A field's metadata says which commands
offer it, its flag and its help; its default is the default everywhere.
"""
from __future__ import annotations

import argparse
from dataclasses import MISSING, asdict, dataclass, field, fields, replace
from datetime import date as _date
from pathlib import Path

from precis.engine.errors import BadInput
from precis.engine.prompts.presets import AUTO_PRESET
from precis.engine.runtime.protocol import SamplingParams
from precis.engine.runtime.settings import CTX_PAD_TOKENS, KV_TYPES
from precis.engine.summary.guard import GuardSettings
from precis.engine.summary.strategies import STRATEGY_NAMES
from precis.models.session.preflight import validate_date

PLAN, SUMMARIZE = "plan", "summarize"
AUTO = "auto"                       # the strategy the model's size profile names; the layers the fit picks
BOTH = (PLAN, SUMMARIZE)


def option(default, help: str, *, flag: str | None = None, commands=BOTH, **argparse_kwargs):  # noqa: A002
    """A request field with its command-line form. ``flag=None``: not a flag (set by code)."""
    meta = {"help": help, "flag": flag, "commands": commands, "argparse": argparse_kwargs}
    if isinstance(default, list):
        return field(default_factory=lambda: list(default), metadata=meta)
    return field(default=default, metadata=meta)


@dataclass
class RunRequest:
    files: list[str] = option([], "documents (or folders): one bundle in order, or one summary each with --per-file",
                              flag=None)
    model: str = option("default", "path to a .gguf file, or `default` (the bundled SmolLM2-135M)", flag="--model",
                        metavar="MODEL")
    n_ctx: int = option(4096, f"context length in tokens, a multiple of {CTX_PAD_TOKENS}; with --server it can only "
                        "lower the server's context, which is the default there", flag="--n-ctx", type=int,
                        metavar="N")
    kv_type: str = option("f16", "KV cache type: f16 exact; q8_0 half the memory; q4_0 a quarter (lossy)",
                          flag="--kv-type", choices=KV_TYPES)
    swa_full: bool = option(False, "full-size cache for sliding-window layers (more memory, prefix reuse always works)",
                            flag="--swa-full", action="store_true")
    gpu_layers: str = option(AUTO, "layers on the GPU as llama.cpp counts them (the output layer first, then from the "
                             "last block down; the block count + 1 is all), or auto: the most that leave each GPU "
                             "its margin, then the largest context up to --n-ctx (without a GPU: none)",
                             flag="--gpu-layers", metavar="N|auto")
    beyond_training_context: bool = option(False, "allow a context longer than the model was trained on (quality "
                                           "degrades there unless the model has RoPE scaling configured)",
                                           flag="--beyond-training-context", action="store_true")
    strategy: str = option(AUTO, "how the summary is built; auto: the default for the model's size "
                           "(resources/model_profiles.json)", flag="--strategy", choices=(AUTO, *STRATEGY_NAMES),
                           commands=(SUMMARIZE,))
    per_file: bool = option(False, "one summary per file instead of one bundle in order", flag="--per-file",
                            action="store_true")
    preset: str = option(AUTO_PRESET, "rules preset name, a preset .json file, or auto: the one the documents' kind "
                         "calls for (a git log, a chat with an assistant, a meeting transcript, or prose)",
                         flag="--preset")
    rules_text: str = option("", "a text file whose lines replace the preset's rules", flag="--rules",
                             metavar="FILE")
    date: str = option("", "archive date shown to the model and used in file names, YYYY-MM-DD (default: today)",
                       flag="--date", metavar="YYYY-MM-DD")
    language: str = option("", "output language (default: the document's own)", flag="--language")
    summary_cap: int | None = option(None, "max tokens of each round's summary (default: a fifth of the context)",
                                     flag="--summary-cap", type=int, metavar="N")
    summary_in_cap: int | None = option(None, "max tokens of the summary fed into a round (default: --summary-cap)",
                                        flag="--summary-in-cap", type=int, metavar="N")
    margin: int | None = option(None, "tokens kept free in each round (default: 16 + n_ctx/128)", flag="--margin",
                                type=int, metavar="N")
    overlap: int = option(0, "tokens of the previous chunk repeated at the start of the next", flag="--overlap",
                          type=int, metavar="N")
    max_chunk_tokens: int | None = option(None, "cap on each chunk's tokens (default: the size models of this size "
                                          "summarize best, or what the context allows if smaller)",
                                          flag="--chunk-tokens", type=int, metavar="N")
    summary_words: int | None = option(None, "length of the written summary in words, notes and account strategies "
                                       "(default: from the document's length, a transcript's speaker labels and "
                                       "fillers left out; the plan shows it)", flag="--summary-words", type=int,
                                       metavar="N")
    skip_noise: bool | None = option(None, "send log/tool-only parts to the model too (default: as the preset says)",
                                     flag="--no-skip-noise", commands=(SUMMARIZE,), action="store_const",
                                     const=False)
    collapse_ratio: float = option(GuardSettings.shrink_ratio, "a round whose summary is shorter than this share of "
                                   "the previous one is a collapse", flag="--collapse-ratio", type=float,
                                   commands=(SUMMARIZE,), metavar="R")
    notes_after_failures: int = option(GuardSettings.notes_after_failed_parts, "rolling and map-reduce: after this "
                                       "many parts in a row whose rewrite failed twice, take the document's remaining "
                                       "parts straight as notes (0: keep asking for rewrites)",
                                       flag="--notes-after-failures", type=int, commands=(SUMMARIZE,), metavar="N")
    second_reading: bool = option(True, "account: don't read each line again beside its passage (faster; more lines "
                                  "that give an act to the wrong person get through)", flag="--no-second-reading",
                                  commands=(SUMMARIZE,), action="store_false")
    max_rounds: int = option(10_000, "hard cap on model rounds", flag="--max-rounds", type=int, commands=(SUMMARIZE,),
                             metavar="N")
    seed: int = option(SamplingParams.seed, "sampling seed: the same seed, model, document and options give the "
                       "same summary; another seed draws the model's sampled replies anew", flag="--seed", type=int,
                       commands=(SUMMARIZE,), metavar="N")
    out: str = option(".", "folder for DATE-summary.md, DATE-todos.md and DATE-run.json", flag="--out",
                      commands=(SUMMARIZE,), metavar="DIR")
    server: str = option("", "run the model on an OpenAI-compatible server at this base URL (such as "
                         "http://127.0.0.1:8080/v1) instead of in-process; the API key is read from PRECIS_API_KEY "
                         "(see --server-key-env)",
                         flag="--server", metavar="URL")
    server_model: str = option("", "the server's model (default: its only or first listed)", flag="--server-model",
                               metavar="NAME")
    server_key_env: str = option("PRECIS_API_KEY", "the environment variable that holds the server's API key (the "
                                 "key itself is never saved)", flag="--server-key-env", metavar="NAME")
    parallel: int = option(1, "with --server: summarize each file on its own, up to N documents in flight (use the "
                           "server's parallel slots); the in-process model runs one at a time", flag="--parallel",
                           type=int, commands=(SUMMARIZE,), metavar="N")

    # ----- one JSON form: the checkpoint keeps it, resume reads it --------------------------------
    def as_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> "RunRequest":
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in known})

    def with_changes(self, **changes) -> "RunRequest":
        return replace(self, **changes)

    @property
    def archive_date(self) -> str:
        return self.date or _date.today().isoformat()

    @property
    def gpu_layers_asked(self) -> int | None:
        """The person's own number of GPU layers; None for auto."""
        return None if str(self.gpu_layers) == AUTO else int(self.gpu_layers)

    def budget_overrides(self) -> dict:
        """The budget's keyword names for the caps the person set (None: the budget's default)."""
        return {"summary_out_cap": self.summary_cap, "summary_in_cap": self.summary_in_cap, "margin": self.margin,
                "overlap_tokens": self.overlap, "max_chunk_tokens": self.max_chunk_tokens}

    @property
    def batch(self) -> bool:
        """One run per file, each with its own outputs and checkpoint (server runs with --parallel or --per-file)."""
        return bool(self.server) and (self.parallel > 1 or self.per_file)

    def validate(self) -> "RunRequest":
        if not (self.server and self.n_ctx == SERVER_CONTEXT):
            check_n_ctx(self.n_ctx)
        if self.parallel < 1:
            raise BadInput("--parallel must be at least 1.")
        if self.parallel > 1 and not self.server:
            raise BadInput("--parallel needs --server: the in-process model runs one document at a time (its threads "
                           "already use every core). Point --server at a model server with parallel slots.")
        if self.server:
            from precis.engine.runtime.server.connection import ServerAddress
            ServerAddress.parse(self.server)
        if str(self.gpu_layers) != AUTO and not str(self.gpu_layers).isdigit():
            raise BadInput(f"--gpu-layers must be a number of layers (0 or more) or auto, not {self.gpu_layers!r}.")
        if self.kv_type not in KV_TYPES:
            raise BadInput(f"--kv-type must be one of {', '.join(KV_TYPES)}, not {self.kv_type!r}.")
        if self.strategy not in (AUTO, *STRATEGY_NAMES):
            raise BadInput(f"--strategy must be one of auto, {', '.join(STRATEGY_NAMES)}, not {self.strategy!r}.")
        if self.max_chunk_tokens is not None and self.max_chunk_tokens < 256:
            raise BadInput("--chunk-tokens must be at least 256.")
        if not 0 < self.collapse_ratio < 1:
            raise BadInput(f"--collapse-ratio must be between 0 and 1, not {self.collapse_ratio}.")
        if self.notes_after_failures < 0:
            raise BadInput("--notes-after-failures must be 0 (keep asking for rewrites) or more.")
        if self.max_rounds < 1:
            raise BadInput("--max-rounds must be at least 1.")
        if self.date:
            validate_date(self.date)
        return self


SERVER_CONTEXT = 0           # n_ctx of a server run without --n-ctx: the context the server reports
MAX_N_CTX = 1 << 20          # no model Precis can load has a longer context


def check_n_ctx(n_ctx: int, flag: str = "--n-ctx") -> int:
    """A context length Precis can use: a positive multiple of 256, within what any model offers."""
    if n_ctx <= 0:
        raise BadInput(f"{flag} must be a positive number of tokens, a multiple of {CTX_PAD_TOKENS} (like 4096), "
                       f"not {n_ctx}.")
    if n_ctx > MAX_N_CTX:
        raise BadInput(f"{flag} {n_ctx:,} is longer than any model's context (at most {MAX_N_CTX:,} tokens); use the "
                       "model's training context or less (`precis models inspect MODEL` shows it).")
    if n_ctx % CTX_PAD_TOKENS:
        lower = n_ctx // CTX_PAD_TOKENS * CTX_PAD_TOKENS
        raise BadInput(f"{flag} must be a multiple of {CTX_PAD_TOKENS} (llama.cpp pads to it anyway): use "
                       f"{max(lower, CTX_PAD_TOKENS)} or {lower + CTX_PAD_TOKENS}, not {n_ctx}.")
    return n_ctx


# ----- the command line's form of the request ------------------------------------------------------
def add_options(parser: argparse.ArgumentParser, command: str) -> None:
    """The flags of ``command`` ("plan" or "summarize"), generated from the request's fields."""
    for f in fields(RunRequest):
        meta = f.metadata
        if command not in meta["commands"] or meta["flag"] is None:
            continue
        kwargs = dict(meta["argparse"])
        default = f.default if f.default is not MISSING else None
        if kwargs.get("action") not in ("store_true", "store_const"):
            kwargs["default"] = None          # unset flags keep the request's default (and a resume's value)
        help_text = meta["help"]
        if default not in (None, "", False) and "(default" not in help_text:
            help_text += f" (default: {default})"
        parser.add_argument(meta["flag"], dest=f.name, help=help_text, **kwargs)
    files_help = RunRequest.__dataclass_fields__["files"].metadata["help"]
    parser.add_argument("files", nargs="*", type=Path,
                        help=files_help + ("; optional with --resume" if command == SUMMARIZE else ""))


def request_from_args(args: argparse.Namespace, base: RunRequest | None = None) -> RunRequest:
    """The request the flags describe, over ``base`` (a resumed run's request, or the defaults)."""
    request = base or RunRequest()
    changes = {}
    for f in fields(RunRequest):
        if not hasattr(args, f.name):
            continue
        value = getattr(args, f.name)
        if value is None or (f.metadata["argparse"].get("action") == "store_true" and value is False):
            continue
        if f.name == "files":
            if value:
                changes["files"] = [str(p) for p in value]
            continue
        if f.name == "rules_text":
            value = _read_rules_file(Path(value))
        changes[f.name] = value
    # --n-ctx may only lower what the server offers; a resumed run keeps the context it was planned with (its
    # plan would differ and the resume be refused: a server restarted mid-run, bench/hostile.py)
    if changes.get("server") and base is None and getattr(args, "n_ctx", None) is None and "n_ctx" not in changes:
        changes["n_ctx"] = SERVER_CONTEXT
    return request.with_changes(**changes).validate()


def _read_rules_file(path: Path) -> str:
    from precis.engine.documents.loading import load_document
    text = load_document(path).text.strip()
    if not text:
        raise BadInput(f"The rules file {path} is empty.")
    return text
