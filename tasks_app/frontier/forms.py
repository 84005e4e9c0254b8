"""Input form of a frontier run's launch from a task set's page: the policy, samples per task and the band."""

from __future__ import annotations

from django import forms

from sandmle.agents.scaffolds import SCAFFOLDS
from tasks_app.frontier.models import SAMPLES_MAX
from training_app.shared.presentation import SCAFFOLD_LABELS


class FrontierRunForm(forms.Form):
    policy = forms.CharField(max_length=500, initial="baseline", help_text="baseline, openai:MODEL@URL or hf:PATH")
    samples = forms.IntegerField(min_value=1, max_value=SAMPLES_MAX, initial=4, label="samples per task")
    band_low = forms.FloatField(initial=0.2, label="band: lowest success rate kept")
    band_high = forms.FloatField(initial=0.8, label="band: highest success rate kept")
    scaffold = forms.ChoiceField(choices=[(name, SCAFFOLD_LABELS.get(name, name)) for name in SCAFFOLDS],
                                 initial="react")
