"""Input form of the seed upload page."""

from __future__ import annotations

from django import forms
from django.conf import settings

TASK_TYPES = [("", "infer from the target"), ("binary", "binary"), ("multiclass", "multiclass"), ("regression", "regression")]
METRICS = [("", "default for the task type"), ("accuracy", "accuracy"), ("macro_f1", "macro F1"), ("roc_auc", "ROC-AUC"),
           ("log_loss", "log-loss"), ("rmse", "RMSE"), ("mae", "MAE"), ("r2", "R²")]


class SeedUploadForm(forms.Form):
    name = forms.SlugField(max_length=80)
    # Not required when the form carries the token of a file held from a refused send (tasks_app/seeds/held_uploads.py).
    file = forms.FileField(required=False, help_text="a CSV file with a header row")
    target = forms.CharField(max_length=200, help_text="the column to predict")
    task_type = forms.ChoiceField(choices=TASK_TYPES, required=False)
    metric = forms.ChoiceField(choices=METRICS, required=False)

    def clean_file(self):
        upload = self.cleaned_data["file"]
        if upload is None:
            if not self.data.get("held_file"):
                raise forms.ValidationError("choose a CSV file")
            return upload
        if upload.size > settings.DATA_UPLOAD_MAX_MEMORY_SIZE:
            limit_mib = settings.DATA_UPLOAD_MAX_MEMORY_SIZE / 2**20
            raise forms.ValidationError(f"the file is {upload.size / 2**20:.1f} MiB; the limit is {limit_mib:.0f} MiB")
        return upload
