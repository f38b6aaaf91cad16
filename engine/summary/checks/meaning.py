"""Checks that what was written means what its sentences mean: who did what to whom (whether: engine.summary.
checks.negation)."""
from __future__ import annotations

import bisect
import functools
import re

from precis.engine.documents.spoken_text import SPEAKER_PREFIX
from precis.engine.summary.alignment import PartIndex, said_units, source_sentences, units
from precis.engine.summary.checks import (
    ACCOUNT_LINE,
    REWORDING,
    Check,
    Claim,
    Example,
    line_example,
    note_example,
)
from precis.engine.summary.doers import (
    antecedent,
    bare,
    is_mutual,
    is_name,
    line_doer,
    same_person,
    same_speaker,
    sayings,
    uses,
    verb_stem,
)
from precis.engine.summary.evidence import STOPWORDS, _stem

_WORD = re.compile(r"[A-Za-z][A-Za-z'’-]*")


def _positions(words: list[str], wanted: str) -> list[int]:
    return [i for i, w in enumerate(words) if w == wanted]


_PASSIVE_AUX = frozenset({"is", "are", "was", "were", "be", "been", "being", "get", "gets", "got"})


def _tokens(text: str) -> list[str]:
    """Names as written (lower case, no possessive), other words stemmed."""
    return [w.lower().rstrip("'’s") if w[0].isupper() else _stem(w.lower()) for w in _WORD.findall(text)]


def _actors(text: str) -> set[str]:
    """Who can do something in a sentence: its names, and the nouns it names with "the" ("the pilot"): a
    story calls people by their role as often as by their name ("Retief hands the pilot a power pistol" of
    "The pilot ... handed Retief a heavy old-fashioned power pistol", a development story)."""
    words = _WORD.findall(text)
    actors = {w.lower().rstrip("'’s") for w in words if w[0].isupper() and w.lower() not in STOPWORDS}
    actors |= {_stem(b.lower()) for a, b in zip(words, words[1:])
               if a.lower() == "the" and b[0].islower() and b.lower() not in STOPWORDS and len(b) > 2}
    return actors


def _roles(claim: Claim) -> str | None:
    """Who did what to whom, turned around: the sentence written names X before its verb and Y after it,
    where a sentence it rests on names Y before that verb and X after it, and X nowhere before it ("Bruce
    frowned slyly at Jacobs' thin face" of "Jacobs' thin face frowned slyly at Bruce", a held-out story).
    X and Y are names or "the" nouns (_actors). A source in the passive ("Bruce was greeted by Jacobs")
    said actively is fair, so a verb after "was", "were", "got" ... in the source decides nothing."""
    if not claim.alignment:
        return None
    written = _tokens(claim.text)
    names = _actors(claim.text)
    for source in claim.alignment.references:
        said = _tokens(source.text)
        shared = [n for n in names if n in said]
        if len(shared) < 2:
            continue
        for v, verb in enumerate(written):
            if verb in names or len(verb) < 4 or verb not in said:
                continue
            before = [n for n in shared if n in written[:v]]
            after = [n for n in shared if n in written[v + 1:]]
            at = said.index(verb)
            if at and said[at - 1] in _PASSIVE_AUX:
                break
            for x in before:
                for y in after:
                    if x == y:
                        continue
                    if y in said[:at] and x in said[at + 1:] and x not in said[:at]:
                        return (f"{x.title()} and {y.title()} swapped around '{verb}' "
                                f"(the sentence: {source.text[:80]!r})")
            break               # the first verb the sentence shares decides
    return None


# "X asks if / whether / about / how ...": a question put ("X asks Y to ..." is a request, not read here)
_QUESTION_WORD = r"(?:if|whether|about|how|why|what|who|whom|which|where|when)"
_ASKS = re.compile(rf"^(?:asks|wonders|inquires|enquires|queries)\b(?:\s+(?!{_QUESTION_WORD}\b)[\w'’-]+){{0,3}}"
                   rf"\s+{_QUESTION_WORD}\b", re.I)
QUESTION_NEAR_SENTENCES = 2     # of the part's sentences either side of a reference: where the question is put


