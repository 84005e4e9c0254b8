from django.db import migrations


def drop_rule_family_from_run_summaries(apps, schema_editor):
    """Regeneration runs stored the previous version's rule family in their summary, which viewers read with the run;
    the worker now reads the family from that version, so the key goes from the rows queued before."""
    SynthesisRun = apps.get_model("tasks_app", "SynthesisRun")
    for run in SynthesisRun.objects.filter(summary__has_key="rule_family").only("id", "summary").iterator():
        SynthesisRun.objects.filter(id=run.id).update(
            summary={key: value for key, value in run.summary.items() if key != "rule_family"})


class Migration(migrations.Migration):

    dependencies = [
        ("tasks_app", "0007_job_attempts_enqueued_at"),
    ]

    operations = [
        migrations.RunPython(drop_rule_family_from_run_summaries, migrations.RunPython.noop),
    ]
