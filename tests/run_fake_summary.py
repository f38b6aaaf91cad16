"""Child process for the SIGKILL test: a slow scripted run that prints its run id, then works."""
from __future__ import annotations

import sys

from precis.engine.runs.run import RunOptions, run_summary
from tests.fake_runtime import FakeRuntime
from tests.summary_fixtures import conversation_day, make_plan, start


def build(delay: float):
    rt = FakeRuntime(token_delay_s=delay)
    return rt, make_plan(rt, conversation_day()), RunOptions()


if __name__ == "__main__":
    runtime, plan, options = build(delay=0.01)
    state, _ = start(runtime, plan, options)
    print(state.run_id, flush=True)
    for _event in run_summary(runtime, plan, state, options):
        pass
    sys.exit(0)
