"""What the notes strategy's tests share: whole runs with the scripted fake runtime, scripts, documents."""
from __future__ import annotations

import re

from precis.engine.events import RoundFinished
from precis.engine.runs.report import build_ledgers, build_report, static_prefix_tokens
from precis.engine.runs.run import RunOptions
from tests.fake_runtime import FakeRuntime, diligent
from tests.summary_fixtures import conversation_day, make_plan, run_all, start


def finished_records(events):
    return [e.record for e in events if isinstance(e, RoundFinished)]


def notes_run(script, sessions: int, preset: str = "conversation-archive", summary_words: int | None = None):
    """A whole notes run over a generated day of ``sessions`` sessions, the fake runtime following ``script``
    (``summary_words``: a short summary keeps its notes under one heading)."""
    rt = FakeRuntime(script=script)
    plan = make_plan(rt, conversation_day(sessions=sessions, noise_sessions=()), preset=preset)
    state, options = start(rt, plan, RunOptions(strategy="notes", summary_words=summary_words))
    return rt, plan, state, run_all(rt, plan, state, options)


def every_line_says(kind: str, text: str):
    """A script whose every numbered line of a ``kind`` call says ``text`` (and, of a rewording, the one
    sentence asked alone as well); other calls as diligent."""
    def script(call):
        if call.kind == kind:
            count = len(re.findall(r"^\[\d+\] ", call.content, re.M))
            return "".join(f"[{i}] {text}\n" for i in range(1, count + 1))
        if call.kind == "restate" and kind == "reword":
            return text + "\n"
        return diligent(call)
    return script


def report_of(rt, plan, state):
    return build_report(plan, state, build_ledgers(plan, state), static_prefix_tokens(rt, plan))


def generic_notes_run(script, text: str):
    """A whole notes run over ``text`` under the generic preset, the fake runtime following ``script``."""
    rt = FakeRuntime(script=script)
    plan = make_plan(rt, text, preset="generic")
    state, options = start(rt, plan, RunOptions(strategy="notes"))
    run_all(rt, plan, state, options)
    return rt, state


def refused_and_asked_again(rt) -> bool:
    return [c.retry for c in rt.calls if c.kind == "reword"][:2] == [False, True]


def refuses_every_fourth_point(call):
    """Every rewording of every fourth point brings in a name its sentence does not hold: refused, dropped."""
    said = diligent(call)
    if call.kind == "reword":
        asked = dict(re.findall(r"^\[(\d+)\] (.+)$", call.content, re.M))
        return "".join(f"[{i}] Ben approved it\n" if re.search(r"point (?:1|5|9|13|17):", asked.get(i, "")) else
                       line + "\n" for line in said.splitlines() for i in re.findall(r"^\[(\d+)\]", line))
    if call.kind == "restate" and re.search(r"point (?:1|5|9|13|17):", call.content):
        return "Ben approved it\n"
    return said


def figures_refused(call):
    """Every rewording of a sentence with a figure brings in a name the part does not hold (refused, in both
    numbered asks and alone); the others as diligent."""
    said = diligent(call)
    if call.kind == "reword":
        asked = dict(re.findall(r"^\[(\d+)\] (.+)$", call.content, re.M))
        return "".join(f"[{i}] Ben approved it\n" if re.search(r"\d", asked[i]) else line + "\n"
                       for line in said.splitlines() for i in re.findall(r"^\[(\d+)\]", line))
    if call.kind == "restate" and re.search(r"\d", call.content):
        return "Ben approved it\n"
    return said


def quotation_meeting(rounds: int = 6) -> str:
    lines = []
    for r in range(rounds):
        lines += [f"Project Manager: So the price of remote {r} with the titanium case is here .",
                  "Marketing: Titanium ?", "User Interface: Mm-hmm .", "Marketing: That's expensive .",
                  f"Project Manager: But she wanted the titanium for remote {r} .",
                  f"Industrial Designer: One scroll wheel and {r + 2} push buttons .", "Marketing: Okay .",
                  f"Industrial Designer: The prototype {r} uses a titanium case and a rubber jog wheel for the "
                  "remote control, which the marketing expert found too expensive for the budget ."]
    return "\n".join(lines) + "\n"