def _asks_unasked(claim: Claim) -> str | None:
    """In a transcript, a line that says a speaker asks something where no question of theirs is near what it
    rests on. The commonest wrong act in the check half's hand labels: "asks" of a speaker who stated it
    ("Grad B asks if the system has a map type display": he says it has one), 24 of 41 "asks" lines unfaithful;
    of the 15 labelled lines this refuses, 11 are unfaithful, 9 of them lines the second reading keeps
    (docs/quality-checks.md, "A speaker's act"). A transcript that writes no question marks is not read."""
    if not claim.alignment or not claim.alignment.references or _CHAT_ROLE.search(claim.shown):
        return None
    who = opening_speaker(claim.text, claim.shown)
    if who is None:
        return None
    body = claim.text.lstrip()
    if not _ASKS.match(body[speaker_opening_end(body, who):].lstrip()):
        return None
    sentences = _part_reading(claim.shown)[0]
    if not any("?" in s.text for s in sentences):
        return None
    at = {s.start: i for i, s in enumerate(sentences)}
    near = {j for ref in claim.alignment.references if ref.start in at
            for j in range(at[ref.start] - QUESTION_NEAR_SENTENCES, at[ref.start] + QUESTION_NEAR_SENTENCES + 1)
            if 0 <= j < len(sentences)}
    if any(sentences[j].speaker == who and "?" in sentences[j].text for j in near):
        return None
    return f"{who} puts no question near what it rests on (no question mark in their turns there)"


@functools.lru_cache(maxsize=4)
def _speakers(part: str) -> frozenset[str]:
    return frozenset(s.speaker for s in source_sentences(part) if s.speaker)


ARTICLE = re.compile(r"^(?:the|a|an) ", re.I)
_NAMING = re.compile(r"(?:[A-Z][\w'’-]*\s)+(?:team\s|designer\s|manager\s)?")


# A chat's part as the account shows it: each turn's words under its role's label at a line's start
# (engine.summary.shown_part), in English or as a Japanese account shows them
_CHAT_ROLE = re.compile(r"^\[(user|assistant|ユーザー|アシスタント)\] ", re.M)
_ROLE_OF_OPENING = (("ユーザー", "user"), ("アシスタント", "assistant"), ("the user", "user"),
                    ("the assistant", "assistant"), ("user", "user"), ("assistant", "assistant"))
_ROLE_WORDS = {"user": ("ユーザー", "user"), "assistant": ("アシスタント", "assistant")}
_ROLE_OF_LABEL = {"ユーザー": "user", "アシスタント": "assistant", "user": "user", "assistant": "assistant"}


def chat_roles(shown: str):
    """For a chat's part as the account shows it, a function from an offset in it to the role of the turn
    there ("user", "assistant", or "" before the first label); None when the part is no chat."""
    labels = [(m.start(), _ROLE_OF_LABEL[m.group(1)]) for m in _CHAT_ROLE.finditer(shown)]
    if not labels:
        return None
    starts = [at for at, _ in labels]

    def role_of(offset: int) -> str:
        i = bisect.bisect_right(starts, offset) - 1
        return labels[i][1] if i >= 0 else ""
    return role_of


def opening_role(text: str) -> str | None:
    """The chat role a line opens with ("The assistant finds ...", "ユーザーが ..."), or None."""
    opening = text.lstrip().lower()
    return next((role for word, role in _ROLE_OF_OPENING if opening.startswith(word)), None)


def turn_holds_line(shared: set[str], said: set[str]) -> bool:
    """A chat turn's sentence holds a line when it shares a fifth of what the line says, two units at least (a
    Japanese line shares "する" with any sentence)."""
    return len(shared) >= max(2, len(said) / 5)


def _chat_role(claim: Claim) -> str | None:
    """In a chat, a line that gives the user what only the assistant said or did, or the other way round
    ("ユーザーが、commit-msg フックが ... exit code 1 を返しています" resting on the assistant's diagnosis;
    "ユーザーが、実行してください" on the assistant's "必要なら実行してください": a hand-labelled chat day, where 3
    of the 4 unfaithful lines of 10 were such): none of the sentences it rests on is in the actor's own turns or names
    them."""
    role_of = chat_roles(claim.shown)
    if role_of is None:
        return None
    actor = opening_role(claim.text)
    if actor is None:
        return None
    # what the line says beyond who acts must be in a sentence of the actor's own turns, or one naming them
    said = units(claim.text) - set().union(*(units(w) for w in _ROLE_WORDS[actor]))
    for sentence in claim.alignment.references:
        role = role_of(sentence.start)
        shared = units(_CHAT_ROLE.sub("", sentence.text)) & said
        if role == "" or ((role == actor or any(w in sentence.text.lower() for w in _ROLE_WORDS[actor]))
                          and turn_holds_line(shared, said)):
            return None
    other = "the assistant" if actor == "user" else "the user"
    return f"it gives the {actor} what only {other} said (every sentence it rests on is in {other}'s turns)"


