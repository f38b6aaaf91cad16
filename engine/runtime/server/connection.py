"""HTTP to an OpenAI-compatible model server: JSON requests with bounded retries, and streamed replies
that a cancel closes at once.

The standard library's http.client is enough here and keeps control of the socket: a Stop must close
a stream that is waiting for a server still reading a long prompt, so a watcher thread shuts the
socket down when the cancel token is set, and the blocked read returns. TLS certificates are always
verified (ssl.create_default_context). The API key goes only into the Authorization header; nothing
here writes it anywhere, and ``ServerAddress.display`` drops credentials from the URL.
"""
from __future__ import annotations

import http.client
import json
import re
import socket
import ssl
import threading
import time
from dataclasses import dataclass
from typing import Iterator
from urllib.parse import urlsplit, urlunsplit

from precis.engine.errors import BadInput, Cancelled, ServerContextShort, ServerError
from precis.engine.runtime.protocol import CancelToken

RETRY_STATUSES = (429, 500, 502, 503, 504)
# A server restarting refuses or drops connections for a moment; a timeout is not retried (it already waited).
RETRY_ERRORS = (ConnectionRefusedError, ConnectionResetError, http.client.RemoteDisconnected)
MAX_ATTEMPTS = 4                     # one call and three retries: about 7 s of backoff in all
BACKOFF_SECONDS = (1.0, 2.0, 4.0)
MAX_RETRY_AFTER_SECONDS = 30.0       # a server asking for a longer wait is treated as down
CONNECT_TIMEOUT_SECONDS = 10.0
# A reply's first byte can take long: a large prompt on a busy CPU server is read for minutes.
READ_TIMEOUT_SECONDS = 600.0
CANCEL_POLL_SECONDS = 0.1


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
    """One server, one API key. Safe to share between threads: every request opens its own socket."""

    def __init__(self, address: ServerAddress, api_key: str | None = None, *,
                 read_timeout: float = READ_TIMEOUT_SECONDS, connect_timeout: float = CONNECT_TIMEOUT_SECONDS,
                 backoff: tuple[float, ...] = BACKOFF_SECONDS) -> None:
        self.address = address
        self._api_key = api_key or None
        self.read_timeout = read_timeout
        self.connect_timeout = connect_timeout
        self.backoff = backoff
        self.retries = 0                 # retried requests so far (429, 5xx, refused connections)

    @property
    def has_key(self) -> bool:
        return self._api_key is not None

    # ----- plumbing ---------------------------------------------------------------------------------
    def _open(self, timeout: float) -> http.client.HTTPConnection:
        a = self.address
        if a.scheme == "https":
            return http.client.HTTPSConnection(a.host, a.port, timeout=timeout, context=ssl.create_default_context())
        return http.client.HTTPConnection(a.host, a.port, timeout=timeout)

    def _headers(self, body: bytes | None) -> dict:
        headers = {"Accept": "application/json, text/event-stream", "User-Agent": "precis"}
        if body is not None:
            headers["Content-Type"] = "application/json"
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        return headers

    def _send(self, method: str, path: str, body: bytes | None, timeout: float, opened=None):
        conn = self._open(self.connect_timeout)
        if opened is not None:
            opened(conn)                 # the stream's cancel watcher can now close this socket
        try:
            conn.connect()
            conn.sock.settimeout(timeout)
            conn.request(method, path, body=body, headers=self._headers(body))
            return conn, conn.getresponse()
        except BaseException:
            conn.close()
            raise

    def _where(self, path: str) -> str:
        a = self.address
        return f"{a.scheme}://{a.host}:{a.port}{path}"

    def _transport_error(self, exc: Exception, path: str) -> ServerError:
        where = self._where(path)
        if isinstance(exc, ssl.SSLCertVerificationError):
            return ServerError(f"The server's TLS certificate could not be verified ({exc.verify_message}) at {where}. "
                               "Precis always verifies certificates: install the server's CA certificate, or use "
                               "http:// on a trusted network.")
        if isinstance(exc, (socket.timeout, TimeoutError)):
            return ServerError(f"The model server at {where} did not answer within {self.read_timeout:.0f} s. It may "
                               "be overloaded or the prompt too long for its hardware; finished rounds are kept.")
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

    def _with_retries(self, method: str, path: str, body: bytes | None, timeout: float, cancel: CancelToken | None,
                      opened=None, attempts: int = MAX_ATTEMPTS):
        """(connection, response) with a 2xx status; retries refused connections, 429 and 5xx."""
        for attempt in range(attempts):
            if cancel is not None and cancel.cancelled:
                raise Cancelled("Stopped by the user.")
            response = None
            try:
                conn, response = self._send(method, path, body, timeout, opened)
            except (OSError, http.client.HTTPException) as exc:
                if cancel is not None and cancel.cancelled:
                    raise Cancelled("Stopped by the user.") from exc
                error = self._transport_error(exc, path)
                retryable = isinstance(exc, RETRY_ERRORS)
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
            if delay > MAX_RETRY_AFTER_SECONDS:
                raise error
            self.retries += 1
            _sleep(delay, cancel)
        raise AssertionError("unreachable")

    # ----- what callers use -------------------------------------------------------------------------
    def get_json(self, endpoint: str, *, root: bool = False, retry: bool = True, timeout: float | None = None):
        return self._json("GET", endpoint, None, root=root, retry=retry, timeout=timeout)

    def post_json(self, endpoint: str, payload: dict, *, root: bool = False, retry: bool = True,
                  timeout: float | None = None):
        return self._json("POST", endpoint, json.dumps(payload).encode("utf-8"), root=root, retry=retry,
                          timeout=timeout)

    def _json(self, method, endpoint, body, *, root, retry, timeout):
        path = self.address.path(endpoint, root=root)
        conn, response = self._with_retries(method, path, body, timeout or self.read_timeout, None,
                                            attempts=MAX_ATTEMPTS if retry else 1)
        try:
            data = response.read()
        except (OSError, http.client.HTTPException) as exc:
            raise self._transport_error(exc, path) from exc
        finally:
            conn.close()
        try:
            return json.loads(data)
        except ValueError as exc:
            raise ServerError(f"{self._where(path)} answered with something that is not JSON "
                              f"({data[:80]!r}); is this an OpenAI-compatible server?") from exc

    def stream_lines(self, endpoint: str, payload: dict, cancel: CancelToken | None = None, *,
                     root: bool = False) -> Iterator[str]:
        """POST ``payload`` and yield the reply's lines as they arrive (SSE or NDJSON). A cancel closes
        the socket within CANCEL_POLL_SECONDS and raises Cancelled; a cut connection raises ServerError."""
        path = self.address.path(endpoint, root=root)
        done = threading.Event()
        current: list[http.client.HTTPConnection] = []
        if cancel is not None:
            # Watches from before the request is sent: a server still reading a long prompt sends no
            # header for minutes, and Stop must not wait for it.
            def watch() -> None:
                while not done.wait(CANCEL_POLL_SECONDS):
                    if cancel.cancelled:
                        if current:
                            _shutdown(current[-1])
                        return
            threading.Thread(target=watch, name="precis-stream-cancel", daemon=True).start()
        try:
            conn, response = self._with_retries("POST", path, json.dumps(payload).encode("utf-8"), self.read_timeout,
                                                cancel, current.append)
        except BaseException:
            done.set()
            raise
        try:
            while True:
                try:
                    line = response.readline()
                except (OSError, http.client.HTTPException, ValueError) as exc:
                    if cancel is not None and cancel.cancelled:
                        raise Cancelled("Stopped by the user.") from exc
                    raise self._transport_error(exc, path) from exc
                if not line:
                    if cancel is not None and cancel.cancelled:
                        raise Cancelled("Stopped by the user.")
                    return
                yield line.decode("utf-8", errors="replace").rstrip("\r\n")
        finally:
            done.set()
            conn.close()


def _shutdown(conn: http.client.HTTPConnection) -> None:
    sock = conn.sock
    if sock is not None:
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


def _sleep(seconds: float, cancel: CancelToken | None) -> None:
    end = time.monotonic() + seconds
    while (left := end - time.monotonic()) > 0:
        if cancel is not None and cancel.cancelled:
            raise Cancelled("Stopped by the user.")
        time.sleep(min(left, CANCEL_POLL_SECONDS))
