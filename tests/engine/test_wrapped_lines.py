"""Hard-wrapped prose read as its author wrote it (engine.documents.wrapped_lines)."""
from __future__ import annotations

from precis.engine.documents.wrapped_lines import unwrapped, wrap_width
from tests.engine.test_salience import MEETING, WRAPPED_STORY


def test_a_wrapped_story_is_unwrapped_in_place():
    assert 60 <= wrap_width(WRAPPED_STORY) <= 72
    flat = unwrapped(WRAPPED_STORY)
    assert len(flat) == len(WRAPPED_STORY)
    assert "This was going to be tricky." in flat and "straight toward the oncoming bomb." in flat
    # a paragraph's last line, the blank line and the next paragraph's indented first line stay lines
    assert "more than 1000 yards.\n \n  At a combined" in flat
    assert "Then the planetary surface was rushing up with frightening speed. Retief shook" in flat


def test_text_that_is_not_wrapped_prose_is_left_as_it_is():
    git_log = "".join(f"commit {i:07x}a\nAuthor: torikizi\nDate:   2021-12-2{i % 10} 12:01:11 +0900\n\n"
                      f"    SDL のビルド定義を修正 {i}\n\n src/sdl_renderer.cpp | {i + 2} +-\n" for i in range(12))
    short_items = "\n".join(f"- item {i} of the list, with a few words more to fill it up" for i in range(20))
    for text in (MEETING * 3, git_log, short_items, "one line only"):
        assert unwrapped(text) == text


def test_a_wrapped_list_item_or_speaker_label_starts_its_own_line():
    story = WRAPPED_STORY + ("Then the pilot turned to him and said it plainly, without any ceremony\n"
                             "Retief: I will take the skiff down myself and see what they want now.\n"
                             "- the first thing he saw was the wide grey field of the old sea-bed\n")
    flat = unwrapped(story)
    assert "ceremony\nRetief: I will" in flat and "now.\n- the first" in flat
