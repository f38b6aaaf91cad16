"""The writing pass: the notes in sections under a heading the model names (checked by the named checks of
a heading, engine.summary.checks), in the preset's shape, with the summary file's sources and TODOs."""
from __future__ import annotations

import re

from precis.engine.events import RoundRepaired
from precis.engine.planning.run_plan import build_plan
from precis.engine.prompts.layout import RoundLayout
from precis.engine.prompts.presets import load_preset
from precis.engine.runs.outputs import summary_markdown
from precis.engine.runs.run import RunOptions
from precis.engine.summary.compaction import Bullet
from precis.engine.summary.evidence import Note
from precis.engine.summary.writing import JoinedSections, Written, names_heading, section_text
from tests.engine.notes_fixtures import finished_records, generic_notes_run, notes_run, report_of
from tests.fake_runtime import FakeRuntime, diligent
from tests.summary_fixtures import conversation_day, make_plan, run_all, start


def test_the_summary_file_nests_each_documents_sections_under_its_name_and_lists_its_sources():
    rt = FakeRuntime()
    layout = RoundLayout(load_preset("conversation-archive"), "2026-11-27")
    days = [("monday.txt", conversation_day(sessions=2, noise_sessions=()), ()),
            ("tuesday.txt", conversation_day(sessions=3, noise_sessions=()), ())]
    plan = build_plan(rt, layout, 2048, days, strategy="notes")
    state, options = start(rt, plan, RunOptions(strategy="notes"))
    run_all(rt, plan, state, options)
    md = summary_markdown(report_of(rt, plan, state), state)
    headings = [ln for ln in md.splitlines() if ln.startswith("#")]
    assert headings[0].startswith("# Summary") and headings[1] == "## monday.txt" and "## tuesday.txt" in headings
    # each document's topics one level below its name, their layers below them, then its sources
    assert {h.split(" ")[0] for h in headings[2:headings.index("## tuesday.txt")]} == {"###", "####"}
    assert headings[headings.index("## tuesday.txt") - 1] == "### Sources" and headings[-1] == "### Sources"


def test_a_heading_call_that_only_chats_is_replaced_by_who_its_notes_are_about():
    def chatty(call):
        if call.kind == "write":
            return "Here is the summary you asked for.\nDo you want me to add more details?"
        return diligent(call)
    rt, plan, state, events = notes_run(chatty, sessions=3, preset="generic", summary_words=60)   # one heading
    write = finished_records(events)[-1]
    # asked once more with the reminder, chatty again: the people its notes' sentences are said by
    assert write.kind == "write" and "heading_no_heading" in write.flags and write.attempts == 2
    assert "heading_retried" not in write.flags
    assert [e.how for e in events if isinstance(e, RoundRepaired)] == ["names_heading"]
    summary = state.summaries["day.txt"]
    assert "Here is" not in summary and "?" not in summary
    lines = summary.splitlines()
    assert lines[0] == "## Mika and Priya Raman" and len(lines) == 1 + len(state.notes["day.txt"])
    assert all(name in "\n".join(n["quote"] for n in state.notes["day.txt"]) for name in ("Mika", "Priya Raman"))


def _bullet(i: int, point: str, quote: str, part: int = 0) -> Bullet:
    return Bullet(point, (Note(i, point, quote, "story.txt", part, 0, len(quote), 1, 1, 100.0, "reworded"),))


def test_a_failed_heading_names_the_people_its_notes_keep_coming_back_to_and_else_the_parts():
    story = [_bullet(1, "Syme looks at the dome", "Syme looked up at the dome of the city."),
             _bullet(2, "Tate shows Syme his machine", "Tate opened the suitcase and showed Syme the machine."),
             _bullet(3, "Tate sets the machine up by the field", "Then Tate set it up close to the field."),
             _bullet(4, "The door opens", "The door dilated and the air was heady.", part=3)]
    assert names_heading(story) == "## Syme and Tate"
    assert names_heading(story, "Japanese") is None
    nameless = [_bullet(1, "The door opens", "The door dilated and the air was heady."),
                _bullet(2, "The air is good", "The air was good, excellent air.", part=3)]
    assert names_heading(nameless) is None
    # a meeting: the speakers first, as the transcript labels them; "Grad" alone is a word of "Grad B"; a day's
    # name recurs but names no one
    meeting = [_bullet(1, "Grad B explains the belief net", "Grad B: So the belief net takes the features."),
               _bullet(2, "Grad B asks about Saturday", "and then on Saturday we get the data ."),
               _bullet(3, "Professor C says Grad B's net is fine", "Professor C: Yeah, the net is fine on Saturday."),
               _bullet(4, "Professor C sets a deadline", "Professor C: Let's have it by next week .")]
    assert names_heading(meeting) == "## Professor C and Grad B"


