"""A document and a plan for strategy tests with the scripted fake runtime (tests/fake_runtime.py)."""
from __future__ import annotations

from precis.engine.planning.run_plan import build_plan
from precis.engine.prompts.layout import RoundLayout
from precis.engine.prompts.presets import load_preset
from precis.engine.runs.run import RunOptions, new_state, run_summary


def conversation_day(sessions: int = 8, noise_sessions=(4,)) -> str:
    """Sessions of about one chunk each (at n_ctx 2048 with the fake tokenizer); some are only tool logs."""
    parts = []
    for s in range(1, sessions + 1):
        if s in noise_sessions:
            lines = [f"=== Session {s} · 2026-11-27 1{s}:00 · automated: nightly-sync (no conversation) ==="]
            lines += [f"[1{s}:00:{i:02d}] tool · bash: $ rsync -a /srv/export{i} /backup/ -> ok" for i in range(40)]
        else:
            lines = [f"=== Session {s} · 2026-11-27 1{s}:00 · topic {s} ==="]
            for t in range(20):
                who = "Mika" if t % 2 == 0 else "Orin"
                lines.append(f"[1{s}:{t:02d}] {who}: In session {s}, point {t}: the budget for project P{s} is "
                             f"EUR {s * 1000 + t},00 and Priya Raman signs it off by 2026-12-0{1 + t % 9}.")
        parts.append("\n\n".join(lines))
    return "\n\n".join(parts) + "\n"


def meeting_transcript() -> str:
    """Twelve turns of four speakers, with the tasks a meeting assigns."""
    return "\n".join(
        f"{who}: {what}" for who, what in [
            ("Project Manager", "Okay, let's start with the budget for the remote control."),
            ("Marketing", "The survey says people want a scroll wheel and fewer buttons."),
            ("Industrial Designer", "A scroll wheel needs the advanced chip, which costs more."),
            ("Project Manager", "What does the advanced chip cost us per unit?"),
            ("Industrial Designer", "About two euros more than the simple one."),
            ("Marketing", "Um, that's still within the twelve fifty target."),
            ("User Interface", "Then I'd put the LCD next to the wheel."),
            ("Project Manager", "Agreed, the wheel and the LCD. Marketing will check the colours by Friday."),
            ("Marketing", "Yes, I will send the colour survey by Friday."),
            ("Industrial Designer", "I'll draw the case in rubber for the next meeting."),
            ("User Interface", "And I will mock up the menu."),
            ("Project Manager", "Good. See you all on Monday."),
        ]) + "\n"


def claude_code_day(steps: int) -> str:
    """A Japanese Claude Code session as Precis writes one (engine.documents.chat_exports): a slash command's
    English prompt, then turns of Japanese conversation between long English tool outputs."""
    prompt = ("You are a planning specialist who turns feature specs into implementation plans. Always ask for "
              "user confirmation before generating files, and read the existing code before asking questions.\n")
    turns = ["[user] <command-message>kitchen:prep</command-message>\n<command-name>/kitchen:prep</command-name>",
             "[user] # Prep Command\n\n" + prompt * 6]
    for i in range(1, steps + 1):
        turns += [f"[assistant] ステップ {i} として、キャッシュ層のタスク {i} を設計し、テスト {i} 件を追加しました。",
                  f'[tool_call] Bash: {{"command": "go test ./internal/cache/...", "description": "Run tests {i}"}}',
                  "[tool_result] " + "".join(f"ok   github.com/example/repiq/internal/cache/provider{j} "
                                              f"0.0{j}s coverage: 8{j}.5% of statements in the package\n"
                                              for j in range(12)),
                  f"[user] タスク {i} のキャッシュキーは SHA-256 にして、TTL は {i + 20} 時間にしてください。"]
    return "\n\n".join(turns) + "\n"


def make_plan(runtime, text: str, n_ctx: int = 2048, preset: str = "conversation-archive", **budget_overrides):
    layout = RoundLayout(load_preset(preset), "2026-11-27")
    return build_plan(runtime, layout, n_ctx, [("day.txt", text, ())], **budget_overrides)


def start(runtime, plan, options: RunOptions | None = None):
    options = options or RunOptions()
    state = new_state(plan, None, {"n_ctx": plan.budget.n_ctx}, options, ["day.txt"])
    return state, options


def run_all(runtime, plan, state, options, cancel=None):
    return list(run_summary(runtime, plan, state, options, cancel))
