"""A run request's model server: its settings, the key from the environment, the connection."""
from __future__ import annotations

import math
import os
from dataclasses import dataclass

from precis.engine.errors import BadInput
from precis.engine.runtime.protocol import CancelToken
from precis.engine.runtime.server.runtime import API_KEY_VARIABLE, ServerRuntime, ServerSettings
from precis.engine.runtime.server.waits import READ_TIMEOUT_SECONDS, READ_TIMEOUT_VARIABLE
from precis.models.session.request import RunRequest


def read_timeout_s() -> float:
    """Seconds of silence a generation may take (READ_TIMEOUT_VARIABLE, default READ_TIMEOUT_SECONDS).
    Every shorter wait (discovery, tokenize) is capped by it too, so one variable makes a slow server
    wait longer or a test finish sooner."""
    text = os.environ.get(READ_TIMEOUT_VARIABLE, "").strip()
    if not text:
        return READ_TIMEOUT_SECONDS
    try:
        seconds = float(text)
    except ValueError:
        seconds = 0.0
    if not 0 < seconds < math.inf:
        raise BadInput(f"{READ_TIMEOUT_VARIABLE} must be a number of seconds above 0, not {text!r}.")
    return seconds


def server_settings_of(request: RunRequest) -> ServerSettings:
    return ServerSettings(request.server, request.server_model, request.n_ctx, read_timeout_s(),
                          key_env=request.server_key_env)


def api_key(variable: str = API_KEY_VARIABLE) -> str | None:
    """The key from the environment (PRECIS_API_KEY unless the request names another variable): read
    when connecting, never saved with a run, a checkpoint or the window's settings."""
    return os.environ.get(variable or API_KEY_VARIABLE) or None


def connect_with(settings: ServerSettings, cancel: CancelToken | None = None) -> ServerRuntime:
    """``cancel``: the run's token; it ends discovery and every later request of this runtime."""
    return ServerRuntime.connect(settings, api_key(settings.key_env), cancel)


def connect(request: RunRequest, cancel: CancelToken | None = None) -> ServerRuntime:
    return connect_with(server_settings_of(request), cancel)


@dataclass(frozen=True)
class ServerProbe:
    """What the window shows about a server before a run: its models, context and token counts."""
    url: str
    kind: str
    models: list
    model: str
    n_ctx: int
    n_ctx_known: bool                 # False: the server does not say; n_ctx is an assumption
    n_ctx_note: str
    token_counts: str
    slots: int | None
    key_env: str
    key_set: bool


def probe_server(url: str, model: str = "", key_env: str = API_KEY_VARIABLE,
                 cancel: CancelToken | None = None) -> ServerProbe:
    """Connect, describe, disconnect (for the window's Model server dialog, on a worker thread). Bounded by
    discovery's deadline; ``cancel`` (the dialog closed) ends it at once."""
    runtime = connect_with(ServerSettings(url, model, read_timeout_s=read_timeout_s(), key_env=key_env), cancel)
    try:
        info = runtime.info
        return ServerProbe(info.url, info.kind, list(info.models), info.model, runtime.n_ctx, bool(info.n_ctx),
                           runtime.n_ctx_note,
                           runtime.token_source, info.slots, key_env, api_key(key_env) is not None)
    finally:
        runtime.close()