def opening_speaker(text: str, shown: str) -> str | None:
    """The transcript's speaker label a line opens with ("The Project Manager proposes ..."), the longest that
    matches; None when it opens with no speaker of the part."""
    opening = ARTICLE.sub("", text).lower()
    return max((p for p in _speakers(shown) if re.match(rf"{re.escape(p.lower())}\b", opening)),
               key=len, default=None)


def opening_naming(text: str) -> str:
    """The capitalised words a line opens with, after its article: "User Interface Designer", "Marketing team"."""
    naming = _NAMING.match(ARTICLE.sub("", text))
    return naming.group(0).strip() if naming else ""


def speaker_opening_end(body: str, who: str) -> int:
    """Where the words naming ``who`` end in ``body`` (a line opening with that speaker, stripped): after its
    article and the naming words when they begin with the speaker's label ("The User Interface Designer" for
    the label "User Interface"), else after the label itself."""
    article = ARTICLE.match(body)
    start = article.end() if article else 0
    naming = opening_naming(body[start:])
    return start + (len(naming) if naming.lower().startswith(who.lower()) else len(who))


def said_beyond_speaker(text: str, who: str) -> set[str]:
    """What a line says beyond the speaker it names."""
    return units(text) - units(who) - units(opening_naming(text))


def _speaker(claim: Claim) -> str | None:
    """In a transcript, a line that says a speaker did something, resting only on other speakers' words
    ("Industrial Designer explains the technical specifications" of "User Interface: and then we'll give some
    technical specifications", a development meeting): who said it, turned around. A chat's user and
    assistant likewise (_chat_role)."""
    if not claim.alignment or not claim.alignment.references:
        return None
    if _CHAT_ROLE.search(claim.shown):
        return _chat_role(claim)
    said_by = {s.speaker for s in claim.alignment.references}
    if "" in said_by:
        return None
    who = opening_speaker(claim.text, claim.shown)
    if who is None:
        return None
    # what the line says beyond who it names must be in a sentence the speaker said, or one that names them
    # (a hand-labelled development meeting: "The User Interface Designer shows a schematic of the inside
    # workings" rested on the Industrial Designer's words and on "Well I'm Mike, User Interface Designer.")
    said = said_beyond_speaker(claim.text, who)
    for sentence in claim.alignment.references:
        if (sentence.speaker == who or who.lower() in sentence.text.lower()) and said_units(sentence) & said:
            return None
    return f"none of what it says is in {who}'s own words (its sentences are {', '.join(sorted(said_by))}'s)"


@functools.lru_cache(maxsize=4)
def _part_reading(part: str) -> tuple[tuple, frozenset[str]]:
    """The part's sentences, and the words it writes in lower case (a capitalised one it never does is a name)."""
    return tuple(source_sentences(part)), frozenset(re.findall(r"\b[a-z][a-z']+\b", part))


def _said(sentence) -> str:
    """A sentence without its speaker's label: the label is who says it, not who does what it says."""
    return SPEAKER_PREFIX.sub("", sentence.text, count=1) if sentence.speaker else sentence.text


def _is_i(word: str) -> bool:
    return word.lower().replace("’", "'").split("'")[0] == "i"


