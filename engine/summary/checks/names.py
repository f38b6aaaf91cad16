"""Checks of names and numbers: every one a written text gives is the part's, and whoever its sentence reports
as saying something is named."""
from __future__ import annotations

import re

from precis.engine.documents.spoken_text import SPEAKER_PREFIX
from precis.engine.prompts.account import JA_PARTICLES, JA_ROLES
from precis.engine.prompts.notes import EXAMPLE_NAMES
from precis.engine.summary.checks import (
    ACCOUNT_LINE,
    ACCOUNT_MERGE,
    EN,
    JA,
    MERGE,
    REWORDING,
    Check,
    Claim,
    Example,
    language_key,
    merge_claim,
)
from precis.engine.summary.checks import line_example as _line
from precis.engine.summary.checks import note_example as _note
from precis.engine.summary.evidence import STOPWORDS, numbers_held


def _numbers(claim: Claim) -> str | None:
    if not numbers_held(claim.text, claim.shown):
        return "a number the part does not hold"
    return None


# An amount: money, a share, a count of millions ("$1.05 billion", "5.7%", "80 basis points", "¥300 million"),
# its figure the digits; a year, a slide's or a line's number is no amount
_AMOUNT = re.compile(r"[$€£¥]\s?(\d[\d,]*(?:\.\d+)?)|(\d[\d,]*(?:\.\d+)?)\s?(?:%|per ?cent\b|percent\b|basis points?\b|"
                     r"bps\b|(?:million|billion|thousand|trillion|bn)\b|円|万|億)", re.I)


def _figures(text: str) -> set[str]:
    return {(a or b).replace(",", "") for a, b in _AMOUNT.findall(text)}


def _figures_dropped(claim: Claim) -> str | None:
    """A rewording that keeps none of its sentence's amounts: of the development earnings calls' notes whose
    sentence gives one, 10 of 22 said none ("Capital spending is expected to be in a specific range" of
    "... in the range of $1.05 billion to $1.15 billion"), though the rules ask to keep numbers as written and
    a call's human summary is mostly its figures. Any one figure kept passes ("revenue grew 4.7%" of a sentence
    with three)."""
    said = _figures(claim.rests_on)
    if said and not (said & {n.replace(",", "") for n in re.findall(r"\d[\d,]*(?:\.\d+)?", claim.text)}):
        return f"none of the sentence's figures ({', '.join(sorted(said))})"
    return None


_CAPITALISED = re.compile(r"(?<![.!?:]\s)(?<!^)\b[A-Z][a-z]{2,}\b")     # not where a sentence starts


def _names(claim: Claim) -> str | None:
    """A capitalised word (not where the sentence starts) that neither the part nor the names met before
    it hold: a person or place the model brought in."""
    known = claim.shown.lower() + " " + " ".join(claim.known_names).lower()
    invented = [w for w in dict.fromkeys(_CAPITALISED.findall(claim.text))
                if not re.search(rf"\b{re.escape(w.lower())}", known)]
    return f"names {', '.join(invented)}, which the part does not" if invented else None


def names_not_in(point: str, part: str) -> list[str]:
    """Capitalised words of ``point`` the part never uses, in any case: a name the model brought in (the
    1.5B model wrote "Ben invests in brands" of an earnings call: Ben is in the prompt's example). A
    capitalised word where a sentence starts is no sign of a name; the point's first word is checked when
    the part does not hold it either (a sentence's speaker label is the part's). Japanese has no capitals:
    the Japanese example's own names are looked for instead."""
    lowered = part.lower()
    words = _CAPITALISED.findall(point)
    first = re.match(r"\s*([A-Z][a-z]{2,})\b", point)
    if first and first.group(1).lower() not in STOPWORDS:
        words.insert(0, first.group(1))
    words += [name for name in EXAMPLE_NAMES if not name.isascii() and name in point]

    def in_part(word: str) -> bool:
        if not word.isascii():
            return word in part                                  # no word boundaries in Japanese
        return bool(re.search(rf"\b{re.escape(word.lower())}\b", lowered))
    return [w for w in dict.fromkeys(words) if not in_part(w)]


def _not_in_part(claim: Claim) -> str | None:
    """A rewording is held to its part; a merge to its two notes and their quotes (``shown``)."""
    invented = names_not_in(claim.text, claim.shown)
    return f"names {', '.join(invented)}, which the part does not" if invented else None


