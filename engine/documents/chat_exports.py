"""Chat exports turned into a transcript: one ``[role time] text`` block per message.

Understood shapes (detected from the data, not the file name):
- OpenAI-style messages: a list of ``{"role", "content"}`` (or ``{"messages": [...]}``, or JSONL with
  one message or one ``{"messages": [...]}`` per line); ``content`` may be a string or a list of parts.
- ChatGPT's ``conversations.json``: a list of conversations, each a ``mapping`` tree of messages; the
  main branch (from ``current_node`` back to the root) is kept, each conversation under a heading.
- Claude Code session JSONL: ``{"type": "user"|"assistant", "message": {...}, "timestamp"}`` lines;
  tool calls become ``[tool_call] Name: {input}`` and results ``[tool_result] ...`` so the rules can
  tell noise from conversation.
- A plain ``{"text": "..."}`` document.
"""
from __future__ import annotations

import json
import sys
from datetime import datetime, timezone

from precis.engine.errors import UnreadableDocument

# A tool call's input can be a whole file being written; beyond this it is cut, and says so.
MAX_TOOL_INPUT_CHARS = 2000


def _when(value) -> str:
    if value in (None, ""):
        return ""
    try:
        if isinstance(value, (int, float)):
            moment = datetime.fromtimestamp(float(value), tz=timezone.utc)
        else:
            moment = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
        return moment.strftime("%Y-%m-%d %H:%M")
    except (ValueError, OverflowError, OSError):
        return str(value)


def _block(role: str, text: str, when="") -> str:
    stamp = _when(when)
    return f"[{role}{' ' + stamp if stamp else ''}] {text.strip()}"


def _content_parts(content) -> list[tuple[str, str]]:
    """(kind, text) pieces of a message's content: kind is "" for text, else tool_call/tool_result."""
    if content is None:
        return []
    if isinstance(content, str):
        return [("", content)]
    if isinstance(content, dict):
        content = [content]
    out: list[tuple[str, str]] = []
    for part in content:
        if isinstance(part, str):
            out.append(("", part))
            continue
        if not isinstance(part, dict):
            continue
        kind = part.get("type", "text")
        if kind in ("text", "input_text", "output_text"):
            out.append(("", str(part.get("text", ""))))
        elif kind == "tool_use":
            payload = json.dumps(part.get("input", {}), ensure_ascii=False)
            if len(payload) > MAX_TOOL_INPUT_CHARS:
                payload = payload[:MAX_TOOL_INPUT_CHARS] + f" … ({len(payload) - MAX_TOOL_INPUT_CHARS} chars cut)"
            out.append(("tool_call", f"{part.get('name', 'tool')}: {payload}"))
        elif kind == "tool_result":
            inner = part.get("content")
            text = "\n".join(t for _, t in _content_parts(inner)) if not isinstance(inner, str) else inner
            out.append(("tool_result", text or ""))
        elif kind in ("thinking", "redacted_thinking", "image"):
            continue  # private reasoning and pixels are not part of the conversation
    return out


def _message_blocks(role: str, content, when="") -> list[str]:
    blocks = []
    for kind, text in _content_parts(content):
        if text.strip():
            blocks.append(_block(kind or role, text, when))
    return blocks


def _is_message(obj) -> bool:
    return isinstance(obj, dict) and "role" in obj and ("content" in obj or "text" in obj)


def _openai_messages(messages: list) -> list[str]:
    blocks = []
    for m in messages:
        if _is_message(m):
            content = m.get("content", m.get("text"))
            blocks += _message_blocks(str(m["role"]), content, m.get("timestamp") or m.get("ts") or m.get("created_at"))
    return blocks


def _chatgpt_conversations(conversations: list) -> list[str]:
    blocks = []
    for conv in conversations:
        mapping = conv.get("mapping") or {}
        node_id = conv.get("current_node")
        if node_id not in mapping:  # no pointer: follow the first child from the root
            roots = [k for k, v in mapping.items() if not v.get("parent")]
            node_id = roots[0] if roots else None
            while node_id and mapping[node_id].get("children"):
                node_id = mapping[node_id]["children"][0]
        branch = []
        while node_id in mapping:
            branch.append(mapping[node_id])
            node_id = mapping[node_id].get("parent")
        title = conv.get("title") or "Untitled conversation"
        stamp = _when(conv.get("create_time"))
        blocks.append(f"## {title}{' (' + stamp + ')' if stamp else ''}")
        for node in reversed(branch):
            msg = node.get("message") or {}
            role = (msg.get("author") or {}).get("role", "")
            if role not in ("user", "assistant", "tool"):
                continue  # system prompts and hidden context
            content = msg.get("content") or {}
            parts = content.get("parts") if isinstance(content, dict) else content
            text = "\n".join(p for p in (parts or []) if isinstance(p, str))
            if text.strip():
                blocks.append(_block("tool_result" if role == "tool" else role, text, msg.get("create_time")))
    return blocks


