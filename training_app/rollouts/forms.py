"""Input form of the rollout launch page."""

from django import forms

from training_app.models import RolloutBatch
from training_app.shared.budget_inputs import add_budget_fields
from training_app.shared.schedule_inputs import add_schedule_fields, clean_schedule, schedule_groups


class RolloutBatchForm(forms.Form):
    name = forms.CharField(max_length=200, required=False)
    task_set = forms.ChoiceField(choices=[])
    scaffold = forms.ChoiceField(choices=RolloutBatch.Scaffold.choices)
    policy = forms.CharField(max_length=500, initial="baseline", help_text="baseline, openai:MODEL@URL or hf:PATH")
    samples = forms.IntegerField(min_value=1, max_value=64, initial=2, label="samples per task (G)")
    concurrency = forms.IntegerField(min_value=1, max_value=32, initial=2)
    feedback = forms.ChoiceField(choices=RolloutBatch.Feedback.choices, initial="score")
    scaffold_options = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 2}), required=False,
        help_text="one KEY=VALUE per line, e.g. preset=upstream or dialect=sandmle")

    def __init__(self, *args, task_set_names: list[str], **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["task_set"].choices = [(name, name) for name in task_set_names]
        add_budget_fields(self)
        add_schedule_fields(self)

    def clean(self):
        from sandmle.agents.scaffolds.options import parse_option_pairs
        from sandmle.errors import UsageError

        cleaned = super().clean()
        lines = [line.strip() for line in (cleaned.get("scaffold_options") or "").splitlines() if line.strip()]
        scaffold = cleaned.get("scaffold")
        if scaffold:
            try:
                cleaned["scaffold_options"] = parse_option_pairs(lines, [scaffold]).get(scaffold, {})
            except UsageError as error:
                self.add_error("scaffold_options", str(error).replace("--scaffold-option ", "line "))
        clean_schedule(self, cleaned)
        return cleaned

    def groups(self) -> list[tuple[str, bool, list]]:
        return schedule_groups(self, "Batch")
