"""What the hostile-server tests share: a day to summarize, the command line, the console script run
as a separate process (for real signals), and waiting for a server to be hanging."""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.summary_fixtures import conversation_day

DATE = "2026-11-30"
REPLY = ("The team reviewed the release plan and agreed to ship the parser fix first. Alice will update the "
         "changelog before Friday, and Bob checks the installer on Windows.")
# Several rounds at this context (the first can finish before a hang from the second on).
SMALL_N_CTX = "1536"
# A Stop (Ctrl-C, SIGTERM, the window's) ends any wait: before, a wait held on for its 600 s limit. The
# goal, 2 s, is measured by bench/hostile.py run alone; here the bound only tells "stopped" from "held on",
# with room for a loaded machine (CI, `make test` beside a build), so that no timing makes a test flaky.
STOP_WITHIN_S = 15.0


def day(tmp_path: Path, turns: int = 12, name: str = "day.txt") -> Path:
    path = tmp_path / name
    path.write_text(conversation_day(turns), encoding="utf-8")
    return path


def summarize_args(url: str, doc: Path, out: Path, *extra: str) -> list[str]:
    return ["summarize", str(doc), "--server", url, "--strategy", "rolling", "--n-ctx", SMALL_N_CTX,
            "--out", str(out), "--date", DATE, *extra]


def wait_for(predicate, timeout_s: float = 60.0, what: str = "") -> None:
    end = time.monotonic() + timeout_s
    while not predicate():
        if time.monotonic() > end:
            raise AssertionError(f"timed out waiting for {what or predicate}")
        time.sleep(0.02)


def precis_process(argv: list[str]) -> subprocess.Popen:
    """The installed console script, as cron runs it; the environment (PRECIS_HOME) is the test's."""
    script = shutil.which("precis", path=str(Path(sys.executable).parent))
    assert script, "the precis console script is not installed beside this Python"
    return subprocess.Popen([script, *argv], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=dict(os.environ))


def stop_and_time(proc: subprocess.Popen, sig: int = signal.SIGINT) -> tuple[int, float, str]:
    """Send ``sig``; (exit code, seconds until the process ended, its stderr)."""
    sent = time.monotonic()
    proc.send_signal(sig)
    try:
        _out, err = proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        _out, err = proc.communicate()
    took = time.monotonic() - sent
    return proc.returncode, took, err


def end(proc: subprocess.Popen) -> None:
    """Kill a process a failed test left running, and close its pipes."""
    if proc.poll() is None:
        proc.kill()
    proc.communicate()


def only_run_state(precis_home: Path) -> dict:
    states = list((precis_home).rglob("state.json"))
    assert len(states) == 1, states
    return json.loads(states[0].read_text(encoding="utf-8"))