def _doer(claim: Claim) -> str | None:
    """Who does it, against the sentence whose verb the line uses: the line's opening name or role does its
    verb where a sentence it rests on uses that verb (same stem) with someone else doing it to them ("Retief
    hands the pilot a power pistol" of "The pilot ... handed Retief a heavy old-fashioned power pistol";
    "Magnan closes one eye in a broad wink at Retief" of "He closed one eye in a broad wink at Magnan"), or
    another name doing it, or someone the line has it done to ("Syme waits for the man" of "The man was
    waiting for him"), or a "he" that is the name opening the sentence before; or where the words it has them
    say in quotes are someone else's ('"Small thanks to you."' after 'he whistled ..., eyeing Magnan'). Any
    sentence of the part naming the doer before that verb lets it pass: it may be told there."""
    doer = line_doer(claim.text)
    if doer is None:
        return None
    sentences, lowercase = _part_reading(claim.shown)
    speakers = {s.speaker for s in sentences if s.speaker}
    if doer.named and not any(is_name(w, lowercase) for w in doer.words) \
            and not any(same_speaker(p, doer) for p in speakers):
        return None             # "Business review starts with ...": a capital, not a name
    who = " ".join(doer.words)
    reason = _quoted(claim, doer, who, sentences, lowercase)
    if reason:
        return reason
    references = _references(claim, sentences)
    stem = verb_stem(doer.verb)
    if not references or len(stem) < 3 or is_mutual(stem):
        return None
    # the sentences it rests on that use the verb and say more of the line than its verb and names ("Retief
    # looked back along the line." holds nothing of "Qorn looks Retief over in silence")
    wanted = units(" ".join(w for w in claim.text.split() if not w[:1].isupper())) - units(doer.verb)
    held = [(s, u) for s in references if said_units(s) & wanted for u in uses(_said(s), stem, doer)]
    if not held or any(u.doer_before or (_is_i(u.subject) and same_speaker(s.speaker, doer))
                       for s in sentences for u in uses(_said(s), stem, doer)):
        return None
    cast = frozenset(w.lower() for name in claim.known_names for w in name.split())
    for s, u in held:
        if u.doer_after and u.someone_before:
            return f"{who} is done to, not doing, in the sentence that uses '{doer.verb}': {s.text[:80]!r}"
        if not u.finite:
            continue
        # another name does it; not in a transcript, whose people are labelled by role and named by first
        # name ("Sammy will propose some criteria": Sammy may be Marketing)
        if doer.named and u.subject_named and is_name(u.subject, lowercase) and not speakers \
                and not same_person(u.subject, doer, claim.shown):
            return f"{u.subject}, not {who}, does '{doer.verb}' in its sentence: {s.text[:80]!r}"
        if u.subject_definite and bare(u.subject) in doer.after_verb and not same_person(u.subject, doer,
                                                                                       claim.shown):
            return f"its sentence has {u.subject} do '{doer.verb}', the line has {who} do it to them: {s.text[:80]!r}"
        at = sentences.index(s)
        if doer.named and at and not re.search(r"\n[ \t]*\n", claim.shown[sentences[at - 1].end:s.start]):
            other = antecedent(sentences[at - 1].text, _said(s), doer, cast)
            if other and not same_person(other, doer, claim.shown):
                return f"{u.subject} ({other}), not {who}, does '{doer.verb}': {s.text[:80]!r}"
    return None


def _references(claim: Claim, sentences) -> tuple:
    """The part's sentences a line rests on: its alignment's; a rewording's, the one it says again (where the
    part has it, wrapped or not)."""
    if claim.alignment:
        return claim.alignment.references
    found = re.search(r"\s+".join(map(re.escape, claim.quote.split())), claim.shown) if claim.quote else None
    return tuple(s for s in sentences if found and s.start < found.end() and s.end > found.start())


def _quoted(claim: Claim, doer, who: str, sentences, lowercase: frozenset[str]) -> str | None:
    """The quoted words a line has its doer say, where the part has them said by someone else: a transcript's
    other speaker, or in a story the name or "he" beside the quote with the doer named after it."""
    if not doer.quote:
        return None
    if any(s.speaker for s in sentences):
        pattern = re.compile(r"\s+".join(map(re.escape, doer.quote.split())), re.I)
        said_by = {s.speaker for s in sentences if pattern.search(s.text)}
        if said_by and not any(same_speaker(p, doer) for p in said_by):
            return f"'{doer.quote[:40]}' is {', '.join(sorted(said_by))}'s, not {who}'s"
        return None
    said = sayings(claim.shown, doer.quote, doer)
    if not said or any(s.doer_says for s in said):
        return None
    other = next((s for s in said if s.doer_after or is_name(s.speaker, lowercase)), None)
    if other is None:
        return None
    if is_name(other.speaker, lowercase):
        return f"'{doer.quote[:40]}' is said by {other.speaker}, not {who}"
    return f"'{doer.quote[:40]}' is said by another ('{other.speaker} ...' to {who})"


def _claim(text: str, part: str) -> Claim:
    return Claim(text, part, PartIndex(part).align(text))


MARS = ("Bruce invited them in. Jacobs' thin face frowned slyly at Bruce. \"We all know you killed Lieutenant "
        "Doran,\" Terrence said. Swarts answered every question Maitland asked.")

