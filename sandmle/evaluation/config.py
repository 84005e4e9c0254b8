"""Validated evaluation-campaign settings (a YAML file, `--set`, CLI flags or a form): unknown keys, types and ranges refused with the key named."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sandmle.agents.policies.schedule import SCHEDULE_KEYS, schedule_fields
from sandmle.agents.scaffolds import SCAFFOLDS
from sandmle.agents.scaffolds.base import EVALUATION_FEEDBACK
from sandmle.episodes.budget import BUDGET_KEYS, budget_fields
from sandmle.settings import REQUIRED, ConfigError, Field, check_settings, read_settings

CAMPAIGN_FIELDS: list[Field] = [
    Field("policies", "strs", REQUIRED, "policy specs: baseline, openai:MODEL@URL or hf:PATH"),
    Field("scaffolds", "choices", REQUIRED, "the scaffolds every policy runs under", choices=tuple(SCAFFOLDS)),
    Field("tasks", "paths", REQUIRED, "task bundles, or folders holding task bundles"),
    Field("out", "path", REQUIRED, "folder for episodes.jsonl, report.json, report.csv"),
    Field("seeds", "int", 3, "repeats of every episode (MLE-bench asks for 3)", min=1, max=100),
    Field("baseline", "str", None, "the policy the other rows are compared against", nullable=True),
    Field("feedback", "choice", "score", "what the agent may check before answering", choices=EVALUATION_FEEDBACK),
    *budget_fields(),
    *schedule_fields(),
    Field("concurrency", "int", 1, "episodes run at once", min=1, max=512),
    Field("api_key_env", "env", None, "environment variable holding an openai policy's API key", nullable=True),
]


@dataclass
class CampaignConfig:
    """A checked campaign: the engine's CampaignSpec plus where and how the CLI runs it."""

    spec: Any  # sandmle.evaluation.campaign.CampaignSpec
    out: Path
    concurrency: int
    api_key_env: str | None


SCAFFOLD_OPTIONS_FIELD = {"key": "scaffold_options", "type": "mapping", "default": {}, "required": False,
                          "help": "per scaffold, {option: value} or {preset: upstream | paper | fast} "
                                  "(see the README's scaffold entries)"}


def campaign_config_fields() -> list[dict]:
    """The settings of a campaign, each {"key","type","default","help","required", "choices"?,"min"?,"max"?}."""
    return [f.describe() for f in CAMPAIGN_FIELDS] + [dict(SCAFFOLD_OPTIONS_FIELD)]


def load_campaign_config(source: dict | str | Path, overrides: Sequence[str] = (), *,
                         expand_tasks=None) -> CampaignConfig:
    """Reads a YAML file (or a dict), applies KEY=VALUE overrides and checks every key, type and range.

    `expand_tasks(paths) -> bundles` turns the task paths into bundles (the CLI accepts folders of bundles); then the
    spec's own checks run (bundles exist, the baseline is one of the policies, no policy or task twice).
    """
    from sandmle.errors import UsageError
    from sandmle.evaluation.campaign import CampaignSpec

    raw = read_settings(source, overrides)
    scaffold_options = raw.pop("scaffold_options", None)  # checked per scaffold by CampaignSpec.validate
    values = check_settings(raw, CAMPAIGN_FIELDS)
    if values["baseline"] is not None and values["baseline"] not in values["policies"]:
        raise ConfigError("baseline", f"{values['baseline']!r} is not one of the policies")
    tasks = [Path(task) for task in values["tasks"]]
    spec = CampaignSpec(policies=values["policies"], scaffolds=values["scaffolds"],
                        tasks=expand_tasks(tasks) if expand_tasks else tasks, seeds=values["seeds"],
                        baseline=values["baseline"], feedback=values["feedback"],
                        **{key: values[key] for key in BUDGET_KEYS},
                        scaffold_options=scaffold_options or {},
                        schedule={key: values[key] for key in SCHEDULE_KEYS})
    try:
        spec.validate()
    except ConfigError:
        raise
    except UsageError as error:  # CampaignSpec words it "<field>: <problem>"
        key, _, problem = str(error).partition(": ")
        raise ConfigError(key, problem) from None
    return CampaignConfig(spec=spec, out=Path(values["out"]), concurrency=values["concurrency"],
                          api_key_env=values["api_key_env"])
