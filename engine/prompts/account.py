"""Prompts and output grammars of the account: what happens in each part, said in a held shape.

The model reads one whole part (with the names the document gave before it in view, so that it can say who
acts) and writes a fixed number of numbered lines, each one sentence of "who does what (to whom, why)". A
GBNF grammar holds the shape: exactly that many lines, each opening with a name the document uses or a
noun phrase ("The crew", "A guard"), never with a pronoun, "I" or "you"; bounded in length; no brackets,
no second sentence. The rules and a worked example (a made-up document of the same kind, given as an
earlier exchange) come first and are the same every part, so llama.cpp's prefix reuse evaluates them once.

Why this shape (docs/quality.md, "The account"): the 1.5B model cannot rewrite a whole summary each round,
nor say one sentence without its context, nor write free prose with the summary in view (it writes the
story on); it can read a part and say what happens in it when the answer is held to a shape.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from precis.engine.prompts.inert import as_data
from precis.engine.prompts.layout import is_japanese
from precis.engine.prompts.presets import Preset

LINE_CHARS = (12, 170)          # one line's sentence after its opening name, characters
JA_LINE_CHARS = (8, 90)
TOKENS_PER_LINE = 70            # a line and its number, at most (the grammar's bound is about 50 tokens)
JA_TOKENS_PER_LINE = 110
GROUP_OPENERS = ("The ", "A ", "An ")       # a line may open with a noun phrase instead of a name

SYSTEM = "You tell what happens in a long document, one part at a time. You only write the numbered lines."
SYSTEM_JA = "長い文書を一部ずつ読み、そこで起きたことを伝えます。番号付きの行だけを書きます。"

RULES = "\n".join([
    '[Rules]',
    'I send one part of a document at a time. Read the whole part, then say what happens in it: its '
    'main events, in order, one per line.',
    'Each line is one sentence: who does what (to whom, and why), in the present tense, in at most '
    '25 words of your own. Never copy a sentence of the part.',
    'Say what is done, found, proposed or decided, with the names, figures and reasons the part '
    'gives; not only that someone discusses or asks about something.',
    'Begin each line with the name of the person or group who acts, as the document names them; '
    'never with he, she, they, I or you.',
    'Only what the part says: no comment on the document, no question.',
    '[End of rules]',
])
RULES_JA = "\n".join([
    '[ルール]',
    '文書の一部を一つずつ送ります。その部分を全部読んでから、そこで起きた主なことを順に、1 行に一つずつ書くこと。',
    '各行は一文：誰が何を（誰に、なぜ）したか。自分の言葉で 60 字以内。本文の文をそのまま写さない。',
    '何をした・わかった・提案した・決めたかを、その部分にある名前・数字・理由とともに書く。「〜について話し合う」だけで終わらせない。',
    '行は、行動した人や組織の名前から始める（文書での呼び方のとおりに）。',
    'その部分に書かれていることだけを書く。文書についての感想や質問は書かない。',
    '[ルールここまで]',
])

# Worked examples: made-up documents, nothing of any real one (a line that repeats their words where the part
# does not is refused: engine.summary.checks.grounding, "example_leak").
STORY_EXAMPLE = ("The storm had kept the ferry in port for two days. On the third morning Captain Ilse Varga ordered "
                 "the crew aboard, though the radio still warned of high seas. Her first mate, Tomas, argued that the "
                 "engine would not survive another crossing. \"Then we row,\" she said. They left at dawn. Halfway "
                 "across, the engine died, and Tomas spent four hours repairing it while the passengers bailed water. "
                 "When they reached the island, the mayor was waiting on the pier with the medicine the ferry had "
                 "come for.")
STORY_ANSWER = ("[1] Captain Ilse Varga orders the crew aboard after a two-day storm, despite warnings of high seas.\n"
                "[2] Tomas, her first mate, argues that the engine will not survive the crossing.\n"
                "[3] The engine fails halfway, and Tomas repairs it in four hours while the passengers bail water.\n"
                "[4] The ferry reaches the island, where the mayor waits with the medicine it came for.")
# Prose that tells no story (an earnings call, a report, an article: no dialogue, engine.documents.document_kind.
# is_narrative) gets a report of the same kind. With the story example a development earnings call's account
# carried the example's ferry into a line, and said figures without the segment they belong to.
REPORT_EXAMPLE = ("Good morning, and thank you for joining Harwick Tools' third-quarter call. Net sales were $412 "
                  "million, up 6% from a year ago, driven by our Garden segment, which grew 14% on strong demand for "
                  "battery mowers. Our Workshop segment declined 3%, as dealers reduced their inventory. For the full "
                  "year, we now expect earnings per share of $2.10 to $2.20, up from our earlier range of $1.95 to "
                  "$2.05. We closed the purchase of Lindqvist Pumps in August for $58 million in cash, and we will "
                  "open a second plant in Ohio next spring to shorten delivery times.")
REPORT_ANSWER = ("[1] Harwick Tools reports third-quarter net sales of $412 million, up 6%, led by 14% growth in its "
                 "Garden segment.\n"
                 "[2] The Workshop segment declines 3% because dealers reduce their inventory.\n"
                 "[3] Harwick Tools raises its full-year guidance to earnings per share of $2.10 to $2.20, from $1.95 "
                 "to $2.05.\n"
                 "[4] Harwick Tools buys Lindqvist Pumps for $58 million in cash and plans a second plant in Ohio.")
MEETING_EXAMPLE = ("Chair: Okay, let's start. The point today is the new delivery van. Sara, the quotes?\n"
                   "Sara: Um, I got two. Vanline is 31,000 and Kessler is 27,500, but Kessler can't deliver before "
                   "June.\nChair: June is too late for the summer season.\n"
                   "Ravi: I'd still take Kessler. We could rent a van for May, that's about 900 a month.\n"
                   "Chair: Okay, fair. So Kessler, plus a rental for May. Ravi, can you book the rental by Friday?\n"
                   "Ravi: Sure.\nSara: And who asks the bank about the loan? Nobody yet, I think.")
MEETING_ANSWER = ("[1] The Chair opens the meeting on buying a new delivery van.\n"
                  "[2] Sara reports two quotes: Vanline at 31,000 and Kessler at 27,500, delivering only from June.\n"
                  "[3] Ravi proposes Kessler with a rented van for May at about 900 a month, and the Chair agrees.\n"
                  "[4] Ravi will book the rental by Friday, and nobody is yet asking the bank about the loan.")
CHAT_EXAMPLE = ("[user] The nightly backup failed again, can you look at the log?\n"
                "[assistant] The log shows the disk filled up at 02:10. I'll rotate the old archives and keep 7 days.\n"
                "[tool] removed 212 files\n"
                "[assistant] Done: that freed 41 GB. From now on the job checks free space before it starts.\n"
                "[user] Good. Tomorrow let's move the archives to the NAS.")
CHAT_ANSWER = ("[1] The user asks the assistant to find out why the nightly backup failed.\n"
               "[2] The assistant finds the disk full at 02:10 and rotates old archives, keeping 7 days and freeing "
               "41 GB.\n"
               "[3] The assistant makes the job check free space before it starts, from now on.\n"
               "[4] The user plans to move the archives to the NAS tomorrow.")
STORY_EXAMPLE_JA = ("嵐のため、フェリーは二日間港を出られなかった。三日目の朝、ヴァルガ船長は高波の警報が続くなか"
                    "乗組員を"
                    "船に呼んだ。一等航海士のトマスは、エンジンがもう一度の航海には耐えられないと反対した。途中でエンジン"
                    "が止まり、トマスが四時間かけて修理するあいだ、乗客は水をかき出した。島に着くと、町長が薬を持って"
                    "桟橋で待っていた。")
STORY_ANSWER_JA = ("[1] ヴァルガ船長が、二日間の嵐のあと警報をおして乗組員を船に呼ぶ。\n"
                   "[2] 一等航海士のトマスが、エンジンが航海に耐えないと反対する。\n"
                   "[3] 途中でエンジンが止まり、トマスが四時間かけて直すあいだ乗客が水をかき出す。\n"
                   "[4] フェリーが島に着き、町長が薬を持って桟橋で待っている。")
REPORT_EXAMPLE_JA = ("ハーウィック工具の第3四半期の売上高は412億円で、前年同期から6%増えました。"
                     "けん引したのはガーデン部門で、"
                     "電動芝刈り機の需要が強く14%伸びました。一方、ワークショップ部門は販売店の在庫調整により3%減りました。"
                     "通期の1株当たり利益の見通しは、従来の195円から205円を、210円から220円に引き上げます。8月には"
                     "リンドクヴィスト・ポンプを58億円で買収し、来春にはオハイオに第二工場を開きます。")
REPORT_ANSWER_JA = ("[1] ハーウィック工具が、第3四半期の売上高412億円（6%増）を報告し、"
                    "ガーデン部門の14%増がけん引した。\n"
                    "[2] ワークショップ部門は、販売店の在庫調整で3%減った。\n"
                    "[3] ハーウィック工具が、通期の1株当たり利益の見通しを210円から220円に引き上げる。\n"
                    "[4] ハーウィック工具が、リンドクヴィスト・ポンプを58億円で買収し、オハイオに第二工場を開く。")
MEETING_EXAMPLE_JA = ("議長：では始めます。今日の議題は新しい配送用バンです。佐藤さん、見積もりは？\n"
                      "佐藤：二社から取りました。A社は310万円、B社は275万円ですが、B社は6月まで納車できません。\n"
                      "議長：6月では夏の繁忙期に間に合いません。\n"
                      "田中：それでもB社がいいと思います。5月はレンタルで、月9万円ほどです。\n"
                      "議長：では、B社と5月のレンタルで。田中さん、金曜日までにレンタルを予約してください。\n"
                      "田中：わかりました。")
MEETING_ANSWER_JA = ("[1] 議長が、新しい配送用バンの購入を議題に会議を始める。\n"
                     "[2] 佐藤が二社の見積もりを報告する：A社は310万円、B社は275万円で納車は6月から。\n"
                     "[3] 田中が5月を月9万円ほどのレンタルでしのぐB社案を出し、議長が了承する。\n"
                     "[4] 田中が金曜日までにレンタルを予約する。")

# A Japanese day with an assistant: its lines open with who acts (the user or the assistant, never a tool) and
# say what was done, what was decided and why, what is kept as a habit and what is left to do, in the forms the
# account's shape sorts into the seed's layers and TODOs (engine.summary.account_shape). Without it a Japanese
# chat was given the meeting example, and a development day's account opened with its chair: "議長が、..."
# Its turns are labelled as a Japanese chat's part is shown (engine.summary.shown_part).
CHAT_EXAMPLE_JA = ("[ユーザー] 請求書のCSVを表計算ソフトで開くと、金額の列が文字化けします。原因を見てもらえますか。\n"
                   "[アシスタント] invoice_export.py を読みました。BOMなしのUTF-8で書き出しているため、表計算ソフトが"
                   "文字コードを誤認しています。BOM付きに変えます。\n"
                   "[ツール] 14 passed in 0.9s\n"
                   "[アシスタント] 修正し、テスト14件が通りました。今後、CSVを書き出すときは必ず文字コードを"
                   "指定します。\n"
                   "[ユーザー] ありがとう。区切り文字をタブにするかは、経理に聞いてから金曜日に決めます。")
CHAT_ANSWER_JA = ("[1] ユーザーが、請求書のCSVで金額の列が文字化けすると伝え、原因の調査を頼む。\n"
                  "[2] アシスタントが、BOMなしの書き出しが原因のため、invoice_export.py をBOM付きにすると決める。\n"
                  "[3] アシスタントが直してテスト14件が通り、今後CSVは必ず文字コードを指定して書き出す。\n"
                  "[4] ユーザーが、区切り文字をタブにするかを経理に聞いて金曜日に決める予定だ。")

EXAMPLE_LINES = 4
# Who acts in a chat, by the role of the turns they wrote: (English, Japanese) (engine.summary.cast). English
# "The user" opens a line as any noun phrase does; a Japanese chat's lines are held to open with one of the names
# met, as ユーザーが / アシスタントが ... (account_grammar), where a free opening gave "要件が明確になる" (no one)
# and "Readが ..." (a tool) on a development day.
ROLE_NAMES = {"user": ("The user", "ユーザー"), "human": ("The user", "ユーザー"),
              "assistant": ("The assistant", "アシスタント"), "ai": ("The assistant", "アシスタント")}
JA_ROLES = frozenset(ja for _, ja in ROLE_NAMES.values())
JA_PARTICLES = ("が", "は", "も")


@dataclass(frozen=True)
class AccountLayout:
    preset: Preset
    date: str
    language: str | None = None
    narrative: bool = True      # prose that tells a story (engine.documents.document_kind.is_narrative)

    @property
    def japanese(self) -> bool:
        return is_japanese(self.language)

    def example(self) -> tuple[str, str]:
        """The worked example of the preset's kind of document; for any other, a story's where the prose tells
        one, else a report's."""
        if self.japanese:
            if self.preset.name == "meeting-minutes":
                return MEETING_EXAMPLE_JA, MEETING_ANSWER_JA
            if self.preset.name == "conversation-archive":
                return CHAT_EXAMPLE_JA, CHAT_ANSWER_JA
            return (STORY_EXAMPLE_JA, STORY_ANSWER_JA) if self.narrative else (REPORT_EXAMPLE_JA, REPORT_ANSWER_JA)
        if self.preset.name == "meeting-minutes":
            return MEETING_EXAMPLE, MEETING_ANSWER
        if self.preset.name == "conversation-archive":
            return CHAT_EXAMPLE, CHAT_ANSWER
        return (STORY_EXAMPLE, STORY_ANSWER) if self.narrative else (REPORT_EXAMPLE, REPORT_ANSWER)

    def _listed(self, label: str, label_ja: str, words) -> str:
        """"Names met so far: a, b" (Japanese: "...：a、b") and a line break, or "" for none."""
        if not words:
            return ""
        return (label_ja + "：" + "、".join(words) if self.japanese else f"{label}: " + ", ".join(words)) + "\n"

    def _messages(self, example_lines: int, user: str, count: int) -> list[dict]:
        """The rules and the worked example (its first ``example_lines`` lines) as an earlier exchange, the same
        every call so llama.cpp reuses them, then ``user`` and the ask for ``count`` lines."""
        example, answer = self.example()
        ask = "起きたこと" if self.japanese else "What happens"
        return [{"role": "system", "content": SYSTEM_JA if self.japanese else SYSTEM},
                {"role": "user", "content": f"{RULES_JA if self.japanese else RULES}\n<part>\n{example}\n</part>\n"
                                            f"{ask} ([1] to [{example_lines}]):"},
                {"role": "assistant", "content": "\n".join(answer.splitlines()[:example_lines])},
                {"role": "user", "content": f"{user}{ask} ([1] to [{count}]):"}]

    def part_messages(self, part: str, number: int, parts: int, names: list[str], count: int,
                      topics: list[str] = ()) -> list[dict]:
        """What happens in part ``number`` of ``parts`` (1-based), in ``count`` lines; ``topics``: words the part
        keeps coming back to (engine.summary.part_topics), shown after it."""
        return self._messages(EXAMPLE_LINES, self._listed("Names met so far", "これまでに出てきた名前", names)
                              + f"<part {number} of {parts}>\n{as_data(part.strip())}\n</part>\n"
                              + self._listed("It keeps coming back to", "この部分でよく出てくる語", topics), count)

    def restate_messages(self, passage: str, names: list[str]) -> list[dict]:
        """One line for a passage of the part: the second ask for a line its checks refused, with the
        sentences it was linked to (and their neighbours) in view."""
        return self._messages(1, self._listed("Names met so far", "これまでに出てきた名前", names)
                              + f"<part>\n{as_data(passage.strip())}\n</part>\n", 1)

    def grammar(self, count: int, names: list[str]) -> str:
        """A Japanese chat's lines (its cast holds the user and the assistant) open with a name met; any other
        Japanese line opens freely (a Japanese story's or meeting's names are not found by code)."""
        chat = self.japanese and any(n in JA_ROLES for n in names)
        return account_grammar(count, names, self.japanese, japanese_openers=chat)


