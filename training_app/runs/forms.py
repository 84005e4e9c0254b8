"""Input form of the training launch page; its settings, defaults and help come from the engine's config_fields."""

from __future__ import annotations

from django import forms
from django.utils.html import format_html, format_html_join

from training_app.models import TrainingRun
from training_app.runs.services import GRPO_SETTINGS


def _setting_field(entry: dict) -> forms.Field:
    # Ranges stay the engine's (load_train_config refuses them with the key named), so the form and the CLI agree.
    options = {"required": False, "initial": entry["default"], "help_text": entry["help"]}
    if entry["type"] == "choice":
        return forms.ChoiceField(choices=[(c, c) for c in entry["choices"]], **options)
    if entry["type"] == "choices":
        return forms.MultipleChoiceField(choices=[(c, c) for c in entry["choices"]], **options)
    if entry["type"] == "int":
        return forms.IntegerField(**options)
    return forms.FloatField(**options)


class CheckpointInput(forms.TextInput):
    """A text box offering the checkpoints the user may use (a datalist); the service checks whatever is typed."""

    def __init__(self, *args, options: list[str] = (), **kwargs):
        super().__init__(*args, **kwargs)
        self.options = list(options)
        self.attrs["list"] = "model-choices"

    def render(self, name, value, attrs=None, renderer=None):
        listed = format_html_join("", '<option value="{}">', ((option,) for option in self.options))
        return format_html('{}<datalist id="model-choices">{}</datalist>', super().render(name, value, attrs, renderer),
                           listed)


class TrainingRunForm(forms.Form):
    name = forms.CharField(max_length=200, required=False)
    task_set = forms.ChoiceField(choices=[])
    kind = forms.ChoiceField(choices=TrainingRun.Kind.choices, initial="grpo",
                             help_text="grpo trains on the task set; sft fine-tunes on its stored rollout trajectories")
    model = forms.CharField(max_length=500, help_text="a checkpoint directory (save_pretrained format, with tokenizer) "
                                                      "under an allowed model folder: one of your runs' checkpoints "
                                                      "or a model the admin offers")
    lora_r = forms.IntegerField(required=False, min_value=1, max_value=1024, label="LoRA r",
                                help_text="blank for full fine-tuning; alpha is 2r")

    def __init__(self, *args, task_set_names: list[str], model_options: list[str] = (), **kwargs):
        from sandmle.rl.config import config_fields

        super().__init__(*args, **kwargs)
        self.fields["model"].widget = CheckpointInput(options=model_options)
        self.fields["task_set"].choices = [(name, name) for name in task_set_names]
        for entry in config_fields("grpo"):
            if entry["key"] in GRPO_SETTINGS:
                self.fields[entry["key"]] = _setting_field(entry)

    def launch_values(self) -> dict:
        """The cleaned values for training_run_create; blank settings are left to the engine's defaults."""
        values = dict(self.cleaned_data)
        return {key: value for key, value in values.items() if value not in (None, "", []) or key in ("name",)}
