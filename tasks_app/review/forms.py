"""Input forms of the review pages: decisions, reasons, threaded comments, saved views, bulk actions."""

from __future__ import annotations

from django import forms


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
