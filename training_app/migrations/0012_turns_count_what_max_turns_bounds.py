"""Turns count what `max_turns` bounds (sandmle.evaluation.metrics.episode_turns), as the campaign form and the
metrics do; a rollout trajectory keeps its record count, the range of its turn comments, in `n_records`."""

from django.db import migrations, models

CHUNK = 500
# A frozen copy of sandmle.evaluation.metrics.episode_turns as this migration shipped: a migration must recount as it
# did when it was written, whatever the engine's definition becomes later (Django's advice for RunPython).
HELPER_CALLS = frozenset({"review", "repair"})


def episode_turns(trajectory: dict) -> int:
    return sum(1 for turn in trajectory.get("turns") or [] if turn.get("role") == "assistant"
               and str(turn.get("kind") or "") not in HELPER_CALLS and not str(turn.get("kind") or "").endswith("_retry"))


def recount(apps, schema_editor):
    Trajectory = apps.get_model("training_app", "Trajectory")
    CampaignEpisode = apps.get_model("training_app", "CampaignEpisode")
    rows = []
    for row in Trajectory.objects.only("id", "record").iterator(chunk_size=CHUNK):
        row.n_records, row.n_turns = len(row.record.get("turns") or []), episode_turns(row.record)
        rows.append(row)
        if len(rows) == CHUNK:
            Trajectory.objects.bulk_update(rows, ["n_records", "n_turns"])
            rows = []
    Trajectory.objects.bulk_update(rows, ["n_records", "n_turns"])
    rows = []
    for row in CampaignEpisode.objects.only("id", "record").iterator(chunk_size=CHUNK):
        row.n_turns = episode_turns(row.record.get("trajectory") or {})
        rows.append(row)
        if len(rows) == CHUNK:
            CampaignEpisode.objects.bulk_update(rows, ["n_turns"])
            rows = []
    CampaignEpisode.objects.bulk_update(rows, ["n_turns"])


class Migration(migrations.Migration):

    dependencies = [
        ('training_app', '0011_scaffold_and_kind_labels_as_the_field_spells_them'),
    ]

    operations = [
        migrations.AddField(
            model_name='trajectory',
            name='n_records',
            field=models.PositiveIntegerField(default=0),
        ),
        migrations.RunPython(recount, migrations.RunPython.noop),
    ]