PISTOL = "The pilot ducked out of sight, came back, handed Retief a heavy old-fashioned power pistol."

WINK = ("Nitworth drummed his fingers on the desk top. He nodded.\n\n  He closed one eye in a broad wink at Magnan. "
        '"Very well, gentlemen."')
THANKS = ('  "It\'s not broken," he whistled nasally, eyeing Magnan through the heavy goggles. "Small thanks to\n'
          'you."\n\n  Magnan smiled loftily.')
HAND = ("Lemuel came forward, one eye black to the cheekbone. He held out a raw-boned hand.\n\n"
        "  Bert came up behind Lemuel.")
SIGNAL = ("It was nearly dawn when Retief gave the whistled signal he had agreed on with Potter, then rose and walked "
          "into the camp circle.")
SIGNAL_SAID = '"I fear I must lay aside the translator now, Retief," said Hoshick.'
VOTE = ("Project Manager: I think we should vote on the colour .\nMarketing: Okay .\nIndustrial Designer: Yeah , "
        "yellow .\n")
CRITERIA = ("Project Manager: Then Sammy will propose some criteria to evaluate this prototype .\nMarketing: Okay .\n"
            "Industrial Designer: Yeah .\n")

MAP = ("Grad E: Is the intention implicit in the scenario ?\nGrad B: No , not really .\n"
       "Grad B: Additionally , you have a sort of a map type display .\nGrad E: OK .\n"
       "Grad A: Grad E , please read the digit strings .\n")
RACK = ("Grad E: How much space do you need for these ?\nProfessor B: Well , a lot .\n"
        "Professor B: If Abbott is going to be our file server , it seems like we would want to get it a second "
        "disk rack or something .\nPhD D: Yeah .\n")
LCD = ("Project Manager: Shall we start ?\nMarketing: We do not know yet .\n"
       "Industrial Designer: The chip is cheap .\nUser Interface: The case is rubber .\n"
       "Marketing: The buttons are large .\nIndustrial Designer: It runs on a battery .\n"
       "Project Manager: With twelve Euro fifty as production cost , we cannot afford an L_C_D_ screen .\n")
CHAT_JA = ("[ユーザー] コミットが失敗しました。\n"
           "[アシスタント] フックが終了コード 1 を返しています。原因は設定の不具合です。\n"
           "[ユーザー] テストは後回しにすると決めました。\n")
DESIGN = ("Project Manager: So first, let's see the prototype.\nIndustrial Designer: Yeah .\nUser Interface: and "
          "then we'll give some technical specifications .\nIndustrial Designer: Uh, here we have our prototype "
          "model. It has a kinetic battery.\nMarketing: The Project Manager asked for a vote, so seven for me.\n")

