"""A run request's model server: its settings, the key from the environment, the connection."""
from __future__ import annotations

import os
from dataclasses import dataclass

from precis.engine.runtime.server.runtime import API_KEY_VARIABLE, ServerRuntime, ServerSettings
from precis.models.session.request import RunRequest


def server_settings_of(request: RunRequest) -> ServerSettings:
    return ServerSettings(request.server, request.server_model, request.n_ctx, key_env=request.server_key_env)


def api_key(variable: str = API_KEY_VARIABLE) -> str | None:
    """The key from the environment (PRECIS_API_KEY unless the request names another variable): read
    when connecting, never saved with a run, a checkpoint or the window's settings."""
    return os.environ.get(variable or API_KEY_VARIABLE) or None


def connect_with(settings: ServerSettings) -> ServerRuntime:
    return ServerRuntime.connect(settings, api_key(settings.key_env))


def connect(request: RunRequest) -> ServerRuntime:
    return connect_with(server_settings_of(request))


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


def probe_server(url: str, model: str = "", key_env: str = API_KEY_VARIABLE) -> ServerProbe:
    """Connect, describe, disconnect (for the window's Model server dialog, on a worker thread)."""
    runtime = connect_with(ServerSettings(url, model, key_env=key_env))
    try:
        info = runtime.info
        return ServerProbe(info.url, info.kind, list(info.models), info.model, runtime.n_ctx, bool(info.n_ctx),
                           runtime.n_ctx_note,
                           runtime.token_source, info.slots, key_env, api_key(key_env) is not None)
    finally:
        runtime.close()