def test_a_section_no_heading_can_be_given_goes_on_under_the_one_before_in_the_presets_shape():
    preset = load_preset("conversation-archive")
    first = [_bullet(1, "The build is fixed", "The build was fixed."),
             _bullet(2, "The team decided on rubber because it is cheaper", "We decided on rubber because it is "
                                                                             "cheaper.")]
    second = [_bullet(3, "The tests pass", "The tests passed.", part=1),
              _bullet(4, "The hook is chosen because it is faster", "We chose the hook because it is faster.",
                      part=1)]
    sections = JoinedSections(preset, None)
    sections.add(Written(section_text("Build and case", first, preset, None), heading="Build and case"), first)
    sections.add(Written(section_text("", second, preset, None)), second)
    text = [line.text for line in sections.lines]
    # one heading over both sections' notes, and each layer once, the notes in order within it: no "Part 2"
    assert text == ["## Build and case", "### Done", "- The build is fixed", "- The tests pass",
                    "### Decisions and judgements", "- The team decided on rubber because it is cheaper",
                    "- The hook is chosen because it is faster"]
    assert [line.notes for line in sections.lines if line.notes] == [[1], [3], [2], [4]]
    # the first section with none opens the summary unheaded; a later one with a heading starts its own
    opening = JoinedSections(load_preset("generic"), None)
    opening.add(Written(section_text("", second, load_preset("generic"), None)), second)
    opening.add(Written(section_text("Build", first, load_preset("generic"), None), heading="Build"), first)
    assert [line.text for line in opening.lines] == ["- The tests pass", "- The hook is chosen because it is faster",
                                                     "## Build", "- The build is fixed",
                                                     "- The team decided on rubber because it is cheaper"]


def test_a_heading_that_fails_where_the_notes_name_no_one_joins_its_notes_to_the_section_before():
    text = "\n\n".join(f"the pump at station {i} was cleaned on day {i} and its filter was replaced with a "
                       f"spare one of size {i + 40}." for i in range(1, 900))
    asked = []

    def chatty_second_heading(call):
        if call.kind == "write":
            section = re.search(r"\[(\d+)\] ", call.content).group(1)     # its first note's number
            asked.append(section)
            if list(dict.fromkeys(asked))[1:2] == [section]:     # the second section's heading, both asks
                return "Here is the summary you asked for."
            return "## Pump station filter\n"
        return diligent(call)
    rt, state = generic_notes_run(chatty_second_heading, text)
    writes = [r for r in state.rounds if r.kind == "write"]
    assert len(writes) >= 3 and "heading_joined" in writes[1].flags and writes[1].attempts == 2
    assert not any("heading_joined" in w.flags for w in writes[:1] + writes[2:])
    summary = state.summaries[next(iter(state.summaries))]
    headings = [ln for ln in summary.splitlines() if ln.startswith("#")]
    assert len(headings) == len(writes) - 1 and not any("Part" in h for h in headings)
    # every note is still in the summary, each once, and in the document's order
    cited = [int(i) for i in re.findall(r"\[(\d+)\]", summary)]
    assert sorted(cited) == cited and len(set(cited)) == len(cited) > 0


def test_the_heading_is_the_models_only_words_and_a_heading_its_notes_do_not_support_is_refused():
    def embellishing(call):
        if call.kind == "write":
            return "## The company was founded in 1887 by a sailor\n- and more chat"
        return diligent(call)
    rt, plan, state, events = notes_run(embellishing, sessions=2, summary_words=60)
    summary = state.summaries["day.txt"]
    assert "1887" not in summary and "chat" not in summary
    assert "heading_unsupported" in finished_records(events)[-1].flags

    def slips_once(call):     # a year the notes do not write, then, reminded, their own words
        if call.kind == "write":
            reminded = "(Use only words and numbers written in the notes" in call.prompt
            return "## Budget sign-off for the projects\n" if reminded else "## Budget sign-off of 1887\n"
        return diligent(call)
    rt, plan, state, events = notes_run(slips_once, sessions=2, preset="generic", summary_words=60)
    write = finished_records(events)[-1]
    assert {"heading_unsupported", "heading_retried"} <= set(write.flags) and write.attempts == 2
    assert state.summaries["day.txt"].splitlines()[0] == "## Budget sign-off for the projects"
    assert not [e for e in events if isinstance(e, RoundRepaired)]

    def naming(call):
        if call.kind == "write":
            return "## Budget sign-off for the projects\n"
        return diligent(call)
    rt, plan, state, events = notes_run(naming, sessions=2, preset="generic", summary_words=60)
    assert state.summaries["day.txt"].splitlines()[0] == "## Budget sign-off for the projects"
    bullets = state.summaries["day.txt"].splitlines()[1:]
    notes = state.notes["day.txt"]
    assert bullets == [f"- {n['point']} [{n['id']}]" for n in notes]       # the notes, each linked


def test_a_chat_days_todo_file_holds_the_tasks_its_people_wrote_not_its_tools_or_command_prompts():
    day = "\n".join([
        "[user] <command-message>kitchen:prep</command-message>\n<command-name>/kitchen:prep</command-name>\n",
        "[user] # Prep Command\n\nDecompose the plan into tasks.\n\n- [ ] #1 <action verb + description>\n"
        "- [ ] Would a staff engineer approve this decomposition?\n",
        "[assistant] The plan is approved. Mika will send the release notice by Monday.\n",
        '[tool_call] Edit: {"file_path": "tasks/todo.md", "old_string": "- [ ] #1 Add the cache store"}\n',
        "[tool_result] - [ ] `go test ./internal/cache/` must pass by Friday\n",
        "[user] Thanks. I will review the pull request by Friday.\n",
        "[assistant] Understood.\n"])
    rt = FakeRuntime()
    plan = make_plan(rt, day)
    state, options = start(rt, plan, RunOptions(strategy="notes"))
    run_all(rt, plan, state, options)
    todos = [t.text for t in report_of(rt, plan, state).todos]
    assert todos == ["Mika will send the release notice by Monday.",      # the task's sentence (issue 40)
                     "I will review the pull request by Friday."]
