"""The plan as the window shows it: the same lines `precis plan` prints, as rich text."""
from __future__ import annotations

import html

from precis.models.session.plan_text import plan_lines

TONE_STYLE = {"headline": "font-weight:bold", "warning": "color:#e65100", "error": "color:#c62828"}


def plan_html(plan, memory, on_server: bool = False) -> str:
    rows = []
    for line in plan_lines(plan, memory, per_document=len(plan.documents) > 1, on_server=on_server):
        text = html.escape(line.text.strip())
        style = TONE_STYLE.get(line.tone)
        rows.append(f"<span style='{style}'>{text}</span>" if style else text)
    return "<br>".join(rows)
