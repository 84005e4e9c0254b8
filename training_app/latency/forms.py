"""Input form of the latency study launch page: a synthesized task, a seed dataset or an uploaded table, rows,
pipelines, repeats."""

from __future__ import annotations

from django import forms

from training_app.latency.services import MAX_FULL_ROWS, MAX_SEEDS


class LatencyStudyForm(forms.Form):
    name = forms.CharField(max_length=200, required=False)
    task = forms.ChoiceField(choices=[], required=False,
                             help_text="a synthesized task: its spec is materialized at full scale")
    seed = forms.ChoiceField(choices=[], required=False,
                             help_text="or a seed dataset: a task spec is drawn from its DNA at SandMLE's size")
    table = forms.FileField(required=False, help_text="or a real large CSV table as the full-scale task")
    target = forms.CharField(max_length=200, required=False, help_text="the table's target column")
    full_rows = forms.IntegerField(required=False, min_value=1, max_value=MAX_FULL_ROWS,
                                   help_text="training rows at full scale (a task: default 200,000; a table: at most "
                                             "this many of its rows)")
    seeds = forms.IntegerField(min_value=1, max_value=MAX_SEEDS, initial=3, help_text="repeats of the study")
    pipelines = forms.MultipleChoiceField(choices=[], widget=forms.CheckboxSelectMultiple,
                                          help_text="the reference steps timed at both sizes")

    def __init__(self, *args, task_ids: list[str], seed_names: list[str], **kwargs):
        from sandmle.latency.study import PIPELINES

        super().__init__(*args, **kwargs)
        self.fields["task"].choices = [("", "—")] + [(task_id, task_id) for task_id in task_ids]
        self.fields["seed"].choices = [("", "—")] + [(name, name) for name in seed_names]
        self.fields["pipelines"].choices = [(name, name.replace("_", " ")) for name in PIPELINES]
        self.fields["pipelines"].initial = list(PIPELINES)
