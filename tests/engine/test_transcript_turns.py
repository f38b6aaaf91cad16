"""A chat transcript's turns and which of them its people wrote (engine.documents.transcript_turns)."""
from __future__ import annotations

from precis.engine.documents.transcript_turns import prose_spans, turns

COMMAND_PROMPT = """# Menu Command

Create a lightweight epic-level spec for the initiative described in the arguments.

## Workflow

Always ask for user confirmation before generating files.
"""

SESSION = f"""[user] <command-message>kitchen:menu</command-message>
<command-name>/kitchen:menu</command-name>

[user] {COMMAND_PROMPT}
[assistant] キャッシュ機能のスペックを作成します。まず既存のプロバイダー実装を調査します。

[tool_call] Bash: {{"command": "git status", "description": "Check the working tree"}}

[tool_result] On branch main
nothing to commit, working tree clean

[assistant] 調査の結果、TTL は 24 時間にして、キャッシュキーには SHA-256 を使うことにしました。

```go
key := sha256.Sum256([]byte(target))
```

これで衝突は起きません。

[user] [Request interrupted by user for tool use]

[user] 専用のワークツリーで作業してください。

[tool_call] Skill: {{"skill": "kitchen:cook"}}

[tool_result] Launching skill: kitchen:cook

[user] # Cook Command

You are an implementation specialist who writes code following strict TDD methodology.

[user 2026-03-02 10:11] This session is being continued from a previous conversation that ran out of context.
"""


def _written(text: str) -> list[str]:
    return [text[t.body_start:t.end].strip() for t in turns(text) if t.written]


def test_only_what_the_user_and_the_assistant_wrote_is_written():
    found = turns(SESSION)
    assert [t.role for t in found][:4] == ["user", "user", "assistant", "tool_call"]
    written = _written(SESSION)
    assert written[0].startswith("キャッシュ機能のスペック")          # the command's markup and its prompt: not
    assert written[-1] == "専用のワークツリーで作業してください。"     # the skill's prompt, the client's summary: not
    joined = "\n".join(written)
    for machine in ("Menu Command", "Always ask", "working tree clean", "git status", "Request interrupted",
                    "Cook Command", "session is being continued"):
        assert machine not in joined
    assert all(SESSION[t.start] == "[" for t in found)


def test_a_fenced_code_block_in_an_assistants_turn_is_not_prose():
    spans = prose_spans(SESSION)
    prose = "".join(SESSION[s:e] for s, e in spans.spans)
    assert "SHA-256 を使うことにしました" in prose and "これで衝突は起きません" in prose
    assert "sha256.Sum256" not in prose
    start = SESSION.index("調査の結果")
    assert spans.holds(start, start + 10)
    code = SESSION.index("key :=")
    assert not spans.holds(code, code + 5)
    shifted = spans.shifted(start)                   # a part starting there sees the same spans
    assert shifted.holds(0, 10) and not shifted.holds(code - start, code - start + 5)


def test_a_text_that_is_no_chat_transcript_has_no_turns():
    log = "\n".join(f"[07:55:0{i}] tool · imap: FETCH {i} messages" for i in range(6))
    assert turns(log) == [] and prose_spans(log) is None
    quoted = "He pasted this:\n[user] hello\n[assistant] hi\nand nothing else."    # two markers: a quote
    assert prose_spans(quoted) is None
    git_output = "[main 3f2a1b0] fix the cache\n" * 5                           # git's own brackets
    assert turns(git_output) == []


def test_the_people_s_words_of_a_stretch_of_a_transcript():
    spans = prose_spans(SESSION)
    start = SESSION.index("[tool_call] Bash")
    end = SESSION.index("[user] # Cook Command")
    said = spans.text_within(SESSION, start, end)
    assert said.splitlines()[0] == "調査の結果、TTL は 24 時間にして、キャッシュキーには SHA-256 を使うことにしました。"
    assert "専用のワークツリーで作業してください。" in said
    for machine in ("git status", "working tree clean", "sha256.Sum256", "Launching skill", "キャッシュ機能のスペック"):
        assert machine not in said
