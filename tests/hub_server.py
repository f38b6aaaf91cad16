"""A local HTTP server speaking the part of the Hugging Face Hub API that huggingface-hub uses:
model search, model info with file metadata, and file resolution (HEAD + GET with Range).
Scriptable failures: cut a download after N bytes once, lie about a file's size, 404s, and silence: the
connection accepted and the request read, then nothing sent until the server stops."""
from __future__ import annotations

import hashlib
import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, unquote, urlparse

COMMIT = "0123456789abcdef0123456789abcdef01234567"


@dataclass
class HubState:
    repos: dict = field(default_factory=dict)          # repo_id -> {"downloads": int, "files": {name: bytes}}
    cut_after: dict = field(default_factory=dict)      # filename -> bytes to send before dropping, once
    listed_size: dict = field(default_factory=dict)    # filename -> size the API claims (a lie)
    requests: list = field(default_factory=list)       # (method, path, Range header)
    silent: bool = False                               # read each request, never answer it
    stopped: threading.Event = field(default_factory=threading.Event)


class _Handler(BaseHTTPRequestHandler):
    state: HubState

    def log_message(self, *args):  # quiet
        pass

    def _json(self, data, status=200):
        body = json.dumps(data).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _not_found(self, code="EntryNotFound"):
        body = json.dumps({"error": "not found"}).encode()
        self.send_response(404)
        self.send_header("X-Error-Code", code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def do_GET(self):  # noqa: N802 - http.server API
        self._handle()

    def do_HEAD(self):  # noqa: N802
        self._handle()

    def _handle(self):
        url = urlparse(self.path)
        path = unquote(url.path)
        self.state.requests.append((self.command, path, self.headers.get("Range")))
        if self.state.silent:
            self.state.stopped.wait()
            self.close_connection = True
            return
        if path == "/api/models":
            q = parse_qs(url.query)
            term = (q.get("search") or [""])[0].lower()
            limit = int((q.get("limit") or ["100"])[0])
            hits = [{"id": rid, "downloads": r["downloads"], "likes": 0, "tags": ["gguf"]}
                    for rid, r in self.state.repos.items() if term in rid.lower()]
            return self._json(sorted(hits, key=lambda h: -h["downloads"])[:limit])
        if path.startswith("/api/models/"):
            repo_id = path[len("/api/models/"):].split("/revision/")[0]
            repo = self.state.repos.get(repo_id)
            if repo is None:
                return self._not_found("RepoNotFound")
            siblings = []
            for name, data in repo["files"].items():
                size = self.state.listed_size.get(name, len(data))
                siblings.append({"rfilename": name, "size": size,
                                 "lfs": {"sha256": hashlib.sha256(data).hexdigest(), "size": size, "pointerSize": 134}})
            return self._json({"id": repo_id, "modelId": repo_id, "sha": COMMIT, "siblings": siblings,
                               "downloads": repo["downloads"], "tags": ["gguf"], "private": False})
        if "/resolve/" in path:
            repo_id, rest = path.lstrip("/").split("/resolve/", 1)
            filename = rest.split("/", 1)[1]
            repo = self.state.repos.get(repo_id)
            if repo is None or filename not in repo["files"]:
                return self._not_found()
            return self._file(repo["files"][filename], filename)
        self._not_found()

    def _file(self, data: bytes, filename: str):
        etag = hashlib.sha256(data).hexdigest()
        start = 0
        rng = self.headers.get("Range")
        if rng and rng.startswith("bytes="):
            start = int(rng[6:].split("-")[0] or 0)
        body = data[start:]
        self.send_response(206 if start else 200)
        self.send_header("X-Repo-Commit", COMMIT)
        self.send_header("ETag", f'"{etag}"')
        self.send_header("X-Linked-Etag", f'"{etag}"')
        self.send_header("X-Linked-Size", str(len(data)))
        self.send_header("Accept-Ranges", "bytes")
        self.send_header("Content-Length", str(len(body)))
        if start:
            self.send_header("Content-Range", f"bytes {start}-{len(data) - 1}/{len(data)}")
        self.end_headers()
        if self.command == "HEAD":
            return
        cut = self.state.cut_after.pop(filename, None)
        if cut is not None:
            for i in range(0, cut, 2**20):     # in pieces, as a network delivers it
                self.wfile.write(body[i:min(cut, i + 2**20)])
            self.wfile.flush()
            self.close_connection = True
            self.connection.shutdown(2)   # the network dropped mid-transfer
            return
        self.wfile.write(body)


class HubServer:
    def __init__(self) -> None:
        self.state = HubState()
        handler = type("Handler", (_Handler,), {"state": self.state})
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self) -> "HubServer":
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.state.stopped.set()        # silent handlers end, so no thread outlives the server
        self.httpd.shutdown()
        self.httpd.server_close()
