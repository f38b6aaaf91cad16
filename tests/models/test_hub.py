"""Hub search and downloads against a local server that speaks the Hub's HTTP. No test touches the internet."""
from __future__ import annotations

import hashlib
import time

import pytest

from precis.engine.errors import Cancelled
from precis.engine.runtime.protocol import CancelToken
from precis.models.cli.main import main
from precis.models.library import hub
from precis.models.library.discovery import discover
from tests.gguf_builder import llama_like, write_gguf
from tests.hub_server import HubServer


@pytest.fixture
def server(tmp_path, monkeypatch):
    monkeypatch.setenv("PRECIS_TOOL_HOME", str(tmp_path / "user"))
    model = write_gguf(tmp_path / "m.gguf", *llama_like("qwen2", n_embd=512, n_vocab=4000))
    data = model.read_bytes()
    with HubServer() as s:
        s.state.repos["acme/Small-GGUF"] = {"downloads": 500, "files": {
            "small-Q4_K_M.gguf": data, "small-Q8_0.gguf": data + b"\0" * 64, "README.md": b"# readme"}}
        s.state.repos["acme/Popular-GGUF"] = {"downloads": 90_000, "files": {"popular-IQ4_XS.gguf": data}}
        s.state.repos["other/Unrelated"] = {"downloads": 10, "files": {}}
        monkeypatch.setenv("PRECIS_HF_ENDPOINT", s.url)
        s.data = data
        yield s


def test_search_sorted_by_downloads(server):
    assert [r.repo_id for r in hub.search("gguf")] == ["acme/Popular-GGUF", "acme/Small-GGUF"]
    assert [r.repo_id for r in hub.search("small")] == ["acme/Small-GGUF"]


def test_files_with_size_quantization_and_badge(server, capsys):
    files = hub.list_files("acme/Small-GGUF")
    assert [(f.filename, f.quantization, f.badge) for f in files] == [
        ("small-Q4_K_M.gguf", "Q4_K_M", "fits"), ("small-Q8_0.gguf", "Q8_0", "fits")]
    assert files[0].size_bytes == len(server.data) and files[0].sha256 == hashlib.sha256(server.data).hexdigest()
    assert hub.badge_for(64 * 2**30, available=16 * 2**30) == "won't fit"
    assert main(["models", "files", "acme/Small-GGUF"]) == 0
    assert "Q4_K_M   fits" in capsys.readouterr().out


def test_full_download_is_verified_and_then_listed(server, precis_home, capsys):
    seen = []
    path = hub.download("acme/Small-GGUF", "small-Q4_K_M.gguf", progress=lambda d, t: seen.append((d, t)))
    assert path.read_bytes() == server.data
    assert path == precis_home / "data" / "models" / "acme" / "Small-GGUF" / "small-Q4_K_M.gguf"
    assert seen[-1] == (len(server.data), len(server.data))
    names = [(m.source, m.name) for m in discover(include_bundled=False).models]
    assert names == [("precis", "acme/Small-GGUF/small-Q4_K_M.gguf")]
    assert main(["models", "list", "--json"]) == 0
    assert "acme/Small-GGUF/small-Q4_K_M.gguf" in capsys.readouterr().out


# huggingface-hub writes in 10 MiB chunks: a transfer must pass one chunk before anything can be resumed.
BIG = 25 * 2**20