GIT_LOG_COMMITS = [
    ("JetPack を 4.6 に変更", "ビルド設定の JetPack のバージョンを 4.6 に変更しました。詳細は CHANGES.md を参照してください。"),
    ("SDL を 2.0.20 に上げる", "SDL のバージョンを 2.0.20 に上げて、Windows のビルドも確認しました。"),
    ("RaspberryPi OS bullseye 対応", "bullseye 向けのビルドを追加し、古い buster 向けの設定を整理しました。"),
    ("Jetson のデコーダーの切り抜きを修正", "デコーダーが出力時に出力サイズでフレームを切り抜いていなかったため修正しました。"),
    ("cmake を 3.22.2 に上げる", "cmake のバージョンを 3.22.2 に上げました。ビルドスクリプトも合わせて更新しました。"),
    ("Offer 時は DataChannel を作る", "DataChannel を使う設定で Offer を行う際には DataChannel を作るように変更しました。"),
    ("TLS 1.3 対応", "シグナリングの接続で TLS 1.3 を使えるようにしました。古い OpenSSL では動きません。"),
    ("スクリーンキャプチャが Linux で落ちるのを修正", "X11 のウィンドウが閉じられたときに落ちていたため修正しました。"),
    ("libwebrtc を m99 に上げる", "libwebrtc のバージョンを m99 に上げ、ビルドが通るように修正しました。"),
    ("FAQ に H.264 の利用について追記", "NVIDIA のビデオカードの NVENC を使えば H.264 が使えることを追記しました。"),
    ("Windows のビルドにアーキテクチャを追加", "x86_64 向けの設定ファイルを分け、ビルドスクリプトを更新しました。"),
    ("ログレベルを下げる", "起動時のログが多すぎたため、既定のログレベルを下げました。"),
] * 2


def git_log() -> str:
    return "".join(f"commit {i:07x}f\nAuthor: tnoho\nDate:   2021-12-29 05:38:27 +0000\n\n{subject}\n- {body}\n\n"
                   f" build/ubuntu-18.04_armv8_jetson_nano/arm64.conf | 4 ++--\n 1 file changed, 2 insertions(+)\n"
                   for i, (subject, body) in enumerate(GIT_LOG_COMMITS))


JAPANESE_STAT = ("\n\n CHANGES.md                                        | 3 +++\n"
                 " build/ubuntu-18.04_armv8_jetson_nano/arm64.conf   | 4 ++--\n"
                 " build/ubuntu-18.04_armv8_jetson_xavier/arm64.conf | 4 ++--\n"
                 " 3 files changed, 7 insertions(+), 4 deletions(-)")


JAPANESE_LOG = "\n".join(           # mostly Latin characters, as a git log is: Japanese by its sentences
    f"change {commit}\nAuthor: {author}\nDate:   2021-12-29 05:38:27 +0000\n\n{message}{JAPANESE_STAT}"
    for commit, author, message in [
        ("1a2b3c4d", "tnoho", "Windows のビルドにアーキテクチャを追加し、x86_64 向けの設定ファイルを分けました。"),
        ("5e6f7a8b", "voluntas", "- JetPack を 4.6 に上げて、Jetson のハードウェアデコーダーの切り抜きを修正しました。"),
        ("9c0d1e2f", "torikizi", "FAQ に SDL を Windows で使う方法と、H.264 を使うための設定の説明を追記しました。"),
    ]) + "\n"


def rolling_run_whose_third_round_collapses(reword=None):
    """A rolling run whose third round fails twice; the fallback's rewordings answer ``reword(call)`` if given."""
    rounds = {"n": 0}

    def collapses_at_3(call):
        if call.kind == "round" and not call.retry:
            rounds["n"] += 1
        if call.kind == "round" and rounds["n"] == 3:
            return "The summary remains unchanged."
        if call.kind in ("reword", "restate") and reword is not None:
            return reword(call)
        return diligent(call)
    rt = FakeRuntime(script=collapses_at_3)
    plan = make_plan(rt, conversation_day(noise_sessions=()))
    state, options = start(rt, plan)
    return rt, plan, state, run_all(rt, plan, state, options)
