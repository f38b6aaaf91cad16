"""How long Precis waits for a model server, phase by phase, and how a wait is ended from outside.

Every wait ends one of three ways: the server answers; the phase's time runs out (``ServerSilent``, a
message naming the phase and what to do); or the user stops (Ctrl-C, SIGTERM, the window's Stop), and
``Cancelled`` follows within CANCEL_POLL_SECONDS. A socket timeout alone can do neither of the last
two well: it cannot see a cancel, and a server that trickles a byte now and then restarts it forever.
So a ``Watch`` thread shuts the request's socket down when the cancel token is set or the phase's
deadline passes, and the blocked read returns at once.
"""
from __future__ import annotations

import errno
import os
import select
import socket
import threading
import time

from precis.engine.errors import Cancelled, ServerError
from precis.engine.runtime.protocol import CancelToken

DISCOVERY = "discovery"
TOKENIZE = "tokenize"
FIRST_TOKEN = "waiting for the first token"
MID_STREAM = "mid-stream"

# Discovery (/v1/models and the probes that follow) asks for a few bytes the server has at hand; a
# server that has not said what it serves within this, all requests together, is stuck or not one.
DISCOVERY_TIMEOUT_SECONDS = 8.0
# One tokenize, detokenize or apply-template request: a window of text on a busy CPU server takes
# seconds; a minute means the server is stuck, not slow.
TOKENIZE_TIMEOUT_SECONDS = 60.0
# Generation: the silence allowed before the first token and between two tokens. A large prompt on a
# busy CPU server is read for minutes before the first token comes.
READ_TIMEOUT_SECONDS = 600.0
# Where a person (or a test) sets another read timeout; the session layer reads it.
READ_TIMEOUT_VARIABLE = "PRECIS_SERVER_READ_TIMEOUT_S"
CONNECT_TIMEOUT_SECONDS = 10.0
CANCEL_POLL_SECONDS = 0.1

PHASE_TIMEOUT_SECONDS = {DISCOVERY: DISCOVERY_TIMEOUT_SECONDS, TOKENIZE: TOKENIZE_TIMEOUT_SECONDS}


def phase_timeout(phase: str, read_timeout_s: float) -> float:
    """No wait is longer than the read timeout: shrinking it (PRECIS_SERVER_READ_TIMEOUT_S, tests)
    shrinks every phase."""
    return min(PHASE_TIMEOUT_SECONDS.get(phase, read_timeout_s), read_timeout_s)


class ServerSilent(ServerError):
    """The server did not answer within the phase's time."""

    def __init__(self, phase: str, url: str, waited_s: float, what: str = "", tokens: int = 0) -> None:
        self.phase, self.url, self.waited_s, self.tokens = phase, url, waited_s, tokens
        super().__init__(silence_message(phase, url, waited_s, what, tokens))


def tokens_text(n: int) -> str:
    return f"{n} token" if n == 1 else f"{n} tokens"


def silence_message(phase: str, url: str, waited_s: float, what: str = "", tokens: int = 0) -> str:
    waited = f"{round(waited_s, 1):g} s"
    if phase == DISCOVERY:
        return (f"The model server at {url} did not finish discovery within {waited} (discovery: asking what it "
                f"serves, it hung on {what or 'a request'}; no prompt was sent). Check that the URL is the server's "
                f"OpenAI-compatible base and that the server is not stuck (`curl {url}/models` should answer at "
                "once); restart it if it hangs.")
    if phase == TOKENIZE:
        return (f"The model server at {url} did not answer {what or 'a tokenize request'} within {waited} "
                "(tokenize: counting or rendering a prompt, before any generation). The server seems stuck: "
                "restart it and run again.")
    if phase == MID_STREAM:
        return (f"The model server at {url} went silent for {waited} mid-stream, after {tokens_text(tokens)} of a "
                "reply. It may have crashed, run out of memory or lost the connection: check its log, restart "
                "it and run again to resume.")
    return (f"The model server at {url} sent no token within {waited} ({FIRST_TOKEN}: no reply had started; it "
            "was still reading the prompt, or stuck). It may be overloaded or the prompt too long for its "
            "hardware: use a smaller --n-ctx or a faster server, or allow a longer wait with "
            f"{READ_TIMEOUT_VARIABLE} (seconds; default {READ_TIMEOUT_SECONDS:.0f}).")


