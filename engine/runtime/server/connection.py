"""HTTP to an OpenAI-compatible model server: JSON requests with bounded retries, and streamed replies
that a cancel closes at once.

The standard library's http.client is enough here and keeps control of the socket: every request,
from the connect on, runs under a ``Watch`` (waits.py) that shuts the socket down when the cancel token
is set or the phase's time is up, so no wait outlasts its phase or a Stop. TLS certificates are always
verified (ssl.create_default_context). The API key goes only into the Authorization header; nothing
here writes it anywhere, and ``ServerAddress.display`` drops credentials from the URL.
"""
from __future__ import annotations

import http.client
import json
import re
import socket
import ssl
import time
from dataclasses import dataclass
from typing import Iterator
from urllib.parse import urlsplit, urlunsplit

from precis.engine.errors import BadInput, Cancelled, ServerContextShort, ServerError
from precis.engine.runtime.protocol import CancelToken
from precis.engine.runtime.server.waits import (
    CANCEL_POLL_SECONDS,
    CONNECT_TIMEOUT_SECONDS,
    FIRST_TOKEN,
    READ_TIMEOUT_SECONDS,
    ConnectTimeout,
    ServerSilent,
    Watch,
    phase_timeout,
)

RETRY_STATUSES = (429, 500, 502, 503, 504)
# A server restarting refuses or drops connections for a moment; a timeout is not retried (it already waited).
RETRY_ERRORS = (ConnectionRefusedError, ConnectionResetError, http.client.RemoteDisconnected)
MAX_ATTEMPTS = 4                     # one call and three retries: about 7 s of backoff in all
BACKOFF_SECONDS = (1.0, 2.0, 4.0)
MAX_RETRY_AFTER_SECONDS = 30.0       # a server asking for a longer wait is treated as down


@dataclass(frozen=True)
class ServerAddress:
    """The OpenAI-compatible base URL, split. ``root`` is the server itself (``/v1`` removed), where
    llama.cpp, Ollama and LM Studio keep their own endpoints."""
    scheme: str
    host: str
    port: int
    base_path: str                   # "/v1" for http://host:8080/v1
    display: str                     # the URL without user, password, query or fragment

    @classmethod
    def parse(cls, url: str) -> "ServerAddress":
        parts = urlsplit(url.strip())
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise BadInput(f"--server needs an http:// or https:// URL, such as http://127.0.0.1:8080/v1, not {url!r}.")
        try:
            port = parts.port or (443 if parts.scheme == "https" else 80)
        except ValueError as exc:
            raise BadInput(f"The server URL {url!r} has an invalid port.") from exc
        base = parts.path.rstrip("/")
        host = parts.hostname if ":" not in parts.hostname else f"[{parts.hostname}]"
        netloc = host if parts.port is None else f"{host}:{parts.port}"
        return cls(parts.scheme, parts.hostname, port, base, urlunsplit((parts.scheme, netloc, base, "", "")))

    @property
    def root_path(self) -> str:
        return self.base_path[:-3] if self.base_path.endswith("/v1") else self.base_path

    def path(self, endpoint: str, *, root: bool = False) -> str:
        return (self.root_path if root else self.base_path) + endpoint


def server_message(body: bytes) -> str:
    """The error text a server put in its reply body (OpenAI, FastAPI, llama.cpp and Ollama shapes)."""
    text = body.decode("utf-8", errors="replace").strip()
    try:
        data = json.loads(text)
    except ValueError:
        return text[:300]
    if isinstance(data, dict):
        error = data.get("error", data.get("detail", data.get("message")))
        if isinstance(error, dict):
            error = error.get("message") or json.dumps(error)
        if isinstance(error, list):      # FastAPI's validation errors
            error = "; ".join(str(e.get("msg", e)) if isinstance(e, dict) else str(e) for e in error)
        if error:
            return str(error)[:500]
    return text[:300]


_CONTEXT_PATTERNS = (
    re.compile(r"maximum context length is (\d+)", re.I),                  # vLLM, OpenAI
    re.compile(r"available context size \((\d+) tokens?\)", re.I),         # llama.cpp server
    re.compile(r"exceed context window of (\d+)", re.I),                   # llama-cpp-python
    re.compile(r"context (?:length|size|window)[^\d]{0,20}(\d+)", re.I),
)
_CONTEXT_WORDS = re.compile(r"context (length|size|window)|too (long|many tokens)|exceeds? .{0,30}context", re.I)


def context_rejection(status: int, message: str) -> ServerContextShort | None:
    """A rejection for length, with the context the server named (None: not a length problem)."""
    if status not in (400, 413, 422, 500) or not _CONTEXT_WORDS.search(message):
        return None
    n_ctx = None
    for pattern in _CONTEXT_PATTERNS:
        match = pattern.search(message)
        if match:
            n_ctx = int(match.group(1))
            break
    return ServerContextShort(f"The server refused the prompt as too long for its context ({message}).", n_ctx)


