"""The reply token limit has one name in every table (sandmle/episodes/budget.py): a GRPO run's stored config says
`max_tokens` where it said `max_response_tokens`, so a requeued run loads it back."""

from django.db import migrations

CHUNK = 500
# Frozen here: a migration renames as it did when it was written, whatever the engine's names become later.
OLD, NEW = "max_response_tokens", "max_tokens"


def _rename(apps, old: str, new: str) -> None:
    TrainingRun = apps.get_model("training_app", "TrainingRun")
    rows = []
    for row in TrainingRun.objects.only("id", "config").iterator(chunk_size=CHUNK):
        if isinstance(row.config, dict) and old in row.config:
            row.config = {(new if key == old else key): value for key, value in row.config.items()}
            rows.append(row)
        if len(rows) == CHUNK:
            TrainingRun.objects.bulk_update(rows, ["config"])
            rows = []
    TrainingRun.objects.bulk_update(rows, ["config"])


def forwards(apps, schema_editor):
    _rename(apps, OLD, NEW)


def backwards(apps, schema_editor):
    _rename(apps, NEW, OLD)


class Migration(migrations.Migration):

    dependencies = [
        ("training_app", "0014_rollout_batch_schedule"),
    ]

    operations = [
        migrations.RunPython(forwards, backwards),
    ]