def _example_speaker(claim: Claim) -> str | None:
    """The worked example's speaker ("Marketing proposes ...") named by a rewording whose sentence has no such
    speaker: the 1.5B model wrote "Marketing plans to maintain focus on long-term priorities" of an earnings
    call, where "marketing" is only a word the part uses."""
    named = [name for name in EXAMPLE_NAMES if name.isascii() and re.search(rf"\b{name}\b", claim.text)
             and not re.search(rf"\b{name}\b", claim.rests_on)]
    return f"names the worked example's {', '.join(named)}, whom its sentence does not" if named else None


# Who a sentence says said it: "Priya says 13 goes out of support and she does not want ..." was Mika's
# line of the sample day, and the 1.5B model's rewording, "Mika proposes moving the billing cluster ...",
# put Priya's view in the speaker's mouth (the README's screenshot). A rewording must name the person its
# sentence reports (pronouns and "everyone" are no one in particular).
REPORTING = ("says|said|thinks|thought|wants|wanted|tells|told|believes|believed|argues|argued|explains|"
             "explained|mentions|mentioned|asks|asked|suggests|suggested|claims|claimed|reports|reported|"
             "insists|insisted|writes|wrote|feels|felt|replied|answered")
_REPORTED = re.compile(rf"\b([A-Z][a-z]+(?: [A-Z][a-z]+)?) (?:{REPORTING})\b|\b(?:said|says|asked|replied|answered) "
                       r"([A-Z][a-z]+(?: [A-Z][a-z]+)?)\b")
_NO_ONE = {"everyone", "everybody", "someone", "somebody", "nobody", "people", "one", "who", "which"}


def reporters_dropped(point: str, sentence: str) -> list[str]:
    """The people ``sentence`` reports as saying, thinking or wanting something whom ``point`` does not
    name by any of their words ("Project Manager", "Priya Patel"; a speaker's label is not a report:
    "Mika: ..." names the speaker, not someone Mika quotes)."""
    said = SPEAKER_PREFIX.sub("", sentence + " ")
    dropped = []
    for name in dict.fromkeys(a or b for a, b in _REPORTED.findall(said)):
        words = [w for w in name.split() if w.lower() not in STOPWORDS | _NO_ONE]
        if words and not any(re.search(rf"\b{re.escape(w)}\b", point, re.I) for w in words):
            dropped.append(name)
    return dropped


def _reporter(claim: Claim) -> str | None:
    dropped = reporters_dropped(claim.text, claim.rests_on)
    return f"leaves out who its sentence says said it: {', '.join(dropped)}" if dropped else None


# Who a line opens with: a Japanese line's subject before its particle (a Latin run, "File created successfully
# atが", or a kanji and katakana word, "議長が"), an English line's first word
_LATIN_OPENER = re.compile(r"^\s*([A-Za-z][A-Za-z0-9_.'’:/@+#-]*(?: [A-Za-z0-9_.'’:/@+#-]+){0,5}?)\s*(?:が|は|も)")
_JA_OPENER = re.compile(r"^\s*([\u30a0-\u30ff\u4e00-\u9fff々]{2,12})(?:さん|君|氏|様)?(?:が|は|も)")
_FIRST_WORD = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_.-]*)")


def _not_an_actor(claim: Claim) -> str | None:
    """A line that does not open with who acts. Any line: one opening with a tool's name (a chat's "[tool_call]
    Bash: ..." makes "Bash" no one). A Japanese chat's line (its names met hold the user and the assistant) opens
    with a name met, as its grammar holds it where the runtime takes one (a model server may not): a development
    day's account opened lines with a tool ("Readが ..."), a tool's output ("File created successfully atが ...",
    its cast read from the tool turns' labels), the meeting example's "議長が" and with no one ("要件が明確になる。",
    "スペックを作成します。"). Any other Japanese line: its subject, where it has one, is a word the part or the
    names met hold. English lines open with a name met or a noun phrase (the account's grammar); a name the part
    lacks is ``invented_names``'s."""
    first = _FIRST_WORD.match(claim.text)
    if first and first.group(1) in claim.tools:
        return f"opens with the tool {first.group(1)}, not with who acts"
    if language_key(claim.language) != JA:
        return None
    if JA_ROLES & set(claim.known_names):
        if any(claim.text.startswith(name + particle) for name in claim.known_names for particle in JA_PARTICLES):
            return None
        return "opens with no name met: a chat's line opens with who acts (ユーザーが, アシスタントが, ...)"
    opener = _LATIN_OPENER.match(claim.text) or _JA_OPENER.match(claim.text)
    if not opener:
        return None
    actor = opener.group(1).strip()
    known = claim.shown.lower() + "\n" + "\n".join(claim.known_names).lower()
    return None if actor.lower() in known else f"opens with {actor}, which neither the part nor the names met hold"