def _claude_code_lines(records: list[dict]) -> list[str]:
    blocks = []
    for rec in records:
        if rec.get("type") not in ("user", "assistant") or rec.get("isMeta"):
            continue
        msg = rec.get("message") or {}
        blocks += _message_blocks(str(msg.get("role", rec["type"])), msg.get("content"), rec.get("timestamp"))
    return blocks


def _from_object(data, name: str) -> tuple[str, str]:
    if isinstance(data, dict) and isinstance(data.get("text"), str) and "mapping" not in data:
        return data["text"], "text"
    if isinstance(data, dict) and isinstance(data.get("messages"), list):
        return _joined(_openai_messages(data["messages"]), name), "chat log"
    if isinstance(data, dict) and "mapping" in data:
        data = [data]
    if isinstance(data, list) and data and all(isinstance(c, dict) and "mapping" in c for c in data):
        return _joined(_chatgpt_conversations(data), name), "chat log"
    if isinstance(data, list) and data and all(_is_message(m) for m in data):
        return _joined(_openai_messages(data), name), "chat log"
    raise UnreadableDocument(
        f"{name} is JSON but not a chat export Precis knows (OpenAI-style messages, ChatGPT conversations.json, "
        "a Claude Code session, or an object with a \"text\" field). Export it as text or Markdown instead.")


def _joined(blocks: list[str], name: str) -> str:
    if not blocks:
        raise UnreadableDocument(f"{name} is a chat export with no messages in it: there is nothing to summarize.")
    return "\n\n".join(blocks) + "\n"


def chat_export_to_text(text: str, name: str) -> tuple[str, str, tuple[str, ...]]:
    """(transcript, kind, warnings) for the decoded contents of a .json or .jsonl file. JSON Lines with
    broken lines (a live log cut mid-line) keep their good lines and say which were skipped. JSON nested
    deeper than Python's parser goes (about a thousand levels: no chat export is) is refused by name; it
    crashed the command line with a RecursionError's traceback (issue 40)."""
    try:
        return _chat_export_to_text(text, name)
    except RecursionError:
        raise UnreadableDocument(f"{name} is JSON nested too deeply to be a chat export (over "
                                 f"{sys.getrecursionlimit():,} levels). Export it as text instead.") from None


def _chat_export_to_text(text: str, name: str) -> tuple[str, str, tuple[str, ...]]:
    stripped = text.strip()
    try:
        transcript, kind = _from_object(json.loads(stripped), name)
        return transcript, kind, ()
    except json.JSONDecodeError as whole_error:
        records, broken = [], []
        for number, line in enumerate(stripped.splitlines(), 1):
            if not line.strip():
                continue
            try:
                records.append(json.loads(line))
            except json.JSONDecodeError as exc:
                broken.append((number, exc.msg))
        if not records:
            raise UnreadableDocument(f"{name} is not valid JSON or JSON Lines ({whole_error.msg} at line "
                                     f"{whole_error.lineno}). If it was cut off, export it again.") from whole_error
    warnings = ()
    if broken:
        shown = ", ".join(f"{n} ({msg})" for n, msg in broken[:5]) + (" …" if len(broken) > 5 else "")
        warnings = (f"skipped {len(broken)} unreadable line{'s' if len(broken) != 1 else ''} of JSON Lines: {shown}",)
    transcript, kind = _from_records(records, name)
    return transcript, kind, warnings


def _from_records(records: list, name: str) -> tuple[str, str]:
    if all(isinstance(r, dict) and r.get("type") in ("user", "assistant", "summary", "system", "file-history-snapshot")
           or isinstance(r, dict) and "sessionId" in r for r in records):
        return _joined(_claude_code_lines(records), name), "chat log"
    if all(isinstance(r, dict) and isinstance(r.get("messages"), list) for r in records):
        return _joined([b for r in records for b in _openai_messages(r["messages"])], name), "chat log"
    if all(_is_message(r) for r in records):
        return _joined(_openai_messages(records), name), "chat log"
    raise UnreadableDocument(f"{name} is JSON Lines but not a chat export Precis knows (OpenAI-style messages or a "
                             "Claude Code session). Export it as text instead.")
