"""Input form of the audit launch: a task set and the scaffolds to attack through."""

from __future__ import annotations

from django import forms

from sandmle.agents.scaffolds import SCAFFOLDS
from training_app.shared.presentation import SCAFFOLD_LABELS


class AuditForm(forms.Form):
    task_set = forms.ChoiceField(choices=[])
    scaffolds = forms.MultipleChoiceField(choices=[(name, SCAFFOLD_LABELS.get(name, name)) for name in SCAFFOLDS],
                                          initial=list(SCAFFOLDS),
                                          widget=forms.CheckboxSelectMultiple,
                                          help_text="attacks on scaffold code play on each; sandbox attacks once")
    reward_scheme = forms.ChoiceField(choices=[("dense", "dense"), ("sparse", "sparse")], initial="dense",
                                      label="Judge degenerate solutions under",
                                      help_text="a tier this reward pays breaks the task; only a dense audit opens "
                                                "training on any reward but sparse")

    def __init__(self, *args, task_set_names: list[str], **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["task_set"].choices = [(name, name) for name in task_set_names]
