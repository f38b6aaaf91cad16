"""Who can open a line of the account: the names a document gives (engine.summary.cast), a chat's read from its
people's words and never from its tools."""
from __future__ import annotations

from precis.engine.summary.cast import Cast, names_met, tool_names
from precis.engine.summary.shown_part import PartsShown

# A made-up day with an assistant, as a Claude Code session is saved: a slash command and its prompt, tool
# calls and their output (a capitalised tool name on every call, an output line that reads like a label), the
# client's record of the user's answer, and the assistant's words with inline code and Markdown labels.
SESSION = """[user] <command-message>kitchen:spec</command-message>
<command-name>/kitchen:spec</command-name>

[user] # Spec Command

Use Grep, Glob, Read to understand the code. Use AskUserQuestion to ask. Always ask before writing files.
Summary: the epic. Scope: what to include.

[assistant] まず Tessera のコードベースを調査します。

[tool_call] Read: {"file_path": "/home/dev/tessera/README.md"}

[tool_result] Tessera is a CLI. Maintainer: Renata Okafor.

[tool_call] Bash: {"command": "git log --oneline -3", "description": "Check recent commits"}

[tool_result] Exit code 1
Scope: unknown flag

[tool_call] ToolSearch: {"query": "select:AskUserQuestion", "max_results": 1}

[tool_result]

[tool_call] AskUserQuestion: {"questions": [{"question": "どのエピックにしますか?", "header": "Epic"}]}

[tool_result] User has answered your questions: "どのエピックにしますか?"="export". You can now continue.

[assistant] export エピックですね。Tessera の保守担当は Renata Okafor さんなので、レビューを依頼します。

- **Summary**: `os.UserCacheDir()` に書き出す
- **Scope**: `spec/export/scope.md`

[tool_call] Write: {"file_path": "/home/dev/tessera/docs/specs/export/overview.md", "content": "# Export"}

[tool_result] File created successfully at: /home/dev/tessera/docs/specs/export/overview.md

[tool_call] Write: {"file_path": "/home/dev/tessera/spec/export/scope.md", "content": "# Scope"}

[tool_result] File created successfully at: /home/dev/tessera/spec/export/scope.md

[assistant] スペックを作成しました。Renata Okafor さんのレビューを待ちます。

[user] ありがとう。佐伯さんにも見てもらってください。Tessera の PR は明日マージします。

[assistant] 佐伯さんにもレビューを依頼しました。
"""

TOOLS = {"Read", "Bash", "ToolSearch", "AskUserQuestion", "Write"}


def test_a_chats_actors_are_its_user_and_assistant_and_whom_they_name_never_a_tool_or_its_output():
    names = Cast(PartsShown(SESSION), japanese=True).met_by(len(SESSION))
    assert names[:2] == ["ユーザー", "アシスタント"]
    assert "Tessera" in names and "Renata Okafor" in names          # a product and a person the people name
    assert "佐伯さん" in names                                       # a person named in Japanese, honorific and all
    assert not TOOLS & set(names)                                    # the tools' names, called or in the prompt
    # a tool's output ("File created successfully at: ...") and Markdown's or a prompt's labels are no one
    assert not {"File", "File created successfully at", "Exit", "Summary", "Scope", "Epic", "User"} & set(names)
    assert Cast(PartsShown(SESSION)).met_by(len(SESSION))[:2] == ["The user", "The assistant"]


def test_the_same_session_read_as_a_transcripts_labels_took_tools_and_output_for_speakers():
    """What names_met reads a chat as (the labels of its lines): the tools and a tool's output were the cast of a
    development day's account ("Readが ...", "File created successfully atが ...")."""
    found = names_met(SESSION)
    assert {"Write", "File created successfully at"} <= set(found)
    assert tool_names(SESSION) == TOOLS


def test_the_names_met_by_a_point_of_a_chat_are_those_said_before_it_and_a_story_is_read_as_before():
    parts = PartsShown(SESSION)
    early = Cast(parts, japanese=True).met_by(SESSION.index("[tool_call] Write"))
    assert early[:2] == ["ユーザー", "アシスタント"] and "Tessera" in early
    story = ("Maitland woke in a strange room. Swarts came in. Maitland asked Swarts where he was. "
             "Ching brought the tray. Ching left.")
    assert Cast(PartsShown(story)).met_by(len(story)) == names_met(story) == ["Maitland", "Swarts", "Ching"]
    assert Cast(PartsShown(story)).tools == frozenset()


def test_a_hyphenated_name_is_one_name():
    story = ("Syme drove toward Kal-Jmar at dawn. Tate watched the towers of Kal-Jmar rise. "
             "Syme stopped the car below Kal-Jmar. Tate got out.")
    assert names_met(story) == ["Kal-Jmar", "Syme", "Tate"]           # the most used first; no "Kal", no "Jmar"