STORY = ("Maitland stirred, came half awake, and opened his eyes. The room was dark except where moonlight fell on "
         "the foot of his bed. This wasn't his room! A man and a woman were coming toward him up the hill. "
         "\"My name is Swarts. I want to give you some psychological tests.\"")
MEETING = ("Project Manager: So we go round each of you in turn. Industrial Designer: The chip is cheap, about "
           "twelve euros, and a kinetic battery costs 3 euros more.\nMarketing: I think we should have an L_C_D.")
BRANDS = "Dave: we invest in our brands to build stronger connections with consumers."
FOCUS = "Dave: we will stay focused on marketing and on the long-term priorities of our business."
PRIYA = ("Mika: Morning. Priya says 13 goes out of support and she does not want to run an unsupported major on the "
         "billing cluster past the end of the year.")
MAY = ("Mika proposes moving the launch of the remote to May",) * 2
# a day with an assistant as the account's model is shown it (the people's words only, each under its role)
HOOK_PART = ("[assistant] コミットしようとしたところ、pre-commit のフックがバグのメッセージを出して終了しました。"
             "フックの設定を確認します。\n[user] フックは飛ばしてコミットしてください。")
HOOK_PART_EN = ("[assistant] The commit stopped: the pre-commit hook exits with an error. I'll run the hook again.\n"
                "[user] Skip the hook and commit.")
CHAT_ROLES = ("ユーザー", "アシスタント")
TOOLS = ("AskUserQuestion", "Bash", "Read", "ToolSearch", "Write")
LATE = ("Mika says the supplier cannot deliver the cases before May",) * 2

CAPEX = "We expect capital expenditures in the range of $1.05 billion to $1.15 billion in fiscal 2021."

