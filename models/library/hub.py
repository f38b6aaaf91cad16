"""Hugging Face Hub: search GGUF repositories, list their GGUF files with a fits badge, download well.

Downloads use huggingface-hub's URL resolution, redirects, auth headers and in-call retries, into
Precis's models folder (<models>/<owner>/<repo>/<file>). Before: the free disk space is checked.
After: the size, and the sha256 when the Hub gives one, are verified. Cancel keeps the partial file,
so the next download of the same file resumes. The endpoint comes from PRECIS_HF_ENDPOINT or
HF_ENDPOINT (tests point it at a local server speaking the same HTTP).
"""
from __future__ import annotations

import hashlib
import os
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

from precis.engine.errors import BadInput, Cancelled, PrecisError
from precis.engine.planning.memory_plan import SAFE_FRACTION, available_ram_bytes
from precis.engine.storage.paths import models_dir

_QUANT = re.compile(r"(?<![A-Za-z0-9])(IQ\d_[A-Z]+|Q\d_K(?:_[SML])?|Q\d_\d|Q\d_K|BF16|F16|F32|Q8_0|TQ\d_\d)"
                    r"(?![A-Za-z0-9])", re.I)
# Beyond the weights, a model needs a KV cache, compute buffers and the app: a rough allowance for the
# badge before the header is read (the memory plan replaces it once the file is here).
RUNTIME_ALLOWANCE_BYTES = 768 * 2**20


class HubError(PrecisError):
    """The Hub could not be reached or answered with an error; local models keep working."""
    exit_code = 4


@dataclass(frozen=True)
class HubRepo:
    repo_id: str
    downloads: int
    likes: int


@dataclass(frozen=True)
class HubFile:
    repo_id: str
    filename: str
    size_bytes: int
    sha256: str | None
    quantization: str
    badge: str                  # "fits", "tight", "won't fit" on this machine (weights + allowance)


def endpoint() -> str | None:
    return os.environ.get("PRECIS_HF_ENDPOINT") or os.environ.get("HF_ENDPOINT") or None


# One HTTP client configuration for every Hub call. huggingface-hub 2.4's own client has no timeout at
# all: against a server that accepts the connection and never answers, `precis models search` hung
# (15 minutes observed). Connect fails fast; a read that stalls this long fails and is retried.
RETRIES = 2                       # after the first try, on timeouts, dropped connections, 429 and 5xx
RETRY_BACKOFF_S = 1.0
MIN_TRY_S = 0.5                   # a try with less time than this left is not started
_configured_for: tuple[float, float] | None = None


def timeouts() -> tuple[float, float]:
    """(connect, read) seconds; PRECIS_HUB_CONNECT_TIMEOUT / PRECIS_HUB_READ_TIMEOUT change them."""
    return (float(os.environ.get("PRECIS_HUB_CONNECT_TIMEOUT", "5")),
            float(os.environ.get("PRECIS_HUB_READ_TIMEOUT", "30")))


def search_budget_s() -> float:
    """All a search may take, in seconds, tries and waits between them included; PRECIS_HUB_SEARCH_TIMEOUT
    changes it. A person is waiting at a prompt or in the download dialog, and three tries of the read
    timeout kept them waiting 94 s against a Hub that accepted the connection and never answered. Downloads
    keep the full retries: they resume, and their wait is shown as progress."""
    return float(os.environ.get("PRECIS_HUB_SEARCH_TIMEOUT", "30"))


def _configure_http() -> None:
    global _configured_for
    connect, read = timeouts()
    if _configured_for == (connect, read):
        return
    import httpx2
    from huggingface_hub import constants, set_client_factory
    from huggingface_hub.utils._http import hf_request_event_hook

    # huggingface-hub 2.4 also fetches an "agent harness" registry from huggingface.co to build its
    # user agent (telemetry), whatever endpoint is set: Precis sends nothing it does not need to.
    constants.HF_HUB_DISABLE_TELEMETRY = True
    limits = httpx2.Timeout(read, connect=connect)

    class TimeoutTransport(httpx2.HTTPTransport):
        """Some huggingface-hub calls pass timeout=None per request (pagination): never wait forever."""

        def handle_request(self, request):
            asked = request.extensions.get("timeout") or {}
            request.extensions["timeout"] = {k: asked.get(k) or v for k, v in limits.as_dict().items()}
            return super().handle_request(request)

    def factory():
        return httpx2.Client(event_hooks={"request": [hf_request_event_hook]}, follow_redirects=True,
                             timeout=limits, transport=TimeoutTransport())
    set_client_factory(factory)
    _configured_for = (connect, read)


def _api():
    _check_reachable()
    _configure_http()
    from huggingface_hub import HfApi
    return HfApi(endpoint=endpoint())