def test_interrupted_download_resumes(server):
    big = (server.data * (BIG // len(server.data) + 1))[:BIG]
    server.state.repos["acme/Small-GGUF"]["files"]["big-Q4_K_M.gguf"] = big
    server.state.cut_after["big-Q4_K_M.gguf"] = 15 * 2**20             # the network drops after 15 MiB
    path = hub.download("acme/Small-GGUF", "big-Q4_K_M.gguf")
    assert path.read_bytes() == big
    ranges = [r for m, p, r in server.state.requests if m == "GET" and p.endswith("big-Q4_K_M.gguf") and r]
    assert ranges == [f"bytes={10 * 2**20}-"]                          # resumed after the chunk it had


def test_cancel_keeps_the_partial_file_and_the_next_download_resumes(server):
    cancel = CancelToken()
    big = (server.data * (BIG // len(server.data) + 1))[:BIG]
    server.state.repos["acme/Small-GGUF"]["files"]["big-Q4_0.gguf"] = big

    def progress(done, total):
        if done >= 10 * 2**20:
            cancel.cancel()                                             # stop after the first chunk
    with pytest.raises(Cancelled, match="resumes where it stopped"):
        hub.download("acme/Small-GGUF", "big-Q4_0.gguf", progress, cancel)
    assert hub.partial_bytes("acme/Small-GGUF", "big-Q4_0.gguf") == 10 * 2**20
    path = hub.download("acme/Small-GGUF", "big-Q4_0.gguf")
    assert path.read_bytes() == big
    assert [r for m, p, r in server.state.requests if m == "GET" and p.endswith("big-Q4_0.gguf") and r] == \
        [f"bytes={10 * 2**20}-"]


def test_not_found_size_mismatch_and_no_network(server, monkeypatch):
    with pytest.raises(hub.HubError, match="not found on the Hub"):
        hub.list_files("acme/Nope")
    with pytest.raises(hub.HubError, match="has no GGUF file named 'nope.gguf'"):
        hub.download("acme/Small-GGUF", "nope.gguf")
    server.state.listed_size["small-Q8_0.gguf"] = len(server.data) + 999
    with pytest.raises(hub.HubError, match="the Hub says") as info:
        hub.download("acme/Small-GGUF", "small-Q8_0.gguf")
    assert "removed" in str(info.value)
    assert not (hub.target_dir("acme/Small-GGUF") / "small-Q8_0.gguf").exists()
    monkeypatch.setenv("PRECIS_HF_ENDPOINT", "http://127.0.0.1:9")      # nothing listens there
    with pytest.raises(hub.HubError, match="cannot be reached"):
        hub.search("qwen")
    assert main(["models", "search", "qwen"]) == 4


@pytest.mark.parametrize("read_timeout_s, budget_s", [("30", "2"), ("0.6", "2.5")])
def test_a_search_of_a_silent_hub_gives_up_within_its_budget_and_says_so(server, monkeypatch, read_timeout_s,
                                                                        budget_s):
    """A Hub that accepts the connection and never answers: a search gives up when its budget is spent (30 s by
    default), not after three tries of the read timeout (94 s measured before), whether one try would outlast
    the budget (read timeout 30 s) or several fit in it (0.6 s: tried again while time was left)."""
    monkeypatch.setenv("PRECIS_HUB_READ_TIMEOUT", read_timeout_s)
    monkeypatch.setenv("PRECIS_HUB_SEARCH_TIMEOUT", budget_s)
    assert hub.search("small")          # answered: the client's imports and set-up are not timed below
    server.state.silent = True
    server.state.requests.clear()
    started = time.monotonic()
    with pytest.raises(hub.HubError, match=rf"did not answer within {budget_s} s, so the search gave up"):
        hub.search("gguf")
    waited_s = time.monotonic() - started
    searches = [r for r in server.state.requests if r[1] == "/api/models"]
    assert float(budget_s) - 1.0 <= waited_s <= float(budget_s) + 1.0
    assert len(searches) == (1 if read_timeout_s == "30" else 2)


def test_the_command_line_search_of_a_silent_hub_exits_4_and_says_it_gave_up(server, monkeypatch, capsys):
    monkeypatch.setenv("PRECIS_HUB_SEARCH_TIMEOUT", "1")
    server.state.silent = True
    assert main(["models", "search", "qwen"]) == 4
    assert "did not answer within 1 s, so the search gave up" in capsys.readouterr().err


def test_a_download_from_a_hub_that_falls_silent_still_gets_every_try(server, monkeypatch):
    """The search's budget is the search's alone: a download's look-ups keep their three tries of the read
    timeout (they resume, and the dialog shows their progress)."""
    monkeypatch.setenv("PRECIS_HUB_READ_TIMEOUT", "0.4")
    monkeypatch.setenv("PRECIS_HUB_SEARCH_TIMEOUT", "0.1")
    monkeypatch.setattr(hub, "RETRY_BACKOFF_S", 0.01)
    server.state.silent = True
    with pytest.raises(hub.HubError, match=r"within 0.4 s \(3 tries\)"):
        hub.download("acme/Small-GGUF", "small-Q4_K_M.gguf")
    assert len([r for r in server.state.requests if r[1].startswith("/api/models/acme")]) == 3
