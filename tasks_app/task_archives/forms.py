"""Input forms of task-set archives: the format of an export, and an uploaded archive with its layout."""

from __future__ import annotations

from django import forms

from tasks_app.task_archives.models import FORMAT_CHOICES


class ExportForm(forms.Form):
    format = forms.ChoiceField(choices=FORMAT_CHOICES, initial="mlebench")


class ImportForm(forms.Form):
    file = forms.FileField(help_text="a .tar.gz, .tgz, .tar or .zip archive")
    format = forms.ChoiceField(choices=FORMAT_CHOICES, help_text="the layout the archive holds")
    metric = forms.CharField(max_length=32, required=False,
                             help_text="SandMLE layout only: the metric by name, where the evaluator does not say it")
