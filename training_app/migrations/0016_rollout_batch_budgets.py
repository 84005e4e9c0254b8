"""A rollout batch keeps every episode budget (sandmle/episodes/budget.py) in `budgets`, max_turns included."""

from django.db import migrations, models


def max_turns_into_budgets(apps, schema_editor):
    RolloutBatch = apps.get_model("training_app", "RolloutBatch")
    for batch in RolloutBatch.objects.only("id", "max_turns").iterator():
        RolloutBatch.objects.filter(id=batch.id).update(budgets={"max_turns": batch.max_turns})


def budgets_into_max_turns(apps, schema_editor):
    RolloutBatch = apps.get_model("training_app", "RolloutBatch")
    for batch in RolloutBatch.objects.only("id", "budgets").iterator():
        RolloutBatch.objects.filter(id=batch.id).update(max_turns=int((batch.budgets or {}).get("max_turns", 15)))


class Migration(migrations.Migration):
    dependencies = [("training_app", "0015_training_config_max_tokens")]

    operations = [
        migrations.AddField(model_name="rolloutbatch", name="budgets", field=models.JSONField(blank=True, default=dict)),
        migrations.RunPython(max_turns_into_budgets, budgets_into_max_turns),
        migrations.RemoveField(model_name="rolloutbatch", name="max_turns"),
    ]
