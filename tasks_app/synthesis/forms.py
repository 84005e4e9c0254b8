"""Input form of the synthesis launch on a seed's page."""

from __future__ import annotations

from django import forms

from sandmle.synth.pipeline import MAX_TRAIN
from tasks_app.synthesis.models import MIN_TRAIN_ROWS, RNG_MAX
from tasks_app.synthesis.services import seed_rule_families, synthesis_llm_defaults


class SynthesisRunForm(forms.Form):
    count = forms.IntegerField(min_value=1, max_value=200, initial=4)
    rng = forms.IntegerField(min_value=0, max_value=RNG_MAX, initial=0, label="rng seed")
    llm_url = forms.URLField(required=False, assume_scheme="https", label="LLM base URL (optional)",
                             help_text="an OpenAI-compatible endpoint for the domain and rule stages; empty: procedural")
    llm_model = forms.CharField(max_length=200, required=False, label="LLM model")
    llm_key_env = forms.CharField(max_length=100, required=False, label="LLM key variable",
                                  help_text="the worker's environment variable holding the endpoint's API key")
    rule_family = forms.ChoiceField(choices=[], required=False, label="rule family",
                                    help_text="the hidden rule's family; empty: any that fits the seed")
    n_train = forms.IntegerField(min_value=MIN_TRAIN_ROWS, max_value=MAX_TRAIN, required=False, label="training rows",
                                 help_text=f"empty: drawn per task from {MIN_TRAIN_ROWS} to {MAX_TRAIN}")
    until_passing = forms.BooleanField(required=False, label="keep going until this many tasks pass the critic")

    def __init__(self, *args, seed, may_choose_rule_family: bool, **kwargs):
        super().__init__(*args, **kwargs)
        if may_choose_rule_family:  # reviewers: the family names what only they may know of a task
            self.fields["rule_family"].choices = [("", "any that fits")] + [(name, name)
                                                                            for name in seed_rule_families(seed)]
        else:
            del self.fields["rule_family"]
        for name, value in synthesis_llm_defaults().items():  # read per form: settings may change under tests
            self.fields[name].initial = value
