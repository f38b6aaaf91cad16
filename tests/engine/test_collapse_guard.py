"""Each failure mode the guard must catch, and the replies it must let through."""
from __future__ import annotations

from precis.engine.prompts.presets import load_preset
from precis.engine.summary.facts import FactLedger, extract_facts, is_task
from precis.engine.summary.guard import GuardSettings, check_reply, clean_reply, looping_tail
from precis.engine.summary.noise import is_noise

RULES = load_preset("conversation-archive").rules
PREVIOUS = ("Postgres 16 migration: Priya Raman owns it; pg_upgrade --link in the window Saturday 2026-12-05 "
            "02:00-04:00 UTC; rehearsal on staging by 2026-12-02. Budget EUR 41,200 approved. Daniel Osei checks "
            "the refund export before Tuesday. Card updater enabled at about €32.50/month; churn flat, MRR +3.3%.")
CHUNK = "[16:12] Mika: Webhook retries move to Postgres with SKIP LOCKED. About 61,000 deliveries a day."


def flags(reply, previous=PREVIOUS, chunk=CHUNK, hit=False, **kw):
    return check_reply(previous, reply, chunk, hit_max_tokens=hit, rules=RULES, settings=GuardSettings(**kw))[0]


def test_a_real_update_passes():
    assert flags(PREVIOUS + " Webhook retries move to Postgres (SKIP LOCKED), ~61,000 deliveries a day.") == []


def test_collapse_like_the_seeds_round_5():
    short = "The day covered a database migration and some billing topics."
    assert set(flags(short)) >= {"shrank", "dropped_facts"}
    assert len(short) / len(PREVIOUS) > 0.1 and "shrank" not in flags(short, shrink_ratio=0.1)   # configurable


def test_meta_answers_empty_and_truncated():
    assert "meta" in flags("The summary remains unchanged.")
    assert "meta" in flags("There is no new information in this part.")
    assert "meta" in flags("要約は変わりません。")
    assert flags("   ") == ["empty"]
    # a few characters for a part with something in it (SmolLM2 through a server once answered "[Rem")
    part = CHUNK * 4
    assert flags("[Rem", previous="", chunk=part) == ["empty"]
    assert flags("Mika: retries move to Postgres.", previous="", chunk=part) == []
    assert flags("[Rem", previous="", chunk=CHUNK) == []          # a part of one short line: judged by the rest
    assert "truncated" in flags(PREVIOUS + " and then", hit=True)


def test_repetition_echo_and_copy():
    loop = PREVIOUS + "\n" + "\n".join(["- The migration is planned for Saturday night."] * 4)
    assert "repetition" in flags(loop)
    assert looping_tail("intro " + "we will go on and on and on, " * 12)
    echoed = "[Mandatory rules for this round]\n" + RULES + "\n" + PREVIOUS
    assert "echoed_prompt" in flags(echoed)
    long_chunk = " ".join(f"Line {i}: the worker polls due rows with SKIP LOCKED and retries later." for i in range(30))
    assert "copied_chunk" in flags(long_chunk[:1500], previous="", chunk=long_chunk)


def test_preambles_and_fences_are_stripped_not_flagged():
    assert clean_reply("Here is the updated summary:\n\n- one\n- two") == "- one\n- two"
    assert clean_reply("```markdown\n# Title\ntext\n```") == "# Title\ntext"


def test_noise_recognition():
    logs = "\n".join(f"[11:05:0{i}] tool · http GET /api/v1/health -> 200 OK" for i in range(9))
    assert is_noise("[11:05:00] agent started: nightly-sync v2.3.1\n" + logs + "\n[11:05:09] agent finished: ok")
    assert not is_noise(logs + "\n[11:06] Mika: Let's move the migration to Sunday.\n" * 3)


def test_fact_ledger_kept_changed_lost():
    ledger = FactLedger()
    ledger.add_chunk("Priya Raman approved EUR 41,200 on 2026-12-02. Revenue grew 12% to $4.2 million. "
                     "TODO for Daniel: redeliver 1,180 events by Saturday.", 0)
    kinds = {f.kind for f in ledger.facts}
    assert kinds == {"name", "amount", "date", "todo"}
    counts = ledger.check("Priya Raman approved EUR 41200 on 2026-12-02; revenue grew 15% to $4.2 million.")
    status = {f.text: f.status for f in ledger.facts if f.kind != "todo"}
    assert status["EUR 41,200"] == "kept" and status["2026-12-02"] == "kept" and status["Priya Raman"] == "kept"
    assert status["12%"] == "changed"
    assert status["1,180"] == "lost"
    assert counts["kept"] >= 4 and counts["changed"] == 1 and counts["lost"] >= 1
    # the task's sentence, not its whole line (issue 40)
    assert [f.text for f in ledger.todos()] == ["TODO for Daniel: redeliver 1,180 events by Saturday."]


def test_a_task_is_a_deadline_or_an_assignment_never_a_because():
    """"due" as a deadline is a task; "due to" is a cause: an earnings call's "due to the timing lag ... we
    do not expect to ... meet our projections" came out as an "Action:" line."""
    assert is_task("The quarterly report is due Friday.")
    assert is_task("Owner: Mika, due 2026-12-09")
    assert is_task("Industrial Designer: I will send the drawings by Friday .")
    assert is_task("We'll bring the new prototype by next meeting.")
    assert not is_task("And due to the timing lag between when this inflation hits our P&L and when the benefits "
                       "take effect, we do not expect to fully offset the impact in time to meet our projections.")
    assert not is_task("Sales fell due to the 53rd week.")
    # what is owed is no deadline (a development committee meeting's two "Action:" lines)
    assert not is_task("Chair, when it comes to any type of activities that we send our Canadian Armed Forces on, we "
                       "do our due diligence to make sure that we have the right protocols in place.")
    assert not is_task("Mr. Chair, with all due respect to the Minister of Finance, let me point out that he is not "
                       "very clear.")


