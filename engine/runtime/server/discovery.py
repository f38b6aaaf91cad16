"""What a model server is and offers: its kind, its models, its context, how it counts tokens.

Every server speaks the OpenAI-compatible API; each also has endpoints of its own that say more.
llama.cpp's server: ``/props`` (context per slot, slots, chat template), ``/tokenize``,
``/apply-template``. vLLM: ``max_model_len`` in ``/v1/models``, ``/tokenize`` (also of chat messages).
Ollama: ``/api/show`` (trained context; its own default ``num_ctx`` is small and truncates long
prompts silently, so Precis sets it on every call through ``/api/chat``). LM Studio:
``/api/v0/models`` (loaded context). llama-cpp-python's server: ``/extras/tokenize``. Probes that a
server refuses are skipped quietly; what is learned is recorded with where it came from. All of it
shares one deadline (DISCOVERY_TIMEOUT_SECONDS): a server that accepts connections and never answers
is named within seconds, not after the generation timeout.
"""
from __future__ import annotations

import os
from dataclasses import asdict, dataclass, field

from precis.engine.errors import ServerError
from precis.engine.runtime.server.connection import Connection
from precis.engine.runtime.server.waits import DISCOVERY, ServerSilent

LLAMA_CPP, VLLM, OLLAMA, LM_STUDIO, LLAMA_CPP_PYTHON, OPENAI = (
    "llama.cpp server", "vLLM", "Ollama", "LM Studio", "llama-cpp-python server", "OpenAI-compatible")


@dataclass
class ServerInfo:
    kind: str
    url: str                                  # without credentials
    model: str
    models: list[str] = field(default_factory=list)
    n_ctx: int | None = None                  # the context one request may use, as the server says
    n_ctx_source: str = ""                    # where n_ctx came from
    slots: int | None = None                  # requests the server runs side by side (llama.cpp -np)
    chat_template: str | None = None          # a Jinja chat template the server reported
    local_gguf: str | None = None             # the served model's GGUF, when it is on this machine
    tokenize_endpoint: str | None = None      # "/tokenize" (llama.cpp, vLLM) or "/extras/tokenize"
    grammar_field: str | None = None          # how this server takes a GBNF grammar, if it does

    def as_dict(self) -> dict:
        data = asdict(self)
        data.pop("chat_template")             # long, and the GGUF or server has it
        return data


def _probe(connection: Connection, deadline: float, method: str, endpoint: str, payload: dict | None = None, *,
           root: bool = True):
    """A server-specific endpoint's JSON, or None when this server does not have it."""
    try:
        if method == "GET":
            return connection.get_json(endpoint, phase=DISCOVERY, root=root, retry=False, deadline=deadline)
        return connection.post_json(endpoint, payload or {}, phase=DISCOVERY, root=root, retry=False,
                                    deadline=deadline)
    except ServerSilent:
        raise                                 # a server that answered /v1/models and then hangs is stuck
    except ServerError as exc:
        if "refused access" in str(exc):      # a key problem is never "endpoint missing"
            raise
        return None


def list_models(connection: Connection, deadline: float | None = None) -> list[dict]:
    data = connection.get_json("/models", phase=DISCOVERY, deadline=deadline)
    entries = data.get("data") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        raise ServerError(f"{connection.address.display}/models did not list models; is this an OpenAI-compatible "
                          "base URL (ending in /v1)?")
    return [e for e in entries if isinstance(e, dict) and e.get("id")]


def choose_model(entries: list[dict], wanted: str | None, url: str) -> dict:
    if not entries:
        raise ServerError(f"The model server at {url} serves no model; load one there first.")
    if not wanted:
        return entries[0]
    for entry in entries:
        if entry["id"] == wanted:
            return entry
    names = ", ".join(e["id"] for e in entries[:10])
    # The server's side (exit 5), not a bad option (2): the same command ran while the server served it,
    # and a model unloaded later is found missing here or by the completion's 404 alike.
    raise ServerError(f"The model server at {url} has no model {wanted!r}; it serves: {names}. Pick one with "
                      "--server-model, or load that model on the server.")


def discover(connection: Connection, wanted_model: str | None = None) -> ServerInfo:
    url = connection.address.display
    deadline = connection.deadline(DISCOVERY)
    entries = list_models(connection, deadline)
    entry = choose_model(entries, wanted_model, url)
    info = ServerInfo(OPENAI, url, entry["id"], [e["id"] for e in entries])

    def probe(method: str, endpoint: str, payload: dict | None = None):
        return _probe(connection, deadline, method, endpoint, payload)

    props = probe("GET", "/props")
    if isinstance(props, dict) and "default_generation_settings" in props:
        info.kind, info.tokenize_endpoint, info.grammar_field = LLAMA_CPP, "/tokenize", "grammar"
        settings = props.get("default_generation_settings") or {}
        n_ctx = settings.get("n_ctx") or (settings.get("params") or {}).get("n_ctx") or props.get("n_ctx")
        if n_ctx:
            info.n_ctx, info.n_ctx_source = int(n_ctx), "/props (per slot)"
        info.slots = props.get("total_slots")
        info.chat_template = props.get("chat_template") or None
    elif entry.get("owned_by") == "vllm" or "max_model_len" in entry:
        info.kind, info.tokenize_endpoint, info.grammar_field = VLLM, "/tokenize", "guided_grammar"
        if entry.get("max_model_len"):
            info.n_ctx, info.n_ctx_source = int(entry["max_model_len"]), "/v1/models max_model_len"
    elif isinstance(version := probe("GET", "/api/version"), dict) and "version" in version:
        info.kind = OLLAMA
        _ollama_details(probe, info)
    elif isinstance(lms := probe("GET", "/api/v0/models"), dict) and isinstance(lms.get("data"), list):
        info.kind = LM_STUDIO
        for model in lms["data"]:
            if model.get("id") == info.model:
                n_ctx = model.get("loaded_context_length") or model.get("max_context_length")
                if n_ctx:
                    info.n_ctx, info.n_ctx_source = int(n_ctx), "/api/v0/models"
    elif isinstance(probe("POST", "/extras/tokenize", {"input": "a"}), dict):
        info.kind, info.tokenize_endpoint, info.grammar_field = LLAMA_CPP_PYTHON, "/extras/tokenize", "grammar"
    if info.local_gguf is None and info.model.lower().endswith(".gguf") and os.path.isfile(info.model):
        info.local_gguf = info.model          # llama-cpp-python names a model by its path
    return info


def _ollama_details(probe, info: ServerInfo) -> None:
    show = probe("POST", "/api/show", {"model": info.model})
    if not isinstance(show, dict):
        return
    for key, value in (show.get("model_info") or {}).items():
        if key.endswith(".context_length") and isinstance(value, int):
            info.n_ctx, info.n_ctx_source = value, "/api/show (trained context; Precis sets num_ctx)"
    for line in str(show.get("modelfile", "")).splitlines():
        path = line[5:].strip() if line.startswith("FROM ") else ""
        if path and os.path.isfile(path):    # a server on this machine: its blob is the GGUF itself
            info.local_gguf = path