CHECKS = (
    Check("doer_swapped", frozenset({ACCOUNT_LINE, REWORDING}), frozenset({"en"}), _doer,
          refuses=(Example(_claim("Retief hands the pilot a power pistol.", PISTOL),
                           "the doer is whom it is done to (hand-labelled development story)"),
                   Example(_claim("Magnan closes one eye in a broad wink at Retief.", WINK),
                           "'he' winks at Magnan, so he is not Magnan (hand-labelled development story)"),
                   Example(_claim('Magnan smiles and says "Small thanks to you" to the Qornt.', THANKS),
                           "the words beside the quote: he says it, eyeing Magnan (hand-labelled development story)"),
                   Example(line_example("Bert holds out a raw-boned hand to Retief.", HAND,
                                        known_names=("Lemuel", "Bert", "Retief")),
                           "'he' is Lemuel of the sentence before (hand-labelled development story)"),
                   Example(note_example("Potter gives the whistled signal, then leaves the camp circle.", SIGNAL),
                           "another name does it (a labelled rewording)"),
                   Example(note_example("Syme waits for the man at the mouth of the tunnel.",
                                        "The man was waiting for him at the mouth of the ascending tunnel."),
                           "the one who waited is whom the note has waited for (a labelled rewording)"),
                   Example(_claim('Marketing says "we should vote on the colour".', VOTE),
                           "another speaker's words in quotes")),
          passes=(Example(_claim("The pilot hands Retief a power pistol.", PISTOL), "as said"),
                  Example(_claim('The Qornt says "Small thanks to you" to Magnan.', THANKS), "as said"),
                  Example(line_example("Lemuel holds out a raw-boned hand.", HAND,
                                       known_names=("Lemuel", "Bert", "Retief")), "as said"),
                  Example(_claim("Jacobs greets Bruce at the door.", "Bruce was greeted at the door by Jacobs."),
                          "a passive said actively"),
                  Example(_claim("Retief meets the pilot at the gate.", "The pilot met Retief at the gate."),
                          "a meeting has two doers"),
                  Example(note_example("Hoshick says he must lay aside the translator.", SIGNAL_SAID),
                          "'said Hoshick' after a quote: he is who says it"),
                  Example(_claim("Retief hands the boy the power pistol.",
                                 PISTOL + " Later Retief handed the boy the power pistol."),
                          "the part has the doer do it too"),
                  Example(_claim("Marketing proposes criteria to evaluate the prototype.", CRITERIA),
                          "a transcript's first name may be a speaker's"),
                  Example(note_example("Elevate invests in growth.",
                                       "In fiscal 2022, we invest $80 million in Elevate for growth."),
                          "where it happens is not whom it is done to"))),
    Check("speaker_swapped", frozenset({ACCOUNT_LINE}), None, _speaker,
          refuses=(Example(_claim("Industrial Designer explains the technical specifications.", DESIGN),
                           "another speaker's words (development meeting)"),
                   Example(_claim("The User Interface shows the prototype model with its kinetic battery.",
                                  DESIGN + "User Interface: Well I'm Mike, User Interface Designer.\n"),
                           "the speaker's own turn holds none of it (hand-labelled development meeting)"),
                   Example(_claim("The Marketing team shows the prototype model.", DESIGN + "Marketing:\n"),
                           "a label alone is no sentence of theirs"),
                   Example(_claim("ユーザーが、フックが終了コード 1 を返すと報告する。", CHAT_JA),
                           "the assistant's diagnosis given to the user (hand-labelled chat day)")),
          passes=(Example(_claim("User Interface gives the technical specifications.", DESIGN), "as said"),
                  Example(_claim("ユーザーが、テストを後回しにすると決める。", CHAT_JA), "the user's own turn"),
                  Example(_claim("The Industrial Designer shows the prototype with a kinetic battery.", DESIGN),
                          "the speaker's own turn, a sentence after its label"),
                  Example(_claim("The Project Manager asks for a vote.", DESIGN),
                          "another speaker's words that name who did it"))),
    Check("asks_unasked", frozenset({ACCOUNT_LINE}), frozenset({"en"}), _asks_unasked,
          refuses=(Example(_claim("Grad B asks if the system has a map type display.", MAP),
                           "he states there is one (hand-labelled check-half meeting)"),
                   Example(_claim("Professor B asks if they need a second disk rack for the file server.", RACK),
                           "he says they would want one; the question near it is another's"),
                   Example(_claim("The Project Manager asks whether they can afford an L_C_D_ screen.", LCD),
                           "the speaker's question is elsewhere in the part, not near the line's sentence")),
          passes=(Example(_claim("Grad E asks if the intention is implicit in the scenario.", MAP),
                          "the speaker's own question"),
                  Example(_claim("Grad B says the system has a map type display.", MAP), "not an ask"),
                  Example(_claim("Grad A asks Grad E to read the digit strings.", MAP),
                          "a request, not a question: not read"),
                  Example(_claim("Grad B asks if the system has a map type display.", MAP.replace("?", " .")),
                          "a transcript that writes no question marks"))),
    Check("roles_swapped", frozenset({ACCOUNT_LINE}), frozenset({"en"}), _roles,
          refuses=(Example(_claim("Bruce frowned slyly at Jacobs' thin face.", MARS),
                           "who frowns at whom, inverted (a held-out story, issue 38)"),
                   Example(_claim("Maitland answers every question Swarts asks.", MARS), "asker and answerer swapped"),
                   Example(_claim("Retief hands the pilot a power pistol.", PISTOL),
                           "who gave what to whom, with a role for a name (hand-labelled development story)")),
          passes=(Example(_claim("Jacobs frowns slyly at Bruce.", MARS), "as said"),
                  Example(_claim("The pilot hands Retief a power pistol.", PISTOL), "as said, a role for a name"),
                  Example(_claim("Jacobs greeted Bruce at the door.", "Bruce was greeted at the door by Jacobs."),
                          "a passive said actively"),
                  Example(_claim("Bruce invites Jacobs and Terrence in.", MARS), "one name only in its sentence"))),
)
