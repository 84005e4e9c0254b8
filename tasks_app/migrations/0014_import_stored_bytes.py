"""Imports record the bytes they keep (a user's quota counts them); names stored before names were checked on the way
in may hold lone surrogates (undecodable bytes of a tar member name), which no page can encode: written as escapes."""

from django.db import migrations, models


def _printable(value):
    if isinstance(value, str):
        return value.encode("utf-8", "backslashreplace").decode("utf-8")
    if isinstance(value, list):
        return [_printable(item) for item in value]
    if isinstance(value, dict):
        return {_printable(key): _printable(item) for key, item in value.items()}
    return value


def escape_stored_names(apps, schema_editor):
    TaskArchiveImport = apps.get_model("tasks_app", "TaskArchiveImport")
    for job in TaskArchiveImport.objects.only("id", "summary", "error", "filename"):
        fields = {"summary": _printable(job.summary), "error": _printable(job.error),
                  "filename": _printable(job.filename)}
        if fields != {"summary": job.summary, "error": job.error, "filename": job.filename}:
            TaskArchiveImport.objects.filter(id=job.id).update(**fields)


class Migration(migrations.Migration):

    dependencies = [
        ("tasks_app", "0013_frontier_runs_and_task_lineage"),
    ]

    operations = [
        migrations.AddField(
            model_name="taskarchiveimport",
            name="stored_bytes",
            field=models.BigIntegerField(default=0),
        ),
        migrations.RunPython(escape_stored_names, migrations.RunPython.noop),
    ]
