"""Input form of the evaluation campaign launch page."""

from django import forms

from training_app.models import RolloutBatch
from training_app.shared.budget_inputs import add_budget_fields
from training_app.shared.schedule_inputs import add_schedule_fields, clean_schedule, schedule_groups


class CampaignForm(forms.Form):
    name = forms.CharField(max_length=200, required=False)
    task_set = forms.ChoiceField(choices=[])
    policies = forms.CharField(widget=forms.Textarea(attrs={"rows": 3}), initial="baseline",
                               help_text="one per line: baseline, openai:MODEL@URL or hf:PATH")
    scaffolds = forms.MultipleChoiceField(choices=RolloutBatch.Scaffold.choices, widget=forms.CheckboxSelectMultiple,
                                          initial=RolloutBatch.Scaffold.values)
    seeds = forms.IntegerField(min_value=1, max_value=20, initial=3, help_text="repeats per task (MLE-bench: 3 or more)")
    baseline = forms.CharField(max_length=500, required=False, help_text="the policy every cell is compared with")
    feedback = forms.ChoiceField(choices=RolloutBatch.Feedback.choices, initial="score")
    scaffold_options = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 3}), required=False,
        help_text="one per line: KEY=VALUE for every scaffold or SCAFFOLD.KEY=VALUE for one, e.g. preset=upstream, "
                  "react.dialect=sandmle, aira.memory=branch")

    def __init__(self, *args, task_set_names: list[str], **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["task_set"].choices = [(name, name) for name in task_set_names]
        add_budget_fields(self)
        add_schedule_fields(self)

    def clean_policies(self) -> list[str]:
        return [line.strip() for line in self.cleaned_data["policies"].splitlines() if line.strip()]

    def clean(self):
        from sandmle.agents.scaffolds.options import parse_option_pairs
        from sandmle.errors import UsageError

        cleaned = super().clean()
        lines = [line.strip() for line in (cleaned.get("scaffold_options") or "").splitlines() if line.strip()]
        try:
            cleaned["scaffold_options"] = parse_option_pairs(lines, list(cleaned.get("scaffolds") or []))
        except UsageError as error:
            self.add_error("scaffold_options", str(error).replace("--scaffold-option ", "line "))
        clean_schedule(self, cleaned)
        return cleaned

    def groups(self) -> list[tuple[str, bool, list]]:
        return schedule_groups(self, "Campaign")
