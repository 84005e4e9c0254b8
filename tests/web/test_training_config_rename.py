"""Migration 0015: a stored GRPO run config says max_tokens where it said max_response_tokens, and back on reverse."""

from __future__ import annotations

import importlib

from django.apps import apps

from training_app.models import TrainingRun

rename = importlib.import_module("training_app.migrations.0015_training_config_max_tokens")


def test_stored_configs_take_the_one_name_of_the_reply_limit_and_give_it_back(task_set):
    old = TrainingRun.objects.create(name="old", kind="grpo", task_set=task_set,
                                     config={"max_turns": 3, "max_response_tokens": 64, "seed": 1})
    untouched = TrainingRun.objects.create(name="sft", kind="sft", task_set=task_set, config={"max_length": 9})
    rename.forwards(apps, None)
    old.refresh_from_db()
    assert old.config == {"max_turns": 3, "max_tokens": 64, "seed": 1}
    untouched.refresh_from_db()
    assert untouched.config == {"max_length": 9}
    rename.backwards(apps, None)
    old.refresh_from_db()
    assert old.config == {"max_turns": 3, "max_response_tokens": 64, "seed": 1}
