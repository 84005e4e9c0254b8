# The job row's claim count and resend time (sandmle_web.jobs.Job): lost workers' jobs are taken up again.

from django.db import migrations, models


JOB_MODELS = ("rolloutbatch", "evalcampaign", "trainingrun", "latencystudy")


class Migration(migrations.Migration):

    dependencies = [
        ("training_app", "0007_latency_study_seed"),
    ]

    operations = [
        operation
        for model in JOB_MODELS
        for operation in (
            migrations.AddField(model_name=model, name="attempts", field=models.PositiveIntegerField(default=0)),
            migrations.AddField(model_name=model, name="enqueued_at",
                                field=models.DateTimeField(blank=True, null=True)),
        )
    ]