class Connection:
    """One server, one API key. Safe to share between threads: every request opens its own socket.
    ``cancel`` ends any request of this connection (the run's token); a stream may bring its own."""

    def __init__(self, address: ServerAddress, api_key: str | None = None, *,
                 read_timeout_s: float = READ_TIMEOUT_SECONDS, connect_timeout_s: float = CONNECT_TIMEOUT_SECONDS,
                 backoff: tuple[float, ...] = BACKOFF_SECONDS, cancel: CancelToken | None = None) -> None:
        self.address = address
        self._api_key = api_key or None
        self.read_timeout_s = read_timeout_s
        self.connect_timeout_s = connect_timeout_s
        self.backoff = backoff
        self.cancel = cancel
        self.retries = 0                 # retried requests so far (429, 5xx, refused connections)

    @property
    def has_key(self) -> bool:
        return self._api_key is not None

    def deadline(self, phase: str) -> float:
        """When a phase that starts now must be over (time.monotonic)."""
        return time.monotonic() + phase_timeout(phase, self.read_timeout_s)

    # ----- plumbing ---------------------------------------------------------------------------------
    def _open(self, timeout_s: float) -> http.client.HTTPConnection:
        a = self.address
        if a.scheme == "https":
            return http.client.HTTPSConnection(a.host, a.port, timeout=timeout_s,
                                               context=ssl.create_default_context())
        return http.client.HTTPConnection(a.host, a.port, timeout=timeout_s)

    def _headers(self, body: bytes | None) -> dict:
        headers = {"Accept": "application/json, text/event-stream", "User-Agent": "precis"}
        if body is not None:
            headers["Content-Type"] = "application/json"
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        return headers

    def _send(self, method: str, path: str, body: bytes | None, timeout_s: float, watch: Watch):
        # Never 0: a zero timeout would make the socket non-blocking (the watch ends an expired wait anyway).
        conn = self._open(max(CANCEL_POLL_SECONDS, watch.left_s(self.connect_timeout_s)))
        conn._create_connection = watch.connector()     # a connect that Stop and the deadline can end
        try:
            conn.connect()
            watch.watch(conn.sock)                       # the TLS socket, when there is one
            conn.sock.settimeout(max(CANCEL_POLL_SECONDS, watch.left_s(timeout_s)))
            conn.request(method, path, body=body, headers=self._headers(body))
            return conn, conn.getresponse()
        except BaseException:
            conn.close()
            raise

    def _where(self, path: str) -> str:
        a = self.address
        return f"{a.scheme}://{a.host}:{a.port}{path}"

    def _transport_error(self, exc: Exception, method: str, path: str, phase: str, watch: Watch,
                         timeout_s: float) -> ServerError:
        where = self._where(path)
        if isinstance(exc, ssl.SSLCertVerificationError):
            return ServerError(f"The server's TLS certificate could not be verified ({exc.verify_message}) at {where}. "
                               "Precis always verifies certificates: install the server's CA certificate, or use "
                               "http:// on a trusted network.")
        if isinstance(exc, ConnectTimeout):
            return ServerError(f"Could not connect to the model server at {where} ({exc.strerror}; {phase}). Is "
                               "the host up, and does a firewall let the port through?")
        if isinstance(exc, (socket.timeout, TimeoutError)) or watch.expired:
            return ServerSilent(phase, self.address.display, timeout_s, f"{method} {path}")
        if isinstance(exc, ConnectionRefusedError):
            return ServerError(f"Could not connect to the model server at {where} (connection refused). Is it "
                               "running, and is the port right?")
        if isinstance(exc, socket.gaierror):
            return ServerError(f"The model server's host {self.address.host!r} could not be found ({exc.strerror}).")
        return ServerError(f"The connection to the model server at {where} failed ({exc}).")

    def _status_error(self, status: int, body: bytes, path: str) -> ServerError:
        message = server_message(body)
        short = context_rejection(status, message)
        if short is not None:
            return short
        where = self._where(path)
        if status in (401, 403):
            hint = ("Set PRECIS_API_KEY to the server's API key." if not self._api_key else
                    "The key in PRECIS_API_KEY was refused: check it, and that it may use this model.")
            return ServerError(f"The model server refused access (HTTP {status}: {message}). {hint}")
        if status == 404:
            if "model" in message.lower() and not path.endswith("/models"):
                return ServerError(f"The model server does not have that model (HTTP 404: {message}). "
                                   "`precis models server URL` lists the ones it serves; pick one with --server-model.")
            return ServerError(f"{where} was not found (HTTP 404). Is the URL the OpenAI-compatible base, such as "
                               "http://127.0.0.1:8080/v1 (llama.cpp, vLLM, LM Studio) or http://127.0.0.1:11434/v1 "
                               "(Ollama)?")
        if status in RETRY_STATUSES:
            return ServerError(f"The model server kept failing (HTTP {status}: {message}) after {MAX_ATTEMPTS} "
                               "attempts. Finished rounds are kept; try again when the server is healthy.")
        return ServerError(f"The model server refused the request (HTTP {status}: {message}).")

    def _retry_delay(self, attempt: int, response) -> float:
        delay = self.backoff[min(attempt, len(self.backoff) - 1)] if self.backoff else 0.0
        retry_after = response.getheader("Retry-After") if response is not None else None
        if retry_after and retry_after.strip().isdigit():
            delay = max(delay, float(retry_after))
        return delay

    def _with_retries(self, method: str, path: str, body: bytes | None, timeout_s: float, watch: Watch,
                      phase: str, attempts: int = MAX_ATTEMPTS, waited_s: float | None = None):
        """(connection, response) with a 2xx status; retries refused connections, 429 and 5xx while the
        phase's deadline (if any) leaves time for the wait."""
        for attempt in range(attempts):
            watch.check()
            response = None
            try:
                if watch.expired:
                    raise TimeoutError("the phase's time is up")
                conn, response = self._send(method, path, body, timeout_s, watch)
            except (OSError, http.client.HTTPException) as exc:
                watch.check()
                error = self._transport_error(exc, method, path, phase, watch, waited_s or timeout_s)
                retryable = isinstance(exc, RETRY_ERRORS) and not watch.expired
            else:
                if 200 <= response.status < 300:
                    return conn, response
                payload = response.read()
                conn.close()
                error = self._status_error(response.status, payload, path)
                retryable = response.status in RETRY_STATUSES and not isinstance(error, ServerContextShort)
            if not retryable or attempt == attempts - 1:
                raise error
            delay = self._retry_delay(attempt, response)
            if delay > MAX_RETRY_AFTER_SECONDS or watch.left_s(delay) < delay:
                raise error              # waiting would outlast the server's patience or the phase
            self.retries += 1
            _sleep(delay, watch.cancel)
        raise AssertionError("unreachable")

    # ----- what callers use -------------------------------------------------------------------------
    def get_json(self, endpoint: str, *, phase: str, root: bool = False, retry: bool = True,
                 deadline: float | None = None):
        return self._json("GET", endpoint, None, phase=phase, root=root, retry=retry, deadline=deadline)

    def post_json(self, endpoint: str, payload: dict, *, phase: str, root: bool = False, retry: bool = True,
                  deadline: float | None = None):
        return self._json("POST", endpoint, json.dumps(payload).encode("utf-8"), phase=phase, root=root, retry=retry,
                          deadline=deadline)

    def _json(self, method, endpoint, body, *, phase, root, retry, deadline):
        """One JSON request of ``phase``, over by ``deadline`` (default: the phase's time from now)."""
        path = self.address.path(endpoint, root=root)
        deadline = deadline if deadline is not None else self.deadline(phase)
        timeout_s = max(0.0, deadline - time.monotonic())
        # For messages: the phase's whole wait (a shared deadline has less left for its later requests).
        waited_s = phase_timeout(phase, self.read_timeout_s)
        with Watch(self.cancel, deadline) as watch:
            conn, response = self._with_retries(method, path, body, timeout_s, watch, phase,
                                                attempts=MAX_ATTEMPTS if retry else 1, waited_s=waited_s)
            try:
                data = response.read()
            except (OSError, http.client.HTTPException) as exc:
                watch.check()
                raise self._transport_error(exc, method, path, phase, watch, waited_s) from exc
            finally:
                conn.close()
            watch.check()
            if watch.expired:            # the watch cut a reply that was still trickling in
                raise ServerSilent(phase, self.address.display, waited_s, f"{method} {path}")
        try:
            return json.loads(data)
        except ValueError as exc:
            raise ServerError(f"{self._where(path)} answered with something that is not JSON "
                              f"({data[:80]!r}); is this an OpenAI-compatible server?") from exc

    def stream_lines(self, endpoint: str, payload: dict, cancel: CancelToken | None = None, *,
                     root: bool = False) -> Iterator[str]:
        """POST ``payload`` and yield the reply's lines as they arrive (SSE or NDJSON). A cancel closes
        the socket within CANCEL_POLL_SECONDS and raises Cancelled; a cut connection raises ServerError;
        silence longer than the read timeout (before the reply or within it) raises ServerSilent."""
        path = self.address.path(endpoint, root=root)
        timeout_s = self.read_timeout_s
        # Watches from before the request is sent: a server still reading a long prompt sends no header
        # for minutes, and Stop must not wait for it. No deadline: only silence ends a generation.
        with Watch(cancel or self.cancel) as watch:
            conn, response = self._with_retries("POST", path, json.dumps(payload).encode("utf-8"), timeout_s,
                                                watch, FIRST_TOKEN)
            try:
                while True:
                    try:
                        line = response.readline()
                    except (OSError, http.client.HTTPException, ValueError) as exc:
                        watch.check()
                        raise self._transport_error(exc, "POST", path, FIRST_TOKEN, watch, timeout_s) from exc
                    if not line:
                        watch.check()
                        return
                    yield line.decode("utf-8", errors="replace").rstrip("\r\n")
            finally:
                conn.close()


def _sleep(seconds: float, cancel: CancelToken | None) -> None:
    end = time.monotonic() + seconds
    while (left := end - time.monotonic()) > 0:
        if cancel is not None and cancel.cancelled:
            raise Cancelled("Stopped by the user.")
        time.sleep(min(left, CANCEL_POLL_SECONDS))