class Watch:
    """Ends one request's wait from another thread: shuts its sockets down once ``cancel`` is set or
    ``deadline`` (time.monotonic) passes. Use as a context manager around the whole request."""

    def __init__(self, cancel: CancelToken | None, deadline: float | None = None) -> None:
        self.cancel, self.deadline = cancel, deadline
        self._sockets: list[socket.socket] = []
        self._done = threading.Event()

    def __enter__(self) -> "Watch":
        if self.cancel is not None or self.deadline is not None:
            threading.Thread(target=self._run, name="precis-server-watch", daemon=True).start()
        return self

    def __exit__(self, *exc) -> None:
        self._done.set()

    @property
    def cancelled(self) -> bool:
        return self.cancel is not None and self.cancel.cancelled

    @property
    def expired(self) -> bool:
        return self.deadline is not None and time.monotonic() >= self.deadline

    def left_s(self, at_most: float) -> float:
        """The time left before the deadline (at most ``at_most``); ServerSilent raising is the caller's."""
        return at_most if self.deadline is None else max(0.0, min(at_most, self.deadline - time.monotonic()))

    def check(self) -> None:
        if self.cancelled:
            raise Cancelled("Stopped by the user.")

    def watch(self, sock: socket.socket | None) -> None:
        if sock is not None:
            self._sockets.append(sock)
            if self.cancelled or self.expired:
                _shutdown(sock)

    def _run(self) -> None:
        # Keeps going after the first shutdown: a socket opened just then (a retry) is shut down too.
        while not self._done.wait(CANCEL_POLL_SECONDS):
            if self.cancelled or self.expired:
                for sock in list(self._sockets):
                    _shutdown(sock)

    def connector(self):
        """A socket.create_connection for http.client that this watch can cancel: a host that drops
        packets keeps a blocking connect waiting for its whole timeout, deaf to Stop."""
        def create_connection(address, timeout=CONNECT_TIMEOUT_SECONDS, source_address=None):
            host, port = address
            timeout = timeout if isinstance(timeout, (int, float)) else CONNECT_TIMEOUT_SECONDS
            until = time.monotonic() + timeout
            error: OSError | None = None
            for family, kind, proto, _name, sockaddr in socket.getaddrinfo(host, port, 0, socket.SOCK_STREAM):
                sock = socket.socket(family, kind, proto)
                try:
                    self.watch(sock)                 # the TLS handshake that follows is a wait too
                    self._connect(sock, sockaddr, until, timeout)
                    sock.settimeout(timeout)
                    return sock
                except Cancelled:
                    sock.close()
                    raise
                except OSError as exc:
                    sock.close()
                    error = exc
            raise error or OSError(f"could not resolve {host}")
        return create_connection

    def _connect(self, sock: socket.socket, sockaddr, until: float, timeout_s: float) -> None:
        sock.setblocking(False)
        code = sock.connect_ex(sockaddr)
        if code not in (0, errno.EINPROGRESS, errno.EWOULDBLOCK):
            raise OSError(code, os.strerror(code))
        while code:
            self.check()
            left = until - time.monotonic()
            if left <= 0:
                raise ConnectTimeout(errno.ETIMEDOUT, f"no answer to the connection request within {timeout_s:.0f} s")
            _, writable, _ = select.select([], [sock], [], min(left, CANCEL_POLL_SECONDS))
            if writable:
                code = sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
                if code:
                    raise OSError(code, os.strerror(code))
                return


class ConnectTimeout(TimeoutError):
    """No connection within the connect timeout (a host that drops packets, not a silent server)."""


def _shutdown(sock: socket.socket) -> None:
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass
