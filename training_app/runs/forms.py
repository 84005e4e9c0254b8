"""Input form of the training launch page: every setting of the engine's key table (config_fields), its defaults and
help, grouped as a researcher reads them; the advanced groups start folded."""

from __future__ import annotations

from django import forms
from django.utils.html import format_html, format_html_join

from sandmle.agents.policies.schedule import SCHEDULE_KEYS
from sandmle.rl.frontier_keys import ADAPTIVE_KEYS
from training_app.runs.services import GRPO_SETTINGS
from training_app.shared.checkpoints import checkpoint_refusal
from training_app.shared.presentation import FEEDBACK_LABELS, SCAFFOLD_LABELS

# (title, open at first, keys); a key of the engine's table missing here lands in the last group, so none is lost.
GROUPS = (
    ("Run", True, ("name", "task_set", "kind", "preset", "model", "lora_r")),
    ("Recipe", True, ("steps", "epochs", "group_size", "tasks_per_step", "learning_rate", "reward", "scaffold",
                      "scaffold_options", "feedback",
                      "max_turns", "max_tokens", "temperature", "save_every")),
    # Exploratory Annealed Decoding, next to the temperature it replaces; folded, as it starts off (constant).
    ("Sampling schedule", False, SCHEDULE_KEYS),
    ("Rollout mode and importance weights", False, ("rollout_mode", "max_staleness", "importance_sampling",
                                                    "importance_sampling_cap")),
    ("Sampling and the GRPO loss", False, ("dynamic_sampling", "dynamic_sampling_rounds", "task_sampling",
                                           "success_threshold", "loss_type", "loss_normalizer", "masked_in_baseline",
                                           "mask_step_timeout_share", "kl_coef", "clip_low", "clip_high",
                                           "weight_decay")),
    ("Adaptive environments: a task the policy always or never solves is swapped for a harder or easier successor "
     "of its lineage, made beside training", False, ADAPTIVE_KEYS),
    ("Evaluation", False, ("eval_task_set", "eval_every", "eval_samples")),
    ("Limits and memory", False, ("max_episode_tokens", "context_tokens", "step_timeout_s", "time_budget_s",
                                  "concurrency", "micro_batch_size", "seed", "bf16", "gradient_checkpointing")),
    ("vLLM and the judge", False, ()),
)


def _setting_field(entry: dict) -> forms.Field:
    # Ranges stay the engine's (load_train_config refuses them with the key named), so the form and the CLI agree.
    help_text = entry["help"] + (f" · reference: {entry['reference']}" if entry.get("reference") else "")
    options = {"required": False, "initial": entry["default"], "help_text": help_text}
    if entry["type"] == "choice":
        labels = SCAFFOLD_LABELS if entry["key"] == "scaffold" else FEEDBACK_LABELS if entry["key"] == "feedback" else {}
        blank = [("", "none")] if entry["key"] == "preset" else []
        if entry["key"] == "preset":  # the fields' values are sent too, and override the preset's
            options["help_text"] = (entry["help"] + " · \"Start from\" above fills the form with its values; "
                                    "every value sent here overrides the preset's")
        return forms.ChoiceField(choices=blank + [(c, labels.get(c, c)) for c in entry["choices"]], **options)
    if entry["type"] == "options":
        options.update(initial="", help_text=entry["help"] + " · one KEY=VALUE a line, e.g. dialect=sandmle")
        return forms.CharField(max_length=2000, widget=forms.Textarea(attrs={"rows": 2}), **options)
    if entry["type"] == "choices":
        return forms.MultipleChoiceField(choices=[(c, c) for c in entry["choices"]], **options)
    if entry["type"] == "bool":
        return forms.BooleanField(**options)
    if entry["type"] == "int":
        return forms.IntegerField(**options)
    if entry["type"] == "float":
        return forms.FloatField(**options)
    if entry["type"] in ("band", "levels"):  # two numbers as "LOW, HIGH"; the engine checks them (clean below)
        options.update(initial=", ".join(str(v) for v in entry["default"]), help_text=help_text + " · e.g. "
                       + ", ".join(str(v) for v in entry["default"]))
        return forms.CharField(max_length=100, **options)
    return forms.CharField(max_length=500, **options)


class CheckpointInput(forms.TextInput):
    """A text box offering the checkpoints the user may use (a datalist); the service checks whatever is typed."""

    def __init__(self, *args, options: list[tuple[str, str]] = (), **kwargs):
        super().__init__(*args, **kwargs)
        self.options = list(options)
        self.attrs["list"] = "model-choices"

    def render(self, name, value, attrs=None, renderer=None):
        listed = format_html_join("", '<option value="{}">{}</option>', self.options)
        return format_html('{}<datalist id="model-choices">{}</datalist>', super().render(name, value, attrs, renderer),
                           listed)


