# The job row's claim count and resend time (sandmle_web.jobs.Job): lost workers' jobs are taken up again.

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("tasks_app", "0006_review_workflow"),
    ]

    operations = [
        migrations.AddField(model_name="synthesisrun", name="attempts", field=models.PositiveIntegerField(default=0)),
        migrations.AddField(model_name="synthesisrun", name="enqueued_at",
                            field=models.DateTimeField(blank=True, null=True)),
    ]