def _literal(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


_NAME_SHAPE = re.compile(r"^[^\n\[\]]{1,60}$")


def account_grammar(count: int, names: list[str], japanese: bool = False, japanese_openers: bool = False) -> str:
    """GBNF of exactly ``count`` numbered lines "[1] ..." in order, each one sentence. English: each opens with
    one of ``names`` or a noun phrase ("The crew", "A guard"), so none opens with a pronoun, "I" or "you"; a
    full stop inside the sentence only between digits ("3.5") or in letters' abbreviations ("A.D.", "U.S.").
    Japanese: a sentence up to its "。", opening with one of ``names`` and its particle ("アシスタントが、")
    where ``japanese_openers``."""
    lines = [f'line{i} ::= "[{i}] " sentence "\\n"' for i in range(1, count + 1)]
    if japanese:
        lo, hi = JA_LINE_CHARS
        openers = [_literal(n) for n in dict.fromkeys(names) if _NAME_SHAPE.match(n)] if japanese_openers else []
        if openers:
            particles = " | ".join(_literal(p) for p in JA_PARTICLES)
            body = [f'sentence ::= opener jchar{{{lo},{hi}}} "。"',
                    f'opener ::= ({" | ".join(openers)}) ({particles}) "、"?']
        else:
            body = [f'sentence ::= jchar{{{lo},{hi}}} "。"']
        body.append(r'jchar ::= [^\n\[\]。]')
    else:
        lo, hi = LINE_CHARS
        openers = [f'{_literal(n)} (" " | "\'s ")' for n in dict.fromkeys(names) if _NAME_SHAPE.match(n)]
        openers += [f'{_literal(g)} [A-Za-z]' for g in GROUP_OPENERS]
        body = [f"sentence ::= opener lchar{{{lo},{hi}}} [.!]",
                "opener ::= " + " | ".join(f"({o})" for o in openers),
                r'lchar ::= [^\n\[\].!?] | [0-9] "." [0-9] | "." [A-Z] "."']
    return "\n".join(["root ::= " + " ".join(f"line{i}" for i in range(1, count + 1)), *lines, *body, ""])


_LINE = re.compile(r"^\s*\[(\d{1,2})\]\s*(.+?)\s*$")


def parse_lines(text: str) -> dict[int, str]:
    """The line text by number from "[n] ..." lines."""
    return {int(m.group(1)): m.group(2) for m in map(_LINE.match, text.splitlines()) if m}