class TrainingRunForm(forms.Form):
    name = forms.CharField(max_length=200, required=False)
    task_set = forms.ChoiceField(choices=[])
    kind = forms.ChoiceField(choices=[("grpo", "GRPO"), ("sft", "SFT")], initial="grpo",
                             help_text="GRPO trains on the task set; SFT fine-tunes on its stored rollout trajectories")
    model = forms.CharField(max_length=500, help_text="a checkpoint directory (save_pretrained format, with tokenizer) "
                                                      "under an allowed model folder: one of your runs' checkpoints "
                                                      "or a model the admin offers")
    lora_r = forms.IntegerField(required=False, min_value=1, max_value=1024, label="LoRA r",
                                help_text="blank for full fine-tuning; alpha is 2r")
    eval_task_set = forms.ChoiceField(choices=[], required=False, label="Evaluation task set",
                                      help_text="held-out tasks evaluated every eval_every steps (blank: none)")

    def __init__(self, *args, task_set_names: list[str], model_options: list[tuple[str, str]] = (), start_from: str = "",
                 **kwargs):
        from sandmle.rl.config import config_fields

        super().__init__(*args, **kwargs)
        self.start_from = start_from
        self.fields["model"].widget = CheckpointInput(options=model_options)
        self.fields["task_set"].choices = [(name, name) for name in task_set_names]
        self.fields["eval_task_set"].choices = [("", "none")] + [(name, name) for name in task_set_names]
        for entry in config_fields("grpo"):
            if entry["key"] in GRPO_SETTINGS:
                self.fields[entry["key"]] = _setting_field(entry)
        if "judge_key_env" in self.fields:  # key variables' names are the admin's to see; blank is the house key
            self.fields["judge_key_env"].initial = ""
            self.fields["judge_key_env"].help_text = ("environment variable holding the judge's key, one the admin "
                                                      "allows (SANDMLE_LLM_KEY_ENVS); blank: the deployment's key")
        if start_from:
            self._start_from(start_from)

    def _start_from(self, name: str) -> None:
        """"Start from" a run preset: its values fill the fields, so what is sent is the preset plus the changes."""
        from sandmle.rl.presets import preset_values

        from training_app.shared.model_roots import TINY_MODEL

        values = preset_values(name)
        self.fields["preset"].initial = name
        if name == "cpu-smoke":  # its recipe is made for the reply-menu tiny model
            self.fields["model"].initial = TINY_MODEL
        if values.get("epochs") is not None:
            self.fields["steps"].initial = None  # blank: the preset's epochs set the steps
        for key, value in values.items():
            if key in self.fields:
                self.fields[key].initial = options_text(value) if key == "scaffold_options" else value

    def clean_model(self):
        problem = checkpoint_refusal(self.cleaned_data["model"])
        if problem:
            raise forms.ValidationError(problem)
        return self.cleaned_data["model"].strip()

    def clean(self):
        # Every setting against the engine's own ranges, each error on its field, all at once; the service's full
        # check (load_train_config) still runs and catches what spans several keys.
        from sandmle.rl.config import setting_problems

        cleaned = super().clean()
        if "scaffold_options" in cleaned:
            cleaned["scaffold_options"] = self._options(cleaned)
        for key in PAIR_KEYS:
            if cleaned.get(key):
                cleaned[key] = pair_from_text(cleaned[key])
        given = {key: cleaned[key] for key in GRPO_SETTINGS if cleaned.get(key) not in (None, "", [])}
        for key, problem in setting_problems(given).items():
            self.add_error(key, problem)
        return cleaned

    def _options(self, cleaned: dict) -> dict | None:
        """The KEY=VALUE lines as {option: value}, through the scaffolds' one validator (the service checks again)."""
        from sandmle.agents.scaffolds.options import parse_option_pairs
        from sandmle.errors import UsageError

        lines = [line.strip() for line in (cleaned.get("scaffold_options") or "").splitlines() if line.strip()]
        if not lines:
            return None
        scaffold = cleaned.get("scaffold") or "react"
        try:
            return parse_option_pairs(lines, [scaffold]).get(scaffold, {})
        except UsageError as error:
            self.add_error("scaffold_options", str(error).replace("--scaffold-option ", "line "))
            return None

    def groups(self) -> list[tuple[str, bool, list]]:
        """(title, open, bound fields) per group; a group holding an error opens so the error shows."""
        placed = {key for _, _, keys in GROUPS for key in keys}
        rest = tuple(key for key in self.fields if key not in placed)
        result = []
        for title, is_open, keys in GROUPS:
            fields = [self[key] for key in keys + (rest if not keys else ()) if key in self.fields]
            result.append((title, is_open or any(field.errors for field in fields), fields))
        return result

    def launch_values(self) -> dict:
        """The cleaned values for training_run_create; blank settings are left to the engine's defaults."""
        values = dict(self.cleaned_data)
        return {key: value for key, value in values.items() if value not in (None, "", []) or key in ("name",)}


PAIR_KEYS = ("frontier_band", "level_range")


def pair_from_text(text: str) -> list | str:
    """"0.3, 0.7" as [0.3, 0.7] (whole numbers as ints, so a level range stays whole); other text is left for the
    engine's check to refuse with its own message."""
    parts = [part.strip() for part in text.strip().strip("[]").split(",")]
    try:
        return [int(part) if part.lstrip("-").isdigit() else float(part) for part in parts]
    except ValueError:
        return text


def options_text(options: dict) -> str:
    """{option: value} as the form's KEY=VALUE lines."""
    return "\n".join(f"{key}={str(value).lower() if isinstance(value, bool) else value}" for key, value in options.items())