def _with_retries(call, what: str, deadline: float | None = None):
    """``call()``, retried a bounded number of times on timeouts, dropped connections, 429 and 5xx; with a
    ``deadline`` (time.monotonic()), no try or wait starts that would end after it, and ``call`` is given the
    seconds left so that its own timeout ends there too."""
    import time

    import httpx2
    from huggingface_hub.errors import HfHubHTTPError
    for attempt in range(RETRIES + 1):
        try:
            return call() if deadline is None else call(deadline - time.monotonic())
        except (httpx2.TimeoutException, httpx2.NetworkError, HfHubHTTPError) as exc:
            status = getattr(getattr(exc, "response", None), "status_code", 0) or 0
            transient = not isinstance(exc, HfHubHTTPError) or status == 429 or status >= 500
            backoff_s = RETRY_BACKOFF_S * 2 ** attempt
            out_of_time = deadline is not None and time.monotonic() + backoff_s >= deadline - MIN_TRY_S
            if not transient or attempt == RETRIES or out_of_time:
                raise _explain(exc, what, deadline is not None) from exc
            time.sleep(backoff_s)
        except HubError:
            raise
        except Exception as exc:  # other errors of several libraries: each gets a clear message
            raise _explain(exc, what) from exc


def _check_reachable(timeout_s: float = 3.0) -> None:
    """Fail fast offline: huggingface-hub retries refused connections with backoff for ~45 s (measured)."""
    import socket
    from urllib.parse import urlparse
    url = urlparse(endpoint() or "https://huggingface.co")
    port = url.port or (443 if url.scheme == "https" else 80)
    try:
        socket.create_connection((url.hostname, port), timeout=timeout_s).close()
    except OSError as exc:
        raise HubError(f"The Hugging Face Hub ({url.hostname}) cannot be reached (no network?): {exc.strerror or exc}. "
                       "Your local models keep working; try again when online.") from exc


def _explain(exc: Exception, what: str, within_budget: bool = False) -> HubError:
    import httpx2 as httpx  # huggingface-hub 2.x's HTTP client
    from huggingface_hub.errors import EntryNotFoundError, HfHubHTTPError, RepositoryNotFoundError
    if isinstance(exc, (RepositoryNotFoundError, EntryNotFoundError)) or \
            isinstance(exc, HfHubHTTPError) and getattr(exc.response, "status_code", 0) == 404:
        return HubError(f"{what}: not found on the Hub (check the repository and file name).")
    if isinstance(exc, httpx.TimeoutException) and not isinstance(exc, httpx.ConnectTimeout):
        waited = (f"within {search_budget_s():g} s, so the search gave up" if within_budget else
                  f"within {timeouts()[1]:g} s ({RETRIES + 1} tries)")
        return HubError(f"{what}: the Hugging Face Hub did not answer {waited}. Your local models keep working; "
                        "try again later.")
    if isinstance(exc, (httpx.ConnectError, httpx.TimeoutException, httpx.NetworkError, OSError)):
        return HubError(f"{what}: the Hugging Face Hub cannot be reached (no network?). Your local models keep "
                        "working; try again when online.")
    status = getattr(getattr(exc, "response", None), "status_code", None)
    return HubError(f"{what}: the Hub answered with an error{f' (HTTP {status})' if status else ''}: {exc}.")


def search(query: str, limit: int = 20) -> list[HubRepo]:
    """GGUF repositories matching ``query``, most downloaded first, or a HubError within search_budget_s().
    One page of the Hub's model search, asked directly: huggingface-hub's paginated listing retries a
    silent server for half a minute on its own, under the bounded retries here."""
    import time
    deadline = time.monotonic() + search_budget_s()
    api = _api()

    def call(left_s: float):
        import httpx2
        from huggingface_hub.utils import build_hf_headers, get_session, hf_raise_for_status
        connect_s, read_s = timeouts()
        left_s = max(MIN_TRY_S, left_s)
        response = get_session().get(f"{api.endpoint}/api/models", headers=build_hf_headers(),
                                     params={"search": query, "filter": "gguf", "sort": "downloads",
                                             "direction": -1, "limit": limit},
                                     timeout=httpx2.Timeout(min(read_s, left_s), connect=min(connect_s, left_s)))
        hf_raise_for_status(response)
        return [HubRepo(m["id"], int(m.get("downloads") or 0), int(m.get("likes") or 0)) for m in response.json()]
    return _with_retries(call, f"Searching for {query!r}", deadline)


def quantization_of(filename: str) -> str:
    m = _QUANT.search(filename)
    return m.group(1).upper() if m else "?"


def badge_for(size_bytes: int, available: int | None = None) -> str:
    available = available_ram_bytes() if available is None else available
    need = size_bytes + RUNTIME_ALLOWANCE_BYTES
    return "fits" if need <= SAFE_FRACTION * available else "tight" if need <= available else "won't fit"


