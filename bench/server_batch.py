"""Documents per minute through a model server: `precis summarize --server URL --per-file` with
--parallel 1 against --parallel 4, the same files, the same server (llama.cpp's `llama-server` with 4
slots and the bundled model), side by side in one run, twice in alternating order.

llama-cpp-python's own server serializes requests (one model object behind a lock), so the batch
benchmark uses llama.cpp's server, built from the same vendored source and CPU flags as the wheel
(`.ci/llama_build.py server`; several minutes the first time). Run it alone on the machine.
Usage: python -m bench.server_batch [--docs N] [--doc-chars C] [--slot-ctx T]
"""
from __future__ import annotations

import argparse
import contextlib
import io
import json
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SLOTS = 4


def llama_server_binary() -> Path:
    out = subprocess.run([sys.executable, str(ROOT / ".ci" / "llama_build.py"), "server", sys.executable],
                         check=True, stdout=subprocess.PIPE, text=True).stdout.strip()
    return Path(out.splitlines()[-1])


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def llama_server(binary: Path, model: Path, slot_ctx: int, slots: int, log: Path):
    port = _free_port()
    with log.open("wb") as out:
        proc = subprocess.Popen([str(binary), "-m", str(model), "-c", str(slot_ctx * slots), "-np", str(slots),
                                 "--host", "127.0.0.1", "--port", str(port), "-t", "2", "--no-webui"],
                                stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                if json.loads(urllib.request.urlopen(url + "/health", timeout=2).read()).get("status") == "ok":
                    break
            except (OSError, ValueError):
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"llama-server did not start: {log.read_text(errors='replace')[-1500:]}")
            time.sleep(0.5)
        yield url + "/v1"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()


def documents(folder: Path, n: int, chars: int) -> list[Path]:
    """``n`` different slices of the development corpus's English documents (or the sample day)."""
    corpus = ROOT.parent / "shared" / "corpora" / "dev"
    texts = [json.loads(p.read_text(encoding="utf-8"))["text"] for p in sorted(corpus.glob("*/*.json"))
             if json.loads(p.read_text(encoding="utf-8"))["lang"] == "en"] if corpus.is_dir() else []
    texts = texts or [(ROOT / "resources" / "sample_day.txt").read_text(encoding="utf-8")]
    joined = "\n\n".join(texts)
    paths = []
    for i in range(n):
        start = (i * len(joined) // n)
        piece = joined[start:start + chars]
        piece = piece[:piece.rfind("\n") + 1] or piece
        path = folder / f"doc-{i:02d}.txt"
        path.write_text(piece, encoding="utf-8")
        paths.append(path)
    return paths


def batch_once(url: str, files: list[Path], out: Path, parallel: int) -> dict:
    from precis.models.cli.main import main
    args = ["summarize", *map(str, files), "--server", url, "--per-file", "--parallel", str(parallel),
            "--strategy", "rolling", "--out", str(out), "--date", "2026-01-01"]
    err = io.StringIO()
    started = time.perf_counter()
    with contextlib.redirect_stderr(err):
        code = main(args)
    seconds = time.perf_counter() - started
    index = json.loads((out / "2026-01-01-batch.json").read_text(encoding="utf-8"))
    finished = sum(d["status"] == "finished" for d in index["documents"])
    rounds = generated = 0
    for d in index["documents"]:
        report = out / Path(d["out"]).name / "2026-01-01-run.json"
        if report.is_file():
            data = json.loads(report.read_text(encoding="utf-8"))
            rounds += len(data.get("rounds", []))
            generated += sum(r.get("generated_tokens", 0) for r in data.get("rounds", []))
    return {"parallel": parallel, "exit_code": code, "documents": len(files), "finished": finished,
            "seconds": round(seconds, 1), "documents_per_minute": round(finished / seconds * 60, 2),
            "rounds": rounds, "generated_tokens": generated}


def run(n_docs: int = 8, doc_chars: int = 3000, slot_ctx: int = 2048) -> dict:
    from precis.models.library.bundled import bundled_model_path
    binary = llama_server_binary()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        files = documents(tmp, n_docs, doc_chars)
        runs = []
        with llama_server(binary, bundled_model_path(), slot_ctx, SLOTS, tmp / "server.log") as url:
            for i, parallel in enumerate((1, SLOTS, SLOTS, 1)):      # alternating: drift hits both sides
                runs.append(batch_once(url, files, tmp / f"out-{i}", parallel))
                print(json.dumps(runs[-1]), file=sys.stderr, flush=True)
    one = [r for r in runs if r["parallel"] == 1]
    many = [r for r in runs if r["parallel"] == SLOTS]
    per_min = {p: sum(r["documents_per_minute"] for r in rs) / len(rs) for p, rs in ((1, one), (SLOTS, many))}
    return {"server": f"llama-server, {SLOTS} slots of {slot_ctx} tokens, bundled SmolLM2-135M, 2 threads",
            "documents": n_docs, "doc_chars": doc_chars, "runs": runs,
            "documents_per_minute_parallel_1": round(per_min[1], 2),
            f"documents_per_minute_parallel_{SLOTS}": round(per_min[SLOTS], 2),
            "ratio": round(per_min[SLOTS] / per_min[1], 2)}


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--docs", type=int, default=8)
    parser.add_argument("--doc-chars", type=int, default=3000)
    parser.add_argument("--slot-ctx", type=int, default=2048)
    a = parser.parse_args()
    print(json.dumps(run(a.docs, a.doc_chars, a.slot_ctx), indent=2))
