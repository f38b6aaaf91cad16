"""`precis plan` and `precis summarize` with a GPU: the fit's choice said and used, a person's own layers
checked, and without a GPU everything as before. A fake device list and the scripted fake runtime at the
model seam; the bundled SmolLM2's header gives the tensor table (no model is loaded)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from precis.engine.runtime.devices import FAKE_DEVICES_ENV
from precis.models.cli.main import main
from tests.fake_runtime import FakeRuntime, diligent
from tests.summary_fixtures import conversation_day

MIB = 2**20
DATE = "2026-12-04"


def gpu(monkeypatch, free_mib: int, name: str = "Vulkan0") -> None:
    monkeypatch.setenv(FAKE_DEVICES_ENV, json.dumps([{"name": name, "description": "a test GPU", "kind": "gpu",
                                                       "free_bytes": free_mib * MIB, "total_bytes": free_mib * MIB,
                                                       "backend": "Vulkan"}]))


@pytest.fixture
def loads(monkeypatch):
    """Every settings object the runtime was loaded with."""
    seen = []

    def load(path, settings, vocab_only=False):
        if not vocab_only:
            seen.append(settings)
        return FakeRuntime(script=diligent, n_ctx=settings.n_ctx, settings=settings, path=Path(path))
    monkeypatch.setattr("precis.engine.runtime.llama.LlamaRuntime.load", staticmethod(load))
    return seen


def test_plan_without_a_gpu_is_as_before(capsys):
    assert main(["plan", "--n-ctx", "2048"]) == 0
    out = capsys.readouterr().out
    assert "GPU layers" not in out and "largest context that fits" in out
    assert main(["plan", "--n-ctx", "2048", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["devices"] == [] and "offload" not in data and data["verdict"] == "fits"


def test_gpu_layers_without_a_gpu_says_there_is_none(capsys):
    assert main(["plan", "--gpu-layers", "10"]) == 2
    assert "sees no GPU" in capsys.readouterr().err
    assert main(["plan", "--gpu-layers", "0"]) == 0          # none asked: nothing to refuse


def test_plan_shows_ram_and_vram_side_by_side_and_the_fits_choice(capsys, monkeypatch):
    gpu(monkeypatch, 2048)
    assert main(["plan", "--n-ctx", "2048"]) == 0
    out = capsys.readouterr().out
    assert "GPU layers: 31 of 31 (auto: all 31 layers on Vulkan0" in out
    assert "  RAM " in out and "  Vulkan0 " in out and out.count("-> fits") == 2
    assert main(["plan", "--n-ctx", "2048", "--json"]) == 0
    offload = json.loads(capsys.readouterr().out)["offload"]
    assert offload["gpu_layers"] == 31 and offload["auto"] and offload["n_ctx"] == 2048
    ram, vram = offload["pools"]
    assert (ram["name"], vram["name"]) == ("RAM", "Vulkan0") and vram["layers"] == 30 and vram["holds_output"]
    assert vram["kv_bytes"] == 45 * MIB and ram["kv_bytes"] == 0          # every layer's cache on the GPU


def test_a_persons_own_layers_that_do_not_fit_are_shown_with_what_to_lower(capsys, monkeypatch):
    gpu(monkeypatch, 300)
    assert main(["plan", "--n-ctx", "8192", "--gpu-layers", "31"]) == 0
    captured = capsys.readouterr()
    assert "won't fit" in captured.out
    assert "warning:" in captured.err and "--gpu-layers " in captured.err


def _summarize(tmp_path, *args) -> int:
    source = tmp_path / "day.txt"
    source.write_text(conversation_day(), encoding="utf-8")
    return main(["summarize", str(source), "--date", DATE, "--strategy", "rolling", "--out", str(tmp_path / "out"),
                 *args])


def test_a_run_loads_with_the_fits_layers_and_its_report_says_where(capsys, monkeypatch, tmp_path, loads):
    gpu(monkeypatch, 2048)
    assert _summarize(tmp_path, "--n-ctx", "2048") == 0
    assert [s.n_gpu_layers for s in loads] == [31] and loads[0].n_ctx == 2048
    assert "GPU: all 31 layers on Vulkan0" in capsys.readouterr().err
    report = json.loads((tmp_path / "out" / f"{DATE}-run.json").read_text())
    placement = report["settings"]["placement"]
    assert report["settings"]["n_gpu_layers"] == 31
    assert placement["gpu_layers"] == 31 and [p["name"] for p in placement["pools"]] == ["RAM", "Vulkan0"]


def test_a_run_with_too_many_layers_is_refused_before_loading(capsys, monkeypatch, tmp_path, loads):
    gpu(monkeypatch, 300)
    assert _summarize(tmp_path, "--n-ctx", "8192", "--gpu-layers", "31") == 2
    err = capsys.readouterr().err
    assert "Vulkan0 short by" in err and "--gpu-layers " in err and loads == []


def test_a_run_without_a_gpu_loads_as_before(capsys, tmp_path, loads):
    assert _summarize(tmp_path, "--n-ctx", "2048") == 0
    assert [s.n_gpu_layers for s in loads] == [0]
    assert "GPU:" not in capsys.readouterr().err
    report = json.loads((tmp_path / "out" / f"{DATE}-run.json").read_text())
    assert "placement" not in report["settings"]


def test_speeds_are_kept_apart_per_gpu_placement(tmp_path):
    """A layer on the GPU runs several times faster: a CPU run's speed must not set a GPU plan's estimate."""
    from precis.engine.storage.speed_log import known_speeds, record_speeds
    model = tmp_path / "m.gguf"
    model.write_bytes(b"GGUF")
    record_speeds(model, None, 100.0, 20.0)
    record_speeds(model, None, 900.0, 80.0, "gpu=Vulkan0:layers=31")
    assert known_speeds(model).prompt_tokens_per_second == 100.0                  # the CPU key as before
    assert known_speeds(model, None, "gpu=Vulkan0:layers=31").prompt_tokens_per_second == 900.0
    assert known_speeds(model, None, "gpu=Vulkan0:layers=10") is None


def test_the_plans_time_estimate_reads_the_speeds_of_its_placement(monkeypatch):
    from precis.models.session.planner import speed_placement
    from precis.models.session.request import RunRequest
    assert speed_placement(RunRequest(gpu_layers="31")) == ""                       # no GPU: the CPU key
    gpu(monkeypatch, 2048)
    assert speed_placement(RunRequest(gpu_layers="31")) == "gpu=Vulkan0:layers=31"
