"""`precis` with the scripted fake runtime at the model seam, as a child process: for the inputs whose
failure would be a hang (a FIFO), run with a timeout from tests/hostile/test_inputs.py."""
from __future__ import annotations

import sys
from pathlib import Path

from precis.models.cli.main import main
from tests.fake_runtime import FakeRuntime


def _load(path, settings, vocab_only=False):
    return FakeRuntime(n_ctx=settings.n_ctx, settings=settings, path=Path(path))


if __name__ == "__main__":
    import precis.engine.runtime.llama as llama
    llama.LlamaRuntime.load = staticmethod(_load)
    sys.exit(main(sys.argv[1:]))
