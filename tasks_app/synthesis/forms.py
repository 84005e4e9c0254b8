"""Input form of the synthesis launch on a seed's page."""

from __future__ import annotations

from django import forms
from django.template.loader import render_to_string
from django.utils.safestring import mark_safe

from sandmle.synth.noise import NOISE_SCALE_MAX
from sandmle.synth.pipeline import MAX_TRAIN
from sandmle.synth.targets import DIFFICULTIES, EASY_FROM, MEDIUM_FROM
from tasks_app.synthesis.models import MIN_TRAIN_ROWS, RNG_MAX
from tasks_app.synthesis.services import seed_rule_families, synthesis_llm_defaults


class SynthesisRunForm(forms.Form):
    count = forms.IntegerField(min_value=1, max_value=200, initial=4)
    rng = forms.IntegerField(min_value=0, max_value=RNG_MAX, initial=0, label="rng seed")
    llm_url = forms.URLField(required=False, assume_scheme="https", label="LLM base URL (optional)",
                             help_text="an OpenAI-compatible endpoint for the domain and rule stages; empty: procedural")
    llm_model = forms.CharField(max_length=200, required=False, label="LLM model")
    llm_key_env = forms.CharField(max_length=100, required=False, label="LLM key variable",
                                  help_text="the worker's environment variable holding the endpoint's API key, "
                                            "one the admin allows; blank: the deployment's key")
    rule_family = forms.ChoiceField(choices=[], required=False, label="rule family",
                                    help_text="the hidden rule's family; empty: any that fits the seed")
    n_train = forms.IntegerField(min_value=MIN_TRAIN_ROWS, max_value=MAX_TRAIN, required=False, label="training rows",
                                 help_text=f"empty: drawn per task from {MIN_TRAIN_ROWS} to {MAX_TRAIN}")
    noise_scale = forms.FloatField(min_value=0, max_value=NOISE_SCALE_MAX, required=False, initial=1.0,
                                   label="noise strength", widget=forms.NumberInput(attrs={"step": "0.1"}),
                                   help_text=f"multiplies each drawn noise intensity: 0 a clean task, 1 the usual, up "
                                             f"to {NOISE_SCALE_MAX:g}")
    min_headroom = forms.FloatField(min_value=0, max_value=1, required=False, label="least headroom",
                                    widget=forms.NumberInput(attrs={"step": "0.05"}),
                                    help_text="0 to 1: the share of the oracle's lead the learned references must "
                                              "recover; a task below it is rejected. Empty: any")
    difficulty = forms.ChoiceField(
        choices=[("", "any")] + [(name, name) for name in DIFFICULTIES], required=False, label="target difficulty",
        help_text=f"by headroom: easy from {EASY_FROM}, medium from {MEDIUM_FROM}, hard below; a task of another "
                  "difficulty is rejected")
    until_passing = forms.BooleanField(required=False, label="keep going until this many tasks pass the critic "
                                                             "(and meet the targets)")

    # The launch form in folds: (title, open, fields); the LLM settings stay folded unless they hold an error.
    GROUPS = (("Tasks", True, ("count", "rng")), ("Engine controls", True, ("rule_family", "n_train", "noise_scale")),
              ("Targets", True, ("min_headroom", "difficulty", "until_passing")),
              ("LLM stages (optional)", False, ("llm_url", "llm_model", "llm_key_env")))

    def __init__(self, *args, seed, may_choose_rule_family: bool, **kwargs):
        super().__init__(*args, **kwargs)
        if may_choose_rule_family:  # reviewers: the family names what only they may know of a task
            self.fields["rule_family"].choices = [("", "any that fits")] + [(name, name)
                                                                            for name in seed_rule_families(seed)]
        else:
            del self.fields["rule_family"]
        for name, value in synthesis_llm_defaults().items():  # read per form: settings may change under tests
            # The key variable's name stays the admin's: blank runs with the deployment's key (SANDMLE_LLM_KEY_ENV).
            self.fields[name].initial = "" if name == "llm_key_env" else value

    def as_div(self):
        # The project's templates, not the form renderer's (which sees only Django's own form templates).
        return mark_safe(render_to_string("tasks/synthesis/synthesis_run_form.html", {"form": self}))

    def groups(self) -> list[tuple[str, bool, list]]:
        """(title, open, bound fields) per group; a group holding an error opens so the error shows."""
        result = []
        for title, is_open, names in self.GROUPS:
            fields = [self[name] for name in names if name in self.fields]
            if fields:
                result.append((title, is_open or any(field.errors for field in fields), fields))
        return result