def list_files(repo_id: str, what: str = "") -> list[HubFile]:
    api = _api()
    info = _with_retries(lambda: api.model_info(repo_id, files_metadata=True),
                         what or f"Listing the files of {repo_id}")
    available = available_ram_bytes()
    files = []
    for s in info.siblings or []:
        if not s.rfilename.lower().endswith(".gguf"):
            continue
        size = int(s.size or (s.lfs.size if s.lfs else 0) or 0)
        sha = s.lfs.sha256 if s.lfs else None
        files.append(HubFile(repo_id, s.rfilename, size, sha, quantization_of(s.rfilename), badge_for(size, available)))
    return sorted(files, key=lambda f: f.size_bytes)


def target_dir(repo_id: str) -> Path:
    return models_dir() / repo_id


def download(repo_id: str, filename: str, progress=None, cancel=None) -> Path:
    """Download one GGUF into the models folder; ``progress(done_bytes, total_bytes)``; ``cancel.cancelled``
    stops it. The partial file stays (<models>/<repo>/.partial/), and the next download of the same
    file (same etag) continues from where it stopped. Returns the verified file's path.

    huggingface-hub resolves the URL, follows redirects, sends auth headers and retries dropped
    connections within one call, but since 2.x deletes its temporary file when a call fails; the
    partial file is kept here so a cancelled or failed download resumes in a later session too.
    """
    _configure_http()
    from huggingface_hub import get_hf_file_metadata, hf_hub_url
    from huggingface_hub.file_download import http_get
    from huggingface_hub.utils import build_hf_headers
    from huggingface_hub.utils import tqdm as base_tqdm
    files = {f.filename: f for f in list_files(repo_id, f"Downloading {filename}")}
    if filename not in files:
        raise HubError(f"{repo_id} has no GGUF file named {filename!r}. Files: {', '.join(sorted(files)) or 'none'}.")
    expected = files[filename]
    dest = target_dir(repo_id)
    final = dest / filename
    try:
        url = hf_hub_url(repo_id, filename, endpoint=endpoint())
        meta = get_hf_file_metadata(url, endpoint=endpoint())
    except Exception as exc:
        raise _explain(exc, f"Downloading {filename}") from exc
    etag = (meta.etag or expected.sha256 or "noetag").strip('"')
    partial = dest / ".partial" / f"{Path(filename).name}.{etag[:16]}.part"
    partial.parent.mkdir(parents=True, exist_ok=True)
    have = partial.stat().st_size if partial.exists() else 0
    total = meta.size or expected.size_bytes
    free = shutil.disk_usage(dest).free
    if total - have > free:
        raise BadInput(f"{filename} needs {(total - have) / 2**30:,.1f} GiB more and only {free / 2**30:,.1f} GiB are "
                       f"free in {dest}. Free some space or choose a smaller quantization.")

    class _Progress(base_tqdm):
        def __init__(self, *args, **kwargs):
            self._seen = kwargs.get("initial") or 0
            kwargs["disable"] = True
            super().__init__(*args, **kwargs)

        def update(self, n=1):
            if cancel is not None and cancel.cancelled:
                raise Cancelled(f"Download of {filename} stopped; it resumes where it stopped next time.")
            self._seen += n or 0
            if progress is not None:
                progress(self._seen, total)
            return super().update(n)

    try:
        with partial.open("ab") as fh:
            if have < total:
                http_get(meta.location or url, fh, resume_size=have, headers=build_hf_headers(),
                         expected_size=total, displayed_filename=filename, tqdm_class=_Progress)
    except Cancelled:
        raise
    except Exception as exc:
        raise _explain(exc, f"Downloading {filename} (the part already downloaded is kept)") from exc
    _verify(partial, expected)
    final.parent.mkdir(parents=True, exist_ok=True)
    os.replace(partial, final)
    if progress is not None:
        progress(total, total)
    return final


def partial_bytes(repo_id: str, filename: str) -> int:
    folder = target_dir(repo_id) / ".partial"
    return sum(p.stat().st_size for p in folder.glob(f"{Path(filename).name}.*.part")) if folder.is_dir() else 0


def _verify(path: Path, expected: HubFile) -> None:
    size = path.stat().st_size
    if expected.size_bytes and size != expected.size_bytes:
        path.unlink(missing_ok=True)
        raise HubError(f"{expected.filename}: downloaded {size:,} bytes, the Hub says {expected.size_bytes:,}. "
                       "The file was removed; download it again.")
    if expected.sha256:
        h = hashlib.sha256()
        with path.open("rb") as fh:
            for block in iter(lambda: fh.read(8 * 2**20), b""):
                h.update(block)
        if h.hexdigest() != expected.sha256:
            path.unlink(missing_ok=True)
            raise HubError(f"{expected.filename}: the sha256 does not match the Hub's. The file was removed; "
                           "download it again.")
