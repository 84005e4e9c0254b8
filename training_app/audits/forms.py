"""Input form of the audit launch: a task set, the scaffolds to attack through, how their episodes play (scaffold
options such as react's dialect, a feedback mode) and the reward scheme degenerate solutions are judged under."""

from __future__ import annotations

from django import forms

from sandmle.agents.scaffolds import SCAFFOLDS
from sandmle.agents.scaffolds.base import FEEDBACK_MODES
from training_app.shared.presentation import FEEDBACK_LABELS, SCAFFOLD_LABELS


class AuditForm(forms.Form):
    task_set = forms.ChoiceField(choices=[])
    scaffolds = forms.MultipleChoiceField(choices=[(name, SCAFFOLD_LABELS.get(name, name)) for name in SCAFFOLDS],
                                          initial=list(SCAFFOLDS),
                                          widget=forms.CheckboxSelectMultiple,
                                          help_text="attacks on scaffold code play on each; sandbox attacks once")
    scaffold_options = forms.CharField(
        max_length=2000, required=False, widget=forms.Textarea(attrs={"rows": 2}),
        help_text="how the scaffolds play, as a run would: one SCAFFOLD.KEY=VALUE (or KEY=VALUE for every scaffold "
                  "chosen) a line, e.g. react.dialect=sandmle; a run is covered only by an audit that played its "
                  "options")
    feedback = forms.ChoiceField(
        choices=[("", "each attack's own (score on a public split)")]
        + [(mode, FEEDBACK_LABELS.get(mode, mode)) for mode in FEEDBACK_MODES], required=False,
        help_text="the feedback every episode plays; a run on score_answers (its Score tool grades against the real "
                  "answers) is covered only by an audit that played it")
    reward_scheme = forms.ChoiceField(choices=[("dense", "dense"), ("sparse", "sparse")], initial="dense",
                                      label="Judge degenerate solutions under",
                                      help_text="a tier this reward pays breaks the task; only a dense audit opens "
                                                "training on any reward but sparse")

    def __init__(self, *args, task_set_names: list[str], **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["task_set"].choices = [(name, name) for name in task_set_names]

    def clean(self):
        cleaned = super().clean()
        if "scaffold_options" in cleaned and cleaned.get("scaffolds"):
            cleaned["scaffold_options"] = self._options(cleaned)
        return cleaned

    def _options(self, cleaned: dict) -> dict:
        """The lines as {scaffold: {option: value}}, through the scaffolds' one validator (the service checks again)."""
        from sandmle.agents.scaffolds.options import parse_option_pairs
        from sandmle.errors import UsageError

        lines = [line.strip() for line in (cleaned.get("scaffold_options") or "").splitlines() if line.strip()]
        try:
            return parse_option_pairs(lines, list(cleaned["scaffolds"]))
        except UsageError as error:
            self.add_error("scaffold_options", str(error).replace("--scaffold-option ", "line "))
            return {}


def options_lines(scaffold: str, options: dict) -> str:
    """{option: value} of one scaffold as the form's SCAFFOLD.KEY=VALUE lines (the launch form's "audit these
    settings" link fills the field with them)."""
    return "\n".join(f"{scaffold}.{key}={str(value).lower() if isinstance(value, bool) else value}"
                     for key, value in options.items())
