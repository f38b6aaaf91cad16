"""The plan says which strategy runs and why: the model's size profile's default and what it rests on, or that
another was asked for (issue 38: the default for 1-3B models is chosen by the check half's numbers, and the plan
says which and why)."""
from __future__ import annotations

from precis.engine.documents.bundle import load_documents
from precis.models.library.profiles import ModelProfile, profile_for
from precis.models.session.plan_text import plan_lines
from precis.models.session.planner import plan_with_vocab, strategy_reason
from precis.models.session.request import RunRequest


def test_the_reason_is_the_profiles_default_and_why_or_that_another_was_asked():
    profile = profile_for(1_500_000_000)
    assert profile.label == "1-3B" and profile.default_strategy == "notes"
    assert "fact recall, answerability and blind readers" in profile.why      # from resources/model_profiles.json
    assert strategy_reason("notes", profile) == f"the default for 1-3B models: {profile.why}"
    assert strategy_reason("account", profile) == "as asked, over the default for 1-3B models (notes)"
    assert strategy_reason("rolling", None) == "the default when the model's size is unknown"
    assert strategy_reason("notes", None) == "as asked"
    assert strategy_reason("notes", ModelProfile("x", None, "notes", False)) == "the default for x models"


def test_the_plan_of_the_bundled_model_names_its_strategy_and_why(smollm2_path, sample_document):
    docs = load_documents([sample_document]).documents
    auto = plan_with_vocab(RunRequest(files=[str(sample_document)], n_ctx=2048), docs, smollm2_path)
    asked = plan_with_vocab(RunRequest(files=[str(sample_document)], n_ctx=2048, strategy="account"), docs,
                            smollm2_path)
    tiny = profile_for(135_000_000)
    assert auto.strategy == tiny.default_strategy == "notes"
    assert plan_lines(auto)[1].text == f"Strategy: notes (the default for tiny models: {tiny.why})"
    assert plan_lines(asked)[1].text == "Strategy: account (as asked, over the default for tiny models (notes))"
    assert auto.as_dict()["strategy"] == "notes" and asked.as_dict()["strategy_chosen_for"].startswith("as asked")


def test_the_plan_says_how_long_each_summary_will_be_or_that_the_length_was_asked(smollm2_path, sample_document):
    """The notes and the account strategies write to a planned length (engine.planning.summary_length); the
    plan states it, in words and in characters to read, or says it is the length asked for. The rolling loop's
    model says how long: no line."""
    from precis.engine.planning.summary_length import account_chars_for, summary_chars_for
    docs = load_documents([sample_document]).documents
    request = RunRequest(files=[str(sample_document)], n_ctx=2048)
    notes = plan_with_vocab(request, docs, smollm2_path)
    said_tokens = notes.documents[0].said_tokens
    chars = summary_chars_for(said_tokens)
    assert notes.summary_chars() == [chars] and notes.as_dict()["summary_chars"] == [chars]
    assert f"Summary length: about {chars // 6:,} words ({chars:,} characters to read), from the document's length" \
        in [line.text for line in plan_lines(notes)]
    asked = plan_with_vocab(RunRequest(files=[str(sample_document)], n_ctx=2048, summary_words=250), docs,
                            smollm2_path)
    assert "Summary length: about 250 words (1,500 characters to read), as asked" in [
        line.text for line in plan_lines(asked)]
    assert asked.as_dict()["summary_words_asked"] == 250
    account = plan_with_vocab(RunRequest(files=[str(sample_document)], n_ctx=2048, strategy="account"), docs,
                              smollm2_path)
    assert account.summary_chars() == [account_chars_for(said_tokens)]
    rolling = plan_with_vocab(RunRequest(files=[str(sample_document)], n_ctx=2048, strategy="rolling"), docs,
                              smollm2_path)
    assert rolling.summary_chars() == [] and not any("Summary length" in line.text for line in plan_lines(rolling))
