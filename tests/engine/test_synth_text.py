"""Text tasks: generated notes, every text rule family, synthesized text bundles and `sandmle synth --csv` on a text seed."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from sandmle.seeds.load import load_csv_seed
from sandmle.synth import TaskSpec, build_bundle, calibrate, rules, synthesize, verify_bundle
from sandmle.synth.columns import feature_kind
from sandmle.synth.domains import DOMAINS, DomainChoice
from sandmle.synth.text_corpus import all_vocabularies, vocabulary_for
from sandmle.synth.texts import lexicon_count, phrase_count, sample_text_column, sample_texts, tokenize
from tests.engine.text_seeds import write_note_regression_csv, write_review_csv

# A domain without text phrases of its own: its notes come from the sector corpus.
TABULAR_DOMAIN = next(d.domain_id for d in DOMAINS if "text" not in d.modalities and d.label_names and not d.vocabulary)


def _choice(domain_id: str, n_labels: int = 3) -> DomainChoice:
    """A library domain as mutate_domain hands it on: its first classes and only their phrases."""
    domain = next(d for d in DOMAINS if d.domain_id == domain_id)
    labels = list(domain.label_names[:n_labels])
    keys = [*labels, "common"] if labels else list(domain.vocabulary)
    return DomainChoice(domain.domain_id, domain.sector, domain.title, domain.entity, domain.target_name, labels,
                        domain.target_unit, [], domain.context, domain.image_subject, domain.text_field,
                        {key: list(domain.vocabulary[key]) for key in keys if key in domain.vocabulary})


def _text_frame(choice: DomainChoice, *, rows: int = 400, mean_length: float = 30, seed: int = 0) -> pd.DataFrame:
    notes, planted = sample_text_column(choice, "note", n_rows=rows, mean_length=mean_length, rng=np.random.default_rng(seed))
    frame = pd.DataFrame({"note": notes, "reading": np.random.default_rng(seed + 1).normal(size=rows)})
    frame.attrs.update(planted)
    return frame


def test_the_corpus_keeps_key_phrases_and_lexicons_apart():
    assert len(all_vocabularies()) >= 15
    for vocabulary in all_vocabularies():
        cue_words = {word for cue in vocabulary.cues for word in cue.split()}
        lexicons = [set(words) for words in vocabulary.lexicons.values()]
        assert len(lexicons) >= 2 and not cue_words & set().union(*lexicons), vocabulary.sector
        assert sum(map(len, lexicons)) == len(set().union(*lexicons)), vocabulary.sector
    assert vocabulary_for("health").sector == "healthcare" and vocabulary_for("unheard_of").sector == "generic"


@pytest.mark.parametrize("mean_length", [12, 30, 80])
def test_notes_are_deterministic_and_as_long_as_the_dna_says(mean_length):
    vocabulary = vocabulary_for("energy")
    first = sample_texts(vocabulary, n_rows=300, mean_length=mean_length, rng=np.random.default_rng(4))
    assert first == sample_texts(vocabulary, n_rows=300, mean_length=mean_length, rng=np.random.default_rng(4))
    words = np.array([len(note.split()) for note in first])
    assert abs(words.mean() - mean_length) < 0.2 * mean_length, words.mean()
    assert words.std() > 0.1 * mean_length and len(set(first)) > 0.95 * len(first)


def test_phrases_count_unless_negated_and_lexicons_count_words_and_phrases():
    tokens = tokenize("No oil leak was seen. Oil leak near the rotor; without oil leak later. Worn, WORN, not worn, rusty.")
    assert phrase_count(tokens, "oil leak") == 1
    assert lexicon_count(tokens, ["worn", "rusty", "oil leak"]) == 4
    assert tokenize(float("nan")) == []


def test_key_phrase_rule_takes_the_first_mention_that_is_not_negated():
    rule = {"family": "key_phrases", "features": ["note"], "column": "note", "default": 0, "n_classes": 3,
            "phrases": [["all clear"], ["oil leak", "hot bearing"], ["blade crack"]]}
    frame = pd.DataFrame({"note": ["Blade crack found. Then an oil leak.", "No blade crack. Hot bearing on the left.",
                                   "Nothing to report.", "All clear, but a blade crack later.", np.nan]})
    assert list(rules.apply_rule(rule, frame)) == [2, 1, 0, 0, 0]
    described = rules.describe_rule(rule, label_names=["ok", "leak", "crack"])
    assert "'oil leak', 'hot bearing' -> leak" in described and "none of them is ok" in described


def test_lexicon_count_rule_bands_the_score():
    rule = {"family": "lexicon_counts", "features": ["note"], "column": "note", "plus_name": "alarm",
            "plus": ["worn", "rusty"], "minus_name": "routine", "minus": ["clean"], "cuts": [-0.5, 1.5], "n_classes": 3}
    frame = pd.DataFrame({"note": ["Clean and clean.", "Worn but clean.", "Worn, rusty, worn."]})
    assert list(rules.apply_rule(rule, frame)) == [0, 1, 2]
    assert "-1 or less -> a; 0 to 1 -> b; 2 or more -> c" in rules.describe_rule(rule, label_names=["a", "b", "c"])


@pytest.mark.parametrize("family", ["key_phrases", "lexicon_counts"])
@pytest.mark.parametrize("domain_id", ["bank_complaints", "outage_tickets", TABULAR_DOMAIN])
def test_text_rules_are_serialisable_reproduce_labels_and_use_every_class(family, domain_id):
    frame = _text_frame(_choice(domain_id))  # a domain without phrases of its own falls back to the sector corpus
    rule = rules.design_rule(family, frame, n_classes=3, rng=np.random.default_rng(2))
    stored = json.loads(json.dumps(rule))
    labels = rules.apply_rule(stored, frame)
    assert np.array_equal(labels, rules.apply_rule(rule, frame)) and rule["features"] == ["note"]
    shares = np.bincount(labels, minlength=rule["n_classes"]) / len(labels)
    assert rule["n_classes"] >= 2 and shares.min() >= 0.4 / rule["n_classes"], shares
    names = ["first_class", "second_class", "third_class"][: rule["n_classes"]]
    described = rules.describe_rule(stored, label_names=names)
    assert "note" in described and all(name in described for name in names)


def test_key_phrases_of_a_domain_stay_with_their_class():
    choice = _choice("bank_complaints")
    frame = _text_frame(choice)
    rule = rules.design_rule("key_phrases", frame, n_classes=3, rng=np.random.default_rng(5))
    for label, phrases in enumerate(rule["phrases"]):
        own = {" ".join(tokenize(p)) for p in choice.vocabulary[choice.label_names[label]]}
        assert set(phrases) <= own


def test_lexicon_score_gives_varied_values_for_a_regression_domain():
    regression = next(d.domain_id for d in DOMAINS if "text" in d.modalities and not d.label_names)
    frame = _text_frame(_choice(regression))
    rule = rules.design_rule("lexicon_score", frame, n_classes=0, rng=np.random.default_rng(1))
    values = rules.apply_rule(json.loads(json.dumps(rule)), frame)
    assert values.dtype.kind == "f" and values.std() > 1.0 and len(np.unique(values)) > 10
    assert rules.describe_rule(rule, label_names=[]).startswith("target = ")


@pytest.fixture(scope="module")
def review_seed(tmp_path_factory):
    path = write_review_csv(tmp_path_factory.mktemp("seed") / "reviews.csv")
    return path, load_csv_seed(path, target="label", name="reviews")


@pytest.fixture(scope="module")
def text_tasks(review_seed, tmp_path_factory):
    out = tmp_path_factory.mktemp("text")
    return {family: synthesize(review_seed[1], count=1, rng=3, out_dir=out, families=(family,))[0]
            for family in rules.TEXT_FAMILIES}


def test_the_review_csv_is_a_text_seed(review_seed):
    assert review_seed[1].modality == "text" and review_seed[1].task_type == "binary"


@pytest.mark.parametrize("family", ["key_phrases", "lexicon_counts"])
def test_synthesized_text_tasks_validate_with_the_text_in_their_csvs(text_tasks, family):
    task = text_tasks[family]
    assert task.status == "validated", task.reasons
    root = Path(task.bundle_dir)
    rule = json.loads((root / "private/rule.json").read_text())
    train, test = pd.read_csv(root / "public/train.csv"), pd.read_csv(root / "public/test.csv")
    column = rule["column"]
    assert rule["family"] == family and column in train.columns and column in test.columns
    assert feature_kind(column, test[column]) == "text"
    assert not (root / "public/images").exists()
    description = (root / "public/description.md").read_text()
    assert f"`{column}` | free text" in description
    assert "review" not in " ".join(train.columns)  # the seed's names never come through


def test_text_bundles_rebuild_byte_for_byte(text_tasks, tmp_path):
    original = Path(text_tasks["lexicon_counts"].bundle_dir)
    assert verify_bundle(original)
    rebuilt = build_bundle(TaskSpec.from_dict(json.loads((original / "task.json").read_text())["spec"]), tmp_path)
    for relative in ("public/train.csv", "public/test.csv", "public/description.md", "private/answers.csv"):
        assert (rebuilt / relative).read_bytes() == (original / relative).read_bytes(), relative


def test_text_regression_seed_makes_a_validated_task(tmp_path):
    seed = load_csv_seed(write_note_regression_csv(tmp_path / "notes.csv"), target="cost", name="notes")
    assert (seed.modality, seed.task_type) == ("text", "regression")
    task = synthesize(seed, count=1, rng=0, out_dir=tmp_path / "out")[0]
    assert task.status == "validated", task.reasons
    assert task.rule_family == "lexicon_score"


def test_cli_synthesizes_a_validated_task_from_a_text_csv(review_seed, tmp_path):
    result = subprocess.run([sys.executable, "-m", "sandmle.cli", "synth", "--csv", str(review_seed[0]), "--target", "label",
                             "--count", "1", "--rng", "0", "--out", str(tmp_path)], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout.splitlines()[-1])
    assert summary["status"] == "validated", summary
    assert summary["rule_family"] in rules.TEXT_FAMILIES
    task = json.loads((tmp_path / summary["id"] / "task.json").read_text())
    assert task["spec"]["dna"]["modality"] == "text"


def test_reference_models_read_text_and_the_critic_probes_handle_it():
    choice = _choice("bank_complaints")
    frame = _text_frame(choice, rows=500)
    rule = rules.design_rule("key_phrases", frame, n_classes=2, rng=np.random.default_rng(3))
    labels = rules.apply_rule(rule, frame)
    train, test = frame.iloc[:200], frame.iloc[200:]
    ladder = calibrate.ladder_scores(x_train=train, y_train=labels[:200], x_test=test, y_test=labels[200:],
                                     oracle_prediction=labels[200:], metric="accuracy", task_type="binary", labels=[0, 1])
    assert ladder["linear"] > ladder["baseline"] + 0.1  # the words carry the signal, through TF-IDF
    leaks = calibrate.single_column_scores(train, test, labels[:200], labels[200:], metric="accuracy", task_type="binary")
    assert "note" not in leaks and "reading" in leaks  # the notes are the task's input, not a leak
    assert calibrate.shift_pvalues(train, test)["note"] > 1e-3
    longer = test.assign(note=test["note"] + " " + test["note"])
    assert calibrate.shift_pvalues(train, longer)["note"] < 1e-3  # notes twice as long in test: a shift