CHECKS = (
    Check("numbers", frozenset({ACCOUNT_LINE}), None, _numbers,
          refuses=(Example(_line("The Industrial Designer says the chip costs 15 euros.", MEETING),
                           "a changed figure"),),
          passes=(Example(_line("The Industrial Designer says a kinetic battery costs 3 euros more.", MEETING),
                          "the part's own figure"),
                  Example(_line("The chip costs about 12 euros.", MEETING), "twelve written in digits"))),
    Check("invented_names", frozenset({ACCOUNT_LINE}), frozenset({EN}), _names,
          refuses=(Example(_line("Maitland meets Doctor Kessler in the room.", STORY), "a name no one wrote"),),
          passes=(Example(_line("Maitland meets Swarts and Ching.", STORY, known_names=("Ching",)),
                          "Ching was named in an earlier part"),)),
    Check("not_an_actor", frozenset({ACCOUNT_LINE}), None, _not_an_actor,
          refuses=tuple(Example(_line(text, HOOK_PART, language="Japanese", known_names=CHAT_ROLES, tools=TOOLS), why)
                        for text, why in (
              ("Bashがcommit-msg フックを設定する。", "a tool's name as the actor (development run, refused then "
                                                    "as unsupported only)"),
              ("Readがpre-commit フックの設定を確認する。", "a tool's name, kept in a development run's account"),
              ("AskUserQuestionがフックのチェックは通っていることを確認する。", "a tool's name (development run)"),
              ("File created successfully atがpre-commit フレームワーク自体のバグで終了していることを確認する。",
               "a tool's output as the actor, kept in a development run's account"),
              ("議長が、フックの設定を確認する。", "the Japanese meeting example's chair (development run)"),
              ("スペックを作成します。", "no one, kept in a development run's account"),
              ("ユーザーから更新を頼まれたのでフックを直す。", "the user named, but not as who acts"))) + (
              Example(_line("議長が、フックの設定を確認する。", HOOK_PART, language="Japanese"),
                      "not a chat's cast: a subject the part does not hold"),
              Example(_line("Bash runs the hook again and the commit fails.", HOOK_PART_EN, tools=TOOLS),
                      "a tool's name opening an English line (a model server need not hold the grammar)")),
          passes=tuple(Example(_line(text, HOOK_PART, language="Japanese", known_names=CHAT_ROLES, tools=TOOLS), why)
                       for text, why in (
              ("アシスタントが、pre-commit のフックの設定を確認する。", "the assistant, a name met"),
              ("ユーザーが、フックを飛ばしてコミットするよう頼む。", "the user, a name met"))) + (
              Example(_line("pre-commitのフックがバグで終了し、コミットが止まる。", HOOK_PART, language="Japanese"),
                      "not a chat's cast: a thing the part names, as the subject"),
              Example(_line("コミットがフックのバグで止まる。", HOOK_PART, language="Japanese"),
                      "not a chat's cast: a subject the part holds"),
              Example(_line("The assistant runs the hook with Bash and the commit fails.", HOOK_PART_EN, tools=TOOLS),
                      "a tool named inside the line, not as its actor"),
              Example(_line("Maitland wakes in a strange room.", STORY), "no tools: a story's line"))),
    Check("name_not_in_part", frozenset({REWORDING, MERGE, ACCOUNT_MERGE}), None, _not_in_part,
          refuses=(Example(_note("Ben invests in brands for consumers", BRANDS),
                           "the worked example's Ben (development earnings call)"),
                   Example(_note("田中は納品を 5 月と報告", "営業部の鈴木: 納品は 5 月です。", language="Japanese"),
                           "the Japanese example's name"),
                   Example(merge_claim("Ben proposes a May launch as the supplier is late", (MAY, LATE), None),
                           "a merge that brings in a name")),
          passes=(Example(_note("Dave invests in brands. Consumers matter", BRANDS), "sentence starts are no names"),
                  Example(_note("営業部の鈴木は納品を 5 月と報告", "営業部の鈴木: 納品は 5 月です。",
                                language="Japanese"),
                          "the part's own name"),
                  Example(merge_claim("Mika proposes a May launch as the supplier cannot deliver the cases earlier",
                                      (MAY, LATE), None), "the notes' names"))),
    Check("example_speaker", frozenset({REWORDING}), None, _example_speaker,
          refuses=(Example(_note("Marketing plans to stay focused on long-term priorities", FOCUS),
                           "the example's speaker as the subject of a call with no speakers (development run)"),),
          passes=(Example(_note("Marketing wants a yellow remote", "Marketing: I think the remote should be yellow."),
                          "the sentence's own speaker"),
                  Example(_note("The business stays focused on marketing", FOCUS), "marketing as a word"))),
    Check("figures_dropped", frozenset({REWORDING}), None, _figures_dropped,
          refuses=(Example(_note("Capital spending is expected to be in a specific range", CAPEX),
                           "the range left out (development earnings call)"),
                   Example(_note("Sales increased despite weather closures.",
                                 "Same-store sales for February increased 5.7% despite the weather closures."),
                           "the growth without its figure (development earnings call)")),
          passes=(Example(_note("Capital spending is expected at $1.05 billion to $1.15 billion", CAPEX),
                          "the range kept"),
                  Example(_note("Capex to be 1.05 to 1.15 billion dollars", CAPEX), "the figures, said otherwise"),
                  Example(_note("The call reviews the results on slide 7", "Turning to slide 7, the results."),
                          "no amount to keep"))),
    Check("reporter_dropped", frozenset({REWORDING}), None, _reporter,
          refuses=(Example(_note("Mika proposes moving the billing cluster past the end of the year due to a lack "
                                 "of support for 13", PRIYA),
                           "Priya's view in the speaker's mouth (the sample day, the README's screenshot)"),
                   Example(_note("He agrees", '"Yes," said Jacobs.'), "said Jacobs: Jacobs not named")),
          passes=(Example(_note("Priya wants PostgreSQL 13 off the billing cluster by the end of the year", PRIYA),
                          "Priya named"),
                  Example(_note("Swarts says to get going.", '"Come on," Swarts said patiently, "let\'s get going.'),
                          "named"),
                  Example(_note("The team keeps the yellow case", "Marketing: We keep the yellow case ."),
                          "a speaker's label is no report"),
                  Example(_note("The manager wants a yellow case", "Then Project Manager said it must be yellow."),
                          "a role named by its words"),
                  Example(_note("Everyone agrees", "Everyone says yes."), "everyone is no one in particular"))),
)