def test_will_by_is_a_task_when_by_says_when():
    # a development earnings call's passive was an "Action:" line of its summary
    assert not is_task("Turning to slide 18, NewCo will be led by an experienced management team.")
    assert not is_task("Growth will be driven by the core businesses.")
    assert is_task("We will have the report ready by the end of the month.")
    assert is_task("Mika will have the notice out by 2026-12-09.")
    assert is_task("Priya will have the numbers by then.")


def test_japanese_facts():
    kinds = {(f.kind, f.text) for f in extract_facts("議長（石川良一君）：令和二年二月二十六日、予算は三千五百億円です。")}
    assert ("name", "石川良一") in kinds and ("date", "令和二年二月二十六日") in kinds and ("amount", "三千五百億円") in kinds


def test_a_copy_is_caught_wherever_it_starts_and_labels_count_as_echo():
    chunk = "\n".join(f"[09:{i:02d}] Mika: step {i} of the migration runs pg_upgrade on replica r{i}." for i in range(40))
    for offset in range(4):     # any alignment of the copied passage
        reply = "x" * offset + "### Summary\n" + chunk[7 + offset:1800]
        assert "copied_chunk" in flags(reply, previous="", chunk=chunk)
    echoed = PREVIOUS + "\n---\nNew conversation content for this round:\n[16:12] Mika: hi"
    assert "echoed_prompt" in check_reply(PREVIOUS, echoed, CHUNK, hit_max_tokens=False, rules=RULES,
                                          labels=("New conversation content for this round",))[0]


def test_facts_from_tool_logs_are_not_facts_of_the_day():
    ledger = FactLedger()
    ledger.add_chunk("[14:03:31] tool · bash: 605 passed in 242.10s (0:04:02)\n"
                     "[14:05] Mika: The budget is EUR 12,000 for 2027-01-15.\n", 0)
    assert sorted(f.text for f in ledger.facts if f.kind != "name") == ["2027-01-15", "EUR 12,000"]


def test_a_reply_that_pastes_its_chunk_under_the_previous_summary_is_a_copy():
    """What the 1.5B model's rolling rounds did on the development earnings call: the previous summary
    kept, the new part pasted under a heading; judged on the whole reply, a third or more of it was the
    previous summary, so it passed."""
    chunk = "\n".join(f"On Slide {30 + i}, we detail segment {i}: net sales fell {i}% as we lapped the 53rd week, "
                      f"and adjusted operating margin was {10 + i}.{i}% against {12 + i}% a year ago." for i in range(12))
    pasted = PREVIOUS + "\n\n#### Segments:\n" + chunk[:1400]
    got, detail = check_reply(PREVIOUS, pasted, chunk, hit_max_tokens=False, rules=RULES)
    assert "copied_chunk" in got and "adds to the previous summary" in detail
    summarised = PREVIOUS + ("\n\n- Segment sales fell in every segment as the 53rd week was lapped; adjusted "
                             "operating margins were below a year ago in each (slides 30-41).\n- Management "
                             "expects the margin gap to narrow once pricing catches up with costs.")
    assert "copied_chunk" not in flags(summarised, chunk=chunk)
    assert "copied_chunk" not in flags(PREVIOUS + "\n" + chunk[:300], chunk=chunk)   # a short quote is no paste


def test_a_meetings_task_reads_without_its_stutters_and_fillers():
    said = ("Grad B: So that will be sort of the assignment for next week , is to to for slides and whatever net you "
            "picked and and how far you 've gotten .")
    todos = [f.text for f in extract_facts(said) if f.kind == "todo"]
    assert len(todos) == 1
    assert "to to" not in todos[0] and "and and" not in todos[0] and todos[0].endswith("gotten.")
    assert "assignment for next week" in todos[0]


def test_a_task_that_names_nothing_to_do_is_no_todo():
    said = ("Industrial Designer: No, we'll look we'll look into that later. Alright?\n"
            "Project Manager: We're g No but we're we'll have to look into that.\n"
            "Marketing: I'll look into the battery prices by Friday.\n"
            "Mika: I will send the notice by Monday.\n"
            "- [ ] 課題設定は妥当か\n")
    todos = [f.text for f in extract_facts(said) if f.kind == "todo"]
    assert todos == ["Marketing: I'll look into the battery prices by Friday.", "Mika: I will send the notice by Monday.",
                     "課題設定は妥当か"]       # the TODO file gives it its own checkbox


def test_what_a_speaker_will_do_in_the_talk_itself_is_no_task():
    said = ("Regarding today's program, we will first review our fourth quarter and full year results.\n"
            "Today we will provide an update on how we are executing on our strategy.\n"
            "In a moment, we'll share the ways we'll continue to evolve our industry mix.\n"
            "Project Manager: and at the end we will evaluate ourself as a team.\n"
            "We fully redeemed the remaining $183 million of our senior notes due in December 2022.\n"
            "Marketing: I'll send the survey results today by five.\n"
            "Mika: I'll send the notice to the vendor today, I think.\n"
            "Mika: The report is due Monday.\n")
    todos = [f.text for f in extract_facts(said) if f.kind == "todo"]
    assert todos == ["Marketing: I'll send the survey results today by five.",
                     "Mika: I'll send the notice to the vendor today, I think.", "Mika: The report is due Monday."]
    assert not is_task("Today we will provide an update on our COVID-19 testing business.")
