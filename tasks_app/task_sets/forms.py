"""Input form of the task-set picker."""

from __future__ import annotations

from django import forms

from tasks_app.task_sets.models import DESCRIPTION_MAX_CHARS

TASK_SET_SELECTIONS = [("checked", "the checked tasks"), ("matching", "every task matching the filter")]


class TaskSetForm(forms.Form):
    """A new task set from the checked tasks of the picker's page, or from every task its filter matches."""

    name = forms.SlugField(max_length=80)
    description = forms.CharField(widget=forms.Textarea(attrs={"rows": 2}), required=False,
                                  max_length=DESCRIPTION_MAX_CHARS)
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


def _task_id_list(text: str) -> list[str]:
    return [word for word in (text or "").replace(",", " ").split() if word]


class TaskSetEditForm(forms.Form):
    """A set's name and description, approved tasks to add (ids, one per line) and checked tasks to remove."""

    name = forms.SlugField(max_length=80)
    description = forms.CharField(widget=forms.Textarea(attrs={"rows": 2}), required=False,
                                  max_length=DESCRIPTION_MAX_CHARS)
    add_task_ids = forms.CharField(widget=forms.Textarea(attrs={"rows": 3}), required=False, label="add tasks",
                                   help_text="approved task ids, separated by spaces, commas or new lines")
    remove_task_ids = forms.MultipleChoiceField(choices=[], required=False, widget=forms.CheckboxSelectMultiple,
                                                label="remove tasks")

    def __init__(self, *args, task_ids: list[str], **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["remove_task_ids"].choices = [(task_id, task_id) for task_id in task_ids]

    def clean_add_task_ids(self) -> list[str]:
        ids = _task_id_list(self.cleaned_data.get("add_task_ids", ""))
        if len(ids) > 1000:
            raise forms.ValidationError("add at most 1,000 tasks at a time")
        return ids


class TaskSetCloneForm(forms.Form):
    name = forms.SlugField(max_length=80, label="name of the copy")


class TaskSetRetireForm(forms.Form):
    reason = forms.CharField(max_length=5000, required=False, strip=True)
