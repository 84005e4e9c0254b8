"""Input forms of the task pages; every 400 of a page comes from here."""

from __future__ import annotations

from django import forms
from django.conf import settings

TASK_TYPES = [("", "infer from the target"), ("binary", "binary"), ("multiclass", "multiclass"), ("regression", "regression")]
METRICS = [("", "default for the task type"), ("accuracy", "accuracy"), ("macro_f1", "macro F1"), ("roc_auc", "ROC-AUC"),
           ("log_loss", "log-loss"), ("rmse", "RMSE"), ("mae", "MAE"), ("r2", "R²")]


# The rng seeds numpy and is stored in a signed 64-bit column; 2**32 seeds are more than any curator needs.
RNG_MAX = 2**32 - 1


class SeedUploadForm(forms.Form):
    name = forms.SlugField(max_length=80)
    file = forms.FileField(help_text="a CSV file with a header row")
    target = forms.CharField(max_length=200, help_text="the column to predict")
    task_type = forms.ChoiceField(choices=TASK_TYPES, required=False)
    metric = forms.ChoiceField(choices=METRICS, required=False)

    def clean_file(self):
        upload = self.cleaned_data["file"]
        if upload.size > settings.DATA_UPLOAD_MAX_MEMORY_SIZE:
            limit_mib = settings.DATA_UPLOAD_MAX_MEMORY_SIZE / 2**20
            raise forms.ValidationError(f"the file is {upload.size / 2**20:.1f} MiB; the limit is {limit_mib:.0f} MiB")
        return upload


class SynthesisRunForm(forms.Form):
    count = forms.IntegerField(min_value=1, max_value=200, initial=4)
    rng = forms.IntegerField(min_value=0, max_value=RNG_MAX, initial=0, label="rng seed")
    llm_url = forms.URLField(required=False, assume_scheme="https", label="LLM base URL (optional)",
                             help_text="an OpenAI-compatible endpoint for the domain and rule stages; empty: procedural")
    llm_model = forms.CharField(max_length=200, required=False, label="LLM model")
    llm_key_env = forms.CharField(max_length=100, required=False, label="LLM key variable",
                                  help_text="the worker's environment variable holding the endpoint's API key")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        from tasks_app.services import synthesis_llm_defaults

        for name, value in synthesis_llm_defaults().items():  # read per form: settings may change under tests
            self.fields[name].initial = value


class ReviewForm(forms.Form):
    verdict = forms.ChoiceField(choices=[("approve", "approve"), ("request_changes", "request changes"),
                                         ("reject", "reject"), ("comment", "comment")])
    body = forms.CharField(widget=forms.Textarea(attrs={"rows": 3}), required=False)
    visibility = forms.ChoiceField(choices=[("reviewers", "reviewers only"), ("everyone", "everyone")],
                                   initial="reviewers", required=False, help_text="who may read this comment")

    def clean(self):
        data = super().clean()
        if not (data.get("body") or "").strip():
            # Every decision carries its reason into the audit history.
            self.add_error("body", "a comment needs some text" if data.get("verdict") == "comment" else "say why")
        return data


REASON_MAX_CHARS = 5000
VERDICT_CHOICES = [("approve", "approve"), ("request_changes", "request changes"), ("reject", "reject")]
VISIBILITY_CHOICES = [("reviewers", "reviewers only"), ("everyone", "everyone")]


class DecisionForm(forms.Form):
    verdict = forms.ChoiceField(choices=VERDICT_CHOICES)
    reason = forms.CharField(widget=forms.Textarea(attrs={"rows": 2}), max_length=REASON_MAX_CHARS,
                             help_text="required; kept in the audit history")


class ReasonForm(forms.Form):
    reason = forms.CharField(widget=forms.Textarea(attrs={"rows": 2}), max_length=REASON_MAX_CHARS)


class ThreadCommentForm(forms.Form):
    body = forms.CharField(widget=forms.Textarea(attrs={"rows": 2}), max_length=REASON_MAX_CHARS, label="comment")
    visibility = forms.ChoiceField(choices=VISIBILITY_CHOICES, initial="reviewers", required=False)
    parent = forms.IntegerField(min_value=1, max_value=2**63 - 1, required=False, widget=forms.HiddenInput)

    def clean_visibility(self):
        return self.cleaned_data.get("visibility") or "reviewers"


class SavedViewForm(forms.Form):
    name = forms.CharField(max_length=80, label="save these filters as")


class BulkReviewForm(forms.Form):
    task_ids = forms.MultipleChoiceField(choices=[], widget=forms.MultipleHiddenInput, error_messages={
        "required": "select at least one task"})
    action = forms.ChoiceField(choices=VERDICT_CHOICES + [("assign", "assign")])
    reason = forms.CharField(max_length=REASON_MAX_CHARS, required=False)
    assignee = forms.ChoiceField(choices=[], required=False)

    def __init__(self, *args, reviewers: list[str], **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["assignee"].choices = [("", "nobody (unassign)")] + [(name, name) for name in reviewers]
        # Any task id may be posted; the service answers "no such task" per id rather than failing the whole form.
        self.fields["task_ids"].valid_value = lambda value: bool(value) and len(value) <= 100

    def clean(self):
        data = super().clean()
        if data.get("action") and data["action"] != "assign" and not (data.get("reason") or "").strip():
            self.add_error("reason", "give one reason for the whole selection")
        return data


TASK_SET_SELECTIONS = [("checked", "the checked tasks"), ("matching", "every task matching the filter")]


class TaskSetForm(forms.Form):
    """A new task set from the checked tasks of the picker's page, or from every task its filter matches."""

    name = forms.SlugField(max_length=80)
    description = forms.CharField(widget=forms.Textarea(attrs={"rows": 2}), required=False)
    # The checkboxes are the picker table's own; any id may be posted and the service names the unknown ones.
    task_ids = forms.MultipleChoiceField(choices=[], required=False, widget=forms.MultipleHiddenInput,
                                         label="approved tasks")
    selection = forms.ChoiceField(choices=TASK_SET_SELECTIONS, required=False)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["task_ids"].valid_value = lambda value: bool(value) and len(value) <= 100

    def clean(self):
        data = super().clean()
        data["selection"] = data.get("selection") or "checked"
        if data["selection"] == "checked" and not data.get("task_ids") and "task_ids" not in self.errors:
            self.add_error("task_ids", "check at least one task, or make the set from every task matching the filter")
        return data
